package main

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"slices"
	"sort"
	"time"

	"github.com/memscope/memscope/internal/analyses/exposure"
	"github.com/memscope/memscope/internal/analyses/storediff"
	"github.com/memscope/memscope/internal/analyses/storereplay"
	"github.com/memscope/memscope/internal/analyses/storetimeline"
	"github.com/memscope/memscope/internal/assemble"
	"github.com/memscope/memscope/internal/assemble/exposurecase"
	"github.com/memscope/memscope/internal/present/finding"
	"github.com/memscope/memscope/internal/present/sanitize"
	stores "github.com/memscope/memscope/internal/readers"
	"github.com/memscope/memscope/internal/readers/storemodel"
	"github.com/memscope/memscope/internal/report"
	"github.com/memscope/memscope/replay"
)

// refuseNative answers a command a native store's format does not support
// with the registry's one-line reason (exit 2).
func refuseNative(path string, c storemodel.Command) (bool, error) {
	found, err := stores.Resolve(path)
	if err != nil {
		return false, nil
	}
	r, _ := stores.Lookup(found.Format)
	if ok, why := r.Supports(c); !ok {
		return true, usagef("%s: %s", c, why)
	}
	return false, nil
}

type jsonNativeTimeline struct {
	Store jsonStore `json:"store"`
	// Findings are the store's own (memscope verify STORE's): the exit
	// status follows them.
	Findings []finding.Finding `json:"findings"`
	storetimeline.Timeline
}

// runNativeTimeline prints a native store's own events in its own order
// and times (storetimeline), or says it records no time.
func runNativeTimeline(ctx context.Context, stdout io.Writer, path string, ef evidenceFlags, asJSON bool) (int, error) {
	st, err := openStore(ctx, path, "", ef)
	if err != nil {
		return exitUsage, err
	}
	tl := storetimeline.Build(st)
	// The store's own findings set the exit status of every command that
	// reads it, as a snapshot's unreadable rows do.
	fs := stores.Findings(st)
	status := exitFor(fs)
	out := jsonNativeTimeline{Store: describeStore(st), Findings: fs, Timeline: tl}
	if out.Events == nil {
		out.Events = []storetimeline.Event{}
	}
	if asJSON {
		return status, writeJSON(stdout, out)
	}
	writeStoreHeader(stdout, out.Store)
	writeFindingList(stdout, errorsOf(fs))
	fmt.Fprintf(stdout, "timeline: %s (times are the store's claims, unsigned)\n\n", tl.Order)
	for _, e := range tl.Events {
		when := e.UTC
		if when == "" {
			when = "-"
		}
		who := ""
		if e.Actor != "" {
			who = " by " + sanitize.Line(e.Actor)
		}
		fmt.Fprintf(stdout, "%6d  %-32s %-18s %s%s  %s\n", e.Order, when, sanitize.Line(e.Kind), sanitize.Line(previewOf(e.Subject)), who, previewOf(e.Text))
	}
	return status, nil
}

// errorsOf keeps the error-severity findings: the ones that set a
// command's exit status, shown in the text of the commands whose answer
// is not the findings themselves (the JSON holds them all).
func errorsOf(fs []finding.Finding) []finding.Finding {
	var out []finding.Finding
	for _, f := range fs {
		if f.Severity == finding.SevError {
			out = append(out, f)
		}
	}
	return out
}

// jsonSelection is one query's top-k on G in each copy.
type jsonSelection struct {
	Query string   `json:"query"`
	Then  []string `json:"then"`
	Now   []string `json:"now"`
	Same  bool     `json:"same"`
	Error string   `json:"error,omitempty"`
}

type jsonNativeDiff struct {
	A          jsonStore        `json:"a"`
	B          jsonStore        `json:"b"`
	Diff       storediff.Result `json:"diff"`
	Selections []jsonSelection  `json:"selections"`
	// StoreFindings are each copy's own error-severity findings
	// (memscope verify's), subjects prefixed "A: " or "B: ": a record
	// that could not be read is missing from the diff.
	StoreFindings []finding.Finding `json:"store_findings"`
}

