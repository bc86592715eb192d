package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/memscope/memscope/internal/analyses/equimem"
	"github.com/memscope/memscope/internal/analyses/exposure"
	"github.com/memscope/memscope/internal/analyses/smsr"
	"github.com/memscope/memscope/internal/assemble"
	"github.com/memscope/memscope/internal/assemble/exposurecase"
	"github.com/memscope/memscope/internal/present/jsonout"
	"github.com/memscope/memscope/verify"
)

const exposureUsage = "memscope exposure SNAPSHOT --log DIR|URL [anchors] [--seed 1] [--draws 1000] [--edges 3] [--clean-weight 2] [--heavy-weight 60] [--curve-draws 20] [--curve-max 16] [--selectors ppr,leiden,...] [--leiden auto|full|incremental] [--k 5] [--equimem-sort rho|label|write] [--equimem-reverse] [--json]\n       memscope exposure STORE [--queries FILE | --query-embeddings FILE] [the same flags]"

// jsonExposure is `memscope exposure --json`: the snapshot it read and
// jsonout's one exposure shape, which the report's case file also writes.
type jsonExposure struct {
	Snapshot string `json:"snapshot"`
	jsonout.Exposure
}

func runExposure(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	fs := newFlagSet("exposure", exposureUsage, stderr)
	var ef evidenceFlags
	ef.register(fs)
	seed := fs.Uint64("seed", 1, "Monte Carlo seed")
	draws := fs.Int("draws", 1000, "Monte Carlo draws per query and budget")
	edges := fs.Int("edges", 3, "no-source edges per bounded write")
	clean := fs.Float64("clean-weight", 2, "clean budget: each edge weighs uniformly in [1, this]")
	heavy := fs.Float64("heavy-weight", 60, "heavy budget: each edge's weight")
	curveDraws := fs.Int("curve-draws", 20, "write sequences per query for the harm-vs-writes curve (0: none)")
	curveMax := fs.Int("curve-max", 16, "the curve runs to this many accumulated writes")
	leidenMode := fs.String("leiden", exposure.LeidenAuto, "Leiden draws: full (the whole algorithm on each written graph), incremental (local moving from the writes only, an approximation) or auto (full up to "+fmt.Sprint(exposure.LeidenFullMaxNodes)+" nodes)")
	sel := fs.String("selectors", "", "comma-separated subset of "+strings.Join(exposure.SelectorNames, ","))
	k := fs.Int("k", 0, "top-k (default: each query's recorded k, else 5)")
	eqSort := fs.String("equimem-sort", equimem.SortRho, "order of the EquiMem list in the text output: rho (lowest rho_detect first, triage order), label (culprits, unauthenticated, authenticated) or write (write id); --json keeps store order with triage_rank")
	eqRev := fs.Bool("equimem-reverse", false, "reverse the EquiMem list's order")
	asJSON := fs.Bool("json", false, "print JSON")
	var nq nativeQueries
	nq.register(fs)
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return exitUsage, nil
	}
	if len(pos) != 1 {
		return exitUsage, usagef("want exactly one SNAPSHOT or STORE; usage: %s", exposureUsage)
	}
	native, err := nativeOrSnapshot("exposure", pos[0])
	if err != nil {
		return exitUsage, err
	}
	if ef.log == "" && !native {
		return exitUsage, usagef("--log is required: edge provenance comes from verifying the writes; usage: %s", exposureUsage)
	}
	opt := exposure.Options{Seed: *seed, Draws: *draws, Edges: *edges, CleanWeight: *clean, HeavyWeight: *heavy, CurveDraws: *curveDraws, CurveMax: *curveMax, LeidenMode: *leidenMode}
	if *curveDraws == 0 {
		opt.CurveDraws = -1
	}
	if *draws == 0 {
		return exitUsage, usagef("--draws must be positive")
	}
	if !slices.Contains(equimem.Sorts, *eqSort) {
		return exitUsage, usagef("--equimem-sort %q: want one of %s", *eqSort, strings.Join(equimem.Sorts, ", "))
	}
	if *sel != "" {
		opt.Selectors = strings.Split(*sel, ",")
	}
	if native {
		return runNativeExposure(ctx, stdout, stderr, pos[0], nq, ef, opt, *k, *asJSON, *eqSort, *eqRev)
	}
	s, err := ef.open(ctx, pos[0], assemble.Options{K: *k})
	if err != nil {
		return exitUsage, err
	}
	defer s.Close()
	ended := phase(stderr, "exposure", "exposure")
	ex, err := exposurecase.Build(ctx, s, opt)
	ended(err)
	if err != nil {
		return exitUsage, usagef("%v", err)
	}
	out := jsonExposure{Snapshot: pos[0], Exposure: ex.JSON(func(id string) string { return s.Coverage(verify.TableQueries, id) })}
	// The findings exposure reports are the MWP audit's; rows it could
	// not read are warned about and make it exit 1 too (warnLoadIssues).
	code := warnLoadIssues(stderr, s, exitFor(ex.MWP.Findings))
	if *asJSON {
		return code, writeJSON(stdout, out)
	}
	writeExposure(stdout, out, ex, *eqSort, *eqRev)
	return code, nil
}

