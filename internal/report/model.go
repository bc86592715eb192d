// Package report writes memscope's incident report: one self-contained HTML
// file for people who will never run memscope, and a JSON case file with
// the same facts for tools. It renders what the analyses return (through
// package inspect) and computes nothing of its own beyond counting and
// choosing what to show first.
//
// Every string read from the evidence is a Text: the HTML shows it
// escaped by html/template with its control, bidi and invisible characters
// made visible (package sanitize), and the JSON holds its sanitised form.
package report

import (
	"encoding/json"

	"github.com/memscope/memscope/internal/assemble"
	"github.com/memscope/memscope/internal/present/finding"
	"github.com/memscope/memscope/internal/present/jsonout"
	"github.com/memscope/memscope/verify"

	"github.com/memscope/memscope/internal/present/sanitize"
)

// Schema names the JSON case file's format.
const Schema = "memscope-case/4"

// Text is a string that came from the evidence (content, ids, writers,
// messages that quote them, file names).
type Text string

// MarshalJSON writes the sanitised text: JSON escaping leaves C1 controls,
// bidi overrides and invisible characters as they are.
func (t Text) MarshalJSON() ([]byte, error) { return json.Marshal(sanitize.Line(string(t))) }

// Pieces splits the sanitised text into verbatim runs and visible escapes,
// so the page can mark the escapes.
func (t Text) Pieces() []sanitize.Piece { return sanitize.LinePieces(string(t)) }

// Suspicious names the hidden-character classes the text carries, if any.
func (t Text) Suspicious() string {
	if f := sanitize.Findings(string(t)); f != 0 {
		return f.String()
	}
	return ""
}

// Case is everything the report says: the HTML page and the JSON case file
// are two renderings of one Case.
type Case struct {
	Schema    string `json:"schema"`
	Title     Text   `json:"title"`
	Generated string `json:"generated"` // RFC 3339, UTC
	Tool      Tool   `json:"tool"`
	// Command is the command line that reproduces the report, one argument
	// an element; CommandLine is it quoted for a POSIX shell.
	Command     []Text `json:"command"`
	CommandLine Text   `json:"command_line"`

	Verdict   Verdict   `json:"verdict"`
	Evidence  Evidence  `json:"evidence"`
	Integrity Integrity `json:"integrity"`
	// Verify is `verify --json`'s answer, whole.
	Verify   *verify.Report   `json:"verify"`
	Actions  ActionsSection   `json:"actions"`
	Replay   ReplaySection    `json:"replay"`
	Lineage  LineageSection   `json:"lineage"`
	Timeline *TimelineSection `json:"timeline,omitempty"`
	Exposure *ExposureSection `json:"exposure,omitempty"`
	Glossary []Term           `json:"glossary"`
	// Findings are every finding the case rests on (verification's,
	// lineage's and replay's, the one finding type), for the outputs other
	// tools ingest (report --ocsf); the case file shows them grouped.
	Findings []finding.Finding `json:"-"`
}

// Tool identifies the memscope build that wrote the report.
type Tool struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// Level is the verdict's one-word class. None of them claims the evidence
// is verified: at best, nothing was found by checks that were anchored.
type Level string

const (
	LevelCompromise Level = "compromise-indicated" // an attack or tampering was found
	LevelNotChecked Level = "not-checked"          // nothing found, but an anchor came from the evidence
	LevelNoFinding  Level = "no-finding"           // nothing found with pinned anchors
)

// Verdict is the one-paragraph answer, in plain words.
type Verdict struct {
	Level     Level  `json:"level"`
	Headline  string `json:"headline"`
	Paragraph []Span `json:"paragraph"`
	// Certainty says how sure the findings are and why.
	Certainty string `json:"certainty"`
	// Todo lists what the reader should do, most urgent first.
	Todo []string `json:"todo"`
	// KeyFacts are the figures under the paragraph.
	KeyFacts []Fact `json:"key_facts"`
}

