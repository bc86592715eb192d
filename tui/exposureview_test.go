package tui_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/memscope/memscope/internal/analyses/exposure"
	"github.com/memscope/memscope/internal/analyses/smsr"
	"github.com/memscope/memscope/tui"
	"github.com/memscope/memscope/tui/tuitest"
)

// exposureFake adds the optional ExposureSource to the fake store.
type exposureFake struct {
	*tuitest.Fake
	res *exposure.Result
}

func (f exposureFake) Exposure(context.Context) (*exposure.Result, error) { return f.res, nil }

// Key 0 opens the Exposure view: the selectors side by side, and the curve
// drawn as columns that rise with the number of writes.
func TestExposureView(t *testing.T) {
	t.Parallel()
	res := exposureResult()
	f := tuitest.New(10)
	m := tui.New(exposureFake{f, res}, tui.Options{Static: true})
	m = drive(t, m, m.Init())
	m = send(t, m, tea.WindowSizeMsg{Width: 120, Height: 60})
	m = press(t, m, "0")
	s := screen(m)
	for _, want := range []string{"[0 Exposure]", "ppr", "YES", "1.000", "0.500", "dense", "writes", "q-born-first", "anchored", "values: 0.10 0.50 1.00 1.00", "G_auth passage:chatwin, passage:fowler", "G      passage:payee-fowler, passage:chatwin", "G_auth passage:ledger"} {
		if !strings.Contains(s, want) {
			t.Errorf("exposure view lacks %q:\n%s", want, s)
		}
	}
	// The plain fake has no estimate: the view says so.
	m2, _ := open(t, 10, 120, 40, tui.Options{})
	if s := screen(press(t, m2, "0")); !strings.Contains(s, "not available") {
		t.Errorf("without ExposureSource: %s", s)
	}
}

// exposureResult is an estimate with one exposed structural selector and
// one that is not.
func exposureResult() *exposure.Result {
	return &exposure.Result{Options: exposure.Options{Edges: 3, CleanWeight: 2, HeavyWeight: 60, Draws: 200, Seed: 1},
		Ranked: []string{"q-born-first"},
		Selectors: []exposure.SelectorResult{
			{Name: exposure.PPR, Structural: true, Exposed: true, SDom: 0.38, SAdv: 1, SAdvClean: 0.5, Curve: []float64{0.1, 0.5, 1, 1},
				Queries: []exposure.QueryResult{{Query: "q-born-first", Class: "DIVERGE", SAdv: 1, TopKAuth: []string{"passage:chatwin", "passage:fowler"}, TopKG: []string{"passage:payee-fowler", "passage:chatwin"}, Targets: []exposure.Target{{Node: "passage:chatwin", Anchored: true, Floor: 0.11}}}}},
			{Name: exposure.Dense, SAdv: 0, Queries: []exposure.QueryResult{{Query: "q-born-first", Class: "SAME", TopKAuth: []string{"passage:ledger"}, TopKG: []string{"passage:ledger"}}}},
		}}
}

// Goldens of the Exposure and Timeline views at each golden size.
func TestGoldenExposureAndTimeline(t *testing.T) {
	t.Parallel()
	for _, sz := range goldenSizes {
		m := tui.New(exposureFake{tuitest.New(10), exposureResult()}, tui.Options{Static: true})
		m = drive(t, m, m.Init())
		m = send(t, m, tea.WindowSizeMsg{Width: sz[0], Height: sz[1]})
		golden(t, fmt.Sprintf("exposure-%dx%d", sz[0], sz[1]), ascii(t, press(t, m, "0").View().Content))

		m = tui.New(&timelineFake{Fake: tuitest.New(5)}, tui.Options{Static: true})
		m = drive(t, m, m.Init())
		m = send(t, m, tea.WindowSizeMsg{Width: sz[0], Height: sz[1]})
		golden(t, fmt.Sprintf("timeline-%dx%d", sz[0], sz[1]), ascii(t, press(t, m, "9", "down", "down", "down", "down").View().Content))
	}
}

// extrasFake adds SMSR's certificate and EquiMem's triage.
type extrasFake struct {
	exposureFake
	x *tui.ExposureExtras
}

func (f extrasFake) ExposureExtras(context.Context) (*tui.ExposureExtras, error) { return f.x, nil }

