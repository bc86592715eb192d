package report

// The report on a native store (HippoRAG 2, LightRAG, nano-graphrag,
// GraphRAG, Mem0, SMSR...): one self-contained HTML page like the
// evidence report, built from the same analyses the CLI and the inspector
// run (stores.Findings, assemble.NativeReplayFindings, EquiMem triage,
// Mem0 chains, the store's timeline), and labelled unsigned throughout:
// nothing in a native store is signed, so nothing is shown as verified.

import (
	"bytes"
	"context"
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"os"
	"runtime"
	"time"

	"github.com/memscope/memscope/internal/analyses/equimem"
	"github.com/memscope/memscope/internal/analyses/storereplay"
	"github.com/memscope/memscope/internal/analyses/storetimeline"
	"github.com/memscope/memscope/internal/assemble"
	"github.com/memscope/memscope/internal/present/finding"
	"github.com/memscope/memscope/internal/present/sanitize"
	stores "github.com/memscope/memscope/internal/readers"
	"github.com/memscope/memscope/internal/readers/mem0db"
	"github.com/memscope/memscope/internal/readers/storemodel"
	"github.com/memscope/memscope/replay"
)

//go:embed native.html.tmpl
var nativeText string

var nativePage = template.Must(template.New("native").Funcs(template.FuncMap{
	"f3": func(x float64) string { return fmt.Sprintf("%.3f", x) },
}).Parse(nativeText))

// NativeCase is everything the native report shows. Every string from the
// store is sanitised when the case is built.
type NativeCase struct {
	Title, Generated, Command, Version string
	Notice                             string
	NotChecked                         []string
	Format, Name, Layout, Root         string
	Files                              []storemodel.File
	Nodes, Passages, Edges, NoSource   int
	Versions, Messages, Memories       int
	Notes                              []string
	Errors, Warnings, Infos            int
	Findings                           []finding.Finding
	ReplayNote                         string
	Replay                             []NativeReplayRow
	EquiMem                            []NativeEquiRow
	EquiMemTotal                       int
	Chains                             []NativeChain
	TimelineOrder                      string
	Timeline                           []storetimeline.Event
	TimelineTotal                      int
}

// NativeReplayRow is one query's selection on G and G_auth.
type NativeReplayRow struct {
	Query, Text, Class string
	IFCBlind           bool
	G, GAuth           []string
	Culprits           []string
}

// NativeEquiRow is one structural write in EquiMem's triage order.
type NativeEquiRow struct {
	Rank              int
	Write, Src, Dst   string
	Rho               float64
	Declared, Culprit bool
}

// NativeChain is a Mem0 memory's version chain.
type NativeChain struct {
	Memory   string
	Deleted  bool
	Versions []NativeVersion
}

// NativeVersion is one history event as the store holds it.
type NativeVersion struct{ Event, Time, Actor, Text string }

// NativeOptions are the report's inputs besides the store.
type NativeOptions struct {
	Title, Version string
	Command        []string
	Now            time.Time
	Queries        []replay.Query // --queries (graph stores)
	Limits         Limits
}

// BuildNative assembles the report on st.
func BuildNative(ctx context.Context, st *storemodel.Store, opt NativeOptions) (*NativeCase, error) {
	lim := opt.Limits.withDefaults()
	r := stores.ReaderOf(st)
	c := &NativeCase{Title: sanitize.Line(opt.Title), Version: opt.Version, Command: sanitize.Line(shellJoin(opt.Command)),
		Notice: storemodel.Unsigned, NotChecked: []string{"signatures", "principal registry", "Merkle log inclusion", "checkpoints", "tombstones"},
		Format: string(st.Format), Name: r.Name, Layout: sanitize.Line(st.Layout), Root: sanitize.Line(st.Root),
		Edges: len(st.Edges), Versions: len(st.Versions), Messages: len(st.Messages), Memories: len(st.Memories)}
	if !opt.Now.IsZero() {
		c.Generated = opt.Now.UTC().Format(time.RFC3339)
	}
	for _, f := range st.Files {
		f.Path, f.Role = sanitize.Line(f.Path), sanitize.Line(f.Role)
		c.Files = append(c.Files, f)
	}
	for _, n := range st.Nodes {
		c.Nodes++
		if n.Kind == storemodel.KindPassage {
			c.Passages++
		}
	}
	for _, e := range st.Edges {
		if len(e.Sources) == 0 {
			c.NoSource++
		}
	}
	for _, n := range st.Notes {
		c.Notes = append(c.Notes, sanitize.Line(n))
	}
	fs := stores.Findings(st)
	if r.Holds&storemodel.HoldsGraph != 0 && len(st.Nodes) > 0 {
		c.ReplayNote = r.Replay()
		rf, err := nativeReplayAndTriage(ctx, c, st, opt.Queries, lim)
		if err != nil {
			return nil, err
		}
		fs = append(fs, rf...)
	}
	if r.Holds&storemodel.HoldsHistory != 0 {
		nativeChains(c, st, lim)
	}
	tl := storetimeline.Build(st)
	c.TimelineOrder, c.TimelineTotal = tl.Order, len(tl.Events)
	for i, e := range tl.Events {
		if i == lim.Timeline {
			break
		}
		e.Subject, e.Kind, e.Actor, e.Text, e.Time = sanitize.Line(e.Subject), sanitize.Line(e.Kind), sanitize.Line(e.Actor), cutRunes(sanitize.Line(e.Text), 160), sanitize.Line(e.Time)
		c.Timeline = append(c.Timeline, e)
	}
	c.Errors, c.Warnings, c.Infos = finding.Count(fs)
	for _, f := range fs {
		f.Subject, f.Message = sanitize.Line(f.Subject), sanitize.Line(f.Message)
		c.Findings = append(c.Findings, f)
	}
	return c, nil
}

