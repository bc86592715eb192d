package equimem

import (
	"strings"
	"testing"
)

// Each order as documented: rho is triage rank; label puts culprits, then
// unauthenticated, then authenticated writes first (rank within); write
// sorts ids; desc reverses; an unknown key is rho.
func TestSortOrders(t *testing.T) {
	t.Parallel()
	rows := []Key{
		{Rank: 3, Authenticated: true, Write: "w-a"},
		{Rank: 1, Authenticated: true, Write: "w-c"},
		{Rank: 5, Culprit: true, Write: "w-b"},
		{Rank: 2, Write: "w-e"},
		{Rank: 4, Culprit: true, Write: "w-d"},
	}
	ids := func(key string, desc bool) string {
		rs := append([]Key(nil), rows...)
		Sort(rs, key, desc, func(k Key) Key { return k })
		var out []string
		for _, r := range rs {
			out = append(out, r.Write)
		}
		return strings.Join(out, " ")
	}
	for _, c := range []struct {
		key  string
		desc bool
		want string
	}{
		{SortRho, false, "w-c w-e w-a w-d w-b"},
		{SortLabel, false, "w-d w-b w-e w-c w-a"},
		{SortWrite, false, "w-a w-b w-c w-d w-e"},
		{SortWrite, true, "w-e w-d w-c w-b w-a"},
		{"size", false, "w-c w-e w-a w-d w-b"},
	} {
		if got := ids(c.key, c.desc); got != c.want {
			t.Errorf("%s desc=%v: %s, want %s", c.key, c.desc, got, c.want)
		}
	}
	if Label(true, true) != "CULPRIT" || Label(false, false) != "unauthenticated" || Label(true, false) != "authenticated" {
		t.Error("labels")
	}
}
