package lightrag

// LightRAG's working directory has changed shape over its releases, and
// nano-graphrag (gusye1234/nano-graphrag), LightRAG's ancestor, writes the
// same file names. Each is told from the files present and the GraphML
// keys, never from a version file (none is kept):
//
//	nano-graphrag 0.0.x  kv_store_community_reports.json (nano_graphrag/graphrag.py,
//	                     namespace "community_reports", v0.0.8.2); edges carry
//	                     "order" (nano_graphrag/_op.py _merge_edges_then_upsert),
//	                     nodes "clusters" after clustering
//	                     (nano_graphrag/_storage/gdb_networkx.py)
//	LightRAG 1.0.x       no kv_store_doc_status.json (a real store of Nov 2024,
//	                     lightrag/__init__.py 1.0.0); entity names upper-case in
//	                     double quotes
//	LightRAG 1.1-1.3     kv_store_doc_status.json (lightrag/kg/json_doc_status_impl.py
//	                     JsonDocStatusStorage) whose records have no chunks_list
//	                     (real stores of Feb-Mar 2025, 1.1.x and 1.2.1)
//	LightRAG 1.4+        doc status with chunks_list, and kv_store_entity_chunks.json /
//	                     kv_store_relation_chunks.json (lightrag/lightrag.py, 1.4.9)
//
// Since LightRAG's workspace parameter, every JSON and GraphML storage
// writes to working_dir/<workspace>/ (lightrag/kg/json_kv_impl.py and
// networkx_impl.py __post_init__: workspace_dir = os.path.join(working_dir,
// self.workspace)); the registry's search finds a workspace's folder
// inside the working directory named, and names every workspace when
// there are several.

import (
	"bytes"
	"context"
	"os"
	"path/filepath"

	"github.com/memscope/memscope/internal/readers/storemodel"
)

// NanoFormat is nano-graphrag, read by this package's reader.
const NanoFormat storemodel.Format = "nanographrag"

const (
	communityReportsFile = "kv_store_community_reports.json"
	entityChunksFile     = "kv_store_entity_chunks.json"
)

// NanoReader registers nano-graphrag working directories: the same files
// as LightRAG's, read by the same code, named for what they are.
var NanoReader = storemodel.Reader{
	Format: NanoFormat, Name: "nano-graphrag", Looks: looksNano, Open: openNano,
	Holds: storemodel.HoldsGraph,
}

// isNano tells a nano-graphrag working directory from a LightRAG one: its
// community reports file, or the GraphML keys only nano-graphrag writes
// (declared at the top of the file, so only the head is read).
func isNano(dir string) bool {
	if fileExists(filepath.Join(dir, communityReportsFile)) {
		return true
	}
	f, err := os.Open(filepath.Join(dir, graphFile))
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, 16<<10)
	n, _ := f.Read(head)
	head = head[:n]
	return bytes.Contains(head, []byte(`attr.name="clusters"`)) || bytes.Contains(head, []byte(`for="edge" attr.name="order"`))
}

func looksNano(path string) bool {
	dir, ok := Locate(path)
	return ok && isNano(dir)
}

func openNano(ctx context.Context, path string) (*storemodel.Store, error) {
	st, err := Open(ctx, path)
	if err != nil {
		return nil, err
	}
	st.Format = NanoFormat
	st.Layout = "nano-graphrag 0.0.x (LightRAG's file names plus " + communityReportsFile + "; not LightRAG)"
	st.Notes[0] = "nano-graphrag retrieves through entity vectors and community reports (local and global query), not PPR: replay here is a what-if of HippoRAG 2's selector over its graph"
	return st, nil
}

// layoutOf names the LightRAG release range whose layout dir has.
func layoutOf(dir string, docs *docTables, quotedNames bool) string {
	quoted := ""
	if quotedNames {
		quoted = "; entity names in double quotes"
	}
	chunksList := false
	for _, s := range docs.status {
		if s.ChunksList != nil {
			chunksList = true
			break
		}
	}
	switch {
	case chunksList || fileExists(filepath.Join(dir, entityChunksFile)):
		return "LightRAG 1.4+ (doc status with chunks_list, entity and relation chunk tables" + quoted + ")"
	case fileExists(filepath.Join(dir, docStatusFile)):
		return "LightRAG 1.1-1.3 (" + docStatusFile + " without chunks_list" + quoted + ")"
	}
	return "LightRAG 1.0.x (no " + docStatusFile + ": chunks are not checked against document status" + quoted + ")"
}

// quotedNames says whether the graph's entity ids are upper-case names in
// double quotes, as LightRAG up to 1.2 (and nano-graphrag) wrote them.
func quotedNames(g *Graph) bool {
	for _, n := range g.Nodes {
		if len(n.ID) >= 2 && n.ID[0] == '"' && n.ID[len(n.ID)-1] == '"' {
			return true
		}
	}
	return false
}
