package report

import (
	"context"
	"fmt"
	"strings"

	"github.com/memscope/memscope/exposure"
	"github.com/memscope/memscope/exposurecase"
	"github.com/memscope/memscope/inspect"
	"github.com/memscope/memscope/smsr"
	"github.com/memscope/memscope/verify"
)

// ExposureDraws is the report's Monte Carlo budget per query and write
// budget: the inspector's, so a report stays quick; memscope exposure
// gives the full estimate (1000 by default).
const ExposureDraws = 200

// exposureCurveDraws is the report's write sequences per query for the
// harm-against-writes curve.
const exposureCurveDraws = 10

// ExposureSection is how open the memory is to the selection channel and
// what the other papers' defences say: the selectors side by side with
// their exposure and harm curves, SMSR's certificate with its curves,
// EquiMem's triage and the MWP audit (package inspect's Exposure).
type ExposureSection struct {
	Available bool   `json:"available"`
	Note      string `json:"note,omitempty"`
	Draws     int    `json:"draws"`
	Seed      uint64 `json:"seed"`
	Edges     int    `json:"edges"`
	Clean     string `json:"clean_weight_max"`
	Heavy     string `json:"heavy_weight"`
	// LeidenMode is how the Leiden draws were recomputed (full or
	// incremental, exposure.Options.LeidenMode).
	LeidenMode string `json:"leiden_mode"`

	Selectors []ExposureSelector `json:"selectors"`
	HarmChart *Chart             `json:"-"`
	// Ranked lists the most exposed queries first, at most the replay
	// table's row limit; Queries counts them all (so does each selector's
	// Queries list, cut at the same limit).
	Ranked  []RankedQuery `json:"ranked"`
	Queries int           `json:"queries"`

	SMSR    *SMSRSection    `json:"smsr,omitempty"`
	EquiMem *EquiMemSection `json:"equimem,omitempty"`
	MWP     *MWPSection     `json:"mwp,omitempty"`
}

// ExposureSelector is one selector's row.
type ExposureSelector struct {
	Name       string          `json:"name"`
	Reads      string          `json:"reads_structure"`
	Structural bool            `json:"structural"`
	Exposed    bool            `json:"exposed"`
	SDom       float64         `json:"s_dom"`
	SAdv       float64         `json:"s_adv"`
	SAdvClean  float64         `json:"s_adv_clean"`
	Diverge    int             `json:"diverge"`
	Reorder    int             `json:"reorder"`
	Same       int             `json:"same"`
	Curve      []float64       `json:"curve"`
	Queries    []ExposureQuery `json:"queries"`
}

// ExposureQuery is one query under one selector (the JSON names).
type ExposureQuery struct {
	Query    Text    `json:"query"`
	Class    string  `json:"class"`
	SDom     float64 `json:"s_dom"`
	SAdv     float64 `json:"s_adv"`
	TopKG    []Text  `json:"topk_g"`
	TopKAuth []Text  `json:"topk_auth"`
}

// RankedQuery is a query in exposure order with PPR's targets.
type RankedQuery struct {
	Query Text `json:"query"`
	// Coverage is "unsigned" when no signature covers the query row whose
	// reset vector the draws start from (inspect.Session.Coverage).
	Coverage string        `json:"coverage,omitempty"`
	SAdv     float64       `json:"s_adv"`
	SMSR     string        `json:"smsr,omitempty"` // "delta 0.1035 (m 20, t 1)"
	Targets  []TargetFloor `json:"targets"`
}

// TargetFloor is a PPR-selected passage: anchored by its teleport floor or
// low-floor, and how often heavy draws evicted it.
type TargetFloor struct {
	Node     Text    `json:"node"`
	Floor    float64 `json:"teleport_floor"`
	Anchored bool    `json:"anchored"`
	Evicted  float64 `json:"evicted"`
}

// SMSRSection is the store's certificate with SMSR's Figure 3 curves.
type SMSRSection struct {
	M     int     `json:"m"`
	K     int     `json:"k"`
	N     int     `json:"n"`
	T     int     `json:"t"`
	Delta float64 `json:"delta"`
	Basis string  `json:"basis"`
	VsT   *Chart  `json:"-"`
	VsM   *Chart  `json:"-"`
}