// With extras the view shows the store certificate with its curves and the
// EquiMem triage beside each write's provenance label; a hostile write id
// is escaped like every other evidence string.
func TestExposureViewExtras(t *testing.T) {
	t.Parallel()
	sum, err := smsr.Summarise(20, 5, 5, 1)
	if err != nil {
		t.Fatal(err)
	}
	x := &tui.ExposureExtras{SMSR: &sum, SMSRBasis: "m = entries", EquiMemSummary: "2 writes", EquiMemCaveat: "provenance decides",
		EquiMem: []tui.EquiMemRow{
			{Rank: 1, Write: "w-evil\x1b[31m", Writer: "agent:evil", Rel: "cites", Rho: 0.05, Culprit: true},
			{Rank: 2, Write: "w-ok", Writer: "agent:indexer", Rel: "mentions", Rho: 0.9, Authenticated: true},
		}}
	m := tui.New(extrasFake{exposureFake{tuitest.New(10), exposureResult()}, x}, tui.Options{Static: true})
	m = drive(t, m, m.Init())
	m = send(t, m, tea.WindowSizeMsg{Width: 140, Height: 120})
	s := screen(press(t, m, "0"))
	for _, want := range []string{"SMSR certificate for the store: delta 0.1035 at m=20 k=5 n=5 t=1", "delta against t (adversarial memories)", "delta against m (pool size)",
		"EquiMem rho_detect", "CULPRIT", "authenticated", "0.05", "caveat: provenance decides"} {
		if !strings.Contains(s, want) {
			t.Errorf("view lacks %q:\n%s", want, s)
		}
	}
	if !strings.Contains(s, `w-evil\e[31m`) || strings.Contains(s, "w-evil\x1b") {
		t.Error("a raw escape from a write id reached the screen")
	}
}

// equiMemExtras is a triage with every provenance label, in triage order
// (lowest rho first), whose write ids sort in neither rho nor label order.
func equiMemExtras() *tui.ExposureExtras {
	return &tui.ExposureExtras{EquiMemSummary: "5 writes; top decile (1 lowest) holds 0 of 2 replay culprits", EquiMemCaveat: "provenance, not structure, decides",
		EquiMem: []tui.EquiMemRow{
			{Rank: 1, Write: "w-c", Writer: "agent:indexer", Rel: "mentions", Rho: 0.05, Authenticated: true},
			{Rank: 2, Write: "w-e", Writer: "agent:evil", Rel: "cites", Rho: 0.2},
			{Rank: 3, Write: "w-a", Writer: "agent:indexer", Rel: "mentions", Rho: 0.4, Authenticated: true},
			{Rank: 4, Write: "w-d", Writer: "agent:evil", Rel: "cites", Rho: 0.7, Culprit: true},
			{Rank: 5, Write: "w-b", Writer: "agent:evil", Rel: "cites", Rho: 0.9, Culprit: true},
		}}
}

// equiMemView opens the Exposure view with equiMemExtras at w x h.
func equiMemView(t *testing.T, w, h int) tea.Model {
	t.Helper()
	m := tui.New(extrasFake{exposureFake{tuitest.New(10), exposureResult()}, equiMemExtras()}, tui.Options{Static: true})
	m = drive(t, m, m.Init())
	m = send(t, m, tea.WindowSizeMsg{Width: w, Height: h})
	return press(t, m, "0")
}

// equiMemOrder reads the write ids of the EquiMem table off the screen.
func equiMemOrder(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		f := strings.Fields(l)
		for i, x := range f {
			if strings.HasPrefix(x, "w-") && i+2 < len(f) && f[i+1] == "/" {
				out = append(out, x)
			}
		}
	}
	return out
}

// The EquiMem list is a sortable column beside the provenance label: s
// cycles rho_detect (triage order), provenance label (culprits, then
// unauthenticated, then authenticated; triage order within) and write id,
// S reverses, and the footer names both keys. The caveat stays.
func TestExposureEquiMemSort(t *testing.T) {
	t.Parallel()
	m := equiMemView(t, 140, 120)
	steps := []struct {
		keys   []string
		header string
		want   []string
	}{
		{nil, "sorted by rho_detect", []string{"w-c", "w-e", "w-a", "w-d", "w-b"}},
		{[]string{"s"}, "sorted by provenance label", []string{"w-d", "w-b", "w-e", "w-c", "w-a"}},
		{[]string{"s"}, "sorted by write id", []string{"w-a", "w-b", "w-c", "w-d", "w-e"}},
		{[]string{"S"}, "sorted by write id, reversed", []string{"w-e", "w-d", "w-c", "w-b", "w-a"}},
		{[]string{"S", "s"}, "sorted by rho_detect", []string{"w-c", "w-e", "w-a", "w-d", "w-b"}},
	}
	for i, st := range steps {
		m = press(t, m, st.keys...)
		s := screen(m)
		if got := equiMemOrder(s); strings.Join(got, " ") != strings.Join(st.want, " ") {
			t.Errorf("step %d (%v): order %v, want %v", i, st.keys, got, st.want)
		}
		for _, want := range []string{st.header, "caveat: provenance, not structure, decides", "top decile", "s sort", "S reverse sort"} {
			if !strings.Contains(s, want) {
				t.Errorf("step %d: screen lacks %q:\n%s", i, want, s)
			}
		}
	}
}

// Goldens of the EquiMem list in each sorted state.
func TestGoldenExposureEquiMemSorted(t *testing.T) {
	t.Parallel()
	m := equiMemView(t, 120, 90)
	for _, st := range []struct{ name, keys string }{{"rho", ""}, {"label", "s"}, {"write", "s"}, {"write-reversed", "S"}} {
		if st.keys != "" {
			m = press(t, m, st.keys)
		}
		golden(t, "exposure-equimem-"+st.name+"-120x90", ascii(t, m.View().Content))
	}
}
