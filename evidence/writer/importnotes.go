package writer

import (
	"context"
	"crypto/ed25519"
	"fmt"

	"github.com/memscope/memscope/evidence/record"
	"github.com/memscope/memscope/evidence/snapshot"
)

// AddImportNote signs n with key (the key that signed the write n.Name
// names), appends its leaf to the log and stores its row in the import
// notes table, which the first call creates (snapshot.ImportNoteSchema).
// V, Kind and KID are filled in.
func (s *Store) AddImportNote(ctx context.Context, n *record.ImportNote, key ed25519.PrivateKey) error {
	if s.seq[snapshot.ImportNoteTable] == 0 {
		if _, err := s.tx.Exec(snapshot.ImportNoteSchema); err != nil {
			return fmt.Errorf("writer: %s: create import notes table: %w", s.cfg.SnapshotPath, err)
		}
	}
	n.V, n.Kind = record.FormatVersion, record.KindImportNote
	n.KID = record.KeyIDOf(key.Public().(ed25519.PublicKey))
	if err := record.Sign(n, key); err != nil {
		return err
	}
	raw, err := record.Encode(n)
	if err != nil {
		return err
	}
	// The writer's own decoder checks what a reader will.
	if _, err := record.DecodeImportNote(raw); err != nil {
		return fmt.Errorf("writer: import note: %w", err)
	}
	idx, err := s.AppendLeaf(ctx, record.EventLeaf(record.KindImportNote, record.EventID(record.KindImportNote, n.Name), n.Sig))
	if err != nil {
		return err
	}
	s.saw(n.TS)
	seq := s.nextSeq(snapshot.ImportNoteTable)
	return s.exec(snapshot.ImportNoteTable, seq, n.Name, nullString(n.InputID), nullString(n.Declared), int64(idx), raw)
}
