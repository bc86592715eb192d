package lineage

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/memscope/memscope/internal/present/finding"
)

func mustPropagate(t testing.TB, g *Graph, opt Options) []Trust {
	t.Helper()
	l, err := g.Propagate(opt)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func labelOf(t testing.TB, g *Graph, labels []Trust, id string) Trust {
	t.Helper()
	i, ok := g.Index(id)
	if !ok {
		t.Fatalf("no entry %s", id)
	}
	return labels[i]
}

func hasFinding(fs []finding.Finding, code finding.Code, ids ...string) bool {
	for _, f := range fs {
		if f.Code != code {
			continue
		}
		all := true
		for _, id := range ids {
			found := f.Subject == id
			for _, e := range f.Entries {
				found = found || e == id
			}
			all = all && found
		}
		if all {
			return true
		}
	}
	return false
}

func TestParseWriter(t *testing.T) {
	good := map[string]WriterClass{"user": WriterUser, "agent:1": WriterAgent, "tool:search": WriterTool, "external:web": WriterExternal, "external:a:b": WriterExternal}
	for s, want := range good {
		got, err := ParseWriter(s)
		if err != nil || got != want {
			t.Errorf("ParseWriter(%q) = %v, %v; want %v", s, got, err, want)
		}
	}
	for _, s := range []string{"", "User", "agent", "agent:", "root:x", ":x", "tool"} {
		if _, err := ParseWriter(s); err == nil {
			t.Errorf("ParseWriter(%q) accepted", s)
		}
	}
}

func TestBaseLabels(t *testing.T) {
	g := Build([]Entry{
		{ID: "u", Writer: "user"},
		{ID: "a", Writer: "agent:3"},
		{ID: "t", Writer: "tool:fetch"},
		{ID: "x", Writer: "external:web"},
		{ID: "bad", Writer: "nobody"},
	})
	l := mustPropagate(t, g, Options{})
	want := map[string]Trust{"u": Trusted, "a": Trusted, "t": DerivedTrusted, "x": External, "bad": External}
	for id, w := range want {
		if got := labelOf(t, g, l, id); got != w {
			t.Errorf("%s: %s, want %s", id, got, w)
		}
	}
	if !hasFinding(g.Findings(), CodeWriterUnknown, "bad") {
		t.Error("no writer-unknown finding")
	}
}

// memorygraft-like scenario: an external page, an agent summary of it, a
// later agent note derived from the summary and a trusted user note.
func graftEntries() []Entry {
	return []Entry{
		{ID: "web", Writer: "external:web", Recorded: External},
		{ID: "user", Writer: "user", Recorded: Trusted},
		{ID: "sum", Writer: "agent:1", Recorded: Trusted, Parents: []string{"web", "user"}, Weights: []float64{0.4, 0.9}},
		{ID: "note", Writer: "agent:1", Recorded: Trusted, Parents: []string{"sum"}, Weights: []float64{0.6}},
		{ID: "tool", Writer: "tool:calc", Recorded: DerivedTrusted, Parents: []string{"user"}, Weights: []float64{1}},
		{ID: "mix", Writer: "agent:2", Recorded: DerivedTrusted, Parents: []string{"tool", "user"}, Weights: []float64{0.5, 0.5}},
	}
}

func TestPropagateRule(t *testing.T) {
	g := Build(graftEntries())
	if len(g.Findings()) != 0 {
		t.Fatalf("unexpected findings %+v", g.Findings())
	}
	cases := []struct {
		opt  Options
		want map[string]Trust
	}{
		// tau 0: every positive edge is strong; web reaches sum and note.
		{Options{Tau: 0}, map[string]Trust{"sum": DerivedUntrusted, "note": DerivedUntrusted, "tool": DerivedTrusted, "mix": DerivedTrusted}},
		// tau 0.4: w(web,sum) = 0.4 is not > 0.4, so sum takes user's label.
		{Options{Tau: 0.4}, map[string]Trust{"sum": Trusted, "note": Trusted, "mix": DerivedTrusted}},
		// tau 0.6: note's only edge (0.6) is weak: fail-open Trusted.
		{Options{Tau: 0.6}, map[string]Trust{"sum": Trusted, "note": Trusted, "mix": Trusted}},
		// Fail-closed: same tau, note and mix have no strong parent.
		{Options{Tau: 0.6, FailClosed: true}, map[string]Trust{"sum": Trusted, "note": DerivedUntrusted, "mix": DerivedUntrusted, "web": External, "user": Trusted, "tool": DerivedTrusted}},
		// tau 1: nothing is strong; fail-open gives each writer's base.
		{Options{Tau: 1}, map[string]Trust{"sum": Trusted, "note": Trusted, "tool": DerivedTrusted, "mix": Trusted}},
	}
	for _, c := range cases {
		l := mustPropagate(t, g, c.opt)
		for id, w := range c.want {
			if got := labelOf(t, g, l, id); got != w {
				t.Errorf("%+v: %s = %s, want %s", c.opt, id, got, w)
			}
		}
	}
}

func TestPropagateExternalWriterStaysExternal(t *testing.T) {
	g := Build([]Entry{
		{ID: "u", Writer: "user"},
		{ID: "x", Writer: "external:mail", Parents: []string{"u"}, Weights: []float64{1}},
	})
	l := mustPropagate(t, g, Options{})
	if labelOf(t, g, l, "x") != External {
		t.Fatal("external writer lost its label by deriving from a trusted parent")
	}
}

func TestPropagateRejectsBadInput(t *testing.T) {
	g := Build(graftEntries())
	for _, tau := range []float64{-0.1, 1.5, math.NaN()} {
		if _, err := g.Propagate(Options{Tau: tau}); err == nil {
			t.Errorf("tau %v accepted", tau)
		}
	}
	if err := g.PropagateInto(make([]Trust, 2), Options{}); err == nil {
		t.Error("short slice accepted")
	}
	bad := DefaultBaseLabels()
	bad[WriterUser] = 9
	if _, err := g.Propagate(Options{Base: &bad}); err == nil {
		t.Error("invalid base label accepted")
	}
}

func TestBuildFindings(t *testing.T) {
	g := Build([]Entry{
		{ID: "a", Writer: "user", Recorded: 7},
		{ID: "a", Writer: "user"},
		{ID: "b", Writer: "agent:1", Parents: []string{"a", "ghost", "a", "b"}, Weights: []float64{0.2, 0.5, 0.8}},
		{ID: "c", Writer: "agent:1", Parents: []string{"a", "b"}, Weights: []float64{math.NaN(), 3}},
		{ID: "", Writer: "user"},
	})
	fs := g.Findings()
	for _, want := range []struct {
		code finding.Code
		ids  []string
	}{
		{CodeTrustInvalid, []string{"a"}},
		{CodeDuplicateID, []string{"a"}},
		{CodeDanglingParent, []string{"b", "ghost"}},
		{CodeDuplicateParent, []string{"b", "a"}},
		{CodeWeightCount, []string{"b"}},
		{CodeCycle, []string{"b"}},
		{CodeWeightNaN, []string{"c", "a"}},
		{CodeWeightRange, []string{"c", "b"}},
		{CodeEmptyID, nil},
	} {
		if !hasFinding(fs, want.code, want.ids...) {
			t.Errorf("missing %s %v in %+v", want.code, want.ids, fs)
		}
	}
	b, _ := g.Index("b")
	ps := g.Parents(b)
	// a (merged, weight max(0.2, 0.8)) only: ghost dangles, b is itself.
	if len(ps) != 1 || g.ID(ps[0].Node) != "a" || ps[0].Weight != 0.8 {
		t.Fatalf("parents of b: %+v", ps)
	}
	if !g.HasDanglingParent(b) {
		t.Error("dangling parent not remembered")
	}
	c, _ := g.Index("c")
	for _, e := range g.Parents(c) {
		if e.Weight != 1 {
			t.Errorf("c parent %s weight %v, want 1 (NaN read as 1, 3 clamped)", g.ID(e.Node), e.Weight)
		}
	}
}

// A missing parent is External by default (fail-closed); DanglingTrusted
// restores the old fail-open reading.
func TestDanglingIsExternal(t *testing.T) {
	g := Build([]Entry{{ID: "c", Writer: "agent:1", Parents: []string{"gone"}, Weights: []float64{0.7}}})
	if l := mustPropagate(t, g, Options{}); l[0] != DerivedUntrusted {
		t.Errorf("default: %s, want Derived-Untrusted", l[0])
	}
	if l := mustPropagate(t, g, Options{DanglingTrusted: true}); l[0] != Trusted {
		t.Errorf("dangling trusted: %s", l[0])
	}
	if l := mustPropagate(t, g, Options{Tau: 0.7}); l[0] != Trusted {
		t.Errorf("weak dangling edge: %s", l[0])
	}
	if l := mustPropagate(t, g, Options{Tau: 0.7, FailClosed: true}); l[0] != DerivedUntrusted {
		t.Errorf("fail-closed with only a dangling parent: %s", l[0])
	}
}

// Resolve: a parent deleted by a tombstone keeps its label and raises no
// finding; a missing one stays a finding and taints; an entry that failed
// verification is External, and so is what strongly derives from it.
func TestResolveTombstonesAndVerification(t *testing.T) {
	g := Build([]Entry{
		{ID: "kid-of-lawful", Writer: "agent:1", Parents: []string{"deleted"}, Weights: []float64{0.9}},
		{ID: "kid-of-missing", Writer: "agent:1", Parents: []string{"vanished"}, Weights: []float64{0.9}},
		{ID: "forged", Writer: "user"},
		{ID: "kid-of-forged", Writer: "agent:1", Parents: []string{"forged"}, Weights: []float64{0.9}},
		{ID: "kid-of-external-ghost", Writer: "agent:1", Parents: []string{"deleted-ext"}, Weights: []float64{0.9}},
	})
	g.Resolve(map[string]string{"forged": "SIG_INVALID"}, map[string]Ghost{
		"deleted":     {Writer: "user", Recorded: Trusted, Known: true},
		"deleted-ext": {Writer: "external:forum", Recorded: External, Known: true},
	})
	l := mustPropagate(t, g, Options{})
	want := map[string]Trust{"kid-of-lawful": Trusted, "kid-of-missing": DerivedUntrusted, "forged": External, "kid-of-forged": DerivedUntrusted, "kid-of-external-ghost": DerivedUntrusted}
	for id, w := range want {
		i, _ := g.Index(id)
		if l[i] != w {
			t.Errorf("%s: %s, want %s", id, l[i], w)
		}
	}
	if hasFinding(g.Findings(), CodeDanglingParent, "kid-of-lawful", "deleted") {
		t.Error("a lawful tombstone still raises a dangling-parent finding")
	}
	if !hasFinding(g.Findings(), CodeDanglingParent, "kid-of-missing", "vanished") {
		t.Error("a parent missing without a tombstone raises no finding")
	}
	if !hasFinding(g.Findings(), finding.LineageUnverified, "forged") {
		t.Error("no finding for the unverified entry")
	}
	i, _ := g.Index("forged")
	if g.Unverified(i) != "SIG_INVALID" {
		t.Errorf("unverified reason %q", g.Unverified(i))
	}
	ex, err := g.Explain("forged", l, 0, 0)
	if err != nil || ex.Unverified != "SIG_INVALID" {
		t.Errorf("explanation %+v %v", ex, err)
	}
}

func TestCyclesReportedAndSettled(t *testing.T) {
	// x -> a -> b -> c -> a (cycle a,b,c), c -> d. The cycle is reachable
	// from an External root through strong edges, so every node on and below
	// it must become untrusted (least fixpoint of the rule).
	g := Build([]Entry{
		{ID: "x", Writer: "external:w"},
		{ID: "a", Writer: "agent:1", Parents: []string{"x", "c"}, Weights: []float64{1, 1}},
		{ID: "b", Writer: "agent:1", Parents: []string{"a"}, Weights: []float64{1}},
		{ID: "c", Writer: "agent:1", Parents: []string{"b"}, Weights: []float64{1}},
		{ID: "d", Writer: "agent:1", Parents: []string{"c"}, Weights: []float64{1}},
		{ID: "u", Writer: "user"},
	})
	if g.Acyclic() {
		t.Fatal("cycle not detected")
	}
	n := 0
	for _, f := range g.Findings() {
		if f.Code == CodeCycle {
			n++
			if strings.Join(f.Entries, ",") != "a,b,c" {
				t.Errorf("cycle entries %v", f.Entries)
			}
		}
	}
	if n != 1 {
		t.Fatalf("%d cycle findings", n)
	}
	l := mustPropagate(t, g, Options{})
	for _, id := range []string{"a", "b", "c", "d"} {
		if labelOf(t, g, l, id) != DerivedUntrusted {
			t.Errorf("%s = %s", id, labelOf(t, g, l, id))
		}
	}
	// Cut the entry edge: the cycle alone carries no untrusted label.
	ex, err := g.Explain("d", l, 0, 0)
	if err != nil || len(ex.Origins) != 1 || ex.Origins[0].Ancestor != "x" || ex.Origins[0].Break != -1 || len(ex.Origins[0].Path) != 4 {
		t.Errorf("explain through a cycle: %+v %v", ex, err)
	}
	g2 := Build([]Entry{
		{ID: "a", Writer: "agent:1", Parents: []string{"c"}, Weights: []float64{1}},
		{ID: "b", Writer: "agent:1", Parents: []string{"a"}, Weights: []float64{1}},
		{ID: "c", Writer: "agent:1", Parents: []string{"b"}, Weights: []float64{1}},
	})
	for _, v := range mustPropagate(t, g2, Options{}) {
		if v != Trusted {
			t.Errorf("pure cycle got %s", v)
		}
	}
}

func TestLaundering(t *testing.T) {
	g := Build(graftEntries())
	l := mustPropagate(t, g, Options{Tau: 0})
	rows := g.Laundering(l)
	got := map[string]Laundering{}
	for _, r := range rows {
		got[r.Entry] = r
	}
	// sum and note are recorded Trusted but recompute Derived-Untrusted;
	// mix is recorded Derived-Trusted and recomputes Derived-Trusted.
	if len(rows) != 2 || got["sum"].Recomputed != DerivedUntrusted || got["note"].Recorded != Trusted {
		t.Fatalf("laundering rows %+v", rows)
	}
	fs := LaunderingFindings(rows, 0)
	if len(fs) != 2 || fs[0].Severity != finding.SevError || fs[0].Code != CodeLaundering {
		t.Fatalf("findings %+v", fs)
	}
	l = mustPropagate(t, g, Options{Tau: 0.6})
	if rows := g.Laundering(l); len(rows) != 0 {
		t.Fatalf("tau 0.6 laundering %+v", rows)
	}
}

// naiveLabels recomputes labels by repeated relaxation until nothing changes,
// an independent implementation of the same rule for cross-checking.
func naiveLabels(entries []Entry, opt Options) map[string]Trust {
	base := DefaultBaseLabels()
	lab := map[string]Trust{}
	for _, e := range entries {
		lab[e.ID] = Trusted
	}
	for changed := true; changed; {
		changed = false
		for _, e := range entries {
			wc, _ := ParseWriter(e.Writer)
			strong, m := false, Trusted
			for j, p := range e.Parents {
				if e.Weights[j] > opt.Tau {
					strong = true
					if lab[p] > m {
						m = lab[p]
					}
				}
			}
			var l Trust
			switch {
			case strong:
				l = min(m, DerivedUntrusted)
			case opt.FailClosed && len(e.Parents) > 0:
				l = DerivedUntrusted
			}
			l = max(l, base[wc])
			if l != lab[e.ID] {
				lab[e.ID], changed = l, true
			}
		}
	}
	return lab
}

func randomDAG(r *rand.Rand, n, maxParents int) []Entry {
	writers := []string{"user", "agent:1", "agent:2", "tool:x", "external:w"}
	es := make([]Entry, n)
	for i := range es {
		es[i] = Entry{ID: idFor(i), Writer: writers[r.IntN(len(writers))], Recorded: Trust(r.IntN(4))}
		if i == 0 {
			continue
		}
		k := r.IntN(maxParents + 1)
		used := map[int]bool{}
		for j := 0; j < k; j++ {
			p := r.IntN(i)
			if used[p] {
				continue
			}
			used[p] = true
			es[i].Parents = append(es[i].Parents, idFor(p))
			es[i].Weights = append(es[i].Weights, float64(r.IntN(11))/10)
		}
	}
	// Shuffle so input order is not a topological order.
	r.Shuffle(len(es), func(a, b int) { es[a], es[b] = es[b], es[a] })
	return es
}

func TestPropagateMatchesNaive(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 200; trial++ {
		es := randomDAG(r, 1+r.IntN(40), 4)
		g := Build(es)
		if len(g.Findings()) != 0 {
			t.Fatalf("random DAG produced findings: %+v", g.Findings())
		}
		for _, opt := range []Options{{Tau: 0}, {Tau: 0.3}, {Tau: 0.5, FailClosed: true}, {Tau: 1}} {
			got := mustPropagate(t, g, opt)
			want := naiveLabels(es, opt)
			for i := 0; i < g.Len(); i++ {
				if got[i] != want[g.ID(i)] {
					t.Fatalf("trial %d %+v: %s = %s, naive %s", trial, opt, g.ID(i), got[i], want[g.ID(i)])
				}
			}
		}
	}
}
