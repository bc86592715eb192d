package evidence

import (
	"crypto/sha256"
	"encoding/hex"
)

// How memscope record names the reference MCP memory server's items in
// the graph (docs/RECORD.md), shared by the recorder that writes them and
// the reconciliation (verify --against) that reads them back.

// MCPEntityNode is the node id of entity name of memory server server:
// names are free text and node ids printable ASCII without spaces, so the
// id is a hash and the name is the node's label.
func MCPEntityNode(server, name string) string {
	h := sha256.Sum256([]byte(name))
	return "entity:" + server + ":" + hex.EncodeToString(h[:12])
}

// MCPEntityPrefix starts every entity node id of server.
func MCPEntityPrefix(server string) string { return "entity:" + server + ":" }

// MCPRelName is a relation type as a format name (printable ASCII without
// spaces, at most 128 bytes); another type is named by its hash, and its
// text stays in the relation's entry.
func MCPRelName(t string) string {
	ok := t != "" && len(t) <= 128
	for i := 0; ok && i < len(t); i++ {
		ok = t[i] > ' ' && t[i] <= '~'
	}
	if ok {
		return t
	}
	h := sha256.Sum256([]byte(t))
	return "rel-" + hex.EncodeToString(h[:8])
}

// MCPHasRel is the relation of the edge from an entity to the passage of
// one of its entries (its own head entry or an observation).
const MCPHasRel = "has"
