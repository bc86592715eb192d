package assemble

import (
	"context"
	"database/sql"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/memscope/memscope/evidence"
	"github.com/memscope/memscope/internal/evidencetest"

	"github.com/memscope/memscope/evidence/record"
	"github.com/memscope/memscope/internal/analyses/defences"
	"github.com/memscope/memscope/internal/generators/scenario"
	"github.com/memscope/memscope/internal/present/finding"
	"github.com/memscope/memscope/lineage"
	"github.com/memscope/memscope/replay"
)

// Channel promotion (issue 23, item 3): agent:courier's last registration
// is authenticated, but its entry and its edge were logged while it was on
// the unauthenticated channel; they keep that channel for IFC and G_auth.
func TestChannelAtWriteTime(t *testing.T) {
	s, _ := open(t, "channel-promotion")
	rep := mustVerify(t, s)
	if !rep.OK {
		t.Fatalf("channel-promotion does not verify: %+v", rep.Findings)
	}
	if rep.Channels["agent:courier"] != record.ChannelAuthenticated {
		t.Fatalf("premise: the courier's last registration is %q", rep.Channels["agent:courier"])
	}
	labels, err := s.Labels(DefaultTau, false)
	if err != nil {
		t.Fatal(err)
	}
	payee := ""
	for _, e := range held(s) {
		if e.Writer == "agent:courier" {
			payee = e.ID
		}
	}
	if l := s.entryLabel(rep, labels, payee); l.Authenticated || !strings.Contains(l.Why, "unauthenticated channel") {
		t.Errorf("courier entry label %+v: authenticated by a later registration", l)
	}
	rows, err := s.ActionVerdicts(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if r.Action == "act-pay-courier" && r.Verdicts[defences.IFC].Decision != defences.Deny {
			t.Errorf("IFC on act-pay-courier: %+v", r.Verdicts[defences.IFC])
		}
	}
	g, err := s.ReplayGraph(rep)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, e := range g.Edges() {
		if e.Prov.Writer != "agent:courier" {
			continue
		}
		found = true
		if e.Prov.Channel != replay.ChannelUnauthenticated {
			t.Errorf("courier edge %s->%s channel %q, want unauthenticated", e.Src, e.Dst, e.Prov.Channel)
		}
	}
	if !found {
		t.Fatalf("no courier edge %s -> %s in the replay graph", scenario.CourierEdgeSrc, scenario.CourierEdgeDst)
	}
}

// A tombstone that vouches for what it deletes (issue 23, item 4): the
// agent's claim that the laundered External root was a Trusted user entry
// is beyond its authority, so laundering is still found and the transfer
// refused; the tombstone that misstates a still-provable record is a
// finding of its own.
func TestTombstoneClaimsBoundedByAuthority(t *testing.T) {
	s, _ := open(t, "tombstone-vouch")
	mustVerify(t, s)
	sum, err := s.LineageSummary(DefaultTau, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.Laundering) != 2 {
		t.Errorf("laundering %+v, want graft-summary and graft-plan", sum.Laundering)
	}
	if len(sum.RefusedActions) != 1 || sum.RefusedActions[0].Action != "act-pay-7731" {
		t.Errorf("refused %+v, want act-pay-7731", sum.RefusedActions)
	}
	codes := map[finding.Code]int{}
	for _, f := range sum.Findings {
		codes[f.Code]++
	}
	if codes[finding.LineageTombstoneUnvouched] != 1 || codes[finding.LineageTombstoneMismatch] != 1 {
		t.Errorf("tombstone claim findings %v", codes)
	}
}

// The rule itself: who vouches for whose deleted entry.
func TestTombstoneVouchRule(t *testing.T) {
	s, _ := open(t, "channel-promotion")
	rep := mustVerify(t, s)
	ghost := func(w string) lineage.Ghost { return lineage.Ghost{Writer: w, Recorded: record.Trusted, Known: true} }
	var courier []int64
	for _, r := range rep.Registrations {
		if r.Principal == "agent:courier" {
			courier = append(courier, int64(r.Pos))
		}
	}
	if len(courier) != 2 {
		t.Fatalf("courier registrations at %v, want two", courier)
	}
	rows := []struct {
		by, claim string
		leaf      int64
		want      bool
	}{
		{"user", "agent:planner", -1, true},
		{"agent:planner", "agent:indexer", -1, true},
		{"agent:planner", "user", -1, false},
		{"tool:search", "agent:planner", -1, false},
		{"tool:search", "tool:search", -1, true},
		{"external:wiki", "user", -1, false},
		{"agent:shadow", "agent:planner", -1, false},
		// The courier before it was registered, and while unauthenticated,
		// vouches for no one; after its promotion, for agents.
		{"agent:courier", "agent:planner", courier[0], false},
		{"agent:courier", "agent:planner", courier[0] + 1, false},
		{"agent:courier", "agent:planner", courier[1] + 1, true},
	}
	for _, r := range rows {
		got, why := tombstoneVouches(rep, TombstoneRec{Writer: r.by, Leaf: r.leaf, Ghost: ghost(r.claim)})
		if got != r.want {
			t.Errorf("%s vouching for %s at leaf %d: %v (%s), want %v", r.by, r.claim, r.leaf, got, why, r.want)
		}
	}
}

// A structural write the log does not prove is unverified, so it is not
// in G_auth: one write row of clean claims another write's leaf (its own
// leaf then proves nothing about it). Both the full verification and the
// provenance pass replay uses give it the rule "not in the log" (issue
// 23, item 5).
func TestWriteNotInLogIsUnauthenticated(t *testing.T) {
	src := filepath.Join(scenarioDir, "clean")
	dst := evidencetest.CopyTree(t, src)
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dst, "snapshot.db"))
	if err != nil {
		t.Fatal(err)
	}
	var wid string
	if err := db.QueryRow("SELECT wid FROM writes ORDER BY seq LIMIT 1").Scan(&wid); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("UPDATE writes SET leaf_index = (SELECT leaf_index FROM writes ORDER BY seq LIMIT 1 OFFSET 1) WHERE wid = ?", wid); err != nil {
		t.Fatal(err)
	}
	db.Close()
	m, err := evidence.ReadManifest(dst)
	if err != nil {
		t.Fatal(err)
	}
	for _, full := range []bool{true, false} {
		s := openStore(t, dst, filepath.Join(dst, m.Snapshot), m, "")
		if full {
			if err := s.Load(context.Background(), nil); err != nil {
				t.Fatal(err)
			}
			mustVerify(t, s)
		}
		rp, err := s.Replayer(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		g := rp.Graph()
		found := false
		for i := range g.EdgeCount() {
			e := g.Edge(i)
			if e.ID != wid {
				continue
			}
			found = true
			l := rp.Label(i)
			if l.Authenticated || !slices.Contains(l.Failed, replay.RuleNotInLog) {
				t.Errorf("full %v: write %s label %+v, want unauthenticated: not in the log", full, wid, l)
			}
		}
		if !found {
			t.Fatalf("write %s not in the replay graph", wid)
		}
	}
}
