package tuisource

import (
	"context"
	"slices"
	"testing"

	"github.com/memscope/memscope/diff"
	"github.com/memscope/memscope/internal/analyses/timeline"
	"github.com/memscope/memscope/internal/present/finding"
)

// The scrubber's data: before the first injected write no query diverges;
// right after it the attacked query does.
func TestTimelineScrubber(t *testing.T) {
	src, m := openScenario(t, "incident")
	ctx := context.Background()
	tl, err := src.Timeline(ctx)
	if err != nil {
		t.Fatal(err)
	}
	at, ok := tl.Index(timeline.KindWrite, m.Attack.FirstWrite)
	if !ok {
		t.Fatalf("first write %s not in the timeline", m.Attack.FirstWrite)
	}
	before, err := src.DivergingAt(ctx, at)
	if err != nil {
		t.Fatal(err)
	}
	after, err := src.DivergingAt(ctx, at+1)
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(before, m.Attack.Query) || !slices.Contains(after, m.Attack.Query) {
		t.Fatalf("diverging before the first write %v, after %v; want %s only after", before, after, m.Attack.Query)
	}
	if st := tl.StateAt(timeline.Cut{Index: at + 1}); st.UnauthWrites == 0 || st.Writes == 0 {
		t.Fatalf("state after the first write: %+v", st)
	}
}

// Queries that ran before later writes are not reported as recorded
// mismatches: the inspector checks each recording as the query ran.
func TestNoRecordedMismatchAsRan(t *testing.T) {
	src, _ := openScenario(t, "incident")
	p := finish(t, src)
	for _, f := range p.Findings {
		if f.Code == finding.ReplayRecordedMismatch {
			t.Fatalf("recorded mismatch reported: %+v", f)
		}
	}
}

// The replay view carries each query replayed as it ran: a query that ran
// before the compromise is SAME then and DIVERGE on the graph as it is now.
func TestReplayAsRan(t *testing.T) {
	src, _ := openScenario(t, "incident")
	ctx := context.Background()
	v, err := src.Replay(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(v.AsRan) != len(v.Rows) || len(v.AsRanAt) != len(v.Rows) {
		t.Fatalf("%d as-ran rows and %d moments for %d rows", len(v.AsRan), len(v.AsRanAt), len(v.Rows))
	}
	found := false
	for i, row := range v.Rows {
		ran := v.AsRan[i]
		if ran.QueryID == "" {
			continue
		}
		if ran.QueryID != row.QueryID || v.AsRanAt[i] == "" {
			t.Fatalf("row %d: now %s, as ran %s at %q", i, row.QueryID, ran.QueryID, v.AsRanAt[i])
		}
		if row.QueryID == "q-born-first-clean" {
			found = true
			if row.Class != diff.Diverge || ran.Class != diff.Same {
				t.Errorf("q-born-first-clean: now %s, as it ran %s; want DIVERGE now and SAME as it ran", row.Class, ran.Class)
			}
		}
	}
	if !found {
		t.Fatal("q-born-first-clean has no as-ran replay")
	}
}
