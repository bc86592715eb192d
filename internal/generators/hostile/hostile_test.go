package hostile

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/memscope/memscope/evidence"
	"github.com/memscope/memscope/internal/present/sanitize"
)

// The hostile-evidence suite runs every analysing command of the built
// memscope binary on every adversarial case, each under a virtual-memory
// limit (ulimit -v), GOMEMLIMIT and a timeout, and asserts: the command
// ends (no hang) with status 0, 1 or 2 (no panic, no kill by the memory
// limit), prints no raw control, bidi or invisible character on stdout or
// stderr, and leaves the evidence byte for byte as it was. By default a
// few cases run (go test ./... stays fast); MEMSCOPE_HOSTILE=1 runs them
// all, as .ci/run does.

const (
	memLimitKB = 2 << 20 // ulimit -v: 2 GiB of address space
	cmdTimeout = 60 * time.Second
)

// verifyMayPass: cases whose evidence verify rightly passes (the attack is
// on another command, or on how a name is echoed).
var verifyMayPass = map[string]bool{"revoke-row-first": true, "meta-claims-import": true, "escape-file-name": true, "channel-promotion": true}

var quick = []string{"view-entries-900MB", "checkpoint-2^63", "escapes-everywhere", "bad-plain-rows"}

var (
	binOnce sync.Once
	binDir  string
	binErr  error
)

// buildBinary builds memscope once per test binary.
func buildBinary(t *testing.T) string {
	t.Helper()
	binOnce.Do(func() {
		if binDir, binErr = os.MkdirTemp("", "hostile-bin-"); binErr != nil {
			return
		}
		out, err := exec.Command("go", "build", "-o", filepath.Join(binDir, "memscope"), "../../../cmd/memscope").CombinedOutput()
		if err != nil {
			binErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return filepath.Join(binDir, "memscope")
}

func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

type result struct {
	code           int
	stdout, stderr []byte
	took           time.Duration
}

// runLimited runs bin under the limits; it never returns before the
// process ended (a timeout kills it and fails the test).
func runLimited(t *testing.T, bin, dir string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), cmdTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "/bin/sh", append([]string{"-c", `ulimit -v ` + strconv.Itoa(memLimitKB) + ` && exec "$0" "$@"`, bin}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOMEMLIMIT=768MiB", "TERM=dumb")
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	start := time.Now()
	err := cmd.Run()
	r := result{stdout: so.Bytes(), stderr: se.Bytes(), took: time.Since(start)}
	var ee *exec.ExitError
	switch {
	case ctx.Err() != nil:
		t.Fatalf("memscope %s: no answer within %v (a hang)\nstderr: %s", strings.Join(args, " "), cmdTimeout, clipOut(se.Bytes()))
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	return r
}

func clipOut(b []byte) string {
	if len(b) > 2000 {
		b = b[:2000]
	}
	return sanitize.Block(string(b), 8)
}

// rawControl reports the first line that the sanitiser would change: a
// terminal escape, a C0/C1 control, a bidi or invisible rune.
func rawControl(b []byte) (string, bool) {
	if !utf8.Valid(b) {
		return "invalid UTF-8", true
	}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.ContainsRune(line, '\t') {
			line = strings.ReplaceAll(line, "\t", " ")
		}
		// Safe, not Line: sanitised output holds escaped escapes (\\, \<),
		// which Line would escape again; Safe changes only what is unsafe.
		if sanitize.Safe(line) != line {
			return sanitize.Safe(line), true
		}
	}
	return "", false
}

// digest maps every file under dir to its hash, symlinks to their target
// and special files to their type, never opening a FIFO.
func digest(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			out[rel] = "-> " + target
		case d.IsDir():
			out[rel] = "dir"
		case d.Type().IsRegular():
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			h := sha256.Sum256(b)
			out[rel] = hex.EncodeToString(h[:])
		default:
			out[rel] = d.Type().String()
		}
		return nil
	})
	return out
}

