package report

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/memscope/memscope/internal/analyses/exposure"
	"github.com/memscope/memscope/internal/analyses/smsr"
	"github.com/memscope/memscope/internal/assemble"
	"github.com/memscope/memscope/internal/assemble/exposurecase"
	"github.com/memscope/memscope/internal/present/jsonout"
	"github.com/memscope/memscope/verify"
)

// ExposureDraws is the report's Monte Carlo budget per query and write
// budget: the inspector's, so a report stays quick; memscope exposure
// gives the full estimate (1000 by default).
const ExposureDraws = 200

// ExposureCurveDraws is the report's write sequences per query for the
// harm-against-writes curve.
const ExposureCurveDraws = 10

// ExposureSection is how open the memory is to the selection channel and
// what the other papers' defences say: the selectors side by side with
// their exposure and harm curves, SMSR's certificate with its curves,
// EquiMem's triage and the MWP audit (package exposurecase). The page
// renders the fields; the case file writes JSON, jsonout's one exposure
// shape (the same as memscope exposure --json) with available and note.
type ExposureSection struct {
	Available bool
	Note      string
	Draws     int
	Seed      uint64
	Edges     int
	Clean     string
	Heavy     string
	// LeidenMode is how the Leiden draws were recomputed (full or
	// incremental, exposure.Options.LeidenMode).
	LeidenMode string

	Selectors []ExposureSelector
	HarmChart *Chart
	// Ranked lists the most exposed queries first, at most the replay
	// table's row limit; Queries counts them all.
	Ranked  []RankedQuery
	Queries int
	// Flips lists the queries soonest flipped first with the actions each
	// flip reaches (exposurecase.FirstFlips), at most the replay table's
	// row limit; FlipsTotal counts them all.
	Flips                []FlipRow
	FlipsTotal           int
	CurveDraws, CurveMax int

	SMSR    *SMSRSection
	EquiMem *EquiMemSection
	MWP     *MWPSection

	// JSON is the case file's exposure object (nil when not available).
	JSON *jsonout.Exposure
}

// exposureCaseJSON is the case file's exposure key.
type exposureCaseJSON struct {
	Available bool   `json:"available"`
	Note      string `json:"note,omitempty"`
	*jsonout.Exposure
}

// MarshalJSON writes the case file's exposure object through jsonout,
// which sanitises every string as Text does.
func (s ExposureSection) MarshalJSON() ([]byte, error) {
	return jsonout.Marshal(exposureCaseJSON{Available: s.Available, Note: s.Note, Exposure: s.JSON})
}

// UnmarshalJSON reads a case file's exposure object back (available, note
// and the JSON shape; the page's fields stay empty).
func (s *ExposureSection) UnmarshalJSON(b []byte) error {
	var v exposureCaseJSON
	v.Exposure = &jsonout.Exposure{}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*s = ExposureSection{Available: v.Available, Note: v.Note}
	if v.Available {
		s.JSON = v.Exposure
	}
	return nil
}

// ExposureSelector is one selector's row.
type ExposureSelector struct {
	Name       string
	Reads      string
	Structural bool
	Exposed    bool
	SDom       float64
	SAdv       float64
	SAdvClean  float64
	Diverge    int
	Reorder    int
	Same       int
}

// RankedQuery is a query in exposure order with PPR's targets.
type RankedQuery struct {
	Query Text
	// Coverage is "unsigned" when no signature covers the query row whose
	// reset vector the draws start from (assemble.Session.Coverage).
	Coverage string
	SAdv     float64
	SMSR     string // "delta 0.1035 (m 20, t 1)"
	Targets  []TargetFloor
}

// FlipRow is one query's first flip and blast radius.
type FlipRow struct {
	Query       Text
	PPR, Leiden string // "3 (85%)", ">16 (20%)" or "not checkable"
	// Soon: PPR flips it within the curve's length.
	Soon                bool
	Actions, Dispatched int
}

// TargetFloor is a PPR-selected passage: anchored by its teleport floor or
// low-floor, and how often heavy draws evicted it.
type TargetFloor struct {
	Node     Text
	Floor    float64
	Anchored bool
	Evicted  float64
}

// SMSRSection is the store's certificate with SMSR's Figure 3 curves.
type SMSRSection struct {
	M, K, N, T int
	Delta      float64
	Basis      string
	VsT, VsM   *Chart
}

