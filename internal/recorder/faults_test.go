package recorder_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// rawAgent speaks JSON-RPC lines to the gateway directly, so it can send
// what no SDK client would.
type rawAgent struct {
	t     *testing.T
	cmd   *exec.Cmd
	in    io.WriteCloser
	out   *bufio.Reader
	lines chan []byte
}

func startRaw(t *testing.T, memscope, store, cfg string) *rawAgent {
	t.Helper()
	cmd := exec.Command(memscope, "record", "--store", store, "--config", cfg)
	cmd.Stderr = &testLog{t: t}
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	a := &rawAgent{t: t, cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<20), lines: make(chan []byte, 16)}
	go func() {
		defer close(a.lines)
		for {
			line, err := a.out.ReadBytes('\n')
			if len(line) > 0 {
				a.lines <- line
			}
			if err != nil {
				return
			}
		}
	}()
	return a
}

func (a *rawAgent) send(s string) {
	a.t.Helper()
	if _, err := io.WriteString(a.in, s+"\n"); err != nil {
		a.t.Fatalf("send: %v", err)
	}
}

type rpcReply struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
	raw int
}

// next reads the next message (skipping notifications) within d.
func (a *rawAgent) next(d time.Duration) rpcReply {
	a.t.Helper()
	deadline := time.After(d)
	for {
		select {
		case line, ok := <-a.lines:
			if !ok {
				a.t.Fatal("the gateway closed its output")
			}
			var r rpcReply
			if err := json.Unmarshal(line, &r); err != nil {
				a.t.Fatalf("gateway sent a line that is not JSON: %v: %.200s", err, line)
			}
			if r.ID == nil {
				continue
			}
			r.raw = len(line)
			return r
		case <-deadline:
			a.t.Fatalf("no answer from the gateway within %v", d)
		}
	}
}

func (a *rawAgent) callTool(id int, name string, args string) rpcReply {
	a.t.Helper()
	a.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, id, name, args))
	r := a.next(time.Minute)
	if string(r.ID) != strconv.Itoa(id) {
		a.t.Fatalf("answer for id %s, want %d", r.ID, id)
	}
	return r
}

// peakRSS is the gateway's peak resident memory in bytes (VmHWM).
func peakRSS(t *testing.T, pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmHWM:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10
		}
	}
	return 0
}

