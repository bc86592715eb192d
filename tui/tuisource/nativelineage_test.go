package tuisource

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memscope/memscope/internal/readers/storemodel"
)

// The poisoned HippoRAG 2 store's Lineage view: the payee passage shows
// the two injected edges as no-source writes, every other edge with the
// passages the OpenIE results name as its sources, all captioned as the
// store's unsigned claim; a seed entity shows the same injected edge from
// its side; re-centring rows name real entries.
func TestNativeLineageGraph(t *testing.T) {
	t.Parallel()
	dir := filepath.Join("..", "..", "testdata", "hipporag")
	var exp struct {
		Payee    string   `json:"payee"`
		Injected []string `json:"injected_edges"`
	}
	b, err := os.ReadFile(filepath.Join(dir, "expected.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &exp); err != nil {
		t.Fatal(err)
	}
	n := openNative(t, filepath.Join(dir, "poisoned"), "", NativeOptions{Plain: true})
	lv, err := n.Lineage(context.Background(), exp.Payee, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(lv.Declared, storemodel.Unsigned) || len(lv.Rows) < 3 || lv.RowIDs[0] != exp.Payee || !strings.HasPrefix(lv.Rows[0], "@ [passage, listed by the store]") {
		t.Fatalf("declared %q rows %q ids %q", lv.Declared, lv.Rows, lv.RowIDs)
	}
	var noSrc, sourced int
	for i, r := range lv.Rows {
		if strings.Contains(r, "NO SOURCE") {
			noSrc++
			// A no-source write re-centres on the entity it was wired to.
			if j, ok := n.EntryIndex(lv.RowIDs[i]); !ok || n.st.Nodes[j].Kind != storemodel.KindEntity {
				t.Errorf("no-source row %q targets %q", r, lv.RowIDs[i])
			}
		}
		if strings.Contains(r, "source "+short(exp.Payee)+"  (this passage)") {
			sourced++
		}
	}
	if noSrc != 2 || sourced == 0 {
		t.Errorf("payee lineage: %d no-source rows (want the 2 injected edges), %d rows sourced by the passage itself:\n%s", noSrc, sourced, strings.Join(lv.Rows, "\n"))
	}
	if notes := strings.Join(lv.Notes, "\n"); !strings.Contains(notes, "2 edge(s) here name no source") {
		t.Errorf("notes %q", lv.Notes)
	}
	// The first seed entity of the injected pair: the injected edge leads
	// the list, then its fact edges, each with declared sources.
	ent := strings.TrimPrefix(exp.Injected[0], exp.Payee+"--")
	lv, err = n.Lineage(context.Background(), ent, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	if len(lv.Rows) < 3 || !strings.Contains(lv.Rows[1], "NO SOURCE") || lv.RowIDs[1] != exp.Payee {
		t.Errorf("entity lineage:\n%s\nids %q", strings.Join(lv.Rows, "\n"), lv.RowIDs)
	}
	for i, r := range lv.Rows {
		if strings.Contains(r, " source chunk-") {
			if _, ok := n.EntryIndex(lv.RowIDs[i]); !ok {
				t.Errorf("source row %q names %q, not an entry", r, lv.RowIDs[i])
			}
		}
	}
	// (The view's zero Explanation has a field named Unverified: check the text.)
	noVerified(t, "graph lineage", []any{lv.Declared, lv.Rows, lv.Notes})
}

// Mem0: a memory's version chain, oldest first, with who the store says
// made each change; the DELETE is drawn as a deletion with what it
// deleted; messages and SMSR rows say why there is nothing to draw.
func TestNativeLineageMem0AndSMSR(t *testing.T) {
	t.Parallel()
	n := openNative(t, filepath.Join("..", "..", "testdata", "mem0db", "history.db"), "", NativeOptions{})
	var m1 []string
	for _, v := range n.st.Versions {
		if v.MemoryID == "m1" {
			m1 = append(m1, v.ID)
		}
	}
	if len(m1) != 3 {
		t.Fatalf("fixture: m1 has %d events", len(m1))
	}
	lv, err := n.Lineage(context.Background(), m1[1], 0.5)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(lv.Declared, "memory m1") || !strings.Contains(lv.Declared, "DELETED") || !strings.Contains(lv.Declared, storemodel.Unsigned) {
		t.Errorf("declared %q", lv.Declared)
	}
	var events []string
	for i, id := range lv.RowIDs {
		if id == "" {
			continue
		}
		f := strings.Fields(lv.Rows[i])
		events = append(events, f[0]+" "+f[1])
	}
	if got := strings.Join(events, ","); got != "● ADD,◉ UPDATE,✖ DELETE" {
		t.Errorf("chain %q:\n%s", got, strings.Join(lv.Rows, "\n"))
	}
	if last := lv.Rows[len(lv.Rows)-1]; !strings.Contains(last, "by assistant") || !strings.Contains(last, "DELETED, was: ") || lv.RowIDs[len(lv.Rows)-1] != m1[2] {
		t.Errorf("delete row %q", last)
	}
	if lv.Center != 2 || lv.RowIDs[lv.Center] != m1[1] {
		t.Errorf("centre %d (%q)", lv.Center, lv.RowIDs)
	}
	// A chain with a finding carries it.
	for _, v := range n.st.Versions {
		if v.MemoryID == "m3" {
			lv, err = n.Lineage(context.Background(), v.ID, 0.5)
			if err != nil || !strings.Contains(strings.Join(lv.Notes, "\n"), "MEM0_CHAIN_STARTS_WITH_UPDATE") {
				t.Errorf("m3 lineage notes %q, %v", lv.Notes, err)
			}
		}
	}
	lv, err = n.Lineage(context.Background(), n.st.Messages[0].ID, 0.5)
	if err != nil || len(lv.Rows) != 0 || !strings.HasPrefix(lv.Declared, "nothing to draw") || !strings.Contains(strings.Join(lv.Notes, ""), "not versioned") {
		t.Errorf("message lineage %+v, %v", lv, err)
	}
	key, _ := hex.DecodeString("000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f")
	s := openNative(t, filepath.Join("..", "..", "testdata", "smsrdb", "memories.db"), "", NativeOptions{HMACKey: key})
	lv, err = s.Lineage(context.Background(), s.Entry(0).ID, 0.5)
	if err != nil || len(lv.Rows) != 0 || !strings.Contains(strings.Join(lv.Notes, ""), "no column names an earlier version") {
		t.Errorf("smsr lineage %+v, %v", lv, err)
	}
}
