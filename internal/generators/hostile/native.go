package hostile

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/memscope/memscope/internal/evidencetest"
)

// NativeCase is one adversarial foreign store (HippoRAG, LightRAG,
// GraphRAG, Mem0, SMSR): a copy of a fixture the stores packages made with
// the upstream library (their testdata scripts), edited as an attacker
// would.
type NativeCase struct {
	Name    string
	Store   string // the path memscope is given
	Queries string // a queries file for replay, "" when the format has none
	About   string
}

type nativeEdit struct {
	name, format, fixture, about string
	// apply edits the copy at store (the fixture's directory or file).
	apply func(store string, root string) error
}

// escapes in a form every text format carries: bidi overrides are legal
// XML and JSON; the C0 escape rides in as JSON's \u001b.
const bidi = "\u202e\u2066"

var nativeEdits = []nativeEdit{
	{"lightrag-escapes", "lightrag", "lightrag/poisoned", "bidi controls and a character reference to ESC in entity ids and descriptions", func(store, _ string) error {
		return rewrite(filepath.Join(store, "graph_chunk_entity_relation.graphml"), func(s string) string {
			return strings.ReplaceAll(strings.ReplaceAll(s, "Acme Holdings", "Acme"+bidi+"&#27;[31m Holdings"), "an entity", "an entity"+bidi)
		})
	}},
	{"lightrag-billion-laughs", "lightrag", "lightrag/clean", "the graph is an entity-expansion bomb", func(store, root string) error {
		return copyFile(filepath.Join(root, "testdata", "lightrag/hostile/billion_laughs.graphml"), filepath.Join(store, "graph_chunk_entity_relation.graphml"))
	}},
	{"lightrag-graphml-fifo", "lightrag", "lightrag/clean", "the graph file is a FIFO nobody writes", func(store, _ string) error {
		p := filepath.Join(store, "graph_chunk_entity_relation.graphml")
		os.Remove(p)
		return syscall.Mkfifo(p, 0o600)
	}},
	{"lightrag-chunks-escapes", "lightrag", "lightrag/poisoned", "terminal escapes (JSON \\u001b) in every text chunk", func(store, _ string) error {
		return rewrite(filepath.Join(store, "kv_store_text_chunks.json"), func(s string) string {
			return strings.ReplaceAll(s, `"content": "`, `"content": "\u001b]0;owned\u0007\u001b[2J`)
		})
	}},
	{"hipporag-pickle-os-system", "hipporag", "hipporag/poisoned", "graph.pickle is a pickle that calls os.system", func(store, root string) error {
		return copyFile(filepath.Join(root, "internal/readers/igraphpickle/testdata/os_system.pickle"), filepath.Join(store, "gpt-4o-mini_nvidia_NV-Embed-v2", "graph.pickle"))
	}},
	{"hipporag-pickle-truncated", "hipporag", "hipporag/poisoned", "graph.pickle cut in half", func(store, _ string) error {
		p := filepath.Join(store, "gpt-4o-mini_nvidia_NV-Embed-v2", "graph.pickle")
		st, err := os.Stat(p)
		if err != nil {
			return err
		}
		return os.Truncate(p, st.Size()/2)
	}},
	{"hipporag-openie-dev-zero", "hipporag", "hipporag/poisoned", "the OpenIE results are a symlink to /dev/zero", func(store, _ string) error {
		p := filepath.Join(store, "openie_results_ner_gpt-4o-mini.json")
		os.Remove(p)
		return os.Symlink("/dev/zero", p)
	}},
	{"graphrag-garbage-parquet", "graphrag", "graphrag/poisoned", "entities.parquet is random bytes with a parquet magic", func(store, _ string) error {
		return os.WriteFile(filepath.Join(store, "output", "entities.parquet"), []byte("PAR1"+strings.Repeat("\xff\x1b[2J", 4000)+"PAR1"), 0o644)
	}},
	{"mem0-recursive-view", "mem0", "mem0db/history.db", "history is a recursive view that never ends", sqlFileEdit(
		"ALTER TABLE history RENAME TO history_real",
		"CREATE VIEW history AS WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n+1 FROM r) SELECT 'id' || n AS id, 'm' AS memory_id, NULL AS old_memory, 'x' AS new_memory, 'ADD' AS event, '2025-01-01' AS created_at, NULL AS updated_at, 0 AS is_deleted, NULL AS actor_id, NULL AS role FROM r")},
	// The 5 MB cell is over mem0db's 1 MiB cap: it is reported from its
	// length in SQL and never fetched.
	{"mem0-escapes-bad-rows", "mem0", "mem0db/history.db", "escapes in memories, an unknown event, NULL ids and a 5 MB cell", sqlFileEdit(
		"UPDATE history SET new_memory = new_memory || '"+esc+"', actor_id = 'actor"+esc+"'",
		"UPDATE history SET event = 'EXPLODE"+esc+"' WHERE rowid = (SELECT min(rowid) FROM history)",
		"UPDATE history SET memory_id = NULL WHERE rowid = (SELECT max(rowid) FROM history)",
		"INSERT INTO history(id, memory_id, new_memory, event, created_at, is_deleted) VALUES ('big', 'm-big', zeroblob(5000000), 'ADD', '2025-01-01', 0)")},
	{"smsr-view-and-escapes", "smsr", "smsrdb/memories.db", "memories is a view over an escaped, oversized table", sqlFileEdit(
		"UPDATE memories SET content = content || '"+esc+"', session_id = session_id || '"+esc+"'",
		"ALTER TABLE memories RENAME TO memories_real",
		"CREATE VIEW memories AS SELECT * FROM memories_real UNION ALL SELECT id || 'x', zeroblob(50000000), session_id, timestamp, hmac_tag, embedding FROM memories_real")},
	{"smsr-bad-cells", "smsr", "smsrdb/memories.db", "text in the timestamp, NULL content, a 5 MB tag (NOT NULL dropped)", sqlFileEdit(
		"ALTER TABLE memories RENAME TO memories_old",
		"CREATE TABLE memories (id INTEGER PRIMARY KEY, content TEXT, session_id TEXT, timestamp REAL, hmac_tag TEXT, embedding BLOB)",
		"INSERT INTO memories SELECT * FROM memories_old",
		"DROP TABLE memories_old",
		"UPDATE memories SET timestamp = 'yesterday"+esc+"' WHERE rowid = (SELECT min(rowid) FROM memories)",
		"UPDATE memories SET content = NULL WHERE rowid = (SELECT max(rowid) FROM memories)",
		"UPDATE memories SET hmac_tag = zeroblob(5000000) WHERE rowid = (SELECT min(rowid) + 1 FROM memories)")},
}

