package lineage

import (
	"fmt"
	"math"
	"testing"
)

// entriesFromBytes turns fuzz bytes into a small, possibly malformed entry
// list: ids from a tiny alphabet so duplicates, cycles and dangling parents
// all occur.
func entriesFromBytes(data []byte) []Entry {
	writers := []string{"user", "agent:1", "tool:t", "external:x", "bogus", ""}
	weights := []float64{0, 0.3, 0.5, 1, math.NaN(), -1, 2}
	var es []Entry
	for len(data) >= 3 && len(es) < 64 {
		e := Entry{ID: fmt.Sprint(data[0] % 24), Writer: writers[int(data[1])%len(writers)], Recorded: Trust(data[2] % 5)}
		np := int(data[2]>>3) % 5
		data = data[3:]
		for j := 0; j < np && len(data) >= 2; j++ {
			e.Parents = append(e.Parents, fmt.Sprint(data[0]%26))
			if data[1]&0x80 == 0 {
				e.Weights = append(e.Weights, weights[int(data[1])%len(weights)])
			}
			data = data[2:]
		}
		es = append(es, e)
	}
	return es
}

func FuzzBuild(f *testing.F) {
	f.Add([]byte{1, 3, 3, 2, 0, 0x10, 1, 1})
	f.Add([]byte{1, 1, 0x08, 2, 1, 2, 1, 0x08, 1, 1})
	f.Add([]byte{5, 3, 0, 6, 1, 0x18, 5, 3, 7, 0x85, 9, 0, 0x20, 6, 2})
	f.Fuzz(func(t *testing.T, data []byte) {
		es := entriesFromBytes(data)
		g := Build(es)
		if g.Len() != len(es) {
			t.Fatalf("len %d, want %d", g.Len(), len(es))
		}
		for _, opt := range []Options{{Tau: 0}, {Tau: 0.5, FailClosed: true, DanglingTrusted: true}} {
			l, err := g.Propagate(opt)
			if err != nil {
				t.Fatal(err)
			}
			for i, v := range l {
				if !v.Valid() {
					t.Fatalf("node %d label %d", i, v)
				}
				// The writer's base label is a floor.
				if v < DefaultBaseLabels()[g.Writer(i)] {
					t.Fatalf("node %d below its writer floor", i)
				}
			}
			for i := 0; i < g.Len(); i++ {
				if _, err := g.Explain(g.ID(i), l, opt.Tau, 0); err != nil && g.ID(i) != "" {
					if _, ok := g.Index(g.ID(i)); ok {
						t.Fatal(err)
					}
				}
				g.Ancestors(g.ID(i), 3, 10)
				g.Neighbourhood(g.ID(i), 2, 2, 10, l, opt.Tau)
			}
			g.Laundering(l)
			if _, err := g.AuditGate([]Action{{Tool: "send_email", Justification: []string{"1", "2", "99"}}}, l, nil); err != nil {
				t.Fatal(err)
			}
		}
	})
}
