// Package diff compares two ranked selections (for example a top-k on the
// full graph G and on the authenticated subgraph G_auth) and describes, per
// item, how its rank moved. It is pure and has no terminal code; the TUI and
// package replay both render from its Result.
package diff

import "fmt"

// Class is the row class of a comparison between two ranked lists.
type Class string

const (
	// Diverge: the two lists select different sets of items.
	Diverge Class = "DIVERGE"
	// Reorder: the same set of items, in a different order.
	Reorder Class = "REORDER"
	// Same: identical lists, item for item.
	Same Class = "SAME"
	// Failed: the comparison could not be made (the row says why).
	Failed Class = "FAILED"
)

// Change is how one item moved from the before list to the after list.
type Change string

const (
	Up      Change = "up"      // present in both, better (smaller) rank after
	Down    Change = "down"    // present in both, worse rank after
	Kept    Change = "kept"    // present in both at the same rank
	New     Change = "new"     // only in the after list
	Dropped Change = "dropped" // only in the before list
)

// Arrow is a one-character marker for the change, so a change is never shown
// by colour alone.
func (c Change) Arrow() string {
	switch c {
	case Up:
		return "↑"
	case Down:
		return "↓"
	case Kept:
		return "="
	case New:
		return "+"
	case Dropped:
		return "-"
	}
	return "?"
}

// Item is one entry of a ranked list: its id and the score it was ranked by.
type Item struct {
	ID    string  `json:"id"`
	Score float64 `json:"score"`
}

// Absent is the rank reported for an item missing from one side.
const Absent = -1

// RowItem is one item of a comparison. Ranks are 0-based; Absent marks the
// side the item is missing from. Shift is BeforeRank-AfterRank (positive
// means the item moved up) and is 0 unless the item is on both sides.
type RowItem struct {
	ID          string  `json:"id"`
	Change      Change  `json:"change"`
	BeforeRank  int     `json:"before_rank"`
	AfterRank   int     `json:"after_rank"`
	BeforeScore float64 `json:"before_score"`
	AfterScore  float64 `json:"after_score"`
	Shift       int     `json:"shift"`
}

// Result is the comparison of two ranked lists. Items lists the after list
// in order, followed by dropped items in their before order.
type Result struct {
	Class Class     `json:"class"`
	Items []RowItem `json:"items"`
}

// Compare classifies before against after and reports every item's change.
// An id repeated within one list is an error, since a rank would be ambiguous.
func Compare(before, after []Item) (Result, error) {
	beforeRank, err := rankIndex(before, "before")
	if err != nil {
		return Result{}, err
	}
	afterRank, err := rankIndex(after, "after")
	if err != nil {
		return Result{}, err
	}
	res := Result{Class: classify(before, after, beforeRank), Items: make([]RowItem, 0, len(after)+len(before))}
	for i, it := range after {
		row := RowItem{ID: it.ID, AfterRank: i, AfterScore: it.Score, BeforeRank: Absent}
		if b, ok := beforeRank[it.ID]; ok {
			row.BeforeRank = b
			row.BeforeScore = before[b].Score
			row.Shift = b - i
			switch {
			case row.Shift > 0:
				row.Change = Up
			case row.Shift < 0:
				row.Change = Down
			default:
				row.Change = Kept
			}
		} else {
			row.Change = New
		}
		res.Items = append(res.Items, row)
	}
	for i, it := range before {
		if _, ok := afterRank[it.ID]; ok {
			continue
		}
		res.Items = append(res.Items, RowItem{ID: it.ID, Change: Dropped, BeforeRank: i, BeforeScore: it.Score, AfterRank: Absent})
	}
	return res, nil
}

// ClassifyIDs classifies two ranked id lists without scores.
func ClassifyIDs(before, after []string) (Class, error) {
	r, err := Compare(idItems(before), idItems(after))
	return r.Class, err
}

// CompareIDs is Compare for lists that carry no scores.
func CompareIDs(before, after []string) (Result, error) {
	return Compare(idItems(before), idItems(after))
}

func idItems(ids []string) []Item {
	items := make([]Item, len(ids))
	for i, id := range ids {
		items[i] = Item{ID: id}
	}
	return items
}

func rankIndex(items []Item, side string) (map[string]int, error) {
	idx := make(map[string]int, len(items))
	for i, it := range items {
		if prev, dup := idx[it.ID]; dup {
			return nil, fmt.Errorf("diff: %s list repeats id \"%s\" at ranks %d and %d", side, it.ID, prev, i)
		}
		idx[it.ID] = i
	}
	return idx, nil
}

func classify(before, after []Item, beforeRank map[string]int) Class {
	if len(before) != len(after) {
		return Diverge
	}
	for _, it := range after {
		if _, ok := beforeRank[it.ID]; !ok {
			return Diverge
		}
	}
	for i := range after {
		if after[i].ID != before[i].ID {
			return Reorder
		}
	}
	return Same
}
