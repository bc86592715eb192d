package tuisource

// The inspector over a native store (HippoRAG 2, LightRAG, GraphRAG, Mem0,
// SMSR; docs/STORES.md). Nothing in such a store is signed, so this Source
// never reports a signature, a log inclusion or a checkpoint: the overview
// and every detail say the store is unsigned, entries carry no trust label
// of their own (they show External, the fail-closed reading of "no signed
// provenance"), and every check it does run (Mem0 version chains, SMSR
// tags under the user's key, replay on G and G_auth) comes from the same
// analyses the CLI prints.

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"

	"github.com/memscope/memscope/internal/analyses/defences"
	"github.com/memscope/memscope/internal/analyses/smsr"
	"github.com/memscope/memscope/internal/analyses/storelineage"
	"github.com/memscope/memscope/internal/analyses/storereplay"
	"github.com/memscope/memscope/internal/assemble"
	"github.com/memscope/memscope/internal/present/finding"
	"github.com/memscope/memscope/internal/present/sanitize"
	stores "github.com/memscope/memscope/internal/readers"
	"github.com/memscope/memscope/internal/readers/mem0db"
	"github.com/memscope/memscope/internal/readers/mem0vec"
	"github.com/memscope/memscope/internal/readers/smsrdb"
	"github.com/memscope/memscope/internal/readers/storemodel"
	"github.com/memscope/memscope/lineage"
	"github.com/memscope/memscope/replay"
	"github.com/memscope/memscope/tui"
)

// Native is a tui.Source over a native store read by package stores.
type Native struct {
	st      *storemodel.Store
	reader  storemodel.Reader // the registry's entry for st's format
	title   string
	rows    []tui.EntryRow
	index   map[string]int
	found   []finding.Finding // at open: the reader's issues and the store's own chains
	hmacKey []byte
	tagOpts smsrdb.CheckOptions
	cert    CertParams
	plain   bool

	// Graph stores only (nil otherwise).
	prov    *storelineage.Index
	rp      *replay.Replayer
	queries []replay.Query
	byNode  map[string][]int // node id -> indices into st.Edges
	chains  map[string]mem0db.Chain
	vec     map[string]*mem0vec.State // Mem0 with a vector store
	vecOnly []mem0vec.State           // memories only the vector store holds

	mu       sync.Mutex
	tags     map[int64]smsrdb.TagResult // SMSR, after Verify with a key
	verified bool                       // Verify has finished (the word is the TUI's; nothing is verified here)
}

var _ tui.Source = (*Native)(nil)

// NativeOptions are what the command line gives besides the store.
type NativeOptions struct {
	// Queries are the replay queries (--queries, already resolved against
	// the store's graph with storereplay.Queries); none for Mem0 and SMSR.
	Queries []replay.Query
	// HMACKey checks SMSR tags (--hmac-key); nil: not checked.
	HMACKey []byte
	// Tags bounds the SMSR tag search (zero: smsrdb's defaults).
	Tags smsrdb.CheckOptions
	// Cert are SMSR's certificate parameters (--smsr-m/-k/-n; zero: the
	// SMSR paper's defaults, 20, 5, 5).
	Cert CertParams
	// Plain draws the lineage tree in ASCII (--plain).
	Plain bool
}

// CertParams are SMSR's ablation certificate parameters: pool size m,
// memories kept per run k, runs n.
type CertParams struct{ M, K, N int }

// DefaultCert is what memscope verify and inspect use when none is given.
var DefaultCert = CertParams{M: 20, K: 5, N: 5}

