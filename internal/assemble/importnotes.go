package assemble

import (
	"context"

	"github.com/memscope/memscope/verify"
)

// InputID is the id an import's input gave one write, with the coverage
// label of that claim (Session.Coverage: "" when a signed import note that
// verified stands behind it).
type InputID struct {
	ID       string
	Coverage string
}

// InputIDs maps write id to the id the import's input gave it: the import
// notes (snapshot.ImportNoteTable), or an older import's meta key, which
// no signature covers. Empty for a store that is no import.
func (s *Session) InputIDs(ctx context.Context) (map[string]InputID, error) {
	notes, fromMeta, err := s.Snap.ImportNotesOrMeta(ctx)
	if err != nil {
		return nil, err
	}
	out := make(map[string]InputID, len(notes))
	for _, n := range notes {
		if n.InputID == "" {
			continue
		}
		cov := verify.LabelUnsigned
		if !fromMeta {
			cov = s.Coverage(verify.TableImportNotes, n.WID)
		}
		out[n.WID] = InputID{ID: n.InputID, Coverage: cov}
	}
	return out, nil
}
