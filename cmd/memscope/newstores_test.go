package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memscope/memscope/internal/sharedtest"
)

// memscope verify on every real store of the new formats: detected from
// its contents, no reader or reconciliation error on an untouched store, the counts in
// the JSON answer, the evidence unchanged; LangGraph, MemGPT and Letta
// stores are refused naming their format (exit 2).
func TestNewStoresVerify(t *testing.T) {
	open := map[string]string{"mem0-qdrant-": "mem0-vectors", "mem0-chroma-": "mem0-vectors", "llamaindex-": "llamaindex", "mcpmem-shutovks": "mcp-memory", "mcpmem-vfarcic": "mcp-memory"}
	for prefix, format := range open {
		for _, c := range sharedtest.Cases(t, prefix) {
			before := treeDigest(t, c)
			path := c
			if strings.HasPrefix(prefix, "llamaindex") {
				ents, _ := os.ReadDir(c)
				for _, e := range ents {
					if e.IsDir() {
						path = filepath.Join(c, e.Name())
					}
				}
			}
			code, out, errs := runCmd("verify", "--json", path)
			var j jsonNativeVerify
			if err := json.Unmarshal([]byte(out), &j); err != nil || code == 2 {
				t.Fatalf("%s: exit %d: %v %s", c, code, err, errs)
			}
			// Text scan is its own analysis (package textscan): a real
			// LlamaIndex 0.6 docstore holds binary text from a PDF.
			for _, f := range j.Findings {
				if f.Severity == "error" && !strings.HasPrefix(string(f.Code), "TEXT_") {
					t.Fatalf("%s: error on an untouched store: %+v", c, f)
				}
			}
			if j.Store.Format != format || j.Store.Nodes+j.Store.Vectors+j.Store.Versions == 0 && !strings.Contains(c, "empty") {
				t.Fatalf("%s: %+v", c, j.Store)
			}
			if treeDigest(t, c) != before {
				t.Fatalf("%s changed", c)
			}
		}
	}
	for prefix, name := range map[string]string{"langgraph-": "LangGraph SqliteStore", "memgpt-": "MemGPT", "letta-af-": "Letta agent file"} {
		for _, c := range sharedtest.Cases(t, prefix) {
			code, _, errs := runCmd("verify", c)
			if code != 2 || !strings.Contains(errs, name) {
				t.Fatalf("%s: exit %d, %q", c, code, errs)
			}
		}
	}
}

// memscope verify DIR on a copy of a real Mem0 store with a planted
// vector, a deleted-yet-retrievable memory, an edited text and a broken
// hash (testdata/mem0vec/plant.py): exit 1 with each.
func TestVerifyReconcilesMem0(t *testing.T) {
	src := filepath.Join(sharedtest.RealStores(t), "mem0-qdrant-mikolgi-empty", "data")
	dir := filepath.Join(t.TempDir(), "data")
	script, err := os.ReadFile("../../testdata/mem0vec/plant.py")
	if err != nil {
		t.Fatal(err)
	}
	var none struct{}
	sharedtest.RunPython(t, string(script), &none, src, dir)
	code, out, errs := runCmd("verify", dir)
	if code != 1 {
		t.Fatalf("exit %d: %s %s", code, out, errs)
	}
	for _, c := range []string{"MEM0_VECTOR_NOT_IN_HISTORY", "MEM0_DELETED_STILL_RETRIEVABLE", "MEM0_VECTOR_TEXT_DIFFERS", "MEM0_VECTOR_HASH_MISMATCH", "MEM0_MEMORY_NOT_IN_VECTOR_STORE"} {
		if !strings.Contains(out, c) {
			t.Errorf("no %s in\n%s", c, out)
		}
	}
}

// memscope exposure on a real MCP memory store: exposure and EquiMem run
// on its graph, and EquiMem's triage counts every write and every
// relation as unauthenticated (the server records no source), as Python
// counts them from the file (observations + distinct entity pairs).
func TestExposureOnMCPMemory(t *testing.T) {
	store := filepath.Join(sharedtest.Case(t, "mcpmem-shutovks-20251210"), "memory.jsonl")
	var want struct{ Writes, Relations int }
	sharedtest.RunPython(t, `
import sys, json
obs, pairs = 0, set()
for line in open(sys.argv[1], encoding='utf-8').read().split('\n'):
    if not line.strip(): continue
    it = json.loads(line)
    if it.get('type') == 'entity': obs += len(it['observations'])
    elif it.get('type') == 'relation' and it['from'] != it['to']: pairs.add(frozenset((it['from'], it['to'])))
print(json.dumps({'writes': obs + len(pairs), 'relations': len(pairs)}))
`, &want, store)
	q := filepath.Join(t.TempDir(), "q.jsonl")
	if err := os.WriteFile(q, []byte(`{"id":"q1","text":"backend","k":3,"reset":{"entity:Backend":1}}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runCmd("exposure", store, "--queries", q, "--draws", "50", "--curve-draws", "5", "--curve-max", "4")
	if code == 2 {
		t.Fatalf("exit 2: %s", errs)
	}
	if !strings.Contains(out, fmt.Sprintf("EquiMem rho_detect over %d structural writes", want.Writes)) || !strings.Contains(out, fmt.Sprintf("of %d unauthenticated writes", want.Relations)) {
		t.Fatalf("python %+v; output:\n%s", want, out)
	}
}
