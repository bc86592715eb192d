package main

import (
	"context"
	"fmt"
	"github.com/memscope/memscope/idform"
	"io"
	"runtime"
	"strings"

	"github.com/memscope/memscope/diff"
	"github.com/memscope/memscope/inspect"
	"github.com/memscope/memscope/replay"
	"github.com/memscope/memscope/sanitize"
)

const replayUsage = "memscope replay SNAPSHOT --log DIR|URL [anchors] [--query ID] [--k 5] [--damping 0.5] [--policy NAME] [--without EDGE,...] [--restore EDGE,...] [--labels] [--json]"

// jsonItem is one selected passage in --json output (rank is 1-based).
type jsonItem struct {
	Node          string  `json:"node"`
	Score         float64 `json:"score"`
	Rank          int     `json:"rank"`
	Authenticated bool    `json:"authenticated"`
}

type jsonCulprit struct {
	Edge          string  `json:"edge"`
	Src           string  `json:"src"`
	Dst           string  `json:"dst"`
	Weight        float64 `json:"weight"`
	Rule          string  `json:"rule"`
	RestoresAlone bool    `json:"restores_alone"`
	ChangesAlone  string  `json:"class_without_alone"`
}

type jsonLemma struct {
	Node         string  `json:"node"`
	ResetMass    float64 `json:"reset_mass"`
	Floor        float64 `json:"teleport_floor"`
	CaptureBound float64 `json:"capture_bound"`
	Evictable    bool    `json:"evictable"`
}

type jsonImmune struct {
	Selector string `json:"selector"`
	Class    string `json:"class"`
}

type jsonWhatIf struct {
	Removed []string   `json:"removed"`
	TopK    []jsonItem `json:"topk"`
	VsG     string     `json:"class_vs_g"`
	VsGAuth string     `json:"class_vs_auth"`
}

type jsonRow struct {
	Query            string        `json:"query"`
	Text             string        `json:"text"`
	K                int           `json:"k"`
	TopKG            []jsonItem    `json:"topk_g"`
	TopKAuth         []jsonItem    `json:"topk_auth"`
	Class            string        `json:"class"`
	IFCBlind         bool          `json:"ifc_blind"`
	Tie              bool          `json:"tie"`
	Culprits         []string      `json:"culprits"`
	CulpritDetail    []jsonCulprit `json:"culprit_detail"`
	CulpritsMinimal  bool          `json:"culprits_minimal"`
	RecordedMismatch *bool         `json:"recorded_mismatch,omitempty"`
	Lemma1           []jsonLemma   `json:"lemma1"`
	Immune           []jsonImmune  `json:"immune"`
	WhatIf           *jsonWhatIf   `json:"what_if,omitempty"`
}

func items(sel replay.Selection) []jsonItem {
	out := make([]jsonItem, 0, len(sel.Items))
	for _, it := range sel.Items {
		out = append(out, jsonItem{Node: sanitize.Line(it.NodeID), Score: it.Score, Rank: it.Rank + 1, Authenticated: it.Authenticated})
	}
	return out
}

func toJSONRow(r replay.Row, text string) jsonRow {
	j := jsonRow{Query: sanitize.Line(r.QueryID), Text: sanitize.Line(text), K: r.K, TopKG: items(r.G), TopKAuth: items(r.GAuth),
		Class: string(r.Class), IFCBlind: r.IFCBlind, Tie: r.TieDecided, Culprits: []string{}, CulpritDetail: []jsonCulprit{}, Lemma1: []jsonLemma{}, Immune: []jsonImmune{}}
	if r.Culprits != nil {
		j.CulpritsMinimal = r.Culprits.Minimal
		for _, c := range r.Culprits.Set {
			j.Culprits = append(j.Culprits, c.EdgeID)
			j.CulpritDetail = append(j.CulpritDetail, jsonCulprit{Edge: c.EdgeID, Src: sanitize.Line(c.Src), Dst: sanitize.Line(c.Dst), Weight: c.Weight,
				Rule: c.Label.Rule, RestoresAlone: c.Restores, ChangesAlone: string(c.Changes.Class)})
		}
	}
	if r.Recorded != nil {
		m := r.Recorded.Mismatch
		j.RecordedMismatch = &m
	}
	for _, t := range r.Targets {
		j.Lemma1 = append(j.Lemma1, jsonLemma{Node: sanitize.Line(t.NodeID), ResetMass: t.ResetMass, Floor: t.Floor, CaptureBound: t.CaptureBound, Evictable: t.Evictable})
	}
	for _, im := range r.Immune {
		j.Immune = append(j.Immune, jsonImmune{Selector: im.Selector, Class: string(im.Class)})
	}
	return j
}

