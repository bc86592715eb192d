package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// The profiling variables write their files, and never replace one that
// exists (evidence directories are never written over).
func TestProfilesWriteAndNeverReplace(t *testing.T) {
	dir := t.TempDir()
	cpu, tr := filepath.Join(dir, "cpu.out"), filepath.Join(dir, "trace.out")
	t.Setenv("MEMSCOPE_CPUPROFILE", cpu)
	t.Setenv("MEMSCOPE_TRACE", tr)
	stop := startProfiles()
	stop()
	got, err := os.ReadFile(tr)
	if err != nil || !bytes.HasPrefix(got, []byte("go 1.")) {
		t.Fatalf("trace file: %v, starts %q", err, got[:min(len(got), 8)])
	}
	if fi, err := os.Stat(cpu); err != nil || fi.Size() == 0 {
		t.Fatalf("cpu profile: %v", err)
	}
	if err := os.WriteFile(tr, []byte("kept"), 0o644); err != nil {
		t.Fatal(err)
	}
	startProfiles()()
	if got, _ := os.ReadFile(tr); string(got) != "kept" {
		t.Fatalf("an existing trace file was replaced: %q", got[:min(len(got), 8)])
	}
}
