package exposure

import (
	"cmp"
	"math"
	"slices"
	"strings"
	"unicode"
)

// Selector names, as they key the JSON output.
const (
	PPR          = "ppr"           // HippoRAG2 Personalized PageRank
	Leiden       = "leiden"        // community selection (Graphiti-style)
	NodeDistance = "node_distance" // hop-distance rerank of a content-fixed pool
	RRF          = "rrf"           // reciprocal-rank fusion of dense and BM25
	Dense        = "dense"         // dense (vector) score only
)

// SelectorNames lists the selectors in output order.
var SelectorNames = []string{PPR, Leiden, NodeDistance, RRF, Dense}

// rrfK is the reciprocal-rank-fusion constant (Cormack et al.; Graphiti's
// default).
const rrfK = 60

// rankBy orders candidates by score (higher first, ties by node order) and
// keeps k. Scores within tieTol are ties, as replay's top-k treats them.
func rankBy(cands []int32, score func(int32) float64, k int) []int32 {
	c := append([]int32(nil), cands...)
	slices.SortStableFunc(c, func(x, y int32) int {
		sx, sy := score(x), score(y)
		if math.Abs(sx-sy) > tieTol {
			return cmp.Compare(sy, sx)
		}
		return cmp.Compare(x, y)
	})
	if len(c) > k {
		c = c[:k]
	}
	return c
}

const tieTol = 1e-9

// jaccard of two node sets.
func jaccard(a, b []int32) float64 {
	if len(a) == 0 && len(b) == 0 {
		return 1
	}
	in := map[int32]bool{}
	for _, v := range a {
		in[v] = true
	}
	inter := 0
	union := len(in)
	seen := map[int32]bool{}
	for _, v := range b {
		if seen[v] {
			continue
		}
		seen[v] = true
		if in[v] {
			inter++
		} else {
			union++
		}
	}
	return float64(inter) / float64(union)
}

// sameSet says whether two selections hold the same nodes.
func sameSet(a, b []int32) bool {
	if len(a) != len(b) {
		return false
	}
	in := map[int32]bool{}
	for _, v := range a {
		in[v] = true
	}
	for _, v := range b {
		if !in[v] {
			return false
		}
	}
	return true
}

// tokens lower-cases text and splits it into letter/digit runs.
func tokens(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}

// bm25 is Okapi BM25 (k1 = 1.2, b = 0.75, Lucene's idf) over passage text.
type bm25 struct {
	docs  []int32 // passage node per document
	tf    []map[string]int
	dl    []float64
	avgdl float64
	df    map[string]int
}

func newBM25(docs []int32, text func(int32) string) *bm25 {
	b := &bm25{docs: docs, df: map[string]int{}}
	var total float64
	for _, d := range docs {
		tf := map[string]int{}
		toks := tokens(text(d))
		for _, t := range toks {
			tf[t]++
		}
		for t := range tf {
			b.df[t]++
		}
		b.tf = append(b.tf, tf)
		b.dl = append(b.dl, float64(len(toks)))
		total += float64(len(toks))
	}
	if len(docs) > 0 {
		b.avgdl = total / float64(len(docs))
	}
	return b
}

// scores returns the BM25 score of every document with a positive score.
func (b *bm25) scores(query string) map[int32]float64 {
	const k1, bb = 1.2, 0.75
	out := map[int32]float64{}
	n := float64(len(b.docs))
	seen := map[string]bool{}
	for _, t := range tokens(query) {
		if seen[t] {
			continue
		}
		seen[t] = true
		df := float64(b.df[t])
		if df == 0 {
			continue
		}
		idf := math.Log(1 + (n-df+0.5)/(df+0.5))
		for i, tf := range b.tf {
			f := float64(tf[t])
			if f == 0 {
				continue
			}
			norm := 1 - bb
			if b.avgdl > 0 {
				norm += bb * b.dl[i] / b.avgdl
			}
			out[b.docs[i]] += idf * f * (k1 + 1) / (f + k1*norm)
		}
	}
	return out
}

// fuse is reciprocal-rank fusion of ranked lists: sum of 1/(60 + rank).
func fuse(lists ...[]int32) map[int32]float64 {
	out := map[int32]float64{}
	for _, l := range lists {
		for r, v := range l {
			out[v] += 1 / float64(rrfK+r+1)
		}
	}
	return out
}

// rerankByDistance orders a content-fixed pool by hop distance (nearer
// first, unreachable last), keeping the pool order among equals.
func rerankByDistance(pool []int32, dist func(int32) int32) []int32 {
	out := append([]int32(nil), pool...)
	key := func(v int32) int32 {
		if d := dist(v); d >= 0 {
			return d
		}
		return math.MaxInt32
	}
	slices.SortStableFunc(out, func(x, y int32) int { return cmp.Compare(key(x), key(y)) })
	return out
}
