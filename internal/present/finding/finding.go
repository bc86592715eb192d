// Package finding is the one finding type of memscope: every analysis
// (verify, lineage, replay) reports through it, and the CLI, its JSON and
// the inspector show it. It is a leaf package: it imports nothing of
// memscope, so presentation can name a Finding without linking the
// analyses that produce it.
//
// A Finding holds raw text (its subject and message may quote evidence):
// every output sanitises it once where it shows it (docs/SANITIZE.md), so
// its producer must not.
package finding

// Severity of a finding. For verify, exit status 1 means at least one error.
type Severity string

const (
	SevError   Severity = "error"
	SevWarning Severity = "warning"
	SevInfo    Severity = "info"
)

// Rank orders severities, most severe first (error 0, warning 1, info 2).
func (s Severity) Rank() int {
	switch s {
	case SevError:
		return 0
	case SevWarning:
		return 1
	}
	return 2
}

// Family groups finding codes for summary lines and filters.
type Family string

const (
	FamSignatures Family = "signatures"
	FamRegistry   Family = "registry"
	FamEncoding   Family = "encoding"
	FamLog        Family = "log"
	FamTombstones Family = "tombstones"
	FamHMAC       Family = "hmac"
	FamGate       Family = "gate"
	// FamReferences: an entry or write names a record that does not exist.
	FamReferences Family = "references"
	// FamLineage: the derivation DAG and trust recomputed over it.
	FamLineage Family = "lineage"
	// FamReplay: retrieval replayed on G and on G_auth.
	FamReplay Family = "replay"
	// FamOrder: order and time (parents before children, clocks forward).
	FamOrder Family = "order"
	// FamSnapshot: the snapshot file as a whole (schema, WAL, journal).
	FamSnapshot Family = "snapshot"
	// FamDiff: two snapshots of one store compared (memscope diff).
	FamDiff Family = "diff"
	// FamCoverage: rows that no signature or tag covers.
	FamCoverage Family = "coverage"
	// FamContent: evidence text that would act on a terminal or hide text.
	FamContent Family = "content"
	// FamStore: what a native store's own fields say and fail to explain
	// (HippoRAG 2, LightRAG, Mem0, SMSR, GraphRAG; docs/STORES.md).
	FamStore Family = "store"
	// FamMWP: the non-formation audit of rejected writes (memscope exposure).
	FamMWP Family = "mwp"
)

// Code is a stable finding code, UPPER_SNAKE. Codes never change meaning
// once released; every code is in Catalogue and in docs/FINDINGS.md.
type Code string

// Finding is one fact that something is wrong (or worth noting).
type Finding struct {
	Severity Severity `json:"severity"`
	Code     Code     `json:"code"`
	Family   Family   `json:"family"`
	// Subject names what the finding is about: "entry <id>", "leaf N",
	// "checkpoint N", "query <id>", "action <id>", a table or "registry".
	Subject string `json:"subject"`
	Message string `json:"message"`
	// Entries lists every entry involved when there is more than one (a
	// lineage cycle, a parent edge), the subject's entry first.
	Entries []string `json:"entries,omitempty"`
}

// New builds a finding of a catalogued code, taking severity and family
// from the catalogue. It panics on an unknown code: codes are constants of
// this package, so an unknown one is a programming error caught by tests.
func New(code Code, subject, message string) Finding {
	s, ok := Lookup(code)
	if !ok {
		panic("finding: unknown code " + string(code))
	}
	return Finding{Severity: s.Severity, Code: code, Family: s.Family, Subject: subject, Message: message}
}

// Count returns the number of findings of each severity.
func Count(fs []Finding) (errors, warnings, infos int) {
	for _, f := range fs {
		switch f.Severity {
		case SevError:
			errors++
		case SevWarning:
			warnings++
		case SevInfo:
			infos++
		}
	}
	return
}
