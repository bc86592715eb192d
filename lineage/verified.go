package lineage

import (
	"fmt"
	"slices"

	"github.com/memscope/memscope/internal/present/finding"
)

// Ghost is a lawfully deleted entry: its signed tombstone carries the
// deleted entry's writer and trust, so it keeps its place in the lineage of
// the entries derived from it.
type Ghost struct {
	Writer string `json:"writer"`
	// Recorded is the trust the deleted entry carried; Known is false when
	// the tombstone does not say (an older tombstone), and the ghost is
	// then External (nothing vouches for it).
	Recorded Trust `json:"recorded"`
	Known    bool  `json:"known"`
}

// ghostEdge is a parent edge to a ghost.
type ghostEdge struct {
	parent string
	w      float64
	label  Trust // resolved for the default base labels; see ghostLabel
	wc     WriterClass
	known  bool
}

// danglingEdge is a parent edge to an id not in the store, kept so that
// Resolve can tell a tombstoned parent from a missing one.
type danglingEdge struct {
	parent string
	w      float64
}

// Resolve feeds verification into the graph, as MemLineage verifies before
// it labels:
//
//   - unverified maps an entry id to why its record failed verification
//     (signature, registration, key validity, canonical form, log
//     inclusion); such an entry is External in propagation, explanations and
//     the gate audit;
//   - ghosts are the parents deleted by a verified tombstone: an edge to one
//     is an edge to its recorded label (raised to its writer's base label)
//     and raises no dangling-parent warning;
//   - any other missing parent is missing without a tombstone: a strong
//     edge to it makes the child untrusted (fail-closed) and stays a finding.
//
// Resolve may be called again (the latest call wins); it is not safe to call
// while another goroutine propagates.
func (g *Graph) Resolve(unverified map[string]string, ghosts map[string]Ghost) {
	n := g.Len()
	g.forced = nil
	g.unverified = map[int32]string{}
	for id, why := range unverified {
		if i, ok := g.node(id); ok {
			if g.forced == nil {
				g.forced = make([]bool, n)
			}
			g.forced[i] = true
			g.unverified[i] = why
		}
	}
	g.ghost = nil
	g.resolved = true
	for in, edges := range g.dangling {
		c := g.nodeOf[in]
		g.danglingW[c] = -1
		for _, e := range edges {
			gh, ok := ghosts[e.parent]
			if !ok {
				if e.w > g.danglingW[c] {
					g.danglingW[c] = e.w
				}
				continue
			}
			if g.ghost == nil {
				g.ghost = make([][]ghostEdge, n)
			}
			wc, _ := ParseWriter(gh.Writer)
			g.ghost[c] = append(g.ghost[c], ghostEdge{parent: e.parent, w: e.w, wc: wc, label: gh.Recorded, known: gh.Known})
		}
	}
	// Dangling-parent findings stay only for parents without a tombstone.
	kept := g.findings[:0:0]
	for _, f := range g.buildFindings {
		if f.Code == CodeDanglingParent && len(f.Entries) > 1 {
			if _, ok := ghosts[f.Entries[1]]; ok {
				continue
			}
			f.Message = fmt.Sprintf("entry %s names parent %s, which is neither in the store nor deleted by a tombstone; a strong edge to it makes the entry untrusted (fail-closed)", f.Entries[0], f.Entries[1])
		}
		kept = append(kept, f)
	}
	// Node order, not map order: the same evidence lists its findings in
	// the same order on every run.
	nodes := make([]int32, 0, len(g.unverified))
	for i := range g.unverified {
		nodes = append(nodes, i)
	}
	slices.Sort(nodes)
	for _, i := range nodes {
		why := g.unverified[i]
		kept = append(kept, newFinding(finding.LineageUnverified, finding.SevWarning, []string{g.ids.text(i)}, fmt.Sprintf("entry %s failed verification (%s): it is External for lineage and the gate", g.ids.text(i), why)))
	}
	g.findings = kept
}

// Unverified says why an entry's record failed verification ("" when it
// did not, or when Resolve was not called).
func (g *Graph) Unverified(i int) string { return g.unverified[int32(i)] }

// Resolved reports whether verification was fed in (Resolve was called).
func (g *Graph) Resolved() bool { return g.resolved }

// ghostLabel is the label an edge to a ghost carries.
func ghostLabel(e ghostEdge, base *BaseLabels) Trust {
	if !e.known {
		return External
	}
	return max(e.label, base[e.wc])
}

// MissingParents lists node i's parents that are not in the store (deleted
// or never present), with their weights, so a caller that rebuilds the
// graph keeps them.
func (g *Graph) MissingParents(i int) (ids []string, weights []float64) {
	g.missingOnce.Do(func() {
		g.missingByNode = make(map[int32][]danglingEdge, len(g.dangling))
		for in, edges := range g.dangling {
			g.missingByNode[g.nodeOf[in]] = edges
		}
	})
	for _, e := range g.missingByNode[int32(i)] {
		ids, weights = append(ids, e.parent), append(weights, e.w)
	}
	return ids, weights
}
