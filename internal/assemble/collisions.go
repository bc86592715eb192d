package assemble

import (
	"fmt"
	"iter"
	"slices"
	"strings"

	"github.com/memscope/memscope/internal/present/finding"
	"github.com/memscope/memscope/internal/present/idform"
)

// idKind is one namespace of ids a responder reads and pastes back.
type idKind struct {
	name string
	ids  iter.Seq[string]
}

// GraphCollisions are the TEXT_CONFUSABLE_ID findings of the graph
// memory's names: node ids, node labels (entity names), write ids and
// query ids. Two of one kind that differ only by invisible or confusable
// characters print alike at a glance; the finding names both, escaped.
func (s *Session) GraphCollisions() []finding.Finding {
	return collisionFindings([]idKind{
		{"node id", func(yield func(string) bool) {
			for _, n := range s.Nodes {
				if !yield(n.ID) {
					return
				}
			}
		}},
		{"node label", func(yield func(string) bool) {
			for _, n := range s.Nodes {
				if !yield(n.Label) {
					return
				}
			}
		}},
		{"write id", func(yield func(string) bool) {
			for i := range s.WriteCount() {
				if !yield(s.WriteID(i)) {
					return
				}
			}
		}},
		{"query id", func(yield func(string) bool) {
			for _, q := range s.Queries {
				if !yield(q.ID) {
					return
				}
			}
		}},
	})
}

// LineageCollisions are the TEXT_CONFUSABLE_ID findings of entry and
// action ids (what lineage's views name).
func (s *Session) LineageCollisions() []finding.Finding {
	entries := s.heldCollisions.Load()
	if entries == nil {
		c := entryIDCollisions(s.entryIDText)
		entries = &c
	}
	return append(slices.Clone(*entries), collisionFindings([]idKind{
		{"action id", func(yield func(string) bool) {
			for _, a := range s.Actions {
				if !yield(a.ID) {
					return
				}
			}
		}},
	})...)
}

// storeCollisions are the entry id collisions of every row of a finished
// load (LineageCollisions' first part), found beside the lineage graph's
// build rather than on the way from the graph to "verified".
func storeCollisions(st *entryStore) []finding.Finding {
	return entryIDCollisions(func(yield func(string) bool) {
		for i := range st.len() {
			if !yield(st.at(i).ID) {
				return
			}
		}
	})
}

// entryIDCollisions are the TEXT_CONFUSABLE_ID findings among entry ids.
func entryIDCollisions(ids iter.Seq[string]) []finding.Finding {
	return collisionFindings([]idKind{{"entry id", ids}})
}

func collisionFindings(kinds []idKind) []finding.Finding {
	var out []finding.Finding
	for _, k := range kinds {
		for _, g := range idform.Collisions(k.ids) {
			// Raw ids: every output sanitises a finding once, which shows
			// each escaped (docs/SANITIZE.md).
			out = append(out, finding.New(finding.TextConfusableID, k.name+" "+g[0],
				fmt.Sprintf("%d %ss differ only by invisible or confusable characters: %s (each is printed escaped and resolves only to itself)", len(g), k.name, strings.Join(g, ", "))))
		}
	}
	return out
}

// entryIDText yields every entry id: the held rows' own text, which costs
// no string per id, or the lineage graph's when no row is held
// (LoadLineage), which formats each. They are the same ids: the graph has
// a node per row, named by the row's id (a canonical id's text is what
// its key formats to, record.CanonicalID; other text is kept as given).
func (s *Session) entryIDText(yield func(string) bool) {
	if n := s.HeldEntries(); n > 0 {
		for i := range n {
			if !yield(s.EntryAt(i).ID) {
				return
			}
		}
		return
	}
	for i := 0; s.Lineage != nil && i < s.Lineage.Len(); i++ {
		if !yield(s.Lineage.ID(i)) {
			return
		}
	}
}
