package tui_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/memscope/memscope/exposure"
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