func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// maxEquiMemText bounds the EquiMem list in the text output (--json lists
// every write).
const maxEquiMemText = 20

func writeExposure(w io.Writer, out jsonExposure, ex *exposurecase.Exposure, eqSort string, eqRev bool) {
	res := ex.Result
	b := out.Budget
	fmt.Fprintf(w, "exposure of %s to bounded no-source writes (%d edges from a query's seed entities to one wrong passage; clean: weight 1..%g, heavy: %g; %d draws per query and budget, seed %d)\n\n",
		clip(out.Snapshot, 60), b.Edges, b.CleanWeight, b.HeavyWeight, b.Draws, b.Seed)
	fmt.Fprintf(w, "%-14s %-8s %-7s %-7s %-9s %s\n", "SELECTOR", "EXPOSED", "S_DOM", "S_ADV", "S_ADV(W<="+fmt.Sprint(b.CleanWeight)+")", "CLASSES G vs G_auth")
	for _, s := range res.Selectors {
		exp := "no"
		if s.Exposed {
			exp = "YES"
		}
		var classes []string
		for _, q := range s.Queries {
			classes = append(classes, fmt.Sprintf("%s=%s", q.Query, q.Class))
		}
		sdom := "n/a"
		if s.SDomQueries > 0 {
			sdom = fmt.Sprintf("%.3f", s.SDom)
		}
		fmt.Fprintf(w, "%-14s %-8s %-7s %-7.3f %-9.3f %s\n", s.Name, exp, sdom, s.SAdv, s.SAdvClean, clip(strings.Join(classes, " "), 80))
	}
	for _, s := range res.Selectors {
		if !s.Structural || len(s.Curve) == 0 {
			continue
		}
		if slices.Max(s.Curve) == 0 {
			fmt.Fprintf(w, "\n%s: no selection changed at any number of writes up to %d\n", s.Name, len(s.Curve))
			continue
		}
		fmt.Fprintf(w, "\n%s: share of selections changed after n accumulated clean-budget writes\n", s.Name)
		writeCurve(w, s.Curve)
	}
	fmt.Fprintln(w, "\nqueries, most exposed first (PPR targets: anchored = teleport floor above the capture bound)")
	ppr, hasPPR := res.Selector(exposure.PPR)
	for _, id := range res.Ranked {
		fmt.Fprintf(w, "  %s%s\n", clip(id, 60), bracket(out.QueryCoverage[id]))
		if !hasPPR {
			continue
		}
		for _, q := range ppr.Queries {
			if q.Query != id {
				continue
			}
			for _, t := range q.Targets {
				kind := "low-floor"
				if t.Anchored {
					kind = "anchored"
				}
				fmt.Fprintf(w, "    %-36s %-9s floor %.4f  evicted in %.0f%% of heavy draws\n", clip(t.Node, 36), kind, t.Floor, 100*t.Evicted)
			}
		}
	}
	writeFirstFlips(w, ex)
	if out.SMSR != nil {
		c := out.SMSR
		fmt.Fprintf(w, "\nSMSR certificate for the store: m=%d k=%d n=%d t=%d delta=%.4f (%s)\n", c.M, c.K, c.N, c.T, c.Delta, c.Basis)
		// The Figure 3 curves for n = 5, at most a dozen bars each.
		for _, cv := range []struct {
			label string
			pts   []jsonout.SMSRPoint
		}{{"t", c.DeltaVsT["5"]}, {"m", c.DeltaVsM["5"]}} {
			fmt.Fprintf(w, "  delta against %s (n=5):\n", cv.label)
			step := max(1, (len(cv.pts)+11)/12)
			var ps []smsr.Point
			for i := 0; i < len(cv.pts); i += step {
				ps = append(ps, smsr.Point{X: cv.pts[i].X, Delta: cv.pts[i].Delta})
			}
			writeBars(w, ps, cv.label)
		}
	}
	if e := out.EquiMem; e != nil {
		fmt.Fprintf(w, "\nEquiMem rho_detect over %d structural writes (depth %d): triage's top decile (%d lowest) holds %d of %d replay culprits and %d of %d unauthenticated writes\n",
			len(e.Writes), e.Depth, e.TopDecile, e.CulpritsInTopDecile, e.Culprits, e.UnauthInTopDecile, e.Unauthenticated)
		fmt.Fprintf(w, "  caveat: %s\n", e.Caveat)
		rows := slices.Clone(e.Writes)
		equimem.Sort(rows, eqSort, eqRev, func(x jsonout.EquiMemWrite) equimem.Key {
			return equimem.Key{Rank: x.Rank, Authenticated: x.Authenticated, Culprit: x.Culprit, Write: x.Write}
		})
		order := equimem.SortName(eqSort)
		if eqRev {
			order += ", reversed"
		}
		fmt.Fprintf(w, "  sorted by %s (--equimem-sort rho|label|write, --equimem-reverse)\n", order)
		fmt.Fprintf(w, "  %4s %-36s %6s %6s %6s %6s  %s\n", "RANK", "WRITE", "RHO", "LOCAL", "PATH", "ALPHA", "PROVENANCE")
		for i, x := range rows {
			if i == maxEquiMemText {
				fmt.Fprintf(w, "  ... %d more writes (--json lists every score)\n", len(rows)-i)
				break
			}
			fmt.Fprintf(w, "  %4d %-36s %6.3f %6.2f %6.2f %6.2f  %s\n", x.Rank, clip(x.Write, 36), x.Rho, x.SLocal, x.SPath, x.Alpha, equimem.Label(x.Authenticated, x.Culprit))
		}
	}
	if m := out.MWP; m != nil {
		fmt.Fprintf(w, "\nMWP non-formation audit: %d rejected, %d accepted candidates\n", m.Rejected, m.Accepted)
		for _, c := range m.Checks {
			fmt.Fprintf(w, "  %-15s %-14s %d finding(s)  %s\n", c.Name, c.Status, c.Findings, clip(c.Detail, 90))
		}
		for _, f := range m.Findings {
			fmt.Fprintf(w, "  %s %s  %s: %s\n", f.Severity, f.Code, clip(f.Subject, 40), clip(f.Message, 120))
		}
	}
	fmt.Fprintln(w)
	for _, n := range out.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
}

