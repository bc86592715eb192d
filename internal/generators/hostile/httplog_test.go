package hostile

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/memscope/memscope/evidence"
	"github.com/memscope/memscope/internal/evidencetest"
	"github.com/memscope/memscope/internal/generators/scenario"
)

// A hostile log server (issue 23 items 1 and 15), each served over a real
// loopback server to the built binary: one that answers a second read of
// the entry bundle with other bytes (a split view), one that trickles
// every response a byte at a time, and one that answers every request
// slowly but inside each per-request limit. verify must end inside its
// deadline with a finding (the split view, exit 1) or a refusal (exit 2),
// never PASS.
func TestHostileHTTPLog(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildBinary(t)
	dir := t.TempDir()
	if _, err := scenario.GenerateAll(context.Background(), dir, []string{"clean"}, scenario.Options{Seed: 1}); err != nil {
		t.Fatal(err)
	}
	sdir := filepath.Join(dir, "clean")
	logDir := filepath.Join(sdir, evidence.LogDir)
	files := http.FileServer(http.Dir(logDir))
	bundles, _ := filepath.Glob(filepath.Join(logDir, "tile", "entries", "*", "*"))
	if len(bundles) == 0 {
		t.Fatal("no entry bundle")
	}
	rel, _ := filepath.Rel(logDir, bundles[0])
	bundlePath := "/" + filepath.ToSlash(rel)
	original, err := os.ReadFile(bundles[0])
	if err != nil {
		t.Fatal(err)
	}
	swapped := bytes.Clone(original)
	swapped[40] ^= 0xff
	var bundleReads atomic.Int32
	servers := map[string]http.HandlerFunc{
		"split-view": func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == bundlePath && bundleReads.Add(1) > 1 {
				w.Write(swapped)
				return
			}
			files.ServeHTTP(w, r)
		},
		"trickle": evidencetest.Trickle(time.Second),
		"slow-inside-limits": func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-time.After(time.Second): // under the 15 s header limit
			case <-r.Context().Done():
				return
			}
			files.ServeHTTP(w, r)
		},
	}
	for name, h := range servers {
		t.Run(name, func(t *testing.T) {
			srv := httptest.NewServer(h)
			defer srv.Close()
			args := []string{"verify", "snapshot.db", "--log", srv.URL, "--log-key", evidence.LogKeyFile, "--trust", evidence.TrustFile, "--log-deadline", "3s"}
			r := runLimited(t, bin, sdir, args...)
			checkRun(t, args, r, name, false)
			if r.took > 20*time.Second {
				t.Errorf("%s: verify took %v with a 3 s deadline", name, r.took)
			}
			switch name {
			case "split-view":
				if r.code != 1 || !bytes.Contains(r.stdout, []byte("LOG_SPLIT_VIEW")) {
					t.Errorf("split view: exit %d\n%s", r.code, clipOut(r.stdout))
				}
			default:
				if r.code != 2 || !strings.Contains(string(r.stderr)+string(r.stdout), "deadline") && !strings.Contains(string(r.stderr)+string(r.stdout), "bytes a second") {
					t.Errorf("%s: exit %d (want a refusal naming the deadline)\nstdout %s\nstderr %s", name, r.code, clipOut(r.stdout), clipOut(r.stderr))
				}
			}
		})
	}
}

// Log damage (issue 23 item 5): a flipped hash in a stored tile over
// intact bundles is one TILE_MISMATCH and no record fails inclusion; with a
// bundle byte flipped too the bundles no longer reach the root, the tile
// cannot be repaired from them, the proofs through it fail, and lineage
// draws no verdict from such a log.
func TestHostileLogDamage(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildBinary(t)
	cases, err := Generate(context.Background(), t.TempDir(), "hash-tile-flipped", "tile-and-bundle-flipped")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			cdir := filepath.Dir(c.Log)
			before := digest(t, cdir)
			args := []string{"verify", c.Snapshot, "--log", c.Log, "--log-key", evidence.LogKeyFile, "--trust", evidence.TrustFile}
			r := runLimited(t, bin, cdir, args...)
			checkRun(t, args, r, c.About, false)
			out := string(r.stdout)
			inclusion := strings.Count(out, "INCLUSION_FAILED")
			switch c.Name {
			case "hash-tile-flipped":
				if r.code != 1 || !strings.Contains(out, "TILE_MISMATCH") || inclusion != 0 {
					t.Errorf("exit %d, INCLUSION_FAILED %d times (want TILE_MISMATCH alone)\n%s", r.code, inclusion, clipOut(r.stdout))
				}
			case "tile-and-bundle-flipped":
				if r.code != 1 || !strings.Contains(out, "TILE_MISMATCH") || inclusion == 0 {
					t.Errorf("exit %d, INCLUSION_FAILED %d times (want every record)\n%s", r.code, inclusion, clipOut(r.stdout))
				}
			}
			args = []string{"lineage", c.Snapshot, "--log", c.Log, "--log-key", evidence.LogKeyFile, "--trust", evidence.TrustFile}
			r = runLimited(t, bin, cdir, args...)
			checkRun(t, args, r, c.About, true)
			// Only a log that proves no entry leaves the gate unjudged.
			if refused := bytes.Contains(r.stdout, []byte("proves no entry")); refused != (c.Name == "tile-and-bundle-flipped") {
				t.Errorf("lineage: verdicts refused %v\n%s", refused, clipOut(r.stdout))
			}
			checkUnchanged(t, cdir, before)
		})
	}
}
