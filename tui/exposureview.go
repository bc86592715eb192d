package tui

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/memscope/memscope/internal/analyses/equimem"
	"github.com/memscope/memscope/internal/analyses/exposure"
	"github.com/memscope/memscope/internal/analyses/smsr"
	"github.com/memscope/memscope/internal/present/jsonout"
)

// ExposureSource is a Source that can estimate how open the memory is to
// the selection channel (package exposure). Optional: without it the
// Exposure view says so.
type ExposureSource interface {
	// Exposure runs the estimate over every stored query. Slow (Monte
	// Carlo over bounded writes).
	Exposure(ctx context.Context) (*exposure.Result, error)
}

// ExposureExtrasSource adds the other papers' results to the Exposure
// view: SMSR's certificate for the store with its curves, and EquiMem's
// triage of the structural writes. Optional; asked after Exposure.
type ExposureExtrasSource interface {
	ExposureExtras(ctx context.Context) (*ExposureExtras, error)
}

// ExposureExtras is what the view shows beside the selectors.
type ExposureExtras struct {
	SMSR      *smsr.Summary // nil when the store was not verified
	SMSRBasis string
	// EquiMem lists structural writes (the view sorts them: triage order,
	// lowest rho first, unless the Sort key picks another).
	EquiMem        []EquiMemRow
	EquiMemSummary string
	EquiMemCaveat  string
	// MWP is the mediated-write-path audit memscope exposure prints (nil:
	// not run).
	MWP *jsonout.MWP
}

// EquiMemRow is one structural write's rho_detect beside its provenance
// label. Write, Writer and Rel come from the evidence.
type EquiMemRow struct {
	Rank               int
	Write, Writer, Rel string
	Rho, SLocal, SPath float64
	Authenticated      bool
	Culprit            bool
}

type exposureState struct {
	res     *exposure.Result
	extras  *ExposureExtras
	loading bool
	err     error
	// sortKey indexes equimem.Sorts (the Sort key cycles it,
	// Reverse flips desc); sorted is the EquiMem list in that order.
	sortKey int
	desc    bool
	sorted  []EquiMemRow
}

type exposureMsg struct {
	res    *exposure.Result
	extras *ExposureExtras
	err    error
}

func (m *Model) activateExposure() tea.Cmd {
	es, ok := m.src.(ExposureSource)
	if !ok || m.exp.res != nil || m.exp.loading || m.exp.err != nil {
		return nil
	}
	m.exp.loading = true
	ctx := m.ctx
	xs, _ := m.src.(ExposureExtrasSource)
	return tea.Batch(func() tea.Msg {
		res, err := es.Exposure(ctx)
		msg := exposureMsg{res: res, err: err}
		if err == nil && xs != nil {
			// The extras are secondary: without them the view still shows
			// the selectors.
			msg.extras, _ = xs.ExposureExtras(ctx)
		}
		return msg
	}, m.startTick())
}

func (m *Model) onExposureMsg(msg exposureMsg) tea.Cmd {
	m.exp.loading, m.exp.res, m.exp.extras, m.exp.err = false, msg.res, msg.extras, msg.err
	m.exp.resort()
	return nil
}

// exposureKey: the Sort key cycles the EquiMem list through rho_detect,
// provenance label and write id; Reverse flips it.
func (m *Model) exposureKey(msg tea.KeyPressMsg) tea.Cmd {
	k, e := m.keys, &m.exp
	switch {
	case key.Matches(msg, k.Sort):
		e.sortKey = (e.sortKey + 1) % len(equimem.Sorts)
	case key.Matches(msg, k.Reverse):
		e.desc = !e.desc
	default:
		return m.unused()
	}
	e.resort()
	if e.extras == nil || len(e.extras.EquiMem) == 0 {
		m.setStatus("no EquiMem list to sort")
		return nil
	}
	m.setStatus("EquiMem sorted by %s%s", equimem.SortName(equimem.Sorts[e.sortKey]), map[bool]string{true: ", reversed"}[e.desc])
	return nil
}

// resort orders the EquiMem list by the current key.
func (e *exposureState) resort() {
	if e.extras == nil {
		e.sorted = nil
		return
	}
	e.sorted = slices.Clone(e.extras.EquiMem)
	equimem.Sort(e.sorted, equimem.Sorts[e.sortKey], e.desc, func(r EquiMemRow) equimem.Key {
		return equimem.Key{Rank: r.Rank, Authenticated: r.Authenticated, Culprit: r.Culprit, Write: r.Write}
	})
}

// maxEquiMemLines bounds the triage table in the view.
const maxEquiMemLines = 20

