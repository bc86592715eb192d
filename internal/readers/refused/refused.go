// Package refused recognises agent-memory stores memscope does not read
// yet, so that every command refuses them by name (exit 2) instead of
// mistaking them for a memscope snapshot or giving wrong advice:
//
//	LangGraph SqliteStore   langgraph.store.sqlite.SqliteStore (langgraph-checkpoint-sqlite):
//	                        tables store(prefix, key, value, ...) and store_migrations
//	LangGraph SqliteSaver   langgraph.checkpoint.sqlite.SqliteSaver: tables checkpoints, writes
//	MemGPT                  a MemGPT home (~/.memgpt: config with [version] memgpt_version,
//	                        sqlite.db with agents and memgpt_recall_memory_agent)
//	Letta agent file        .af: Letta's agent export, schema v1 (agent_type, core_memory,
//	                        messages) or v2 (agents, blocks, tools), also double-encoded
//	                        as a JSON string
package refused

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/memscope/memscope/internal/readers/sqlitecols"
	"github.com/memscope/memscope/internal/readers/storefile"
)

// Known is a recognised format memscope refuses.
type Known struct {
	Name   string // what the store is, for the message
	Format string // short name
}

// Error is the refusal: every command exits 2 with it.
type Error struct {
	Path string
	Known
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s: %s; memscope does not read this format (yet), so nothing was analysed", e.Path, e.Name)
}

// Formats are the short names, for --format help and docs.
var Formats = []string{"langgraph-store", "langgraph-checkpoints", "memgpt", "letta-af"}

// sniff bounds how much of a JSON file detection reads.
const sniff = 64 << 10

// Detect says which refused format path is, if any.
func Detect(path string) (Known, bool) {
	st, err := os.Stat(path)
	if err != nil {
		return Known{}, false
	}
	if st.IsDir() {
		return detectDir(path)
	}
	if !st.Mode().IsRegular() {
		return Known{}, false
	}
	return detectFile(path)
}

func detectFile(path string) (Known, bool) {
	switch {
	case sqlitecols.Has(path, "store", "prefix", "key", "value") && sqlitecols.Has(path, "store_migrations", "v"):
		return Known{"a LangGraph SqliteStore database (langgraph.store.sqlite.SqliteStore: tables store, store_migrations)", "langgraph-store"}, true
	case sqlitecols.Has(path, "checkpoints", "thread_id", "checkpoint") && sqlitecols.Has(path, "writes", "thread_id"):
		return Known{"a LangGraph SqliteSaver checkpoint database (langgraph.checkpoint.sqlite.SqliteSaver: tables checkpoints, writes)", "langgraph-checkpoints"}, true
	case sqlitecols.Has(path, "memgpt_recall_memory_agent", "id") || sqlitecols.Has(path, "agents", "id") && sqlitecols.Has(path, "humanmodel", "id"):
		return Known{"a MemGPT database (recall and metadata storage of MemGPT 0.3)", "memgpt"}, true
	}
	if looksAgentFile(path) {
		return Known{"a Letta agent file (.af: an agent export with its memory blocks and messages)", "letta-af"}, true
	}
	return Known{}, false
}

// looksAgentFile: a .af file, or JSON whose top-level keys are an agent
// file's (v1: agent_type and core_memory; v2: agents and blocks); a JSON
// string literal is decoded once more, as the double-encoded v2 examples
// need.
func looksAgentFile(path string) bool {
	if strings.EqualFold(filepath.Ext(path), ".af") {
		return true
	}
	if !strings.EqualFold(filepath.Ext(path), ".json") {
		return false
	}
	raw, ok := storefile.Head(path, sniff)
	if !ok {
		return false
	}
	head := bytes.TrimSpace(raw)
	if len(head) > 0 && head[0] == '"' {
		return bytes.Contains(head, []byte(`\"agents\"`)) && bytes.Contains(head, []byte(`\"blocks\"`))
	}
	return bytes.Contains(head, []byte(`"agent_type"`)) && bytes.Contains(head, []byte(`"core_memory"`)) ||
		bytes.Contains(head, []byte(`"agents"`)) && bytes.Contains(head, []byte(`"blocks"`))
}

// detectDir looks at a MemGPT home and at the files in dir; the
// registry's Resolve searches the levels below.
func detectDir(dir string) (Known, bool) {
	return detectIn(dir)
}

func detectIn(dir string) (Known, bool) {
	for _, d := range []string{dir, filepath.Join(dir, ".memgpt")} {
		if regularFile(filepath.Join(d, "config")) && regularFile(filepath.Join(d, "sqlite.db")) {
			if k, ok := detectFile(filepath.Join(d, "sqlite.db")); ok && k.Format == "memgpt" {
				k.Name = "a MemGPT home directory (config, sqlite.db recall and metadata storage of MemGPT 0.3)"
				return k, true
			}
		}
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return Known{}, false
	}
	for i, e := range ents {
		if i > 256 {
			break
		}
		if !e.Type().IsRegular() {
			continue
		}
		ext := strings.ToLower(filepath.Ext(e.Name()))
		if ext == ".af" || ext == ".db" || ext == ".sqlite" || ext == ".sqlite3" {
			if k, ok := detectFile(filepath.Join(dir, e.Name())); ok {
				k.Name += ", in " + e.Name()
				return k, true
			}
		}
	}
	return Known{}, false
}

func regularFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

// Refuse is the error for a recognised format.
func Refuse(path string) error {
	k, ok := Detect(path)
	if !ok {
		return nil
	}
	return &Error{Path: path, Known: k}
}
