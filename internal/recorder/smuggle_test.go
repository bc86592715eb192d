package recorder_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestSmuggledNamesRecordedAsPeersAct sends the gateway lines no SDK
// writes, whose member names differ from the protocol's only in case or
// repeat, to the real memory server and to a hostile page server. The
// evidence must record what the peers acted on (JSON.parse's reading:
// exact names), or the call must be refused and nothing of it recorded;
// the server's own file then reconciles with the evidence.
func TestSmuggledNamesRecordedAsPeersAct(t *testing.T) {
	memServer := serverMemory(t)
	memscope, _, _ := bins(t)
	smuggle := filepath.Join(filepath.Dir(memscope), "smuggle")
	dir := t.TempDir()
	store := filepath.Join(dir, "store")
	initStore(t, memscope, store)
	file := filepath.Join(dir, "memory.jsonl")
	cfg := filepath.Join(dir, "config.json")
	if err := os.WriteFile(cfg, []byte(fmt.Sprintf(`{"servers":[
 {"name":"memory","command":[%q],"env":{"MEMORY_FILE_PATH":%q},"role":"memory"},
 {"name":"smuggle","command":[%q],"role":"source-untrusted"}]}`, memServer, file, smuggle)), 0o644); err != nil {
		t.Fatal(err)
	}
	a := startRaw(t, memscope, store, cfg)
	defer func() { _ = a.cmd.Process.Kill(); _ = a.cmd.Wait() }()
	a.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	if r := a.next(30 * time.Second); r.Error != nil {
		t.Fatalf("initialize: %+v", r.Error)
	}
	a.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)

	send := func(id int, params string) rpcReply {
		t.Helper()
		a.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":%s}`, id, params))
		return a.next(time.Minute)
	}
	// A write dressed as a read: the server creates the entity.
	if r := send(10, `{"name":"create_entities","Name":"read_graph","arguments":{"entities":[{"name":"Smuggled","entityType":"person","observations":["first"]}]}}`); r.Error != nil {
		t.Fatalf("create_entities with a Name member: %+v", r.Error)
	}
	if r := a.callTool(11, "create_entities", `{"entities":[{"name":"Kept","entityType":"person","observations":["second"]}]}`); r.Error != nil {
		t.Fatalf("create_entities: %+v", r.Error)
	}
	// A deletion whose Arguments name another entity: the server deletes
	// Smuggled, as its arguments say.
	if r := send(12, `{"name":"delete_entities","arguments":{"entityNames":["Smuggled"]},"Arguments":{"entityNames":["Kept"]}}`); r.Error != nil {
		t.Fatalf("delete_entities with an Arguments member: %+v", r.Error)
	}
	// A repeated name: refused as an invalid request, never forwarded.
	r := send(13, `{"name":"create_entities","arguments":{"entities":[{"name":"RepeatOne","entityType":"x","observations":[]}]},"arguments":{"entities":[{"name":"RepeatTwo","entityType":"x","observations":[]}]}}`)
	if r.Error == nil || r.Error.Code != -32600 || !strings.Contains(r.Error.Message, "twice") {
		t.Errorf("repeated arguments: want invalid request naming the repeat, got %+v", r)
	}
	// A page whose Content member hides the attacker's content: the agent
	// reads content, so the evidence must hold the attack.
	if r := a.callTool(14, "page_case", `{}`); r.Error != nil || !strings.Contains(string(r.Result), "ATTACK") {
		t.Errorf("page_case: want the page forwarded, got %+v", r)
	}
	// A page with a repeated content member: refused, nothing recorded.
	if r := a.callTool(15, "page_repeat", `{}`); r.Error == nil || !strings.Contains(r.Error.Message, "twice") {
		t.Errorf("page_repeat: want an error naming the repeat, got %+v", r)
	}
	a.in.Close()
	if err := a.cmd.Wait(); err != nil {
		t.Fatalf("gateway exit: %v", err)
	}

	snap := filepath.Join(store, "snapshot.db")
	db := openSnapshot(t, snap)
	defer db.Close()
	var pages []string
	rows, err := db.Query("SELECT content FROM entries WHERE writer = 'external:smuggle'")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var c string
		if err := rows.Scan(&c); err != nil {
			t.Fatal(err)
		}
		pages = append(pages, c)
	}
	rows.Close()
	if len(pages) != 1 || !strings.Contains(pages[0], "ATTACK") || strings.Contains(pages[0], "Acme Ltd - billing contacts") {
		t.Errorf("recorded pages %q: want one, the attacker's text the agent read", pages)
	}
	var repeats int
	if err := db.QueryRow("SELECT count(*) FROM entries WHERE content LIKE '%Repeat%'").Scan(&repeats); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(file); repeats != 0 || strings.Contains(string(b), "Repeat") {
		t.Errorf("the refused write reached the evidence (%d entries) or the server:\n%s", repeats, b)
	}
	// The server's file (Kept only) is explained by the recorded writes
	// and deletions: the creation of Smuggled and its deletion were
	// recorded as the server performed them.
	out, code := memscopeRun(t, memscope, append([]string{"verify", snap, "--against", file}, anchors(store)...)...)
	if code != 0 || !strings.Contains(out, "every item in the file is explained by a recorded write") {
		t.Errorf("verify --against: exit %d\n%s", code, out)
	}
}