// NewNative builds the inspector's view of st. It does no IO: the store is
// already read.
func NewNative(st *storemodel.Store, o NativeOptions) (*Native, error) {
	n := &Native{st: st, reader: stores.ReaderOf(st), title: string(st.Format) + " store " + st.Root, index: map[string]int{}, hmacKey: o.HMACKey, tagOpts: o.Tags, cert: o.Cert, plain: o.Plain}
	if n.cert == (CertParams{}) {
		n.cert = DefaultCert
	}
	n.found = stores.Findings(st)
	switch {
	case len(st.Nodes) > 0:
		g, pol, err := storereplay.Graph(st)
		if err != nil {
			return nil, err
		}
		if n.rp, err = replay.NewReplayer(g, replay.Config{Policy: pol, Culprits: true}); err != nil {
			return nil, err
		}
		n.queries = o.Queries
		n.prov = storelineage.New(st)
		n.graphRows()
	case n.holds(storemodel.HoldsHistory):
		chains, fs := mem0db.Chains(st)
		fs = append(fs, mem0db.MessageFindings(st)...)
		fs = append(fs, n.reconcile()...)
		n.chains = map[string]mem0db.Chain{}
		for _, c := range chains {
			n.chains[c.MemoryID] = c
		}
		n.mem0Rows(fs)
		n.vectorRows()
	case n.holds(storemodel.HoldsTaggedRows):
		n.smsrRows()
	}
	for i, r := range n.rows {
		n.index[r.ID] = i
	}
	return n, nil
}

// holds says whether the store's format fills part h of the model.
func (n *Native) holds(h storemodel.Holds) bool { return n.reader.Holds&h != 0 }

// graphRows: one row per node. A node that an edge nothing in the store
// explains touches is flagged (the edge is in the findings and the detail).
func (n *Native) graphRows() {
	n.byNode = map[string][]int{}
	bad := map[string]bool{}
	for i, e := range n.st.Edges {
		n.byNode[e.Src] = append(n.byNode[e.Src], i)
		n.byNode[e.Dst] = append(n.byNode[e.Dst], i)
		if e.Kind == storemodel.EdgeUnexplained {
			bad[e.Src], bad[e.Dst] = true, true
		}
	}
	w := storereplay.Writer(n.st.Format)
	for _, nd := range n.st.Nodes {
		r := n.row(nd.ID, w, 0, nd.Kind+": "+nd.Label)
		if bad[nd.ID] {
			r.Status, r.Problem = tui.Failed, "NO-SRC EDGE"
		}
		n.rows = append(n.rows, r)
	}
}

// mem0Rows: one row per history event, in storage order. Rows of a memory
// whose chain has a warning are flagged with what it is.
func (n *Native) mem0Rows(fs []finding.Finding) {
	problem := map[string]string{}
	for _, f := range fs {
		id, ok := strings.CutPrefix(f.Subject, "memory ")
		if !ok || problem[id] != "" {
			continue
		}
		switch f.Code {
		case finding.Mem0ChainStartsUpdate:
			problem[id] = "NO ADD"
		case finding.Mem0EventsOutOfOrder:
			problem[id] = "ORDER?"
		case finding.Mem0EventAfterDelete:
			problem[id] = "AFTER DEL"
		default:
			problem[id] = reconcileProblem(f.Code)
		}
	}
	for _, v := range n.st.Versions {
		text := v.New
		if v.Event == "DELETE" {
			text = v.Old
		}
		var ts int64
		if t, ok := mem0db.EventTime(v); ok {
			ts = t.UnixNano()
		}
		r := n.row(v.ID, claimedBy(v.Actor, v.Role), ts, v.Event+" memory "+v.MemoryID+": "+text)
		if p := problem[v.MemoryID]; p != "" {
			r.Status, r.Problem = tui.Failed, p
		}
		n.rows = append(n.rows, r)
	}
	over := map[string]bool{}
	for _, f := range fs {
		if s, ok := strings.CutPrefix(f.Subject, "messages scope "); ok && f.Code == finding.Mem0MessagesOverLimit {
			over[s] = true
		}
	}
	// Then the recent messages: the context of each scope's next add().
	for _, m := range n.st.Messages {
		var ts int64
		if t, ok := mem0db.EventTime(storemodel.Version{CreatedAt: m.CreatedAt}); ok {
			ts = t.UnixNano()
		}
		r := n.row(m.ID, claimedBy(m.Name, m.Role), ts, "MESSAGE "+m.Scope+": "+m.Content)
		if over[m.Scope] {
			r.Status, r.Problem = tui.Failed, "OVER 10"
		}
		n.rows = append(n.rows, r)
	}
}

