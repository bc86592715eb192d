package recorder

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/memscope/memscope/evidence"
	"github.com/memscope/memscope/evidence/record"
	"github.com/memscope/memscope/evidence/snapshot"
	"github.com/memscope/memscope/evidence/writer"
	"github.com/memscope/memscope/internal/exactjson"
)

// The reference knowledge-graph server's tools, as
// @modelcontextprotocol/server-memory 2026.8.31 (dist/index.js) defines
// them: create_entities / create_relations / add_observations return what
// they added (structuredContent entities / relations / results);
// delete_* return a message; read_graph / search_nodes / open_nodes
// return {entities, relations}.

func sha(b []byte) [32]byte { return sha256.Sum256(b) }

func entityNode(server, name string) string { return evidence.MCPEntityNode(server, name) }

type kgEntity struct {
	Name         string   `json:"name"`
	EntityType   string   `json:"entityType"`
	Observations []string `json:"observations"`
}

// kgEntityHead is what an entity's own entry holds (its observations are
// entries of their own).
type kgEntityHead struct {
	Name       string `json:"name"`
	EntityType string `json:"entityType"`
}

type kgRelation struct {
	From         string `json:"from"`
	To           string `json:"to"`
	RelationType string `json:"relationType"`
}

type kgGraph struct {
	Entities  []kgEntity   `json:"entities"`
	Relations []kgRelation `json:"relations"`
}

// structured returns the result's structuredContent, or its first text
// block parsed as JSON (servers older than structured output).
func structured(res *callResult) json.RawMessage {
	if len(res.StructuredContent) > 0 {
		return res.StructuredContent
	}
	for _, c := range res.Content {
		if c.Type != "text" {
			continue
		}
		if b := []byte(c.Text); json.Valid(b) && exactjson.RepeatedName(b) == nil {
			return b
		}
	}
	return nil
}

// recordMemory records a memory server's call.
func (s *session) recordMemory(ctx context.Context, rt route, p callParams, res *callResult) error {
	if rt.up.cfg.Mapping != nil {
		return s.recordMapped(ctx, rt, p, res)
	}
	server := rt.up.cfg.Name
	switch rt.name {
	case "create_entities":
		var out struct {
			Entities []kgEntity `json:"entities"`
		}
		if err := exactjson.DecodeChecked(structured(res), &out); err != nil {
			return fmt.Errorf("create_entities result: %w", err)
		}
		return s.write(ctx, func(tx *Tx, lw *lineageWrite) error {
			for _, e := range out.Entities {
				if err := lw.entity(tx, server, e); err != nil {
					return err
				}
			}
			return nil
		})
	case "add_observations":
		var out struct {
			Results []struct {
				EntityName        string   `json:"entityName"`
				AddedObservations []string `json:"addedObservations"`
			} `json:"results"`
		}
		if err := exactjson.DecodeChecked(structured(res), &out); err != nil {
			return fmt.Errorf("add_observations result: %w", err)
		}
		return s.write(ctx, func(tx *Tx, lw *lineageWrite) error {
			for _, r := range out.Results {
				for _, o := range r.AddedObservations {
					if err := lw.observation(tx, server, r.EntityName, o); err != nil {
						return err
					}
				}
			}
			return nil
		})
	case "create_relations":
		var out struct {
			Relations []kgRelation `json:"relations"`
		}
		if err := exactjson.DecodeChecked(structured(res), &out); err != nil {
			return fmt.Errorf("create_relations result: %w", err)
		}
		return s.write(ctx, func(tx *Tx, lw *lineageWrite) error {
			for _, r := range out.Relations {
				if err := lw.relation(tx, server, r); err != nil {
					return err
				}
			}
			return nil
		})
	case "delete_entities", "delete_observations", "delete_relations":
		return s.deleteItems(ctx, server, rt.name, p)
	case "read_graph", "search_nodes", "open_nodes":
		var g kgGraph
		if err := exactjson.DecodeChecked(structured(res), &g); err != nil {
			return fmt.Errorf("%s result: %w", rt.name, err)
		}
		return s.readGraph(ctx, server, rt.name, p, g)
	}
	return nil
}

// lineageWrite is one write call: the agent's principal and session, and
// the context it wrote in.
type lineageWrite struct {
	s       *session
	agent   string
	parents []record.ID
	weights []float64
	trust   record.Trust
	hctx    [32]byte
}