// commands are the analysing commands run on each case; out is a directory
// outside the evidence for the report's new files. --json runs only for
// verify and replay: JSON escapes every control character by encoding, and
// each further run costs the whole suite a case's worth of time.
func commands(c Case, anchors, out string) [][]string {
	s, l := c.Snapshot, c.Log
	return [][]string{
		{"verify", s, "--log", l, "--anchors", anchors},
		{"verify", s, "--log", l, "--json"},
		{"lineage", s, "--log", l},
		{"lineage", "sweep", s},
		{"replay", s, "--log", l, "--anchors", anchors},
		{"replay", s, "--log", l, "--labels"},
		{"replay", s, "--log", l, "--json"},
		{"actions", s, "--log", l, "--anchors", anchors},
		{"timeline", s, "--log", l},
		{"diff", s, s, "--log", l},
		{"exposure", s, "--log", l, "--anchors", anchors, "--draws", "50", "--curve-draws", "4"},
		{"report", s, "--log", l, "--anchors", anchors, "--out", filepath.Join(out, "report.html"), "--json", filepath.Join(out, "case.json")},
		{"inspect", s, "--log", l},
	}
}

// nativeCommands are the commands that read a foreign store.
func nativeCommands(c NativeCase) [][]string {
	s := c.Store
	replay := []string{"replay", s}
	if c.Queries != "" {
		replay = append(replay, "--queries", c.Queries)
	}
	return [][]string{
		{"verify", s},
		{"verify", s, "--json"},
		{"lineage", s},
		{"lineage", s, "--json"},
		replay,
		append(append([]string{}, replay...), "--json"),
		append(append([]string{}, replay...), "--labels"),
		{"inspect", s},
	}
}

// checkRun asserts what every run on hostile input must show: an end (the
// caller's timeout), status 0, 1 or 2 (no panic, no kill by the memory
// limit), no raw control character on either stream, a word when it
// fails. verifyMayPass says whether verify may exit 0 on this input.
func checkRun(t *testing.T, args []string, r result, about string, verifyMayPass bool) {
	t.Helper()
	what := "memscope " + sanitize.Line(strings.Join(args, " "))
	if r.code < 0 || r.code > 2 {
		t.Errorf("%s: exit %d (killed?)\nstderr: %s", what, r.code, clipOut(r.stderr))
	}
	for _, bad := range []string{"panic:", "fatal error:", "goroutine "} {
		if bytes.Contains(r.stderr, []byte(bad)) {
			t.Errorf("%s: %s on stderr:\n%s", what, bad, clipOut(r.stderr))
		}
	}
	if line, ok := rawControl(r.stdout); ok {
		t.Errorf("%s: raw control on stdout: %s", what, line)
	}
	if line, ok := rawControl(r.stderr); ok {
		t.Errorf("%s: raw control on stderr: %s", what, line)
	}
	if args[0] == "verify" && r.code == 0 && !verifyMayPass {
		t.Errorf("%s: exit 0 on hostile evidence (%s)\n%s", what, about, clipOut(r.stdout))
	}
	if r.code != 0 && len(r.stdout)+len(r.stderr) == 0 {
		t.Errorf("%s: exit %d without a word", what, r.code)
	}
}

// checkUnchanged compares the evidence directory with its digest before.
func checkUnchanged(t *testing.T, dir string, before map[string]string) {
	t.Helper()
	after := digest(t, dir)
	for k, v := range before {
		if after[k] != v {
			t.Errorf("evidence changed: %s", sanitize.Line(k))
		}
	}
	for k := range after {
		if _, ok := before[k]; !ok {
			t.Errorf("a file appeared beside the evidence: %s", sanitize.Line(k))
		}
	}
}

func TestHostileEvidence(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("ulimit -v and FIFOs: linux only")
	}
	names := quick
	full := os.Getenv("MEMSCOPE_HOSTILE") == "1"
	if full {
		names = nil
	}
	// MEMSCOPE_HOSTILE_CASES=a,b runs every command on those cases only
	// (a developer checking the classes they added).
	if only := os.Getenv("MEMSCOPE_HOSTILE_CASES"); only != "" {
		names, full = strings.Split(only, ","), true
	}
	bin := buildBinary(t)
	dir := t.TempDir()
	cases, err := Generate(context.Background(), dir, names...)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			t.Parallel()
			cdir := filepath.Dir(c.Log)
			anchors := filepath.Join(cdir, evidence.ManifestFile)
			before := digest(t, cdir)
			cmds := commands(c, anchors, t.TempDir())
			if !full {
				cmds = cmds[:2]
			}
			for _, args := range cmds {
				r := runLimited(t, bin, cdir, args...)
				checkRun(t, args, r, c.About, verifyMayPass[c.Name])
				// Escapes in entry content, node labels and query text
				// are shown escaped and are a finding of their own.
				if c.Name == "escapes-everywhere" && args[0] == "verify" && !bytes.Contains(r.stdout, []byte("TEXT_CONTROL_CHARS")) {
					t.Errorf("memscope %s: no TEXT_CONTROL_CHARS finding\n%s", sanitize.Line(strings.Join(args, " ")), clipOut(r.stdout))
				}
				checkLabelClass(t, c.Name, args, r)
			}
			checkUnchanged(t, cdir, before)
		})
	}
}

