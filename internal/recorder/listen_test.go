package recorder_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/memscope/memscope/internal/recorder"
)

// TestListenServesSessions runs memscope record --listen as a user would
// for several agents: sessions connect on the socket (the Go SDK's client
// over the connection, and one through memscope record --connect, the
// relay for agents that can only start a command), write concurrently,
// and every write is in the store, which verify passes. The socket is
// owner-only, an existing path is refused and left alone, a session
// beyond the limit is refused with a JSON-RPC error, and the socket is
// removed when the gateway is interrupted.
func TestListenServesSessions(t *testing.T) {
	memscope, _, _ := bins(t)
	notes := filepath.Join(filepath.Dir(memscope), "notes")
	dir := t.TempDir()
	store := filepath.Join(dir, "store")
	initStore(t, memscope, store)
	sock := filepath.Join(dir, "gw.sock")

	// A path that exists is refused and not touched.
	if err := os.WriteFile(sock, []byte("not a socket"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, code := memscopeRun(t, memscope, "record", "--store", store, "--config", writeNotesConfig(t, dir, notes), "--listen", sock)
	if code != 2 {
		t.Fatalf("--listen on an existing path: exit %d, want 2\n%s", code, out)
	}
	if b, _ := os.ReadFile(sock); string(b) != "not a socket" {
		t.Fatalf("--listen changed the existing file at its path: %q", b)
	}
	os.Remove(sock)

	gw := exec.Command(memscope, "record", "--store", store, "--config", writeNotesConfig(t, dir, notes), "--listen", sock)
	gw.Stderr = &testLog{t: t}
	if err := gw.Start(); err != nil {
		t.Fatal(err)
	}
	defer gw.Process.Kill()
	waitForSocket(t, sock)
	if st, err := os.Lstat(sock); err != nil || st.Mode()&os.ModeSocket == 0 || st.Mode().Perm()&0o077 != 0 {
		t.Fatalf("socket %s: %v %v, want an owner-only socket", sock, st.Mode(), err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var sessions []*mcp.ClientSession
	for i := 0; i < 3; i++ {
		c, err := net.Dial("unix", sock)
		if err != nil {
			t.Fatal(err)
		}
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, nil).Connect(ctx, &mcp.IOTransport{Reader: c, Writer: c}, nil)
		if err != nil {
			t.Fatal(err)
		}
		sessions = append(sessions, cs)
	}
	relay, _ := connectArgs(t, ctx, memscope, "record", "--connect", sock)
	sessions = append(sessions, relay)

	const perSession = 5
	var wg sync.WaitGroup
	for i, cs := range sessions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := 0; k < perSession; k++ {
				if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "remember", Arguments: map[string]any{"text": fmt.Sprintf("session %d note %d", i, k)}}); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()

	// The limit: with the four sessions open, fill the rest of the slots
	// with bare connections; the next one is refused.
	var idle []net.Conn
	for i := len(sessions); i < recorder.MaxListenSessions; i++ {
		c, err := net.Dial("unix", sock)
		if err != nil {
			t.Fatal(err)
		}
		idle = append(idle, c)
	}
	// The gateway counts a session once it accepts it: give the accept
	// loop the connections before the one over the limit.
	time.Sleep(200 * time.Millisecond)
	over, err := net.Dial("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	over.SetReadDeadline(time.Now().Add(30 * time.Second))
	line, _ := bufio.NewReader(over).ReadString('\n')
	if !strings.Contains(line, `"error"`) || !strings.Contains(line, "sessions already open") {
		t.Fatalf("session %d: got %q, want a JSON-RPC error saying the gateway is full", recorder.MaxListenSessions+1, line)
	}
	for _, c := range append(idle, over) {
		c.Close()
	}
	for _, cs := range sessions {
		cs.Close()
	}

	if err := gw.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	if err := gw.Wait(); err != nil {
		t.Fatalf("the gateway after Ctrl-C: %v", err)
	}
	if _, err := os.Lstat(sock); !os.IsNotExist(err) {
		t.Errorf("the socket is still there after the gateway stopped: %v", err)
	}
	snap := filepath.Join(store, "snapshot.db")
	if out, code := memscopeRun(t, memscope, append([]string{"verify", snap}, anchors(store)...)...); code != 0 {
		t.Fatalf("verify exit %d:\n%s", code, out)
	}
	db := openSnapshot(t, snap)
	defer db.Close()
	for i := range sessions {
		for k := 0; k < perSession; k++ {
			var n int
			if err := db.QueryRow("SELECT COUNT(*) FROM entries WHERE content = ?", fmt.Sprintf("session %d note %d", i, k)).Scan(&n); err != nil || n != 1 {
				t.Errorf("session %d note %d: %d entries (%v), want 1", i, k, n, err)
			}
		}
	}
}

func waitForSocket(t *testing.T, path string) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if st, err := os.Lstat(path); err == nil && st.Mode()&os.ModeSocket != 0 {
			return
		}
	}
	t.Fatalf("no socket at %s after 30 s", path)
}

// TestSessionRequestsBounded: agents that send requests without waiting
// for answers (here calls that never finish upstream) get at most
// MaxSessionRequests in flight each and MaxGatewayRequests together; the
// gateway then stops reading a session (the client's next write blocks)
// instead of starting a goroutine per request without end, and still
// stops on cancel.
func TestSessionRequestsBounded(t *testing.T) {
	_, web, _ := bins(t)
	rec, _ := openRecorder(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	defer rec.Close(context.Background())
	g, err := recorder.NewGateway(ctx, rec, &recorder.Config{Servers: []recorder.ServerConfig{{Name: "web", Command: []string{web}, Role: recorder.RoleSourceUntrusted}}, CallTimeoutMS: 600000}, recorder.DefaultAgent)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	// One session more than the gateway-wide bound has room for.
	sessions := recorder.MaxGatewayRequests/recorder.MaxSessionRequests + 1
	sent := make([]atomic.Int64, sessions)
	served := make(chan error, sessions)
	for s := range sessions {
		cr, sw := io.Pipe()
		sr, cw := io.Pipe()
		go func() { served <- g.Serve(ctx, sr, sw) }()
		answers := bufio.NewReader(cr)
		if _, err := io.WriteString(cw, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"flood","version":"1"}}}`+"\n"); err != nil {
			t.Fatal(err)
		}
		if line, err := answers.ReadString('\n'); err != nil || !strings.Contains(line, `"result"`) {
			t.Fatalf("initialize: %q %v", line, err)
		}
		go io.Copy(io.Discard, answers) // whatever else comes back
		go func() {
			for i := 1; i <= 2*recorder.MaxSessionRequests; i++ {
				if _, err := fmt.Fprintf(cw, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"hang","arguments":{}}}`+"\n", i); err != nil {
					return
				}
				sent[s].Add(1)
			}
		}()
	}
	// The pipes are synchronous: a write returns once the gateway read
	// it. Wait until the writes stop advancing.
	total := func() (n int64) {
		for i := range sent {
			n += sent[i].Load()
		}
		return n
	}
	last := int64(-1)
	for deadline := time.Now().Add(2 * time.Minute); time.Now().Before(deadline); time.Sleep(time.Second) {
		n := total()
		if n == last {
			break
		}
		last = n
	}
	// A session's reader holds one more line while it waits for a slot.
	for s := range sent {
		if n := sent[s].Load(); n > recorder.MaxSessionRequests+1 {
			t.Errorf("session %d: the gateway read %d requests with none answered, want at most %d in flight and one waiting", s, n, recorder.MaxSessionRequests)
		}
	}
	if n := total(); n > int64(recorder.MaxGatewayRequests+sessions) || n < recorder.MaxGatewayRequests {
		t.Errorf("the gateway read %d requests in all with none answered, want %d in flight and at most one waiting a session", n, recorder.MaxGatewayRequests)
	}
	cancel()
	for range sessions {
		select {
		case <-served:
		case <-time.After(30 * time.Second):
			t.Fatal("Serve did not return after cancel with its session full")
		}
	}
}
