// Package lineage analyses the derivation DAG of a MemLineage-style memory
// store (MemLineage, arXiv:2605.14421, section 3.5): it recomputes trust labels with the
// max-of-strong-edges rule, finds laundered labels, explains why an entry is
// untrusted, audits recorded gate decisions and reproduces the tau x K sweep.
//
// The package is pure: it takes plain values (Entry, Action) that a loader
// maps verified records onto, and never touches storage or the terminal.
package lineage

import (
	"fmt"
	"strings"

	"github.com/memscope/memscope/evidence/record"
)

// Trust is the MemLineage trust level, the same type the signed records
// carry: larger values are less safe, which is what lets propagation use a
// plain max.
type Trust = record.Trust

const (
	Trusted          = record.Trusted
	DerivedTrusted   = record.DerivedTrusted
	DerivedUntrusted = record.DerivedUntrusted
	External         = record.External
)

// Untrusted is the first level the gate refuses to let justify a sensitive
// action (MemLineage, arXiv:2605.14421, section 3.7).
const Untrusted = DerivedUntrusted

// Entry is the lineage view of one memory entry. The loader fills it from a
// verified ProvEntry record.
type Entry struct {
	ID       string    `json:"id"`       // canonical UUID text (eid)
	Writer   string    `json:"writer"`   // user | agent:i | tool:name | external:u
	Recorded Trust     `json:"recorded"` // the trust field as signed in the record
	Parents  []string  `json:"parents"`  // parent entry ids (P)
	Weights  []float64 `json:"weights"`  // attribution weights (W), matching Parents
	TS       int64     `json:"ts"`       // write time, ns
}

// Action is one recorded tool dispatch (or attempted dispatch) and the
// memory entries the gate saw as its justification.
type Action struct {
	ID            string            `json:"id"`
	Tool          string            `json:"tool"`
	Params        map[string]string `json:"params"`
	Justification []string          `json:"justification"` // entry ids
	Dispatched    bool              `json:"dispatched"`
	TS            int64             `json:"ts"`
}

// WriterClass is the principal class of an entry's writer.
type WriterClass uint8

const (
	WriterUnknown WriterClass = iota // malformed writer string
	WriterUser
	WriterAgent
	WriterTool
	WriterExternal
)

func (w WriterClass) String() string {
	switch w {
	case WriterUser:
		return "user"
	case WriterAgent:
		return "agent"
	case WriterTool:
		return "tool"
	case WriterExternal:
		return "external"
	}
	return "unknown"
}

// ParseWriter classifies a writer string. It accepts exactly "user",
// "agent:<i>", "tool:<name>" and "external:<u>" with a non-empty suffix.
func ParseWriter(s string) (WriterClass, error) {
	if s == "user" {
		return WriterUser, nil
	}
	prefix, rest, ok := strings.Cut(s, ":")
	if !ok {
		return WriterUnknown, fmt.Errorf("writer \"%s\": want user, agent:<i>, tool:<name> or external:<u>", s)
	}
	if rest == "" {
		return WriterUnknown, fmt.Errorf("writer \"%s\": empty name after \"%s\"", s, prefix+":")
	}
	switch prefix {
	case "agent":
		return WriterAgent, nil
	case "tool":
		return WriterTool, nil
	case "external":
		return WriterExternal, nil
	}
	return WriterUnknown, fmt.Errorf("writer \"%s\": unknown principal class \"%s\"", s, prefix)
}

// BaseLabels maps a writer class to the label an entry gets from its writer
// alone: the label of a root, and a floor under every propagated label
// (an external:u entry stays External however it was derived).
type BaseLabels [WriterExternal + 1]Trust

// DefaultBaseLabels follows MemLineage (arXiv:2605.14421) section 2.3: the user and the agent's
// own principals are Trusted; tool output is semi-trusted (authenticated as
// the tool's, but possibly attacker-influenced), shown as Derived-Trusted so
// it passes the gate but is not confused with user authority; external
// principals are External. A malformed writer is treated as External because
// nothing about its origin can be vouched for.
func DefaultBaseLabels() BaseLabels {
	var b BaseLabels
	b[WriterUnknown] = External
	b[WriterUser] = Trusted
	b[WriterAgent] = Trusted
	b[WriterTool] = DerivedTrusted
	b[WriterExternal] = External
	return b
}
