package refused

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memscope/memscope/internal/sharedtest"
)

// TestRealStores: every LangGraph, MemGPT and Letta case is recognised,
// as a directory and by its files, and the formats memscope reads are not.
func TestRealStores(t *testing.T) {
	want := map[string]string{"langgraph-": "langgraph-store", "memgpt-": "memgpt", "letta-af-": "letta-af"}
	for prefix, format := range want {
		for _, c := range sharedtest.Cases(t, prefix) {
			var paths []string
			filepath.WalkDir(c, func(p string, d os.DirEntry, err error) error {
				if err == nil && !d.IsDir() && (strings.HasSuffix(p, ".db") || strings.HasSuffix(p, ".af")) {
					paths = append(paths, p, filepath.Dir(p))
				}
				return nil
			})
			if prefix == "memgpt-" {
				paths = append(paths, c)
			}
			for _, p := range paths {
				k, ok := Detect(p)
				if !ok || k.Format != format {
					t.Errorf("%s: %+v %v, want %s", p, k, ok, format)
				}
				if err := Refuse(p); err == nil || !strings.Contains(err.Error(), strings.Split(k.Name, " (")[0]) {
					t.Errorf("%s: refusal %v", p, err)
				}
			}
		}
	}
	for _, prefix := range []string{"mcpmem-", "mem0-", "llamaindex-", "lightrag-", "graphrag-", "hippo2", "nanographrag"} {
		for _, c := range sharedtest.Cases(t, prefix) {
			filepath.WalkDir(c, func(p string, d os.DirEntry, err error) error {
				if err == nil {
					if k, ok := Detect(p); ok {
						t.Errorf("%s refused as %s", p, k.Format)
					}
				}
				return nil
			})
		}
	}
}
