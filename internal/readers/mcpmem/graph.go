package mcpmem

import (
	"fmt"

	"github.com/memscope/memscope/internal/present/finding"
	"github.com/memscope/memscope/internal/readers/storemodel"
)

// Build turns the parsed file into nodes and edges. Entities of one name
// are one node: the server writes two when one create_entities call
// carries a name twice (it filters against the file only), and
// add_observations then reaches the first; relations of one node pair are
// one write.
func Build(g *Graph, file string, st *storemodel.Store) {
	issue := func(code finding.Code, subject, msg string) {
		st.Issues = append(st.Issues, storemodel.Issue{Code: code, File: file, Subject: subject, Message: msg})
	}
	firstLine := map[string]int{}
	obsCount := map[string]int{}
	for _, e := range g.Entities {
		if l, dup := firstLine[e.Name]; dup {
			issue(finding.MCPMemDuplicate, fmt.Sprintf("line %d, entity \"%s\"", e.Line, e.Name), fmt.Sprintf("an entity of this name is already on line %d; its observations are read as the first one's", l))
		} else {
			firstLine[e.Name] = e.Line
			st.Nodes = append(st.Nodes, storemodel.Node{ID: entityID(e.Name), Kind: storemodel.KindEntity, Label: e.Name})
		}
		for _, o := range e.Observations {
			id := observationID(e.Name, obsCount[e.Name])
			obsCount[e.Name]++
			st.Nodes = append(st.Nodes, storemodel.Node{ID: id, Kind: storemodel.KindPassage, Label: o, Listed: true})
			st.Edges = append(st.Edges, storemodel.Edge{ID: storemodel.PairID(id, entityID(e.Name)), Src: id, Dst: entityID(e.Name), Weight: 1, Parts: 1,
				Kind: storemodel.EdgePassage, Sources: []string{id}, Expected: 1})
		}
	}
	type triple struct{ from, to, rt string }
	seen := map[triple]int{}
	pairs := map[string]int{}
	selfLoops := 0
	for _, r := range g.Relations {
		t := triple{r.From, r.To, r.RelationType}
		if l, dup := seen[t]; dup {
			issue(finding.MCPMemDuplicate, fmt.Sprintf("line %d, relation \"%s\" -%s-> \"%s\"", r.Line, r.From, r.RelationType, r.To), fmt.Sprintf("the same relation is already on line %d", l))
			continue
		}
		seen[t] = r.Line
		for _, end := range []string{r.From, r.To} {
			if _, ok := firstLine[end]; !ok {
				firstLine[end] = r.Line
				st.Nodes = append(st.Nodes, storemodel.Node{ID: entityID(end), Kind: storemodel.KindEntity, Label: end})
				issue(finding.MCPMemRelationDangling, fmt.Sprintf("line %d, relation \"%s\" -%s-> \"%s\"", r.Line, r.From, r.RelationType, r.To), fmt.Sprintf("no entity \"%s\" in the file; read as an entity with no observations", end))
			}
		}
		if r.From == r.To {
			selfLoops++
			continue
		}
		id := storemodel.PairID(entityID(r.From), entityID(r.To))
		if i, ok := pairs[id]; ok {
			st.Edges[i].Weight++
			st.Edges[i].Parts++
			continue
		}
		pairs[id] = len(st.Edges)
		st.Edges = append(st.Edges, storemodel.Edge{ID: id, Src: entityID(r.From), Dst: entityID(r.To), Weight: 1, Parts: 1, Kind: storemodel.EdgeRelation})
	}
	st.Notes = append(st.Notes, fmt.Sprintf("%d entities, %d observations, %d relations; relations carry no source: the server records none (src/memory/index.ts), so every relation is a no-source write", len(firstLine), countObs(g), len(seen)))
	if selfLoops > 0 {
		st.Notes = append(st.Notes, fmt.Sprintf("%d relations join an entity to itself: kept in the file, left out of the graph", selfLoops))
	}
	if g.Extra > 0 {
		st.Notes = append(st.Notes, fmt.Sprintf("%d lines carry keys beyond the fixed ones: the server wrote the client's keys until servers commit 52ab84cd (2025-09-18); loadGraph reads only the fixed ones", g.Extra))
	}
	if g.Ignored > 0 {
		st.Notes = append(st.Notes, fmt.Sprintf("%d lines are neither an entity nor a relation: loadGraph skips them", g.Ignored))
	}
}

func countObs(g *Graph) int {
	n := 0
	for _, e := range g.Entities {
		n += len(e.Observations)
	}
	return n
}
