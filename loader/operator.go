package loader

import (
	"context"
	"crypto/sha256"
	"strconv"

	"github.com/memscope/memscope/evidence/record"
)

// The store's own rows (meta values, checkpoint sightings, vectors) are
// signed by its operator in stores new enough to have the leaf_index and
// record columns there; older stores and imports leave them unsigned.

// MetaRow is one meta row with the signed configuration record behind it.
type MetaRow struct {
	Key, Value string
	// Record is the operator's signed value (nil or Raw nil: unsigned).
	Record *RowRecord
}

var metaCols = []column{{"key", maxIDCell, false}, {"value", maxMetaCell, false}}

// MetaRows reads the meta table with its records, in key order. Snapshot.
// Meta already holds the values (read at opening); this read is for the
// verifier, which decides which of them are signed. A malformed row is
// skipped and listed in the returned RowErrors.
func (s *Snapshot) MetaRows(ctx context.Context) ([]MetaRow, error) {
	const t = "meta"
	return signedRows(ctx, s, t, metaCols, func(r *row) MetaRow {
		return MetaRow{Key: r.str(s, t, 0), Value: r.str(s, t, 1)}
	}, func(r *row, m *MetaRow) {
		m.Record = s.rowRecord(r, t, record.KindConfig, m.Key, configDiff(m))
	})
}

func configDiff(m *MetaRow) func([]byte) (signer, []string, error) {
	return func(raw []byte) (signer, []string, error) {
		rec, err := record.DecodeConfig(raw)
		if err != nil {
			return signer{}, nil, err
		}
		var d diff
		d.check("key", rec.Name == m.Key)
		d.check("value", rec.Value == m.Value)
		id := record.ConfigID(rec.Name, rec.Rev)
		return signer{rec.Writer, rec.KID, rec.TS, rec.Sig, &id}, d, nil
	}
}

func checkpointDiff(c *CheckpointRow) func([]byte) (signer, []string, error) {
	return func(raw []byte) (signer, []string, error) {
		rec, err := record.DecodeCheckpointSeen(raw)
		if err != nil {
			return signer{}, nil, err
		}
		var d diff
		d.check("seq", rec.Name == strconv.FormatInt(c.Seq, 10))
		d.check("seen_at", c.SeenAt >= 0 && rec.SeenAt == uint64(c.SeenAt))
		d.check("note", rec.NoteHash == sha256.Sum256(c.Note))
		return signer{rec.Writer, rec.KID, rec.TS, rec.Sig, nil}, d, nil
	}
}

func vectorDiff(v *Vector, vecHash [32]byte) func([]byte) (signer, []string, error) {
	return func(raw []byte) (signer, []string, error) {
		rec, err := record.DecodeVector(raw)
		if err != nil {
			return signer{}, nil, err
		}
		var d diff
		d.check("seq", rec.Name == strconv.FormatInt(v.Seq, 10))
		d.check("eid", rec.EID.String() == v.EID)
		d.check("content_hash", rec.ContentHash == v.ContentHash)
		d.check("dim", v.Dim > 0 && uint64(rec.Dim) == uint64(v.Dim))
		d.check("vec", rec.VecHash == vecHash)
		return signer{rec.Writer, rec.KID, rec.TS, rec.Sig, nil}, d, nil
	}
}
