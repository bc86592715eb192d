package storediff

import (
	"sort"

	"github.com/memscope/memscope/internal/readers/storemodel"
)

// gone lists, sorted, the keys of a that b lacks.
func gone[V, W any](a map[string]V, b map[string]W) []string {
	var out []string
	for id := range a {
		if _, ok := b[id]; !ok {
			out = append(out, id)
		}
	}
	sort.Strings(out)
	return out
}

// telemetry is Mem0's own collection (mem0/memory/main.py:
// "mem0migrations"), not memories.
const telemetry = "mem0migrations"

// vectors compares the Mem0 vector stores' points by memory id: points
// added, removed, and points whose text changed (payload data). This is
// what retrieval could return then and now, whatever the history says.
func vectors(a, b *storemodel.Store, r *Result) {
	if a.VectorStore == nil && b.VectorStore == nil {
		return
	}
	index := func(st *storemodel.Store) map[string]*storemodel.VectorPoint {
		m := map[string]*storemodel.VectorPoint{}
		for i := range st.Vectors {
			if v := &st.Vectors[i]; v.Collection != telemetry {
				m[v.ID] = v
			}
		}
		return m
	}
	va, vb := index(a), index(b)
	for i := range b.Vectors {
		v := &b.Vectors[i]
		if v.Collection == telemetry {
			continue
		}
		switch old, ok := va[v.ID]; {
		case !ok:
			r.Vectors = append(r.Vectors, MemoryChange{Memory: v.ID, Change: Added, After: v.Text})
		case old.Text != v.Text:
			r.Vectors = append(r.Vectors, MemoryChange{Memory: v.ID, Change: Changed, Before: old.Text, After: v.Text})
		}
	}
	for _, id := range gone(va, vb) {
		r.Vectors = append(r.Vectors, MemoryChange{Memory: id, Change: Removed, Before: va[id].Text})
	}
}
