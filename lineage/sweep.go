package lineage

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/memscope/memscope/internal/present/finding"
)

// Schedule is an attribution-weight schedule for sleeper chains (MemLineage, arXiv:2605.14421,
// section 6.3).
type Schedule string

const (
	// ScheduleCoarse scores every derivation edge 1.0.
	ScheduleCoarse Schedule = "coarse"
	// ScheduleJudge is the LM-judge schedule w_k = 0.9 * 0.7^(k-1).
	ScheduleJudge Schedule = "judge"
)

// SweepTaus and SweepKs are the grid of MemLineage, arXiv:2605.14421, Tables 5 and 6.
var (
	SweepTaus = []float64{0, 0.1, 0.3, 0.5, 0.9, 0.99, 1.0}
	SweepKs   = []int{1, 2, 3, 5}
)

// Weight returns the weight of derivation step k (1-based) under s.
func (s Schedule) Weight(k int) (float64, error) {
	if k < 1 {
		return 0, fmt.Errorf("lineage: chain step %d, want >= 1", k)
	}
	switch s {
	case ScheduleCoarse:
		return 1.0, nil
	case ScheduleJudge:
		return 0.9 * math.Pow(0.7, float64(k-1)), nil
	}
	return 0, fmt.Errorf("lineage: unknown schedule %q", string(s))
}

// Chain is one sleeper chain: an External root e0 and derived entries e1..eK,
// each naming the previous one as its only parent.
type Chain struct {
	Schedule Schedule `json:"schedule"`
	Entries  []Entry  `json:"entries"`
}

// SleeperChain generates a chain of k derived entries below an External
// root, weighted by schedule s. Ids are prefix + "-e0" ... prefix + "-eK";
// derived entries are written (and recorded Trusted) by an honest agent, as
// in sleeper-via-derivation.
func SleeperChain(s Schedule, k int, prefix string) (Chain, error) {
	if k < 1 {
		return Chain{}, fmt.Errorf("lineage: sleeper chain length %d, want >= 1", k)
	}
	ch := Chain{Schedule: s, Entries: make([]Entry, 0, k+1)}
	ch.Entries = append(ch.Entries, Entry{ID: prefix + "-e0", Writer: "external:attacker", Recorded: External})
	for i := 1; i <= k; i++ {
		w, err := s.Weight(i)
		if err != nil {
			return Chain{}, err
		}
		ch.Entries = append(ch.Entries, Entry{
			ID:       fmt.Sprintf("%s-e%d", prefix, i),
			Writer:   "agent:0",
			Recorded: Trusted,
			Parents:  []string{fmt.Sprintf("%s-e%d", prefix, i-1)},
			Weights:  []float64{w},
			TS:       int64(i),
		})
	}
	return ch, nil
}

// SweepRow is one cell of the tau x K table.
type SweepRow struct {
	Schedule Schedule `json:"schedule"`
	Tau      float64  `json:"tau"`
	K        int      `json:"k"`
	// Propagated is true when the External root's label reaches the chain
	// tip as untrusted (recomputed label >= Derived-Untrusted).
	Propagated bool   `json:"propagated"`
	Tip        string `json:"tip"`
	TipLabel   Trust  `json:"tip_label"`
}

// Sweep runs the real propagation (fail-open, as in the paper) over each
// chain at each tau. A chain must be a simple path from one root written by
// an external principal; anything else is an error naming the chain.
func Sweep(chains []Chain, taus []float64) ([]SweepRow, error) {
	var rows []SweepRow
	for ci, ch := range chains {
		g := Build(ch.Entries)
		tip, k, err := chainShape(g)
		if err != nil {
			return nil, fmt.Errorf("lineage: sweep chain #%d (%s): %w", ci, ch.Schedule, err)
		}
		labels := make([]Trust, g.Len())
		for _, tau := range taus {
			if err := g.PropagateInto(labels, Options{Tau: tau}); err != nil {
				return nil, fmt.Errorf("lineage: sweep chain #%d (%s): %w", ci, ch.Schedule, err)
			}
			rows = append(rows, SweepRow{
				Schedule:   ch.Schedule,
				Tau:        tau,
				K:          k,
				Propagated: labels[tip].IsUntrusted(),
				Tip:        g.ID(tip),
				TipLabel:   labels[tip],
			})
		}
	}
	return rows, nil
}

