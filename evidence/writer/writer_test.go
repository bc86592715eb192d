package writer_test

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/transparency-dev/merkle/rfc6962"
	"golang.org/x/mod/sumdb/note"

	"github.com/memscope/memscope/evidence/record"
	"github.com/memscope/memscope/evidence/tlog"
	"github.com/memscope/memscope/evidence/writer"
	"github.com/memscope/memscope/loader"
)

// memLog is an in-memory LogSink that keeps the leaves it was given.
type memLog struct{ leaves [][]byte }

func (m *memLog) Append(_ context.Context, leaf []byte) (uint64, error) {
	m.leaves = append(m.leaves, append([]byte{}, leaf...))
	return uint64(len(m.leaves) - 1), nil
}
func (m *memLog) Close(context.Context) ([]byte, error) { return nil, nil }

type fixedReader byte

func (r fixedReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(r)
	}
	return len(p), nil
}

// newStore creates a store at path with a fixed log key and registry
// root, and registers principal "user" (key user); id makes the UUIDv7
// with first byte b. opts change the store's config (durability).
func newStore(t *testing.T, path string, opts ...func(*writer.Config)) (st *writer.Store, lg *memLog, user ed25519.PrivateKey, id func(byte) record.ID) {
	t.Helper()
	skey, vkey, err := note.GenerateKey(fixedReader(1), "example.org/log")
	if err != nil {
		t.Fatal(err)
	}
	signer, err := note.NewSigner(skey)
	if err != nil {
		t.Fatal(err)
	}
	root := ed25519.NewKeyFromSeed(bytes.Repeat([]byte{2}, 32))
	user = ed25519.NewKeyFromSeed(bytes.Repeat([]byte{3}, 32))
	lg = &memLog{}
	cfg := writer.Config{SnapshotPath: path, Log: lg, LogSigner: signer, Origin: "example.org/log", LogVerifier: vkey,
		RootKeys: []ed25519.PublicKey{root.Public().(ed25519.PublicKey)}}
	for _, o := range opts {
		o(&cfg)
	}
	st, err = writer.Create(cfg)
	if err != nil {
		t.Fatal(err)
	}
	id = func(b byte) record.ID {
		var id record.ID
		id[0], id[6], id[8] = b, 0x70, 0x80
		return id
	}
	ev := &record.PrincipalEvent{RID: id(1), Op: record.OpRegister, Principal: "user", Channel: record.ChannelAuthenticated, TS: 10}
	copy(ev.PublicKey[:], user.Public().(ed25519.PublicKey))
	if err := st.Register(context.Background(), ev, root); err != nil {
		t.Fatal(err)
	}
	return st, lg, user, id
}

// build writes a small store and returns the snapshot bytes and the leaves.
func build(t *testing.T, path string) ([]byte, *memLog, []byte) {
	t.Helper()
	st, lg, user, id := newStore(t, path)
	ctx := context.Background()
	for i := byte(0); i < 5; i++ {
		if err := st.AddEntry(ctx, &record.Entry{EID: id(10 + i), Writer: "user", Content: strings.Repeat("x", int(i)), TS: 20 + uint64(i)}, user, writer.EntryOptions{SessionID: "s"}); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.Delete(ctx, &record.Tombstone{Target: id(10), Reason: "erase", Writer: "user", TS: 30}, user); err != nil {
		t.Fatal(err)
	}
	cp, err := st.Checkpoint(40)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Close(ctx); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b, lg, cp
}

func TestStoreIsReproducibleAndConsistent(t *testing.T) {
	dir := t.TempDir()
	a, lg, cp := build(t, filepath.Join(dir, "a.db"))
	b, _, _ := build(t, filepath.Join(dir, "b.db"))
	if !bytes.Equal(a, b) {
		t.Fatal("two identical stores differ byte for byte")
	}
	// 1 registry event, 5 entries, 1 tombstone.
	if len(lg.leaves) != 7 || !bytes.HasPrefix(lg.leaves[6], record.TombstonePrefix) {
		t.Fatalf("%d leaves; last %q", len(lg.leaves), lg.leaves[len(lg.leaves)-1])
	}
	// The checkpoint's root is the RFC 6962 root of the leaves, computed
	// here independently by the reference recursion.
	parsed, err := tlog.ParseCheckpoint(cp)
	if err != nil {
		t.Fatal(err)
	}
	if parsed.Size != 7 || !bytes.Equal(parsed.Root, refRoot(lg.leaves)) {
		t.Fatalf("checkpoint size %d root %x, want 7 and %x", parsed.Size, parsed.Root, refRoot(lg.leaves))
	}
	s, err := loader.Open(filepath.Join(dir, "a.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var leafIdx []int64
	s.EachEntry(context.Background(), func(r *loader.EntryRow) error {
		if r.DecodeErr != nil {
			t.Errorf("entry %s: %v", r.EID, r.DecodeErr)
		}
		leafIdx = append(leafIdx, r.LeafIndex)
		if !bytes.Equal(lg.leaves[r.LeafIndex], record.RecordLeaf(r.Entry.EID, r.Entry.Sig)) {
			t.Errorf("entry %s: leaf %d is not its eid || sig", r.EID, r.LeafIndex)
		}
		return nil
	})
	// The deleted entry's row is gone; its leaf (index 1) stays.
	if want := []int64{2, 3, 4, 5}; len(leafIdx) != 4 || leafIdx[0] != want[0] || leafIdx[3] != want[3] {
		t.Fatalf("entry leaf indexes %v, want %v", leafIdx, want)
	}
}

func refRoot(leaves [][]byte) []byte {
	h := rfc6962.DefaultHasher
	if len(leaves) == 1 {
		return h.HashLeaf(leaves[0])
	}
	k := 1
	for k*2 < len(leaves) {
		k *= 2
	}
	return h.HashChildren(refRoot(leaves[:k]), refRoot(leaves[k:]))
}

func TestCreateRefusesExistingFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "s.db")
	if err := os.WriteFile(p, []byte("evidence"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := writer.Create(writer.Config{SnapshotPath: p, Log: &memLog{}}); err == nil || !strings.Contains(err.Error(), p) {
		t.Fatalf("Create over an existing file: %v", err)
	}
	if b, _ := os.ReadFile(p); string(b) != "evidence" {
		t.Fatal("existing file was modified")
	}
}
