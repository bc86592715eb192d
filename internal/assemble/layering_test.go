package assemble

import (
	"os/exec"
	"strings"
	"testing"
)

// The read path never links the write path: the inspector, the analyses
// it runs and the TUI must not depend on the writer, the scenario
// generator, the importer, the log appender or Tessera's storage drivers;
// and the TUI, which only shows findings, links no analysis or SQLite.
func TestReadPathDoesNotLinkWritePath(t *testing.T) {
	t.Parallel()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go command not found")
	}
	writePath := []string{
		"github.com/memscope/memscope/evidence/writer",
		"github.com/memscope/memscope/internal/generators/scenario",
		"github.com/memscope/memscope/internal/generators/importer",
		"github.com/memscope/memscope/evidence/tlog/appender",
		"github.com/memscope/memscope/internal/recorder",
		"github.com/modelcontextprotocol/go-sdk/",
		"github.com/transparency-dev/tessera/storage/",
		"github.com/transparency-dev/tessera", // the appender library itself (exact)
	}
	check := func(pkgs []string, forbidden []string) {
		out, err := exec.Command(goBin, append([]string{"list", "-deps"}, pkgs...)...).Output()
		if err != nil {
			t.Fatalf("go list -deps %v: %v", pkgs, err)
		}
		deps := strings.Fields(string(out))
		if len(deps) < 10 {
			t.Fatalf("go list -deps %v listed only %v", pkgs, deps)
		}
		for _, d := range deps {
			for _, f := range forbidden {
				if d == f || (strings.HasSuffix(f, "/") && strings.HasPrefix(d, f)) {
					t.Errorf("%v links %s", pkgs, d)
				}
			}
		}
	}
	check([]string{"github.com/memscope/memscope/tui", "github.com/memscope/memscope/internal/assemble", "github.com/memscope/memscope/tui/tuisource"}, writePath)
	check([]string{"github.com/memscope/memscope/tui"}, []string{
		"github.com/memscope/memscope/verify",
		"github.com/memscope/memscope/loader",
		"modernc.org/sqlite",
	})
	// Verifying memscope's own evidence needs no native-store model:
	// presentation helpers (textscan) scan fields, not stores.
	check([]string{"github.com/memscope/memscope/verify", "github.com/memscope/memscope/internal/present/..."}, []string{
		"github.com/memscope/memscope/internal/readers/",
	})
}
