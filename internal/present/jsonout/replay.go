package jsonout

import (
	"math"

	"github.com/memscope/memscope/internal/analyses/timeline"
	"github.com/memscope/memscope/internal/present/sanitize"
	"github.com/memscope/memscope/replay"
)

// Coverage answers the coverage label of the rows an answer shows ("" for
// a row a signature covers and that verified, docs/JSON.md): Query of a
// query row, Node of a node row (which entry a passage is), Action of an
// action row. The callers hold verify's per-table answer (package jsonout
// links no verification: the inspector encodes with it).
type Coverage struct {
	Query, Node, Action func(id string) string
}

// ReplayRow is one query of `replay --json`, and a row of the report's
// case file (its `replay.rows`): the query replayed on G and on G_auth.
type ReplayRow struct {
	Query string `json:"query"`
	// Coverage is "unsigned" when no signature covers the query row: its
	// text, k, reset vector, dense scores and recorded selection are
	// claims.
	Coverage         string          `json:"coverage,omitempty"`
	Text             string          `json:"text"`
	K                int             `json:"k"`
	TopKG            []ReplayItem    `json:"topk_g"`
	TopKAuth         []ReplayItem    `json:"topk_auth"`
	Class            string          `json:"class"`
	IFCBlind         bool            `json:"ifc_blind"`
	Rank1Changed     bool            `json:"rank1_changed"`
	Tie              bool            `json:"tie"`
	Culprits         []string        `json:"culprits"`
	CulpritDetail    []ReplayCulprit `json:"culprit_detail"`
	CulpritsMinimal  bool            `json:"culprits_minimal"`
	CulpritsMode     string          `json:"culprits_mode,omitempty"`
	CulpritsTimedOut bool            `json:"culprits_out_of_time,omitempty"`
	RecordedMismatch *bool           `json:"recorded_mismatch,omitempty"`
	Error            string          `json:"error,omitempty"` // class FAILED: why this query could not be replayed
	Lemma1           []Lemma1        `json:"lemma1"`
	Immune           []Immune        `json:"immune"`
	WhatIf           *WhatIf         `json:"what_if,omitempty"`
	// AsOf is set when the rows were replayed at --as-of instead of now.
	AsOf      string     `json:"as_of,omitempty"`
	AsRan     *AsRan     `json:"as_ran,omitempty"`
	FirstFlip *FirstFlip `json:"first_flip,omitempty"`
	// Actions (replay --query) are the recorded actions that followed this
	// query's selection, each as `actions --json` gives it.
	Actions []ActionRow `json:"actions,omitempty"`
}

// ReplayItem is one selected passage (rank is 1-based).
type ReplayItem struct {
	Node          string  `json:"node"`
	Score         float64 `json:"score"`
	Rank          int     `json:"rank"`
	Authenticated bool    `json:"authenticated"`
	// Coverage is "unsigned" when no signature covers the node row that
	// declares which entry the passage is (so whether it is authenticated
	// rests on a claim).
	Coverage string `json:"coverage,omitempty"`
}

// ReplayCulprit is one culprit write of a diverging query.
type ReplayCulprit struct {
	Edge          string  `json:"edge"`
	Src           string  `json:"src"`
	Dst           string  `json:"dst"`
	Weight        float64 `json:"weight"`
	Rule          string  `json:"rule"`
	RestoresAlone bool    `json:"restores_alone"`
	ChangesAlone  string  `json:"class_without_alone"`
}

// Lemma1 is the Lemma 1 diagnostic of one target passage.
type Lemma1 struct {
	Node         string  `json:"node"`
	ResetMass    float64 `json:"reset_mass"`
	Floor        float64 `json:"teleport_floor"`
	CaptureBound float64 `json:"capture_bound"`
	Seed         string  `json:"capture_seed"`
	Evictable    bool    `json:"evictable"`
	// RankG is 1-based, 0 when not selected on G; Margin is null then.
	RankG    int       `json:"rank_g"`
	Margin   *float64  `json:"margin"`
	Eviction *Eviction `json:"eviction,omitempty"`
}

// Eviction is the smallest single no-source edge that evicts a passage.
type Eviction struct {
	Found       bool    `json:"found"`
	Weight      float64 `json:"weight"`
	AnyPositive bool    `json:"any_positive"`
	Seed        string  `json:"seed"`
	Sink        string  `json:"sink"`
	Max         float64 `json:"max_weight"`
}

// Immune is the class an immune selector gives on G against G_auth.
type Immune struct {
	Selector string `json:"selector"`
	Class    string `json:"class"`
}

// WhatIf is a query replayed with named writes removed or restored.
type WhatIf struct {
	Removed []string     `json:"removed"`
	TopK    []ReplayItem `json:"topk"`
	VsG     string       `json:"class_vs_g"`
	VsGAuth string       `json:"class_vs_auth"`
}

