package report

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/memscope/memscope/internal/evidencetest"

	"k8s.io/klog/v2"

	"github.com/memscope/memscope/evidence"
	"github.com/memscope/memscope/internal/assemble"
	"github.com/memscope/memscope/internal/generators/scenario"
	"github.com/memscope/memscope/internal/generators/scenario/scenariocache"
)

// fixedClock is the generation time every test passes.
var fixedClock = time.Date(2026, 3, 2, 12, 0, 0, 0, time.UTC)

// scenarioNames are the scenarios the tests read: every demo scenario
// (from the shared scenario cache).
var scenarioNames = func() []string {
	var out []string
	for _, s := range scenario.Specs {
		out = append(out, s.Name)
	}
	return out
}()

func TestMain(m *testing.M) {
	// Tessera logs its lifecycle through klog while scenarios are written.
	klog.LogToStderr(false)
	klog.SetOutput(io.Discard)
	os.Exit(m.Run())
}

func scenarioDir(t testing.TB, name string) (string, *evidence.Manifest) {
	t.Helper()
	return scenariocache.Scenario(t, 1, name)
}

// anchored opens a scenario with its manifest's anchors pinned (and its
// HMAC key when it has one) and loads it.
func anchored(t testing.TB, name string, pin bool) (*assemble.Session, []Input) {
	t.Helper()
	dir, m := scenarioDir(t, name)
	opts := assemble.Options{Snapshot: filepath.Join(dir, m.Snapshot), Log: filepath.Join(dir, m.Log), Title: "Scenario " + name}
	inputs := []Input{{Role: "snapshot", Path: opts.Snapshot}, {Role: "log", Path: opts.Log}}
	if pin {
		opts.LogKey = m.Anchors.LogKey
		opts.TrustRoots = evidencetest.Roots(t, m)
		inputs = append(inputs, Input{Role: "anchors", Path: filepath.Join(dir, evidence.ManifestFile)})
	}
	if opts.HMACKey = evidencetest.HMACKey(t, dir, m); opts.HMACKey != nil {
		inputs = append(inputs, Input{Role: "hmac-key", Path: filepath.Join(dir, m.HMACKeyFile)})
	}
	s, err := assemble.Open(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if err := s.Load(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	return s, inputs
}

// buildCase builds a scenario's case and renders both files in memory.
func buildCase(t testing.TB, name string, pin bool) (*Case, []byte, []byte) {
	t.Helper()
	s, inputs := anchored(t, name, pin)
	c, err := Build(context.Background(), s, Options{Inputs: inputs, Command: []string{"memscope", "report", name}, Version: "test", Now: fixedClock})
	if err != nil {
		t.Fatal(err)
	}
	var h, j bytes.Buffer
	if err := WriteHTML(&h, c); err != nil {
		t.Fatal(err)
	}
	if err := WriteJSON(&j, c); err != nil {
		t.Fatal(err)
	}
	return c, h.Bytes(), j.Bytes()
}

// paragraph joins the verdict paragraph as plain text.
func paragraph(v Verdict) string {
	var b strings.Builder
	for _, s := range v.Paragraph {
		if s.Quote != nil {
			b.WriteString(string(*s.Quote))
		}
		b.WriteString(s.Plain)
	}
	return b.String()
}