// The foreign-store readers under the same limits: verify, lineage,
// replay and inspect on hostile HippoRAG, LightRAG, GraphRAG, Mem0 and
// SMSR stores. A store whose readable text carries terminal escapes is a
// TEXT_CONTROL_CHARS error, so verify exits 1 on it (the text is shown
// escaped either way); verify may exit 0 on the others (a store that
// reads as empty is reported unsigned, not failed).
//
// controlCases are the cases whose escapes reach a field that is read
// (lightrag-escapes puts ESC in GraphML as a character reference, which
// XML 1.0 forbids, so the graph does not parse; smsr-view-and-escapes
// hides its escapes behind a view, which is not read; the GraphRAG parquet
// with escapes is no parquet at all).
var controlCases = map[string]bool{"lightrag-chunks-escapes": true, "mem0-escapes-bad-rows": true}

// parserVerdicts: what verify must say on the parser-differential and bomb
// cases: a finding code (exit 1), or a refusal (exit 2) naming this file.
var parserVerdicts = map[string]string{
	"lightrag-graphml-decoys": "STORE_PARSE_DIFFERENTIAL", "lightrag-json-case-twin": "STORE_PARSE_DIFFERENTIAL",
	"mem0-rowid-shadow": "STORE_PARSE_DIFFERENTIAL", "hipporag-negative-weight": "STORE_RECORD_MALFORMED",
	"hipporag-vdb-snappy-4GiB":   "STORE_RECORD_MALFORMED",
	"lightrag-graphml-hyperedge": "exit 2: " + graphmlName, "graphrag-parquet-snappy-4GiB": "exit 2: entities.parquet",
	"graphrag-parquet-gzip-1000x": "exit 2: entities.parquet", "graphrag-parquet-schema-100000-deep": "exit 2: entities.parquet",
	"graphrag-parquet-thrift-nesting": "exit 2: entities.parquet",
}

func checkParserVerdict(t *testing.T, name string, args []string, r result) {
	t.Helper()
	want, ok := parserVerdicts[name]
	if !ok || len(args) != 2 || args[0] != "verify" {
		return
	}
	if file, refusal := strings.CutPrefix(want, "exit 2: "); refusal {
		if r.code != 2 || !bytes.Contains(r.stderr, []byte(file)) {
			t.Errorf("verify: exit %d, want 2 with an error naming %s\n%s", r.code, file, clipOut(r.stderr))
		}
		return
	}
	if r.code != 1 || !bytes.Contains(r.stdout, []byte(want)) {
		t.Errorf("verify: exit %d, want 1 with %s\n%s", r.code, want, clipOut(r.stdout))
	}
}

func TestHostileNativeStores(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("ulimit -v and FIFOs: linux only")
	}
	full := os.Getenv("MEMSCOPE_HOSTILE") == "1"
	names := []string{"lightrag-escapes", "mem0-recursive-view"}
	if full {
		names = nil
	}
	// MEMSCOPE_HOSTILE_NATIVE=a,b runs those cases with every command.
	if only := os.Getenv("MEMSCOPE_HOSTILE_NATIVE"); only != "" {
		names, full = strings.Split(only, ","), true
	}
	bin := buildBinary(t)
	cases, err := GenerateNative(context.Background(), t.TempDir(), "../../..", names...)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			t.Parallel()
			cdir := filepath.Dir(c.Store)
			before := digest(t, cdir)
			cmds := nativeCommands(c)
			if !full {
				cmds = cmds[:1]
			}
			for _, args := range cmds {
				r := runLimited(t, bin, cdir, args...)
				checkRun(t, args, r, c.About, !controlCases[c.Name])
				checkParserVerdict(t, c.Name, args, r)
				if args[0] == "verify" && controlCases[c.Name] && !bytes.Contains(r.stdout, []byte("TEXT_CONTROL_CHARS")) {
					t.Errorf("memscope %s: no TEXT_CONTROL_CHARS finding on a store with terminal escapes\n%s", sanitize.Line(strings.Join(args, " ")), clipOut(r.stdout))
				}
			}
			checkUnchanged(t, cdir, before)
		})
	}
}

