package tuisource

import (
	"testing"

	"github.com/memscope/memscope/tui"
	"github.com/memscope/memscope/verify"
)

// Every row's status in the Entries view is what verify's verdict of that
// entry says (statusByRow builds a verdict only for the rows verify
// flagged): failed exactly when the record did not decode, the verdict
// lists a code, or its inclusion failed.
func TestRowStatusIsVerifysVerdict(t *testing.T) {
	if testing.Short() {
		t.Skip("opens scenarios")
	}
	failed := 0
	for _, name := range []string{"tampered", "tombstone", "tampered-reset", "lategate", "clean"} {
		src, _ := openScenario(t, name)
		finish(t, src)
		rep := src.Report()
		for i := range src.EntryCount() {
			e := src.s.EntryAt(i)
			v := rep.Entry(e.ID)
			want := tui.OK
			if e.DecodeErr != nil || len(v.Codes) > 0 || v.Inclusion == verify.Failed {
				want = tui.Failed
				failed++
			}
			if r := src.Entry(i); r.Status != want || (want == tui.Failed) != (r.Problem != "") {
				t.Errorf("%s entry %s: row %v %q, verify's verdict %+v", name, e.ID, r.Status, r.Problem, v)
			}
		}
	}
	if failed == 0 {
		t.Error("no scenario has a failed entry: the test checks nothing")
	}
}
