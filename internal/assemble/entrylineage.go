package assemble

import (
	"context"
	"fmt"
	"os"

	"github.com/memscope/memscope/internal/present/dagdraw"
	"github.com/memscope/memscope/internal/present/idform"
	"github.com/memscope/memscope/internal/present/sanitize"
	"github.com/memscope/memscope/lineage"
)

// Relative is an ancestor or descendant of an entry.
type Relative struct {
	Entry      string `json:"entry"`
	Depth      int    `json:"depth"`
	Writer     string `json:"writer"`
	Recomputed string `json:"recomputed"`
}

// EntryLineageView is one entry's lineage at one tau: the drawing, the
// explanation of each External ancestor's path, and the relatives.
type EntryLineageView struct {
	Entry       string              `json:"entry"`
	Tau         float64             `json:"tau"`
	FailClosed  bool                `json:"fail_closed"`
	Recorded    string              `json:"recorded"`
	Recomputed  string              `json:"recomputed"`
	Explanation lineage.Explanation `json:"explanation"`
	Ancestors   []Relative          `json:"ancestors"`
	Descendants []Relative          `json:"descendants"`
	// Session is the entry's session_id ("" for none) and SessionCoverage
	// verify's label for it ("" when signed and verified, "unsigned",
	// "not checked" without verification).
	Session         string `json:"session"`
	SessionCoverage string `json:"session_coverage"`
	// Rows is the neighbourhood drawn for a terminal of DrawWidth columns;
	// RowIDs[i] is the entry on row i ("" for connector rows).
	Rows   []string        `json:"-"`
	RowIDs []string        `json:"-"`
	Layout *dagdraw.Layout `json:"-"`
	DOT    string          `json:"-"`
}

// DrawWidth is the width the CLI draws lineage rows at.
const DrawWidth = 110

// maxNeighbourhood bounds how many relatives are drawn each way.
const maxNeighbourhood = 60

// EntryLineage explains entry id at tau and draws its neighbourhood.
func (s *Session) EntryLineage(id string, tau float64, failClosed bool, depth int) (*EntryLineageView, error) {
	labels, err := s.Labels(tau, failClosed)
	if err != nil {
		return nil, err
	}
	return s.EntryLineageWith(id, labels, tau, failClosed, depth, dagdraw.Box)
}

// EntryLineageWith is EntryLineage with labels already computed (the TUI
// recomputes them once per tau) and a glyph set.
func (s *Session) EntryLineageWith(id string, labels []lineage.Trust, tau float64, failClosed bool, depth int, glyphs dagdraw.Glyphs) (*EntryLineageView, error) {
	g := s.Lineage
	ix, ok := g.Index(id)
	if !ok {
		return nil, fmt.Errorf("no entry \"%s\" in %s", id, s.Opts.Snapshot)
	}
	exp, err := g.Explain(id, labels, tau, 8)
	if err != nil {
		return nil, err
	}
	v := &EntryLineageView{Entry: id, Tau: tau, FailClosed: failClosed, Recorded: g.Recorded(ix).String(), Recomputed: labels[ix].String(),
		Explanation: exp, Ancestors: []Relative{}, Descendants: []Relative{}}
	anc, _, err := g.Ancestors(id, depth, maxNeighbourhood)
	if err != nil {
		return nil, err
	}
	desc, _, err := g.Descendants(id, depth, maxNeighbourhood)
	if err != nil {
		return nil, err
	}
	for _, r := range anc {
		v.Ancestors = append(v.Ancestors, s.relative(r, labels))
	}
	for _, r := range desc {
		v.Descendants = append(v.Descendants, s.relative(r, labels))
	}
	nb, err := g.Neighbourhood(id, depth, depth, maxNeighbourhood, labels, tau)
	if err != nil {
		return nil, err
	}
	dg := s.drawGraph(nb)
	if v.Layout, err = dagdraw.NewLayout(dg, dagdraw.Options{}); err != nil {
		return nil, err
	}
	v.Rows = v.Layout.Render(0, v.Layout.Len(), DrawWidth, glyphs)
	v.RowIDs = make([]string, v.Layout.Len())
	for i := range v.RowIDs {
		if n := v.Layout.RowNode(i); n >= 0 {
			v.RowIDs[i] = dg.Nodes[n].ID
		}
	}
	if v.DOT, err = dagdraw.DOT(dg, dagdraw.DOTOptions{}); err != nil {
		return nil, err
	}
	return v, nil
}

func (s *Session) relative(r lineage.Relative, labels []lineage.Trust) Relative {
	out := Relative{Entry: r.ID, Depth: r.Depth, Recomputed: labels[r.Index].String()}
	out.Writer = s.EntryAt(s.RowOf(r.Index)).Writer
	return out
}

// drawGraph turns a lineage neighbourhood into dagdraw's input, with
// sanitised labels: writer and a content preview.
func (s *Session) drawGraph(nb lineage.Neighbourhood) dagdraw.Graph {
	var dg dagdraw.Graph
	for i, n := range nb.Nodes {
		label := idform.Short(n.ID)
		if n.Index >= 0 {
			row := s.RowOf(n.Index)
			c, err := s.Content(context.Background(), row)
			if err != nil {
				c = "(content not read: " + err.Error() + ")"
			}
			label += " " + s.EntryAt(row).Writer + ": " + Preview(c, 60)
		}
		dg.Nodes = append(dg.Nodes, dagdraw.Node{ID: n.ID, Label: sanitize.Line(label), Trust: n.Label.String(),
			ElidedParents: n.HiddenParents, Focus: i == nb.Center})
	}
	for _, e := range nb.Edges {
		dg.Edges = append(dg.Edges, dagdraw.Edge{Parent: e.Parent, Child: e.Child, Weight: e.Weight, Strong: e.Strong})
	}
	return dg
}

// Preview cuts s to at most n bytes on a character boundary, marking the
// cut with an ellipsis.
func Preview(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && s[cut]&0xc0 == 0x80 {
		cut--
	}
	return s[:cut] + "…"
}

// RenderSVG renders DOT with graphviz into path (an export the user asked
// for). The file is created exclusively: an existing file, the snapshot
// or any other evidence included, is never overwritten.
func RenderSVG(ctx context.Context, dot, path string) error {
	svg, err := dagdraw.SVG(ctx, dot)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(svg); err != nil {
		f.Close()
		os.Remove(path)
		return err
	}
	return f.Close()
}