// runNativeDiff compares two copies of one native store: memories added,
// changed and deleted, graph writes added and removed, and, with
// --queries, each query's selection then (A) and now (B).
func runNativeDiff(ctx context.Context, stdout io.Writer, a, b, queries string, ef evidenceFlags, asJSON bool) (int, error) {
	sa, err := openStore(ctx, a, "", ef)
	if err != nil {
		return exitUsage, err
	}
	sb, err := openStore(ctx, b, "", ef)
	if err != nil {
		return exitUsage, err
	}
	if ok, why := stores.Supports(sa, storemodel.CmdDiff); !ok {
		return exitUsage, usagef("diff: %s", why)
	}
	res, err := storediff.Diff(sa, sb)
	if err != nil {
		return exitUsage, usagef("%v", err)
	}
	out := jsonNativeDiff{A: describeStore(sa), B: describeStore(sb), Diff: res, Selections: []jsonSelection{}}
	if queries != "" {
		if out.Selections, err = selectionsThenNow(ctx, sa, sb, queries); err != nil {
			return exitUsage, err
		}
	}
	out.StoreFindings = []finding.Finding{}
	for _, side := range []struct {
		name string
		st   *storemodel.Store
	}{{"A", sa}, {"B", sb}} {
		for _, f := range errorsOf(stores.Findings(side.st)) {
			f.Subject = side.name + ": " + f.Subject
			out.StoreFindings = append(out.StoreFindings, f)
		}
	}
	// By subject: each side's together, A first ("A: " < "B: ").
	sort.SliceStable(out.StoreFindings, func(i, j int) bool { return out.StoreFindings[i].Subject < out.StoreFindings[j].Subject })
	status := max(exitFor(res.Findings), exitFor(out.StoreFindings))
	if asJSON {
		return status, writeJSON(stdout, out)
	}
	writeNativeDiff(stdout, out)
	writeFindingList(stdout, out.StoreFindings)
	return status, nil
}

// selectionsThenNow replays every query on G of each copy.
func selectionsThenNow(ctx context.Context, a, b *storemodel.Store, file string) ([]jsonSelection, error) {
	if ok, why := stores.Supports(a, storemodel.CmdReplay); !ok {
		return nil, usagef("--queries: %s", why)
	}
	top := func(st *storemodel.Store) (map[string][]string, map[string]string, []string, error) {
		g, pol, err := storereplay.Graph(st)
		if err != nil {
			return nil, nil, nil, err
		}
		rp, err := replay.NewReplayer(g, replay.Config{Policy: pol})
		if err != nil {
			return nil, nil, nil, err
		}
		qs, err := readStoreQueries(g, file)
		if err != nil {
			return nil, nil, nil, err
		}
		rows, err := rp.ReplayAll(ctx, qs, runtime.GOMAXPROCS(0))
		if err != nil {
			return nil, nil, nil, err
		}
		sel, errs, order := map[string][]string{}, map[string]string{}, []string{}
		for _, r := range rows {
			order = append(order, r.QueryID)
			if r.Err != nil {
				errs[r.QueryID] = r.Err.Error()
				continue
			}
			ids := []string{}
			for _, it := range r.G.Items {
				ids = append(ids, it.NodeID)
			}
			sel[r.QueryID] = ids
		}
		return sel, errs, order, nil
	}
	then, errA, order, err := top(a)
	if err != nil {
		return nil, fmt.Errorf("copy A: %w", err)
	}
	now, errB, _, err := top(b)
	if err != nil {
		return nil, fmt.Errorf("copy B: %w", err)
	}
	var out []jsonSelection
	for _, q := range order {
		s := jsonSelection{Query: q, Then: then[q], Now: now[q], Error: errA[q] + errB[q]}
		s.Same = s.Error == "" && slices.Equal(s.Then, s.Now)
		out = append(out, s)
	}
	return out, nil
}

func writeNativeDiff(w io.Writer, d jsonNativeDiff) {
	fmt.Fprintf(w, "A: ")
	writeStoreHeader(w, d.A)
	fmt.Fprintf(w, "B: ")
	writeStoreHeader(w, d.B)
	counts := map[string]int{}
	for _, m := range d.Diff.Memories {
		counts[m.Change]++
	}
	if len(d.Diff.Memories) > 0 || len(d.A.Files) > 0 && d.A.Versions > 0 {
		fmt.Fprintf(w, "memories: %d added, %d changed, %d deleted, %d removed from history\n", counts[storediff.Added]+counts[storediff.Added+", then "+storediff.Deleted], counts[storediff.Changed], counts[storediff.Deleted], counts[storediff.Removed])
		for _, m := range d.Diff.Memories {
			fmt.Fprintf(w, "  %-22s %s  %s -> %s\n", m.Change, sanitize.Line(m.Memory), previewOf(m.Before), previewOf(m.After))
		}
	}
	if d.A.Vectors+d.B.Vectors > 0 {
		vc := map[string]int{}
		for _, m := range d.Diff.Vectors {
			vc[m.Change]++
		}
		fmt.Fprintf(w, "vector store points: %d added, %d changed, %d removed\n", vc[storediff.Added], vc[storediff.Changed], vc[storediff.Removed])
		for _, m := range d.Diff.Vectors {
			fmt.Fprintf(w, "  %-22s %s  %s -> %s\n", m.Change, sanitize.Line(m.Memory), previewOf(m.Before), previewOf(m.After))
		}
	}
	ec := map[string]int{}
	for _, e := range d.Diff.Edges {
		ec[e.Change]++
	}
	fmt.Fprintf(w, "graph writes: %d added, %d removed, %d reweighted; nodes: %d added, %d removed\n", ec[storediff.Added], ec[storediff.Removed], ec[storediff.Reweigh], len(d.Diff.NodesAdded), len(d.Diff.NodesRemoved))
	for _, e := range d.Diff.Edges {
		src := ""
		if e.NoSource {
			src = "  NO SOURCE"
		}
		fmt.Fprintf(w, "  %-10s %s (%g -> %g)%s\n", e.Change, sanitize.Line(previewOf(e.Edge)), e.WeightA, e.WeightB, src)
	}
	for _, s := range d.Selections {
		state := "same"
		if !s.Same {
			state = "CHANGED"
		}
		fmt.Fprintf(w, "selection %s: %s  then %v  now %v %s\n", sanitize.Line(s.Query), state, sanitizeAll(s.Then), sanitizeAll(s.Now), sanitize.Line(s.Error))
	}
	fmt.Fprintln(w)
	writeFindingList(w, d.Diff.Findings)
}

