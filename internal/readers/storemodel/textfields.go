package storemodel

import (
	"fmt"
	"iter"
)

// TextField is one text field of a store's record, as the store holds it.
type TextField struct {
	Record string // "node ID", "history ID", "memory N", ...
	Name   string // the store's own field name: "label", "new_memory", ...
	Text   string
}

// Name names the store in findings: its format and root.
func (st *Store) Name() string { return string(st.Format) + " store " + st.Root }

// TextFields yields every text field of the store, with the upstream
// field names: node ids and labels, edge ids and declared sources, Mem0
// history and messages, SMSR memories.
func (st *Store) TextFields() iter.Seq[TextField] {
	return func(yield func(TextField) bool) {
		emit := func(rec string, fields ...[2]string) bool {
			for _, f := range fields {
				if !yield(TextField{rec, f[0], f[1]}) {
					return false
				}
			}
			return true
		}
		for _, n := range st.Nodes {
			if !emit("node "+n.ID, [2]string{"id", n.ID}, [2]string{"label", n.Label}) {
				return
			}
		}
		for _, e := range st.Edges {
			rec := "edge " + e.ID
			if !emit(rec, [2]string{"id", e.ID}) {
				return
			}
			for _, src := range e.Sources {
				if !emit(rec, [2]string{"sources", src}) {
					return
				}
			}
		}
		for _, v := range st.Versions {
			if !emit("history "+v.ID, [2]string{"id", v.ID}, [2]string{"memory_id", v.MemoryID}, [2]string{"old_memory", v.Old}, [2]string{"new_memory", v.New},
				[2]string{"event", v.Event}, [2]string{"actor_id", v.Actor}, [2]string{"role", v.Role}, [2]string{"created_at", v.CreatedAt}, [2]string{"updated_at", v.UpdatedAt}) {
				return
			}
		}
		for _, m := range st.Messages {
			if !emit("message "+m.ID, [2]string{"id", m.ID}, [2]string{"session_scope", m.Scope}, [2]string{"role", m.Role}, [2]string{"content", m.Content},
				[2]string{"name", m.Name}, [2]string{"created_at", m.CreatedAt}) {
				return
			}
		}
		for _, m := range st.Memories {
			if !emit(fmt.Sprintf("memory %d", m.ID), [2]string{"content", m.Content}, [2]string{"session_id", m.Session}, [2]string{"hmac_tag", m.Tag}) {
				return
			}
		}
	}
}
