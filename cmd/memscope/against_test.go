package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// verify --against reads the server's file as the reader does: a line
// JSON.parse throws on (which makes the server's loadGraph fail) is an
// error naming its line, in the text and the JSON. Such a file used to
// reconcile as zero items, every one explained, exit 0. The snapshot is a
// demo store with no MCP writes, so a well-formed file of one entity is
// one unexplained item, and an empty file is nothing to explain.
func TestAgainstReportsTheFilesOwnIssues(t *testing.T) {
	sdir := filepath.Join(demoDir, "clean")
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	bad := write("bad.jsonl", `{"type":"entity","name":"A","entityType":"t","observations":[]}`+"\n"+"not json\n")
	code, out, errs := runIn(t, sdir, "verify", "snapshot.db", "--log", "log", "--against", bad)
	if code != exitFindings || !strings.Contains(out, "STORE_RECORD_MALFORMED   bad.jsonl: line 2, JSON: JSON.parse would throw") || !strings.Contains(out, `MCP_UNRECORDED_ITEM      entity "A" is in the server's file`) {
		t.Errorf("malformed line: exit %d\n%s%s", code, out, errs)
	}
	code, out, _ = runIn(t, sdir, "verify", "snapshot.db", "--log", "log", "--against", bad, "--json")
	var doc struct {
		Against struct {
			Findings []struct{ Code, Subject string } `json:"findings"`
		} `json:"against"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil || code != exitFindings || len(doc.Against.Findings) == 0 ||
		doc.Against.Findings[0].Code != "STORE_RECORD_MALFORMED" || doc.Against.Findings[0].Subject != "bad.jsonl: line 2, JSON" {
		t.Errorf("--json: exit %d, %v, %+v", code, err, doc.Against.Findings)
	}
	empty := write("empty.jsonl", "")
	if code, out, errs := runIn(t, sdir, "verify", "snapshot.db", "--log", "log", "--against", empty); code != exitOK || !strings.Contains(out, "0 item(s) in the file") {
		t.Errorf("empty file: exit %d\n%s%s", code, out, errs)
	}
}
