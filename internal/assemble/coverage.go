package assemble

import (
	"github.com/memscope/memscope/internal/analyses/timeline"
	"github.com/memscope/memscope/verify"
)

// Coverage is the label every output shows beside row id of table (one
// of verify's Table* names): "" when a signature or tag covers it,
// "unsigned" when nothing does, "fails verification" when the covering
// record failed a check, "not checked" before verification ran.
// Views ask here and print the answer; verify alone decides it.
func (s *Session) Coverage(table, id string) string { return s.coverageReport().Label(table, id) }

// coverageReport is the verification report, or before it the provenance
// pass's, whose coverage is counted as verification counts it.
func (s *Session) coverageReport() *verify.Report {
	if rep := s.Report(); rep != nil {
		return rep
	}
	s.provMu.Lock()
	defer s.provMu.Unlock()
	if s.prov != nil {
		return s.prov.rep
	}
	return nil
}

// TableCoverage is Coverage for a table as a whole.
func (s *Session) TableCoverage(table string) string { return s.coverageReport().TableLabel(table) }

// LabelUserInput marks rows that came from the user (a --queries file for
// a native store), not from the evidence: neither signed nor a claim of the
// store, so never shown as "signed".
const LabelUserInput = "your --queries file"

// UnsignedNote is the sentence text outputs print once above rows that
// carry a coverage label.
func UnsignedNote(table, label string) string {
	switch label {
	case "":
		return ""
	case verify.LabelNotChecked:
		return table + ": not checked (verification did not run): every value is a claim"
	case LabelUserInput:
		return table + ": read from your --queries file, not from the evidence: they are what you asked, not what the agent recorded"
	case verify.LabelFailed:
		return table + ": fails verification (a signed record stands behind the row, but a column, the signature or the log disagrees; memscope verify names it): the values shown are not what was signed"
	}
	return table + ": unsigned (no signature or tag covers these rows): every value is a claim, not verified"
}

// eventTable is the table a timeline event of this kind is read from,
// for the kinds whose rows may be unsigned ("" for signed record kinds:
// their signatures are verify's business, not coverage's).
var eventTable = map[timeline.Kind]string{
	timeline.KindQuery:      verify.TableQueries,
	timeline.KindAction:     verify.TableActions,
	timeline.KindGate:       verify.TableGateEvents,
	timeline.KindCheckpoint: verify.TableCheckpoints,
}

// EventCoverage is Coverage for a timeline event.
func (s *Session) EventCoverage(kind timeline.Kind, id string) string {
	t := eventTable[kind]
	if t == "" {
		return ""
	}
	return s.Coverage(t, id)
}
