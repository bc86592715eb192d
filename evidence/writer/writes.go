package writer

import (
	"context"
	"crypto/ed25519"

	"github.com/memscope/memscope/evidence/record"
)

// AddWrite signs a structural write, appends its leaf and stores it.
func (s *Store) AddWrite(ctx context.Context, w *record.Write, key ed25519.PrivateKey) error {
	w.V = record.FormatVersion
	if w.Kind == "" {
		w.Kind = record.KindEdge
	}
	w.KID = record.KeyIDOf(key.Public().(ed25519.PublicKey))
	if w.Sources == nil {
		w.Sources = []record.ID{}
	}
	if err := record.Sign(w, key); err != nil {
		return err
	}
	raw, err := record.Encode(w)
	if err != nil {
		return err
	}
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