func sqlFileEdit(stmts ...string) func(string, string) error {
	return func(store, _ string) error {
		_, err := sqlEdit(stmts...)(store, "")
		return err
	}
}

func rewrite(p string, fn func(string) string) error {
	b, err := os.ReadFile(p)
	if err != nil {
		return err
	}
	return os.WriteFile(p, []byte(fn(string(b))), 0o644)
}

func copyFile(src, dst string) error {
	b, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	os.Remove(dst)
	return os.WriteFile(dst, b, 0o644)
}

// GenerateNative writes every native case under dir, each a copy of a
// foreign-store fixture under root's testdata (root is the repository's
// root), and returns them. names, when given, limits the cases.
func GenerateNative(_ context.Context, dir, root string, names ...string) ([]NativeCase, error) {
	fixtures := filepath.Join(root, "testdata")
	var out []NativeCase
	for _, e := range nativeEdits {
		if len(names) > 0 && !contains(names, e.name) {
			continue
		}
		src := filepath.Join(fixtures, e.fixture)
		cdir := filepath.Join(dir, e.name)
		store := filepath.Join(cdir, filepath.Base(src))
		st, err := os.Stat(src)
		if err != nil {
			return nil, err
		}
		if st.IsDir() {
			err = evidencetest.CopyDir(src, store)
		} else {
			err = os.MkdirAll(cdir, 0o755)
			if err == nil {
				err = copyFile(src, store)
			}
		}
		if err != nil {
			return nil, err
		}
		if err := e.apply(store, root); err != nil {
			return nil, fmt.Errorf("native case %s: %w", e.name, err)
		}
		c := NativeCase{Name: e.name, Store: store, About: e.about}
		q := filepath.Join(fixtures, e.format, "queries.jsonl")
		if _, err := os.Stat(q); err == nil {
			c.Queries = filepath.Join(cdir, "queries.jsonl")
			if err := copyFile(q, c.Queries); err != nil {
				return nil, err
			}
		}
		out = append(out, c)
	}
	return out, nil
}

// NativeNames lists every native case.
func NativeNames() []string {
	out := make([]string, len(nativeEdits))
	for i, e := range nativeEdits {
		out[i] = e.name
	}
	return out
}
