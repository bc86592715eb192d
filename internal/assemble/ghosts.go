package assemble

import (
	"context"
	"fmt"
	"strings"

	"github.com/memscope/memscope/evidence/record"
	"github.com/memscope/memscope/internal/present/finding"
	"github.com/memscope/memscope/lineage"
	"github.com/memscope/memscope/verify"
)

// lawfulGhosts are the tombstoned entries whose tombstone verified, with
// the label lineage may give each (docs/FORMAT.md, "Tombstone claims"), and
// the findings about the tombstones' claims:
//
//   - where the deleted record is still provable (its row is still in the
//     store and verified), its own signed writer and trust are what lineage
//     reads; a tombstone that says otherwise is LINEAGE_TOMBSTONE_MISMATCH;
//   - where it is not, the tombstone's entry_writer and entry_trust are
//     claims by the tombstoner, vouched only within the tombstoner's own
//     authority at the tombstone's log position (tombstoneVouches); a claim
//     beyond it is LINEAGE_TOMBSTONE_UNVOUCHED and the ghost is External.
func (s *Session) lawfulGhosts(rep *verify.Report) (map[string]lineage.Ghost, []finding.Finding) {
	badTomb := map[string]bool{}
	for _, f := range rep.Findings {
		if f.Severity == finding.SevError && strings.HasPrefix(f.Subject, "tombstone ") {
			badTomb[strings.TrimPrefix(f.Subject, "tombstone ")] = true
		}
	}
	out := map[string]lineage.Ghost{}
	var fs []finding.Finding
	for _, t := range s.TombstoneRecs {
		if badTomb[t.Target] {
			continue
		}
		if _, live := s.Lineage.Index(t.Target); live {
			// The node is in the graph: lineage reads the record itself.
			if f, ok := s.tombstoneMismatch(rep, t); ok {
				fs = append(fs, f)
			}
			continue
		}
		g := t.Ghost
		if g.Known {
			if ok, why := tombstoneVouches(rep, t); !ok {
				fs = append(fs, finding.New(finding.LineageTombstoneUnvouched, "tombstone "+t.Target,
					fmt.Sprintf("the tombstone of %s says it was written by %s at %s, but the record is not in the store, so that is %s's claim, and %s: the deleted entry is External for lineage", t.Target, g.Writer, g.Recorded, t.Writer, why)))
				g = lineage.Ghost{Writer: g.Writer}
			} else if by, err := lineage.ParseWriter(t.Writer); err == nil {
				// A claim is never safer than its claimant.
				g.Recorded = max(g.Recorded, lineage.DefaultBaseLabels()[by])
			}
		}
		out[t.Target] = g
	}
	return out, fs
}

// tombstoneVouches says whether a tombstone's claims about an entry no
// longer provable are within its writer's authority, and if not, why. The
// entry's own writer vouches for its own entry (lineage still raises the
// label to its writer's base label); otherwise only a principal on the
// authenticated channel when the tombstone was logged vouches, a user for
// any writer and an agent for any writer but a user; a tool or external
// principal vouches for no one else.
func tombstoneVouches(rep *verify.Report, t TombstoneRec) (bool, string) {
	if t.Writer == t.Ghost.Writer {
		return true, ""
	}
	if ch := ChannelAt(rep, t.Writer, t.Leaf); ch != record.ChannelAuthenticated {
		had := "no registered channel"
		if ch != "" {
			had = "an " + ch + " channel"
		}
		return false, fmt.Sprintf("%s had %s when the tombstone was logged, which vouches for no one else's entry", t.Writer, had)
	}
	by, _ := lineage.ParseWriter(t.Writer)
	claimed, _ := lineage.ParseWriter(t.Ghost.Writer)
	switch {
	case by == lineage.WriterUser:
		return true, ""
	case by == lineage.WriterAgent && claimed != lineage.WriterUser:
		return true, ""
	case by == lineage.WriterAgent:
		return false, "an agent cannot vouch for a user entry"
	}
	return false, fmt.Sprintf("a %s principal vouches for no one else's entry", by)
}

// tombstoneMismatch compares a tombstone's claims with the record it
// deletes, still in the store: the record's own signed writer and trust
// win, and a tombstone that disagrees is a finding. A record that failed
// verification proves nothing, and is compared with nothing.
func (s *Session) tombstoneMismatch(rep *verify.Report, t TombstoneRec) (finding.Finding, bool) {
	if !t.Ghost.Known || VerificationFailure(rep, t.Target) != "" {
		return finding.Finding{}, false
	}
	r, err := s.Snap.EntryByID(context.Background(), t.Target)
	if err != nil || r.Entry == nil {
		return finding.Finding{}, false
	}
	if r.Entry.Writer == t.Ghost.Writer && r.Entry.Trust == t.Ghost.Recorded {
		return finding.Finding{}, false
	}
	return finding.New(finding.LineageTombstoneMismatch, "tombstone "+t.Target,
		fmt.Sprintf("%s's tombstone of %s says it was written by %s at %s, but the record, still provable, is signed by %s at %s: the record's own fields are what lineage reads", t.Writer, t.Target, t.Ghost.Writer, t.Ghost.Recorded, r.Entry.Writer, r.Entry.Trust)), true
}