func claimedBy(actor, role string) string {
	if actor == "" && role == "" {
		return "-"
	}
	return strings.Trim(actor+"/"+role, "/")
}

func (n *Native) smsrRows() {
	for _, m := range n.st.Memories {
		n.rows = append(n.rows, n.row(strconv.FormatInt(m.ID, 10), "session:"+m.Session, int64(m.Timestamp*1e9), m.Content))
	}
}

// row is an entry row with no trust label of its own: External recorded
// and recomputed, the fail-closed reading of an unsigned store.
func (n *Native) row(id, writer string, ts int64, text string) tui.EntryRow {
	return tui.EntryRow{ID: id, Writer: writer, Recorded: lineage.External, Recomputed: lineage.External, TimeNS: ts,
		Preview: assemble.Preview(text, 240), Suspicious: uint16(sanitize.Findings(text) | sanitize.Findings(writer))}
}

// Overview implements tui.Source.
func (n *Native) Overview() tui.Overview {
	st := n.st
	o := tui.Overview{Title: n.title, Entries: len(n.rows), Edges: len(st.Edges), Queries: len(n.queries),
		LabelPolicy: "fail-closed", Unsigned: true}
	o.Notes = append(o.Notes, storemodel.Unsigned,
		"not checked (the store has none): signatures, principal registry, Merkle log inclusion, checkpoints, tombstones",
		"labels: no entry carries a trust label of its own, so every entry is shown External (fail-closed)")
	if st.Layout != "" {
		o.Notes = append(o.Notes, "layout: "+st.Layout+" (told from the store's files and columns)")
	}
	switch {
	case n.rp != nil:
		o.Notes = append(o.Notes, "entries are the graph's nodes; replay: "+n.reader.Replay())
		if len(n.queries) == 0 {
			o.Notes = append(o.Notes, "no --queries: the store keeps no queries, so the replay view is empty")
		}
	case n.holds(storemodel.HoldsHistory):
		o.Notes = append(o.Notes, "entries are history events, then the recent messages per scope; actor and role are the store's claims; enter shows a memory's version chain")
		if st.VectorStore != nil {
			o.Notes = append(o.Notes, vectorNote)
		}
	case n.holds(storemodel.HoldsTaggedRows):
		if n.hmacKey == nil {
			o.Notes = append(o.Notes, "no --hmac-key: SMSR tags are not checked",
				fmt.Sprintf("SMSR certificate (m=%d k=%d n=%d): not computed: t, the rows that fail, needs the tags checked (--hmac-key)", n.cert.M, n.cert.K, n.cert.N))
		} else {
			o.Notes = append(o.Notes, "SMSR tags are checked under the key you gave (content||session||%.6f timestamp)")
			if c := n.certificate(); c != "" {
				o.Notes = append(o.Notes, c)
			}
		}
	}
	for _, f := range st.Files {
		rel, err := filepath.Rel(st.Root, f.Path)
		if err != nil || rel == "." {
			rel = filepath.Base(f.Path)
		}
		o.Notes = append(o.Notes, fmt.Sprintf("read %s (%s, %d bytes, sha256 %.16s)", rel, f.Role, f.Size, f.SHA256))
	}
	o.Notes = append(o.Notes, st.Notes...)
	return o
}

// EntryCount implements tui.Source.
func (n *Native) EntryCount() int { return len(n.rows) }

// Entry implements tui.Source: the row, with the SMSR tag check once Verify
// has run it.
func (n *Native) Entry(i int) tui.EntryRow {
	r := n.rows[i]
	if !n.holds(storemodel.HoldsTaggedRows) {
		return r
	}
	n.mu.Lock()
	tr, ok := n.tags[n.st.Memories[i].ID]
	n.mu.Unlock()
	if ok {
		r.Status, r.Problem = tagStatus(tr)
	}
	return r
}

