package scenario

import (
	"fmt"
	"path/filepath"
	"slices"

	"github.com/memscope/memscope/diff"
	"github.com/memscope/memscope/evidence"
	"github.com/memscope/memscope/evidence/record"
	"github.com/memscope/memscope/evidence/writer"
	"github.com/memscope/memscope/replay"
)

// IncidentPhases names the phases of the incident scenario, oldest first.
var IncidentPhases = []string{"clean", "compromise", "acted", "cleanup"}

// IncidentPhaseFile is the snapshot file of phase i (0-based). The last
// phase is the scenario's snapshot.db.
func IncidentPhaseFile(i int) string {
	if i == len(IncidentPhases)-1 {
		return evidence.SnapshotFile
	}
	return fmt.Sprintf("phase-%d-%s.db", i+1, IncidentPhases[i])
}

// IncidentQuerySuffix is appended to the query ids recorded in a phase
// (the clean phase's queries end in "-clean", the acted phase's in
// "-acted").
func IncidentQuerySuffix(phase string) string { return "-" + phase }

// buildIncident writes one store in four phases with a snapshot after
// each: clean use; a compromised peer's no-source writes, interleaved with
// honest indexing, one of which first flips the born-first query; the
// agent querying again and paying on the flipped selection; and a cleanup
// that tombstones the fraudulent payee record and silently deletes an
// entry. The manifest names the first flipping write and what each phase
// added.
// incidentPhases records the incident's phase snapshots: what each phase
// added to every table, tombstoned and deleted silently.
type incidentPhases struct {
	e                  *env
	phases             []evidence.Phase
	mark               map[string]int
	tombstoned, silent []string
}

// end checkpoints the log, records phase i and (but for the last, which is
// the store itself) copies the store to the phase's snapshot file.
func (ip *incidentPhases) end(i int) error {
	e := ip.e
	if _, err := e.st.Checkpoint(int64(e.tick())); err != nil {
		return err
	}
	p := evidence.Phase{Name: IncidentPhases[i], Snapshot: IncidentPhaseFile(i), LogSize: e.st.LogSize(), Added: map[string][]string{},
		Tombstoned: append([]string{}, ip.tombstoned...), SilentlyDeleted: append([]string{}, ip.silent...)}
	for _, table := range []string{"entries", "writes", "principals", "tombstones", "queries", "actions"} {
		p.Added[table] = append([]string{}, e.added[table][ip.mark[table]:]...)
		ip.mark[table] = len(e.added[table])
	}
	ip.tombstoned, ip.silent = nil, nil
	ip.phases = append(ip.phases, p)
	if i == len(IncidentPhases)-1 {
		return nil
	}
	return e.st.SnapshotTo(filepath.Join(e.dir, p.Snapshot))
}

func buildIncident(e *env, _ Options) ([]string, string, error) {
	ip := &incidentPhases{e: e, mark: map[string]int{}}
	queryTimes := func(int) int64 { return int64(e.tick()) }

	// Phase 1: clean use.
	e.deferQueries = true
	if err := e.base(); err != nil {
		return nil, "", err
	}
	if err := e.recordQueriesAs(IncidentQuerySuffix("clean"), queryTimes); err != nil {
		return nil, "", err
	}
	if err := ip.end(0); err != nil {
		return nil, "", err
	}
	// Phase 2: a registered peer is compromised and writes no-source edges.
	first, firstLeaf, err := incidentInjection(e)
	if err != nil {
		return nil, "", err
	}
	if err := ip.end(1); err != nil {
		return nil, "", err
	}
	// Phase 3: the agent queries again and pays on the flipped selection.
	if err := e.recordQueriesAs(IncidentQuerySuffix("acted"), queryTimes); err != nil {
		return nil, "", err
	}
	if err := e.action(writer.Action{ID: "act-pay-fowler", Tool: "transfer_funds", Params: map[string]string{"recipient": "Karen Joy Fowler, account 7731", "amount": "1000"},
		Justification: []record.ID{e.id("payee-fowler"), e.id("note-prize")}, Dispatched: true, TS: int64(e.tick()), Query: e.man.Attack.Query,
		Sources: map[string]writer.ParamSources{"recipient": {From: e.ids("payee-fowler")}, "amount": {From: e.ids("note-prize")}}}); err != nil {
		return nil, "", err
	}
	// Read on the last phase: payee-fowler is tombstoned by then, so the
	// justification names an entry no longer in the store (IFC and
	// MemLineage refuse it), and on G_auth its passage is not selected.
	e.expectAction("act-pay-fowler", "allow", "deny", "deny", "substitute")
	if err := ip.end(2); err != nil {
		return nil, "", err
	}
	if err := incidentCleanup(e, ip); err != nil {
		return nil, "", err
	}
	if err := ip.end(3); err != nil {
		return nil, "", err
	}
	e.man.Phases = ip.phases
	return []string{"LEAF_WITHOUT_RECORD", "PARENT_MISSING"}, fmt.Sprintf("four phase snapshots; replay --first-flip names %s (leaf %d) for %s; diff between phases 3 and 4 accepts the tombstone of payee-fowler and reports the silent deletion of search-estate as an error.", first, firstLeaf, e.man.Attack.Query), nil
}

