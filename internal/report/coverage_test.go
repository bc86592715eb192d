package report

import (
	"bytes"
	"context"
	"testing"

	"github.com/memscope/memscope/verify"
)

// The report labels query and action rows exactly as verify's coverage
// says (through inspect), in the case file and the HTML; a covered row
// carries no label.
func TestReportCoverageLabels(t *testing.T) {
	t.Parallel()
	s, _ := anchored(t, "structural-write", true)
	rep, err := s.Verify(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	c, html, js := buildCase(t, "structural-write", true)
	labelled := 0
	for _, r := range c.Actions.Rows {
		if want := rep.Label(verify.TableActions, string(r.ID)); r.Coverage != want {
			t.Errorf("action %s: coverage %q, verify %q", r.ID, r.Coverage, want)
		}
		if r.Coverage != "" {
			labelled++
		}
	}
	for _, r := range c.Replay.Rows {
		if want := rep.Label(verify.TableQueries, string(r.ID)); r.Coverage != want {
			t.Errorf("query %s: coverage %q, verify %q", r.ID, r.Coverage, want)
		}
		if r.Coverage != "" {
			labelled++
		}
	}
	for _, d := range c.Replay.Details {
		if want := rep.Label(verify.TableQueries, string(d.ID)); d.Coverage != want {
			t.Errorf("query detail %s: coverage %q, verify %q", d.ID, d.Coverage, want)
		}
	}
	if got := bytes.Contains(html, []byte("[unsigned]")); got != (labelled > 0) {
		t.Errorf("HTML shows [unsigned] %v with %d labelled rows", got, labelled)
	}
	if got := bytes.Contains(js, []byte(`"coverage": "unsigned"`)); got != (labelled > 0) {
		t.Errorf("case file has unsigned coverage %v with %d labelled rows", got, labelled)
	}
	if rep.TableLabel(verify.TableQueries) == verify.LabelUnsigned && labelled == 0 {
		t.Error("queries are unsigned, yet no row of the report says so")
	}
}