// write runs fn with the session's context as lineage, durably.
func (s *session) write(ctx context.Context, fn func(*Tx, *lineageWrite) error) error {
	s.mu.Lock()
	parents, weights, trust, _ := s.seen.lineage()
	s.mu.Unlock()
	var hc []byte
	for _, p := range parents {
		hc = append(hc, p[:]...)
	}
	lw := &lineageWrite{s: s, agent: s.g.agent, parents: parents, weights: weights, trust: trust, hctx: sha(hc)}
	return s.g.rec.Do(ctx, func(tx *Tx) error { return fn(tx, lw) })
}

func (lw *lineageWrite) entry(tx *Tx, key [32]byte, content string) (record.ID, error) {
	return tx.Entry(EntryIn{Writer: lw.agent, Content: content, Trust: lw.trust, Parents: lw.parents, Weights: lw.weights,
		Source: key, Context: lw.hctx, Session: lw.s.id})
}

// passage declares the passage showing entry id and links it to the
// entity node, sourced by the entry itself.
func (lw *lineageWrite) passage(tx *Tx, entity string, id record.ID, label string) error {
	pn := passageNode(id)
	if err := tx.Node(pn, snapshot.NodePassage, label, &id, lw.agent); err != nil {
		return err
	}
	_, err := tx.Write(record.KindEdge, entity, pn, evidence.MCPHasRel, 1.0, lw.agent, []record.ID{id})
	return err
}

func (lw *lineageWrite) entityNode(tx *Tx, server, name string) (string, error) {
	n := entityNode(server, name)
	return n, tx.Node(n, snapshot.NodeEntity, name, nil, lw.agent)
}

func (lw *lineageWrite) entity(tx *Tx, server string, e kgEntity) error {
	b, _ := json.Marshal(kgEntityHead{Name: e.Name, EntityType: e.EntityType})
	id, err := lw.entry(tx, itemKey(server, "entity", e.Name), string(b))
	if err != nil {
		return err
	}
	n, err := lw.entityNode(tx, server, e.Name)
	if err != nil {
		return err
	}
	// The passage shows the head entry itself, so the item stays
	// recognisable after a tombstone removes the entry's row.
	if err := lw.passage(tx, n, id, string(b)); err != nil {
		return err
	}
	for _, o := range e.Observations {
		if err := lw.observation(tx, server, e.Name, o); err != nil {
			return err
		}
	}
	return nil
}

func (lw *lineageWrite) observation(tx *Tx, server, entity, text string) error {
	id, err := lw.entry(tx, itemKey(server, "observation", entity, text), text)
	if err != nil {
		return err
	}
	n, err := lw.entityNode(tx, server, entity)
	if err != nil {
		return err
	}
	return lw.passage(tx, n, id, text)
}

// relation records a relation as an entry (its text, with the context as
// parents) and a structural write between the two entity nodes whose
// sources are that entry and the context: a relation written after the
// agent read an attacker's page cites the page.
func (lw *lineageWrite) relation(tx *Tx, server string, r kgRelation) error {
	b, _ := json.Marshal(r)
	id, err := lw.entry(tx, itemKey(server, "relation", r.From, r.RelationType, r.To), string(b))
	if err != nil {
		return err
	}
	src, err := lw.entityNode(tx, server, r.From)
	if err != nil {
		return err
	}
	dst, err := lw.entityNode(tx, server, r.To)
	if err != nil {
		return err
	}
	sources := append([]record.ID{id}, lw.parents...)
	if _, err = tx.Write(record.KindRelation, src, dst, evidence.MCPRelName(r.RelationType), 1.0, lw.agent, sources); err != nil {
		return err
	}
	// The relation's text is an item the agent reads: the reference server
	// returns every relation with an endpoint among a search's entities
	// (server-memory 2026.8.31, dist/index.js searchNodes and openNodes).
	// So it is a passage hanging off both endpoints, sourced by the
	// relation's entry, and a read that returned it selected it: on G_auth,
	// where an unauthenticated relation's edges are gone, that read selects
	// something else, which is the selection flip replay and watch report.
	if err := lw.passage(tx, src, id, string(b)); err != nil {
		return err
	}
	if dst == src {
		return nil
	}
	_, err = tx.Write(record.KindEdge, dst, passageNode(id), evidence.MCPHasRel, 1.0, lw.agent, []record.ID{id})
	return err
}