// incidentInjection is phase 2: a registered peer is compromised and
// writes no-source edges; the indexer keeps writing honestly in between.
// It answers the first injected write that flips the target query, and
// its leaf, and records the attack in the manifest.
func incidentInjection(e *env) (string, int64, error) {
	if err := e.register("agent:peer", record.ChannelAuthenticated); err != nil {
		return "", 0, err
	}
	target := queries[0]
	reset, _ := resetOf(target)
	var injected []string
	var first string
	var firstLeaf int64
	steps := []struct {
		src, dst, writer string
		weight           float64
		source           string // "" : no-source
	}{
		{entityNode("Argentina"), passageNode("argentina"), "agent:peer", 2, ""},
		{entityNode("Bruce Chatwin"), passageNode("songlines"), "agent:indexer", 1, "songlines"},
		{entityNode("Bruce Chatwin"), passageNode("payee-fowler"), "agent:peer", 60, ""},
		{entityNode("Karen Joy Fowler"), passageNode("payee-fowler"), "agent:peer", 60, ""},
		{entityNode("Boston"), passageNode("tdgarden"), "agent:indexer", 1, "tdgarden"},
	}
	for _, st := range steps {
		var src []record.ID
		if st.source != "" {
			src = []record.ID{e.id(st.source)}
		}
		leaf := int64(e.st.LogSize())
		id, err := e.writeID(record.KindRelation, st.src, st.dst, "related_to", st.weight, st.writer, src)
		if err != nil {
			return "", 0, err
		}
		if st.source == "" {
			injected = append(injected, id.String())
		}
		if first == "" {
			flipped, err := e.diverges(target.id, reset, injected)
			if err != nil {
				return "", 0, err
			}
			if flipped {
				first, firstLeaf = id.String(), leaf
			}
		}
	}
	if first == "" {
		return "", 0, fmt.Errorf("incident: no injected write flips %s", target.id)
	}
	e.man.Attack = &evidence.Attack{Query: target.id + IncidentQuerySuffix("acted"), Edges: injected, FirstWrite: first, FirstWriteLeaf: &firstLeaf}
	return first, firstLeaf, nil
}

// incidentCleanup is phase 4: the fraudulent payee record is deleted
// lawfully (a signed tombstone); the search result that named the real
// account is deleted silently, without one.
func incidentCleanup(e *env, ip *incidentPhases) error {
	ts := e.tick()
	t := &record.Tombstone{Target: e.id("payee-fowler"), Reason: "fraudulent payee record removed after the incident", Writer: "user", TS: ts, Nonce: e.nonce()}
	if err := e.st.Delete(e.ctx, t, e.key("user")); err != nil {
		return err
	}
	e.added["tombstones"] = append(e.added["tombstones"], t.Target.String())
	ip.tombstoned = append(ip.tombstoned, t.Target.String())
	gone := e.id("search-estate").String()
	if err := e.st.Exec("DELETE FROM entries WHERE eid = ?", gone); err != nil {
		return err
	}
	ip.silent = append(ip.silent, gone)
	// plan-pay derives from the silently deleted search result: with no
	// tombstone to vouch for it, lineage fails closed and the payment's
	// recipient is no longer authorised.
	e.expectAction("act-pay-chatwin", "allow", "allow", "deny", "not checked")
	return nil
}

// diverges says whether the query's top-5 on the graph as written so far
// differs (as a set) from the same graph without the injected writes.
func (e *env) diverges(id string, reset map[string]float64, injected []string) (bool, error) {
	g, err := replay.NewGraph(e.nodes, e.edges, replay.DropSelfLoops)
	if err != nil {
		return false, err
	}
	rp, err := replay.NewReplayer(g, replay.Config{Policy: everyEdge{}, K: 5})
	if err != nil {
		return false, err
	}
	w, err := rp.WhatIf(e.ctx, replay.Query{ID: id, Reset: reset, K: 5}, replay.BaseG, slices.Clone(injected), nil)
	if err != nil {
		return false, err
	}
	return w.VsG.Class == diff.Diverge, nil
}
