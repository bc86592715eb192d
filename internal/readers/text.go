package stores

import (
	"fmt"

	"github.com/memscope/memscope/internal/present/finding"
	"github.com/memscope/memscope/internal/present/sanitize"
	"github.com/memscope/memscope/internal/present/textscan"
	"github.com/memscope/memscope/internal/readers/storemodel"
)

// TextFindings scans every text field of a native store: node ids and labels,
// edge ids and declared sources, Mem0 history and messages, SMSR
// memories. The subject names the store (its one file for Mem0 and SMSR)
// and the record; the message names the field.
func TextFindings(st *storemodel.Store) []finding.Finding {
	s := textscan.New(string(st.Format) + " store " + st.Root)
	for _, n := range st.Nodes {
		if clean(n.ID, n.Label) {
			continue // nothing to report: no record name to build
		}
		rec := "node " + n.ID
		s.Check(textscan.Field{Record: rec, Name: "id", Text: n.ID})
		s.Check(textscan.Field{Record: rec, Name: "label", Text: n.Label})
	}
	for _, e := range st.Edges {
		if clean(e.ID) && clean(e.Sources...) {
			continue
		}
		rec := "edge " + e.ID
		s.Check(textscan.Field{Record: rec, Name: "id", Text: e.ID})
		for _, src := range e.Sources {
			s.Check(textscan.Field{Record: rec, Name: "sources", Text: src})
		}
	}
	for _, v := range st.Versions {
		rec := "history " + v.ID
		for _, f := range [][2]string{{"id", v.ID}, {"memory_id", v.MemoryID}, {"old_memory", v.Old}, {"new_memory", v.New}, {"event", v.Event}, {"actor_id", v.Actor}, {"role", v.Role}, {"created_at", v.CreatedAt}, {"updated_at", v.UpdatedAt}} {
			s.Check(textscan.Field{Record: rec, Name: f[0], Text: f[1]})
		}
	}
	for _, m := range st.Messages {
		rec := "message " + m.ID
		for _, f := range [][2]string{{"id", m.ID}, {"session_scope", m.Scope}, {"role", m.Role}, {"content", m.Content}, {"name", m.Name}, {"created_at", m.CreatedAt}} {
			s.Check(textscan.Field{Record: rec, Name: f[0], Text: f[1]})
		}
	}
	for _, m := range st.Memories {
		rec := fmt.Sprintf("memory %d", m.ID)
		for _, f := range [][2]string{{"content", m.Content}, {"session_id", m.Session}, {"hmac_tag", m.Tag}} {
			s.Check(textscan.Field{Record: rec, Name: f[0], Text: f[1]})
		}
	}
	return s.Findings()
}

// clean says whether no text has anything a scan would report. A store of
// millions of edges is scanned without building a record name per edge;
// skipping clean fields leaves the order of what is reported unchanged.
func clean(texts ...string) bool {
	for _, t := range texts {
		if sanitize.Findings(t) != 0 {
			return false
		}
	}
	return true
}
