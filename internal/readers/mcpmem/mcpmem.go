// Package mcpmem reads the store of the reference MCP knowledge-graph
// memory server (@modelcontextprotocol/server-memory; modelcontextprotocol/
// servers src/memory/index.ts) natively and read-only, as a graph store:
// entities are entity nodes, each observation is a passage joined to its
// entity, relations are edges between entities with no declared source
// (the server records none, by design).
//
// The file is read exactly as KnowledgeGraphManager.loadGraph reads it
// (index.ts at commit 76d64c82, server 0.6.3; the same rules since
// 9cbea339, 2024-11-19): the whole file as UTF-8, split on "\n", lines
// whose JS trim() is empty dropped, JSON.parse per line, an item kept when
// item.type === "entity" (name, entityType, observations) or "relation"
// (from, to, relationType). JSON.parse keeps the last of duplicate keys and
// matches keys case-sensitively, so lines are decoded into a map of raw
// values, never into a struct (encoding/json matches struct fields
// case-insensitively). One difference is kept in the open: JSON.parse
// keeps a lone surrogate escape, Go turns it into U+FFFD.
//
// History of the file: the default name was memory.json until 9d8c2dfc
// (2025-08-17), memory.jsonl after (JSONL all along); until 52ab84cd
// (2025-09-18) saveGraph wrote JSON.stringify({type, ...e}), so a line kept
// the client's key order and any extra keys, and fixed keys after.
package mcpmem

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/memscope/memscope/internal/present/finding"
	"github.com/memscope/memscope/internal/readers/storefile"
	"github.com/memscope/memscope/internal/readers/storemodel"
	textunicode "golang.org/x/text/encoding/unicode"
)

// Format is the --format name of the server's store.
const Format storemodel.Format = "mcp-memory"

// sniff bounds how much of a file detection reads.
const sniff = 64 << 10

// Locate returns the store file for path: the file itself, or memory.jsonl
// (else memory.json) in a directory.
func Locate(path string) (string, bool) {
	st, err := os.Stat(path)
	if err != nil {
		return "", false
	}
	if st.IsDir() {
		for _, n := range []string{"memory.jsonl", "memory.json"} {
			if p := filepath.Join(path, n); looksFile(p) {
				return p, true
			}
		}
		return "", false
	}
	if looksFile(path) {
		return path, true
	}
	return "", false
}

// Looks says whether path is (a directory holding) the server's file.
func Looks(path string) bool {
	_, ok := Locate(path)
	return ok
}

// looksFile: a .json or .jsonl file whose first non-blank line is a JSON
// object with type "entity" or "relation".
func looksFile(path string) bool {
	ext := strings.ToLower(filepath.Ext(path))
	if ext != ".json" && ext != ".jsonl" {
		return false
	}
	head, ok := storefile.Head(path, sniff)
	if !ok {
		return false
	}
	for _, line := range bytes.Split(head, []byte("\n")) {
		if blank(string(line)) {
			continue
		}
		var item map[string]json.RawMessage
		if json.Unmarshal(line, &item) != nil {
			return false
		}
		t := string(item["type"])
		return t == `"entity"` || t == `"relation"`
	}
	return false
}

// blank is JavaScript's line.trim() === "": trim removes WhiteSpace
// (TAB, VT, FF, SP, NBSP, ZWNBSP, Zs) and LineTerminators (LF, CR, LS, PS).
func blank(s string) bool {
	return strings.TrimFunc(s, func(r rune) bool {
		switch r {
		case '\t', '\v', '\f', ' ', '\u00a0', '\ufeff', '\n', '\r', '\u2028', '\u2029':
			return true
		}
		return unicode.Is(unicode.Zs, r)
	}) == ""
}

// Entity and Relation are the items loadGraph keeps.
type Entity struct {
	Name, EntityType string
	Observations     []string
	Line             int
}

type Relation struct {
	From, To, RelationType string
	Line                   int
}

// Graph is the file as loadGraph sees it, in line order.
type Graph struct {
	Entities  []Entity
	Relations []Relation
	Issues    []storemodel.Issue
	// Extra counts items carrying keys beyond the fixed ones (written
	// before 52ab84cd), Ignored lines loadGraph skips (no entity or
	// relation type).
	Extra, Ignored int
}

var fixedKeys = map[string]map[string]bool{
	"entity":   {"type": true, "name": true, "entityType": true, "observations": true},
	"relation": {"type": true, "from": true, "to": true, "relationType": true},
}

// Parse reads the file's bytes as loadGraph does. A line JSON.parse
// rejects (which makes loadGraph, and so every tool of the server, fail)
// is an issue and the other lines are still read.
func Parse(b []byte, file string) *Graph {
	g := &Graph{}
	text := nodeUTF8(b)
	for i, line := range strings.Split(text, "\n") {
		if blank(line) {
			continue
		}
		g.line(line, i+1, file)
	}
	return g
}

// nodeUTF8 is b as the server reads it (fs.readFile(path, "utf-8"): Node's
// UTF-8 decoder, the WHATWG Encoding Standard's): one U+FFFD for each
// maximal part of an invalid sequence, which is what x/text's UTF-8
// decoder writes (strings.ToValidUTF8 writes one for a whole run, and a
// utf8.DecodeRune loop one per byte of a truncated sequence; both differ
// from Node). TestDecodesAsNode compares with Node itself.
func nodeUTF8(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	out, err := textunicode.UTF8.NewDecoder().Bytes(b)
	if err != nil {
		return strings.ToValidUTF8(string(b), "\uFFFD") // not reached: the decoder replaces, it does not fail
	}
	return string(out)
}

