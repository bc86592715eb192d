package lineage

import (
	"fmt"
	"math"

	"github.com/memscope/memscope/internal/present/finding"
)

// Options control recomputation of trust labels.
type Options struct {
	// Tau is the declassification threshold in [0,1]; an edge is strong when
	// its weight is strictly greater than Tau.
	Tau float64 `json:"tau"`
	// FailClosed labels a derived entry with no strong parent
	// Derived-Untrusted instead of the paper's fail-open Trusted.
	FailClosed bool `json:"fail_closed"`
	// DanglingTrusted ignores a strong edge to a parent missing from the
	// store (and not deleted by a tombstone, see Graph.Resolve). Off by
	// default: a missing ancestor is an edge to an External parent, so its
	// descendants are untrusted (fail-closed), since nothing vouches for
	// what was deleted without a trace. Turn it on to read a partial
	// snapshot whose horizon is known to be benign.
	DanglingTrusted bool `json:"dangling_trusted"`
	// Base overrides the writer-class base labels; nil uses DefaultBaseLabels.
	Base *BaseLabels `json:"base"`
}

func (o Options) validate() error {
	if math.IsNaN(o.Tau) || o.Tau < 0 || o.Tau > 1 {
		return fmt.Errorf("lineage: tau %v is outside [0,1]", o.Tau)
	}
	if o.Base != nil {
		for wc, t := range o.Base {
			if !t.Valid() {
				return fmt.Errorf("lineage: base label for writer class %s is %d, not a defined level", WriterClass(wc), uint8(t))
			}
		}
	}
	return nil
}

// Propagate recomputes every entry's trust label at opt.Tau and returns them
// indexed by node.
func (g *Graph) Propagate(opt Options) ([]Trust, error) {
	out := make([]Trust, g.Len())
	if err := g.PropagateInto(out, opt); err != nil {
		return nil, err
	}
	return out, nil
}

// PropagateInto is Propagate writing into dst (len(dst) must be Len()), so a
// slider can recompute without allocating.
//
// Rule (MemLineage, arXiv:2605.14421, equation D14, with this project's labelling of the
// result): m = max over parents p with w(p,c) > tau of label(p). If some
// parent is strong, the derived label is m, except that External becomes
// Derived-Untrusted (the child was derived from external content, it is not
// itself external content). If no parent is strong, the label is Trusted
// (fail-open) or, with FailClosed and at least one parent, Derived-Untrusted.
// The writer's base label is a floor under the result. Nodes are visited in
// topological order, so one pass is linear in nodes plus edges; nodes on or
// below a cycle are settled afterwards by a monotone fixpoint.
func (g *Graph) PropagateInto(dst []Trust, opt Options) error {
	if len(dst) != g.Len() {
		return fmt.Errorf("lineage: label slice has %d slots for %d entries", len(dst), g.Len())
	}
	if err := opt.validate(); err != nil {
		return err
	}
	base := DefaultBaseLabels()
	if opt.Base != nil {
		base = *opt.Base
	}
	g.propagateAcyclic(dst, &base, opt)
	n := int32(g.Len())
	if int32(g.acyclicN) == n {
		return nil
	}
	// Least fixpoint: start low and only raise. Labels are monotone in the
	// parents' labels and have four levels, so each node rises at most three
	// times and the worklist terminates.
	first := int32(g.acyclicN)
	pending := make([]bool, n-first)
	work := make([]int32, 0, n-first)
	for c := first; c < n; c++ {
		dst[c] = Trusted
		pending[c-first] = true
		work = append(work, c)
	}
	for len(work) > 0 {
		c := work[len(work)-1]
		work = work[:len(work)-1]
		pending[c-first] = false
		l := g.label(c, dst, &base, opt)
		if l <= dst[c] {
			continue
		}
		dst[c] = l
		for e := g.childStart[c]; e < g.childStart[c+1]; e++ {
			k := g.child[e]
			if k >= first && !pending[k-first] {
				pending[k-first] = true
				work = append(work, k)
			}
		}
	}
	return nil
}