func runReplay(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	fs := newFlagSet("replay", replayUsage, stderr)
	var ef evidenceFlags
	ef.register(fs)
	queryID := fs.String("query", "", "show one query in full")
	k := fs.Int("k", 0, "top-k (default: each query's recorded k, else 5)")
	damping := fs.Float64("damping", 0.5, "PPR damping (probability of following an edge)")
	policy := fs.String("policy", "", "edge label policy: "+strings.Join(replay.PolicyNames(), ", ")+" (default "+replay.PolicyDefault+")")
	without := fs.String("without", "", "what-if: replay on G with these edge ids removed (comma-separated)")
	restore := fs.String("restore", "", "what-if: replay on G_auth with these unauthenticated edge ids put back (comma-separated)")
	labels := fs.Bool("labels", false, "list every structural write with its label and the rule that decided it")
	asJSON := fs.Bool("json", false, "print JSON")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return exitUsage, nil
	}
	if len(pos) != 1 {
		return exitUsage, usagef("want exactly one SNAPSHOT; usage: %s", replayUsage)
	}
	if ef.log == "" {
		return exitUsage, usagef("--log is required: edge provenance comes from verifying the writes; usage: %s", replayUsage)
	}
	s, err := ef.open(ctx, pos[0], inspect.Options{K: *k, Damping: *damping, ReplayPolicy: *policy})
	if err != nil {
		return exitUsage, err
	}
	defer s.Close()
	rp, err := s.Replayer(ctx)
	if err != nil {
		return exitUsage, err
	}
	if *labels {
		return exitOK, writeLabels(stdout, rp, *asJSON)
	}
	if *without != "" && *restore != "" {
		return exitUsage, usagef("--without starts from G and --restore from G_auth: give one of them")
	}
	qs := s.ReplayQueries()
	if *queryID != "" {
		id, err := idform.Resolve(queryIDs(s), *queryID)
		if err != nil {
			return exitUsage, usagef("--query: %v in %s", err, pos[0])
		}
		q, _ := s.Query(id)
		qs = []replay.Query{q}
	}
	rows, err := rp.ReplayAll(qs, runtime.GOMAXPROCS(0))
	if err != nil {
		return exitUsage, err
	}
	var removed, restored []string
	if *without != "" {
		if removed, err = resolveAll(writeIDs(s), strings.Split(*without, ",")); err != nil {
			return exitUsage, usagef("--without: %v", err)
		}
	}
	if *restore != "" {
		if restored, err = resolveAll(writeIDs(s), strings.Split(*restore, ",")); err != nil {
			return exitUsage, usagef("--restore: %v", err)
		}
	}
	out := make([]jsonRow, len(rows))
	for i, r := range rows {
		out[i] = toJSONRow(r, qs[i].Text)
		if removed != nil || restored != nil {
			base := replay.BaseG
			if restored != nil {
				base = replay.BaseGAuth
			}
			w, err := rp.WhatIf(qs[i], base, removed, restored)
			if err != nil {
				return exitUsage, err
			}
			out[i].WhatIf = &jsonWhatIf{Removed: w.Removed, TopK: items(w.Selection), VsG: string(w.VsG.Class), VsGAuth: string(w.VsGAuth.Class)}
		}
	}
	if *asJSON {
		return exitOK, writeJSON(stdout, out)
	}
	if *queryID == "" {
		writeReplayTable(stdout, out)
	}
	if *queryID != "" || removed != nil || restored != nil {
		for i, r := range rows {
			writeReplayDetail(stdout, r, out[i])
		}
	}
	return exitOK, nil
}

func writeReplayTable(w io.Writer, rows []jsonRow) {
	fmt.Fprintf(w, "%-16s %-8s %-9s %-4s %-8s %s\n", "QUERY", "CLASS", "IFC-BLIND", "TIE", "CULPRITS", "TEXT")
	for _, r := range rows {
		blind, tie := "-", "-"
		if r.IFCBlind {
			blind = "YES"
		}
		if r.Tie {
			tie = "tie"
		}
		fmt.Fprintf(w, "%-16s %-8s %-9s %-4s %-8d %s\n", r.Query, r.Class, blind, tie, len(r.Culprits), r.Text)
	}
}

