// Package mcpagainst reconciles the reference MCP memory server's own
// file (memory.jsonl, read as the server reads it: internal/readers/mcpmem)
// with the evidence memscope record wrote while it stood between the agent
// and that server (docs/RECORD.md): every item in the file must be
// explained by a recorded write that no recorded tombstone undid, and
// every live recorded item must be in the file. It reads only the signed
// records' bytes (entry content, write and node records, tombstone
// targets), never the snapshot's convenience columns.
package mcpagainst

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/memscope/memscope/evidence"
	"github.com/memscope/memscope/evidence/record"
	"github.com/memscope/memscope/internal/present/finding"
	"github.com/memscope/memscope/internal/readers/mcpmem"
	"github.com/memscope/memscope/internal/readers/storemodel"
	"github.com/memscope/memscope/loader"
)

// Report is the reconciliation of one file with one store.
type Report struct {
	File   string `json:"file"`
	Server string `json:"server"`
	// Items in the file, recorded items still live, recorded items
	// deleted by a signed tombstone, and file items a live record
	// explains.
	InFile   int               `json:"in_file"`
	Recorded int               `json:"recorded"`
	Deleted  int               `json:"deleted"`
	Matched  int               `json:"matched"`
	Findings []finding.Finding `json:"findings"`
}

// item is one entity, observation or relation, keyed as the server keys
// it: an entity by name (create_entities skips a known name), an
// observation by entity and text, a relation by its triple.
type item struct {
	kind, entity, text, from, rel, to string
}

func (i item) key() string {
	switch i.kind {
	case "entity":
		return "e\x00" + i.entity
	case "observation":
		return "o\x00" + i.entity + "\x00" + i.text
	}
	return "r\x00" + i.from + "\x00" + evidence.MCPRelName(i.rel) + "\x00" + i.to
}

func (i item) String() string {
	switch i.kind {
	case "entity":
		return fmt.Sprintf("entity \"%s\"", i.entity)
	case "observation":
		return fmt.Sprintf("observation \"%s\" of \"%s\"", i.text, i.entity)
	}
	return fmt.Sprintf("relation \"%s\" -[%s]-> \"%s\"", i.from, i.rel, i.to)
}

type head struct {
	Name       string `json:"name"`
	EntityType string `json:"entityType"`
}

type relation struct {
	From         string `json:"from"`
	To           string `json:"to"`
	RelationType string `json:"relationType"`
}

// recorded reads, from the store's signed records, the items recorded for
// server: live (their entry is in the store) and deleted (tombstoned).
func recorded(ctx context.Context, snap *loader.Snapshot, server string) (live, deleted map[string]item, err error) {
	nodes, err := snap.Nodes(ctx)
	if err != nil {
		return nil, nil, err
	}
	label := map[string]string{}
	for _, n := range nodes {
		if n.Record == nil || n.Record.Raw == nil {
			continue // an unsigned declaration explains nothing
		}
		if d, err := record.DecodeNode(n.Record.Raw); err == nil {
			label[d.Name] = d.Label
		}
	}
	content := map[string]string{}
	if err := snap.EachEntry(ctx, func(r *loader.EntryRow) error {
		if r.Entry != nil {
			content[r.Entry.EID.String()] = r.Entry.Content
		}
		return nil
	}); err != nil {
		return nil, nil, err
	}
	tomb := map[string]bool{}
	if err := snap.EachTombstone(ctx, func(r *loader.TombstoneRow) error {
		if r.Tombstone != nil {
			tomb[r.Tombstone.Target.String()] = true
		}
		return nil
	}); err != nil {
		return nil, nil, err
	}
	live, deleted = map[string]item{}, map[string]item{}
	place := func(eid string, it item) {
		if tomb[eid] {
			deleted[it.key()] = it
		} else if _, ok := content[eid]; ok {
			live[it.key()] = it
		}
	}
	prefix := evidence.MCPEntityPrefix(server)
	// A relation's entry also sources the "has" edges of the passage that
	// shows the relation (internal/recorder, relation); those are the
	// relation, not observations, so "has" edges are placed once every
	// relation entry is known.
	relationEntries := map[string]bool{}
	type hasEdge struct{ eid, entity, dst string }
	var has []hasEdge
	err = snap.EachWrite(ctx, func(r *loader.WriteRow) error {
		w := r.Write
		if w == nil || len(w.Sources) == 0 || !strings.HasPrefix(w.Src, prefix) {
			return nil
		}
		eid := w.Sources[0].String()
		entity := label[w.Src]
		switch {
		case w.Kind == "relation" && strings.HasPrefix(w.Dst, prefix):
			relationEntries[eid] = true
			it := item{kind: "relation", from: entity, rel: w.Rel, to: label[w.Dst]}
			var rel relation
			if json.Unmarshal([]byte(content[eid]), &rel) == nil && rel.RelationType != "" {
				it.rel = rel.RelationType
			}
			place(eid, it)
		case w.Kind == "edge" && w.Rel == evidence.MCPHasRel:
			has = append(has, hasEdge{eid, entity, w.Dst})
		}
		return nil
	})
	for _, h := range has {
		if relationEntries[h.eid] {
			continue
		}
		// The passage shows the entry: its head JSON or the
		// observation text; the label stays after a tombstone.
		text, ok := content[h.eid]
		if !ok {
			text = label[h.dst]
		}
		var hd head
		if json.Unmarshal([]byte(text), &hd) == nil && hd.Name == h.entity && strings.HasPrefix(text, `{"name":`) {
			place(h.eid, item{kind: "entity", entity: h.entity})
		} else {
			place(h.eid, item{kind: "observation", entity: h.entity, text: text})
		}
	}
	return live, deleted, err
}

