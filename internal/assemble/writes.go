package assemble

import "github.com/memscope/memscope/internal/idtab"

// writeTable holds the structural writes by column: ids compactly
// (internal/idtab), every other string (kind, nodes, relation, writer,
// sources) as a code into one interned list, so a million writes cost about
// 80 bytes each instead of a Write value, its id string and its sources
// slice (about 230). WriteAt rebuilds a Write.
type writeTable struct {
	ids                       *idtab.Table
	strs                      []string
	codes                     map[string]int32
	kind, src, dst, rel, wrtr []int32
	weight                    []float64
	ts, leaf                  []int64
	srcOff                    []int32 // sources of write i: srcs[srcOff[i]:srcOff[i+1]]
	srcs                      []int32
	bad                       map[int32]error
}

func newWriteTable(n int) *writeTable {
	return &writeTable{
		ids: idtab.New(n), codes: map[string]int32{},
		kind: make([]int32, 0, n), src: make([]int32, 0, n), dst: make([]int32, 0, n), rel: make([]int32, 0, n), wrtr: make([]int32, 0, n),
		weight: make([]float64, 0, n), ts: make([]int64, 0, n), leaf: make([]int64, 0, n),
		srcOff: append(make([]int32, 0, n+1), 0), srcs: make([]int32, 0, n),
	}
}

func (t *writeTable) code(s string) int32 {
	if c, ok := t.codes[s]; ok {
		return c
	}
	c := int32(len(t.strs))
	t.strs = append(t.strs, s)
	t.codes[s] = c
	return c
}

// add appends w; sources are given as strings or, from the record, by
// the caller through addSource before add.
func (t *writeTable) add(w *Write) {
	i := int32(t.ids.Len())
	t.ids.Add(w.ID)
	t.kind = append(t.kind, t.code(w.Kind))
	t.src = append(t.src, t.code(w.Src))
	t.dst = append(t.dst, t.code(w.Dst))
	t.rel = append(t.rel, t.code(w.Rel))
	t.wrtr = append(t.wrtr, t.code(w.Writer))
	t.weight = append(t.weight, w.Weight)
	t.ts = append(t.ts, w.TS)
	t.leaf = append(t.leaf, w.Leaf)
	for _, s := range w.Sources {
		t.srcs = append(t.srcs, t.code(s))
	}
	t.srcOff = append(t.srcOff, int32(len(t.srcs)))
	if w.Bad != nil {
		if t.bad == nil {
			t.bad = map[int32]error{}
		}
		t.bad[i] = w.Bad
	}
}

func (t *writeTable) len() int {
	if t == nil {
		return 0
	}
	return t.ids.Len()
}

// at rebuilds write i (Sources nil when it cites none, as Open made it).
func (t *writeTable) at(i int) Write {
	w := Write{ID: t.ids.At(i), Kind: t.strs[t.kind[i]], Src: t.strs[t.src[i]], Dst: t.strs[t.dst[i]], Rel: t.strs[t.rel[i]],
		Weight: t.weight[i], Writer: t.strs[t.wrtr[i]], TS: t.ts[i], Leaf: t.leaf[i], Bad: t.bad[int32(i)]}
	if lo, hi := t.srcOff[i], t.srcOff[i+1]; hi > lo {
		w.Sources = make([]string, hi-lo)
		for j := range w.Sources {
			w.Sources[j] = t.strs[t.srcs[int(lo)+j]]
		}
	}
	return w
}

// sources calls f with each source of write i, without building a slice.
func (t *writeTable) sources(i int, f func(string)) {
	for _, c := range t.srcs[t.srcOff[i]:t.srcOff[i+1]] {
		f(t.strs[c])
	}
}

// WriteCount is the number of structural write rows.
func (s *Session) WriteCount() int { return s.writes.len() }

// WriteAt is write row i (in stored order), rebuilt from the session's
// compact table: a new value each call.
func (s *Session) WriteAt(i int) Write { return s.writes.at(i) }

// WriteID is write row i's id.
func (s *Session) WriteID(i int) string { return s.writes.ids.At(i) }

// WriteLeaf is the log leaf write row i claims (-1: none).
func (s *Session) WriteLeaf(i int) int64 { return s.writes.leaf[i] }
