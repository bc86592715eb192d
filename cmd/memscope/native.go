package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/memscope/memscope/evidence"
	"github.com/memscope/memscope/internal/analyses/storereplay"
	"github.com/memscope/memscope/internal/assemble"
	"github.com/memscope/memscope/internal/generators/graphfile"
	"github.com/memscope/memscope/internal/present/finding"
	"github.com/memscope/memscope/internal/present/jsonout"
	"github.com/memscope/memscope/internal/present/sanitize"
	stores "github.com/memscope/memscope/internal/readers"
	"github.com/memscope/memscope/internal/readers/hipporag"
	"github.com/memscope/memscope/internal/readers/storemodel"
	"github.com/memscope/memscope/replay"
	"github.com/memscope/memscope/tui"
	"github.com/memscope/memscope/tui/tuisource"
	"github.com/memscope/memscope/verify"
)

func storeFormats() string { return strings.Join(stores.Formats(), "|") }

// isNativeStore says whether path is a native store memscope detects.
func isNativeStore(path string) bool {
	_, ok := stores.Detect(path)
	return ok
}

// openStore reads a native store named on the command line.
func openStore(ctx context.Context, path, format string, ef evidenceFlags) (*storemodel.Store, error) {
	if ef.log != "" || ef.logKey != "" || ef.trust != "" || ef.anchors != "" {
		return nil, usagef("%s is a native store: it has no Merkle log, registry or checkpoints, so --log, --log-key, --trust and --anchors do not apply", path)
	}
	var f storemodel.Format
	if format != "" {
		var err error
		if f, err = stores.ParseFormat(format); err != nil {
			return nil, usagef("--format: %v", err)
		}
	}
	return stores.Open(ctx, path, f)
}

// jsonStore describes a native store in every JSON output about it.
type jsonStore struct {
	Format     string            `json:"format"`
	Layout     string            `json:"layout,omitempty"`
	Root       string            `json:"root"`
	Notice     string            `json:"notice"`
	NotChecked []string          `json:"not_checked"`
	Files      []storemodel.File `json:"files"`
	Nodes      int               `json:"nodes"`
	Passages   int               `json:"passages"`
	Edges      int               `json:"edges"`
	NoSource   int               `json:"no_source_edges"`
	Versions   int               `json:"versions"`
	Messages   int               `json:"messages"`
	Memories   int               `json:"memories"`
	Vectors    int               `json:"vector_points"`
	Notes      []string          `json:"notes"`
}

// notChecked is what no native store lets memscope check.
var notChecked = []string{"signatures", "principal registry", "Merkle log inclusion", "checkpoints", "tombstones"}

func describeStore(st *storemodel.Store) jsonStore {
	j := jsonStore{Format: string(st.Format), Layout: st.Layout, Root: st.Root, Notice: storemodel.Unsigned, NotChecked: notChecked,
		Files: st.Files, Nodes: len(st.Nodes), Edges: len(st.Edges), Versions: len(st.Versions), Messages: len(st.Messages), Memories: len(st.Memories), Vectors: len(st.Vectors), Notes: st.Notes}
	if j.Files == nil {
		j.Files = []storemodel.File{}
	}
	if j.Notes == nil {
		j.Notes = []string{}
	}
	for _, n := range st.Nodes {
		if n.Kind == storemodel.KindPassage {
			j.Passages++
		}
	}
	for _, e := range st.Edges {
		if len(e.Sources) == 0 {
			j.NoSource++
		}
	}
	return j
}