// deleteItems tombstones what a delete_* call removed, as the reference
// server removes it: an entity takes its observations and its relations
// with it.
func (s *session) deleteItems(ctx context.Context, server, tool string, p callParams) error {
	reason := "deleted by " + tool + " through memscope record (session " + s.id + ")"
	var keys [][32]byte
	var entities []string
	switch tool {
	case "delete_entities":
		var names []string
		_ = exactjson.DecodeChecked(p.Arguments["entityNames"], &names)
		for _, n := range names {
			entities = append(entities, entityNode(server, n))
		}
	case "delete_observations":
		var ds []struct {
			EntityName   string   `json:"entityName"`
			Observations []string `json:"observations"`
		}
		_ = exactjson.DecodeChecked(p.Arguments["deletions"], &ds)
		for _, d := range ds {
			for _, o := range d.Observations {
				keys = append(keys, itemKey(server, "observation", d.EntityName, o))
			}
		}
	case "delete_relations":
		var rs []kgRelation
		_ = exactjson.DecodeChecked(p.Arguments["relations"], &rs)
		for _, r := range rs {
			keys = append(keys, itemKey(server, "relation", r.From, r.RelationType, r.To))
		}
	}
	return s.g.rec.Do(ctx, func(tx *Tx) error {
		for _, k := range keys {
			if _, err := tx.Delete(k, reason, s.g.agent); err != nil {
				return err
			}
		}
		for _, n := range entities {
			for _, id := range tx.Members(n) {
				if err := tx.DeleteID(id, reason, s.g.agent); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

// readGraph records a read as a query whose selection is what it
// returned, in order: each entity's node, then the passages of its entry
// and observations; what it showed enters the session's context.
func (s *session) readGraph(ctx context.Context, server, tool string, p callParams, g kgGraph) error {
	text := tool
	switch tool {
	case "search_nodes":
		var q string
		_ = exactjson.DecodeChecked(p.Arguments["query"], &q)
		text = q
	case "open_nodes":
		var names []string
		_ = exactjson.DecodeChecked(p.Arguments["names"], &names)
		text = strings.Join(names, ", ")
	}
	var seen []seenItem
	qid := "q-" + newID(now()).String()
	err := s.g.rec.Do(ctx, func(tx *Tx) error {
		var selected []string
		reset := map[string]float64{}
		add := func(key [32]byte, content string) {
			if id, ok := tx.Item(key); ok {
				selected = append(selected, passageNode(id))
				seen = append(seen, seenItem{id, content, tx.Trust(id)})
			}
		}
		for _, e := range g.Entities {
			n := entityNode(server, e.Name)
			if ok, _ := tx.hasNode(n); ok {
				reset[n] = 1
			}
			b, _ := json.Marshal(kgEntityHead{Name: e.Name, EntityType: e.EntityType})
			add(itemKey(server, "entity", e.Name), string(b))
			for _, o := range e.Observations {
				add(itemKey(server, "observation", e.Name, o), o)
			}
		}
		// A relation is a passage too (see relation): the agent read it.
		for _, r := range g.Relations {
			b, _ := json.Marshal(r)
			add(itemKey(server, "relation", r.From, r.RelationType, r.To), string(b))
		}
		for n := range reset {
			reset[n] = 1 / float64(len(reset))
		}
		k := len(selected)
		k = max(1, min(k, 1000))
		if selected == nil {
			selected = []string{}
		}
		return tx.Query(writer.Query{ID: qid, Text: text, K: k, Reset: reset, Selected: selected}, s.g.agent)
	})
	if err == nil {
		s.mu.Lock()
		s.seen.add(seen...)
		s.lastQuery = qid
		s.mu.Unlock()
	}
	return err
}

// recordAction records a sensitive call before it is sent: its
// parameters, the context as justification, the query it followed and,
// per parameter, the context entries whose content holds its value.
func (s *session) recordAction(ctx context.Context, rt route, p callParams) error {
	s.mu.Lock()
	justification, _, _, items := s.seen.lineage()
	query := s.lastQuery
	s.mu.Unlock()
	params := map[string]string{}
	sources := map[string]writer.ParamSources{}
	names := make([]string, 0, len(p.Arguments))
	for k := range p.Arguments {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		v := p.Arguments[k]
		var str string
		if exactjson.DecodeChecked(v, &str) != nil {
			str = string(v)
		}
		params[clip(k, 128)] = clip(str, maxText)
		from := []record.ID{}
		if len(strings.TrimSpace(str)) >= 2 {
			for _, it := range items {
				if strings.Contains(it.content, str) {
					from = append(from, it.id)
				}
			}
		}
		sources[clip(k, 128)] = writer.ParamSources{From: from, Alt: []record.ID{}}
	}
	a := writer.Action{ID: "act-" + newID(now()).String(), Tool: clip(rt.name, 128), Params: params, Justification: justification,
		Dispatched: true, Query: query, Sources: sources}
	return s.g.rec.Do(ctx, func(tx *Tx) error { return tx.Action(a, s.g.agent) })
}