// renderExtras draws SMSR's certificate with its curves (delta against t
// and m, n = 5) and EquiMem's triage table.
func (m *Model) renderExtras(x *ExposureExtras, w int) []string {
	var lines []string
	if c := x.SMSR; c != nil {
		lines = append(lines, "", fmt.Sprintf("SMSR certificate for the store: delta %.4f at m=%d k=%d n=%d t=%d (%s)", c.Delta, c.M, c.K, c.N, c.T, x.SMSRBasis))
		for _, cv := range []struct {
			name string
			pts  []smsr.Point
		}{{"t (adversarial memories)", c.VsT[5]}, {"m (pool size)", c.VsM[5]}} {
			if len(cv.pts) == 0 {
				continue
			}
			ys, xs := sampleCurve(cv.pts, max(8, (w-12)/2))
			lines = append(lines, fmt.Sprintf("  delta against %s, n = 5 runs; columns at %s = %s", cv.name, cv.name[:1], xs))
			lines = append(lines, curveColumns(ys, 6, m.opts.Plain)[:6]...)
		}
	}
	if len(x.EquiMem) > 0 {
		order := equimem.SortName(equimem.Sorts[m.exp.sortKey])
		if m.exp.desc {
			order += ", reversed"
		}
		lines = append(lines, "", "EquiMem rho_detect per structural write, beside its provenance label:",
			fmt.Sprintf("  sorted by %s (%s: next order, %s: reverse)", order, m.keys.Sort.Help().Key, m.keys.Reverse.Help().Key),
			"  "+x.EquiMemSummary, "  caveat: "+x.EquiMemCaveat,
			fmt.Sprintf("  %4s %5s %5s %5s  %-15s %-8s %s", "RANK", "RHO", "LOCAL", "PATH", "PROVENANCE", "RELATION", "WRITE / WRITER"))
		for i, r := range m.exp.sorted {
			if i >= maxEquiMemLines {
				lines = append(lines, fmt.Sprintf("  ... %d more writes (memscope exposure --json lists every score)", len(m.exp.sorted)-i))
				break
			}
			lines = append(lines, fmt.Sprintf("  %4d %5.2f %5.2f %5.2f  %-15s %-8s %s / %s", r.Rank, r.Rho, r.SLocal, r.SPath, equimem.Label(r.Authenticated, r.Culprit),
				m.untrusted(r.Rel, 8), m.untrusted(r.Write, 36), m.untrusted(r.Writer, max(8, w-80))))
		}
	}
	return lines
}

// sampleCurve keeps at most n evenly spaced points of a curve, the last
// included, and names their x values.
func sampleCurve(pts []smsr.Point, n int) ([]float64, string) {
	step := max(1, (len(pts)+n-1)/n)
	var ys []float64
	var xs []string
	for i := 0; i < len(pts); i += step {
		ys, xs = append(ys, pts[i].Delta), append(xs, fmt.Sprint(pts[i].X))
	}
	if last := pts[len(pts)-1]; fmt.Sprint(last.X) != xs[len(xs)-1] {
		ys, xs = append(ys, last.Delta), append(xs, fmt.Sprint(last.X))
	}
	return ys, xs[0] + ".." + xs[len(xs)-1]
}

