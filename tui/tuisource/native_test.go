package tuisource

import (
	"context"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memscope/memscope/internal/analyses/smsr"
	"github.com/memscope/memscope/internal/analyses/storereplay"
	"github.com/memscope/memscope/internal/generators/graphfile"
	"github.com/memscope/memscope/internal/present/finding"
	stores "github.com/memscope/memscope/internal/readers"
	"github.com/memscope/memscope/internal/readers/smsrdb"
	"github.com/memscope/memscope/internal/readers/storemodel"
	"github.com/memscope/memscope/tui"
)

func openNative(t *testing.T, path string, queries string, o NativeOptions) *Native {
	t.Helper()
	st, err := stores.Open(context.Background(), path, "")
	if err != nil {
		t.Fatal(err)
	}
	if queries != "" {
		g, _, err := storereplay.Graph(st)
		if err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(queries)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		raw, err := graphfile.ReadQueries(queries, f, graphfile.JSONL)
		if err != nil {
			t.Fatal(err)
		}
		if o.Queries, err = storereplay.Queries(g, queries, raw); err != nil {
			t.Fatal(err)
		}
	}
	n, err := NewNative(st, o)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func finishNative(t *testing.T, n *Native) tui.Progress {
	t.Helper()
	var last tui.Progress
	for p := range n.Verify(context.Background()) {
		last = p
	}
	if !last.Finished || last.Err != nil {
		t.Fatalf("verify: %+v", last)
	}
	return last
}

// noVerified fails when any output of the source says "verified": nothing
// in a native store is.
func noVerified(t *testing.T, what string, v any) {
	t.Helper()
	s := strings.ToLower(fmt.Sprintf("%+v", v))
	// The only "verified" allowed is the inclusion struct's field name, and
	// a native detail has no inclusion at all.
	if strings.Contains(s, "verified") {
		t.Errorf("%s says verified: %.300s", what, s)
	}
}

func codes(fs []finding.Finding) map[finding.Code]int {
	out := map[finding.Code]int{}
	for _, f := range fs {
		out[f.Code]++
	}
	return out
}

// The poisoned HippoRAG 2 fixture in the inspector: unsigned overview,
// the injected edges' endpoints flagged, the replay DIVERGE and IFC-blind
// with the two injected edges as culprits, and the what-if restoring G_auth.
func TestNativeHippoRAG(t *testing.T) {
	t.Parallel()
	dir := filepath.Join("..", "..", "testdata", "hipporag")
	n := openNative(t, filepath.Join(dir, "poisoned"), filepath.Join(dir, "queries.jsonl"), NativeOptions{})
	ov := n.Overview()
	if !ov.Unsigned || ov.LogSize != 0 || len(ov.Anchors) != 0 || !strings.Contains(strings.Join(ov.Notes, "\n"), storemodel.Unsigned) {
		t.Errorf("overview %+v", ov)
	}
	if ov.Entries != n.EntryCount() || ov.Queries != 1 {
		t.Errorf("overview counts %+v, %d rows", ov, n.EntryCount())
	}
	flagged := 0
	for i := 0; i < n.EntryCount(); i++ {
		r := n.Entry(i)
		if r.Recorded != 3 || r.Recomputed != 3 {
			t.Fatalf("row %d carries a trust label of its own: %+v", i, r)
		}
		if r.Problem == "NO-SRC EDGE" {
			flagged++
		}
	}
	if flagged == 0 {
		t.Error("no node is flagged for an unexplained edge")
	}
	p := finishNative(t, n)
	c := codes(p.Findings)
	if c[finding.StoreUnsigned] != 1 || c[finding.ReplayIFCBlind] != 1 || c[finding.StoreEdgeUnexplained] == 0 {
		t.Errorf("findings %v", c)
	}
	v, err := n.Replay(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	row := v.Rows[0]
	if row.Class != "DIVERGE" || !row.IFCBlind || row.Culprits == nil || len(row.Culprits.Set) != 2 {
		t.Fatalf("replay row %+v", row)
	}
	var culprits []string
	for _, c := range row.Culprits.Set {
		culprits = append(culprits, c.EdgeID)
	}
	un := v.Unauthenticated[row.QueryID]
	if len(un) < 2 || un[0].ID != culprits[0] || !un[0].NoSource {
		t.Errorf("what-if list %+v, culprits %v", un, culprits)
	}
	w, err := n.WhatIf(context.Background(), row.QueryID, culprits)
	if err != nil {
		t.Fatal(err)
	}
	if w.VsGAuth.Class != "SAME" {
		t.Errorf("removing the culprits gives %s against G_auth", w.VsGAuth.Class)
	}
	i, ok := n.EntryIndex(culprits[0][:strings.Index(culprits[0], "--")])
	if !ok {
		t.Fatalf("culprit endpoint %s is not an entry", culprits[0])
	}
	d, err := n.EntryDetail(context.Background(), i)
	if err != nil {
		t.Fatal(err)
	}
	if d.Signature != tui.Unknown || d.Inclusion != nil || !strings.Contains(d.SigNote, "unsigned") {
		t.Errorf("detail checks %+v", d)
	}
	edge := false
	for _, f := range d.Fields {
		edge = edge || strings.HasPrefix(f.Name, "edge ") && strings.Contains(f.Value, "no-source")
	}
	if !edge {
		t.Errorf("detail lists no no-source edge: %+v", d.Fields)
	}
	if lv, err := n.Lineage(context.Background(), d.Row.ID, 0.5); err != nil || !strings.Contains(lv.Declared, "unsigned") || len(lv.Rows) < 2 {
		t.Errorf("lineage: %+v, %v", lv, err)
	}
	for what, out := range map[string]any{"overview": ov, "findings": p.Findings, "detail": d, "replay": v, "what-if": w} {
		noVerified(t, what, out)
	}
}

// Mem0 in the inspector: one row per history event with the store's
// claimed actor, chains with warnings flagged, the chain in the detail.
func TestNativeMem0(t *testing.T) {
	t.Parallel()
	n := openNative(t, filepath.Join("..", "..", "testdata", "mem0db", "history.db"), "", NativeOptions{})
	if n.EntryCount() != 8+22 {
		t.Fatalf("%d rows", n.EntryCount())
	}
	problems := map[string]bool{}
	for i := 0; i < n.EntryCount(); i++ {
		if r := n.Entry(i); r.Problem != "" {
			problems[r.Problem] = true
		}
	}
	if !problems["NO ADD"] || !problems["ORDER?"] || !problems["OVER 10"] {
		t.Errorf("problems %v", problems)
	}
	p := finishNative(t, n)
	if c := codes(p.Findings); c[finding.Mem0Deleted] != 1 || c[finding.Mem0ChainStartsUpdate] != 1 || c[finding.Mem0EventsOutOfOrder] != 1 || c[finding.Mem0MessagesOverLimit] != 1 {
		t.Errorf("findings %v", c)
	}
	d, err := n.EntryDetail(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	chain := 0
	for _, f := range d.Fields {
		if strings.HasPrefix(f.Name, "chain ") {
			chain++
		}
	}
	if chain != 3 {
		t.Errorf("memory m1's chain has %d versions in the detail, want 3: %+v", chain, d.Fields)
	}
	if _, err := n.Replay(context.Background()); err == nil {
		t.Error("a Mem0 store replayed")
	}
	noVerified(t, "mem0 detail", d)
	noVerified(t, "mem0 overview", n.Overview())
}

// SMSR in the inspector: tags are checked under the key only when one is
// given, and the quirk rows count as intact.
func TestNativeSMSR(t *testing.T) {
	t.Parallel()
	path := filepath.Join("..", "..", "testdata", "smsrdb", "memories.db")
	n := openNative(t, path, "", NativeOptions{})
	finishNative(t, n)
	for i := 0; i < n.EntryCount(); i++ {
		if r := n.Entry(i); r.Status != tui.Unknown {
			t.Fatalf("row %d checked without a key: %+v", i, r)
		}
	}
	key, _ := hex.DecodeString("000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f")
	n = openNative(t, path, "", NativeOptions{HMACKey: key, Tags: smsrdb.CheckOptions{Window: 60_000}})
	p := finishNative(t, n)
	var got []string
	for i := 0; i < n.EntryCount(); i++ {
		r := n.Entry(i)
		got = append(got, r.Status.String()+" "+r.Problem)
	}
	want := []string{"ok ", "ok ", "ok ", "FAIL NO HMAC", "FAIL HMAC?"}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("rows %q, want %q", got, want)
	}
	if c := codes(p.Findings); c[finding.SMSRTagAtOtherTime] != 2 || c[finding.HMACWrong] != 1 || c[finding.HMACMissing] != 1 {
		t.Errorf("findings %v", c)
	}
	if notes := strings.Join(n.Overview().Notes, "\n"); !strings.Contains(notes, "SMSR certificate (m=20 k=5 n=5") || !strings.Contains(notes, "t=2 failing") {
		t.Errorf("overview notes:\n%s", notes)
	}
	// Other certificate parameters (inspect --smsr-m/-k/-n): the same t,
	// the certificate SMSR defines for them.
	n = openNative(t, path, "", NativeOptions{HMACKey: key, Tags: smsrdb.CheckOptions{Window: 60_000}, Cert: CertParams{M: 10, K: 3, N: 7}})
	before := strings.Join(n.Overview().Notes, "\n")
	finishNative(t, n)
	c, err := smsr.Certify(10, 3, 7, 2)
	if err != nil {
		t.Fatal(err)
	}
	want10 := fmt.Sprintf("SMSR certificate (m=10 k=3 n=7; --smsr-m/-k/-n to change): t=2 failing rows, p_clean %.4f, delta %.4f", c.PClean, c.Delta)
	if notes := strings.Join(n.Overview().Notes, "\n"); !strings.Contains(notes, want10) {
		t.Errorf("overview notes:\n%s\nwant %q", notes, want10)
	}
	if !strings.Contains(before, "SMSR certificate (m=10 k=3 n=7): not computed yet") {
		t.Errorf("before the check, overview notes:\n%s", before)
	}
	d, _ := n.EntryDetail(context.Background(), 0)
	if d.HMAC != tui.OK || !strings.Contains(d.HMACNote, "second time.time()") {
		t.Errorf("detail %q", d.HMACNote)
	}
	noVerified(t, "smsr detail", d)
}
