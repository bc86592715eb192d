package lineage

import (
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/memscope/memscope/evidence/record"
)

// messyStore is a random store with every anomaly Build repairs:
// duplicate, empty and non-canonical ids, dangling, self and repeated
// parents, NaN and out-of-range weights, missing weights, cycles, bad
// writers and trust levels. ids maps an index to the id text.
func messyStore(n int, seed uint64, ids func(int) string) []Entry {
	r := newRand(seed)
	es := make([]Entry, n)
	writers := []string{"user", "agent:1", "tool:x", "external:web", "bogus"}
	for i := range es {
		id := ids(i)
		switch r.IntN(40) {
		case 0:
			id = ids(r.IntN(i + 1)) // duplicate
		case 1:
			id = ""
		}
		es[i] = Entry{ID: id, Writer: writers[r.IntN(len(writers))], Recorded: Trust(r.IntN(5))}
		for range r.IntN(5) {
			var p string
			switch x := r.IntN(20); {
			case x == 0:
				p = ids(n + r.IntN(5)) // dangling
			case x == 1:
				p = ids(i) // self
			case x == 2:
				p = ids(r.IntN(n)) // may be a later entry: cycles
			default:
				p = ids(r.IntN(i + 1))
			}
			es[i].Parents = append(es[i].Parents, p)
			w := r.Float64()
			switch r.IntN(30) {
			case 0:
				w = math.NaN()
			case 1:
				w = 1.5
			}
			es[i].Weights = append(es[i].Weights, w)
		}
		if len(es[i].Weights) > 0 && r.IntN(15) == 0 {
			es[i].Weights = es[i].Weights[:len(es[i].Weights)-1]
		}
	}
	return es
}

// The 16-byte keys must not change what Build finds: a store built with
// canonical UUIDs and the same store with other id text (held as text)
// give the same labels, edges and findings, id for id.
func TestCanonicalAndOtherIDsBuildAlike(t *testing.T) {
	t.Parallel()
	uuid := func(i int) string { return fmt.Sprintf("0190a1b2-c3d4-7e5f-8a9b-%012x", i) }
	other := func(i int) string { return fmt.Sprintf("Entry-%d", i) }
	back := strings.NewReplacer("0190a1b2-c3d4-7e5f-8a9b-", "U")
	backOther := func(s string) string {
		var i int
		if _, err := fmt.Sscanf(s, "Entry-%d", &i); err == nil && s == other(i) {
			return fmt.Sprintf("U%012x", i)
		}
		return s
	}
	for seed := uint64(1); seed <= 20; seed++ {
		a := Build(messyStore(300, seed, uuid))
		b := Build(messyStore(300, seed, other))
		if a.Len() != b.Len() {
			t.Fatalf("seed %d: %d vs %d nodes", seed, a.Len(), b.Len())
		}
		la, _ := a.Propagate(Options{Tau: 0.3})
		lb, _ := b.Propagate(Options{Tau: 0.3})
		for i := 0; i < a.Len(); i++ {
			if back.Replace(a.ID(i)) != backOther(b.ID(i)) || la[i] != lb[i] || !reflect.DeepEqual(edgeIDs(a, i, back.Replace), edgeIDs(b, i, backOther)) {
				t.Fatalf("seed %d: node %d differs: %s %v vs %s %v", seed, i, a.ID(i), la[i], b.ID(i), lb[i])
			}
		}
		fa, fb := a.Findings(), b.Findings()
		if len(fa) == 0 || len(fa) != len(fb) {
			t.Fatalf("seed %d: %d vs %d findings", seed, len(fa), len(fb))
		}
		for i := range fa {
			ma, mb := back.Replace(fa[i].Message), fb[i].Message
			for _, w := range strings.Fields(mb) {
				mb = strings.Replace(mb, w, backOther(strings.TrimRight(w, ",;:"))+w[len(strings.TrimRight(w, ",;:")):], 1)
			}
			if fa[i].Code != fb[i].Code || ma != mb {
				t.Fatalf("seed %d: finding %d: %s %q vs %s %q", seed, i, fa[i].Code, ma, fb[i].Code, mb)
			}
		}
	}
}

func edgeIDs(g *Graph, i int, f func(string) string) []string {
	var out []string
	for _, e := range g.Parents(i) {
		out = append(out, fmt.Sprintf("%s %g", f(g.ID(e.Node)), e.Weight))
	}
	for _, e := range g.Children(i) {
		out = append(out, fmt.Sprintf("child %s %g", f(g.ID(e.Node)), e.Weight))
	}
	return out
}

// AddRecord (parents as record ids, as the loader streams them) builds
// the graph Add builds from their text.
func TestAddRecordAgreesWithAdd(t *testing.T) {
	t.Parallel()
	uuid := func(i int) string { return fmt.Sprintf("0190a1b2-c3d4-7e5f-8a9b-%012x", i) }
	es := messyStore(400, 7, uuid)
	a := Build(es)
	rb := NewBuilder(0)
	for _, e := range es {
		var ps []record.ID
		ok := true
		for _, p := range e.Parents {
			k, err := record.ParseID(p)
			if err != nil || k.String() != p {
				ok = false
			}
			ps = append(ps, k)
		}
		if !ok {
			t.Fatalf("parent of %s is not canonical", e.ID)
		}
		rb.AddRecord(e.ID, e.Writer, e.Recorded, ps, e.Weights)
	}
	b := rb.Graph()
	if !reflect.DeepEqual(a.Findings(), b.Findings()) {
		t.Fatal("findings differ")
	}
	la, _ := a.Propagate(Options{FailClosed: true})
	lb, _ := b.Propagate(Options{FailClosed: true})
	if !reflect.DeepEqual(la, lb) {
		t.Fatal("labels differ")
	}
	for i := 0; i < a.Len(); i++ {
		if a.ID(i) != b.ID(i) || !reflect.DeepEqual(a.Parents(i), b.Parents(i)) || !reflect.DeepEqual(a.Children(i), b.Children(i)) {
			t.Fatalf("node %d differs", i)
		}
	}
}

func TestCanonicalID(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		s  string
		ok bool
	}{
		{"0190a1b2-c3d4-7e5f-8a9b-00000000002a", true},
		{"0190A1B2-c3d4-7e5f-8a9b-00000000002a", false}, // upper case is another text
		{"0190a1b2c3d47e5f8a9b00000000002a", false},
		{"0190a1b2-c3d4-7e5f-8a9b-00000000002g", false},
		{"", false},
	} {
		k, ok := canonicalID(c.s)
		if ok != c.ok || (ok && k.String() != c.s) {
			t.Errorf("canonicalID(%q) = %v, %v", c.s, k, ok)
		}
	}
}

// InputNode answers what Index answers for the id of each entry given,
// on stores with duplicate, empty and non-canonical ids.
func TestInputNodeIsIndexOfTheInputID(t *testing.T) {
	t.Parallel()
	uuid := func(i int) string { return fmt.Sprintf("0190a1b2-c3d4-7e5f-8a9b-%012x", i) }
	other := func(i int) string { return fmt.Sprintf("Entry-%d", i) }
	for _, ids := range []func(int) string{uuid, other} {
		for seed := uint64(1); seed <= 5; seed++ {
			es := messyStore(300, seed, ids)
			g := Build(es)
			for i, e := range es {
				want, wantOK := g.Index(e.ID)
				got, ok := g.InputNode(i)
				if got != want || ok != wantOK {
					t.Fatalf("seed %d entry #%d (%q): InputNode %d %v, Index %d %v", seed, i, e.ID, got, ok, want, wantOK)
				}
			}
		}
	}
}