// writeStoreHeader prints what was read and what could not be checked.
func writeStoreHeader(w io.Writer, j jsonStore) {
	fmt.Fprintf(w, "%s store %s\n", j.Format, sanitize.Line(j.Root))
	if j.Layout != "" {
		fmt.Fprintf(w, "  layout: %s\n", j.Layout)
	}
	fmt.Fprintf(w, "  %s\n", j.Notice)
	fmt.Fprintf(w, "  not checked: %s (the store has none)\n", strings.Join(j.NotChecked, ", "))
	for _, f := range j.Files {
		rel, err := filepath.Rel(j.Root, f.Path)
		if err != nil || rel == "." {
			rel = filepath.Base(f.Path)
		}
		fmt.Fprintf(w, "  file %-52s %10d bytes  sha256 %s  (%s)\n", sanitize.Line(rel), f.Size, f.SHA256[:16], f.Role)
	}
	switch {
	case j.Nodes > 0:
		fmt.Fprintf(w, "  graph %d nodes (%d passages), %d writes (%d no-source)\n", j.Nodes, j.Passages, j.Edges, j.NoSource)
	case j.Versions > 0:
		fmt.Fprintf(w, "  history %d events, %d recent messages\n", j.Versions, j.Messages)
	case j.Memories > 0:
		fmt.Fprintf(w, "  memories %d rows\n", j.Memories)
	}
	if j.Vectors > 0 {
		fmt.Fprintf(w, "  vector store %d points\n", j.Vectors)
	}
	for _, n := range j.Notes {
		fmt.Fprintf(w, "  note: %s\n", sanitize.Line(n))
	}
	fmt.Fprintln(w)
}

func writeFindingList(w io.Writer, fs []finding.Finding) {
	if len(fs) == 0 {
		return
	}
	fmt.Fprintln(w, "findings:")
	shown := map[finding.Code]int{}
	for _, f := range fs {
		shown[f.Code]++
		if shown[f.Code] > maxPerCode {
			continue
		}
		fmt.Fprintf(w, "  %-7s %-30s %s\n          %s\n", strings.ToUpper(string(f.Severity)), f.Code, sanitize.Line(f.Subject), sanitize.Line(f.Message))
	}
	for code, n := range shown {
		if n > maxPerCode {
			fmt.Fprintf(w, "  ...     %-30s and %d more (see --json)\n", code, n-maxPerCode)
		}
	}
	fmt.Fprintln(w)
}

type jsonNativeReplay struct {
	Store    jsonStore           `json:"store"`
	Findings []finding.Finding   `json:"findings"`
	Replay   string              `json:"replay"`
	Rows     []jsonout.ReplayRow `json:"rows"`
}

func runNativeReplay(ctx context.Context, stdout io.Writer, path, format string, nq nativeQueries, ef evidenceFlags, ro replayOutput, cfg replay.Config, policy string) (int, error) {
	st, err := openStore(ctx, path, format, ef)
	if err != nil {
		return exitUsage, err
	}
	if policy != "" && policy != storereplay.PolicyName {
		return exitUsage, usagef("--policy %s: a native store has no signatures; its edges are labelled by the %s policy (sources declared by the store's own fields)", policy, storereplay.PolicyName)
	}
	rd := stores.ReaderOf(st)
	if ok, why := rd.Supports(storemodel.CmdReplay); !ok {
		return exitUsage, usagef("%s", why)
	}
	// What the output says of the store's edges is taken before the graph
	// is built: with --queries nothing needs the edges after that, and a
	// store of millions of writes lets them go (GraphReleasing).
	head := describeStore(st)
	fs := stores.Findings(st)
	grade := assemble.NativeReplayGrader(st)
	build := storereplay.GraphReleasing
	if nq.embeddings != "" {
		build = storereplay.Graph // HippoRAG 2's retrieval reads the store
	}
	g, pol, err := build(st)
	if err != nil {
		return exitUsage, err
	}
	defer storereplay.PaceSolves(g)()
	cfg.Policy = pol
	rp, err := replay.NewReplayer(g, cfg)
	if err != nil {
		return exitUsage, err
	}
	var qs []replay.Query
	if !ro.labels {
		if !nq.given() {
			return exitUsage, usagef("%s stores keep no queries: give them with --queries FILE (the importer's queries format, docs/IMPORT.md) or, for HippoRAG 2, --query-embeddings FILE (docs/STORES.md)", st.Format)
		}
		if qs, err = nq.load(ctx, path, st, g); err != nil {
			return exitUsage, err
		}
	}
	// Loading HippoRAG 2's query embeddings adds files and a note; the
	// edge counts are the ones taken before the edges were let go.
	now := describeStore(st)
	now.Edges, now.NoSource = head.Edges, head.NoSource
	head = now
	if !ro.asJSON {
		writeStoreHeader(stdout, head)
		fmt.Fprintf(stdout, "replay: %s\n\n", rd.Replay())
		writeFindingList(stdout, fs)
	}
	ro.status = func(rows []replay.Row) int {
		// The store's own findings are reported above the rows, so
		// they count as the rows' do (an error-severity one used to
		// be shown with exit 0).
		return max(exitFor(grade(rows)), exitFor(fs))
	}
	return ro.run(ctx, stdout, rp, qs, path, func(rows []jsonout.ReplayRow) any {
		return jsonNativeReplay{Store: head, Findings: fs, Replay: rd.Replay(), Rows: rows}
	})
}