// Span is a run of the verdict paragraph: the report's words (Plain) or a
// quoted value from the evidence (Quote), shown as such.
type Span struct {
	Plain string `json:"plain,omitempty"`
	Quote *Text  `json:"quote,omitempty"`
}

// Fact is one labelled figure.
type Fact struct {
	Label string `json:"label"`
	Value string `json:"value"`
	Alert bool   `json:"alert"`
}

// Evidence is what the report was made from.
type Evidence struct {
	Inputs     []InputFile `json:"inputs"`
	InputTotal InputTotal  `json:"input_total"`
	Anchors    []Anchor    `json:"anchors"`
	Log        LogFacts    `json:"log"`
	Counts     Counts      `json:"counts"`
	Parameters Parameters  `json:"parameters"`
	// LoadIssues are tables that could not be read (the rest was analysed).
	LoadIssues []Text `json:"load_issues"`
}

// InputFile is one file the report read, with its SHA-256 at report time.
type InputFile struct {
	Role   string `json:"role"` // snapshot, log, anchors, log-key, trust, hmac-key, gate-policy
	Path   Text   `json:"path"`
	Under  Text   `json:"under,omitempty"` // the directory input it was found in
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"`
	// Note says why a file has no hash (a log served over HTTP, a symlink).
	Note string `json:"note,omitempty"`
}

// InputTotal sums the inputs.
type InputTotal struct {
	Files int   `json:"files"`
	Bytes int64 `json:"bytes"`
}

// Anchor is one trust anchor and where it came from.
type Anchor struct {
	Name   string `json:"name"`
	Status string `json:"status"` // pinned, unanchored, given, not given
	Source string `json:"source"` // what "pinned" or "unanchored" means here
}

// LogFacts are the log's size and root as read.
type LogFacts struct {
	Location    Text   `json:"location"`
	TreeSize    uint64 `json:"tree_size"`
	RootHash    string `json:"root_hash"` // hex
	Checkpoints int    `json:"checkpoints"`
}

// Counts are the store's record counts.
type Counts struct {
	Records    int `json:"records"`
	Entries    int `json:"entries"`
	Writes     int `json:"structural_writes"`
	Principals int `json:"registry_events"`
	Tombstones int `json:"tombstones"`
	Nodes      int `json:"graph_nodes"`
	Queries    int `json:"queries"`
	Actions    int `json:"actions"`
}

// Parameters are the analysis settings in force.
type Parameters struct {
	Tau         float64 `json:"tau"`
	FailClosed  bool    `json:"fail_closed"`
	K           int     `json:"k"`
	Damping     float64 `json:"damping"`
	LabelPolicy string  `json:"label_policy"`
	GatePolicy  string  `json:"gate_policy"`
}

// Integrity is section 3: verify's findings folded by root cause.
type Integrity struct {
	Errors   int           `json:"errors"`
	Warnings int           `json:"warnings"`
	Infos    int           `json:"infos"`
	Families []FamilyCount `json:"families"`
	Groups   []Group       `json:"groups"`
	// GroupsShown is how many groups have their findings listed; the rest
	// are counted only.
	GroupsShown int `json:"groups_shown"`
}

// FamilyCount is the number of findings in one family.
type FamilyCount struct {
	Family string `json:"family"`
	Count  int    `json:"count"`
}

// Group is one root cause with its findings (at most MaxExamples listed).
type Group struct {
	Code     string    `json:"code"`
	Severity string    `json:"severity"`
	Headline Text      `json:"headline"`
	Count    int       `json:"count"`
	Codes    []string  `json:"codes"` // distinct codes in the group
	Shown    []Finding `json:"shown"`
}

// Finding is one finding as listed.
type Finding struct {
	Severity string `json:"severity"`
	Code     string `json:"code"`
	Subject  Text   `json:"subject"`
	Message  Text   `json:"message"`
}

