// Package graphrag reads a GraphRAG (microsoft/graphrag) output directory
// natively, read-only, into the native-store evidence model.
//
// Files, and the upstream code that defines them
// (packages/graphrag/graphrag/data_model/schemas.py, *_FINAL_COLUMNS):
//
//	output/text_units.parquet     create_final_text_units(): id, text, ... (passages)
//	output/entities.parquet       finalize_entities(): id, title, type, description, text_unit_ids, ...
//	output/relationships.parquet  finalize_relationships(): id, source, target, description, weight, text_unit_ids, ...
//
// Text units are passages; entities are named by title (relationships name
// their endpoints by title). A relationship is one write, sourced by its
// text_unit_ids; an empty list is a no-source write. Each entity is joined
// to the text units its text_unit_ids name (weight 1, sourced by that unit),
// so that HippoRAG 2's selector can run over the graph as a what-if:
// GraphRAG itself retrieves through community reports and local search.
package graphrag

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/memscope/memscope/internal/present/finding"
	"github.com/memscope/memscope/internal/readers/parquetcols"
	"github.com/memscope/memscope/internal/readers/storefile"
	"github.com/memscope/memscope/internal/readers/storemodel"
)

// tables are the file names of the newest layout (layout.go has them all).
var tables = newNames.files()

// Locate returns the output directory under path (layout.go: every layout
// GraphRAG has written).
func Locate(path string) (string, bool) {
	l, ok := locate(path)
	return l.dir, ok
}

// Looks says whether path is a GraphRAG output (for detection).
func Looks(path string) bool {
	_, ok := locate(path)
	return ok
}

func open(ctx context.Context, st *storemodel.Store, dir, name, role string) (*parquetcols.File, error) {
	path := filepath.Join(dir, name)
	b, f, err := storefile.ReadAll(ctx, path, role, storefile.MaxParquet)
	if err != nil {
		return nil, err
	}
	st.Files = append(st.Files, f)
	return parquetcols.Open(path, b)
}

// Open reads the GraphRAG output at path.
func Open(ctx context.Context, path string) (*storemodel.Store, error) {
	loc, ok := locate(path)
	if !ok {
		return nil, fmt.Errorf("%s: no GraphRAG tables here or in output/ (text_units, entities and relationships.parquet of 2.x/3.x, or create_final_text_units, _entities and _relationships.parquet of 0.2-1.x, also under output/<run>/artifacts/)", path)
	}
	dir, lay := loc.dir, loc.layout
	st := &storemodel.Store{Format: storemodel.GraphRAG, Root: dir,
		Notes: []string{"GraphRAG retrieves through community reports and local search, not PPR: replay here is a what-if of HippoRAG 2's selector over GraphRAG's graph"}}
	if len(loc.otherRuns) > 0 {
		st.Notes = append(st.Notes, fmt.Sprintf("read the most recently modified index run, as GraphRAG's query CLI does; %d older run(s) beside it, each readable by naming its artifacts/ folder: %s", len(loc.otherRuns), strings.Join(loc.otherRuns, ", ")))
	}
	tu, err := open(ctx, st, dir, lay.textUnits, "text units (passages)")
	if err != nil {
		return nil, err
	}
	ent, err := open(ctx, st, dir, lay.entities, "entities")
	if err != nil {
		return nil, err
	}
	rel, err := open(ctx, st, dir, lay.relationships, "relationships")
	if err != nil {
		return nil, err
	}
	entityKey := "title"
	if !ent.Has("title") && ent.Has("name") {
		entityKey = "name"
	}
	st.Layout = version(loc, entityKey, !tu.Has("document_id"))
	tuIDs, err := tu.Strings(ctx, "id")
	if err != nil {
		return nil, err
	}
	tuText, err := tu.Strings(ctx, "text")
	if err != nil {
		return nil, err
	}
	nodes := map[string]bool{}
	units := map[string]bool{}
	for i, id := range tuIDs {
		if id == "" || nodes[id] {
			st.Issues = append(st.Issues, storemodel.Issue{Code: finding.StoreRecordMalformed, File: filepath.Join(dir, lay.textUnits),
				Subject: fmt.Sprintf("row %d", i), Message: fmt.Sprintf("id \"%s\" is empty or repeated; row skipped", id)})
			continue
		}
		nodes[id], units[id] = true, true
		st.Nodes = append(st.Nodes, storemodel.Node{ID: id, Kind: storemodel.KindPassage, Label: tuText[i], Listed: true})
	}
	titles, err := ent.Strings(ctx, entityKey)
	if err != nil {
		return nil, err
	}
	entUnits, err := ent.StringLists(ctx, "text_unit_ids")
	if err != nil {
		return nil, err
	}
	entFile := filepath.Join(dir, lay.entities)
	pairs := map[string]bool{}
	for i, title := range titles {
		if title == "" || nodes[title] {
			st.Issues = append(st.Issues, storemodel.Issue{Code: finding.StoreRecordMalformed, File: entFile,
				Subject: fmt.Sprintf("row %d", i), Message: fmt.Sprintf("%s \"%s\" is empty or names another node; row skipped", entityKey, title)})
			continue
		}
		nodes[title] = true
		st.Nodes = append(st.Nodes, storemodel.Node{ID: title, Kind: storemodel.KindEntity, Label: title})
		for _, u := range entUnits[i] {
			if !units[u] {
				st.Issues = append(st.Issues, storemodel.Issue{Code: finding.SourceMissing, File: entFile, Subject: "entity " + title,
					Message: fmt.Sprintf("text_unit_ids names \"%s\", which is not a text unit; no join", u)})
				continue
			}
			id := storemodel.PairID(u, title)
			if pairs[id] {
				continue
			}
			pairs[id] = true
			st.Edges = append(st.Edges, storemodel.Edge{ID: id, Src: u, Dst: title, Weight: 1, Parts: 1, Kind: storemodel.EdgePassage, Sources: []string{u}, Expected: 1})
		}
	}
	if err := readRelationships(ctx, st, rel, filepath.Join(dir, lay.relationships), nodes, units); err != nil {
		return nil, err
	}
	return st, nil
}

