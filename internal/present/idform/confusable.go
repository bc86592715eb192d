package idform

import (
	"iter"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/mtibben/confusables"

	"github.com/memscope/memscope/internal/present/sanitize"
)

// DisplayKey is what an id looks like on a screen: the Unicode TR39
// skeleton (confusables.txt, via github.com/mtibben/confusables) of the id
// without the characters that draw nothing (the ones the sanitiser shows
// as <U+...>: zero-width, bidi, tag, variation selectors, C1 controls).
// Two ids with one DisplayKey differ only by invisible or confusable
// characters: "Acme Holdings" and "Acme Holdings<ZWSP>", or a Latin name
// and its Cyrillic look-alike.
func DisplayKey(id string) string {
	visible := strings.Map(func(r rune) rune {
		if r >= utf8.RuneSelf && sanitize.Line(string(r)) != string(r) {
			return -1
		}
		return r
	}, id)
	return confusables.Skeleton(visible)
}

// Collisions groups the distinct ids that share a DisplayKey, each group
// sorted, groups in order of their first id. Only groups with an id that
// is not plain ASCII are reported: two ASCII ids that look alike (0 and O)
// are told apart by any monospace font, while a group with an invisible
// or non-Latin character is not. Pure-ASCII ids are keyed only when some
// other id is not ASCII, in a second range over ids, so a store of UUIDs
// costs one scan and holds none of them (a million ids held to be keyed
// later were 300 MB of heap).
func Collisions(ids iter.Seq[string]) [][]string {
	groups := map[string][]string{}
	seen := map[string]bool{} // the ids in groups
	join := func(k, id string) {
		if !seen[id] {
			seen[id] = true
			groups[k] = append(groups[k], id)
		}
	}
	for id := range ids {
		if !isASCII(id) && !seen[id] {
			join(DisplayKey(id), id)
		}
	}
	if len(groups) == 0 {
		return nil
	}
	for id := range ids {
		if !isASCII(id) || seen[id] {
			continue
		}
		if k := DisplayKey(id); groups[k] != nil {
			join(k, id)
		}
	}
	var out [][]string
	for _, g := range groups {
		if len(g) > 1 {
			slices.Sort(g)
			out = append(out, g)
		}
	}
	slices.SortFunc(out, func(a, b []string) int { return strings.Compare(a[0], b[0]) })
	return out
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