// ActionsSection is section 4: each recorded action and what the defences
// memscope computes would have said about it.
type ActionsSection struct {
	Total      int `json:"total"`
	Dispatched int `json:"dispatched"`
	Refused    int `json:"dispatched_but_refused"`
	// Headlines counts actions IFC passes while AuthSelect would not
	// accept them: only unauthenticated structure brought them about.
	Headlines int `json:"ifc_blind_actions"`
	// Defences title the page's columns, in order; DefenceKeys are the
	// same defences as each row's verdicts key them.
	Defences    []string `json:"-"`
	DefenceKeys []string `json:"defences"`
	// Rows are the listed actions as the page shows them; Answer the same
	// actions, in the same order, as `actions --json` gives them.
	Rows   []ActionRow         `json:"-"`
	Answer []jsonout.ActionRow `json:"rows"`
	Shown  int                 `json:"shown"`
}

// ActionRow is one action as the page shows it (the case file holds
// ActionsSection.Answer).
type ActionRow struct {
	ID         Text
	Tool       Text
	Query      Text // the query whose selection it followed
	Dispatched bool
	Sensitive  bool
	Verdicts   []string // one decision per Defences column
	Reasons    []Text   // one reason per Defences column
	RefusedBy  []string
	Headline   bool // IFC-blind
	Alert      bool // dispatched although a defence refuses it
	// Coverage is "unsigned" when no signature covers the action row (the
	// action is a claim); QueryCoverage the same of its query's row.
	Coverage      string
	QueryCoverage string
}

// ReplaySection is section 5: the selection replayed on G and G_auth.
type ReplaySection struct {
	Available bool   `json:"available"`
	Note      string `json:"note,omitempty"`
	Queries   int    `json:"queries"`
	Diverge   int    `json:"diverge"`
	Reorder   int    `json:"reorder"`
	Same      int    `json:"same"`
	IFCBlind  int    `json:"ifc_blind"`
	Mismatch  int    `json:"recorded_mismatch"`
	Unauth    int    `json:"unauthenticated_writes"`
	// Rows and Details are what the page shows; Answer the same queries,
	// in the same order, as `replay --json` gives them.
	Rows      []QueryRow          `json:"-"`
	Answer    []jsonout.ReplayRow `json:"rows"`
	RowsShown int                 `json:"rows_shown"`
	Details   []QueryDetail       `json:"-"`
	Damping   float64             `json:"damping"`
	CaptureK  int                 `json:"capture_k"`
}

// QueryRow is one query's line in the page's replay table (the case file
// holds ReplaySection.Answer).
type QueryRow struct {
	ID       Text
	Coverage string // "unsigned": the query row is a claim
	Text     Text
	Class    string
	IFCBlind bool
	Tie      bool
	Culprits int
}

// QueryDetail is a diverging query in full, as the page shows it.
type QueryDetail struct {
	ID       Text
	Coverage string // as QueryRow.Coverage
	Text     Text
	K        int
	Class    string
	IFCBlind bool
	Tie      bool
	G        []Selected
	GAuth    []Selected
	Culprits []Culprit
	// CulpritsMinimal: ddmin finished, the set is 1-minimal.
	CulpritsMinimal bool
	Candidates      int
	// Recorded is the agent's recorded selection compared with G.
	Recorded *string // "matches" or "differs from" the replay on G, and which one
	Lemma    []Lemma1
}

// Selected is one passage of a top-k list.
type Selected struct {
	Rank          int // 1-based
	Node          Text
	Label         Text
	Score         float64
	Authenticated bool
	// Change: "new" (only on this side), "kept" or "moved".
	Change string
}

// Culprit is one culprit write.
type Culprit struct {
	Edge          Text
	Src           Text
	Dst           Text
	Weight        float64
	Writer        Text
	Sources       int
	Rule          Text
	RestoresAlone bool
}

// Lemma1 is the diagnostic of one target passage.
type Lemma1 struct {
	Node         Text
	ResetMass    float64
	Floor        float64
	CaptureBound float64
	Evictable    bool
}

