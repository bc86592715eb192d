// Package importer turns graph exports from other agent-memory stacks
// (HippoRAG2, Graphiti, LightRAG and the like), written as documented CSV or
// JSONL files, into memscope evidence: a signed snapshot, its Merkle log and
// the public trust anchors, so that verify, lineage, replay and the inspector
// work on them. docs/IMPORT.md specifies the input format.
//
// The importer signs every record itself, with keys derived from a seed: the
// signatures attest the import, not the original writers. Provenance labels
// found in the input are stored as declared labels, never as verified facts.
package importer

import (
	"github.com/memscope/memscope/evidence/record"
	"github.com/memscope/memscope/internal/generators/graphfile"
)

// The input format lives in package graphfile (read side); these names keep
// the importer's API.
type (
	Format     = graphfile.Format
	InputError = graphfile.InputError
	Node       = graphfile.Node
	Edge       = graphfile.Edge
	Query      = graphfile.Query
	Graph      = graphfile.Graph
)

const (
	CSV                  = graphfile.CSV
	JSONL                = graphfile.JSONL
	LabelAuthenticated   = graphfile.LabelAuthenticated
	LabelUnauthenticated = graphfile.LabelUnauthenticated
	DefaultK             = graphfile.DefaultK
	MaxK                 = graphfile.MaxK
)

var (
	ParseFormat  = graphfile.ParseFormat
	DetectFormat = graphfile.DetectFormat
	ReadNodes    = graphfile.ReadNodes
	ReadEdges    = graphfile.ReadEdges
	ReadQueries  = graphfile.ReadQueries
)

func nameProblem(s string) string { return record.NameProblem(s) }

func principalProblem(s string) string { return record.PrincipalProblem(s) }