// certify takes no evidence, only numbers: extreme ones end at once with
// an answer or a usage error, never a loop over a pool of two billion.
func TestHostileCertifyArguments(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("ulimit -v: linux only")
	}
	bin := buildBinary(t)
	dir := t.TempDir()
	for _, args := range [][]string{
		{"certify", "--m", "2000000000", "--k", "1000000000", "--n", "1000000001", "--t", "999999999"},
		{"certify", "--m", "2000000000", "--target", "1e-300"},
		{"certify", "--m", "-1", "--k", "-5", "--n", "0", "--t", "-1"},
		{"certify", "--m", "20", "--target", "NaN"},
		{"certify", "--m", "9223372036854775807", "--n", "9223372036854775807", "--json"},
	} {
		r := runLimited(t, bin, dir, args...)
		checkRun(t, args, r, "extreme certificate parameters", true)
		if r.took > 20*time.Second {
			t.Errorf("%v: %v", args, r.took)
		}
	}
}

// replayClasses runs replay --json and returns query -> class.
func replayClasses(t *testing.T, bin string, c Case) map[string]string {
	t.Helper()
	r := runLimited(t, bin, filepath.Dir(c.Log), "replay", c.Snapshot, "--log", c.Log, "--json")
	var rows []struct {
		Query string `json:"query"`
		Class string `json:"class"`
		Error string `json:"error"`
	}
	if err := json.Unmarshal(r.stdout, &rows); err != nil {
		t.Fatalf("replay --json (exit %d): %v\n%s\n%s", r.code, err, clipOut(r.stdout), clipOut(r.stderr))
	}
	out := map[string]string{}
	for _, row := range rows {
		out[row.Query] = row.Class
	}
	return out
}

// Specific cases: unsigned claims steer nothing, and one bad input fails
// alone.
func TestHostileVerdicts(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildBinary(t)
	dir := t.TempDir()
	cases, err := Generate(context.Background(), dir, "meta-claims-import", "unknown-reset-node", "duplicate-write-row", "bad-plain-rows")
	if err != nil {
		t.Fatal(err)
	}
	m, _ := evidence.ReadManifest(filepath.Join(dir, "base", "structural-write"))
	base := Case{Snapshot: filepath.Join(dir, "base", "structural-write", m.Snapshot), Log: filepath.Join(dir, "base", "structural-write", m.Log)}
	want := replayClasses(t, bin, base)
	diverge := 0
	for _, c := range want {
		if c == "DIVERGE" {
			diverge++
		}
	}
	if diverge == 0 {
		t.Fatalf("fixture: structural-write replays no DIVERGE: %v", want)
	}
	for _, c := range cases {
		got := replayClasses(t, bin, c)
		switch c.Name {
		case "meta-claims-import", "duplicate-write-row":
			// Two unsigned meta rows, or a duplicated row, change nothing.
			for q, cl := range want {
				if got[q] != cl {
					t.Errorf("%s: query %s replays %s, want %s", c.Name, q, got[q], cl)
				}
			}
		case "unknown-reset-node":
			failed := 0
			for q, cl := range got {
				if cl == "FAILED" {
					failed++
				} else if cl != want[q] {
					t.Errorf("%s: query %s replays %s, want %s", c.Name, q, cl, want[q])
				}
			}
			if failed != 1 || len(got) != len(want) {
				t.Errorf("%s: %d failed of %d rows (want 1 of %d)", c.Name, failed, len(got), len(want))
			}
		case "bad-plain-rows":
			// The malformed query row is named on stderr; every other
			// query is still replayed.
			if len(got) != len(want)-1 {
				t.Errorf("%s: %d rows, want %d", c.Name, len(got), len(want)-1)
			}
			r := runLimited(t, bin, filepath.Dir(c.Log), "lineage", c.Snapshot, "--log", c.Log)
			if r.code != 1 || !bytes.Contains(r.stderr, []byte("table actions")) {
				t.Errorf("%s: lineage exit %d, stderr %s", c.Name, r.code, clipOut(r.stderr))
			}
		}
	}
}
