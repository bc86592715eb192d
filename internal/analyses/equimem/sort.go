package equimem

import (
	"cmp"
	"slices"
	"strings"
)

// Triage list orders: memscope exposure --equimem-sort and the
// inspector's sort key (docs/EXPOSURE.md). They order scored writes
// beside their provenance labels, which the caller supplies.
const (
	// SortRho is triage order: lowest rho_detect first (triage_rank).
	SortRho = "rho"
	// SortLabel groups by provenance label, the thing that decides:
	// replay culprits, then the other unauthenticated writes, then the
	// authenticated ones; triage order within each.
	SortLabel = "label"
	// SortWrite is by write id (byte order), triage order for equal ids.
	SortWrite = "write"
)

// Sorts lists the orders, the inspector's cycle order.
var Sorts = []string{SortRho, SortLabel, SortWrite}

// SortName says what an order sorts by, for headers and help.
func SortName(key string) string {
	switch key {
	case SortLabel:
		return "provenance label (culprit, unauthenticated, authenticated)"
	case SortWrite:
		return "write id"
	}
	return "rho_detect, lowest first"
}

// Label is the word shown beside a write's score: the label
// replay gives it, with replay's culprits singled out.
func Label(authenticated, culprit bool) string {
	switch {
	case culprit:
		return "CULPRIT"
	case !authenticated:
		return "unauthenticated"
	}
	return "authenticated"
}

// Key is what the orders compare.
type Key struct {
	Rank                   int // triage rank (1 = lowest rho); 0 sorts last
	Authenticated, Culprit bool
	Write                  string
}

// Sort orders rows in place by key (SortRho for an unknown key),
// reversed when desc. get reads a row's key. The sort is stable and total
// (triage rank breaks every tie), so one key always gives one order.
func Sort[T any](rows []T, key string, desc bool, get func(T) Key) {
	group := func(k Key) int {
		switch {
		case k.Culprit:
			return 0
		case !k.Authenticated:
			return 1
		}
		return 2
	}
	rank := func(k Key) int {
		if k.Rank <= 0 {
			return int(^uint(0) >> 1)
		}
		return k.Rank
	}
	slices.SortStableFunc(rows, func(x, y T) int {
		a, b := get(x), get(y)
		c := 0
		switch key {
		case SortLabel:
			c = cmp.Compare(group(a), group(b))
		case SortWrite:
			c = strings.Compare(a.Write, b.Write)
		}
		if c == 0 {
			c = cmp.Compare(rank(a), rank(b))
		}
		if desc {
			return -c
		}
		return c
	})
}
