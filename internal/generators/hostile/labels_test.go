package hostile

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/memscope/memscope/internal/present/sanitize"
)

// checkLabelClass asserts what each class of issue 23's label attacks must
// show beyond the suite's general checks: the verdict the attack aims at
// is not given.
func checkLabelClass(t *testing.T, name string, args []string, r result) {
	t.Helper()
	what := "memscope " + sanitize.Line(strings.Join(args, " "))
	has := func(b []byte, s string) bool { return bytes.Contains(b, []byte(s)) }
	switch {
	case name == "channel-promotion" && args[0] == "actions":
		// act-pay-courier's entry was logged on the unauthenticated channel.
		if !has(r.stdout, "act-pay-courier") || !has(r.stdout, "unauthenticated channel when the entry was logged") {
			t.Errorf("%s: IFC does not see the courier's channel at write time\n%s", what, clipOut(r.stdout))
		}
	case name == "tombstone-vouch" && args[0] == "lineage" && args[1] != "sweep":
		if r.code != 1 || !has(r.stdout, "LINEAGE_TOMBSTONE_UNVOUCHED") || !has(r.stdout, "act-pay-7731 should have been refused") {
			t.Errorf("%s: exit %d, the forged tombstone still vouches\n%s", what, r.code, clipOut(r.stdout))
		}
	case name == "confusable-ids" && args[0] == "replay" && !slices.Contains(args, "--labels"):
		if !has(r.stderr, "TEXT_CONFUSABLE_ID") {
			t.Errorf("%s: no TEXT_CONFUSABLE_ID\n%s", what, clipOut(r.stderr))
		}
	case name == "reset-maxfloat" && args[0] == "replay" && len(args) == 6:
		if has(r.stdout, "FAILED") {
			t.Errorf("%s: a reset of finite masses failed to replay\n%s", what, clipOut(r.stdout))
		}
	}
}