func readRelationships(ctx context.Context, st *storemodel.Store, rel *parquetcols.File, file string, nodes, units map[string]bool) error {
	ids, err := rel.Strings(ctx, "id")
	if err != nil {
		return err
	}
	src, err := rel.Strings(ctx, "source")
	if err != nil {
		return err
	}
	dst, err := rel.Strings(ctx, "target")
	if err != nil {
		return err
	}
	w, err := rel.Floats(ctx, "weight")
	if err != nil {
		return err
	}
	srcUnits, err := rel.StringLists(ctx, "text_unit_ids")
	if err != nil {
		return err
	}
	seen := map[string]bool{}
	for i := range ids {
		subject := fmt.Sprintf("row %d (%s)", i, ids[i])
		if !nodes[src[i]] || !nodes[dst[i]] {
			st.Issues = append(st.Issues, storemodel.Issue{Code: finding.StoreRecordMalformed, File: file, Subject: subject,
				Message: fmt.Sprintf("source \"%s\" or target \"%s\" is not an entity; row skipped", src[i], dst[i])})
			continue
		}
		if w[i] < 0 {
			st.Issues = append(st.Issues, storemodel.Issue{Code: finding.StoreRecordMalformed, File: file, Subject: subject,
				Message: fmt.Sprintf("weight %v is negative; row skipped", w[i])})
			continue
		}
		id := ids[i]
		if id == "" || seen[id] {
			id = fmt.Sprintf("%s#%d", storemodel.PairID(src[i], dst[i]), i)
		}
		seen[id] = true
		e := storemodel.Edge{ID: id, Src: src[i], Dst: dst[i], Weight: w[i], Parts: 1, Kind: storemodel.EdgeRelation}
		for _, u := range srcUnits[i] {
			if !units[u] {
				st.Issues = append(st.Issues, storemodel.Issue{Code: finding.SourceMissing, File: file, Subject: "relationship " + id,
					Message: fmt.Sprintf("text_unit_ids names \"%s\", which is not a text unit", u)})
			}
			e.Sources = append(e.Sources, u)
		}
		if len(e.Sources) == 0 {
			e.Kind = storemodel.EdgeUnexplained
			st.Issues = append(st.Issues, storemodel.Issue{Code: finding.StoreEdgeUnexplained, File: file, Subject: "relationship " + id,
				Message: fmt.Sprintf("%s -> %s (weight %g) names no text unit: a no-source write", src[i], dst[i], w[i])})
		}
		st.Edges = append(st.Edges, e)
	}
	return nil
}
