package storetimeline

import (
	"strings"
	"testing"

	"github.com/memscope/memscope/internal/readers/storemodel"
)

// Times the store records order the events; records without one follow in
// storage order; the passage joins the reader derives are not events.
func TestOrdersByStoreTimes(t *testing.T) {
	st := &storemodel.Store{
		Docs:  []storemodel.Doc{{ID: "doc-1", Status: "processed", CreatedAt: "2026-01-15T08:35:43.273998+00:00", UpdatedAt: "2026-01-15T13:37:58+00:00"}},
		Nodes: []storemodel.Node{{ID: "chunk-1", Kind: storemodel.KindPassage}, {ID: "Acme", Kind: storemodel.KindEntity, CreatedAt: "1768466228"}},
		Edges: []storemodel.Edge{{ID: "Acme--chunk-1", Kind: storemodel.EdgePassage}, {ID: "Acme--Bob", Kind: storemodel.EdgeRelation, CreatedAt: "1768460000"}},
	}
	tl := Build(st)
	var got []string
	for _, e := range tl.Events {
		got = append(got, e.Subject)
	}
	want := "Acme--Bob doc-1 Acme doc-1 chunk-1"
	if strings.Join(got, " ") != want || !tl.Timed {
		t.Fatalf("order %q (timed %v), want %q", strings.Join(got, " "), tl.Timed, want)
	}
	if tl.Events[0].UTC != "2026-01-15T06:53:20Z" {
		t.Errorf("unix seconds read as %s", tl.Events[0].UTC)
	}
}

func TestNoTimeSaysSo(t *testing.T) {
	st := &storemodel.Store{Nodes: []storemodel.Node{{ID: "a"}, {ID: "b"}}}
	tl := Build(st)
	if tl.Timed || !strings.Contains(tl.Order, "records no time") || tl.Events[0].Subject != "a" {
		t.Fatalf("%+v", tl)
	}
}

// Mem0 keeps its rowid order, its times beside it.
func TestMem0StorageOrder(t *testing.T) {
	st := &storemodel.Store{Versions: []storemodel.Version{
		{MemoryID: "m1", Event: "ADD", CreatedAt: "2025-10-31T02:06:55.339585-07:00", New: "x"},
		{MemoryID: "m1", Event: "DELETE", Old: "x"},
		{MemoryID: "m0", Event: "ADD", CreatedAt: "2025-10-25T02:02:40.333605-07:00", New: "y"},
	}}
	tl := Build(st)
	if !tl.Timed || tl.Events[0].Subject != "m1" || tl.Events[1].UTC != "" || tl.Events[1].Text != "x" || tl.Events[2].UTC != "2025-10-25T09:02:40.333605Z" {
		t.Fatalf("%+v", tl)
	}
}
