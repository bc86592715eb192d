package sharedtest

import (
	"os"
	"path/filepath"
	"testing"
)

// Every real store case carries the SOURCE.txt that says where it came
// from; a case without one is not evidence anyone can trace.
func TestRealStoresHaveSources(t *testing.T) {
	for _, c := range Cases(t, "") {
		if _, err := os.Stat(filepath.Join(c, "SOURCE.txt")); err != nil {
			t.Errorf("%s: %v", filepath.Base(c), err)
		}
	}
}

func TestPeerCorporaFound(t *testing.T) {
	d := PeerCorpora(t)
	if ents, err := os.ReadDir(d); err != nil || len(ents) == 0 {
		t.Fatalf("%s: %v, %d entries", d, err, len(ents))
	}
}

// With MEMSCOPE_SHARED pointing nowhere the helpers skip locally.
func TestMissingSkipsOutsideCI(t *testing.T) {
	t.Setenv("CI", "")
	t.Setenv("MEMSCOPE_SHARED", t.TempDir())
	ok := t.Run("absent", func(t *testing.T) {
		RealStores(t)
		t.Fatal("RealStores returned without ../shared")
	})
	if !ok {
		t.Fatal("absent shared material failed outside CI; it must skip")
	}
}

// recorder is a testing.TB that notes whether the helper failed or
// skipped, without stopping (the real methods end the goroutine).
type recorder struct {
	testing.TB
	failed, skipped bool
}

func (r *recorder) Helper()               {}
func (r *recorder) Fatalf(string, ...any) { r.failed = true }
func (r *recorder) Skipf(string, ...any)  { r.skipped = true }

func TestMissingFailsUnderCI(t *testing.T) {
	t.Setenv("MEMSCOPE_SHARED", t.TempDir())
	for _, ci := range []string{"true", ""} {
		t.Setenv("CI", ci)
		r := &recorder{TB: t}
		RealStores(r)
		if first := r.failed; first != (ci == "true") {
			t.Errorf("CI=%q: failed=%v skipped=%v; want a failure only under CI", ci, r.failed, r.skipped)
		}
	}
}