// TestProtocolFaults sends malformed JSON-RPC from the agent, makes the
// web server write garbage and a response for an id nobody sent, hang,
// return 50 MB and crash, and requires each to be forwarded or refused as
// JSON-RPC says, none recorded as a write, the gateway to stay up for the
// other servers, its memory bounded, and verify to pass.
func TestProtocolFaults(t *testing.T) {
	memServer := serverMemory(t)
	memscope, web, pay := bins(t)
	dir := t.TempDir()
	store := filepath.Join(dir, "store")
	initStore(t, memscope, store)
	cfg := storyConfig(t, dir, memServer, web, pay, `,"call_timeout_ms":120000`)
	a := startRaw(t, memscope, store, cfg)
	defer func() { _ = a.cmd.Process.Kill(); _ = a.cmd.Wait() }()

	a.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	if r := a.next(30 * time.Second); r.Error != nil || r.Result == nil {
		t.Fatalf("initialize: %+v", r)
	}
	a.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)

	// Malformed from the agent: a parse error (id null), a wrong version
	// (invalid request, its id), a batch, a response for an unknown id.
	a.send(`{not json`)
	if r := a.next(10 * time.Second); r.Error == nil || r.Error.Code != -32700 || string(r.ID) != "null" {
		t.Errorf("malformed line: want a parse error with id null, got %+v", r)
	}
	a.send(`{"jsonrpc":"1.0","id":7,"method":"tools/list"}`)
	if r := a.next(10 * time.Second); r.Error == nil || r.Error.Code != -32600 || string(r.ID) != "7" {
		t.Errorf("wrong jsonrpc version: want invalid request for id 7, got %+v", r)
	}
	a.send(`[{"jsonrpc":"2.0","id":8,"method":"tools/list"}]`)
	if r := a.next(10 * time.Second); r.Error == nil {
		t.Errorf("batch: want an error, got %+v", r)
	}
	a.send(`{"jsonrpc":"2.0","id":"memscope-999","result":{}}`)

	// From the upstream: a malformed line and a forged response, then the
	// real answer.
	if r := a.callTool(10, "garbage", `{}`); r.Error != nil || !strings.Contains(string(r.Result), "after garbage") {
		t.Errorf("garbage: want the real answer, got %+v", r)
	}
	// 50 MB: forwarded whole.
	if r := a.callTool(12, "fetch_large", `{"mb":50}`); r.Error != nil || r.raw < 50<<20 {
		t.Errorf("50 MB result: want it forwarded (%d bytes), error %+v", r.raw, r.Error)
	}
	// A crash: an error for the call, and the other servers still answer.
	if r := a.callTool(13, "crash", `{}`); r.Error == nil {
		t.Errorf("crash: want an error, got %+v", r)
	}
	if r := a.callTool(14, "fetch_page", `{"url":"x"}`); r.Error == nil {
		t.Errorf("call to the crashed server: want an error, got %+v", r)
	}
	if r := a.callTool(15, "create_entities", `{"entities":[{"name":"still up","entityType":"t","observations":[]}]}`); r.Error != nil {
		t.Errorf("memory server after the web server crashed: %+v", r.Error)
	}
	rss := peakRSS(t, a.cmd.Process.Pid)
	t.Logf("gateway peak RSS %d MiB after a 50 MB result (message limit 64 MiB)", rss>>20)
	if rss > 700<<20 {
		t.Errorf("gateway peak RSS %d MiB: not bounded by a few times the message size", rss>>20)
	}
	a.in.Close()
	if err := a.cmd.Wait(); err != nil {
		t.Errorf("gateway exit: %v", err)
	}

	// A hang, in a session whose calls time out after 1.5 s: refused, and
	// the gateway still answers.
	hangCfg := filepath.Join(dir, "hang.json")
	if err := os.WriteFile(hangCfg, []byte(fmt.Sprintf(`{"servers":[{"name":"web","command":[%q],"role":"source-untrusted"}],"call_timeout_ms":1500}`, web)), 0o644); err != nil {
		t.Fatal(err)
	}
	h := startRaw(t, memscope, store, hangCfg)
	h.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	h.next(30 * time.Second)
	h.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	if r := h.callTool(11, "hang", `{}`); r.Error == nil || !strings.Contains(r.Error.Message, "did not answer") {
		t.Errorf("hang: want a timeout error, got %+v", r)
	}
	if r := h.callTool(16, "garbage", `{}`); r.Error != nil {
		t.Errorf("after a hang: %+v", r.Error)
	}
	h.in.Close()
	if err := h.cmd.Wait(); err != nil {
		t.Errorf("gateway exit: %v", err)
	}

	snap := filepath.Join(store, "snapshot.db")
	out, code := memscopeRun(t, memscope, append([]string{"verify", snap}, anchors(store)...)...)
	if code != 0 {
		t.Fatalf("verify exit %d:\n%s", code, out)
	}
	db := openSnapshot(t, snap)
	defer db.Close()
	rows, err := db.Query("SELECT writer, substr(content, 1, 120) FROM entries ORDER BY seq")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var got []string
	for rows.Next() {
		var w, c string
		if err := rows.Scan(&w, &c); err != nil {
			t.Fatal(err)
		}
		got = append(got, w+": "+c)
	}
	// Recorded: the garbage tool's real output, the 50 MB page as a note
	// of its size and hash, and the entity. Never the forged response, the
	// hang or the crash.
	want := []string{"external:web: after garbage", "external:web: [memscope record: content of a 5242", `agent:default: {"name":"still up"`, "external:web: after garbage"}
	if len(got) != len(want) {
		t.Fatalf("entries recorded:\n%s\nwant %d", strings.Join(got, "\n"), len(want))
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("entry %d: %q, want prefix %q", i, got[i], want[i])
		}
	}
}
