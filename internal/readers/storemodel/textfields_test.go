package storemodel

import (
	"slices"
	"testing"
)

// Every text field of every record kind is yielded once, under the
// upstream field name, in record order.
func TestTextFieldsNameEveryField(t *testing.T) {
	st := &Store{Format: Mem0, Root: "/ev/history.db",
		Nodes:    []Node{{ID: "n1", Label: "a label"}},
		Edges:    []Edge{{ID: "e1", Sources: []string{"s1", "s2"}}},
		Versions: []Version{{ID: "v1", New: "pay now"}},
		Messages: []Message{{ID: "m1", Content: "hello"}},
		Memories: []Memory{{ID: 7, Content: "kept"}}}
	var got []string
	for f := range st.TextFields() {
		got = append(got, f.Record+"/"+f.Name+"="+f.Text)
	}
	want := []string{"node n1/id=n1", "node n1/label=a label", "edge e1/id=e1", "edge e1/sources=s1", "edge e1/sources=s2",
		"history v1/id=v1", "history v1/memory_id=", "history v1/old_memory=", "history v1/new_memory=pay now", "history v1/event=", "history v1/actor_id=",
		"history v1/role=", "history v1/created_at=", "history v1/updated_at=",
		"message m1/id=m1", "message m1/session_scope=", "message m1/role=", "message m1/content=hello", "message m1/name=", "message m1/created_at=",
		"memory 7/content=kept", "memory 7/session_id=", "memory 7/hmac_tag="}
	if !slices.Equal(got, want) {
		t.Fatalf("fields\n%q\nwant\n%q", got, want)
	}
	if st.Name() != "mem0 store /ev/history.db" {
		t.Errorf("Name %q", st.Name())
	}
	n := 0
	for range st.TextFields() {
		if n++; n == 3 {
			break // stopping early must not panic
		}
	}
}