// nativeReplayAndTriage replays the queries on G and G_auth and ranks the
// store's own edges by EquiMem's rho_detect (which needs no provenance).
func nativeReplayAndTriage(ctx context.Context, c *NativeCase, st *storemodel.Store, qs []replay.Query, lim Limits) ([]finding.Finding, error) {
	g, pol, err := storereplay.Graph(st)
	if err != nil {
		return nil, err
	}
	rp, err := replay.NewReplayer(g, replay.Config{Policy: pol, Culprits: true})
	if err != nil {
		return nil, err
	}
	rows, err := rp.ReplayAll(ctx, qs, runtime.GOMAXPROCS(0))
	if err != nil {
		return nil, err
	}
	culprits := map[string]bool{}
	for i, row := range rows {
		nr := NativeReplayRow{Query: sanitize.Line(row.QueryID), Text: sanitize.Line(qs[i].Text), Class: string(row.Class), IFCBlind: row.IFCBlind}
		for _, it := range row.G.Items {
			nr.G = append(nr.G, sanitize.Line(it.NodeID))
		}
		for _, it := range row.GAuth.Items {
			nr.GAuth = append(nr.GAuth, sanitize.Line(it.NodeID))
		}
		if row.Culprits != nil {
			for _, cu := range row.Culprits.Set {
				nr.Culprits = append(nr.Culprits, sanitize.Line(cu.EdgeID))
				culprits[cu.EdgeID] = true
			}
		}
		c.Replay = append(c.Replay, nr)
	}
	ws := make([]equimem.Write, len(st.Edges))
	for i, e := range st.Edges {
		ws[i] = equimem.Write{ID: e.ID, Src: e.Src, Dst: e.Dst, Rel: e.Kind, Writer: storereplay.Writer(st.Format)}
	}
	scores, err := equimem.Analyze(ctx, ws, equimem.Options{Nodes: len(st.Nodes)})
	if err != nil {
		return nil, err
	}
	order := equimem.Rank(scores, culprits).Order
	declared := map[string]bool{}
	for _, e := range st.Edges {
		declared[e.ID] = len(e.Sources) > 0
	}
	byID := map[string]equimem.Score{}
	for _, s := range scores {
		byID[s.ID] = s
	}
	c.EquiMemTotal = len(scores)
	for i, id := range order {
		if i == lim.Actions {
			break
		}
		s := byID[id]
		c.EquiMem = append(c.EquiMem, NativeEquiRow{Rank: i + 1, Write: sanitize.Line(id), Rho: s.Rho, Declared: declared[id], Culprit: culprits[id]})
	}
	return assemble.NativeReplayFindings(st, rows), nil
}

func nativeChains(c *NativeCase, st *storemodel.Store, lim Limits) {
	chains, _ := mem0db.Chains(st)
	for i, ch := range chains {
		if i == lim.Actions {
			break
		}
		nc := NativeChain{Memory: sanitize.Line(ch.MemoryID), Deleted: ch.Deleted}
		for _, v := range ch.Versions {
			t, text := v.When(), v.Text()
			actor := v.Actor
			if v.Role != "" {
				actor += "/" + v.Role
			}
			nc.Versions = append(nc.Versions, NativeVersion{Event: sanitize.Line(v.Event), Time: sanitize.Line(t), Actor: sanitize.Line(actor), Text: cutRunes(sanitize.Line(text), 200)})
		}
		c.Chains = append(c.Chains, nc)
	}
}

// WriteNativeHTML renders the native case as one self-contained page under
// the evidence report's stylesheet and Content-Security-Policy.
func WriteNativeHTML(w io.Writer, c *NativeCase) error {
	var buf bytes.Buffer
	if err := nativePage.Execute(&buf, struct {
		C   *NativeCase
		CSS template.CSS
		CSP string
	}{c, template.CSS(css), CSP}); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	_, err := w.Write(buf.Bytes())
	return err
}

// NativeFile renders c and creates htmlPath exclusively (O_EXCL: an
// existing file, evidence included, is never overwritten).
func NativeFile(c *NativeCase, htmlPath string) error {
	var buf bytes.Buffer
	if err := WriteNativeHTML(&buf, c); err != nil {
		return err
	}
	f, err := os.OpenFile(htmlPath, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return fmt.Errorf("report: %w (the report never overwrites a file)", err)
	}
	if _, err := f.Write(buf.Bytes()); err != nil {
		f.Close()
		os.Remove(htmlPath) // only the file this call created
		return fmt.Errorf("report: %s: %w", htmlPath, err)
	}
	return f.Close()
}
