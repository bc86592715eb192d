package writer

import (
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math"
	"sort"
	"strconv"

	"github.com/memscope/memscope/evidence/record"
	"github.com/memscope/memscope/evidence/snapshot"
	"github.com/memscope/memscope/evidence/tlog"
)

type pendingCheckpoint struct {
	seq    int64
	seenAt int64
	note   []byte
}

type pendingVector struct {
	seq         int64
	eid         record.ID
	contentHash [32]byte
	dim         int
	vecHash     [32]byte
}

// SetMeta writes one meta key. With an operator the value is signed when
// the store is closed or copied; until then the row is unsigned.
func (s *Store) SetMeta(key, value string) error {
	if _, signed := s.metaRev[key]; signed && s.metaSigned[key] == value && s.meta[key] == value {
		// The row already holds this value, signed: rewriting it would
		// drop its record (a resumed store closing without a change).
		return nil
	}
	s.meta[key] = value
	return s.exec("meta", key, value, nil, nil)
}

// signOperatorRows signs, as the operator, every meta value not signed at
// its current value, every checkpoint and every vector not yet signed,
// logs them and fills in their rows' leaf_index and record.
func (s *Store) signOperatorRows(ctx context.Context) error {
	op := s.cfg.Operator
	if op == nil {
		return nil
	}
	kid := record.KeyIDOf(op.Key.Public().(ed25519.PublicKey))
	nonce := func(kind, name string, rev uint64) [16]byte {
		h := sha256.New()
		h.Write(op.Nonce[:])
		fmt.Fprintf(h, "%s\x00%s\x00%d", kind, name, rev)
		var n [16]byte
		copy(n[:], h.Sum(nil))
		return n
	}
	sign := func(rec any, sig func() []byte, kind string, id record.ID) ([]byte, uint64, error) {
		if err := record.Sign(rec, op.Key); err != nil {
			return nil, 0, err
		}
		raw, err := record.Encode(rec)
		if err != nil {
			return nil, 0, err
		}
		idx, err := s.AppendLeaf(ctx, record.EventLeaf(kind, id, sig()))
		return raw, idx, err
	}
	keys := make([]string, 0, len(s.meta))
	for k := range s.meta {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := s.meta[k]
		if _, ok := s.metaRev[k]; ok && s.metaSigned[k] == v {
			continue
		}
		rev := s.metaRev[k] + 1
		c := &record.Config{V: record.FormatVersion, Kind: record.KindConfig, Name: k, Rev: rev, Value: v, Writer: op.Principal, KID: kid, TS: s.now, Nonce: nonce(record.KindConfig, k, rev)}
		raw, idx, err := sign(c, func() []byte { return c.Sig }, record.KindConfig, record.ConfigID(k, rev))
		if err != nil {
			return err
		}
		if err := s.exec("meta", k, v, int64(idx), raw); err != nil {
			return err
		}
		s.metaRev[k], s.metaSigned[k] = rev, v
	}
	for _, p := range s.cpPending {
		name := strconv.FormatInt(p.seq, 10)
		c := &record.CheckpointSeen{V: record.FormatVersion, Kind: record.KindCheckpoint, Name: name, NoteHash: sha256.Sum256(p.note), SeenAt: uint64(p.seenAt),
			Writer: op.Principal, KID: kid, TS: s.now, Nonce: nonce(record.KindCheckpoint, name, 0)}
		raw, idx, err := sign(c, func() []byte { return c.Sig }, record.KindCheckpoint, record.EventID(record.KindCheckpoint, name))
		if err != nil {
			return err
		}
		if _, err := s.tx.Exec("UPDATE checkpoints SET leaf_index = ?, record = ? WHERE seq = ?", int64(idx), raw, p.seq); err != nil {
			return fmt.Errorf("writer: sign checkpoint %d: %w", p.seq, err)
		}
	}
	s.cpPending = nil
	for _, p := range s.vecPending {
		name := strconv.FormatInt(p.seq, 10)
		vr := &record.Vector{V: record.FormatVersion, Kind: record.KindVector, Name: name, EID: p.eid, ContentHash: p.contentHash, Dim: uint(p.dim), VecHash: p.vecHash,
			Writer: op.Principal, KID: kid, TS: s.now, Nonce: nonce(record.KindVector, name, 0)}
		raw, idx, err := sign(vr, func() []byte { return vr.Sig }, record.KindVector, record.EventID(record.KindVector, name))
		if err != nil {
			return err
		}
		if _, err := s.tx.Exec("UPDATE vectors SET leaf_index = ?, record = ? WHERE seq = ?", int64(idx), raw, p.seq); err != nil {
			return fmt.Errorf("writer: sign vector %d: %w", p.seq, err)
		}
	}
	s.vecPending = nil
	return nil
}

// AddVector records a vector index entry for the memory eid whose signed
// bytes hash to contentHash. The first call creates the optional vector
// table (snapshot.VectorSchema): a store that never indexes vectors has
// none, which readers tell apart from an empty index.
func (s *Store) AddVector(eid record.ID, contentHash [32]byte, vec []float32) error {
	if len(vec) == 0 {
		return fmt.Errorf("writer: vector for %s is empty", eid)
	}
	if s.seq[snapshot.VectorTable] == 0 {
		if _, err := s.tx.Exec(snapshot.VectorSchema); err != nil {
			return fmt.Errorf("writer: %s: create vector table: %w", s.cfg.SnapshotPath, err)
		}
	}
	b := make([]byte, 4*len(vec))
	for i, x := range vec {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	seq := s.nextSeq(snapshot.VectorTable)
	if s.cfg.Operator != nil {
		s.vecPending = append(s.vecPending, pendingVector{seq: seq, eid: eid, contentHash: contentHash, dim: len(vec), vecHash: sha256.Sum256(b)})
	}
	return s.exec(snapshot.VectorTable, seq, eid.String(), fmt.Sprintf("%x", contentHash[:]), len(vec), b, nil, nil)
}

// Checkpoint signs a checkpoint of the log as it is now and records it as
// seen by the store at seenAt.
func (s *Store) Checkpoint(seenAt int64) ([]byte, error) {
	cp, err := tlog.SignCheckpoint(s.cfg.LogSigner, s.cfg.Origin, s.leaves, s.Root())
	if err != nil {
		return nil, err
	}
	return cp, s.RecordCheckpoint(seenAt, cp)
}

// RecordCheckpoint stores a checkpoint note as seen by the store (low
// level). With an operator, the sighting is signed when the store is
// closed or copied.
func (s *Store) RecordCheckpoint(seenAt int64, note []byte) error {
	seq := s.nextSeq("checkpoints")
	if seenAt > 0 {
		s.saw(uint64(seenAt))
	}
	if s.cfg.Operator != nil {
		s.cpPending = append(s.cpPending, pendingCheckpoint{seq: seq, seenAt: seenAt, note: append([]byte(nil), note...)})
	}
	return s.exec("checkpoints", seq, seenAt, string(note), nil, nil)
}
