package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const hippoFixtures = "../../testdata/hipporag"

// treeDigest hashes every file under dir (names, modes and contents), so a
// test can prove a command wrote nothing next to the evidence.
func treeDigest(t *testing.T, dir string) [32]byte {
	t.Helper()
	h := sha256.New()
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		h.Write([]byte(p + "|" + info.Mode().String() + "\n"))
		if d.Type().IsRegular() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			h.Write(b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var sum [32]byte
	copy(sum[:], h.Sum(nil))
	return sum
}

func runCmd(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := run(context.Background(), args, &out, &errb)
	return code, out.String(), errb.String()
}

// memscope replay on a poisoned HippoRAG 2 save directory: detected by its
// contents, IFC-blind (exit 1), unsigned said in text and JSON, never
// "verified", and the evidence directory is byte-for-byte unchanged.
func TestNativeReplayHippoRAG(t *testing.T) {
	store := filepath.Join(hippoFixtures, "poisoned")
	queries := filepath.Join(hippoFixtures, "queries.jsonl")
	before := treeDigest(t, hippoFixtures)
	code, out, errs := runCmd("replay", store, "--queries", queries)
	if code != exitFindings {
		t.Fatalf("exit %d, want %d (IFC-blind row); stderr %s", code, exitFindings, errs)
	}
	for _, want := range []string{"unsigned store: provenance declared by the store's own fields", "q-born-first", "DIVERGE", "YES"} {
		if !strings.Contains(out, want) {
			t.Errorf("text output lacks %q:\n%s", want, out)
		}
	}
	code, out, errs = runCmd("replay", store, "--format", "hipporag", "--queries", queries, "--json")
	if code != exitFindings {
		t.Fatalf("--json: exit %d; stderr %s", code, errs)
	}
	var doc struct {
		Store struct {
			Format     string   `json:"format"`
			Notice     string   `json:"notice"`
			NotChecked []string `json:"not_checked"`
		} `json:"store"`
		Findings []struct {
			Code string `json:"code"`
		} `json:"findings"`
		Rows []struct {
			Class    string   `json:"class"`
			IFCBlind bool     `json:"ifc_blind"`
			Culprits []string `json:"culprits"`
		} `json:"rows"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Store.Format != "hipporag" || !strings.Contains(doc.Store.Notice, "unsigned store") || len(doc.Store.NotChecked) == 0 {
		t.Errorf("store description %+v", doc.Store)
	}
	if len(doc.Findings) == 0 || doc.Findings[0].Code != "STORE_UNSIGNED" {
		t.Errorf("findings %+v, want STORE_UNSIGNED first", doc.Findings)
	}
	if len(doc.Rows) != 1 || doc.Rows[0].Class != "DIVERGE" || !doc.Rows[0].IFCBlind || len(doc.Rows[0].Culprits) != 2 {
		t.Errorf("rows %+v", doc.Rows)
	}
	if strings.Contains(strings.ToLower(out), "verified") {
		t.Errorf("native output says verified:\n%s", out)
	}
	if after := treeDigest(t, hippoFixtures); after != before {
		t.Error("the fixture directory changed: something was written next to the evidence")
	}
}

// Usage errors a responder can act on.
func TestNativeReplayUsage(t *testing.T) {
	store := filepath.Join(hippoFixtures, "clean")
	if code, _, errs := runCmd("replay", store); code != exitUsage || !strings.Contains(errs, "--queries") {
		t.Errorf("no --queries: exit %d, stderr %q", code, errs)
	}
	if code, _, errs := runCmd("replay", store, "--log", "x", "--queries", "q.jsonl"); code != exitUsage || !strings.Contains(errs, "no Merkle log") {
		t.Errorf("--log on a native store: exit %d, stderr %q", code, errs)
	}
	if code, _, errs := runCmd("replay", store, "--format", "nosuch"); code != exitUsage || !strings.Contains(errs, "unknown store format") {
		t.Errorf("bad --format: exit %d, stderr %q", code, errs)
	}
}

// Every format is detected by its contents and analysed; the injected
// no-source write is the one culprit in each poisoned graph store.
func TestNativeFormats(t *testing.T) {
	stores := "../../testdata"
	for _, c := range []struct{ format, dir, culprit string }{
		{"graphrag", "graphrag", "injected-fowler-acme"},
		{"lightrag", "lightrag", "Acme Holdings--Karen Joy Fowler"},
	} {
		base := filepath.Join(stores, c.dir)
		code, out, errs := runCmd("replay", filepath.Join(base, "poisoned"), "--queries", filepath.Join(base, "queries.jsonl"), "--json")
		if code != exitFindings {
			t.Fatalf("%s: exit %d, stderr %s", c.format, code, errs)
		}
		var doc struct {
			Store struct{ Format string } `json:"store"`
			Rows  []struct {
				Class    string   `json:"class"`
				Culprits []string `json:"culprits"`
			} `json:"rows"`
		}
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatal(err)
		}
		if doc.Store.Format != c.format || len(doc.Rows) != 1 || doc.Rows[0].Class != "DIVERGE" || len(doc.Rows[0].Culprits) != 1 || doc.Rows[0].Culprits[0] != c.culprit {
			t.Errorf("%s: %+v", c.format, doc)
		}
	}
	smsrDir := filepath.Join(stores, "smsrdb")
	code, out, _ := runCmd("verify", filepath.Join(smsrDir, "memories.db"), "--hmac-key", filepath.Join(smsrDir, "hmac.key"))
	if code != exitFindings || !strings.Contains(out, "SMSR_TAG_AT_OTHER_TIME") || !strings.Contains(out, "HMAC_WRONG") || !strings.Contains(out, "certificate: m=20 k=5 n=5 t=2") {
		t.Errorf("smsr verify: exit %d\n%s", code, out)
	}
	code, out, _ = runCmd("verify", filepath.Join(smsrDir, "memories.db"))
	if code != exitOK || !strings.Contains(out, "no --hmac-key given: tags not checked") {
		t.Errorf("smsr verify without a key: exit %d\n%s", code, out)
	}
	code, out, _ = runCmd("lineage", filepath.Join(stores, "mem0db/history.db"), "m1")
	if code != exitOK || !strings.Contains(out, "memory m1 (DELETED)") || strings.Contains(out, "memory m2") {
		t.Errorf("mem0 lineage m1: exit %d\n%s", code, out)
	}
}

// import --from keeps a signed copy whose replay tells the same story as
// the native store: DIVERGE, IFC-blind, the two injected edges as culprits.
// The importer signs the graph, not the queries or node declarations it
// was given, so the copy's replay labels those rows unsigned.
func TestImportFromHippoRAG(t *testing.T) {
	out := filepath.Join(t.TempDir(), "copy")
	before := treeDigest(t, hippoFixtures)
	code, stdout, errs := runCmd("import", "--from", "hipporag", filepath.Join(hippoFixtures, "poisoned"),
		"--queries", filepath.Join(hippoFixtures, "queries.jsonl"), "--out", out)
	if code != exitOK || !strings.Contains(stdout, "tool:hipporag-unsourced") {
		t.Fatalf("import: exit %d\n%s\n%s", code, stdout, errs)
	}
	code, stdout, errs = runCmd("replay", filepath.Join(out, "snapshot.db"), "--log", filepath.Join(out, "log"), "--anchors", filepath.Join(out, "scenario.json"), "--json")
	if code != exitFindings {
		t.Fatalf("replay of the copy: exit %d, %s", code, errs)
	}
	var rows []struct {
		Class    string   `json:"class"`
		IFCBlind bool     `json:"ifc_blind"`
		Culprits []string `json:"culprits"`
		Coverage string   `json:"coverage"`
	}
	if err := json.Unmarshal([]byte(stdout), &rows); err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 || rows[0].Class != "DIVERGE" || !rows[0].IFCBlind || len(rows[0].Culprits) != 2 {
		t.Errorf("copy's replay %+v", rows)
	}
	if len(rows) == 1 && rows[0].Coverage != "unsigned" {
		t.Errorf("imported query labelled %q, want unsigned", rows[0].Coverage)
	}
	var doc any
	json.Unmarshal([]byte(stdout), &doc)
	labels := map[string]int{}
	coverageValues(doc, labels)
	if labels["unsigned"] < 2 || len(labels) != 1 {
		t.Errorf("imported copy's replay labels %v", labels)
	}
	_, text, _ := runCmd("replay", filepath.Join(out, "snapshot.db"), "--log", filepath.Join(out, "log"), "--anchors", filepath.Join(out, "scenario.json"))
	if !strings.Contains(text, "queries: unsigned") || !strings.Contains(text, "nodes: unsigned") {
		t.Errorf("imported copy's replay text lacks the unsigned notes:\n%s", text)
	}
	if after := treeDigest(t, hippoFixtures); after != before {
		t.Error("import wrote next to the evidence")
	}
}

// The inspector opens a native store with its queries, reads nothing it
// should not, writes nothing next to it, and refuses what cannot apply.
func TestInspectNativeStore(t *testing.T) {
	before := treeDigest(t, hippoFixtures)
	ctx := context.Background()
	src, err := openNativeInspector(ctx, filepath.Join(hippoFixtures, "poisoned"), "", nativeQueries{file: filepath.Join(hippoFixtures, "queries.jsonl")}, evidenceFlags{}, certFlags{}, false)
	if err != nil {
		t.Fatal(err)
	}
	if ov := src.Overview(); !ov.Unsigned || ov.Queries != 1 {
		t.Errorf("overview %+v", ov)
	}
	for _, c := range []struct {
		name    string
		format  string
		path    string
		queries string
		ef      evidenceFlags
		want    string
	}{
		{"hmac key on a graph store", "", filepath.Join(hippoFixtures, "clean"), "", evidenceFlags{anchorFlags: anchorFlags{hmacKey: "00"}}, "carry no HMAC tags"},
		{"log on a native store", "", filepath.Join(hippoFixtures, "clean"), "", evidenceFlags{log: "x"}, "no Merkle log"},
		{"queries on mem0", "", "../../testdata/mem0db/history.db", filepath.Join(hippoFixtures, "queries.jsonl"), evidenceFlags{}, "keep no graph"},
		{"wrong format forced", "smsr", filepath.Join(hippoFixtures, "clean"), "", evidenceFlags{}, ""},
	} {
		_, err := openNativeInspector(ctx, c.path, c.format, nativeQueries{file: c.queries}, c.ef, certFlags{}, false)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v", c.name, err)
		}
	}
	if code, _, errs := runCmd("inspect", filepath.Join(hippoFixtures, "clean"), "--log", "x"); code != exitUsage || !strings.Contains(errs, "no Merkle log") {
		t.Errorf("inspect --log on a native store: exit %d, %q", code, errs)
	}
	if after := treeDigest(t, hippoFixtures); after != before {
		t.Error("the inspector wrote next to the evidence")
	}
}

// --query-embeddings rebuilds HippoRAG 2's reset vectors, says what it does
// not reproduce, and is refused where it cannot apply.
func TestReplayQueryEmbeddings(t *testing.T) {
	qe := filepath.Join(hippoFixtures, "query_embeddings.jsonl")
	code, out, errs := runCmd("replay", filepath.Join(hippoFixtures, "poisoned"), "--query-embeddings", qe, "--json")
	if code != exitFindings && code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var doc struct {
		Store struct {
			Notes []string          `json:"notes"`
			Files []json.RawMessage `json:"files"`
		} `json:"store"`
		Rows []struct {
			QueryID string `json:"query"`
			Class   string `json:"class"`
		} `json:"rows"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Rows) != 2 || doc.Rows[0].QueryID == "" || !strings.Contains(strings.Join(doc.Store.Notes, " "), "rerank_filter") || !strings.Contains(out, "vdb_fact.parquet") {
		t.Errorf("rows %+v, notes %q", doc.Rows, doc.Store.Notes)
	}
	for _, c := range [][]string{
		{"replay", filepath.Join(hippoFixtures, "poisoned"), "--query-embeddings", qe, "--queries", filepath.Join(hippoFixtures, "queries.jsonl")},
		{"replay", "../../testdata/lightrag/clean", "--query-embeddings", qe},
	} {
		if code, _, errs := runCmd(c...); code != exitUsage || errs == "" {
			t.Errorf("%v: exit %d", c, code)
		}
	}
}

// SMSR's certificate parameters: inspect and verify take --smsr-m/-k/-n
// and certify's --m/--k/--n, refuse them for other stores and refuse
// values the certificate is not defined for, before any screen opens.
func TestSMSRCertFlags(t *testing.T) {
	dir := filepath.Join("..", "..", "testdata", "smsrdb")
	db, key := filepath.Join(dir, "memories.db"), filepath.Join(dir, "hmac.key")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"inspect", db, "--hmac-key", key, "--smsr-k", "30"}, "need 0 < k <= m"},
		{[]string{"inspect", db, "--k", "0"}, "need 0 < k <= m"},
		{[]string{"inspect", db, "--n", "x"}, "want an integer"},
		{[]string{"inspect", filepath.Join(hippoFixtures, "clean"), "--m", "10"}, "hipporag stores have no SMSR certificate"},
		{[]string{"verify", filepath.Join(hippoFixtures, "clean"), "--smsr-m", "10"}, "hipporag stores have no SMSR certificate"},
	} {
		code, _, errs := runCmd(c.args...)
		if code != exitUsage || !strings.Contains(errs, c.want) {
			t.Errorf("%q: exit %d, %q; want usage error %q", c.args, code, errs, c.want)
		}
	}
	// certify's names and verify's agree.
	_, a, _ := runCmd("verify", db, "--hmac-key", key, "--m", "10", "--k", "3", "--n", "7")
	_, b, _ := runCmd("verify", db, "--hmac-key", key, "--smsr-m", "10", "--smsr-k", "3", "--smsr-n", "7")
	if !strings.Contains(a, "certificate: m=10 k=3 n=7") || a != b {
		t.Errorf("verify --m/--k/--n:\n%s\nverify --smsr-m/-k/-n:\n%s", a, b)
	}
	src, err := openNativeInspector(context.Background(), db, "", nativeQueries{}, evidenceFlags{anchorFlags: anchorFlags{hmacKey: key}}, certFlags{m: 10, k: 3, n: 7, set: true}, false)
	if err != nil {
		t.Fatal(err)
	}
	if notes := strings.Join(src.Overview().Notes, "\n"); !strings.Contains(notes, "SMSR certificate (m=10 k=3 n=7)") {
		t.Errorf("inspector overview:\n%s", notes)
	}
}

