package assemble

import (
	"github.com/memscope/memscope/internal/present/finding"
	"github.com/memscope/memscope/internal/readers/storemodel"
	"github.com/memscope/memscope/replay"
)

// NativeReplayFindings are replay's findings on a native store, for the
// CLI and the inspector alike. A diverging row whose culprit writes include
// one the store does not explain (storemodel.EdgeUnexplained: no declared
// source, and not a by-design synonym edge) is graded an error: content
// that upstream would not have written changed what the agent selected. A
// divergence caused only by writes that are no-source by design (HippoRAG
// 2's synonym edges) stays a warning.
func NativeReplayFindings(st *storemodel.Store, rows []replay.Row) []finding.Finding {
	return NativeReplayGrader(st)(rows)
}

// NativeReplayGrader is NativeReplayFindings for rows replayed later: it
// keeps only the ids of the store's unexplained writes, so the caller may
// let the store's edges go before replaying.
func NativeReplayGrader(st *storemodel.Store) func(rows []replay.Row) []finding.Finding {
	unexplained := map[string]bool{}
	for _, e := range st.Edges {
		if e.Kind == storemodel.EdgeUnexplained {
			unexplained[e.ID] = true
		}
	}
	return func(rows []replay.Row) []finding.Finding { return nativeReplayFindings(unexplained, rows) }
}

func nativeReplayFindings(unexplained map[string]bool, rows []replay.Row) []finding.Finding {
	blamed := map[string]bool{} // query ids whose culprits include an unexplained write
	for _, r := range rows {
		if r.Culprits == nil {
			continue
		}
		for _, c := range r.Culprits.Set {
			if unexplained[c.EdgeID] {
				blamed["query "+r.QueryID] = true
				break
			}
		}
	}
	fs := ReplayFindings(rows)
	for i, f := range fs {
		if f.Code == finding.ReplayDiverge && blamed[f.Subject] {
			fs[i].Severity = finding.SevError
			fs[i].Message += "; a culprit is a write the store does not explain (no declared source), so unexplained content changed the selection: an error"
		}
	}
	return fs
}

// NativeReplayStatus is 1 when a native replay finding is an error.
func NativeReplayStatus(st *storemodel.Store, rows []replay.Row) int {
	for _, f := range NativeReplayFindings(st, rows) {
		if f.Severity == finding.SevError {
			return 1
		}
	}
	return 0
}