// renderExposure is a document: the selectors side by side, the
// harm-vs-writes curve of each structural selector drawn as columns, and
// the queries most exposed first.
func (m *Model) renderExposure(w, h int) []string {
	if _, ok := m.src.(ExposureSource); !ok {
		return []string{"Exposure: not available for this source."}
	}
	switch {
	case m.exp.err != nil:
		return []string{"Exposure failed: " + m.untrusted(m.exp.err.Error(), w-18)}
	case m.exp.loading || m.exp.res == nil:
		return []string{"Estimating exposure (Monte Carlo over bounded no-source writes)..."}
	}
	r := m.exp.res
	o := r.Options
	lines := []string{
		fmt.Sprintf("Bounded no-source write: %d edges from a query's seed entities to one wrong passage; clean budget weight 1..%g, heavy %g; %d draws per query and budget (seed %d).",
			o.Edges, o.CleanWeight, o.HeavyWeight, o.Draws, o.Seed),
		"",
		fmt.Sprintf("%-14s %-8s %7s %7s %9s", "SELECTOR", "EXPOSED", "S_DOM", "S_ADV", "S_ADV W<="+fmt.Sprint(o.CleanWeight)),
	}
	for _, s := range r.Selectors {
		exp := "no"
		if s.Exposed {
			exp = "YES"
		}
		lines = append(lines, fmt.Sprintf("%-14s %-8s %7.3f %7.3f %9.3f", s.Name, exp, s.SDom, s.SAdv, s.SAdvClean))
	}
	for _, s := range r.Selectors {
		if !s.Structural || len(s.Curve) == 0 {
			continue
		}
		lines = append(lines, "", fmt.Sprintf("%s: share of selections changed after n accumulated clean-budget writes", s.Name))
		lines = append(lines, curveColumns(s.Curve, 8, m.opts.Plain)...)
	}
	lines = append(lines, "", "Queries, most exposed first (PPR heavy S_adv; targets: low-floor or anchored by Lemma 1):")
	ppr, _ := r.Selector(exposure.PPR)
	for _, id := range r.Ranked {
		line := "  " + m.untrusted(id, 40)
		for _, q := range ppr.Queries {
			if q.Query != id {
				continue
			}
			line += fmt.Sprintf("  S_adv %.2f (clean %.2f)  %s", q.SAdv, q.SAdvClean, q.Class)
			for _, t := range q.Targets {
				kind := "low-floor"
				if t.Anchored {
					kind = "anchored"
				}
				lines = append(lines, line)
				line = fmt.Sprintf("      %s %s floor %.4f, evicted %.0f%%", m.untrusted(t.Node, 36), kind, t.Floor, 100*t.Evicted)
			}
		}
		lines = append(lines, line)
	}
	lines = append(lines, "", "Ranked lists per query (top-k on G_auth, then on G where it differs):")
	for qi, id := range queryOrder(r) {
		lines = append(lines, "  "+m.untrusted(id, w-2))
		for _, s := range r.Selectors {
			if qi >= len(s.Queries) {
				continue
			}
			q := s.Queries[qi]
			if q.NotCheckable != "" {
				lines = append(lines, fmt.Sprintf("    %-13s not checkable: %s", s.Name, q.NotCheckable))
				continue
			}
			lines = append(lines, fmt.Sprintf("    %-13s %-8s G_auth %s", s.Name, q.Class, m.untrusted(strings.Join(q.TopKAuth, ", "), max(10, w-35))))
			if strings.Join(q.TopKG, ",") != strings.Join(q.TopKAuth, ",") {
				lines = append(lines, fmt.Sprintf("    %-13s %-8s G      %s", "", "", m.untrusted(strings.Join(q.TopKG, ", "), max(10, w-35))))
			}
		}
	}
	if m.exp.extras != nil {
		lines = append(lines, m.renderExtras(m.exp.extras, w)...)
		lines = append(lines, m.renderMWP(m.exp.extras.MWP, w)...)
	}
	lines = append(lines, "", "RRF and dense read no structure; node-distance reorders a content-fixed pool. Harm here is selection change.")
	return lines
}

// curveColumns draws shares in [0, 1] as columns of the given height, one
// column per point, with the x axis numbered every fourth point.
func curveColumns(c []float64, height int, plain bool) []string {
	full, part := "█", "▄"
	if plain {
		full, part = "#", "."
	}
	var out []string
	for row := height; row >= 1; row-- {
		var b strings.Builder
		label := "    "
		if row == height {
			label = "1.0 "
		} else if row == (height+1)/2 {
			label = "0.5 "
		}
		b.WriteString(label + "|")
		for _, v := range c {
			cells := v * float64(height)
			switch {
			case cells >= float64(row)-0.25:
				b.WriteString(" " + full)
			case cells >= float64(row)-0.75 && cells > 0:
				b.WriteString(" " + part)
			default:
				b.WriteString("  ")
			}
		}
		out = append(out, b.String())
	}
	axis := "0   +" + strings.Repeat("--", len(c))
	var nums strings.Builder
	nums.WriteString("     ")
	for i := range c {
		if (i+1)%4 == 0 || i == 0 {
			nums.WriteString(fmt.Sprintf("%2d", i+1))
		} else {
			nums.WriteString("  ")
		}
	}
	out = append(out, axis, nums.String()+"  writes")
	var vals []string
	for _, v := range c {
		vals = append(vals, fmt.Sprintf("%.2f", math.Round(v*100)/100))
	}
	return append(out, "     values: "+strings.Join(vals, " "))
}

// queryOrder lists the query ids in store order (the order of every
// selector's Queries).
func queryOrder(r *exposure.Result) []string {
	if len(r.Selectors) == 0 {
		return nil
	}
	var out []string
	for _, q := range r.Selectors[0].Queries {
		out = append(out, q.Query)
	}
	return out
}

// renderMWP is the MWP non-formation audit as memscope exposure prints it:
// the candidates, each check with its status, then its findings (also in
// the Findings view).
func (m *Model) renderMWP(r *jsonout.MWP, w int) []string {
	if r == nil {
		return nil
	}
	lines := []string{"", fmt.Sprintf("MWP non-formation audit: %d rejected, %d accepted candidates", r.Rejected, r.Accepted)}
	for _, c := range r.Checks {
		lines = append(lines, fmt.Sprintf("  %-15s %-14s %d finding(s)  %s", c.Name, c.Status, c.Findings, m.untrusted(c.Detail, max(10, w-50))))
	}
	for _, f := range r.Findings {
		lines = append(lines, wrapLine(fmt.Sprintf("  %s %s  %s: %s", strings.ToUpper(string(f.Severity)), f.Code, m.untrusted(f.Subject, 1<<20), m.untrusted(f.Message, 1<<20)), w)...)
	}
	return lines
}