// LineageSection is section 6: the lineage behind refused actions. In the
// case file it is `lineage --json`'s answer (its keys at the section's top
// level) with the drawn lineage of refused actions beside it.
type LineageSection struct {
	*assemble.LineageSummary
	// FamilyCounts (recomputed label -> entries, in trust order),
	// LaunderingTotal and Launder (the first rows, with their writers)
	// are the page's.
	FamilyCounts    []FamilyCount    `json:"-"`
	LaunderingTotal int              `json:"-"`
	Launder         []LaunderRow     `json:"-"`
	Refused         []RefusedLineage `json:"refused_lineage"`
	RefusedAll      int              `json:"refused_lineage_total"`
}

// LaunderRow is one laundering finding.
type LaunderRow struct {
	Entry      Text
	Writer     Text
	Recorded   string
	Recomputed string
}

// RefusedLineage is one action the gate refuses, with the lineage of its
// untrusted justifying entries.
type RefusedLineage struct {
	Action     Text           `json:"action"`
	Tool       Text           `json:"tool"`
	Verdict    string         `json:"verdict"`
	Dispatched bool           `json:"dispatched"`
	Reason     Text           `json:"reason"` // the lineage gate's
	RefusedBy  []string       `json:"refused_by"`
	Entries    []EntryLineage `json:"entries"`
}

// EntryLineage is one entry's derivation neighbourhood and why it is
// untrusted.
type EntryLineage struct {
	Entry      Text      `json:"entry"`
	Writer     Text      `json:"writer"`
	Content    Text      `json:"content"`
	Recorded   string    `json:"recorded"`
	Recomputed string    `json:"recomputed"`
	Known      bool      `json:"known"`
	Origins    []Origin  `json:"origins"`
	Nodes      []DAGNode `json:"nodes"`
	Edges      []DAGEdge `json:"edges"`
	Drawing    *Drawing  `json:"-"`
}

// Origin is the widest path from one External ancestor.
type Origin struct {
	Ancestor   Text    `json:"ancestor"`
	Bottleneck float64 `json:"bottleneck"`
	// Break is the 0-based step where the path turns weak, -1 if it is
	// strong throughout (the External label propagates).
	Break int        `json:"break"`
	Path  []PathStep `json:"path"`
}

// PathStep is one derivation edge of an origin path.
type PathStep struct {
	Parent Text    `json:"parent"`
	Child  Text    `json:"child"`
	Weight float64 `json:"weight"`
	Strong bool    `json:"strong"`
}

// DAGNode is a node of a drawn neighbourhood.
type DAGNode struct {
	ID    Text   `json:"id"`
	Trust string `json:"trust"`
	Focus bool   `json:"focus"`
}

// DAGEdge is an edge of a drawn neighbourhood (indices into Nodes).
type DAGEdge struct {
	Parent int     `json:"parent"`
	Child  int     `json:"child"`
	Weight float64 `json:"weight"`
	Strong bool    `json:"strong"`
}

// TimelineSection is the incident's timeline, when an analysis provides
// one.
type TimelineSection struct {
	// Order is how the stream is ordered: log, log+time or time.
	Order string `json:"order"`
	// Total counts every event of the store; Selected the incident's
	// events among them; Events lists them (only the alerts when
	// AlertsOnly, when there are too many).
	Total      int  `json:"total"`
	Selected   int  `json:"selected"`
	AlertsOnly bool `json:"alerts_only"`
	// Events are what the page lists; Answer the same events as
	// `timeline --json` gives them, each marked with its alert.
	Events []TimelineEvent         `json:"-"`
	Answer []jsonout.TimelineEvent `json:"events"`
}

// TimelineEvent is one dated event as the page lists it.
type TimelineEvent struct {
	Time      string // recorded time, UTC
	Kind      string
	Placed    string // log or time
	Subject   Text
	Principal Text
	What      Text
	Alert     bool
	Coverage  string // "unsigned": the event's row is a claim
}

// Term is one glossary entry.
type Term struct {
	Term    string `json:"term"`
	Meaning string `json:"meaning"`
}
