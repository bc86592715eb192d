// Package storediff compares two copies of one native store (two snapshots
// a responder holds, a backup and the live store): which memories were
// added, changed or deleted between them (Mem0, from each memory's version
// chain), which graph writes were added, removed or reweighted, and whether
// the later copy's history extends the earlier one, as Mem0's append-only
// history must. Both copies are the stores' own claims: nothing is signed.
package storediff

import (
	"fmt"

	"github.com/memscope/memscope/internal/present/finding"
	"github.com/memscope/memscope/internal/readers/mem0db"
	"github.com/memscope/memscope/internal/readers/storemodel"
)

// Memory changes.
const (
	Added   = "added"
	Changed = "changed"
	Deleted = "deleted"
	Removed = "removed"    // in A, absent from B
	Reweigh = "reweighted" // an edge's weight changed
)

// MemoryChange is one memory whose state differs between the copies.
type MemoryChange struct {
	Memory string `json:"memory"`
	Change string `json:"change"`
	Before string `json:"before"`
	After  string `json:"after"`
	// Events are B's history rows for this memory that A does not hold.
	Events int `json:"new_events"`
}

// EdgeChange is one graph write that differs between the copies.
type EdgeChange struct {
	Edge     string  `json:"edge"`
	Src      string  `json:"src"`
	Dst      string  `json:"dst"`
	Change   string  `json:"change"`
	WeightA  float64 `json:"weight_a"`
	WeightB  float64 `json:"weight_b"`
	NoSource bool    `json:"no_source"` // the write as it stands declares no source
}

// Result is the comparison.
type Result struct {
	Memories     []MemoryChange    `json:"memories"`
	Vectors      []MemoryChange    `json:"vector_points"` // Mem0 vector stores (vectors.go)
	Edges        []EdgeChange      `json:"edges"`
	NodesAdded   []string          `json:"nodes_added"`
	NodesRemoved []string          `json:"nodes_removed"`
	Findings     []finding.Finding `json:"findings"`
}

// Diff compares a (earlier) with b (later). They must be one format.
func Diff(a, b *storemodel.Store) (Result, error) {
	if a.Format != b.Format {
		return Result{}, fmt.Errorf("a %s store and a %s store are not two copies of one store", a.Format, b.Format)
	}
	r := Result{Memories: []MemoryChange{}, Vectors: []MemoryChange{}, Edges: []EdgeChange{}, NodesAdded: []string{}, NodesRemoved: []string{}, Findings: []finding.Finding{}}
	memories(a, b, &r)
	vectors(a, b, &r)
	edges(a, b, &r)
	nodes(a, b, &r)
	return r, nil
}

type state struct {
	text    string
	deleted bool
	rows    []string // history row ids in storage order
}

func states(st *storemodel.Store) (map[string]state, []string) {
	chains, _ := mem0db.Chains(st)
	out := make(map[string]state, len(chains))
	order := make([]string, 0, len(chains))
	for _, c := range chains {
		s := state{deleted: c.Deleted}
		for _, v := range c.Versions {
			s.rows = append(s.rows, v.ID)
			if v.Event != "DELETE" {
				s.text = v.New
			}
		}
		out[c.MemoryID] = s
		order = append(order, c.MemoryID)
	}
	return out, order
}

// memories compares the Mem0 version chains. Mem0's history is written
// only by add_history/batch_add_history (mem0/memory/storage.py), which
// insert; only reset() drops it. So every chain of A must be a prefix of
// B's chain of the same memory; otherwise the history was rewritten.
func memories(a, b *storemodel.Store, r *Result) {
	sa, _ := states(a)
	sb, orderB := states(b)
	for _, id := range orderB {
		nb := sb[id]
		na, inA := sa[id]
		ch := MemoryChange{Memory: id, After: nb.text, Events: len(nb.rows)}
		switch {
		case !inA:
			ch.Change = Added
			if nb.deleted {
				ch.Change = Added + ", then " + Deleted
			}
		case !prefix(na.rows, nb.rows):
			r.Findings = append(r.Findings, finding.New(finding.Mem0HistoryRewritten, "memory "+id,
				fmt.Sprintf("B's history of this memory (%d rows) does not extend A's (%d rows): Mem0 only appends history rows (add_history), so rows were changed or removed between the copies", len(nb.rows), len(na.rows))))
			ch.Change, ch.Before, ch.Events = Changed, na.text, len(nb.rows)
		case len(nb.rows) == len(na.rows):
			continue
		case nb.deleted && !na.deleted:
			ch.Change, ch.Before, ch.After, ch.Events = Deleted, na.text, "", len(nb.rows)-len(na.rows)
		default:
			ch.Change, ch.Before, ch.Events = Changed, na.text, len(nb.rows)-len(na.rows)
		}
		r.Memories = append(r.Memories, ch)
	}
	for _, id := range gone(sa, sb) {
		r.Memories = append(r.Memories, MemoryChange{Memory: id, Change: Removed, Before: sa[id].text})
		r.Findings = append(r.Findings, finding.New(finding.Mem0HistoryRewritten, "memory "+id,
			fmt.Sprintf("A's history holds %d row(s) of this memory and B's none: Mem0 only appends history rows, so they were removed between the copies (or the history was reset)", len(sa[id].rows))))
	}
}

func prefix(a, b []string) bool {
	if len(a) > len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func edges(a, b *storemodel.Store, r *Result) {
	ea := map[string]storemodel.Edge{}
	for _, e := range a.Edges {
		ea[e.ID] = e
	}
	seen := map[string]bool{}
	for _, e := range b.Edges {
		seen[e.ID] = true
		old, ok := ea[e.ID]
		switch {
		case !ok:
			r.Edges = append(r.Edges, EdgeChange{Edge: e.ID, Src: e.Src, Dst: e.Dst, Change: Added, WeightB: e.Weight, NoSource: len(e.Sources) == 0})
		case old.Weight != e.Weight:
			r.Edges = append(r.Edges, EdgeChange{Edge: e.ID, Src: e.Src, Dst: e.Dst, Change: Reweigh, WeightA: old.Weight, WeightB: e.Weight, NoSource: len(e.Sources) == 0})
		}
	}
	for _, e := range a.Edges {
		if !seen[e.ID] {
			r.Edges = append(r.Edges, EdgeChange{Edge: e.ID, Src: e.Src, Dst: e.Dst, Change: Removed, WeightA: e.Weight, NoSource: len(e.Sources) == 0})
		}
	}
}

func nodes(a, b *storemodel.Store, r *Result) {
	na := map[string]bool{}
	for _, n := range a.Nodes {
		na[n.ID] = true
	}
	nb := map[string]bool{}
	for _, n := range b.Nodes {
		nb[n.ID] = true
		if !na[n.ID] {
			r.NodesAdded = append(r.NodesAdded, n.ID)
		}
	}
	for _, n := range a.Nodes {
		if !nb[n.ID] {
			r.NodesRemoved = append(r.NodesRemoved, n.ID)
		}
	}
}
