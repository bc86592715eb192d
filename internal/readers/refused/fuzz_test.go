package refused

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzDetectJSON: detection of an agent file among .json files reads only
// a bounded head and never fails on any bytes.
func FuzzDetectJSON(f *testing.F) {
	f.Add([]byte(`{"agent_type": "memgpt_agent", "core_memory": []}`))
	f.Add([]byte(`"{\n  \"agents\": [],\n  \"blocks\": []\n}"`))
	f.Add([]byte(`{"type":"entity","name":"A","entityType":"t","observations":[]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		p := filepath.Join(t.TempDir(), "x.json")
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		k, ok := Detect(p)
		if ok && k.Format != "letta-af" {
			t.Fatalf("a JSON file detected as %s", k.Format)
		}
	})
}
