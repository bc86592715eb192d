// Package timeline puts everything a snapshot holds into one ordered stream
// (registry events, entries, structural writes, tombstones, queries,
// actions, gate events and checkpoints) and answers questions about time
// over it: the store as of a moment, the first write after which a query's
// selection on G differs from G_auth's, and what a write or principal
// reached. It is pure analysis: callers hand it records, it does no I/O and
// has no terminal code.
package timeline

import (
	"cmp"
	"fmt"
	"slices"
	"sync"
)

// Kind is the kind of an event.
type Kind string

// Event kinds.
const (
	KindPrincipal  Kind = "principal"
	KindEntry      Kind = "entry"
	KindWrite      Kind = "write"
	KindTombstone  Kind = "tombstone"
	KindQuery      Kind = "query"
	KindAction     Kind = "action"
	KindGate       Kind = "gate"
	KindCheckpoint Kind = "checkpoint"
)

// Placement says how an event got its position in the stream.
type Placement string

const (
	// ByLog: the event has a log leaf (or, for a checkpoint, a tree size),
	// and its position follows the log.
	ByLog Placement = "log"
	// ByTime: the event is not in the log; it sits between logged events by
	// its recorded time, which is a claim of the snapshot, not a proof.
	ByTime Placement = "time"
)

// Event is one thing that happened to the store.
type Event struct {
	Kind Kind
	ID   string
	// Leaf is the log leaf index, -1 when the event is not in the log.
	Leaf int64
	// Size is a checkpoint's tree size (0 for other kinds): the checkpoint
	// covers leaves 0..Size-1 and sits right after leaf Size-1.
	Size uint64
	// TS is the recorded time in nanoseconds since the Unix epoch.
	TS int64
	// Principal is the writer, the registered principal or, for actions
	// and queries, empty (the agent).
	Principal string
	// Summary is a short description from the evidence (not sanitised:
	// presentation sanitises).
	Summary string
	// Cites lists the entry ids an action's justification names, or the
	// target of a tombstone, or an entry's parents.
	Cites []string
	// Authenticated is the write-provenance label of a structural write
	// (nil for other kinds or when no label was given).
	Authenticated *bool
	// Placed says whether the position comes from the log or from time.
	Placed Placement
}

// Timeline is the ordered stream. Index i of Events is the moment "after
// the first i events"; a cut at i keeps Events[:i].
type Timeline struct {
	Events []Event
	// byKind indexes each kind's ids (id -> first index), built on the
	// first Index of that kind: a replay as of a query looks up queries
	// only, and a million writes need no index then.
	mu     sync.Mutex
	byKind map[Kind]map[string]int
}

// Build orders events: logged events by leaf (a checkpoint of size n right
// after leaf n-1), and the others merged in by recorded time, each placed
// before the first logged event recorded later than it. Ties keep the
// input order, so callers pass each table in its stored order.
//
// The events are ordered in place: the timeline takes over the slice
// (a copy of a million events would double what the stream holds).
func Build(events []Event) *Timeline {
	for i := range events {
		events[i].Placed = placement(&events[i])
	}
	order := orderOf(len(events), func(i int) placeKey { return keyOf(&events[i]) })
	permute(events, order)
	return &Timeline{Events: events}
}

// placeKey is what orders an event: whether the log places it, its
// position in the log (see keyOf) and its recorded time.
type placeKey struct {
	logged  bool
	pos, ts int64
}

func placement(e *Event) Placement {
	if e.Kind == KindCheckpoint && e.Size > 0 || e.Kind != KindCheckpoint && e.Leaf >= 0 {
		return ByLog
	}
	return ByTime
}

// keyOf: a leaf n at 2n, a checkpoint of size n right after leaf n-1.
func keyOf(e *Event) placeKey {
	k := placeKey{logged: e.Placed == ByLog, pos: 2 * e.Leaf, ts: e.TS}
	if e.Kind == KindCheckpoint {
		k.pos = 2*int64(e.Size) - 1
	}
	return k
}

// orderOf is Build's order of n events given by key: order[k] is the input
// index of the event that goes to position k.
func orderOf(n int, key func(i int) placeKey) []int32 {
	var logged, timed []int32
	for i := range n {
		if key(i).logged {
			logged = append(logged, int32(i))
		} else {
			timed = append(timed, int32(i))
		}
	}
	slices.SortStableFunc(logged, func(a, b int32) int {
		ka, kb := key(int(a)), key(int(b))
		if c := cmp.Compare(ka.pos, kb.pos); c != 0 {
			return c
		}
		return cmp.Compare(ka.ts, kb.ts)
	})
	slices.SortStableFunc(timed, func(a, b int32) int { return cmp.Compare(key(int(a)).ts, key(int(b)).ts) })
	order := make([]int32, 0, n)
	i, j := 0, 0
	for i < len(logged) || j < len(timed) {
		if j < len(timed) && (i == len(logged) || key(int(timed[j])).ts < key(int(logged[i])).ts) {
			order = append(order, timed[j])
			j++
			continue
		}
		order = append(order, logged[i])
		i++
	}
	return order
}

