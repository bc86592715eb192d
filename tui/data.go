package tui

// The data contract between the inspector and the analysis side.
//
// The TUI never analyses evidence itself: everything it shows comes through
// Source, implemented by package inspect on top of loader, verify, lineage,
// replay, dagdraw and tlog (and by tuitest.Fake in tests).
//
// Who calls what:
//
//   - Fast methods (Overview, EntryCount, Entry, EntryIndex, Findings,
//     Checkpoints, LeafCount, Leaf, Actions, Scenario) are called from the
//     model's Update and View on the UI goroutine. They must return in
//     microseconds: read from memory, no IO, no analysis. Entry and Leaf are
//     called for every visible row on every frame and, from filter and sort
//     commands, for every row of the store.
//   - Slow methods (those taking a context.Context) are only ever called from
//     a tea.Cmd, that is from a goroutine of their own. They may read files,
//     fetch tiles over HTTP or run PPR. They must honour ctx: the TUI cancels
//     it when the user asks for something else or quits.
//
// Thread-safety: several commands can run at once (a filter over Entry, a
// lineage recomputation and the verification), all concurrently with the
// UI goroutine's fast calls. Every method must be safe for concurrent use.
// Results handed back (slices, maps) are treated as read-only by the TUI
// and must not be mutated by the Source afterwards.
//
// Untrusted text: every string a Source returns that comes from evidence
// (content, writer names, ids, messages quoting evidence, DAG rows) is
// returned raw. The TUI passes it through package sanitize before any
// styling; the Source must not pre-escape it (that would double-escape).

import (
	"context"

	"github.com/memscope/memscope/internal/analyses/defences"
	"github.com/memscope/memscope/internal/present/finding"
	"github.com/memscope/memscope/lineage"
	"github.com/memscope/memscope/replay"
)

// Source is everything the inspector needs from a loaded snapshot and log.
type Source interface {
	// Overview is the store at a glance. Fast.
	Overview() Overview

	// EntryCount is the number of memory entries; Entry(i) for 0 <= i <
	// EntryCount() returns row i in store order (the order of the snapshot).
	// Fast; Entry is called from background filters for every row.
	EntryCount() int
	Entry(i int) EntryRow
	// EntryIndex maps a record id to its row, for jumps from findings,
	// lineage and replay. Fast (a map lookup).
	EntryIndex(id string) (int, bool)

	// Findings known at open time, before verification (for example tables
	// that could not be loaded). Fast. A successful Verify's final Findings
	// replace them, so that list must hold every finding that still applies.
	Findings() []finding.Finding

	// Verify runs the full verification (signatures, log, tombstones,
	// lineage laundering, replay divergences, gate audit...) and reports
	// progress on the returned channel, which the Source closes after
	// sending one final Progress with Done set. Slow: the TUI calls it from
	// a tea.Cmd and reads the channel one message per command. Findings of
	// every analysis (lineage, replay) come back as finding.Finding with a
	// Family of their own; Subject is an entry id, "leaf N", "checkpoint N",
	// "query ID" or "action ID" so that Enter can jump to it.
	Verify(ctx context.Context) <-chan Progress

	// EntryDetail decodes everything about entry i, including its inclusion
	// proof. Slow (may read tiles).
	EntryDetail(ctx context.Context, i int) (EntryDetail, error)

	// Lineage draws the DAG neighbourhood of id with labels recomputed at
	// tau and explains the path from each External ancestor. Slow
	// (propagation over the whole store).
	Lineage(ctx context.Context, id string, tau float64) (LineageView, error)

	// Replay replays every stored query on G and G_auth. Slow.
	Replay(ctx context.Context) (ReplayView, error)
	// WhatIf replays one query on G with the named unauthenticated edges
	// removed (replay.Replayer.WhatIf with BaseG). Slow (one PPR solve).
	WhatIf(ctx context.Context, queryID string, remove []string) (replay.WhatIf, error)

	// Checkpoints in log order, with their consistency as known so far
	// (Unknown until Verify has finished). Fast.
	Checkpoints() []CheckpointRow
	// LeafCount and Leaf list the log's leaves. Fast (from the snapshot's
	// index of leaves, not from tiles).
	LeafCount() int
	Leaf(i int) LeafRow

	// Actions with the gate verdict recomputed at the default tau. Fast.
	Actions() []lineage.GateResult
	// ActionVerdicts is what each defence (none, IFC, MemLineage, AuthSelect,
	// SMSR) says of every action; nil until verification has finished.
	ActionVerdicts() []defences.Row

	// Close releases what the Source opened (files, background loading).
	// The one who opened the Source calls it once the inspector is done
	// with it; it is safe to call more than once.
	Close() error
}

