package mem0db

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/memscope/memscope/finding"
)

func TestChains(t *testing.T) {
	t.Parallel()
	st, err := Open(context.Background(), filepath.Join("testdata", "history.db"))
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Versions) != 8 || len(st.Issues) != 0 {
		t.Fatalf("%d versions, issues %+v", len(st.Versions), st.Issues)
	}
	chains, fs := Chains(st)
	if len(chains) != 4 || chains[0].MemoryID != "m1" || len(chains[0].Versions) != 3 || !chains[0].Deleted {
		t.Fatalf("chains %+v", chains)
	}
	if chains[0].Versions[1].Actor != "assistant" || chains[0].Versions[2].Event != "DELETE" {
		t.Errorf("m1 chain %+v", chains[0].Versions)
	}
	got := map[string][]finding.Code{}
	for _, f := range fs {
		got[f.Subject] = append(got[f.Subject], f.Code)
	}
	want := map[string][]finding.Code{
		"memory m1": {finding.Mem0Deleted},
		"memory m3": {finding.Mem0ChainStartsUpdate},
		"memory m4": {finding.Mem0EventsOutOfOrder},
	}
	if len(got) != len(want) {
		t.Errorf("findings %v, want %v", got, want)
	}
	for s, codes := range want {
		if len(got[s]) != 1 || got[s][0] != codes[0] {
			t.Errorf("%s: %v, want %v", s, got[s], codes)
		}
	}
}
