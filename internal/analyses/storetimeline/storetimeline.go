// Package storetimeline orders what a native store records about time: the
// store's own events in the store's own order, with the store's own times.
// Mem0 keeps a time on every history row (and its messages); LightRAG 1.4+
// stamps created_at on entities and relations and keeps each document's
// processing times; SMSR stamps every memory. A store that records no time
// (HippoRAG 2, GraphRAG, nano-graphrag, LightRAG before 1.4) says so, and
// its timeline is its storage order. Every time is the store's claim:
// nothing in a native store is signed.
package storetimeline

import (
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/memscope/memscope/internal/readers/mem0db"
	"github.com/memscope/memscope/internal/readers/storemodel"
)

// Event is one thing the store records happening.
type Event struct {
	// Time is the store's time as stored; "" when the record has none.
	Time string `json:"time"`
	// UTC is Time read as a moment (RFC 3339, UTC); "" when unreadable.
	UTC     string `json:"utc"`
	Kind    string `json:"kind"`    // ADD, UPDATE, DELETE, message, document <status>, entity, relation, memory, node
	Subject string `json:"subject"` // memory id, node id, edge id, document id
	Actor   string `json:"actor_claimed,omitempty"`
	Text    string `json:"text,omitempty"`
	// Order is the event's place in the store's storage order.
	Order int `json:"storage_order"`
	at    time.Time
}

// Timeline is a store's events and how they are ordered.
type Timeline struct {
	// Order says which order the events are in and where it comes from.
	Order  string  `json:"order"`
	Timed  bool    `json:"timed"` // the store records times
	Events []Event `json:"events"`
}

// Build returns st's timeline.
func Build(st *storemodel.Store) Timeline {
	var ev []Event
	add := func(e Event) {
		e.Order = len(ev)
		e.at, e.UTC = parse(e.Time)
		ev = append(ev, e)
	}
	for _, v := range st.Versions {
		add(Event{Time: v.When(), Kind: v.Event, Subject: v.MemoryID, Actor: claim(v.Actor, v.Role), Text: v.Text()})
	}
	for _, m := range st.Messages {
		add(Event{Time: m.CreatedAt, Kind: "message", Subject: m.Scope, Actor: claim(m.Name, m.Role), Text: m.Content})
	}
	for _, d := range st.Docs {
		add(Event{Time: d.CreatedAt, Kind: "document created", Subject: d.ID})
		if d.UpdatedAt != "" {
			add(Event{Time: d.UpdatedAt, Kind: "document " + d.Status, Subject: d.ID})
		}
	}
	for _, n := range st.Nodes {
		add(Event{Time: n.CreatedAt, Kind: n.Kind, Subject: n.ID})
	}
	for _, e := range st.Edges {
		if e.Kind == storemodel.EdgePassage && e.CreatedAt == "" {
			// A passage-entity join: derived from the records, not one.
			continue
		}
		add(Event{Time: e.CreatedAt, Kind: "edge " + e.Kind, Subject: e.ID})
	}
	for _, v := range st.Vectors {
		// A Mem0 vector point's payload times (main.py: created_at,
		// updated_at on UPDATE); the claimed user is its user_id.
		t := v.UpdatedAt
		if t == "" {
			t = v.CreatedAt
		}
		add(Event{Time: t, Kind: "vector point", Subject: v.ID, Actor: v.UserID, Text: v.Text})
	}
	for _, m := range st.Memories {
		add(Event{Time: strconv.FormatFloat(m.Timestamp, 'f', 6, 64), Kind: "memory", Subject: strconv.FormatInt(m.ID, 10), Actor: m.Session, Text: m.Content})
	}
	tl := Timeline{Events: ev}
	timed := 0
	for _, e := range ev {
		if e.UTC != "" {
			timed++
		}
	}
	switch {
	case len(ev) == 0:
		tl.Order = "the store records no events"
	case timed == 0:
		tl.Order = "storage order: the store records no time for any of its records"
	case len(st.Versions) > 0:
		// Mem0's own order is the rowid (the order rows were written);
		// its times are shown beside it, and disagreements are the
		// MEM0_EVENTS_OUT_OF_ORDER findings.
		tl.Timed = true
		tl.Order = "storage order (history rowid, then messages, then any vector store's points), with the store's own times; events dated out of that order are MEM0_EVENTS_OUT_OF_ORDER findings"
	default:
		tl.Timed = true
		sort.SliceStable(tl.Events, func(i, j int) bool {
			a, b := tl.Events[i], tl.Events[j]
			if (a.UTC == "") != (b.UTC == "") {
				return a.UTC != ""
			}
			return a.at.Before(b.at)
		})
		tl.Order = "by the store's own times (" + strconv.Itoa(timed) + " of " + strconv.Itoa(len(ev)) + " records carry one); records without a time follow in storage order"
	}
	return tl
}

func claim(who, role string) string {
	switch {
	case who == "" && role == "":
		return ""
	case role == "":
		return who
	case who == "":
		return role
	}
	return who + "/" + role
}

// parse reads the time formats the stores write: ISO 8601 with or without
// zone (Mem0, LightRAG doc status), Unix seconds (LightRAG created_at,
// SMSR's time.time()).
func parse(s string) (time.Time, string) {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, ""
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil && f > 0 && f < 1e11 {
		sec := int64(f)
		t := time.Unix(sec, int64((f-float64(sec))*1e9)).UTC()
		return t, t.Format(time.RFC3339Nano)
	}
	if t, ok := mem0db.EventTime(storemodel.Version{CreatedAt: s}); ok {
		return t.UTC(), t.UTC().Format(time.RFC3339Nano)
	}
	return time.Time{}, ""
}