func tagStatus(tr smsrdb.TagResult) (tui.Status, string) {
	switch tr.Outcome {
	case smsrdb.TagMatches, smsrdb.TagEarlierTime:
		return tui.OK, ""
	case smsrdb.TagMissing:
		return tui.Failed, "NO HMAC"
	case smsrdb.TagNotSearched:
		return tui.Unknown, ""
	}
	return tui.Failed, "HMAC?"
}

// EntryIndex implements tui.Source.
func (n *Native) EntryIndex(id string) (int, bool) {
	i, ok := n.index[id]
	return i, ok
}

// Findings implements tui.Source: STORE_UNSIGNED, what the reader found and
// (Mem0) what the version chains show.
func (n *Native) Findings() []finding.Finding { return n.found }

// Verify implements tui.Source. There is nothing to verify: it runs the
// checks the store's contents allow (SMSR tags under --hmac-key, replay of
// the --queries) and hands back every finding.
func (n *Native) Verify(ctx context.Context) <-chan tui.Progress {
	ch := make(chan tui.Progress, 4)
	go func() {
		defer close(ch)
		fs := append([]finding.Finding(nil), n.found...)
		var err error
		if n.holds(storemodel.HoldsTaggedRows) && n.hmacKey != nil {
			ch <- tui.Progress{Stage: "hmac tags", Total: len(n.st.Memories)}
			var res []smsrdb.TagResult
			var tf []finding.Finding
			if res, tf, err = smsrdb.CheckTags(ctx, n.st, n.hmacKey, n.tagOpts); err == nil {
				fs = append(fs, tf...)
				tags := make(map[int64]smsrdb.TagResult, len(res))
				for _, r := range res {
					tags[r.ID] = r
				}
				n.mu.Lock()
				n.tags = tags
				n.mu.Unlock()
			}
		}
		if err == nil && n.rp != nil && len(n.queries) > 0 {
			ch <- tui.Progress{Stage: "replay", Total: len(n.queries)}
			var rows []replay.Row
			if rows, err = n.rp.ReplayAll(ctx, n.queries, runtime.GOMAXPROCS(0)); err == nil {
				fs = append(fs, assemble.NativeReplayFindings(n.st, rows)...)
			}
		}
		n.mu.Lock()
		n.verified = err == nil
		n.mu.Unlock()
		ch <- tui.Progress{Stage: "done", Finished: true, Findings: fs, Err: err}
	}()
	return ch
}

// unsignedNote is what the detail says in place of a signature check.
const unsignedNote = "not checked: " + storemodel.Unsigned + " (the store has no signatures)"

