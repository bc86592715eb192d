package diff

import (
	"strings"
	"testing"
)

func TestClassify(t *testing.T) {
	cases := []struct {
		name          string
		before, after []string
		want          Class
	}{
		{"identical", []string{"a", "b", "c"}, []string{"a", "b", "c"}, Same},
		{"swapped", []string{"a", "b", "c"}, []string{"b", "a", "c"}, Reorder},
		{"one replaced", []string{"a", "b", "c"}, []string{"a", "b", "d"}, Diverge},
		{"shorter", []string{"a", "b", "c"}, []string{"a", "b"}, Diverge},
		{"both empty", nil, nil, Same},
	}
	for _, c := range cases {
		got, err := ClassifyIDs(c.before, c.after)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got != c.want {
			t.Errorf("%s: class %s, want %s", c.name, got, c.want)
		}
	}
}

func TestCompareChanges(t *testing.T) {
	before := []Item{{"a", 0.4}, {"b", 0.3}, {"c", 0.2}, {"d", 0.1}}
	after := []Item{{"b", 0.5}, {"a", 0.35}, {"e", 0.2}, {"d", 0.05}}
	r, err := Compare(before, after)
	if err != nil {
		t.Fatal(err)
	}
	if r.Class != Diverge {
		t.Fatalf("class %s, want DIVERGE", r.Class)
	}
	want := []RowItem{
		{ID: "b", Change: Up, BeforeRank: 1, AfterRank: 0, BeforeScore: 0.3, AfterScore: 0.5, Shift: 1},
		{ID: "a", Change: Down, BeforeRank: 0, AfterRank: 1, BeforeScore: 0.4, AfterScore: 0.35, Shift: -1},
		{ID: "e", Change: New, BeforeRank: Absent, AfterRank: 2, AfterScore: 0.2},
		{ID: "d", Change: Kept, BeforeRank: 3, AfterRank: 3, BeforeScore: 0.1, AfterScore: 0.05},
		{ID: "c", Change: Dropped, BeforeRank: 2, AfterRank: Absent, BeforeScore: 0.2},
	}
	if len(r.Items) != len(want) {
		t.Fatalf("got %d items, want %d: %+v", len(r.Items), len(want), r.Items)
	}
	for i := range want {
		if r.Items[i] != want[i] {
			t.Errorf("item %d: got %+v, want %+v", i, r.Items[i], want[i])
		}
	}
}

func TestCompareRejectsRepeatedID(t *testing.T) {
	_, err := CompareIDs([]string{"a", "b", "a"}, []string{"a"})
	if err == nil || !strings.Contains(err.Error(), `before list repeats id "a"`) {
		t.Fatalf("want repeated-id error naming the list, got %v", err)
	}
	_, err = CompareIDs([]string{"a"}, []string{"x", "x"})
	if err == nil || !strings.Contains(err.Error(), "after list") {
		t.Fatalf("want repeated-id error for the after list, got %v", err)
	}
}

func TestArrowsAreDistinct(t *testing.T) {
	seen := map[string]Change{}
	for _, c := range []Change{Up, Down, Kept, New, Dropped} {
		a := c.Arrow()
		if other, dup := seen[a]; dup {
			t.Errorf("%s and %s share arrow %q", c, other, a)
		}
		seen[a] = c
	}
}