// EquiMemSection is EquiMem's triage with its caveat.
type EquiMemSection struct {
	Writes              int
	Depth               int
	TopDecile           int
	Culprits            int
	CulpritsInTopDecile int
	Unauthenticated     int
	UnauthInTopDecile   int
	Caveat              string
	Rows                []EquiMemRow
}

// EquiMemRow is one write of the triage's top decile, or a culprit.
type EquiMemRow struct {
	Rank          int
	Write         Text
	Writer        Text
	Rel           Text
	Rho           float64
	SLocal        float64
	SPath         float64
	Authenticated bool
	Culprit       bool
}

// MWPSection is the non-formation audit.
type MWPSection struct {
	Rejected int
	Accepted int
	Checks   []MWPCheck
	Findings []Finding
}

// MWPCheck is one audit step with its status.
type MWPCheck struct {
	Name     string
	Status   string
	Detail   Text
	Findings int
}

// Chart is a static line chart drawn as SVG by the page template. Series
// differ by dash and marker shape, never by colour alone.
type Chart struct {
	Width, Height int
	Alt           string
	Series        []Series
	XTicks        []Tick
	YTicks        []Tick
	XLabel        string
	YLabel        string
	// Plot area.
	Left, Top, Right, Bottom int
}

// Series is one line of a chart.
type Series struct {
	Label  string
	Class  string // s0, s1, ...: dash and marker style
	Points string // SVG polyline points
	Marks  []Mark
	data   []xy
}

type xy struct {
	x int
	y float64
}

// Mark is a data point's marker: a circle (series 0) or a polygon whose
// shape tells the series apart in grey-scale print.
type Mark struct {
	X, Y   float64
	Points string // polygon points; "" draws a circle
}

// markAt draws series i's marker at (x, y): circle, square, triangle,
// diamond.
func markAt(i int, x, y float64) Mark {
	m := Mark{X: x, Y: y}
	const r = 3.5
	switch i % 4 {
	case 1:
		m.Points = fmt.Sprintf("%.1f,%.1f %.1f,%.1f %.1f,%.1f %.1f,%.1f", x-r, y-r, x+r, y-r, x+r, y+r, x-r, y+r)
	case 2:
		m.Points = fmt.Sprintf("%.1f,%.1f %.1f,%.1f %.1f,%.1f", x, y-r-1, x+r+1, y+r, x-r-1, y+r)
	case 3:
		m.Points = fmt.Sprintf("%.1f,%.1f %.1f,%.1f %.1f,%.1f %.1f,%.1f", x, y-r-1, x+r+1, y, x, y+r+1, x-r-1, y)
	}
	return m
}

// Tick is an axis label.
type Tick struct {
	Pos  float64
	Text string
}

// maxEquiMemRows bounds the triage table.
const maxEquiMemRows = 20

