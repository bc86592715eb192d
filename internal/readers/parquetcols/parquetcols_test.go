package parquetcols

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

const fixture = "../../../testdata/graphrag/clean/output/relationships.parquet"

func TestReadColumns(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile(fixture)
	if err != nil {
		t.Fatal(err)
	}
	f, err := Open(fixture, b)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	src, err := f.Strings(ctx, "source")
	if err != nil || len(src) != 3 || src[0] != "SARAH CANARY" {
		t.Errorf("source %v %v", src, err)
	}
	w, err := f.Floats(ctx, "weight")
	if err != nil || len(w) != 3 || w[0] != 2 || w[2] != 1 {
		t.Errorf("weight %v %v", w, err)
	}
	units, err := f.StringLists(ctx, "text_unit_ids")
	if err != nil || len(units) != 3 || len(units[2]) != 2 {
		t.Errorf("text_unit_ids %v %v", units, err)
	}
	if _, err := f.Strings(ctx, "text_unit_ids"); err == nil {
		t.Error("a list column read as flat strings")
	}
	if _, err := f.Strings(ctx, "nosuch"); err == nil {
		t.Error("a missing column read")
	}
}

func FuzzOpen(f *testing.F) {
	for _, name := range []string{"relationships.parquet", "entities.parquet", "text_units.parquet"} {
		b, err := os.ReadFile(filepath.Join("../../../testdata/graphrag/clean/output", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
		f.Add(b[:len(b)/2])
	}
	// What fuzzing found: a footer length past the file's start.
	f.Add([]byte("PAR1\x15\x06\x15\xd8PAR1"))
	// The bombs, small enough to mutate (the gzip one is 3 MB).
	for _, b := range bombs(f) {
		if len(b) < 1<<16 {
			f.Add(b)
		}
	}
	// Run with -fuzzminimizetime 0s: minimising a 4 KB input through
	// parquet-go's instrumented decoder takes the whole run otherwise.
	f.Fuzz(func(t *testing.T, b []byte) {
		pf, err := Open("fuzz.parquet", b)
		if err != nil {
			return
		}
		ctx := context.Background()
		for _, c := range pf.Columns() {
			if s, err := pf.Strings(ctx, c); err == nil && len(s) != pf.Rows() {
				t.Fatalf("column %s: %d rows, footer %d", c, len(s), pf.Rows())
			}
			if l, err := pf.StringLists(ctx, c); err == nil && len(l) != pf.Rows() {
				t.Fatalf("column %s: %d rows, footer %d", c, len(l), pf.Rows())
			}
			pf.Floats(ctx, c)
		}
	})
}
