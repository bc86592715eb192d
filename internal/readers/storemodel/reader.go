package storemodel

import (
	"context"
	"fmt"

	"github.com/memscope/memscope/internal/present/finding"
)

// Command names what a user asks of a store; a Reader says which of them
// its stores support and, for the others, why not.
type Command string

// The commands that take a native store.
const (
	CmdVerify   Command = "verify"
	CmdReplay   Command = "replay"
	CmdLineage  Command = "lineage"
	CmdInspect  Command = "inspect"
	CmdImport   Command = "import"
	CmdTimeline Command = "timeline"
	CmdDiff     Command = "diff"
	CmdExposure Command = "exposure"
	CmdReport   Command = "report"
	CmdActions  Command = "actions"
)

// Holds says which parts of the model a format fills. Every command and
// view follows from it, so nothing outside a format's own folder names the
// format.
type Holds uint8

const (
	// HoldsGraph: Nodes and Edges (replay, exposure, declared edge lineage).
	HoldsGraph Holds = 1 << iota
	// HoldsHistory: Versions and Messages (version chains).
	HoldsHistory
	// HoldsTaggedRows: Memories with HMAC tags (--hmac-key, the SMSR
	// certificate).
	HoldsTaggedRows
)

// Reader is one store format's entry in the registry (package stores):
// how to recognise a store of it, how to read one, and what it holds.
type Reader struct {
	Format Format
	// Name is the upstream tool's name as people write it ("LightRAG").
	Name string
	// Looks tells from path's contents whether it is a store of this
	// format. It must not block on special files (the registry only
	// passes regular files and directories) and reads only what it needs.
	Looks func(path string) bool
	// Open reads the store at path (absolute) read-only.
	Open  func(ctx context.Context, path string) (*Store, error)
	Holds Holds
	// Findings, when not nil, are the format's own analyses of an opened
	// store (Mem0's version chains); every output appends them to the
	// reader's issues, so the CLI, the inspector and the report agree.
	Findings func(*Store) []finding.Finding
	// ReplayNote says what replay on this format's graph is; "" is a
	// what-if of HippoRAG 2's selector over another system's graph.
	ReplayNote string
	// QueryEmbeddings: the store keeps the embeddings from which its own
	// retrieval builds reset vectors (--query-embeddings).
	QueryEmbeddings bool
	// Refuses names commands the format cannot support, beyond what
	// Holds implies, each with the reason shown to the user.
	Refuses map[Command]string
}

// ForeignReplayNote is what replay is on a graph whose own system does not
// retrieve with PPR.
const ForeignReplayNote = "a what-if: HippoRAG 2's selector (PPR over passages joined to their entities) run over this store's graph, which its own system does not retrieve with"

// Supports says whether stores of r's format support c; when not, reason
// is the one line the command prints (it exits 2).
func (r Reader) Supports(c Command) (ok bool, reason string) {
	if why, refused := r.Refuses[c]; refused {
		return false, why
	}
	graph := r.Holds&HoldsGraph != 0
	switch c {
	case CmdReplay, CmdExposure, CmdImport:
		if !graph {
			return false, fmt.Sprintf("%s stores keep no graph: their retrieval is vector similarity over memories, which unauthenticated structure cannot change (immune: AuthSelect, arXiv:2606.12290, Table II); use verify or lineage", r.Name)
		}
	case CmdLineage:
		if !graph && r.Holds&HoldsHistory == 0 {
			return false, fmt.Sprintf("%s stores record no derivation between memories: each row stands alone", r.Name)
		}
	case CmdActions:
		return false, fmt.Sprintf("%s stores keep no record of the agent's actions (only memory contents), so there are no actions to judge", r.Name)
	}
	return true, ""
}

// Replay is what replay on r's graph means.
func (r Reader) Replay() string {
	if r.ReplayNote != "" {
		return r.ReplayNote
	}
	return ForeignReplayNote
}
