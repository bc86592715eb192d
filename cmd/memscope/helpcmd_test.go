package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/memscope/memscope/evidence"
)

// Asked-for help goes to stdout with exit 0; a mistake to stderr with 2.
func TestHelpOnStdout(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"help"}, {"verify", "-h"}, {"replay", "--help"}, {"help", "lineage"}} {
		code, out, errs := runIn(t, demoDir, args...)
		if code != exitOK || !strings.Contains(out, "usage: memscope") || errs != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", args, code, out, errs)
		}
	}
	if code, out, errs := runIn(t, demoDir); code != exitUsage || out != "" || !strings.Contains(errs, "usage:") {
		t.Errorf("no args: exit %d, stdout %q", code, out)
	}
}

func TestHelpTopicsAndVersion(t *testing.T) {
	for topic, want := range map[string]string{
		"tau":           "threshold of lineage",
		"IFC-BLIND":     "provenance check",
		"tile_mismatch": "TILE_MISMATCH (error, log)",
		"bottle":        "weakest edge",
		"DT":            "Derived-Trusted",
	} {
		code, out, errs := runIn(t, demoDir, "help", topic)
		if code != exitOK || !strings.Contains(out, want) {
			t.Errorf("help %s: exit %d, %q %q", topic, code, out, errs)
		}
	}
	if code, _, errs := runIn(t, demoDir, "help", "no-such-thing"); code != exitUsage || !strings.Contains(errs, "no-such-thing") {
		t.Errorf("unknown topic: exit %d %q", code, errs)
	}
	if code, out, _ := runIn(t, demoDir, "version"); code != exitOK || !strings.HasPrefix(out, "memscope ") {
		t.Errorf("version: exit %d %q", code, out)
	}
}

// The CLI takes the id forms the inspector shows: prefix, tail, head…tail.
func TestCLIAcceptsShortIDs(t *testing.T) {
	sdir := filepath.Join(demoDir, "structural-write")
	m, err := evidence.ReadManifest(sdir)
	if err != nil {
		t.Fatal(err)
	}
	edge := m.Attack.Edges[0]
	short := edge[:8] + "…" + edge[len(edge)-5:]
	code, out, errs := runIn(t, sdir, "replay", "snapshot.db", "--log", "log", "--anchors", "scenario.json",
		"--query", m.Attack.Query[:6], "--without", short+","+m.Attack.Edges[1][len(m.Attack.Edges[1])-12:], "--json")
	if code == exitUsage || !strings.Contains(out, `"query": "`+m.Attack.Query+`"`) || !strings.Contains(out, edge) {
		t.Errorf("short ids: exit %d %s\n%s", code, errs, out)
	}
	// An ambiguous prefix names how many ids it matched.
	code, _, errs = runIn(t, sdir, "replay", "snapshot.db", "--log", "log", "--anchors", "scenario.json", "--without", edge[:4])
	if code != exitUsage || !strings.Contains(errs, "matches") {
		t.Errorf("ambiguous: exit %d %q", code, errs)
	}
}