// EntryDetail implements tui.Source: the row's fields as the store holds
// them and, for a graph node, every edge with the sources the store
// declares for it.
func (n *Native) EntryDetail(ctx context.Context, i int) (tui.EntryDetail, error) {
	if i < 0 || i >= len(n.rows) {
		return tui.EntryDetail{}, fmt.Errorf("no entry %d", i)
	}
	d := tui.EntryDetail{Row: n.Entry(i), SigNote: unsignedNote, HMACNote: "not checked: the store keeps no HMAC tags"}
	f := func(name, value string) { d.Fields = append(d.Fields, tui.Field{Name: name, Value: value}) }
	switch {
	case n.rp != nil:
		nd := n.st.Nodes[i]
		f("id", nd.ID)
		f("kind", nd.Kind)
		f("text", nd.Label)
		if nd.Kind == storemodel.KindPassage {
			f("listed", fmt.Sprintf("%v (a passage the store's own passage records list: declared by the store)", nd.Listed))
		}
		for _, ei := range n.byNode[nd.ID] {
			e := n.st.Edges[ei]
			src := "none (a no-source write)"
			if len(e.Sources) > 0 {
				src = strings.Join(e.Sources, ", ") + " (the store's own fields)"
			}
			f("edge "+e.ID, fmt.Sprintf("%s, weight %g (%d stored edge(s)), sources: %s", e.Kind, e.Weight, e.Parts, src))
		}
	case n.holds(storemodel.HoldsHistory) && i >= len(n.st.Versions)+len(n.st.Messages):
		n.vectorDetail(i-len(n.st.Versions)-len(n.st.Messages), f)
	case n.holds(storemodel.HoldsHistory) && i >= len(n.st.Versions):
		m := n.st.Messages[i-len(n.st.Versions)]
		for _, kv := range [][2]string{{"message id", m.ID}, {"session_scope", m.Scope}, {"role (claimed)", m.Role}, {"name (claimed)", m.Name},
			{"content", m.Content}, {"created_at", m.CreatedAt}, {"rowid", strconv.FormatInt(m.Row, 10)},
			{"use", "the next add() in this scope reads the 10 most recent messages as context (get_last_messages)"}} {
			f(kv[0], kv[1])
		}
	case n.holds(storemodel.HoldsHistory):
		v := n.st.Versions[i]
		for _, kv := range [][2]string{{"history id", v.ID}, {"memory_id", v.MemoryID}, {"event", v.Event}, {"old_memory", v.Old}, {"new_memory", v.New},
			{"created_at", v.CreatedAt}, {"updated_at", v.UpdatedAt}, {"is_deleted", strconv.FormatBool(v.Deleted)},
			{"actor_id (claimed)", v.Actor}, {"role (claimed)", v.Role}, {"rowid", strconv.FormatInt(v.Row, 10)}} {
			f(kv[0], kv[1])
		}
		for j, cv := range n.chains[v.MemoryID].Versions {
			text := cv.New
			if cv.Event == "DELETE" {
				text = "(deleted) " + cv.Old
			}
			f(fmt.Sprintf("chain %d", j+1), fmt.Sprintf("%s %s by %s: %s", cv.Event, orDash(cv.UpdatedAt, cv.CreatedAt), claimedBy(cv.Actor, cv.Role), text))
		}
		n.vectorFields(v.MemoryID, f)
	case n.holds(storemodel.HoldsTaggedRows):
		m := n.st.Memories[i]
		tag := m.Tag
		if m.TagNull {
			tag = "NULL"
		}
		for _, kv := range [][2]string{{"id", strconv.FormatInt(m.ID, 10)}, {"content", m.Content}, {"session_id", m.Session},
			{"timestamp", strconv.FormatFloat(m.Timestamp, 'f', 6, 64)}, {"hmac_tag", tag}, {"embedding", fmt.Sprintf("%d bytes", m.EmbedLen)}} {
			f(kv[0], kv[1])
		}
		d.HMACNote = "not checked: no --hmac-key"
		if n.hmacKey != nil {
			d.HMACNote = "not checked yet (verification runs in the background)"
			n.mu.Lock()
			tr, ok := n.tags[m.ID]
			n.mu.Unlock()
			if ok {
				d.HMAC, _ = tagStatus(tr)
				d.HMACNote = "HMAC-SHA256 under the key you gave: " + tr.Outcome
				if tr.Outcome == smsrdb.TagEarlierTime {
					d.HMACNote += fmt.Sprintf(" (%.6f s before the stored time: SMSR's own second time.time())", float64(tr.Offset)/1e6)
				}
			}
		}
	}
	return d, nil
}

func orDash(a, b string) string {
	if a != "" {
		return a
	}
	if b != "" {
		return b
	}
	return "-"
}

// Lineage implements tui.Source: a native store carries no trust labels
// to propagate, so the view draws what the store declares instead
// (nativelineage.go), captioned as unsigned.
func (n *Native) Lineage(ctx context.Context, id string, tau float64) (tui.LineageView, error) {
	return n.declaredLineage(id, tau)
}