// chainShape checks that g is a simple path rooted at an external entry and
// returns the tip and the number of derivation steps.
func chainShape(g *Graph) (tip, k int, err error) {
	for _, f := range g.Findings() {
		if f.Severity != finding.SevInfo {
			return 0, 0, fmt.Errorf("malformed chain: %s", f.Message)
		}
	}
	if g.Len() < 2 {
		return 0, 0, fmt.Errorf("chain has %d entries, want a root and at least one derived entry", g.Len())
	}
	root := -1
	for i := 0; i < g.Len(); i++ {
		np, nc := len(g.Parents(i)), len(g.Children(i))
		switch {
		case np == 0:
			if root >= 0 {
				return 0, 0, fmt.Errorf("chain has two roots, %s and %s", g.ID(root), g.ID(i))
			}
			root = i
		case np > 1:
			return 0, 0, fmt.Errorf("entry %s has %d parents; a chain entry has one", g.ID(i), np)
		}
		if nc > 1 {
			return 0, 0, fmt.Errorf("entry %s has %d children; a chain entry has at most one", g.ID(i), nc)
		}
	}
	if root < 0 {
		return 0, 0, fmt.Errorf("chain has no root")
	}
	if g.Writer(root) != WriterExternal {
		return 0, 0, fmt.Errorf("chain root %s is written by a %s principal, not external", g.ID(root), g.Writer(root))
	}
	v := root
	for {
		ch := g.Children(v)
		if len(ch) == 0 {
			break
		}
		v = ch[0].Node
		k++
	}
	if k != g.Len()-1 {
		return 0, 0, fmt.Errorf("chain from %s reaches %d of %d entries", g.ID(root), k+1, g.Len())
	}
	return v, k, nil
}

// PaperSweep generates the Coarse and Judge chains for K in SweepKs and runs
// Sweep over SweepTaus: the reproduction of MemLineage, arXiv:2605.14421, Tables 5 and 6.
func PaperSweep() ([]SweepRow, error) {
	var chains []Chain
	for _, s := range []Schedule{ScheduleCoarse, ScheduleJudge} {
		for _, k := range SweepKs {
			ch, err := SleeperChain(s, k, fmt.Sprintf("%s-k%d", s, k))
			if err != nil {
				return nil, err
			}
			chains = append(chains, ch)
		}
	}
	return Sweep(chains, SweepTaus)
}

// RenderSweep renders rows as one tau x K table per schedule, 1 where the
// External label reaches the tip and 0 where it is lost.
func RenderSweep(rows []SweepRow) string {
	type key struct {
		s   Schedule
		tau float64
		k   int
	}
	cells := map[key]bool{}
	var schedules []Schedule
	seenS := map[Schedule]bool{}
	var taus []float64
	seenT := map[float64]bool{}
	var ks []int
	seenK := map[int]bool{}
	for _, r := range rows {
		cells[key{r.Schedule, r.Tau, r.K}] = r.Propagated
		if !seenS[r.Schedule] {
			seenS[r.Schedule] = true
			schedules = append(schedules, r.Schedule)
		}
		if !seenT[r.Tau] {
			seenT[r.Tau] = true
			taus = append(taus, r.Tau)
		}
		if !seenK[r.K] {
			seenK[r.K] = true
			ks = append(ks, r.K)
		}
	}
	sort.Float64s(taus)
	sort.Ints(ks)
	var b strings.Builder
	for si, s := range schedules {
		if si > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "schedule %s (1 = External reaches the chain tip)\n", s)
		b.WriteString("tau  ")
		for _, k := range ks {
			fmt.Fprintf(&b, "%5s", fmt.Sprintf("K=%d", k))
		}
		b.WriteString("\n")
		for _, tau := range taus {
			fmt.Fprintf(&b, "%.2f ", tau)
			for _, k := range ks {
				v, ok := cells[key{s, tau, k}]
				switch {
				case !ok:
					b.WriteString("    -")
				case v:
					b.WriteString("    1")
				default:
					b.WriteString("    0")
				}
			}
			b.WriteString("\n")
		}
	}
	return b.String()
}

// ChainTo cuts the sleeper chain ending at tip out of a larger store: it
// follows single parents from tip up to a parentless root and returns those
// entries root first, ready for Sweep. An entry with several parents, a
// missing parent or a loop is an error naming the entry.
func ChainTo(entries []Entry, tip string, s Schedule) (Chain, error) {
	byID := make(map[string]int, len(entries))
	for i, e := range entries {
		if _, dup := byID[e.ID]; !dup {
			byID[e.ID] = i
		}
	}
	var rev []Entry
	seen := map[string]bool{}
	for id := tip; ; {
		i, ok := byID[id]
		if !ok {
			return Chain{}, fmt.Errorf("lineage: chain to %s: entry %s is not in the store", tip, id)
		}
		if seen[id] {
			return Chain{}, fmt.Errorf("lineage: chain to %s: loop at %s", tip, id)
		}
		seen[id] = true
		e := entries[i]
		rev = append(rev, e)
		if len(e.Parents) == 0 {
			break
		}
		if len(e.Parents) > 1 {
			return Chain{}, fmt.Errorf("lineage: chain to %s: entry %s has %d parents; a chain entry has one", tip, id, len(e.Parents))
		}
		id = e.Parents[0]
	}
	ch := Chain{Schedule: s, Entries: make([]Entry, len(rev))}
	for i, e := range rev {
		ch.Entries[len(rev)-1-i] = e
	}
	return ch, nil
}
