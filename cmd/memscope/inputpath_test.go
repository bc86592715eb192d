package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/memscope/memscope/internal/sharedtest"
)

// A path that can be neither a native store nor a memscope snapshot is
// refused at once, with its reason, by every command that reads one: not
// "--log is required", which these paths used to get. The folder of two
// stores is a real one (an MCP memory server's user and project files).
func TestInputPathRefusedWithItsReason(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty")
	text := filepath.Join(dir, "notes.txt")
	fifo := filepath.Join(dir, "pipe")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(text, []byte("not a store\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	twoStores := filepath.Join(sharedtest.Case(t, "mcpmem-anoblet-copilot"), "memory")
	evidenceDir := filepath.Join(demoDir, "clean")
	paths := []struct {
		name, path string
		want       []string
	}{
		{"missing", filepath.Join(dir, "nope.db"), []string{"nope.db: no such file or directory"}},
		{"empty folder", empty, []string{"no store memscope can read natively here"}},
		{"text file", text, []string{"notes.txt: not a store memscope can read natively", "nor is it a memscope snapshot (not a SQLite database)"}},
		{"named pipe", fifo, []string{"pipe: not a regular file (a named pipe)"}},
		{"two stores", twoStores, []string{"holds 2 stores; name one", "user.jsonl (mcp-memory)", "project.jsonl (mcp-memory)"}},
		{"evidence folder", evidenceDir, []string{"is a memscope evidence directory", filepath.Join(evidenceDir, "snapshot.db") + " --log " + filepath.Join(evidenceDir, "log")}},
	}
	commands := [][]string{{"verify"}, {"inspect", "--plain"}, {"lineage"}, {"replay"}, {"timeline"}, {"report", "--out", filepath.Join(dir, "r.html")}, {"exposure"}, {"actions"}}
	for _, p := range paths {
		for _, c := range commands {
			code, _, errs := runIn(t, dir, append(append([]string{}, c...), p.path)...)
			if code != exitUsage || strings.Contains(errs, "--log is required") {
				t.Errorf("%s %s: exit %d, stderr %q", c[0], p.name, code, errs)
				continue
			}
			for _, w := range p.want {
				if !strings.Contains(errs, w) {
					t.Errorf("%s %s: stderr %q lacks %q", c[0], p.name, errs, w)
				}
			}
			if p.name == "evidence folder" && !strings.Contains(errs, "memscope "+c[0]+" ") {
				t.Errorf("%s %s: the command shown is not this one: %q", c[0], p.name, errs)
			}
		}
		code, _, errs := runIn(t, dir, "diff", filepath.Join(evidenceDir, "snapshot.db"), p.path)
		if code != exitUsage || !strings.Contains(errs, p.want[0]) {
			t.Errorf("diff A %s: exit %d, stderr %q", p.name, code, errs)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "r.html")); err == nil {
		t.Error("report wrote its output for an input it refused")
	}
}

// --format names only the formats memscope reads: the recognised-but-unread
// ones are detection's (naming one used to reach a reader that returned no
// store, and verify panicked).
func TestFormatNamesOnlyReadFormats(t *testing.T) {
	dir := t.TempDir()
	text := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(text, []byte("not a store\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []string{"verify", "lineage", "replay"} {
		code, _, errs := runIn(t, dir, cmd, "--format", "unsupported", text)
		if code != exitUsage || !strings.Contains(errs, `unknown store format "unsupported"`) || strings.Contains(errs, "unsupported)") {
			t.Errorf("%s --format unsupported: exit %d, stderr %q", cmd, code, errs)
		}
	}
}

// --k is bounded as a query record's k is (snapshot.MaxK), on memscope's
// evidence and on a native store alike: replay with --k 99999999999 ran
// the process out of memory (selection's buffer holds k candidates).
func TestKBounded(t *testing.T) {
	dir := t.TempDir()
	queries := kimQueries(t)
	sdir := filepath.Join(demoDir, "clean")
	store := sharedtest.Case(t, "lightrag-lennyhub")
	for _, args := range [][]string{
		{"replay", filepath.Join(sdir, "snapshot.db"), "--log", filepath.Join(sdir, "log")},
		{"report", filepath.Join(sdir, "snapshot.db"), "--log", filepath.Join(sdir, "log"), "--out", filepath.Join(dir, "a.html")},
		{"replay", store, "--queries", queries},
		{"exposure", store, "--queries", queries, "--draws", "2", "--curve-draws", "0"},
		{"report", store, "--queries", queries, "--out", filepath.Join(dir, "b.html")},
	} {
		code, _, errs := runIn(t, dir, append(args, "--k", "99999999999")...)
		if code != exitUsage || !strings.Contains(errs, "--k 99999999999: want at most 1000") {
			t.Errorf("%s %s --k 99999999999: exit %d, stderr %q", args[0], args[1], code, errs)
		}
		if code, _, errs := runIn(t, dir, append(args, "--k", "1000")...); code == exitUsage {
			t.Errorf("%s %s --k 1000: exit %d, stderr %q", args[0], args[1], code, errs)
		}
	}
}

// demo --entries below zero is a usage error (it ran with each scenario's
// own size and exit 0), and nothing is written.
func TestDemoNegativeEntries(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "demo")
	code, _, errs := runIn(t, dir, "demo", "--entries", "-1", "--out", out)
	if code != exitUsage || !strings.Contains(errs, "--entries -1") {
		t.Errorf("demo --entries -1: exit %d, stderr %q", code, errs)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("demo --entries -1 wrote its output")
	}
}