// permute moves events[order[k]] to position k, in place, following each
// cycle of the permutation once (order is consumed).
func permute(events []Event, order []int32) {
	for start := range order {
		if order[start] < 0 {
			continue
		}
		held := events[start]
		k := start
		for {
			src := int(order[k])
			order[k] = -1
			if src == start {
				events[k] = held
				break
			}
			events[k] = events[src]
			k = src
		}
	}
}

// Index returns the position of the event of this kind and id.
func (t *Timeline) Index(k Kind, id string) (int, bool) {
	t.mu.Lock()
	idx, ok := t.byKind[k]
	if !ok {
		idx = map[string]int{}
		for i, e := range t.Events {
			if e.Kind != k {
				continue
			}
			if _, dup := idx[e.ID]; !dup {
				idx[e.ID] = i
			}
		}
		if t.byKind == nil {
			t.byKind = map[Kind]map[string]int{}
		}
		t.byKind[k] = idx
	}
	t.mu.Unlock()
	i, ok := idx[id]
	return i, ok
}

// Order says how the stream was ordered: "log" when every event has a log
// position, "log+time" when some were placed by recorded time, "time" when
// none is logged.
func (t *Timeline) Order() string {
	var log, tm bool
	for _, e := range t.Events {
		if e.Placed == ByLog {
			log = true
		} else {
			tm = true
		}
	}
	switch {
	case log && tm:
		return "log+time"
	case tm:
		return "time"
	}
	return "log"
}

// Filter selects events for display.
type Filter struct {
	From, To  int64  // recorded time bounds in ns, inclusive; 0: open
	Principal string // "": every principal
}

// Select returns the indices of the events the filter keeps, in order.
func (t *Timeline) Select(f Filter) []int {
	var out []int
	for i, e := range t.Events {
		if f.From != 0 && e.TS < f.From || f.To != 0 && e.TS > f.To {
			continue
		}
		if f.Principal != "" && e.Principal != f.Principal {
			continue
		}
		out = append(out, i)
	}
	return out
}

// Cut is a moment of the stream: the events before Index had happened.
type Cut struct {
	Index int
	// Placed says whether the moment was fixed by the log or by time.
	Placed Placement
	// Desc says in words what the moment is.
	Desc string
}

// AfterLeaf is the moment right after log leaf n was appended.
func (t *Timeline) AfterLeaf(n int64) (Cut, error) {
	for i, e := range t.Events {
		if e.Kind != KindCheckpoint && e.Leaf == n {
			return Cut{Index: i + 1, Placed: ByLog, Desc: fmt.Sprintf("after leaf %d (%s %s)", n, e.Kind, e.ID)}, nil
		}
	}
	return Cut{}, fmt.Errorf("timeline: no event has log leaf %d", n)
}

// AtTime is the moment at recorded time ts: the stream up to the first
// event recorded later than ts.
func (t *Timeline) AtTime(ts int64) Cut {
	i := 0
	for i < len(t.Events) && t.Events[i].TS <= ts {
		i++
	}
	return Cut{Index: i, Placed: ByTime, Desc: fmt.Sprintf("at recorded time %d (%d events before)", ts, i)}
}

// Before is the moment just before the named event (for a query: the graph
// it ran on).
func (t *Timeline) Before(k Kind, id string) (Cut, error) {
	i, ok := t.Index(k, id)
	if !ok {
		return Cut{}, fmt.Errorf("timeline: no %s \"%s\"", k, id)
	}
	return Cut{Index: i, Placed: t.Events[i].Placed, Desc: fmt.Sprintf("when %s %s ran (placed by %s)", k, id, t.Events[i].Placed)}, nil
}

// End is the moment after every event: the store as the snapshot holds it.
func (t *Timeline) End() Cut {
	return Cut{Index: len(t.Events), Placed: ByLog, Desc: "now (every event)"}
}

// State counts what the store held at a cut.
type State struct {
	Entries, Writes, Tombstones, Principals, Queries, Actions int
	// UnauthWrites counts structural writes labelled unauthenticated.
	UnauthWrites int
}

// StateAt counts the events before the cut. Tombstoned entries are
// subtracted from Entries.
func (t *Timeline) StateAt(c Cut) State {
	var s State
	for _, e := range t.Events[:min(c.Index, len(t.Events))] {
		switch e.Kind {
		case KindEntry:
			s.Entries++
		case KindWrite:
			s.Writes++
			if e.Authenticated != nil && !*e.Authenticated {
				s.UnauthWrites++
			}
		case KindTombstone:
			s.Tombstones++
			s.Entries--
		case KindPrincipal:
			s.Principals++
		case KindQuery:
			s.Queries++
		case KindAction:
			s.Actions++
		}
	}
	s.Entries = max(s.Entries, 0)
	return s
}

// WritePositions maps each write id to its index in the stream.
func (t *Timeline) WritePositions() map[string]int {
	m := map[string]int{}
	for i, e := range t.Events {
		if e.Kind == KindWrite {
			m[e.ID] = i
		}
	}
	return m
}
