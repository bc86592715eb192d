package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFindingsSanitisedOnce: an escape sequence quoted in a finding shows
// as \e once in verify's text and JSON, as docs/SANITIZE.md writes it,
// never as \\e (a literal backslash and e), which a second pass made of it.
func TestFindingsSanitisedOnce(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "memory.jsonl")
	line := `{"type":"entity","name":"Evil","entityType":"t","observations":["pay \u001b[2J now"]}` + "\n"
	if err := os.WriteFile(file, []byte(line), 0o600); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	run(context.Background(), []string{"verify", file}, &out, &errb)
	text := out.String()
	if !strings.Contains(text, `pay \e[2J now`) || strings.Contains(text, `\\e`) {
		t.Errorf("verify's text does not show the escape once as \\e:\n%s", text)
	}
	out.Reset()
	run(context.Background(), []string{"verify", "--json", file}, &out, &errb)
	var doc struct {
		Findings []struct{ Code, Subject, Message string }
	}
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatalf("verify --json: %v\n%s", err, out.String())
	}
	found := false
	for _, f := range doc.Findings {
		if f.Code == "TEXT_CONTROL_CHARS" {
			found = strings.HasSuffix(f.Message, `pay \e[2J now`)
		}
	}
	if !found {
		t.Errorf("verify --json: no TEXT_CONTROL_CHARS whose message ends with the escape shown once:\n%s", out.String())
	}
}