// PreviewSource is a Source whose Entry does no IO: a row whose content
// preview is not in memory comes back with PreviewPending set, and the
// inspector reads it with ReadPreviews from a tea.Cmd, never from Update or
// View (a slow disk or a hostile cell must not stall a key).
type PreviewSource interface {
	// ReadPreviews reads the previews of rows [from, to) so that Entry
	// returns them. It blocks; the inspector calls it from a tea.Cmd.
	ReadPreviews(ctx context.Context, from, to int) error
}

// entryWithPreview is row i with its preview read: for the background
// commands (filter, export) that need the content. Never call it from
// Update or View.
func entryWithPreview(ctx context.Context, src Source, i int) EntryRow {
	r := src.Entry(i)
	if ps, ok := src.(PreviewSource); ok && r.PreviewPending {
		if err := ps.ReadPreviews(ctx, i, i+1); err != nil {
			r.Preview, r.PreviewPending = "(content not read: "+err.Error()+")", false
			return r
		}
		r = src.Entry(i)
	}
	return r
}

// Relabeler is a Source that can recompute labels at another tau. The
// inspector calls Relabel (from a tea.Cmd) when the user changes tau; from
// then on Entry's Recomputed, Actions and Overview().Tau follow it, so every
// view shows the same labels. Optional: without it only the lineage view
// follows tau and the header says so.
type Relabeler interface {
	Relabel(ctx context.Context, tau float64) error
}

// PolicyRelabeler is a Relabeler that can also switch the label policy:
// fail-open (a derived entry with no strong parent edge keeps its trust)
// or fail-closed (it becomes Derived-Untrusted). The inspector calls it
// from a tea.Cmd; from then on Entry, Actions, Lineage and Overview (its
// LabelPolicy) follow both. Optional: without it the policy is the one
// the store was opened with and the header says so.
type PolicyRelabeler interface {
	RelabelPolicy(ctx context.Context, tau float64, failClosed bool) error
}

// Shower is a Source told when the inspector has drawn its first frame
// (it may hold background work back until then). Optional.
type Shower interface {
	Shown()
}

// Grouper is a Source that folds findings under their root causes
// (inspect.GroupFindings: one altered tile explains the inclusion failures
// under it, a wrong registry root the unregistered writers). Optional:
// without it the findings view groups by code.
type Grouper interface {
	RootCauses(fs []finding.Finding) []RootCause
}

// RootCause is one group of findings with one cause.
type RootCause struct {
	Headline string // the cause in a sentence
	HasCause bool   // Members[0] explains the others
	Members  []int  // indices into the findings given, the cause first
}

// Overview is the store at a glance.
type Overview struct {
	Title       string   `json:"title"` // snapshot path or scenario name
	Principals  int      `json:"principals"`
	Entries     int      `json:"entries"`
	Edges       int      `json:"edges"` // structural writes
	Queries     int      `json:"queries"`
	Actions     int      `json:"actions"`
	Tombstones  int      `json:"tombstones"`
	LogSize     uint64   `json:"log_size"` // leaves in the log
	Checkpoints int      `json:"checkpoints"`
	Anchors     []Anchor `json:"anchors"`
	Tau         float64  `json:"tau"` // the tau the Entries view's recomputed labels use
	// LabelPolicy names how unknown parents are labelled: "fail-closed"
	// (they count as External) or "fail-open".
	LabelPolicy string `json:"label_policy"`
	// Notes are short load-time remarks (for example "HMAC key not given:
	// HMAC tags not checked").
	Notes []string `json:"notes"`
	// Unsigned is set for a native store (docs/STORES.md): it has no
	// signatures, so the inspector says "checked", never "verified".
	Unsigned bool `json:"unsigned"`
}

// Anchor is one trust anchor and whether the user pinned it.
type Anchor struct {
	Name   string `json:"name"`   // "log key", "registry root"
	Pinned bool   `json:"pinned"` // supplied by the user; false: read from the snapshot
	Detail string `json:"detail"` // key id or fingerprint
}

// Status is a tri-state check result, always shown with a word, never by
// colour alone.
type Status uint8

const (
	Unknown Status = iota // not checked (yet), or no key to check with
	OK
	Failed
)

func (s Status) String() string {
	switch s {
	case OK:
		return "ok"
	case Failed:
		return "FAIL"
	}
	return "?"
}

