package writer_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/memscope/memscope/evidence/record"
	"github.com/memscope/memscope/evidence/snapshot"
	"github.com/memscope/memscope/evidence/writer"
)

// TestSignThenAddIsTheCombinedCall: a store written with the sign-only
// halves of the record API (each record signed in its own goroutine, as
// memscope record's callers sign, then added in order) is byte for byte
// the store the combined calls write, leaves included.
func TestSignThenAddIsTheCombinedCall(t *testing.T) {
	dir := t.TempDir()
	a, la := buildKinds(t, filepath.Join(dir, "combined.db"), false)
	b, lb := buildKinds(t, filepath.Join(dir, "split.db"), true)
	if !bytes.Equal(a, b) {
		t.Fatal("the store written by sign-then-add differs from the combined calls'")
	}
	if len(la.leaves) != len(lb.leaves) || len(la.leaves) != 8 {
		t.Fatalf("%d and %d leaves, want 8", len(la.leaves), len(lb.leaves))
	}
	for i := range la.leaves {
		if !bytes.Equal(la.leaves[i], lb.leaves[i]) {
			t.Fatalf("leaf %d differs", i)
		}
	}
}

func buildKinds(t *testing.T, path string, split bool) ([]byte, *memLog) {
	t.Helper()
	st, lg, user, id := newStore(t, path)
	ctx := context.Background()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	sg := writer.Signer{Principal: "user", Key: user, Nonce: [16]byte{9}}
	e := &record.Entry{EID: id(10), Writer: "user", Content: "c", Trust: record.Trusted, TS: 20, Parents: []record.ID{id(1)}, Weights: []float64{0.5}}
	eid := e.EID
	w := &record.Write{WID: id(11), Src: "entity:a", Dst: "passage:x", Rel: "has", Weight: 1, Writer: "user", Sources: []record.ID{id(10)}, TS: 21}
	n := writer.Node{ID: "entity:a", Kind: snapshot.NodeEntity, Label: "a", TS: 22}
	p := writer.Node{ID: "passage:x", Kind: snapshot.NodePassage, Label: "c", EID: &eid, TS: 23}
	q := writer.Query{ID: "q1", Text: "a", K: 1, Reset: map[string]float64{"entity:a": 1}, Selected: []string{"passage:x"}, TS: 24}
	a := writer.Action{ID: "a1", Tool: "pay", Params: map[string]string{"to": "x"}, Justification: []record.ID{id(10)}, Dispatched: true, Query: "q1", TS: 25}
	tb := &record.Tombstone{Target: id(10), Reason: "erase", Writer: "user", TS: 26}
	if !split {
		must(st.AddEntry(ctx, e, user, writer.EntryOptions{SessionID: "s"}))
		must(st.AddWrite(ctx, w, user))
		must(st.DeclareNode(ctx, n, sg))
		must(st.DeclareNode(ctx, p, sg))
		must(st.RecordQuery(ctx, q, sg))
		must(st.RecordAction(ctx, a, sg))
		must(st.Delete(ctx, tb, user))
	} else {
		// Delete reads the entry's lineage into the tombstone; a
		// tombstone signed off the store carries it from the caller.
		tr := e.Trust
		tb.EntryWriter, tb.EntryTrust, tb.EntryParents, tb.EntryWeights = e.Writer, &tr, e.Parents, e.Weights
		sess := "s"
		e.Session = &sess
		var rawE, rawW, rawT []byte
		var evs [4]*writer.SignedEvent
		errs := make(chan error, 7)
		run := func(f func() error) { go func() { errs <- f() }() }
		run(func() (err error) { rawE, err = writer.SignEntry(e, user); return })
		run(func() (err error) { rawW, err = writer.SignWrite(w, user); return })
		run(func() (err error) { rawT, err = writer.SignTombstone(tb, user); return })
		run(func() (err error) { evs[0], err = writer.SignNode(n, sg); return })
		run(func() (err error) { evs[1], err = writer.SignNode(p, sg); return })
		run(func() (err error) { evs[2], err = writer.SignQuery(q, sg); return })
		run(func() (err error) { evs[3], err = writer.SignAction(a, sg); return })
		for i := 0; i < 7; i++ {
			must(<-errs)
		}
		must(st.AddSignedEntry(ctx, e, rawE, writer.EntryOptions{SessionID: "s"}))
		must(st.AddSignedWrite(ctx, w, rawW))
		for _, ev := range evs {
			must(st.AddSignedEvent(ctx, ev))
		}
		must(st.AddSignedTombstone(ctx, tb, rawT))
		must(st.RemoveEntryRow(tb.Target))
	}
	if _, err := st.Close(ctx); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b, lg
}
