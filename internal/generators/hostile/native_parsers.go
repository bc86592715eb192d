package hostile

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
)

// Parser differentials and decoder bombs (issue 23 items 8 and 13): each
// store is one a naive reader reads differently from its upstream tool, or
// one that exhausts a reader trusting its sizes.
func init() {
	nativeEdits = append(nativeEdits, parserEdits...)
	for _, name := range []string{"snappy-4GiB", "gzip-1000x", "schema-100000-deep", "thrift-nesting"} {
		nativeEdits = append(nativeEdits, nativeEdit{"graphrag-parquet-" + name, "graphrag", "graphrag/poisoned", "entities.parquet is a parquet bomb: " + name, parquetBomb(name, "output", "entities.parquet")})
	}
	nativeEdits = append(nativeEdits, nativeEdit{"hipporag-vdb-snappy-4GiB", "hipporag", "hipporag/poisoned", "vdb_entity.parquet's Snappy page claims 4 GiB",
		parquetBomb("snappy-4GiB", "gpt-4o-mini_nvidia_NV-Embed-v2", "entity_embeddings", "vdb_entity.parquet")})
}

const graphmlName = "graph_chunk_entity_relation.graphml"

var parserEdits = []nativeEdit{
	{"lightrag-graphml-decoys", "lightrag", "lightrag/poisoned", "a namespaced x:source decoy, a graph nested in an entity, an edge in a foreign namespace, a second top-level graph", func(store, _ string) error {
		return rewrite(filepath.Join(store, graphmlName), func(s string) string {
			s = strings.Replace(s, `<edge source="Karen Joy Fowler"`, `<edge xmlns:x="urn:decoy" x:source="Acme Holdings" source="Karen Joy Fowler"`, 1)
			s = strings.Replace(s, `<node id="Sarah Canary">`, `<node id="Sarah Canary"><graph><node id="Ghost"/><edge source="Ghost" target="Acme Holdings"/></graph>`, 1)
			s = strings.Replace(s, `</graph>`, `<x:edge xmlns:x="urn:decoy" source="Acme Holdings" target="Sarah Canary"/></graph>`, 1)
			return strings.Replace(s, `</graphml>`, `<graph edgedefault="undirected"><node id="Mallory`+bidi+`"/><edge source="Mallory`+bidi+`" target="Acme Holdings"/></graph></graphml>`, 1)
		})
	}},
	{"lightrag-graphml-hyperedge", "lightrag", "lightrag/poisoned", "a <hyperedge>, which networkx refuses", func(store, _ string) error {
		return rewrite(filepath.Join(store, graphmlName), func(s string) string {
			return strings.Replace(s, `</graph>`, `<hyperedge><endpoint node="Acme Holdings"/></hyperedge></graph>`, 1)
		})
	}},
	{"lightrag-json-case-twin", "lightrag", "lightrag/poisoned", "every chunk has a \"Content\" decoy (with escapes) before its \"content\"", func(store, _ string) error {
		return rewrite(filepath.Join(store, "kv_store_text_chunks.json"), func(s string) string {
			return strings.ReplaceAll(s, `"content": "`, `"Content": "decoy \u001b[2J", "content": "`)
		})
	}},
	{"mem0-rowid-shadow", "mem0", "mem0db/history.db", "history has its own rowid column, counting backwards", sqlFileEdit(
		"ALTER TABLE history RENAME TO h0",
		"CREATE TABLE history (id TEXT PRIMARY KEY, memory_id TEXT, old_memory TEXT, new_memory TEXT, event TEXT, created_at DATETIME, updated_at DATETIME, is_deleted INTEGER, actor_id TEXT, role TEXT, rowid INTEGER)",
		"INSERT INTO history SELECT h0.*, 1000 - h0._rowid_ FROM h0 ORDER BY h0._rowid_",
		"DROP TABLE h0")},
	{"hipporag-negative-weight", "hipporag", "hipporag/poisoned", "graph.pickle's first edge weight 1.0 made -1.0", func(store, _ string) error {
		p := filepath.Join(store, "gpt-4o-mini_nvidia_NV-Embed-v2", "graph.pickle")
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		// BINFLOAT 1.0 (big-endian) becomes -1.0.
		one := []byte{'G', 0x3f, 0xf0, 0, 0, 0, 0, 0, 0}
		i := bytes.Index(b, one)
		if i < 0 {
			return errors.New("no float 1.0 in graph.pickle")
		}
		b[i+1] = 0xbf
		return os.WriteFile(p, b, 0o644)
	}},
}

// parquetBomb replaces the parquet file at store/rel... by a bomb.
func parquetBomb(name string, rel ...string) func(string, string) error {
	return func(store, _ string) error {
		bombs, err := ParquetBombs()
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(append([]string{store}, rel...)...), bombs[name], 0o644)
	}
}
