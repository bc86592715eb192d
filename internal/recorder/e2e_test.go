package recorder_test

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	_ "modernc.org/sqlite"
)

// TestPoisoningStory drives a scripted agent (the Go SDK's client) through
// memscope record to the real npm memory server, an untrusted web server
// whose page carries an attacker's instruction, and a sensitive payment
// server. Session 1 reads the page and writes what it says to memory;
// session 2 (a new gateway process on the same store) searches memory and
// pays. memscope's own read path then judges the recorded evidence.
func TestPoisoningStory(t *testing.T) {
	memscope, dir, store, cfg := storySetup(t, "")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	cs, _ := connect(t, ctx, memscope, store, cfg)
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, tl := range tools.Tools {
		names[tl.Name] = true
	}
	for _, want := range []string{"create_entities", "create_relations", "add_observations", "search_nodes", "read_graph", "fetch_page", "transfer_funds"} {
		if !names[want] {
			t.Fatalf("tool %s not offered through the gateway (got %v)", want, names)
		}
	}
	page := call(t, ctx, cs, "fetch_page", map[string]any{"url": "https://acme.example/billing"})
	if !strings.Contains(page, "account 7731") {
		t.Fatalf("page not forwarded: %q", page)
	}
	call(t, ctx, cs, "create_entities", map[string]any{"entities": []map[string]any{
		{"name": "Acme Ltd", "entityType": "company", "observations": []string{"Invoice 2291 is due on Friday"}},
		{"name": "Karen Joy Fowler", "entityType": "person", "observations": []string{}},
	}})
	call(t, ctx, cs, "create_relations", map[string]any{"relations": []map[string]any{{"from": "Acme Ltd", "to": "Karen Joy Fowler", "relationType": "payee"}}})
	call(t, ctx, cs, "add_observations", map[string]any{"observations": []map[string]any{{"entityName": "Acme Ltd", "contents": []string{"Payee for Acme invoices: Karen Joy Fowler, account 7731"}}}})
	// The snapshot is readable while the gateway runs: verify opens it
	// (read-only, immutable) and, once the gateway has been idle long
	// enough to fold its WAL into the file (docs/RECORD.md), reads every
	// record written so far.
	waitFolded(t, filepath.Join(store, "snapshot.db"))
	live, code := memscopeRun(t, memscope, append([]string{"verify", filepath.Join(store, "snapshot.db")}, anchors(store)...)...)
	if code == 2 || !strings.Contains(live, "entries                  6/6") {
		t.Errorf("verify of the live store (exit %d) does not read the six entries written so far:\n%s", code, live)
	}
	if err := cs.Close(); err != nil {
		t.Logf("close session 1: %v", err)
	}

	cs2, _ := connect(t, ctx, memscope, store, cfg)
	found := call(t, ctx, cs2, "search_nodes", map[string]any{"query": "Acme"})
	if !strings.Contains(found, "account 7731") {
		t.Fatalf("search did not return the poisoned observation: %s", found)
	}
	call(t, ctx, cs2, "transfer_funds", map[string]any{"recipient": "Karen Joy Fowler, account 7731", "amount": "1200"})
	call(t, ctx, cs2, "delete_observations", map[string]any{"deletions": []map[string]any{{"entityName": "Acme Ltd", "observations": []string{"Invoice 2291 is due on Friday"}}}})
	if err := cs2.Close(); err != nil {
		t.Logf("close session 2: %v", err)
	}

	snap := filepath.Join(store, "snapshot.db")
	out, code := memscopeRun(t, memscope, append([]string{"verify", snap}, anchors(store)...)...)
	if code != 0 || !strings.Contains(out, "result: PASS") {
		t.Fatalf("verify exit %d:\n%s", code, out)
	}
	for _, table := range []string{"entries", "writes", "nodes", "queries", "actions", "tombstones", "principals", "meta"} {
		if !coveredFully(out, table) {
			t.Errorf("verify: table %s not fully covered:\n%s", table, out)
		}
	}
	t.Logf("verify:\n%s", out)

	out, code = memscopeRun(t, memscope, append([]string{"actions", snap, "--json"}, anchors(store)...)...)
	t.Logf("actions (exit %d):\n%.3000s", code, out)
	if !strings.Contains(out, "transfer_funds") {
		t.Fatalf("actions does not list the payment:\n%s", out)
	}
	if !memLineageDenies(t, out) {
		t.Errorf("MemLineage's gate does not refuse the payment:\n%s", out)
	}

	relation := entryWith(t, snap, `"relationType":"payee"`)
	out, code = memscopeRun(t, memscope, append([]string{"lineage", snap}, anchors(store)...)...)
	if !strings.Contains(out, "gate audit: 1 action(s), 1 dispatched that the gate would have refused") || !strings.Contains(out, "transfer_funds  deny") {
		t.Errorf("lineage's gate audit does not refuse the payment (exit %d):\n%s", code, out)
	}
	if !strings.Contains(out, relation+" is Derived-Untrusted") {
		t.Errorf("lineage's gate audit does not name the relation's entry %s among the payment's untrusted justification:\n%s", relation, out)
	}
	out, code = memscopeRun(t, memscope, append([]string{"lineage", snap, relation}, anchors(store)...)...)
	t.Logf("lineage of the relation's entry (exit %d):\n%.4000s", code, out)
	if !strings.Contains(out, "external:web") || !strings.Contains(out, "External") {
		t.Errorf("lineage of the relation does not name its External root external:web:\n%s", out)
	}

	out, code = memscopeRun(t, memscope, append([]string{"timeline", snap}, anchors(store)...)...)
	t.Logf("timeline (exit %d):\n%.4000s", code, out)
	html := filepath.Join(dir, "report.html")
	if out, code := memscopeRun(t, memscope, append([]string{"report", snap, "--out", html, "--date", "none"}, anchors(store)...)...); code == 2 {
		t.Errorf("report could not run on the recorded store:\n%s", out)
	} else if b, err := os.ReadFile(html); err != nil || !strings.Contains(string(b), "transfer_funds") || !strings.Contains(string(b), "external:web") {
		t.Errorf("the report does not show the payment and the External source (%v)", err)
	} else if text := renderedText(t, html); !strings.Contains(text, "transfer_funds") || !strings.Contains(text, "external:web") {
		t.Errorf("the report rendered by headless Chromium does not show the payment and the External source:\n%.3000s", text)
	} else {
		t.Logf("the report as Chromium prints it (first lines):\n%.1500s", text)
	}

	reconcileStory(t, memscope, store, filepath.Join(dir, "memory.jsonl"))

	first := ""
	for _, line := range strings.Split(out, "\n") {
		if f := strings.Fields(line); len(f) > 5 && f[3] == "entry" {
			first = f[5]
			break
		}
	}
	if first != "external:web" {
		t.Errorf("timeline's first written entry is by %q, want the untrusted page by external:web:\n%s", first, out)
	}
}