func buildExposure(ctx context.Context, c *Case, s *assemble.Session, lim Limits) error {
	opt := exposure.Options{Seed: 1, Draws: ExposureDraws, CurveDraws: ExposureCurveDraws}
	sec := &ExposureSection{}
	c.Exposure = sec
	if len(s.Queries) == 0 {
		sec.Note = "The store holds no queries, so no selection could be exposed."
		return nil
	}
	ex, err := exposurecase.Build(ctx, s, opt)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		sec.Note = "The exposure could not be estimated: " + err.Error()
		return nil
	}
	sec.Available = true
	js := ex.JSON(func(id string) string { return s.Coverage(verify.TableQueries, id) })
	sec.JSON = &js
	o := ex.Result.Options
	sec.Draws, sec.Seed, sec.Edges, sec.LeidenMode = o.Draws, o.Seed, o.Edges, o.LeidenMode
	sec.Clean, sec.Heavy = fmt.Sprintf("%g", o.CleanWeight), fmt.Sprintf("%g", o.HeavyWeight)
	var harm []Series
	for _, sr := range ex.Result.Selectors {
		es := ExposureSelector{Name: sr.Name, Reads: readsStructure[sr.Name], Structural: sr.Structural, Exposed: sr.Exposed, SDom: sr.SDom, SAdv: sr.SAdv,
			SAdvClean: sr.SAdvClean}
		for _, q := range sr.Queries {
			switch string(q.Class) {
			case "DIVERGE":
				es.Diverge++
			case "REORDER":
				es.Reorder++
			default:
				es.Same++
			}
		}
		sec.Selectors = append(sec.Selectors, es)
		if sr.Structural && len(sr.Curve) > 0 {
			harm = append(harm, Series{Label: sr.Name, data: curveData(sr.Curve, 1)})
		}
	}
	if len(harm) > 0 {
		n := 0
		for _, h := range harm {
			n = max(n, len(h.data))
		}
		sec.HarmChart = newChart("share of selections changed against the number of accumulated clean-budget writes", "writes", "share changed", harm, 1, n, 0, 1)
	}
	ppr, hasPPR := ex.Result.Selector(exposure.PPR)
	sec.Queries = len(ex.Result.Ranked)
	for _, id := range ex.Result.Ranked[:min(len(ex.Result.Ranked), lim.QueryRows)] {
		rq := RankedQuery{Query: Text(id), Coverage: s.Coverage(verify.TableQueries, id)}
		if c, ok := ex.QuerySMSR[id]; ok {
			rq.SMSR = fmt.Sprintf("delta %.4f (m %d, k %d, t %d)", c.Delta, c.M, c.K, c.T)
		}
		if hasPPR {
			for _, q := range ppr.Queries {
				if q.Query != id {
					continue
				}
				rq.SAdv = q.SAdv
				for _, t := range q.Targets {
					rq.Targets = append(rq.Targets, TargetFloor{Node: Text(t.Node), Floor: t.Floor, Anchored: t.Anchored, Evicted: t.Evicted})
				}
			}
		}
		sec.Ranked = append(sec.Ranked, rq)
	}
	sec.CurveDraws, sec.CurveMax = o.CurveDraws, o.CurveMax
	flips := ex.FirstFlips()
	sec.FlipsTotal = len(flips)
	at := func(n int, share float64, ran bool) string {
		if !ran {
			return "not checked"
		}
		if n == 0 {
			return fmt.Sprintf(">%d (%.0f%%)", o.CurveMax, 100*share)
		}
		return fmt.Sprintf("%d (%.0f%%)", n, 100*share)
	}
	for _, f := range flips[:min(len(flips), lim.QueryRows)] {
		sec.Flips = append(sec.Flips, FlipRow{Query: Text(f.Query), PPR: at(f.PPR, f.PPRFlipped, f.PPRRan), Leiden: at(f.Leiden, f.LeidenFlipped, f.LeidenRan), Soon: f.PPR > 0,
			Actions: f.Reach.Actions, Dispatched: f.Reach.Dispatched})
	}
	if sum := ex.StoreSMSR; sum != nil {
		sec.SMSR = &SMSRSection{M: sum.M, K: sum.K, N: sum.N, T: sum.T, Delta: sum.Delta, Basis: exposurecase.StoreSMSRBasis,
			VsT: smsrChart(sum.VsT, "t", fmt.Sprintf("delta against the number of adversarial memories t (m = %d, k = %d)", sum.M, sum.K)),
			VsM: smsrChart(sum.VsM, "m", fmt.Sprintf("delta against the pool size m (t = %d, k = %d)", sum.T, sum.K))}
	}
	if e := ex.EquiMem; e != nil {
		es := &EquiMemSection{Writes: len(e.Writes), Depth: e.Depth, TopDecile: e.TopDecile, Culprits: e.Culprits, CulpritsInTopDecile: e.CulpritsInTopDecile,
			Unauthenticated: e.Unauthenticated, UnauthInTopDecile: e.UnauthInDecile, Caveat: exposurecase.EquiMemCaveat}
		byRank := make([]*exposurecase.EquiMemWrite, len(e.Writes)+1)
		for i := range e.Writes {
			if r := e.Writes[i].Rank; r > 0 && r < len(byRank) {
				byRank[r] = &e.Writes[i]
			}
		}
		for r := 1; r < len(byRank) && len(es.Rows) < maxEquiMemRows; r++ {
			w := byRank[r]
			if w == nil || (r > e.TopDecile && !w.Culprit) {
				continue
			}
			es.Rows = append(es.Rows, EquiMemRow{Rank: r, Write: Text(w.ID), Writer: Text(w.Writer), Rel: Text(w.Rel), Rho: w.Rho, SLocal: w.SLocal, SPath: w.SPath,
				Authenticated: w.Authenticated, Culprit: w.Culprit})
		}
		sec.EquiMem = es
	}
	m := &MWPSection{Rejected: ex.MWP.Rejected, Accepted: ex.MWP.Accepted}
	for _, ch := range ex.MWP.Checks {
		m.Checks = append(m.Checks, MWPCheck{Name: ch.Name, Status: ch.Status, Detail: Text(ch.Detail), Findings: ch.Findings})
	}
	for _, f := range ex.MWP.Findings {
		m.Findings = append(m.Findings, Finding{Severity: string(f.Severity), Code: string(f.Code), Subject: Text(f.Subject), Message: Text(f.Message)})
	}
	sec.MWP = m
	return nil
}

