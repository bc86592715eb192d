package watch

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"time"

	"github.com/memscope/memscope/internal/present/finding"
)

// Event is one change a round saw, as one JSON line. It carries the one
// finding type (severity, code, family, subject, message) and where and
// when it was seen. ID is stable for a condition (the same fork at the same
// size and root has the same id in every round and every run), so a
// consumer can drop the rare duplicate a kill between delivering an event
// and recording the delivery can leave.
type Event struct {
	ID     string    `json:"id"`
	Seq    uint64    `json:"seq"`
	Time   time.Time `json:"time"`
	Tenant string    `json:"tenant,omitempty"`
	Log    string    `json:"log"`
	finding.Finding
	// Size and Root are the checkpoint the event is about; PrevSize and
	// PrevRoot the last one the monitor had verified.
	Size     uint64 `json:"size"`
	Root     []byte `json:"root,omitempty"`
	PrevSize uint64 `json:"prev_size"`
	PrevRoot []byte `json:"prev_root,omitempty"`
	// Leaf is the log index the event is about, for record events.
	Leaf *uint64 `json:"leaf,omitempty"`
}

// eventID derives an event's stable id from what identifies its condition.
func eventID(parts ...any) string {
	h := sha256.New()
	for _, p := range parts {
		fmt.Fprintf(h, "%v\x00", p)
	}
	return hex.EncodeToString(h.Sum(nil)[:12])
}

// MaxSeverity is the highest severity among events: "error", "warning",
// "info" or "" for none.
func MaxSeverity(evs []Event) finding.Severity {
	var out finding.Severity
	for _, e := range evs {
		switch {
		case e.Severity == finding.SevError:
			return finding.SevError
		case e.Severity == finding.SevWarning:
			out = finding.SevWarning
		case e.Severity == finding.SevInfo && out == "":
			out = finding.SevInfo
		}
	}
	return out
}