// EquiMemSection is EquiMem's triage with its caveat.
type EquiMemSection struct {
	Writes              int          `json:"writes"`
	Depth               int          `json:"depth"`
	TopDecile           int          `json:"top_decile"`
	Culprits            int          `json:"culprits"`
	CulpritsInTopDecile int          `json:"culprits_in_top_decile"`
	Unauthenticated     int          `json:"unauthenticated"`
	UnauthInTopDecile   int          `json:"unauthenticated_in_top_decile"`
	Caveat              string       `json:"caveat"`
	Rows                []EquiMemRow `json:"rows"`
}

// EquiMemRow is one write of the triage's top decile, or a culprit.
type EquiMemRow struct {
	Rank          int     `json:"triage_rank"`
	Write         Text    `json:"write"`
	Writer        Text    `json:"writer"`
	Rel           Text    `json:"rel"`
	Rho           float64 `json:"rho_detect"`
	SLocal        float64 `json:"s_local"`
	SPath         float64 `json:"s_path"`
	Authenticated bool    `json:"authenticated"`
	Culprit       bool    `json:"culprit"`
}

// MWPSection is the non-formation audit.
type MWPSection struct {
	Rejected int        `json:"rejected"`
	Accepted int        `json:"accepted"`
	Checks   []MWPCheck `json:"checks"`
	Findings []Finding  `json:"findings"`
}

// MWPCheck is one audit step with its status.
type MWPCheck struct {
	Name     string `json:"name"`
	Status   string `json:"status"`
	Detail   Text   `json:"detail"`
	Findings int    `json:"findings"`
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

func buildExposure(ctx context.Context, c *Case, s *inspect.Session, lim Limits) error {
	opt := exposure.Options{Seed: 1, Draws: ExposureDraws, CurveDraws: exposureCurveDraws}
	sec := &ExposureSection{Selectors: []ExposureSelector{}, Ranked: []RankedQuery{}}
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
	o := ex.Result.Options
	sec.Draws, sec.Seed, sec.Edges, sec.LeidenMode = o.Draws, o.Seed, o.Edges, o.LeidenMode
	sec.Clean, sec.Heavy = fmt.Sprintf("%g", o.CleanWeight), fmt.Sprintf("%g", o.HeavyWeight)
	var harm []Series
	for _, sr := range ex.Result.Selectors {
		es := ExposureSelector{Name: sr.Name, Reads: readsStructure[sr.Name], Structural: sr.Structural, Exposed: sr.Exposed, SDom: sr.SDom, SAdv: sr.SAdv,
			SAdvClean: sr.SAdvClean, Curve: sr.Curve, Queries: []ExposureQuery{}}
		if es.Curve == nil {
			es.Curve = []float64{}
		}
		for i, q := range sr.Queries {
			switch string(q.Class) {
			case "DIVERGE":
				es.Diverge++
			case "REORDER":
				es.Reorder++
			default:
				es.Same++
			}
			if i >= lim.QueryRows {
				continue
			}
			es.Queries = append(es.Queries, ExposureQuery{Query: Text(q.Query), Class: string(q.Class), SDom: q.SDom, SAdv: q.SAdv, TopKG: texts(q.TopKG), TopKAuth: texts(q.TopKAuth)})
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
		rq := RankedQuery{Query: Text(id), Coverage: s.Coverage(verify.TableQueries, id), Targets: []TargetFloor{}}
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
	if sum := ex.StoreSMSR; sum != nil {
		sec.SMSR = &SMSRSection{M: sum.M, K: sum.K, N: sum.N, T: sum.T, Delta: sum.Delta, Basis: exposurecase.StoreSMSRBasis,
			VsT: smsrChart(sum.VsT, "t", fmt.Sprintf("delta against the number of adversarial memories t (m = %d, k = %d)", sum.M, sum.K)),
			VsM: smsrChart(sum.VsM, "m", fmt.Sprintf("delta against the pool size m (t = %d, k = %d)", sum.T, sum.K))}
	}
	if e := ex.EquiMem; e != nil {
		es := &EquiMemSection{Writes: len(e.Writes), Depth: e.Depth, TopDecile: e.TopDecile, Culprits: e.Culprits, CulpritsInTopDecile: e.CulpritsInTopDecile,
			Unauthenticated: e.Unauthenticated, UnauthInTopDecile: e.UnauthInDecile, Caveat: exposurecase.EquiMemCaveat, Rows: []EquiMemRow{}}
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
	m := &MWPSection{Rejected: ex.MWP.Rejected, Accepted: ex.MWP.Accepted, Checks: []MWPCheck{}, Findings: []Finding{}}
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

func texts(xs []string) []Text {
	out := make([]Text, len(xs))
	for i, x := range xs {
		out[i] = Text(x)
	}
	return out
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
