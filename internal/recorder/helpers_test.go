package recorder_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/memscope/memscope/internal/recorder"
	"github.com/memscope/memscope/internal/sharedtest"
)

// Binaries the tests run: memscope itself and the two testdata servers,
// built once per test binary.
var (
	buildOnce sync.Once
	binDir    string
	buildErr  error
)

// TestMain removes the built binaries (74 MB) after the run: every test
// process builds its own, and left behind they filled /tmp.
func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

func repoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

func bins(t *testing.T) (memscope, web, pay string) {
	t.Helper()
	buildOnce.Do(func() {
		binDir, buildErr = os.MkdirTemp("", "memscope-record-bins")
		if buildErr != nil {
			return
		}
		for name, pkg := range map[string]string{"memscope": "./cmd/memscope", "web": "./internal/recorder/testdata/webserver", "pay": "./internal/recorder/testdata/payserver", "notes": "./internal/recorder/testdata/notesserver", "smuggle": "./internal/recorder/testdata/smuggleserver"} {
			cmd := exec.Command("go", "build", "-o", filepath.Join(binDir, name), pkg)
			cmd.Dir = repoRoot()
			if out, err := cmd.CombinedOutput(); err != nil {
				buildErr = fmt.Errorf("go build %s: %v\n%s", pkg, err, out)
				return
			}
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return filepath.Join(binDir, "memscope"), filepath.Join(binDir, "web"), filepath.Join(binDir, "pay")
}

// serverMemory is the reference memory server .ci/services.sh installs
// (pinned there); the test skips without it, and CI must have it.
func serverMemory(t *testing.T) string { return sharedtest.ServerMemory(t).Bin }

func initStore(t *testing.T, memscope, dir string) {
	t.Helper()
	out, err := exec.Command(memscope, "record", "init", dir).CombinedOutput()
	if err != nil {
		t.Fatalf("record init: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "memscope verify "+filepath.Join(dir, "snapshot.db")) {
		t.Fatalf("record init does not print the verify command:\n%s", out)
	}
}

// storyConfig writes a config with the real memory server, the web server
// (untrusted) and the payment server (sensitive).
func storyConfig(t *testing.T, dir, memServer, web, pay string, extra string) string {
	t.Helper()
	cfg := fmt.Sprintf(`{"servers":[
 {"name":"memory","command":[%q],"env":{"MEMORY_FILE_PATH":%q},"role":"memory"},
 {"name":"web","command":[%q],"role":"source-untrusted"},
 {"name":"bank","command":[%q],"role":"sensitive"}
]%s}`, memServer, filepath.Join(dir, "memory.jsonl"), web, pay, extra)
	p := filepath.Join(dir, "config.json")
	if err := os.WriteFile(p, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// connect starts memscope record as the agent's MCP server and connects
// the Go SDK's client to it.
func connect(t *testing.T, ctx context.Context, memscope, store, cfg string) (*mcp.ClientSession, *exec.Cmd) {
	t.Helper()
	return connectArgs(t, ctx, memscope, "record", "--store", store, "--config", cfg)
}

// connectArgs is connect with the gateway's arguments given.
func connectArgs(t *testing.T, ctx context.Context, memscope string, args ...string) (*mcp.ClientSession, *exec.Cmd) {
	t.Helper()
	cmd := exec.Command(memscope, args...)
	cmd.Stderr = &testLog{t: t}
	client := mcp.NewClient(&mcp.Implementation{Name: "scripted-agent", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: 10 * time.Second}, nil)
	if err != nil {
		t.Fatalf("connect through the gateway: %v", err)
	}
	return cs, cmd
}

type testLog struct {
	t  *testing.T
	mu sync.Mutex
}

func (l *testLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.t.Logf("gateway: %s", strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

func call(t *testing.T, ctx context.Context, cs *mcp.ClientSession, tool string, args any) string {
	t.Helper()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	if res.IsError {
		t.Fatalf("%s: tool error %v", tool, res.Content)
	}
	var sb strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			sb.WriteString(tc.Text)
		}
	}
	return sb.String()
}

// memscopeRun runs a memscope command and returns stdout and the exit code.
func memscopeRun(t *testing.T, memscope string, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(memscope, args...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("memscope %v: %v", args, err)
	}
	if code == 2 {
		t.Logf("memscope %v stderr: %s", args, stderr.String())
	}
	return string(out), code
}

func anchors(store string) []string {
	return []string{"--log", filepath.Join(store, "log"), "--log-key", filepath.Join(store, "log.vkey"), "--trust", filepath.Join(store, "trust.keys")}
}

func jsonOf(t *testing.T, s string) any {
	t.Helper()
	var m any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatalf("not JSON: %v\n%.2000s", err, s)
	}
	return m
}

// storySetup builds the binaries, makes a store and the story's config
// (real memory server, web, bank); extra is appended to the config.
func storySetup(t *testing.T, extra string) (memscope, dir, store, cfg string) {
	t.Helper()
	memServer := serverMemory(t)
	memscope, web, pay := bins(t)
	dir = t.TempDir()
	store = filepath.Join(dir, "store")
	initStore(t, memscope, store)
	return memscope, dir, store, storyConfig(t, dir, memServer, web, pay, extra)
}

// openRecorder makes a fresh store and opens it in process.
func openRecorder(t *testing.T) (*recorder.Recorder, string) {
	t.Helper()
	return openRecorderAck(t, "")
}

// openRecorderAck is openRecorder with an acknowledgement mode.
func openRecorderAck(t *testing.T, ack recorder.Ack) (*recorder.Recorder, string) {
	t.Helper()
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "store")
	if _, err := recorder.Init(ctx, dir, nil, ""); err != nil {
		t.Fatal(err)
	}
	rec, err := recorder.Open(ctx, recorder.Options{Dir: dir, Ack: ack})
	if err != nil {
		t.Fatal(err)
	}
	return rec, dir
}

// renderedText renders an HTML file in headless Chromium (Debian's
// chromium), prints it to PDF and returns the PDF's text (pdftotext from
// poppler-utils): what a reader of the printed report sees, not the HTML
// source. Without the two programs it skips, unless CI is set.
func renderedText(t *testing.T, html string) string {
	t.Helper()
	bin := sharedtest.Chromium(t)
	if _, err := exec.LookPath("pdftotext"); err != nil {
		sharedtest.Missing(t, "pdftotext (apt-get install poppler-utils)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	pdf := filepath.Join(t.TempDir(), "report.pdf")
	cmd := exec.CommandContext(ctx, bin, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-extensions",
		"--user-data-dir="+t.TempDir(), "--no-pdf-header-footer", "--print-to-pdf="+pdf, "file://"+html)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("chromium: %v\n%s", err, out)
	}
	out, err := exec.CommandContext(ctx, "pdftotext", "-enc", "UTF-8", pdf, "-").Output()
	if err != nil {
		t.Fatalf("pdftotext: %v", err)
	}
	return string(out)
}

// envCount reads a positive count from the environment variable name, or
// returns def when it is unset. Anything else stops the test: a typo must
// not run the default under the label the caller asked for.
func envCount(t *testing.T, name string, def int) int {
	t.Helper()
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		t.Fatalf("%s=%q: want a positive whole number", name, v)
	}
	return n
}