// Replay implements tui.Source: every --queries query on G and G_auth.
func (n *Native) Replay(ctx context.Context) (tui.ReplayView, error) {
	if n.rp == nil {
		_, why := n.reader.Supports(storemodel.CmdReplay)
		return tui.ReplayView{}, fmt.Errorf("%s", why)
	}
	rows, err := n.rp.ReplayAll(ctx, n.queries, runtime.GOMAXPROCS(0))
	if err != nil {
		return tui.ReplayView{}, err
	}
	v := tui.ReplayView{Rows: rows, Texts: map[string]string{}, Unauthenticated: map[string][]tui.UnauthEdge{}, Nodes: map[string]tui.NodeInfo{}, Followed: map[string][]string{}}
	for i, q := range n.queries {
		v.Texts[q.ID] = q.Text
		if list := unauthEdges(n.rp, rows[i]); len(list) > 0 {
			v.Unauthenticated[q.ID] = list
		}
		for _, sel := range [][]replay.Item{rows[i].G.Items, rows[i].GAuth.Items} {
			for _, it := range sel {
				if j, ok := n.index[it.NodeID]; ok {
					v.Nodes[it.NodeID] = tui.NodeInfo{EntryID: it.NodeID, Text: n.st.Nodes[j].Label}
				}
			}
		}
	}
	return v, nil
}

// WhatIf implements tui.Source.
func (n *Native) WhatIf(ctx context.Context, queryID string, remove []string) (replay.WhatIf, error) {
	if n.rp == nil {
		_, why := n.reader.Supports(storemodel.CmdReplay)
		return replay.WhatIf{}, fmt.Errorf("%s", why)
	}
	for _, q := range n.queries {
		if q.ID == queryID {
			return n.rp.WhatIf(ctx, q, replay.BaseG, remove, nil)
		}
	}
	return replay.WhatIf{}, fmt.Errorf("no query \"%s\"", queryID)
}

// Checkpoints, LeafCount, Leaf, Actions and ActionVerdicts: a native store
// has no log, no checkpoints and no recorded actions.
func (n *Native) Checkpoints() []tui.CheckpointRow { return nil }
func (n *Native) LeafCount() int                   { return 0 }
func (n *Native) Leaf(i int) tui.LeafRow           { return tui.LeafRow{Index: uint64(i), Kind: tui.LeafUnknown} }
func (n *Native) Actions() []lineage.GateResult    { return nil }
func (n *Native) ActionVerdicts() []defences.Row   { return nil }
func (n *Native) Close() error                     { return nil }

// certificate is SMSR's ablation certificate for the store once the tags
// are checked, at the m, k, n given (--smsr-m/-k/-n, default 20, 5, 5): t
// counts the failing rows, capped at m. Before the check it says so.
func (n *Native) certificate() string {
	n.mu.Lock()
	res := make([]smsrdb.TagResult, 0, len(n.tags))
	for _, r := range n.tags {
		res = append(res, r)
	}
	n.mu.Unlock()
	m, k, runs := n.cert.M, n.cert.K, n.cert.N
	if len(res) == 0 {
		return fmt.Sprintf("SMSR certificate (m=%d k=%d n=%d): not computed yet (the tag check runs in the background)", m, k, runs)
	}
	fail := smsrdb.Failing(res)
	t := min(fail, m)
	c, err := smsr.Certify(m, k, runs, t)
	if err != nil {
		return fmt.Sprintf("SMSR certificate (m=%d k=%d n=%d): not defined: %v", m, k, runs, err)
	}
	capped := ""
	if fail > m {
		capped = fmt.Sprintf(" (%d fail, capped at m)", fail)
	}
	return fmt.Sprintf("SMSR certificate (m=%d k=%d n=%d; --smsr-m/-k/-n to change): t=%d failing rows%s, p_clean %.4f, delta %.4f", m, k, runs, t, capped, c.PClean, c.Delta)
}