// MarshalText gives JSON exports a word: "ok", "failed" or "not checked".
func (s Status) MarshalText() ([]byte, error) {
	switch s {
	case OK:
		return []byte("ok"), nil
	case Failed:
		return []byte("failed"), nil
	}
	return []byte("not checked"), nil
}

// EntryRow is one row of the entries table. Every field must be cheap.
type EntryRow struct {
	ID         string        `json:"id"`
	Writer     string        `json:"writer"`
	Recorded   lineage.Trust `json:"recorded"`
	Recomputed lineage.Trust `json:"recomputed"` // at Overview().Tau
	TimeNS     int64         `json:"time_ns"`    // record ts in ns since the Unix epoch
	Status     Status        `json:"status"`     // verification status of the record
	// Problem names what is wrong in a few capitals (TOMBSTONED, PARENT?,
	// HMAC?, SIG FAIL...) when Status is Failed; "" shows the status.
	Problem string `json:"problem"`
	Preview string `json:"preview"` // raw content, at least the first ~200 bytes
	// PreviewPending says Preview has not been read yet (a PreviewSource
	// reads it in the background; the row shows a placeholder until then).
	PreviewPending bool `json:"-"`
	// Suspicious is sanitize.Findings of the whole content (not only the
	// preview) and of the writer: non-zero flags the row.
	Suspicious uint16 `json:"suspicious"`
}

// Progress is one report of the background verification.
type Progress struct {
	Stage string // "signatures", "log", "lineage", "replay"...
	Done  int
	Total int
	// Finished is set on the last message only, with Findings holding every
	// finding of every analysis (they replace Source.Findings) and Err any
	// failure that stopped the run.
	Finished bool
	// Verified, on a message before the last, says verification and the
	// analyses its summary line counts are in, while a slower one (the
	// MWP audit) still runs: Findings holds every finding so far, and the
	// Finished message that follows holds them all again with the rest.
	// The inspector then says "verified" without waiting for the rest.
	Verified bool
	Findings []finding.Finding
	Err      error
}

// Field is one decoded record field.
type Field struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// ProofStep is one level of an inclusion proof, from the leaf upwards.
type ProofStep struct {
	Sibling []byte `json:"sibling"` // the proof hash at this level
	Left    bool   `json:"left"`    // the sibling is the left child
	Node    []byte `json:"node"`    // the hash computed at this level (the parent)
}

// Inclusion is an entry's inclusion proof against a checkpoint.
type Inclusion struct {
	LeafIndex uint64      `json:"leaf_index"`
	TreeSize  uint64      `json:"tree_size"`
	LeafHash  []byte      `json:"leaf_hash"`
	Steps     []ProofStep `json:"steps"`
	Root      []byte      `json:"root"`     // the checkpoint root
	Verified  bool        `json:"verified"` // the last step's Node equals Root
	Err       string      `json:"err"`      // why the proof could not be fetched or checked
}

// Link is a parent or child edge of an entry.
type Link struct {
	ID     string        `json:"id"`
	Weight float64       `json:"weight"`
	Strong bool          `json:"strong"` // weight > tau
	Trust  lineage.Trust `json:"trust"`
}

// EntryDetail is everything about one entry.
type EntryDetail struct {
	Row         EntryRow   `json:"row"`
	Fields      []Field    `json:"fields"` // every field of the decoded record, in encoding order
	Signature   Status     `json:"signature"`
	SigNote     string     `json:"sig_note"` // "Ed25519 under key 1a2b... (agent:planner)", or why not
	HMAC        Status     `json:"hmac"`
	HMACNote    string     `json:"hmac_note"`
	Inclusion   *Inclusion `json:"inclusion"` // nil: no leaf for this record
	Parents     []Link     `json:"parents"`
	Children    []Link     `json:"children"`
	SignedBytes []byte     `json:"signed_bytes"`
}

// LineageView is the lineage of one entry at one tau.
type LineageView struct {
	ID  string  `json:"id"`
	Tau float64 `json:"tau"`
	// Rows are the DAG neighbourhood drawn by dagdraw, one string per row,
	// with the centre at row Center. RowIDs[i] is the entry id on row i
	// ("" for connector-only rows) so the selection can follow it.
	Rows        []string            `json:"rows"`
	RowIDs      []string            `json:"row_i_ds"`
	Center      int                 `json:"center"`
	Explanation lineage.Explanation `json:"explanation"`
	DOT         string              `json:"dot"` // the same neighbourhood as Graphviz DOT, for export
	// Declared, when set, marks a native store's lineage: history the
	// store declares in its own fields (unsigned), not trust propagation.
	// It is the view's caption; Rows are then the store's declared history
	// (no trust labels, no tau) and Notes say what it means or, with no
	// Rows, why there is nothing to draw.
	Declared string   `json:"declared,omitempty"`
	Notes    []string `json:"notes,omitempty"`
}

