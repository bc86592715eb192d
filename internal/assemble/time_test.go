package assemble

import (
	"context"
	"slices"
	"testing"

	"github.com/memscope/memscope/internal/analyses/timeline"
	"github.com/memscope/memscope/lineage"
	"github.com/memscope/memscope/replay"
)

// timeOf is the replayer and timeline of an opened scenario.
func timeOf(t *testing.T, s *Session) (*replay.Replayer, *timeline.Timeline) {
	t.Helper()
	rp, err := s.Replayer(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	tl, err := s.Timeline(rp)
	if err != nil {
		t.Fatal(err)
	}
	return rp, tl
}

func TestBlastRadiusOfCompromisedPeer(t *testing.T) {
	s, m := open(t, "incident")
	rp, tl := timeOf(t, s)
	tr, err := timeline.NewReplay(rp, tl)
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.BlastRadius(context.Background(), tr, "principal:agent:peer", 0)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(b.Writes, m.Attack.Edges) {
		t.Fatalf("writes %v, the manifest's injected edges %v", b.Writes, m.Attack.Edges)
	}
	var qs []string
	for _, q := range b.Queries {
		qs = append(qs, q.Query)
		if !slices.Contains(q.Brought, "passage:payee-fowler") && q.Query == m.Attack.Query {
			t.Fatalf("%s: brought %v", q.Query, q.Brought)
		}
	}
	if !slices.Contains(qs, m.Attack.Query) || slices.Contains(qs, "q-born-first-clean") {
		t.Fatalf("queries changed %v", qs)
	}
	if !slices.Equal(b.Actions, []string{"act-pay-fowler"}) {
		t.Fatalf("actions %v", b.Actions)
	}
}

func TestAssumeCompromised(t *testing.T) {
	s, _ := open(t, "clean")
	rp, tl := timeOf(t, s)
	// The planner's entries become External: each of them changes label
	// (none was External), and the dispatched transfer it planned is now
	// refused by the gate.
	c, err := s.AssumeCompromised(context.Background(), rp, tl, "agent:planner", 0, DefaultTau)
	if err != nil {
		t.Fatal(err)
	}
	planner := s.EntriesBy("agent:planner", 0)
	if len(planner) == 0 || len(c.Entries) != len(planner) || len(c.Writes) != 0 {
		t.Fatalf("entries %d of %d, writes %d", len(c.Entries), len(planner), len(c.Writes))
	}
	changed := map[string]lineage.Trust{}
	for _, l := range c.Labels {
		changed[l.Entry] = l.Assume
	}
	for _, id := range planner {
		if changed[id] != lineage.External {
			t.Errorf("planner entry %s: assumed label %v, want External", id, changed[id])
		}
	}
	// In incident the search result behind plan-pay was deleted without a
	// tombstone, so lineage (fail-closed) already refuses act-pay-chatwin;
	// the verdict flip is seen on the clean store, where it is allowed.
	cs, _ := open(t, "clean")
	crp, err := cs.Replayer(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	ctl, err := cs.Timeline(crp)
	if err != nil {
		t.Fatal(err)
	}
	cc, err := cs.AssumeCompromised(context.Background(), crp, ctl, "agent:planner", 0, DefaultTau)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(cc.Verdicts, func(v VerdictChange) bool {
		return v.Action == "act-pay-chatwin" && v.Now == "allow" && v.Assume != "allow"
	}) {
		t.Fatalf("verdicts %+v", cc.Verdicts)
	}
	// The indexer assumed compromised from the start: every edge it wrote
	// leaves G_auth, so some query's class changes.
	c, err = s.AssumeCompromised(context.Background(), rp, tl, "agent:indexer", 0, DefaultTau)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Writes) == 0 || len(c.Classes) == 0 {
		t.Fatalf("indexer: %d writes, classes %+v", len(c.Writes), c.Classes)
	}
}

// A principal with no records after the moment changes nothing, also in a
// store whose lineage names a parent deleted without a tombstone (the
// rebuilt lineage must keep that parent reference as the original does).
func TestAssumeCompromisedNothingChanges(t *testing.T) {
	s, _ := open(t, "incident")
	rp, tl := timeOf(t, s)
	for _, who := range []string{"tool:search", "agent:peer", "agent:planner"} {
		c, err := s.AssumeCompromised(context.Background(), rp, tl, who, 1<<62, DefaultTau)
		if err != nil {
			t.Fatal(err)
		}
		if len(c.Labels)+len(c.Verdicts)+len(c.Classes)+len(c.Writes)+len(c.Entries) != 0 {
			t.Fatalf("%s: nothing after the moment, yet %+v", who, c)
		}
	}
}
