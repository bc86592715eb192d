package verify

import (
	"context"
	"fmt"

	"github.com/memscope/memscope/evidence/record"
	"github.com/memscope/memscope/evidence/snapshot"
	"github.com/memscope/memscope/internal/present/finding"
	"github.com/memscope/memscope/internal/present/textscan"
	"github.com/memscope/memscope/loader"
)

// Import notes (snapshot.ImportNoteTable) are checked like the event
// records (checkEvent: strict decoding, the columns against the record,
// the signer against the registry, the leaf in the log), and then bound to
// their writes: a note speaks only for a write the store holds, signed by
// that write's own writer. A note row removed while its leaf stays in the
// log is named by its write. Only imports write the table and they sign
// every row, so an unsigned row is an inserted one; the notes do not make
// a store one "that signs its event tables" (signsEvents), since imports
// sign no node or query rows.

// importNoteTextOrder orders the notes' text findings after the node and
// query rows' (rowsAfterEntries + their row index).
const importNoteTextOrder = 1 << 60

// TableImportNotes is the coverage name of the import notes table.
const TableImportNotes = snapshot.ImportNoteTable

// Registered here rather than in the map literals, to keep the notes in
// one file.
func init() {
	eventTable[record.KindImportNote] = TableImportNotes
	eventKind[TableImportNotes] = record.KindImportNote
}

// importNoteRows reads the import notes, reports unsigned rows, adds the
// signed ones to the event rows (checkEvents verifies them) and binds
// every note to its write.
func (v *verifier) importNoteRows(ctx context.Context, er *eventRows, count func(string, int, error) error) error {
	has := v.snap.Has(snapshot.ImportNoteTable)
	if !has && v.importNoteLeaves == 0 {
		return nil
	}
	notes, err := v.snap.ImportNotes(ctx)
	if has {
		er.malformed[record.KindImportNote] = malformedNames(err)
		if err := count(TableImportNotes, len(notes), err); err != nil {
			return err
		}
	}
	for i := range notes {
		n := &notes[i]
		// Input ids are shown (replay --labels): scanned like node labels,
		// ordered after them.
		v.text.CheckAt(rowsAfterEntries+importNoteTextOrder+int64(i), textscan.Field{Record: record.KindImportNote + " " + n.WID, Name: "input_id", Text: n.InputID})
		if !n.Record.Signed() {
			v.add(phaseRows, n.Seq, finding.RowUnsigned, record.KindImportNote+" "+n.WID,
				"the import_notes row carries no signed record; imports sign every row of this table: an inserted row, or one whose record was removed")
			continue
		}
		er.add(n.Record)
	}
	return v.bindImportNotes(ctx, notes, er.malformed[record.KindImportNote])
}

// bindImportNotes streams the writes once: a signed note whose writer is
// not its write's is IMPORT_NOTE_UNBOUND, as is a note for a write the
// store does not hold; a write without a note row whose note leaf is in
// the log lost its row (LEAF_WITHOUT_RECORD, the leaf claimed so that the
// orphan pass does not report it again unnamed).
func (v *verifier) bindImportNotes(ctx context.Context, notes []loader.ImportNote, malformed []string) error {
	byWID := make(map[string]*loader.ImportNote, len(notes))
	for i := range notes {
		byWID[notes[i].WID] = &notes[i]
	}
	// Malformed rows are findings of their own, not removed rows.
	for _, name := range malformed {
		byWID[name] = nil
	}
	bound := make(map[string]bool, len(notes))
	err := v.snap.EachWriteWriter(ctx, func(wid, writer string) error {
		n, ok := byWID[wid]
		if ok {
			bound[wid] = true
			if n != nil && n.Record.Signed() && n.Record.Err == nil && n.Record.Writer != writer {
				v.add(phaseRows, n.Seq, finding.ImportNoteUnbound, record.KindImportNote+" "+wid,
					fmt.Sprintf("the note is signed by %s but write %s was written by %s: a note speaks only for its writer's own write", n.Record.Writer, wid, writer))
				v.markEvent(record.KindImportNote + " " + wid)
			}
			return nil
		}
		if !v.logOK || v.importNoteLeaves == 0 {
			return nil
		}
		if idx, ok := v.leafByID.lookup(record.EventID(record.KindImportNote, wid)); ok {
			v.mu.Lock()
			v.seenLeaf.set(idx)
			v.mu.Unlock()
			v.add(phaseRows, int64(idx), finding.LeafWithoutRecord, record.KindImportNote+" "+wid,
				fmt.Sprintf("leaf %d of the log holds the import note of write %s, but the import_notes table has no row for it: the row was removed", idx, wid))
		}
		return nil
	})
	if err != nil {
		return err
	}
	for i := range notes {
		n := &notes[i]
		if !bound[n.WID] {
			v.add(phaseRows, n.Seq, finding.ImportNoteUnbound, record.KindImportNote+" "+n.WID,
				fmt.Sprintf("the import_notes row names write %s, which the writes table does not hold", n.WID))
			v.markEvent(record.KindImportNote + " " + n.WID)
		}
	}
	return nil
}

// importNoteCoverage lists the import notes table when the store has one.
func (v *verifier) importNoteCoverage(plain, signedRows map[string]int, cov func(string, int, int, string)) {
	if !v.snap.Has(snapshot.ImportNoteTable) {
		return
	}
	by := "writer signature (the write's own writer)"
	if signedRows[TableImportNotes] == 0 {
		by = "nothing"
	}
	cov(TableImportNotes, plain[TableImportNotes], signedRows[TableImportNotes], by)
}
