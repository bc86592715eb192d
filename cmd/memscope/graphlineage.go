package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/memscope/memscope/internal/analyses/storelineage"
	"github.com/memscope/memscope/internal/present/finding"
	"github.com/memscope/memscope/internal/present/sanitize"
	stores "github.com/memscope/memscope/internal/readers"
	"github.com/memscope/memscope/internal/readers/storemodel"
)

// jsonDeclaredWrite is one edge of a native graph store with the passages
// the store's own fields name as its sources (unsigned).
type jsonDeclaredWrite struct {
	Write    string   `json:"write"`
	Src      string   `json:"src"`
	Dst      string   `json:"dst"`
	Weight   float64  `json:"weight"`
	Kind     string   `json:"kind"`
	Sources  []string `json:"sources_declared"`
	NoSource bool     `json:"no_source"`
}

type jsonGraphLineage struct {
	Store    jsonStore         `json:"store"`
	Findings []finding.Finding `json:"findings"`
	// Node is set when a node was asked for: the writes touching it (no-
	// source writes first) and, for a passage, the writes elsewhere that
	// name it as a source.
	Node     string              `json:"node,omitempty"`
	Label    string              `json:"label,omitempty"`
	Touching []jsonDeclaredWrite `json:"touching,omitempty"`
	Sourced  []jsonDeclaredWrite `json:"sourced,omitempty"`
	// NoSource lists every no-source write of the store when no node was
	// asked for: the writes nothing in the store explains.
	NoSource []jsonDeclaredWrite `json:"no_source_writes"`
}

func declaredWrite(e *storemodel.Edge) jsonDeclaredWrite {
	src := e.Sources
	if src == nil {
		src = []string{}
	}
	return jsonDeclaredWrite{Write: e.ID, Src: e.Src, Dst: e.Dst, Weight: e.Weight, Kind: e.Kind, Sources: src, NoSource: len(e.Sources) == 0}
}

// runGraphLineage shows the provenance a graph store (HippoRAG 2,
// LightRAG, GraphRAG) declares: with node, the writes around it and their
// declared source passages; without, every write the store cannot explain.
// Nothing here is verified: the store's fields are its own claims.
func runGraphLineage(stdout io.Writer, st *storemodel.Store, node string, asJSON bool) (int, error) {
	fs := stores.Findings(st)
	out := jsonGraphLineage{Store: describeStore(st), Findings: fs, NoSource: []jsonDeclaredWrite{}}
	if node != "" {
		p, ok := storelineage.New(st).Node(node)
		if !ok {
			return exitUsage, usagef("no node %q in %s", sanitize.Line(node), sanitize.Line(st.Root))
		}
		out.Node, out.Label = p.Node.ID, p.Node.Label
		out.Touching, out.Sourced = []jsonDeclaredWrite{}, []jsonDeclaredWrite{}
		for _, w := range p.Touching {
			out.Touching = append(out.Touching, declaredWrite(w.Edge))
		}
		for _, w := range p.Sourced {
			out.Sourced = append(out.Sourced, declaredWrite(w.Edge))
		}
	} else {
		for i := range st.Edges {
			if len(st.Edges[i].Sources) == 0 {
				out.NoSource = append(out.NoSource, declaredWrite(&st.Edges[i]))
			}
		}
	}
	status := exitOK
	if errs, _, _ := finding.Count(fs); errs > 0 {
		status = exitFindings
	}
	if asJSON {
		return status, writeJSON(stdout, out)
	}
	writeStoreHeader(stdout, out.Store)
	fmt.Fprintln(stdout, "declared provenance (each write's source passages as the store names them; unsigned):")
	line := func(w jsonDeclaredWrite) {
		src := "NO SOURCE"
		if !w.NoSource {
			src = "from " + sanitize.Line(strings.Join(w.Sources, ", "))
		}
		ends := ""
		if w.Write != w.Src+"--"+w.Dst && w.Write != w.Dst+"--"+w.Src {
			ends = " (" + sanitize.Line(w.Src) + " -- " + sanitize.Line(w.Dst) + ")"
		}
		fmt.Fprintf(stdout, "  %s%s  weight %g  %s\n", sanitize.Line(w.Write), ends, w.Weight, src)
	}
	if node != "" {
		fmt.Fprintf(stdout, "\nnode %s  %s\n", sanitize.Line(out.Node), previewOf(out.Label))
		fmt.Fprintf(stdout, "\nwrites touching it (%d; no-source writes first):\n", len(out.Touching))
		for _, w := range out.Touching {
			line(w)
		}
		if len(out.Sourced) > 0 {
			fmt.Fprintf(stdout, "\nwrites elsewhere that name it as a source (%d):\n", len(out.Sourced))
			for _, w := range out.Sourced {
				line(w)
			}
		}
	} else {
		fmt.Fprintf(stdout, "\nno-source writes (%d of %d: nothing in the store explains them):\n", len(out.NoSource), len(st.Edges))
		for _, w := range out.NoSource {
			line(w)
		}
		fmt.Fprintln(stdout, "\n(memscope lineage PATH NODE shows the writes around one node)")
	}
	fmt.Fprintln(stdout)
	writeFindingList(stdout, fs)
	return status, nil
}
