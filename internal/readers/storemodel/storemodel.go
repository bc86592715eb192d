// Package storemodel is the in-memory evidence model that every native
// store reader (HippoRAG 2, LightRAG, Mem0, SMSR, GraphRAG) fills and every
// analysis of a native store reads. Nothing in it is signed: every fact is
// declared by the store's own fields, and the model says so.
package storemodel

import (
	"path/filepath"

	"github.com/memscope/memscope/internal/present/finding"
)

// Format names a native store format (the --format values).
type Format string

const (
	HippoRAG Format = "hipporag"
	LightRAG Format = "lightrag"
	Mem0     Format = "mem0"
	SMSR     Format = "smsr"
	GraphRAG Format = "graphrag"
)

// Unsigned is said by every output about a native store.
const Unsigned = "unsigned store: provenance declared by the store's own fields"

// Node kinds (the replay package's kinds).
const (
	KindPassage = "passage"
	KindEntity  = "entity"
)

// File is one file of the store that was read, with its digest so a report
// can name exactly what it analysed.
type File struct {
	Path   string `json:"path"`
	Role   string `json:"role"`
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"`
}

// Node is one vertex of a store's graph.
type Node struct {
	ID    string
	Kind  string // KindPassage or KindEntity
	Label string
	// CreatedAt is when the store says the node was written, as stored
	// ("" when it keeps no time: LightRAG 1.4+ stamps created_at).
	CreatedAt string
	// Listed: a passage that the store's own passage records list (an OpenIE
	// document, a text chunk, a text unit). Only listed passages count as
	// authenticated items for the IFC-blind test, and only as declared.
	Listed bool
}

// Edge kinds: how the store's own fields explain an edge.
const (
	EdgePassage     = "passage"     // passage - entity it mentions
	EdgeFact        = "fact"        // entity - entity of an extracted triple
	EdgeSynonym     = "synonym"     // entity - entity by embedding similarity (no source by design)
	EdgeRelation    = "relation"    // a relationship record of the store
	EdgeUnexplained = "unexplained" // nothing in the store explains it
)

// Edge is one structural write as replay sees it: parallel edges of one
// node pair are one write with their weights summed.
type Edge struct {
	ID       string // "A--B" (A < B in byte order) unless the store names it
	Src, Dst string
	Weight   float64
	Parts    int // stored edges merged into this write
	Kind     string
	// Sources are the passage ids whose records explain the write; empty is
	// a no-source write.
	Sources []string
	// Expected is the weight the explaining records account for (0: not
	// computed).
	Expected float64
	// CreatedAt is when the store says the edge was written, as stored
	// ("" when it keeps no time).
	CreatedAt string
}

// Doc is one document the store records processing (LightRAG's document
// status): its own times, as stored.
type Doc struct {
	ID, Status           string
	CreatedAt, UpdatedAt string
}

// Issue is one problem a reader found in the store's contents: the file and
// the record and field it concerns. Analyses turn issues into findings.
type Issue struct {
	Code    finding.Code
	File    string
	Subject string // record or edge
	Message string
}

// Finding is the issue as every output shows it: the subject prefixed
// with the file's base name, the text raw (each output sanitises it once).
func (is Issue) Finding() finding.Finding {
	subject := is.Subject
	if is.File != "" {
		subject = filepath.Base(is.File) + ": " + subject
	}
	return finding.New(is.Code, subject, is.Message)
}

// Version is one event of a Mem0 memory's history.
type Version struct {
	ID        string
	MemoryID  string
	Old, New  string
	Event     string // ADD, UPDATE, DELETE (as stored)
	CreatedAt string
	UpdatedAt string
	Deleted   bool
	Actor     string
	Role      string
	Row       int64 // rowid, the order rows were written
}

// When is the event's time as stored: updated_at when set (UPDATE and
// DELETE keep the memory's created_at and stamp the event there), else
// created_at.
func (v Version) When() string {
	if v.UpdatedAt != "" {
		return v.UpdatedAt
	}
	return v.CreatedAt
}

// Text is what the event is about: the text a DELETE removed, else the
// new text.
func (v Version) Text() string {
	if v.Event == "DELETE" {
		return v.Old
	}
	return v.New
}

// Message is one row of Mem0's messages table: the recent conversation of
// a session scope, which Mem0 hands to the next add() in that scope as
// context (get_last_messages).
type Message struct {
	ID        string
	Scope     string
	Role      string // as stored: a claim
	Content   string
	Name      string
	CreatedAt string
	Row       int64
}

// Memory is one SMSR memories row.
type Memory struct {
	ID        int64
	Content   string
	Session   string
	Timestamp float64
	Tag       string // hex HMAC-SHA256, "" when NULL
	TagNull   bool
	EmbedLen  int
}

// Store is a native store read into memory.
type Store struct {
	Format Format
	// Layout names the upstream version range whose on-disk layout the
	// reader recognised ("GraphRAG 0.5-1.x ...", "nano-graphrag"), as
	// told from the store's contents; "" when the format has one layout.
	Layout   string
	Root     string
	Files    []File
	Nodes    []Node
	Edges    []Edge
	Versions []Version
	Messages []Message
	Memories []Memory
	// Vectors and VectorStore: a Mem0 vector store read beside (or
	// without) its history (packages qdrantlocal, chromadb, mem0vec).
	Vectors     []VectorPoint
	VectorStore *VectorStore
	// Docs: the documents whose processing the store records.
	Docs   []Doc
	Issues []Issue
	// Notes say what the reader could not reproduce or check.
	Notes []string
}

// PairSep joins the endpoints of a PairID.
const PairSep = "--"

// PairID names an edge that has no id of its own by its endpoints.
func PairID(a, b string) string {
	if b < a {
		a, b = b, a
	}
	return a + PairSep + b
}
