package replay

import (
	"math"

	"github.com/memscope/memscope/diff"
)

// TieTolerance is how close two scores must be to count as tied. Scores are
// converged to 1e-10 in L1, and two views that are equal in exact arithmetic
// (G minus all unauthenticated writes, and G_auth) can differ by about that,
// so a closer gap does not decide the order: node order does.
const TieTolerance = 1e-9

// Item is one selected passage.
type Item struct {
	NodeID        string  `json:"node_id"`
	Label         string  `json:"label"`
	Rank          int     `json:"rank"` // 0-based
	Score         float64 `json:"score"`
	Authenticated bool    `json:"authenticated"` // the passage's own record is authenticated
}

// Selection is a top-k over passage nodes.
type Selection struct {
	Items []Item `json:"items"`
	// Next is the best passage just outside the top-k, if any: the margin
	// Items[k-1].Score - Next.Score says how firm the cut-off is.
	Next *Item `json:"next"`
	// TieAtCutoff is set when the last selected and the first excluded
	// passage are within TieTolerance: node order, not score, decided.
	TieAtCutoff bool `json:"tie_at_cutoff"`
}

// IDs returns the selected node ids in rank order.
func (s Selection) IDs() []string {
	ids := make([]string, len(s.Items))
	for i, it := range s.Items {
		ids[i] = it.NodeID
	}
	return ids
}

// DiffItems converts the selection for package diff.
func (s Selection) DiffItems() []diff.Item {
	out := make([]diff.Item, len(s.Items))
	for i, it := range s.Items {
		out[i] = diff.Item{ID: it.NodeID, Score: it.Score}
	}
	return out
}

// AllAuthenticated says whether every selected passage is authenticated.
func (s Selection) AllAuthenticated() bool {
	for _, it := range s.Items {
		if !it.Authenticated {
			return false
		}
	}
	return true
}

// topK ranks the given candidate nodes by score (higher first, ties by node
// order) and keeps k, plus the first excluded one to judge the cut-off.
func (g *Graph) topK(score func(int32) float64, candidates []int32, k int) Selection {
	if k <= 0 {
		return Selection{}
	}
	// Insertion into a sorted buffer of k+1: k is small (5 in HippoRAG2),
	// so this beats sorting every passage.
	type cand struct {
		node  int32
		score float64
	}
	better := func(a, b cand) bool {
		if math.Abs(a.score-b.score) > TieTolerance {
			return a.score > b.score
		}
		return a.node < b.node
	}
	// Capped by the candidates too: k comes from the command line or
	// the evidence, and a buffer of k+1 for a huge k is memory the
	// selection never uses.
	buf := make([]cand, 0, min(k, len(candidates))+1)
	for _, v := range candidates {
		c := cand{v, score(v)}
		if len(buf) == k+1 && !better(c, buf[k]) {
			continue
		}
		if len(buf) < k+1 {
			buf = append(buf, c)
		} else {
			buf[k] = c
		}
		for i := len(buf) - 1; i > 0 && better(buf[i], buf[i-1]); i-- {
			buf[i], buf[i-1] = buf[i-1], buf[i]
		}
	}
	item := func(rank int, c cand) Item {
		n := g.nodes[c.node]
		return Item{NodeID: n.ID, Label: n.Label, Rank: rank, Score: c.score, Authenticated: n.Authenticated}
	}
	var sel Selection
	for i, c := range buf {
		if i == k {
			next := item(k, c)
			sel.Next = &next
			sel.TieAtCutoff = buf[k-1].score-c.score <= TieTolerance
			break
		}
		sel.Items = append(sel.Items, item(i, c))
	}
	return sel
}

// selectPassages is the HippoRAG2 selection: top-k passages by PPR score.
func (g *Graph) selectPassages(scores []float64, k int) Selection {
	return g.topK(func(v int32) float64 { return scores[v] }, g.passages, k)
}
