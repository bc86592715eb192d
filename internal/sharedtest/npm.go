package sharedtest

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// MCPServerMemory is the reference MCP memory server that .ci/services.sh
// installs from npm, pinned, into $MEMSCOPE_CACHE/npm (default
// ~/.cache/memscope/npm).
type MCPServerMemory struct {
	// Bin is the package's executable (node_modules/.bin/mcp-server-memory).
	Bin string
	// Script is its entry point (dist/index.js), for `node Script`.
	Script string
}

// ServerMemory finds the installed server (or the dist/index.js that
// MEMSCOPE_SERVER_MEMORY names) and node; without them the test skips with
// one line, and fails when CI=true.
func ServerMemory(t testing.TB) MCPServerMemory {
	t.Helper()
	cache := memscopeCache()
	mods := filepath.Join(cache, "npm", "node_modules")
	s := MCPServerMemory{Bin: filepath.Join(mods, ".bin", "mcp-server-memory"), Script: filepath.Join(mods, "@modelcontextprotocol", "server-memory", "dist", "index.js")}
	if env := os.Getenv("MEMSCOPE_SERVER_MEMORY"); env != "" {
		s = MCPServerMemory{Bin: env, Script: env}
	}
	_, errBin := os.Stat(s.Bin)
	_, errScript := os.Stat(s.Script)
	_, errNode := exec.LookPath("node")
	if errBin == nil && errScript == nil && errNode == nil {
		return s
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("@modelcontextprotocol/server-memory is not installed (.ci/services.sh installs it into %s/npm)", cache)
	}
	t.Skipf("skipping: @modelcontextprotocol/server-memory not installed (run .ci/services.sh, or set MEMSCOPE_SERVER_MEMORY)")
	return s
}

// memscopeCache is where .ci/services.sh installs packages:
// $MEMSCOPE_CACHE, default ~/.cache/memscope.
func memscopeCache() string {
	cache := os.Getenv("MEMSCOPE_CACHE")
	if cache == "" {
		if h, err := os.UserHomeDir(); err == nil {
			cache = filepath.Join(h, ".cache", "memscope")
		}
	}
	return cache
}