func readStoreQueries(g *replay.Graph, file string) ([]replay.Query, error) {
	f, err := graphfile.DetectFormat(file, "")
	if err != nil {
		return nil, usagef("--queries: %v", err)
	}
	in, err := evidence.OpenFile(file, maxQueriesFile)
	if err != nil {
		return nil, usagef("--queries: %v", err)
	}
	defer in.Close()
	raw, err := graphfile.ReadQueries(file, io.LimitReader(in, maxQueriesFile), f)
	if err != nil {
		return nil, err
	}
	return storereplay.Queries(g, file, raw)
}

// replayOutput is what the replay flags ask to see of a native store.
type replayOutput struct {
	queryID, without, restore string
	labels, asJSON            bool
	// status grades the rows (exit code); nil: replayStatus.
	status func([]replay.Row) int
}

// run replays qs on rp and prints the result. wrap, when not nil, puts the
// rows into the JSON document a native store's output is.
func (o replayOutput) run(ctx context.Context, stdout io.Writer, rp *replay.Replayer, qs []replay.Query, source string, wrap func([]jsonout.ReplayRow) any) (int, error) {
	if o.labels {
		return exitOK, writeLabels(stdout, rp, nil, o.asJSON)
	}
	if o.without != "" && o.restore != "" {
		return exitUsage, usagef("--without starts from G and --restore from G_auth: give one of them")
	}
	if o.queryID != "" {
		var one []replay.Query
		for _, q := range qs {
			if q.ID == o.queryID {
				one = append(one, q)
				break
			}
		}
		if one == nil {
			return exitUsage, usagef("no query %q in %s", o.queryID, source)
		}
		qs = one
	}
	rows, err := rp.ReplayAll(ctx, qs, runtime.GOMAXPROCS(0))
	if err != nil {
		return exitUsage, err
	}
	var removed, restored []string
	if o.without != "" {
		removed = strings.Split(o.without, ",")
	}
	if o.restore != "" {
		restored = strings.Split(o.restore, ",")
	}
	out := make([]jsonout.ReplayRow, len(rows))
	for i, r := range rows {
		out[i] = jsonout.NewReplayRow(r, qs[i].Text, nativeCoverage)
		if removed != nil || restored != nil {
			if out[i].WhatIf, err = whatIfRow(ctx, rp, qs[i], removed, restored, nativeCoverage); err != nil {
				return exitUsage, err
			}
		}
	}
	status := replayStatus(rows)
	if o.status != nil {
		status = o.status(rows)
	}
	if o.asJSON {
		if wrap != nil {
			return status, writeJSON(stdout, wrap(out))
		}
		return status, writeJSON(stdout, out)
	}
	if o.queryID == "" {
		writeReplayTable(stdout, out)
	}
	if o.queryID != "" || removed != nil || restored != nil {
		for i, r := range rows {
			writeReplayDetail(stdout, r, out[i])
		}
	}
	return status, nil
}

// whatIfRow replays q with the named edges removed from G (or, with
// restored, put back into G_auth) for the --without/--restore output.
func whatIfRow(ctx context.Context, rp *replay.Replayer, q replay.Query, removed, restored []string, cov jsonout.Coverage) (*jsonout.WhatIf, error) {
	base := replay.BaseG
	if restored != nil {
		base = replay.BaseGAuth
	}
	w, err := rp.WhatIf(ctx, q, base, removed, restored)
	if err != nil {
		return nil, err
	}
	return jsonout.NewWhatIf(w, cov), nil
}

// nativeCoverage labels a native store's nodes unsigned (the store
// declares them and signs nothing); queries come from the user's
// --queries file, not from the evidence, and say so.
var nativeCoverage = jsonout.Coverage{
	Query:  func(string) string { return assemble.LabelUserInput },
	Node:   func(string) string { return verify.LabelUnsigned },
	Action: func(string) string { return verify.LabelUnsigned },
}

