package lineage

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestAnalyze(t *testing.T) {
	g := Build(append(graftEntries(), Entry{ID: "orphan", Writer: "agent:1", Parents: []string{"missing"}, Weights: []float64{1}}))
	actions := []Action{
		{ID: "act1", Tool: "send_email", Justification: []string{"note"}, Dispatched: true},
		{ID: "act2", Tool: "send_email", Justification: []string{"user"}, Dispatched: true},
	}
	r, err := Analyze(g, actions, Options{Tau: 0}, nil)
	if err != nil {
		t.Fatal(err)
	}
	// orphan's parent is missing without a tombstone: fail-closed, so its
	// recorded Trusted is laundering too.
	if len(r.Laundering) != 3 || r.Laundering[0].Entry != "orphan" || len(r.Violations) != 1 || r.Violations[0].Action != "act1" {
		t.Fatalf("laundering %+v violations %+v", r.Laundering, r.Violations)
	}
	if !hasFinding(r.Findings, CodeDanglingParent, "orphan", "missing") ||
		!hasFinding(r.Findings, CodeLaundering, "sum") ||
		!hasFinding(r.Findings, CodeGateViolation, "act1", "note") {
		t.Errorf("findings %+v", r.Findings)
	}
	if _, err := Analyze(g, actions, Options{Tau: 2}, nil); err == nil {
		t.Error("bad tau accepted")
	}
}

func TestLoadPolicy(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.json")
	os.WriteFile(good, []byte(`{"version":1,"tools":{"x":{"verdict":"deny"}}}`), 0o644)
	p, err := LoadPolicy(good)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := p.Rule("x"); !ok {
		t.Error("tool x missing")
	}
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"version":1,"tools":{"x":{"verdict":"allow"}}}`), 0o644)
	if _, err := LoadPolicy(bad); err == nil || !strings.Contains(err.Error(), "bad.json") || !strings.Contains(err.Error(), "tools.x") {
		t.Errorf("error %v", err)
	}
	if _, err := LoadPolicy(filepath.Join(dir, "none.json")); err == nil || !strings.Contains(err.Error(), "none.json") {
		t.Errorf("error %v", err)
	}
	big := filepath.Join(dir, "big.json")
	os.WriteFile(big, []byte(strings.Repeat(" ", MaxPolicyBytes+10)), 0o644)
	if _, err := LoadPolicy(big); err == nil || !strings.Contains(err.Error(), "limit") {
		t.Errorf("error %v", err)
	}
}