func (g *Graph) line(line string, n int, file string) {
	bad := func(field, msg string) {
		g.Issues = append(g.Issues, storemodel.Issue{Code: finding.StoreRecordMalformed, File: file, Subject: fmt.Sprintf("line %d, %s", n, field), Message: msg})
	}
	var v any
	if err := json.Unmarshal([]byte(line), &v); err != nil {
		bad("JSON", fmt.Sprintf("JSON.parse would throw (%v): upstream loadGraph fails on this file", err))
		return
	}
	item, ok := v.(map[string]any)
	if !ok {
		if v == nil {
			bad("JSON", "null: reading null.type throws, so upstream loadGraph fails on this file")
			return
		}
		g.Ignored++
		return
	}
	kind, _ := item["type"].(string)
	keys, known := fixedKeys[kind]
	if !known {
		g.Ignored++
		return
	}
	for k := range item {
		if !keys[k] {
			g.Extra++
			break
		}
	}
	if at := loneSurrogate(line); at >= 0 {
		g.Issues = append(g.Issues, storemodel.Issue{Code: finding.MCPMemLoneSurrogate, File: file, Subject: fmt.Sprintf("line %d", n),
			Message: fmt.Sprintf("a lone surrogate escape %s at byte %d: the server keeps it, memscope reads U+FFFD", line[at:at+6], at)})
	}
	str := func(k string) (string, bool) {
		s, ok := item[k].(string)
		if !ok {
			bad(k, fmt.Sprintf("%s, not a string", describe(item[k])))
		}
		return s, ok
	}
	if kind == "relation" {
		from, ok1 := str("from")
		to, ok2 := str("to")
		rt, ok3 := str("relationType")
		if ok1 && ok2 && ok3 {
			g.Relations = append(g.Relations, Relation{From: from, To: to, RelationType: rt, Line: n})
		}
		return
	}
	name, ok1 := str("name")
	et, ok2 := str("entityType")
	if !ok1 || !ok2 {
		return
	}
	e := Entity{Name: name, EntityType: et, Line: n}
	obs, isList := item["observations"].([]any)
	if !isList {
		bad("observations", fmt.Sprintf("%s, not an array", describe(item["observations"])))
	}
	for j, o := range obs {
		s, ok := o.(string)
		if !ok {
			bad(fmt.Sprintf("observations[%d]", j), fmt.Sprintf("%s, not a string", describe(o)))
			continue
		}
		e.Observations = append(e.Observations, s)
	}
	g.Entities = append(g.Entities, e)
}

func describe(v any) string {
	switch v.(type) {
	case nil:
		return "null or missing"
	case bool:
		return "a boolean"
	case float64:
		return "a number"
	case string:
		return "a string"
	case []any:
		return "an array"
	}
	return "an object"
}

// Node ids: entities and observations live in one id space, kept apart by
// prefix so that no entity name can collide with an observation.
func entityID(name string) string { return "entity:" + name }

func observationID(name string, i int) string { return fmt.Sprintf("observation:%s#%d", name, i) }

// Open reads the store at path into the native-store model.
func Open(ctx context.Context, path string) (*storemodel.Store, error) {
	file, ok := Locate(path)
	if !ok {
		return nil, fmt.Errorf("%s: not the MCP memory server's store (memory.jsonl or memory.json: one JSON object per line with type \"entity\" or \"relation\")", path)
	}
	b, desc, err := storefile.ReadAll(ctx, file, "MCP memory server store (JSONL)", storefile.MaxJSON)
	if err != nil {
		return nil, err
	}
	g := Parse(b, file)
	st := &storemodel.Store{Format: Format, Root: file, Files: []storemodel.File{desc}, Issues: g.Issues}
	Build(g, file, st)
	return st, nil
}

// loneSurrogate returns the offset of the first \uXXXX escape in a valid
// JSON line that is half of a UTF-16 surrogate pair without the other
// half, or -1. JSON.parse keeps such a unit in its string; Go's decoders
// replace it with U+FFFD, so two strings that differ only there are one
// to memscope.
func loneSurrogate(line string) int {
	if !strings.Contains(line, `\u`) {
		return -1 // most lines: no escape to read
	}
	for i := 0; i+1 < len(line); i++ {
		if line[i] != '\\' {
			continue
		}
		c, ok := escapedUnit(line, i)
		if !ok {
			i++ // \\, \" and the other two-byte escapes
			continue
		}
		switch {
		case c >= 0xD800 && c <= 0xDBFF:
			if d, ok := escapedUnit(line, i+6); ok && d >= 0xDC00 && d <= 0xDFFF {
				i += 11
				continue
			}
			return i
		case c >= 0xDC00 && c <= 0xDFFF:
			return i
		}
		i += 5
	}
	return -1
}

// escapedUnit reads the \uXXXX escape at line[i], if there is one.
func escapedUnit(line string, i int) (uint16, bool) {
	if i+6 > len(line) || line[i] != '\\' || line[i+1] != 'u' {
		return 0, false
	}
	v, err := strconv.ParseUint(line[i+2:i+6], 16, 16)
	return uint16(v), err == nil
}