// runInspectNative opens the inspector on a native store: every view its
// contents support, each saying the store is unsigned.
func runInspectNative(ctx context.Context, path, format string, nq nativeQueries, ef evidenceFlags, cert certFlags, plain bool, keys string) (int, error) {
	src, err := openNativeInspector(ctx, path, format, nq, ef, cert, plain)
	if err != nil {
		return exitUsage, err
	}
	opts, err := tuiOptions(plain, keys)
	if err != nil {
		return exitUsage, err
	}
	defer src.Close()
	if err := tui.Run(src, opts); err != nil {
		return exitUsage, err
	}
	return exitOK, nil
}

// openNativeInspector reads the store, its --queries and --hmac-key into the
// inspector's source (separate from running it, for tests).
func openNativeInspector(ctx context.Context, path, format string, nq nativeQueries, ef evidenceFlags, cert certFlags, plain bool) (*tuisource.Native, error) {
	hmacKey := ef.hmacKey
	ef.hmacKey = ""
	st, err := openStore(ctx, path, format, ef)
	if err != nil {
		return nil, err
	}
	if err := cert.forStore(st); err != nil {
		return nil, err
	}
	o := tuisource.NativeOptions{Cert: tuisource.CertParams{M: cert.m, K: cert.k, N: cert.n}, Plain: plain}
	if hmacKey != "" {
		if stores.ReaderOf(st).Holds&storemodel.HoldsTaggedRows == 0 {
			return nil, usagef("--hmac-key: %s stores carry no HMAC tags", st.Format)
		}
		an, err := (&anchorFlags{hmacKey: hmacKey}).resolve()
		if err != nil {
			return nil, err
		}
		o.HMACKey = an.HMAC
	}
	if o.Queries, err = nq.loadFor(ctx, path, st); err != nil {
		return nil, err
	}
	return tuisource.NewNative(st, o)
}

// nativeQueries are the two ways to give a native store's queries.
type nativeQueries struct{ file, embeddings string }

func (q *nativeQueries) register(fs *flag.FlagSet) {
	fs.StringVar(&q.file, "queries", "", "native stores: the queries to replay (the importer's queries format, node ids as the store names them)")
	fs.StringVar(&q.embeddings, "query-embeddings", "", "HippoRAG 2 stores: query embeddings (JSON Lines, docs/STORES.md) from which HippoRAG 2's reset vectors are rebuilt")
}

func (q nativeQueries) given() bool { return q.file != "" || q.embeddings != "" }

// loadFor reads the queries, when given, against st's graph (none: nil),
// refusing a store that keeps no graph with the registry's reason.
func (q nativeQueries) loadFor(ctx context.Context, path string, st *storemodel.Store) ([]replay.Query, error) {
	if !q.given() {
		return nil, nil
	}
	if ok, why := stores.Supports(st, storemodel.CmdReplay); !ok {
		return nil, usagef("--queries: %s", why)
	}
	g, _, err := storereplay.Graph(st)
	if err != nil {
		return nil, err
	}
	return q.load(ctx, path, st, g)
}

// load reads the queries; with --query-embeddings the reset vectors are
// HippoRAG 2's, built from the store's fact and passage embeddings, and the
// store's notes say what is not reproduced.
func (q nativeQueries) load(ctx context.Context, path string, st *storemodel.Store, g *replay.Graph) ([]replay.Query, error) {
	switch {
	case q.file != "" && q.embeddings != "":
		return nil, usagef("give --queries or --query-embeddings, not both")
	case q.file != "":
		return readStoreQueries(g, q.file)
	}
	if !stores.ReaderOf(st).QueryEmbeddings {
		return nil, usagef("--query-embeddings: only HippoRAG 2 stores keep the fact and passage embeddings its retrieval scores; give --queries")
	}
	qes, err := hipporag.ReadQueryEmbeddings(ctx, q.embeddings)
	if err != nil {
		return nil, usagef("--query-embeddings: %v", err)
	}
	r, err := hipporag.OpenRetrieval(ctx, path, st)
	if err != nil {
		return nil, err
	}
	qs, err := storereplay.EmbeddedQueries(r, q.embeddings, qes)
	if err != nil {
		return nil, err
	}
	st.Notes = append(st.Notes, hipporag.NotReproduced)
	return qs, nil
}