// propagateAcyclic is label() unrolled over the acyclic prefix with the
// arrays hoisted into locals: this loop is what a tau slider waits for.
func (g *Graph) propagateAcyclic(dst []Trust, base *BaseLabels, opt Options) {
	tau := opt.Tau
	pstart, parent, weight := g.parentStart, g.parent, g.weight
	writers, dangling := g.writers, g.danglingW
	forced, ghost := g.forced, g.ghost
	n := g.acyclicN
	dst = dst[:n]
	pstart = pstart[:n+1]
	writers = writers[:n]
	dangling = dangling[:n]
	for c := range dst {
		s, e := pstart[c], pstart[c+1]
		ws := weight[s:e]
		ps := parent[s:e]
		ps = ps[:len(ws)]
		strong := false
		m := Trusted
		for k, w := range ws {
			if w > tau {
				strong = true
				m = max(m, dst[ps[k]])
			}
		}
		d := dangling[c]
		if !opt.DanglingTrusted && d > tau {
			strong, m = true, External
		}
		hasGhost := false
		if ghost != nil {
			for _, ge := range ghost[c] {
				hasGhost = true
				if ge.w > tau {
					strong, m = true, max(m, ghostLabel(ge, base))
				}
			}
		}
		var l Trust
		switch {
		case strong:
			l = min(m, DerivedUntrusted)
		case opt.FailClosed && (e > s || d >= 0 || hasGhost):
			l = DerivedUntrusted
		}
		dst[c] = max(l, base[writers[c]])
		if forced != nil && forced[c] {
			dst[c] = External
		}
	}
}

func (g *Graph) label(c int32, cur []Trust, base *BaseLabels, opt Options) Trust {
	s, e := g.parentStart[c], g.parentStart[c+1]
	ws := g.weight[s:e]
	ps := g.parent[s:e]
	ps = ps[:len(ws)] // lets the compiler drop the bounds check below
	strong := false
	m := Trusted
	for k, w := range ws {
		if w > opt.Tau {
			strong = true
			m = max(m, cur[ps[k]])
		}
	}
	dangling := g.danglingW[c]
	if !opt.DanglingTrusted && dangling > opt.Tau {
		strong, m = true, External
	}
	hasGhost := false
	if g.ghost != nil {
		for _, ge := range g.ghost[c] {
			hasGhost = true
			if ge.w > opt.Tau {
				strong, m = true, max(m, ghostLabel(ge, base))
			}
		}
	}
	var l Trust
	switch {
	case strong:
		l = m
		if l == External {
			l = DerivedUntrusted
		}
	case opt.FailClosed && (e > s || dangling >= 0 || hasGhost):
		l = DerivedUntrusted
	default:
		l = Trusted
	}
	if b := base[g.writers[c]]; b > l {
		l = b
	}
	if g.forced != nil && g.forced[c] {
		l = External
	}
	return l
}

// Laundering is an entry whose recorded label is safer than the recomputed one.
type Laundering struct {
	Entry      string `json:"entry"`
	Index      int    `json:"index"`
	Recorded   Trust  `json:"recorded"`
	Recomputed Trust  `json:"recomputed"`
}

// Laundering lists entries whose recorded trust is smaller (safer) than
// labels[i], in node order. labels must come from Propagate on this graph.
func (g *Graph) Laundering(labels []Trust) []Laundering {
	var out []Laundering
	for i := range g.ids.keys {
		if i < len(labels) && g.recorded[i] < labels[i] {
			out = append(out, Laundering{Entry: g.ids.text(int32(i)), Index: i, Recorded: g.recorded[i], Recomputed: labels[i]})
		}
	}
	return out
}

// LaunderingFindings turns laundering rows into findings. Those that would
// let an untrusted entry pass the gate (recomputed >= 2, recorded < 2) are
// critical; other upgrades are warnings.
func LaunderingFindings(rows []Laundering, tau float64) []finding.Finding {
	out := make([]finding.Finding, 0, len(rows))
	for _, r := range rows {
		sev := finding.SevWarning
		if r.Recomputed.IsUntrusted() && !r.Recorded.IsUntrusted() {
			sev = finding.SevError
		}
		out = append(out, newFinding(CodeLaundering, sev, []string{r.Entry},
			fmt.Sprintf("entry %s is recorded %s but its lineage gives %s at tau %g", r.Entry, r.Recorded, r.Recomputed, tau)))
	}
	return out
}