var readsStructure = map[string]string{
	exposure.PPR:          "walk mass",
	exposure.Leiden:       "community membership",
	exposure.NodeDistance: "order within a fixed pool",
	exposure.RRF:          "no",
	exposure.Dense:        "no",
}

// curveData indexes a curve from x0.
func curveData(ys []float64, x0 int) []xy {
	out := make([]xy, len(ys))
	for i, y := range ys {
		out[i] = xy{x0 + i, y}
	}
	return out
}

func smsrChart(curves map[int][]smsr.Point, x, alt string) *Chart {
	var ss []Series
	lo, hi := 0, 0
	for i, n := range smsr.CurveRuns {
		pts := curves[n]
		if len(pts) == 0 {
			continue
		}
		data := make([]xy, len(pts))
		for j, p := range pts {
			data[j] = xy{p.X, p.Delta}
		}
		if i == 0 || pts[0].X < lo {
			lo = pts[0].X
		}
		hi = max(hi, pts[len(pts)-1].X)
		ss = append(ss, Series{Label: fmt.Sprintf("n = %d runs", n), data: data})
	}
	if len(ss) == 0 {
		return nil
	}
	return newChart(alt, x, "delta", ss, lo, hi, 0, 1)
}

// Chart geometry in SVG user units; the page scales the chart to fit.
const (
	chartW   = 640
	chartH   = 220
	chartL   = 52
	chartR   = 150 // room for the legend
	chartT   = 12
	chartB   = 40
	maxMarks = 40 // markers drawn per series (every point when fewer)
)

// newChart lays out the series' data, scaling
// x in [x0, x1] and y in [y0, y1] to the plot area.
func newChart(alt, xLabel, yLabel string, ss []Series, x0, x1 int, y0, y1 float64) *Chart {
	c := &Chart{Width: chartW, Height: chartH, Alt: alt, XLabel: xLabel, YLabel: yLabel, Left: chartL, Top: chartT, Right: chartW - chartR, Bottom: chartH - chartB}
	if x1 <= x0 {
		x1 = x0 + 1
	}
	sx := func(x float64) float64 {
		return float64(c.Left) + (x-float64(x0))/float64(x1-x0)*float64(c.Right-c.Left)
	}
	sy := func(y float64) float64 {
		return float64(c.Bottom) - (y-y0)/(y1-y0)*float64(c.Bottom-c.Top)
	}
	for i := range ss {
		var pts strings.Builder
		var marks []Mark
		data := ss[i].data
		step := max(1, (len(data)+maxMarks-1)/maxMarks)
		for j, d := range data {
			px, py := sx(float64(d.x)), sy(d.y)
			fmt.Fprintf(&pts, "%.1f,%.1f ", px, py)
			if j%step == 0 || j == len(data)-1 {
				marks = append(marks, markAt(i, round1(px), round1(py)))
			}
		}
		ss[i].Points = strings.TrimSpace(pts.String())
		ss[i].Marks = marks
		ss[i].Class = fmt.Sprintf("s%d", i%4)
	}
	c.Series = ss
	for _, v := range []float64{0, 0.25, 0.5, 0.75, 1} {
		y := y0 + v*(y1-y0)
		c.YTicks = append(c.YTicks, Tick{Pos: round1(sy(y)), Text: fmt.Sprintf("%.2f", y)})
	}
	nt := min(x1-x0, 8)
	last := x0 - 1
	for i := 0; i <= nt; i++ {
		x := x0 + (x1-x0)*i/nt
		if x == last {
			continue
		}
		last = x
		c.XTicks = append(c.XTicks, Tick{Pos: round1(sx(float64(x))), Text: fmt.Sprint(x)})
	}
	return c
}

func round1(x float64) float64 { return float64(int64(x*10+0.5)) / 10 }
