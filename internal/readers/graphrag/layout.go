package graphrag

// GraphRAG has written its output in five layouts. Each is recognised from
// the files and columns present, never from a version file (older runs
// keep none). The upstream file and version each rule follows
// (microsoft/graphrag):
//
//	0.2.0-0.3.4  graphrag/config/defaults.py STORAGE_BASE_DIR =
//	             "output/${timestamp}/artifacts"; create_final_entities.py
//	             (workflows/v1) renames title to "name"
//	0.3.5-0.4.x  STORAGE_BASE_DIR = "output" (commit 3b09df6e0, 2024-09-18,
//	             "Migrate towards using static output directories"); entity
//	             column still "name" (index/flows/create_final_entities.py,
//	             v0.4.0)
//	0.5.0-1.x    output/create_final_*.parquet; create_final_entities
//	             renames label to "title" (index/flows/create_final_entities.py,
//	             v0.5.0); relationships name endpoints by title
//	2.x          output/{entities,relationships,text_units}.parquet
//	             (graphrag/data_model/schemas.py v2.0.0, *_FINAL_COLUMNS);
//	             text_units.document_ids is a list
//	3.x          same files; text_units.document_id is a single value
//	             (packages/graphrag/graphrag/data_model/schemas.py v3.0.0,
//	             TEXT_UNITS_FINAL_COLUMNS, commit 4c8ef9776)
//
// In every layout relationships carry id, source, target, weight and
// text_unit_ids, and entities carry text_unit_ids.

import (
	"os"
	"path/filepath"
	"sort"
)

// layout is one of GraphRAG's output layouts.
type layout struct {
	textUnits, entities, relationships string // file names in the output directory
	artifacts                          bool   // under output/<run>/artifacts/
}

var (
	finalNames = layout{textUnits: "create_final_text_units.parquet", entities: "create_final_entities.parquet", relationships: "create_final_relationships.parquet"}
	newNames   = layout{textUnits: "text_units.parquet", entities: "entities.parquet", relationships: "relationships.parquet"}
)

func (l layout) files() []string { return []string{l.textUnits, l.entities, l.relationships} }

func (l layout) present(dir string) bool {
	for _, t := range l.files() {
		if st, err := os.Stat(filepath.Join(dir, t)); err != nil || !st.Mode().IsRegular() {
			return false
		}
	}
	return true
}

// located is a GraphRAG output directory found under a path.
type located struct {
	dir    string
	layout layout
	// otherRuns are the run folders not chosen (0.2-0.3.4 keeps one per
	// index run).
	otherRuns []string
}

// locate finds the output directory under path: path itself, path/output,
// or, for the artifacts layout, path[/output][/<run>]/artifacts, choosing
// the most recently modified run as graphrag 0.3's query CLI does
// (graphrag/query/cli.py _infer_data_dir, v0.3.0).
func locate(path string) (located, bool) {
	for _, dir := range []string{path, filepath.Join(path, "output")} {
		if newNames.present(dir) {
			return located{dir: dir, layout: newNames}, true
		}
		l := finalNames
		l.artifacts = true
		if finalNames.present(dir) {
			if filepath.Base(dir) == "artifacts" {
				return located{dir: dir, layout: l}, true
			}
			return located{dir: dir, layout: finalNames}, true
		}
		if a := filepath.Join(dir, "artifacts"); filepath.Base(dir) != "artifacts" && l.present(a) {
			return located{dir: a, layout: l}, true
		}
		if runs := artifactRuns(dir, l); len(runs) > 0 {
			return located{dir: runs[0], layout: l, otherRuns: runs[1:]}, true
		}
	}
	return located{}, false
}

// artifactRuns lists dir/<run>/artifacts holding the final tables, newest
// (by modification time of the run folder) first.
func artifactRuns(dir string, l layout) []string {
	ents, err := os.ReadDir(dir)
	if err != nil || len(ents) > 10000 {
		return nil
	}
	type run struct {
		path string
		mod  int64
	}
	var runs []run
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		a := filepath.Join(dir, e.Name(), "artifacts")
		if !l.present(a) {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue
		}
		runs = append(runs, run{a, info.ModTime().UnixNano()})
	}
	sort.Slice(runs, func(i, j int) bool {
		if runs[i].mod != runs[j].mod {
			return runs[i].mod > runs[j].mod
		}
		return runs[i].path > runs[j].path // timestamps as names sort by time
	})
	out := make([]string, len(runs))
	for i, r := range runs {
		out[i] = r.path
	}
	return out
}

// version names the upstream versions whose layout this is, from the
// location and the columns the tables hold.
func version(l located, entityKey string, documentIDList bool) string {
	switch {
	case l.layout.artifacts:
		return "GraphRAG 0.2.0-0.3.4 (output/<run>/artifacts/create_final_*.parquet, entities keyed by name)"
	case l.layout == finalNames && entityKey == "name":
		return "GraphRAG 0.3.5-0.4.x (output/create_final_*.parquet, entities keyed by name)"
	case l.layout == finalNames:
		return "GraphRAG 0.5-1.x (output/create_final_*.parquet, entities keyed by title)"
	case documentIDList:
		return "GraphRAG 2.x (output/{text_units,entities,relationships}.parquet, text_units.document_ids)"
	}
	return "GraphRAG 3.x (output/{text_units,entities,relationships}.parquet, text_units.document_id)"
}
