package storediff

import (
	"sort"

	"github.com/memscope/memscope/internal/readers/storemodel"
)

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
	var gone []string
	for id := range va {
		if _, ok := vb[id]; !ok {
			gone = append(gone, id)
		}
	}
	sort.Strings(gone)
	for _, id := range gone {
		r.Vectors = append(r.Vectors, MemoryChange{Memory: id, Change: Removed, Before: va[id].Text})
	}
}