// memscope lineage on a graph store prints the provenance the store
// declares: every no-source write (the poisoned HippoRAG 2 fixture's two
// injected edges among them), and around the payee passage its writes with
// the no-source ones first and the writes elsewhere it sources.
func TestGraphStoreLineage(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(hippoFixtures, "expected.json"))
	if err != nil {
		t.Fatal(err)
	}
	var want struct {
		Injected []string `json:"injected_edges"`
		Payee    string   `json:"payee"`
	}
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	type write struct {
		Write    string   `json:"write"`
		Sources  []string `json:"sources_declared"`
		NoSource bool     `json:"no_source"`
	}
	var doc struct {
		Store    struct{ Format string } `json:"store"`
		Node     string                  `json:"node"`
		Touching []write                 `json:"touching"`
		Sourced  []write                 `json:"sourced"`
		NoSource []write                 `json:"no_source_writes"`
	}
	store := filepath.Join(hippoFixtures, "poisoned")
	code, out, errs := runCmd("lineage", store, "--json")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	noSource := map[string]bool{}
	for _, w := range doc.NoSource {
		if !w.NoSource || len(w.Sources) != 0 {
			t.Errorf("listed as no-source: %+v", w)
		}
		noSource[w.Write] = true
	}
	for _, e := range want.Injected {
		if !noSource[e] {
			t.Errorf("injected edge %s not among the no-source writes %v", e, doc.NoSource)
		}
	}
	code, out, errs = runCmd("lineage", store, want.Payee, "--json")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	doc.Touching, doc.Sourced = nil, nil
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Node != want.Payee || len(doc.Touching) < len(want.Injected)+1 || len(doc.Sourced) == 0 {
		t.Fatalf("payee lineage: %+v", doc)
	}
	for i, w := range doc.Touching {
		if w.NoSource != (i < len(want.Injected)) || (w.NoSource && !noSource[w.Write]) {
			t.Errorf("touching[%d] = %+v: want the %d no-source writes first", i, w, len(want.Injected))
		}
	}
	for _, w := range doc.Sourced {
		if !slices.Contains(w.Sources, want.Payee) {
			t.Errorf("sourced write %s does not name the payee: %v", w.Write, w.Sources)
		}
	}
	code, text, _ := runCmd("lineage", store, want.Payee)
	if code != exitOK || !strings.Contains(text, "unsigned") || !strings.Contains(text, "NO SOURCE") || strings.Contains(text, "verified") {
		t.Errorf("text: exit %d\n%s", code, text)
	}
	if code, _, errs := runCmd("lineage", store, "no-such-node"); code != exitUsage || !strings.Contains(errs, "no node") {
		t.Errorf("unknown node: exit %d, %s", code, errs)
	}
	if code, _, errs := runCmd("lineage", filepath.Join("../../testdata/smsrdb", "memories.db")); code != exitUsage || !strings.Contains(errs, "SMSR") {
		t.Errorf("smsr lineage: exit %d, %s", code, errs)
	}
}
