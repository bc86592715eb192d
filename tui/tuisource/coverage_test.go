package tuisource

import (
	"context"
	"testing"

	"github.com/memscope/memscope/tui"
	"github.com/memscope/memscope/verify"
)

// The inspector's coverage labels are verify's: "not checked" before
// verification, then exactly the report's label for each query and action.
func TestCoverageIsVerifys(t *testing.T) {
	src, _ := openScenario(t, "structural-write")
	var _ tui.Coverer = src
	if err := src.WaitLoaded(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := src.Coverage(verify.TableQueries, "q-born-first"); got != verify.LabelNotChecked {
		t.Errorf("before verification: %q", got)
	}
	finish(t, src)
	rep := src.Report()
	if rep == nil {
		t.Fatal("no report after Verify")
	}
	for _, a := range src.s.Actions {
		if got, want := src.Coverage(verify.TableActions, a.ID), rep.Label(verify.TableActions, a.ID); got != want || got == verify.LabelNotChecked {
			t.Errorf("action %s: %q, report %q", a.ID, got, want)
		}
	}
	for _, q := range src.s.Queries {
		if got, want := src.Coverage(verify.TableQueries, q.ID), rep.Label(verify.TableQueries, q.ID); got != want {
			t.Errorf("query %s: %q, report %q", q.ID, got, want)
		}
	}
}