// ReplayView is the replay of every stored query.
type ReplayView struct {
	Rows []replay.Row `json:"rows"`
	// Texts maps query id to the query text (raw).
	Texts map[string]string `json:"texts"`
	// Unauthenticated are the unauthenticated structural writes a what-if
	// can toggle, per query id, the culprits first. Queries with no entry
	// have nothing to toggle.
	Unauthenticated map[string][]UnauthEdge `json:"unauthenticated"`
	// Nodes describes the passages of every selection: the entry behind
	// the node and its text (raw), for the story's injected passage.
	Nodes map[string]NodeInfo `json:"nodes"`
	// AsRan holds, for Rows[i], the replay on the graph as it stood when
	// that query ran (only the writes logged before it), and AsRanAt says
	// which moment that was. A zero Row (empty QueryID) means the query has
	// no place in the evidence's timeline or could not be replayed then.
	AsRan   []replay.Row `json:"as_ran"`
	AsRanAt []string     `json:"as_ran_at"`
	// Followed maps a query id to the recorded actions justified by an
	// entry behind a passage the query selected on G (the action that
	// followed the retrieval), in action order.
	Followed map[string][]string `json:"followed"`
}

// NodeInfo is a graph node's entry.
type NodeInfo struct {
	EntryID string `json:"entry_id"`
	Text    string `json:"text"`
}

// UnauthEdge is one unauthenticated structural write.
type UnauthEdge struct {
	ID       string  `json:"id"`
	Src      string  `json:"src"`
	Dst      string  `json:"dst"`
	Weight   float64 `json:"weight"`
	Writer   string  `json:"writer"`
	Rule     string  `json:"rule"`      // the label rule that failed (replay.EdgeLabel.Rule)
	NoSource bool    `json:"no_source"` // a write with an empty source list
}

// CheckpointRow is one checkpoint of the log.
type CheckpointRow struct {
	Index      int    `json:"index"`
	Size       uint64 `json:"size"`
	Root       []byte `json:"root"`
	TimeNS     int64  `json:"time_ns"` // 0 when the checkpoint carries no time
	Signature  Status `json:"signature"`
	Consistent Status `json:"consistent"` // with the previous checkpoint
	Note       string `json:"note"`
}

// LeafKind classifies a log leaf.
type LeafKind uint8

const (
	LeafEntry LeafKind = iota
	LeafWrite
	LeafRegistry
	LeafTombstone
	LeafUnknown
	// Signed event records (queries, actions, gate events, node
	// declarations) have leaves of their own kinds.
	LeafQuery
	LeafAction
	LeafGate
	LeafNode
	// The store operator's records: a meta value, a checkpoint sighting,
	// a vector of the index.
	LeafConfig
	LeafSighting
	LeafVector
)

func (k LeafKind) String() string {
	switch k {
	case LeafEntry:
		return "entry"
	case LeafWrite:
		return "write"
	case LeafRegistry:
		return "registry"
	case LeafTombstone:
		return "tombstone"
	case LeafQuery:
		return "query"
	case LeafAction:
		return "action"
	case LeafGate:
		return "gate"
	case LeafNode:
		return "node"
	case LeafConfig:
		return "config"
	case LeafSighting:
		return "checkpoint"
	case LeafVector:
		return "vector"
	}
	return "unknown"
}

// MarshalText gives JSON exports the kind's name.
func (k LeafKind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// LeafRow is one log leaf.
type LeafRow struct {
	Index   uint64   `json:"index"`
	Kind    LeafKind `json:"kind"`
	Subject string   `json:"subject"` // the record id the leaf names
}

// Scenario is one entry of the demo picker.
type Scenario struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Expect      string `json:"expect"` // what the inspector should show (from the manifest)
	Dir         string `json:"dir"`    // the scenario's folder ("" not shown)
}

// Coverer is a Source that says which rows no signature or tag covers
// (verify's coverage, through package inspect). Coverage returns "" for a
// covered row and the label to show otherwise ("unsigned", or "not
// checked" before verification). table is one of "queries", "actions",
// "gate_events", "nodes", "checkpoints", "meta", "vectors". Optional: without it the views
// show no coverage label.
type Coverer interface {
	Coverage(table, id string) string
}
