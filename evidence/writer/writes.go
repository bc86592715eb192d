package writer

import (
	"context"
	"crypto/ed25519"

	"github.com/memscope/memscope/evidence/record"
)

// AddWrite signs a structural write, appends its leaf and stores it.
func (s *Store) AddWrite(ctx context.Context, w *record.Write, key ed25519.PrivateKey) error {
	raw, err := SignWrite(w, key)
	if err != nil {
		return err
	}
	return s.AddSignedWrite(ctx, w, raw)
}

// SignWrite fills in a structural write's V, KID (and Kind, when empty)
// and signature and returns its encoding. It touches no store: add the
// write in log order with AddSignedWrite, with the same result as
// AddWrite.
func SignWrite(w *record.Write, key ed25519.PrivateKey) ([]byte, error) {
	w.V = record.FormatVersion
	if w.Kind == "" {
		w.Kind = record.KindEdge
	}
	if w.Sources == nil {
		w.Sources = []record.ID{}
	}
	return signRecord(w, key, func(k record.KeyID) { w.KID = k })
}

// AddSignedWrite appends the leaf of a write SignWrite prepared (raw is
// what it returned) and stores it.
func (s *Store) AddSignedWrite(ctx context.Context, w *record.Write, raw []byte) error {
	idx, err := s.AppendLeaf(ctx, record.RecordLeaf(w.WID, w.Sig))
	if err != nil {
		return err
	}
	s.version++
	s.saw(w.TS)
	return s.InsertWriteRow(w, raw, &idx)
}

// InsertWriteRow stores a writes row as given (low level).
func (s *Store) InsertWriteRow(w *record.Write, raw []byte, leaf *uint64) error {
	return s.exec("writes", s.nextSeq("writes"), w.WID.String(), w.Kind, w.Src, w.Dst, w.Rel, w.Weight, w.Writer, int64(w.TS), nullIndex(leaf), raw)
}