// AsRan is a query replayed on the graph as it stood when it ran.
type AsRan struct {
	Moment           string       `json:"moment"`
	PlacedBy         string       `json:"placed_by"`
	Class            string       `json:"class"`
	TopKG            []ReplayItem `json:"topk_g"`
	TopKAuth         []ReplayItem `json:"topk_auth"`
	RecordedMismatch *bool        `json:"recorded_mismatch,omitempty"`
}

// NewReplayItems lists a selection's passages with their node rows'
// coverage.
func NewReplayItems(sel replay.Selection, cov Coverage) []ReplayItem {
	out := make([]ReplayItem, 0, len(sel.Items))
	for _, it := range sel.Items {
		out = append(out, ReplayItem{Node: sanitize.Line(it.NodeID), Score: it.Score, Rank: it.Rank + 1, Authenticated: it.Authenticated, Coverage: cov.Node(it.NodeID)})
	}
	return out
}

// NewReplayRow is the one constructor of a replay row: the CLI, native
// stores' replay and the report's case file all call it. text is the
// query's text.
func NewReplayRow(r replay.Row, text string, cov Coverage) ReplayRow {
	j := ReplayRow{Query: sanitize.Line(r.QueryID), Coverage: cov.Query(r.QueryID), Text: sanitize.Line(text), K: r.K, TopKG: NewReplayItems(r.G, cov), TopKAuth: NewReplayItems(r.GAuth, cov),
		Class: string(r.Class), IFCBlind: r.IFCBlind, Rank1Changed: r.Rank1Changed, Tie: r.TieDecided, Culprits: []string{}, CulpritDetail: []ReplayCulprit{}, Lemma1: []Lemma1{}, Immune: []Immune{}}
	if r.Err != nil {
		j.Error = sanitize.Line(r.Err.Error())
	}
	if r.Culprits != nil {
		j.CulpritsMinimal = r.Culprits.Minimal
		j.CulpritsMode = string(r.Culprits.Mode)
		j.CulpritsTimedOut = r.Culprits.OutOfTime
		for _, c := range r.Culprits.Set {
			j.Culprits = append(j.Culprits, sanitize.Line(c.EdgeID))
			j.CulpritDetail = append(j.CulpritDetail, ReplayCulprit{Edge: sanitize.Line(c.EdgeID), Src: sanitize.Line(c.Src), Dst: sanitize.Line(c.Dst), Weight: c.Weight,
				Rule: c.Label.Rule, RestoresAlone: c.Restores, ChangesAlone: string(c.Changes.Class)})
		}
	}
	if r.Recorded != nil {
		m := r.Recorded.Mismatch
		j.RecordedMismatch = &m
	}
	for _, t := range r.Targets {
		l := Lemma1{Node: sanitize.Line(t.NodeID), ResetMass: t.ResetMass, Floor: t.Floor, CaptureBound: t.CaptureBound, Seed: sanitize.Line(t.Seed), Evictable: t.Evictable, RankG: t.RankG + 1}
		if !math.IsNaN(t.Margin) {
			m := t.Margin
			l.Margin = &m
		}
		if e := t.Eviction; e != nil {
			l.Eviction = &Eviction{Found: e.Found, Weight: e.Weight, AnyPositive: e.AnyPositive, Seed: sanitize.Line(e.Seed), Sink: sanitize.Line(e.Sink), Max: replay.MaxProbeWeight}
		}
		j.Lemma1 = append(j.Lemma1, l)
	}
	for _, im := range r.Immune {
		j.Immune = append(j.Immune, Immune{Selector: im.Selector, Class: string(im.Class)})
	}
	return j
}

// NewAsRan describes a query replayed on the graph as it stood at cut.
func NewAsRan(row replay.Row, cut timeline.Cut, cov Coverage) *AsRan {
	j := &AsRan{Moment: cut.Desc, PlacedBy: string(cut.Placed), Class: string(row.Class), TopKG: NewReplayItems(row.G, cov), TopKAuth: NewReplayItems(row.GAuth, cov)}
	if row.Recorded != nil {
		m := row.Recorded.Mismatch
		j.RecordedMismatch = &m
	}
	return j
}

// NewWhatIf describes a what-if replay.
func NewWhatIf(w replay.WhatIf, cov Coverage) *WhatIf {
	removed := make([]string, len(w.Removed))
	for i, s := range w.Removed {
		removed[i] = sanitize.Line(s)
	}
	return &WhatIf{Removed: removed, TopK: NewReplayItems(w.Selection, cov), VsG: string(w.VsG.Class), VsGAuth: string(w.VsGAuth.Class)}
}
