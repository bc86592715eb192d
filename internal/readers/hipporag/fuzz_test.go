package hipporag

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memscope/memscope/internal/readers/storemodel"
)

// FuzzOpenIE: any bytes as an OpenIE results file are read (a bad doc an
// issue, the rest still read) or refused with an error naming the file;
// never a panic. Seeds: the fixtures' own files.
func FuzzOpenIE(f *testing.F) {
	for _, store := range []string{"clean", "poisoned"} {
		b, err := os.ReadFile(filepath.Join(fixtures, store, "openie_results_ner_gpt-4o-mini.json"))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"docs": [{"idx": "a", "extracted_triples": [["x", 1, null]]}, {"idx": 5}]}`))
	f.Add([]byte(`{"docs": [{"idx": "a", "idx": "b"}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		st := &storemodel.Store{}
		if err := newProvenance().read("openie.json", b, st); err != nil && !strings.HasPrefix(err.Error(), "openie.json") {
			t.Errorf("error %q does not name the file", err)
		}
		for _, is := range st.Issues {
			if is.File != "openie.json" || is.Subject == "" {
				t.Errorf("issue %+v does not name the file and the doc", is)
			}
		}
	})
}

// FuzzParsePyTriple: any fact content is read as three strings or refused;
// never a panic, and no part longer than the literal it was read from
// (every escape is at least as long as what it stands for).
func FuzzParsePyTriple(f *testing.F) {
	for _, s := range []string{"('a', 'b', 'c')", `("o'brien", 'is', 'a \\ b')`, `('\x00\u200b\U0001f600', '\xa0', '\101\q')`, `('a', 'b', '\N{EM DASH}')`, "('a', 'b', '\\"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := parsePyTriple(s)
		if err != nil {
			return
		}
		for _, p := range got {
			if len(p) > len(s) {
				t.Errorf("%q: a part of %d bytes from %d", s, len(p), len(s))
			}
		}
	})
}
