package main

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memscope/memscope/evidence"
	"github.com/memscope/memscope/evidence/snapshot"
	"github.com/memscope/memscope/internal/present/finding"
	stores "github.com/memscope/memscope/internal/readers"
	"github.com/memscope/memscope/internal/readers/storemodel"
	"github.com/memscope/memscope/loader"
)

// Every real store import supports is imported whole: no warning (the
// per-write data that once overflowed meta, 119,849 bytes of import ids
// for the 929 writes of a GraphRAG store, is kept in the signed
// import_notes table), one verified note per write, verify passing on the
// copy, and the store itself unchanged.
func TestImportEveryRealStore(t *testing.T) {
	ctx := context.Background()
	imported, overMeta := 0, 0
	for _, c := range realStoreCases(t) {
		name := filepath.Base(c)
		found, err := stores.Resolve(c)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		st, err := stores.Open(ctx, found.Path, found.Format)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if ok, _ := stores.Supports(st, storemodel.CmdImport); !ok {
			continue
		}
		before := treeDigest(t, c)
		out := filepath.Join(t.TempDir(), "imp")
		var so, se bytes.Buffer
		if code := run(ctx, []string{"import", "--from", string(found.Format), found.Path, "--out", out}, &so, &se); code != exitOK || se.Len() != 0 {
			t.Errorf("%s: import exit %d, stderr %q", name, code, se.String())
			continue
		}
		so.Reset()
		code := run(ctx, []string{"verify", "--json", filepath.Join(out, evidence.SnapshotFile), "--log", filepath.Join(out, evidence.LogDir),
			"--anchors", filepath.Join(out, evidence.ManifestFile)}, &so, &se)
		var doc struct {
			Findings []finding.Finding `json:"findings"`
		}
		if err := json.Unmarshal(so.Bytes(), &doc); err != nil || code != exitOK {
			t.Errorf("%s: verify of the import exit %d (%v): %v", name, code, err, errorsOf(doc.Findings))
		}
		n := checkNotes(t, name, filepath.Join(out, evidence.SnapshotFile))
		if n > snapshot.MaxMetaValue {
			overMeta++
		}
		t.Logf("%s: imported, verify exit %d, input ids %d bytes as a meta map", name, code, n)
		if name == "graphrag-michaelto20" {
			checkLabelInputIDs(t, name, out, st)
		}
		if treeDigest(t, c) != before {
			t.Errorf("%s: importing changed the store", name)
		}
		imported++
	}
	if imported < 9 {
		t.Errorf("only %d real stores imported", imported)
	}
	if overMeta == 0 {
		t.Error("no real store's import ids exceed the meta value limit: the test no longer covers the case that dropped them")
	}
}

// checkNotes requires one verified import note per write of an imported
// store, each with a declared label, and returns the bytes the input ids
// would take as the meta JSON map older imports wrote.
func checkNotes(t *testing.T, name, path string) int {
	t.Helper()
	snap, err := loader.Open(path)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	defer snap.Close()
	ctx := context.Background()
	notes, fromMeta, err := snap.ImportNotesOrMeta(ctx)
	if err != nil || fromMeta {
		t.Errorf("%s: import notes: %v (from meta %v)", name, err, fromMeta)
		return 0
	}
	writes, err := snap.Count(ctx, "writes")
	if err != nil || len(notes) != writes {
		t.Errorf("%s: %d import notes for %d writes (%v)", name, len(notes), writes, err)
	}
	ids := map[string]string{}
	for _, n := range notes {
		if !n.Record.Verified() || n.Declared == "" {
			t.Errorf("%s: note %s: declared %q, record %+v", name, n.WID, n.Declared, n.Record)
			break
		}
		if n.InputID != "" {
			ids[n.WID] = n.InputID
		}
	}
	j, _ := json.Marshal(ids)
	if strings.Contains(name, "graphrag") && len(ids) == 0 {
		t.Errorf("%s: no input ids kept", name)
	}
	return len(j)
}

// checkLabelInputIDs requires replay --labels to show, for every write of
// an imported GraphRAG store, the id the store gave it, signed: each
// relationship's own id from relationships.parquet among them.
func checkLabelInputIDs(t *testing.T, name, out string, st *storemodel.Store) {
	t.Helper()
	var so, se bytes.Buffer
	code := run(context.Background(), []string{"replay", filepath.Join(out, evidence.SnapshotFile), "--log", filepath.Join(out, evidence.LogDir),
		"--anchors", filepath.Join(out, evidence.ManifestFile), "--labels", "--json"}, &so, &se)
	var labels []struct {
		InputID  string `json:"input_id"`
		Coverage string `json:"input_id_coverage"`
	}
	if err := json.Unmarshal(so.Bytes(), &labels); err != nil || code != exitOK {
		t.Fatalf("%s: replay --labels exit %d: %v %s", name, code, err, se.String())
	}
	shown := map[string]bool{}
	for _, l := range labels {
		if l.InputID == "" || l.Coverage != "" {
			t.Fatalf("%s: label %+v: want every write's input id, signed", name, l)
		}
		shown[l.InputID] = true
	}
	for _, e := range st.Edges {
		if !shown[e.ID] {
			t.Errorf("%s: the store's edge %q is not shown as an input id", name, e.ID)
			break
		}
	}
	if len(labels) != len(st.Edges) {
		t.Errorf("%s: %d labels for %d edges", name, len(labels), len(st.Edges))
	}
}
