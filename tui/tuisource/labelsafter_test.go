package tuisource

import (
	"testing"

	"github.com/memscope/memscope/internal/assemble"
)

// After verification every label the inspector shows (the Entries view's
// recomputed column, the labels Lineage and Detail read) is the one the
// verified lineage graph gives, as memscope lineage reports it, also on a
// store small enough to load before verification began (labels computed
// then are the writers' names alone).
func TestLabelsAfterVerifyAreVerified(t *testing.T) {
	if testing.Short() {
		t.Skip("opens scenarios")
	}
	differ := 0
	for _, name := range []string{"tampered", "tombstone", "tampered-reset", "clean"} {
		src, _ := openScenario(t, name)
		// What the inspector computed while loading, before verification.
		before, err := src.labelsAt(assemble.DefaultTau)
		if err != nil {
			t.Fatal(err)
		}
		finish(t, src)
		want, err := src.s.Labels(assemble.DefaultTau, src.failClosed())
		if err != nil {
			t.Fatal(err)
		}
		got, err := src.labelsAt(assemble.DefaultTau)
		if err != nil {
			t.Fatal(err)
		}
		for j := range want {
			if got[j] != want[j] {
				t.Errorf("%s: lineage node %d labelled %v after verification, the verified graph says %v", name, j, got[j], want[j])
			}
			if before[j] != want[j] {
				differ++
			}
			if row := src.Entry(src.s.RowOf(j)); row.Recomputed != want[j] {
				t.Errorf("%s: entry row %s shows %v, the verified graph says %v", name, row.ID, row.Recomputed, want[j])
			}
		}
	}
	if differ == 0 {
		t.Error("no scenario's labels change with verification: the test checks nothing")
	}
}