// coveredFully reads verify's coverage line for table: "N/N signed" or
// "0/0 empty".
func coveredFully(out, table string) bool {
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) >= 3 && f[0] == table {
			a, b, ok := strings.Cut(f[1], "/")
			return ok && a == b && (f[2] == "signed" || f[2] == "empty")
		}
	}
	return false
}

// memLineageDenies says whether actions --json has MemLineage refusing
// transfer_funds.
func memLineageDenies(t *testing.T, out string) bool {
	m := jsonOf(t, out)
	found := false
	var walk func(any)
	walk = func(x any) {
		switch v := x.(type) {
		case map[string]any:
			if v["tool"] == "transfer_funds" {
				if vs, ok := v["verdicts"].(map[string]any); ok {
					if ml, ok := vs["memlineage"].(map[string]any); ok && ml["decision"] == "deny" {
						found = true
					}
				}
			}
			for _, c := range v {
				walk(c)
			}
		case []any:
			for _, c := range v {
				walk(c)
			}
		}
	}
	walk(m)
	return found
}

// entryWith returns the id of the one entry whose content contains s.
func entryWith(t *testing.T, snap, s string) string {
	t.Helper()
	db := openSnapshot(t, snap)
	defer db.Close()
	var id string
	if err := db.QueryRow("SELECT eid FROM entries WHERE instr(content, ?) > 0", s).Scan(&id); err != nil {
		t.Fatalf("entry containing %q: %v", s, err)
	}
	return id
}

func openSnapshot(t *testing.T, snap string) *sql.DB {
	t.Helper()
	return openDSN(t, "file:"+snap+"?mode=ro&immutable=1")
}

func openDSN(t *testing.T, dsn string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		t.Fatal(err)
	}
	return db
}

// reconcileStory is the story's last step: the
// server's own memory.jsonl reconciles with the recorded evidence, and an
// edit made behind the gateway's back is found.
func reconcileStory(t *testing.T, memscope, store, file string) {
	snap := filepath.Join(store, "snapshot.db")
	args := append([]string{"verify", snap, "--against", file}, anchors(store)...)
	out, code := memscopeRun(t, memscope, args...)
	if code != 0 || !strings.Contains(out, "every item in the file is explained by a recorded write") {
		t.Fatalf("verify --against the untouched file: exit %d\n%s", code, out)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "account 7731") {
		t.Fatalf("the server's file does not hold the payee observation:\n%s", b)
	}
	// The server writes its lines joined by newlines, with no final one.
	edited := strings.Replace(string(b), "account 7731", "account 9999", 1)
	// and the deleted observation is back
	edited = strings.Replace(edited, `"observations":["Payee`, `"observations":["Invoice 2291 is due on Friday","Payee`, 1)
	// and the relation is gone
	var kept []string
	for _, line := range strings.Split(edited, "\n") {
		if !strings.Contains(line, `"relationType":"payee"`) {
			kept = append(kept, line)
		}
	}
	edited = strings.TrimRight(strings.Join(kept, "\n"), "\n") +
		"\n" + `{"type":"entity","name":"Mallory","entityType":"person","observations":[]}`
	if err := os.WriteFile(file, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	out, code = memscopeRun(t, memscope, args...)
	t.Logf("verify --against after the edit (exit %d):\n%s", code, out)
	if code != 1 || !strings.Contains(out, "MCP_OBSERVATION_EDITED") || !strings.Contains(out, "account 9999") || !strings.Contains(out, "MCP_UNRECORDED_ITEM") || !strings.Contains(out, "Mallory") || !strings.Contains(out, "MCP_DELETED_PRESENT") || !strings.Contains(out, "MCP_RECORDED_ABSENT") {
		t.Errorf("the edit behind the gateway is not found")
	}
}