// writeCurve draws a curve of shares in [0, 1] as one bar per point.
func writeCurve(w io.Writer, c []float64) {
	const width = 40
	for i, v := range c {
		n := int(math.Round(v * width))
		fmt.Fprintf(w, "  %2d |%-*s| %.2f\n", i+1, width, strings.Repeat("#", n), v)
	}
}

// writeFirstFlips lists the queries by how soon accumulated clean-budget
// writes flip their selection, with the recorded actions each flip reaches.
func writeFirstFlips(w io.Writer, ex *exposurecase.Exposure) {
	flips := ex.FirstFlips()
	if len(flips) == 0 {
		return
	}
	cm := ex.Result.Options.CurveMax
	fmt.Fprintf(w, "\nfirst flip, soonest first: the median number of accumulated clean-budget writes at which a query's selection first changed (over %d write sequences; >%d: fewer than half changed within %d), the share of sequences that changed it at all, and the recorded actions that followed the query (what a flip reaches)\n",
		ex.Result.Options.CurveDraws, cm, cm)
	fmt.Fprintf(w, "  %-32s %-14s %-14s %s\n", "QUERY", "PPR", "LEIDEN", "ACTIONS (DISPATCHED)")
	at := func(n int, share float64, ran bool) string {
		if !ran {
			return "not checked"
		}
		if n == 0 {
			return fmt.Sprintf(">%d (%.0f%%)", cm, 100*share)
		}
		return fmt.Sprintf("%d (%.0f%%)", n, 100*share)
	}
	for _, f := range flips {
		fmt.Fprintf(w, "  %-32s %-14s %-14s %d (%d)\n", clip(f.Query, 32), at(f.PPR, f.PPRFlipped, f.PPRRan), at(f.Leiden, f.LeidenFlipped, f.LeidenRan), f.Reach.Actions, f.Reach.Dispatched)
	}
}