// fileIssues are what reading the server's file found, as the reader
// reports them on its own (lines JSON.parse throws on, which make the
// server's loadGraph fail; repeated and dangling items; lone
// surrogates): a file the server could not load reconciles with
// nothing, and without them an unreadable file showed as zero items,
// every one explained.
func fileIssues(g *mcpmem.Graph, file string) []finding.Finding {
	st := &storemodel.Store{Issues: append([]storemodel.Issue(nil), g.Issues...)}
	mcpmem.Build(g, file, st)
	var out []finding.Finding
	for _, is := range st.Issues {
		out = append(out, is.Finding())
	}
	return out
}

// Reconcile compares the server's file (its bytes, read as loadGraph
// reads them) with the recorded evidence of server.
func Reconcile(ctx context.Context, snap *loader.Snapshot, server, file string, b []byte) (*Report, error) {
	live, deleted, err := recorded(ctx, snap, server)
	if err != nil {
		return nil, err
	}
	g := mcpmem.Parse(b, file)
	rep := &Report{File: file, Server: server, Recorded: len(live), Deleted: len(deleted)}
	rep.Findings = fileIssues(g, file)
	nIssues := len(rep.Findings)
	inFile := map[string]item{}
	for _, e := range g.Entities {
		inFile[item{kind: "entity", entity: e.Name}.key()] = item{kind: "entity", entity: e.Name}
		for _, o := range e.Observations {
			it := item{kind: "observation", entity: e.Name, text: o}
			inFile[it.key()] = it
		}
	}
	for _, r := range g.Relations {
		it := item{kind: "relation", from: r.From, rel: r.RelationType, to: r.To}
		inFile[it.key()] = it
	}
	rep.InFile = len(inFile)
	var unexplained, absent []item
	for k, it := range inFile {
		switch _, isLive := live[k]; {
		case isLive:
			rep.Matched++
		case isDeleted(deleted, k):
			rep.Findings = append(rep.Findings, finding.New(finding.MCPDeletedPresent, file, it.String()+" is in the server's file, but its recorded write was deleted by a signed tombstone: restored or never deleted by the server"))
		default:
			unexplained = append(unexplained, it)
		}
	}
	for k, it := range live {
		if _, ok := inFile[k]; !ok {
			absent = append(absent, it)
		}
	}
	rep.Findings = append(rep.Findings, pairEdits(file, unexplained, absent)...)
	// The file's own issues stay first, in line order; the
	// reconciliation's follow, by code and message.
	recon := rep.Findings[nIssues:]
	sort.SliceStable(recon, func(i, j int) bool {
		a, b := recon[i], recon[j]
		if a.Code != b.Code {
			return a.Code < b.Code
		}
		return a.Message < b.Message
	})
	return rep, nil
}

// pairEdits reports an unexplained observation and a missing recorded
// one of the same entity as one edit; the rest as written around the
// gateway or removed behind it.
func pairEdits(file string, unexplained, absent []item) []finding.Finding {
	var out []finding.Finding
	used := map[int]bool{}
	sort.Slice(unexplained, func(i, j int) bool { return unexplained[i].key() < unexplained[j].key() })
	sort.Slice(absent, func(i, j int) bool { return absent[i].key() < absent[j].key() })
	for _, u := range unexplained {
		paired := false
		if u.kind == "observation" {
			for j, a := range absent {
				if !used[j] && a.kind == "observation" && a.entity == u.entity {
					used[j], paired = true, true
					out = append(out, finding.New(finding.MCPObservationEdited, file, fmt.Sprintf("observation of \"%s\" reads \"%s\" in the server's file; the recorded write was \"%s\"", u.entity, u.text, a.text)))
					break
				}
			}
		}
		if !paired {
			out = append(out, finding.New(finding.MCPUnrecorded, file, u.String()+" is in the server's file but no recorded write explains it: written around the gateway"))
		}
	}
	for j, a := range absent {
		if !used[j] {
			out = append(out, finding.New(finding.MCPRecordedAbsent, file, a.String()+" was recorded (and not deleted) but is not in the server's file: removed behind the gateway"))
		}
	}
	return out
}

func isDeleted(deleted map[string]item, k string) bool {
	_, ok := deleted[k]
	return ok
}
