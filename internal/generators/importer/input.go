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
)

func nameProblem(s string) string { return record.NameProblem(s) }

func principalProblem(s string) string { return record.PrincipalProblem(s) }
