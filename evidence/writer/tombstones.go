package writer

import (
	"context"
	"crypto/ed25519"
	"fmt"

	"github.com/memscope/memscope/evidence/record"
)

// Delete tombstones an entry: the signed tombstone goes to the log and the
// tombstones table, and the entry's row leaves the store. The entry's own
// leaf stays in the log, still provable.
//
// Unless the caller filled them, the tombstone carries what lineage needs
// of the deleted entry (writer, trust, parents, weights), read from its
// signed record, so the entries derived from it keep their ancestor.
func (s *Store) Delete(ctx context.Context, t *record.Tombstone, key ed25519.PrivateKey) error {
	if t.EntryWriter == "" {
		var raw []byte
		if err := s.tx.QueryRow("SELECT record FROM entries WHERE eid = ?", t.Target.String()).Scan(&raw); err == nil {
			if e, err := record.DecodeEntry(raw); err == nil {
				tr := e.Trust
				t.EntryWriter, t.EntryTrust, t.EntryParents, t.EntryWeights = e.Writer, &tr, e.Parents, e.Weights
			}
		}
	}
	if err := s.AddTombstone(ctx, t, key); err != nil {
		return err
	}
	return s.RemoveEntryRow(t.Target)
}

// RemoveEntryRow removes a tombstoned entry's row (Delete's last step, for
// a tombstone added with AddSignedTombstone).
func (s *Store) RemoveEntryRow(id record.ID) error {
	if _, err := s.tx.Exec("DELETE FROM entries WHERE eid = ?", id.String()); err != nil {
		return fmt.Errorf("writer: delete entry %s: %w", id, err)
	}
	return nil
}

// AddTombstone logs and stores a tombstone without removing the entry row
// (Delete does both; a tombstone alone leaves a tombstoned record live).
func (s *Store) AddTombstone(ctx context.Context, t *record.Tombstone, key ed25519.PrivateKey) error {
	raw, err := SignTombstone(t, key)
	if err != nil {
		return err
	}
	return s.AddSignedTombstone(ctx, t, raw)
}

// SignTombstone fills in a tombstone's V, Kind, KID and signature and
// returns its encoding. It touches no store (so it does not fill the
// deleted entry's lineage fields, as Delete does): add it in log order
// with AddSignedTombstone.
func SignTombstone(t *record.Tombstone, key ed25519.PrivateKey) ([]byte, error) {
	t.V, t.Kind = record.FormatVersion, record.KindTombstone
	return signRecord(t, key, func(k record.KeyID) { t.KID = k })
}

// AddSignedTombstone appends the leaf of a tombstone SignTombstone
// prepared (raw is what it returned) and stores it.
func (s *Store) AddSignedTombstone(ctx context.Context, t *record.Tombstone, raw []byte) error {
	leaf, err := record.TombstoneLeaf(t)
	if err != nil {
		return err
	}
	idx, err := s.AppendLeaf(ctx, leaf)
	if err != nil {
		return err
	}
	s.version++
	s.saw(t.TS)
	return s.InsertTombstoneRow(t, raw, &idx)
}

// InsertTombstoneRow stores a tombstones row as given (low level).
func (s *Store) InsertTombstoneRow(t *record.Tombstone, raw []byte, leaf *uint64) error {
	return s.exec("tombstones", s.nextSeq("tombstones"), t.Target.String(), nullIndex(leaf), raw)
}
