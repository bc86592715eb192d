package verify

import (
	"strings"

	"github.com/memscope/memscope/evidence/record"
)

// Coverage is answered here once, for every output: whether a row of a
// table is covered by a signature or tag. Presentation (CLI text and JSON,
// the inspector, the report) asks Label and prints what it says; none of it
// decides coverage itself, so when a table becomes signed its labels
// disappear everywhere at once.

// Tables whose rows outputs label. They are the coverage table names of
// Report.Coverage.
const (
	TableNodes       = "nodes"
	TableQueries     = "queries"
	TableActions     = "actions"
	TableGateEvents  = "gate_events"
	TableSessions    = "entries.session_id"
	TableCheckpoints = "checkpoints"
	TableMeta        = "meta"
	TableVectors     = "vectors"
)

// The labels Label returns. Covered rows get "".
const (
	// LabelUnsigned: no signature or tag covers the row; its values are
	// claims.
	LabelUnsigned = "unsigned"
	// LabelNotChecked: verification did not run, so coverage is unknown.
	LabelNotChecked = "not checked"
	// LabelFailed: a signed record stands behind the row, but verification
	// found it wanting (a column that disagrees with the record, a bad
	// signature or signer, a leaf missing from the log): the values shown
	// are not what was signed.
	LabelFailed = "fails verification"
)

// eventKind is the record kind whose subject ("query NAME") BadEvents uses
// for each event table.
var eventKind = map[string]string{TableQueries: record.KindQuery, TableActions: record.KindAction, TableGateEvents: record.KindGate, TableNodes: record.KindNode,
	TableMeta: record.KindConfig, TableCheckpoints: record.KindCheckpoint, TableVectors: record.KindVector}

// Status values of TableCoverage.
const (
	StatusSigned   = "signed"
	StatusPartial  = "partial"
	StatusUnsigned = "unsigned"
	StatusEmpty    = "empty"
)

// Covered reports whether row id of table is covered by a signature or tag.
// A table every row of which is covered answers true for any id; a
// partially covered table answers from the rows verify saw signed
// (Report.SignedRows), and false when it did not list them. Whether a
// covering signature verifies is the signature findings' business, not
// coverage's. A nil report (verification did not run) covers nothing.
func (r *Report) Covered(table, id string) bool {
	if r == nil {
		return false
	}
	for _, c := range r.Coverage {
		if c.Table != table {
			continue
		}
		switch c.Status {
		case StatusSigned, StatusEmpty:
			return true
		case StatusPartial:
			return r.SignedRows[table][id]
		}
		return false
	}
	// A table verify does not list is one it knows nothing about.
	return false
}

// Label is what an output shows beside row id of table: "" when a
// signature or tag covers it and verified, LabelFailed when the covering
// record failed a check, LabelUnsigned when nothing covers it, and
// LabelNotChecked when verification did not run (nil report).
func (r *Report) Label(table, id string) string {
	// A checkpoint row is named by its seq; the timeline names it
	// "checkpoint N".
	if table == TableCheckpoints {
		id = strings.TrimPrefix(id, "checkpoint ")
	}
	switch {
	case r == nil:
		return LabelNotChecked
	case !r.Covered(table, id):
		return LabelUnsigned
	case eventKind[table] != "" && r.BadEvents[eventKind[table]+" "+id]:
		return LabelFailed
	}
	return ""
}

// TableLabel is Label for a table as a whole: "" only when every row is
// covered.
func (r *Report) TableLabel(table string) string {
	if r == nil {
		return LabelNotChecked
	}
	for _, c := range r.Coverage {
		if c.Table == table && (c.Status == StatusSigned || c.Status == StatusEmpty) {
			return ""
		}
	}
	return LabelUnsigned
}

// ConfigValue is meta key's value when the store's signed configuration
// verified it (Report.Config); ok is false for an unsigned or failing
// value, and on a nil report.
func (r *Report) ConfigValue(key string) (string, bool) {
	if r == nil {
		return "", false
	}
	v, ok := r.Config[key]
	return v, ok
}
