package replay

import (
	"fmt"
	"math"
	"sort"

	"github.com/memscope/memscope/diff"
)

// Immune selectors (AuthSelect, arXiv:2606.12290, Proposition 1 and Lemma 2): selectors whose
// top-k membership no structural write can change. They read only data a
// snapshot stores per query (Query.DenseScores, Query.Center), so a demo can
// show one write flipping the PPR selection while these stay put.
const (
	// SelectorDense ranks passages by their stored dense score alone: no
	// structural term at all (vector retrieval, as in Mem0 or Graphiti RRF
	// without graph signals).
	SelectorDense = "dense-score"
	// SelectorNodeDistance is a Graphiti-style node-distance rerank: the
	// candidate pool is the dense top-k (fixed by content), reordered by hop
	// distance from the query's center node. Structure can reorder the pool
	// but never add or remove a member.
	SelectorNodeDistance = "node-distance"
)

// ImmuneRow is an immune selector's answer on G and on G_auth.
type ImmuneRow struct {
	Selector string      `json:"selector"`
	G        Selection   `json:"g"`
	GAuth    Selection   `json:"g_auth"`
	Class    diff.Class  `json:"class"`
	Changes  diff.Result `json:"changes"` // G_auth (before) against G (after)
}

func (r *Replayer) immune(q Query, reset []float64, k int) ([]ImmuneRow, error) {
	g := r.g
	dense := make([]float64, len(g.nodes))
	var pool []int32
	for id, s := range q.DenseScores {
		i, ok := g.nodeIndex[id]
		if ok && g.nodes[i].Unread {
			continue // its row was not read: warned about by the loader
		}
		if !ok || g.nodes[i].Kind != KindPassage {
			return nil, fmt.Errorf("query \"%s\": dense score for \"%s\", which is not a passage node", q.ID, id)
		}
		if math.IsNaN(s) || math.IsInf(s, 0) {
			return nil, fmt.Errorf("query \"%s\": dense score of \"%s\" is %v", q.ID, id, s)
		}
		dense[i] = s
		pool = append(pool, i)
	}
	sort.Slice(pool, func(a, b int) bool { return pool[a] < pool[b] })
	byDense := g.topK(func(v int32) float64 { return dense[v] }, pool, k)
	rows := []ImmuneRow{{Selector: SelectorDense, G: byDense, GAuth: byDense}}

	center, err := r.center(q, reset)
	if err != nil {
		return nil, err
	}
	onG := g.nodeDistance(byDense, g.hops(center, nil))
	onAuth := g.nodeDistance(byDense, g.hops(center, r.unauth))
	rows = append(rows, ImmuneRow{Selector: SelectorNodeDistance, G: onG, GAuth: onAuth})
	for i := range rows {
		rows[i].Changes, err = diff.Compare(rows[i].GAuth.DiffItems(), rows[i].G.DiffItems())
		if err != nil {
			return nil, err
		}
		rows[i].Class = rows[i].Changes.Class
	}
	return rows, nil
}

func (r *Replayer) center(q Query, reset []float64) (int32, error) {
	if q.Center != "" {
		i, ok := r.g.nodeIndex[q.Center]
		if !ok {
			return 0, fmt.Errorf("query \"%s\": center node \"%s\" is not in the graph", q.ID, q.Center)
		}
		return i, nil
	}
	best := int32(0)
	for v, m := range reset {
		if m > reset[best] {
			best = int32(v)
		}
	}
	return best, nil
}

// hops is breadth-first hop distance from src over walk-carrying edges not
// in without; -1 marks unreachable nodes.
func (g *Graph) hops(src int32, without []int32) []int32 {
	gone := make(map[int32]bool, len(without))
	for _, e := range without {
		gone[e] = true
	}
	dist := make([]int32, len(g.nodes))
	for i := range dist {
		dist[i] = -1
	}
	dist[src] = 0
	queue := []int32{src}
	for len(queue) > 0 {
		v := queue[0]
		queue = queue[1:]
		for p := g.offsets[v]; p < g.offsets[v+1]; p++ {
			if u := g.cols[p]; dist[u] < 0 && !gone[g.edgeOf[p]] {
				dist[u] = dist[v] + 1
				queue = append(queue, u)
			}
		}
	}
	return dist
}

// nodeDistance reorders a content-fixed pool by hop distance (nearer first,
// unreachable last), then dense score, then node order. Item.Score keeps the
// dense score; the order carries the distance.
func (g *Graph) nodeDistance(pool Selection, dist []int32) Selection {
	items := append([]Item(nil), pool.Items...)
	key := func(it Item) int32 {
		d := dist[g.nodeIndex[it.NodeID]]
		if d < 0 {
			return math.MaxInt32
		}
		return d
	}
	sort.SliceStable(items, func(a, b int) bool { return key(items[a]) < key(items[b]) })
	for i := range items {
		items[i].Rank = i
	}
	return Selection{Items: items}
}
