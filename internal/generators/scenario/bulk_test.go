package scenario_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/memscope/memscope/internal/generators/scenario"
)

// The bulk path (--entries) signs on every core and stores in order: two
// generations with one seed must still give the same bytes.
func TestBulkSameSeedSameBytes(t *testing.T) {
	t.Parallel()
	spec, _ := scenario.Lookup("clean")
	a, b := t.TempDir(), t.TempDir()
	for _, dir := range []string{a, b} {
		if _, err := scenario.Generate(context.Background(), dir, spec, scenario.Options{Seed: 5, Entries: 5000}); err != nil {
			t.Fatal(err)
		}
	}
	ta, tb := readTree(t, filepath.Join(a, "clean")), readTree(t, filepath.Join(b, "clean"))
	if len(ta) != len(tb) || len(ta) < 5 {
		t.Fatalf("%d files vs %d", len(ta), len(tb))
	}
	for name, want := range ta {
		if string(tb[name]) != string(want) {
			t.Errorf("%s differs between two bulk generations with seed 5", name)
		}
	}
}

// BenchmarkBulk100k generates the clean store scaled to 100k entries.
func BenchmarkBulk100k(b *testing.B) {
	spec, _ := scenario.Lookup("clean")
	for i := 0; i < b.N; i++ {
		if _, err := scenario.Generate(context.Background(), b.TempDir(), spec, scenario.Options{Seed: 1, Entries: 100000}); err != nil {
			b.Fatal(err)
		}
	}
}
