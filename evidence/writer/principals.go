package writer

import (
	"context"
	"crypto/ed25519"

	"github.com/memscope/memscope/evidence/record"
)

// Register appends a signed principal-registry event.
func (s *Store) Register(ctx context.Context, ev *record.PrincipalEvent, root ed25519.PrivateKey) error {
	ev.V, ev.Kind = record.FormatVersion, record.KindPrincipal
	copy(ev.Root[:], root.Public().(ed25519.PublicKey))
	if err := record.Sign(ev, root); err != nil {
		return err
	}
	raw, err := record.Encode(ev)
	if err != nil {
		return err
	}
	idx, err := s.AppendLeaf(ctx, record.RecordLeaf(ev.RID, ev.Sig))
	if err != nil {
		return err
	}
	s.saw(ev.TS)
	return s.InsertPrincipalRow(ev, raw, &idx)
}

// InsertPrincipalRow stores a registry event row as given (low level).
func (s *Store) InsertPrincipalRow(ev *record.PrincipalEvent, raw []byte, leaf *uint64) error {
	return s.exec("principals", s.nextSeq("principals"), ev.RID.String(), ev.Op, ev.Principal, ev.Channel, int64(ev.TS), nullIndex(leaf), raw)
}