// runNativeExposure is exposure on a native graph store under the user's
// --queries: S_adv by Monte Carlo over bounded no-source writes, every
// selector (Leiden among them) and EquiMem's triage of the store's own
// edges (exposurecase.BuildNative).
func runNativeExposure(ctx context.Context, stdout, stderr io.Writer, path string, nq nativeQueries, ef evidenceFlags, opt exposure.Options, k int, asJSON bool, eqSort string, eqRev bool) (int, error) {
	st, err := openStore(ctx, path, "", ef)
	if err != nil {
		return exitUsage, err
	}
	if ok, why := stores.Supports(st, storemodel.CmdExposure); !ok {
		return exitUsage, usagef("exposure: %s", why)
	}
	if !nq.given() {
		return exitUsage, usagef("exposure: %s stores keep no queries, and exposure is measured per query: give them with --queries FILE (docs/STORES.md)", st.Format)
	}
	g, pol, err := storereplay.Graph(st)
	if err != nil {
		return exitUsage, err
	}
	rp, err := replay.NewReplayer(g, replay.Config{Policy: pol, Culprits: true, K: k})
	if err != nil {
		return exitUsage, err
	}
	qs, err := nq.load(ctx, path, st, g)
	if err != nil {
		return exitUsage, err
	}
	ended := phase(stderr, "exposure", "exposure")
	ex, err := exposurecase.BuildNative(ctx, st, rp, qs, opt)
	ended(err)
	if err != nil {
		return exitUsage, usagef("%v", err)
	}
	out := jsonExposure{Snapshot: st.Root, Exposure: ex.JSON(func(string) string { return assemble.LabelUserInput })}
	fs := stores.Findings(st)
	status := exitFor(fs)
	if asJSON {
		return status, writeJSON(stdout, struct {
			Store    jsonStore         `json:"store"`
			Findings []finding.Finding `json:"findings"`
			jsonExposure
		}{describeStore(st), fs, out})
	}
	writeStoreHeader(stdout, describeStore(st))
	writeFindingList(stdout, errorsOf(fs))
	writeExposure(stdout, out, ex, eqSort, eqRev)
	fmt.Fprintf(stdout, "\nnote: %s; \"authenticated\" above means sources declared by the store's own fields (the %s policy), never verified\n", storemodel.Unsigned, storereplay.PolicyName)
	return status, nil
}

// runNativeReport writes the report on a native store: one self-contained
// HTML page, unsigned throughout (report.BuildNative).
func runNativeReport(ctx context.Context, stdout io.Writer, path, out, title string, now time.Time, nq nativeQueries, ef evidenceFlags, args []string) (int, error) {
	st, err := openStore(ctx, path, "", ef)
	if err != nil {
		return exitUsage, err
	}
	qs, err := nq.loadFor(ctx, path, st)
	if err != nil {
		return exitUsage, err
	}
	if title == "" {
		title = defaultTitle(path)
	}
	c, err := report.BuildNative(ctx, st, report.NativeOptions{Title: title, Version: toolVersion(), Command: append([]string{"memscope", "report"}, args...), Now: now, Queries: qs})
	if err != nil {
		return exitUsage, err
	}
	if err := report.NativeFile(c, out); err != nil {
		return exitUsage, err
	}
	fmt.Fprintf(stdout, "wrote %s: unsigned %s store, %d error(s), %d warning(s)\n", sanitize.Line(out), st.Format, c.Errors, c.Warnings)
	if c.Errors > 0 {
		return exitFindings, nil
	}
	return exitOK, nil
}
