package loader

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/memscope/memscope/evidence/record"
	"github.com/memscope/memscope/evidence/snapshot"
)

// ImportNote is one row of the import notes table (snapshot.ImportNoteTable):
// what an import kept about write WID.
type ImportNote struct {
	Seq      int64
	WID      string
	InputID  string // the id the input gave the write; "" for none
	Declared string // snapshot.LabelAuthenticated, LabelUnauthenticated or ""
	// Record is the signed note behind the row (Raw nil: unsigned, which
	// verify reports: only imports write the table, and they sign it).
	// Nil for notes read from an older import's meta keys.
	Record *RowRecord
}

var importNoteCols = []column{{"wid", maxIDCell, false}, {"input_id", record.MaxInputIDBytes, true}, {"declared", maxIDCell, true}}

// ImportNotes reads the import notes table in seq order; nil when the
// snapshot has none (Has(snapshot.ImportNoteTable)). A malformed row is
// skipped and listed in the returned RowErrors.
func (s *Snapshot) ImportNotes(ctx context.Context) ([]ImportNote, error) {
	const t = snapshot.ImportNoteTable
	if !s.Has(t) {
		return nil, nil
	}
	return signedRows(ctx, s, t, importNoteCols, func(r *row) ImportNote {
		n := ImportNote{Seq: r.seq, WID: r.str(s, t, 0), InputID: r.str(s, t, 1), Declared: r.str(s, t, 2)}
		if r.err == nil {
			if _, ok := record.CanonicalID(n.WID); !ok {
				r.fail(s, t, n.WID, "wid", "want a write id as canonical UUID text")
			} else if n.Declared != "" && n.Declared != snapshot.LabelAuthenticated && n.Declared != snapshot.LabelUnauthenticated {
				r.fail(s, t, n.WID, "declared", "\"%s\" is not %s, %s or NULL", n.Declared, snapshot.LabelAuthenticated, snapshot.LabelUnauthenticated)
			}
		}
		return n
	}, func(r *row, n *ImportNote) {
		n.Record = s.rowRecord(r, t, record.KindImportNote, n.WID, importNoteDiff(n))
	})
}

func importNoteDiff(n *ImportNote) func([]byte) (signer, []string, error) {
	return func(raw []byte) (signer, []string, error) {
		rec, err := record.DecodeImportNote(raw)
		if err != nil {
			return signer{}, nil, err
		}
		var d diff
		d.check("wid", rec.Name == n.WID)
		d.check("input_id", rec.InputID == n.InputID)
		d.check("declared", rec.Declared == n.Declared)
		return signer{rec.Writer, rec.KID, rec.TS, rec.Sig, nil}, d, nil
	}
}

// ImportNotesOrMeta is ImportNotes, or for an import written before the
// table, the same data read from the meta keys snapshot.MetaImportIDs and
// MetaDeclaredLabels (unsigned: Record nil; ordered by write id).
// fromMeta says which. A store that is no import has neither: no notes.
func (s *Snapshot) ImportNotesOrMeta(ctx context.Context) (notes []ImportNote, fromMeta bool, err error) {
	if s.Has(snapshot.ImportNoteTable) {
		notes, err = s.ImportNotes(ctx)
		return notes, false, err
	}
	return notesFromMeta(s.Meta)
}

func notesFromMeta(meta map[string]string) ([]ImportNote, bool, error) {
	_, hasIDs := meta[snapshot.MetaImportIDs]
	_, hasLabels := meta[snapshot.MetaDeclaredLabels]
	if !hasIDs && !hasLabels {
		return nil, false, nil
	}
	ids := map[string]string{}
	if hasIDs {
		if err := json.Unmarshal([]byte(meta[snapshot.MetaImportIDs]), &ids); err != nil {
			return nil, true, fmt.Errorf("meta %s: %w", snapshot.MetaImportIDs, err)
		}
	}
	labels, err := snapshot.DeclaredLabels(meta)
	if err != nil {
		return nil, true, err
	}
	by := map[string]*ImportNote{}
	note := func(wid string) *ImportNote {
		if n, ok := by[wid]; ok {
			return n
		}
		n := &ImportNote{WID: wid}
		by[wid] = n
		return n
	}
	for wid, id := range ids {
		note(wid).InputID = id
	}
	for wid, auth := range labels {
		note(wid).Declared = snapshot.LabelUnauthenticated
		if auth {
			note(wid).Declared = snapshot.LabelAuthenticated
		}
	}
	out := make([]ImportNote, 0, len(by))
	for _, n := range by {
		out = append(out, *n)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].WID < out[j].WID })
	return out, true, nil
}

// DeclaredLabels maps write id to true for a write the import's input
// declared authenticated and false for one declared unauthenticated, from
// the import notes, or an older import's meta key. Labels are claims of the
// input whatever signs them: callers show them as declared.
func (s *Snapshot) DeclaredLabels(ctx context.Context) (map[string]bool, error) {
	notes, _, err := s.ImportNotesOrMeta(ctx)
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for _, n := range notes {
		switch n.Declared {
		case snapshot.LabelAuthenticated:
			out[n.WID] = true
		case snapshot.LabelUnauthenticated:
			out[n.WID] = false
		}
	}
	return out, nil
}

var writeWriterCols = []column{{"wid", maxIDCell, false}, {"writer", maxIDCell, false}}

// EachWriteWriter streams the wid and writer columns of the writes table
// (verify compares them with the signed write, COLUMN_MISMATCH), for
// checks that bind another row to its write. Malformed rows are skipped.
func (s *Snapshot) EachWriteWriter(ctx context.Context, fn func(wid, writer string) error) error {
	const t = "writes"
	return s.streamBounded(ctx, t, writeWriterCols, "", nil, func(r *row) error {
		wid, w := r.str(s, t, 0), r.str(s, t, 1)
		if r.err != nil {
			return nil
		}
		return fn(wid, w)
	})
}