func writeReplayDetail(w io.Writer, r replay.Row, j jsonRow) {
	fmt.Fprintf(w, "\nquery %s: %s\n", j.Query, j.Text)
	fmt.Fprintf(w, "class %s", j.Class)
	if j.IFCBlind {
		fmt.Fprint(w, ", IFC-blind: every passage selected on G is authenticated, yet unauthenticated structure changed the set")
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "\n  %-4s %-34s %-10s | %-34s %-10s %s\n", "RANK", "G_auth (authenticated writes only)", "SCORE", "G (every write)", "SCORE", "CHANGE")
	for i := 0; i < max(len(j.TopKG), len(j.TopKAuth)); i++ {
		var a, g jsonItem
		if i < len(j.TopKAuth) {
			a = j.TopKAuth[i]
		}
		if i < len(j.TopKG) {
			g = j.TopKG[i]
		}
		change := ""
		if i < len(r.G.Items) {
			change = changeOf(r.Changes, r.G.Items[i].NodeID)
		}
		fmt.Fprintf(w, "  %-4d %-34s %-10.6f | %-34s %-10.6f %s\n", i+1, clip(a.Node, 34), a.Score, clip(g.Node, 34), g.Score, change)
	}
	if len(j.Culprits) > 0 {
		fmt.Fprintf(w, "\nculprits (removing all of them restores the G_auth selection; 1-minimal: %v):\n", j.CulpritsMinimal)
		for _, c := range j.CulpritDetail {
			fmt.Fprintf(w, "  %s  %s -> %s  weight %g  (%s; removing it alone: %s)\n", c.Edge, c.Src, c.Dst, c.Weight, c.Rule, c.ChangesAlone)
		}
	}
	if len(j.Lemma1) > 0 {
		fmt.Fprintln(w, "\nLemma 1 (teleport floor vs one-hop capture bound):")
		for _, t := range j.Lemma1 {
			ev := "safe"
			if t.Evictable {
				ev = "EVICTABLE"
			}
			fmt.Fprintf(w, "  %-34s floor %.4f  bound %.4f  %s\n", clip(t.Node, 34), t.Floor, t.CaptureBound, ev)
		}
	}
	for _, im := range j.Immune {
		fmt.Fprintf(w, "\nimmune selector %s: %s on G vs G_auth\n", im.Selector, im.Class)
	}
	if j.WhatIf != nil {
		fmt.Fprintf(w, "\nwhat-if (edges absent: %s): vs G %s, vs G_auth %s\n", strings.Join(j.WhatIf.Removed, ","), j.WhatIf.VsG, j.WhatIf.VsGAuth)
		for _, it := range j.WhatIf.TopK {
			fmt.Fprintf(w, "  %-4d %-34s %.6f\n", it.Rank, clip(it.Node, 34), it.Score)
		}
	}
}

// changeOf describes how an item selected on G moved relative to G_auth.
func changeOf(res diff.Result, node string) string {
	for _, c := range res.Items {
		if c.ID == node {
			return c.Change.Arrow() + " " + string(c.Change)
		}
	}
	return ""
}

func clip(s string, n int) string {
	s = sanitize.Line(s)
	if len(s) <= n {
		return s
	}
	return s[:n-1] + "~"
}

type jsonLabel struct {
	Edge          string  `json:"edge"`
	Src           string  `json:"src"`
	Dst           string  `json:"dst"`
	Weight        float64 `json:"weight"`
	Writer        string  `json:"writer"`
	Sources       int     `json:"sources"`
	Authenticated bool    `json:"authenticated"`
	Rule          string  `json:"rule"`
	Declared      bool    `json:"declared"`
}

// writeLabels lists each write's label under the replayer's policy, with
// the rule that decided it; importer-declared labels say "declared".
func writeLabels(w io.Writer, rp *replay.Replayer, asJSON bool) error {
	edges, labels := rp.Graph().Edges(), rp.Labels()
	out := make([]jsonLabel, len(edges))
	for i, e := range edges {
		out[i] = jsonLabel{Edge: e.ID, Src: sanitize.Line(e.Src), Dst: sanitize.Line(e.Dst), Weight: e.Weight, Writer: sanitize.Line(e.Prov.Writer),
			Sources: len(e.Prov.Sources), Authenticated: labels[i].Authenticated, Rule: labels[i].Rule, Declared: labels[i].Declared}
	}
	if asJSON {
		return writeJSON(w, out)
	}
	fmt.Fprintf(w, "%-36s %-15s %-8s %s\n", "EDGE", "LABEL", "WEIGHT", "RULE / WRITER / ENDPOINTS")
	for _, l := range out {
		label := "authenticated"
		if !l.Authenticated {
			label = "UNAUTH"
		}
		if l.Declared {
			label += " (declared)"
		}
		fmt.Fprintf(w, "%-36s %-15s %-8g %s; %s; %s -> %s\n", l.Edge, label, l.Weight, l.Rule, l.Writer, l.Src, l.Dst)
	}
	return nil
}
