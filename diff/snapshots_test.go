package diff

import (
	"context"
	"testing"

	"github.com/memscope/memscope/internal/present/finding"
)

// memStream serves tables from memory, in the order given.
func memStream(tables map[string][]Row) Stream {
	return func(ctx context.Context, table string, fn func(Row) error) error {
		for _, r := range tables[table] {
			if err := fn(r); err != nil {
				return err
			}
		}
		return nil
	}
}

func TestSnapshotsMerge(t *testing.T) {
	t.Parallel()
	sig := func(k, b string) Row { return Row{Key: k, Bytes: []byte(b), Signed: true, Leaf: -1} }
	a := memStream(map[string][]Row{
		"entries": {sig("a", "1"), sig("b", "2"), sig("c", "3"), sig("d", "4")},
		"queries": {{Key: "q1", Bytes: []byte("x")}, {Key: "q2", Bytes: []byte("y")}},
	})
	b := memStream(map[string][]Row{
		"entries":    {sig("a", "1"), sig("c", "3!"), sig("e", "5")},
		"tombstones": {sig("b", "t")},
		"queries":    {{Key: "q1", Bytes: []byte("x2")}},
	})
	var seen []string
	rep, err := Snapshots(context.Background(), a, b, []string{"entries", "tombstones", "queries"}, func(c RowChange) error {
		seen = append(seen, c.Table+":"+c.Key+":"+string(c.Kind))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"entries:b:tombstoned", "entries:c:changed", "entries:d:removed", "entries:e:added", "tombstones:b:added", "queries:q1:changed", "queries:q2:removed"}
	if len(seen) != len(want) {
		t.Fatalf("changes %v, want %v", seen, want)
	}
	for i := range want {
		if seen[i] != want[i] {
			t.Fatalf("changes %v, want %v", seen, want)
		}
	}
	codes := map[finding.Code]int{}
	for _, f := range rep.Findings {
		codes[f.Code]++
	}
	if codes[finding.DiffSignedChanged] != 1 || codes[finding.DiffRemovedWithoutTombstone] != 1 || codes[finding.DiffUnsignedChanged] != 2 || len(rep.Findings) != 4 {
		t.Fatalf("findings %v", codes)
	}
	if c := rep.Tables["entries"]; c.Same != 1 || c.Added != 1 || c.Removed != 1 || c.Tombstoned != 1 || c.Changed != 1 {
		t.Fatalf("entry counts %+v", c)
	}
}

func TestSnapshotsRejectsUnsortedStream(t *testing.T) {
	t.Parallel()
	a := memStream(map[string][]Row{"entries": {{Key: "b"}, {Key: "a"}}})
	b := memStream(nil)
	if _, err := Snapshots(context.Background(), a, b, []string{"entries"}, nil); err == nil {
		t.Fatal("an unsorted stream was accepted")
	}
}
