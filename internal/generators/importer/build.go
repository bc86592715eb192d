package importer

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/memscope/memscope/evidence/seedgen"
	"github.com/memscope/memscope/internal/generators/graphfile"

	"github.com/memscope/memscope/evidence"
	"github.com/memscope/memscope/evidence/record"
	"github.com/memscope/memscope/evidence/snapshot"
	"github.com/memscope/memscope/evidence/tlog/appender"
	"github.com/memscope/memscope/evidence/writer"
)

// DefaultWriter signs passages and edges whose row names no writer.
const DefaultWriter = "tool:import"

// SignedByImporter is Info.SignedBy: the signatures attest the import.
const SignedByImporter = "importer"

// importBase is the import clock origin (2026-01-01T00:00:00Z): inputs carry
// no timestamps, so records get synthetic ones in input order, 1 ms apart.
const importBase = int64(1767225600) * 1e9

// Options describe one import.
type Options struct {
	Nodes, Edges string           // required input files
	Queries      string           // optional
	Format       graphfile.Format // "" picks by extension, per file
	Out          string           // must not exist, or be an empty directory
	Seed         uint64
	// DefaultWriter signs rows that name no writer ("" means DefaultWriter).
	DefaultWriter string
}

// InputFile describes one input in the manifest.
type InputFile struct {
	Role   string           `json:"role"` // nodes, edges or queries
	Name   string           `json:"name"` // base name
	Format graphfile.Format `json:"format"`
	SHA256 string           `json:"sha256"`
	Rows   int              `json:"rows"`
}

// Principal is one writer the importer registered.
type Principal struct {
	Name      string `json:"name"`
	Channel   string `json:"channel"`
	PublicKey string `json:"public_key"` // hex
	// Why says how the channel was chosen.
	Why string `json:"why"`
}

// Info is the import's own account: the value of the MetaImport key and
// the manifest's "import" member.
type Info struct {
	Tool     string `json:"tool"`
	SignedBy string `json:"signed_by"`
	Notice   string `json:"notice"`
	// KeySeed is the seed every private key was derived from.
	KeySeed    uint64      `json:"key_seed"`
	Inputs     []InputFile `json:"inputs"`
	Principals []Principal `json:"principals"`
	Entries    int         `json:"entries"`
	Entities   int         `json:"entities"`
	Writes     int         `json:"writes"`
	NoSource   int         `json:"no_source_writes"`
	Queries    int         `json:"queries"`
	// Declared counts the writes with a declared label, by label.
	Declared map[string]int `json:"declared"`
	Warnings []string       `json:"warnings"`
}

// Manifest is DIR/scenario.json for an imported store: the scenario
// manifest (so --anchors and the inspector's picker read it) plus Info.
type Manifest struct {
	evidence.Manifest
	Import Info `json:"import"`
}

const notice = "Every record in this store was signed by memscope import, with keys it derived from the seed, " +
	"on behalf of the writers named in the input. A valid signature shows the record is unchanged since the import; " +
	"it does not show that the named writer wrote it. Provenance labels from the input are declared (table " +
	snapshot.ImportNoteTable + "), not verified."

// Import reads, validates and writes one import. Nothing is written unless
// every input file parses and validates.
func Import(ctx context.Context, opt Options) (*Manifest, error) {
	g, inputs, err := Load(opt)
	if err != nil {
		return nil, err
	}
	return Write(ctx, g, inputs, opt)
}

// MaxInputFile bounds each file import reads (it reads them whole): an
// export of a million-edge graph is a few hundred megabytes.
const MaxInputFile = 2 << 30

// Load reads and validates the input files.
func Load(opt Options) (*graphfile.Graph, []InputFile, error) {
	if opt.Nodes == "" || opt.Edges == "" {
		return nil, nil, errors.New("importer: both a nodes file and an edges file are required")
	}
	g := &graphfile.Graph{NodesFile: opt.Nodes, EdgesFile: opt.Edges, QueriesFile: opt.Queries}
	var inputs []InputFile
	read := func(role, path string, parse func(name string, data []byte, f graphfile.Format) (int, error)) error {
		f, err := graphfile.DetectFormat(path, opt.Format)
		if err != nil {
			return err
		}
		data, err := evidence.ReadFile(path, MaxInputFile)
		if err != nil {
			return err
		}
		n, err := parse(path, data, f)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(data)
		inputs = append(inputs, InputFile{Role: role, Name: filepath.Base(path), Format: f, SHA256: hex.EncodeToString(sum[:]), Rows: n})
		return nil
	}
	err := read("nodes", opt.Nodes, func(name string, data []byte, f graphfile.Format) (n int, err error) {
		g.Nodes, err = graphfile.ReadNodes(name, bytes.NewReader(data), f)
		return len(g.Nodes), err
	})
	if err == nil {
		err = read("edges", opt.Edges, func(name string, data []byte, f graphfile.Format) (n int, err error) {
			g.Edges, err = graphfile.ReadEdges(name, bytes.NewReader(data), f)
			return len(g.Edges), err
		})
	}
	if err == nil && opt.Queries != "" {
		err = read("queries", opt.Queries, func(name string, data []byte, f graphfile.Format) (n int, err error) {
			g.Queries, err = graphfile.ReadQueries(name, bytes.NewReader(data), f)
			return len(g.Queries), err
		})
	}
	if err != nil {
		return nil, nil, err
	}
	if len(g.Nodes) == 0 {
		return nil, nil, &graphfile.InputError{File: opt.Nodes, Err: errors.New("no nodes")}
	}
	if err := g.Validate(); err != nil {
		return nil, nil, err
	}
	return g, inputs, nil
}

// build is the state of one import being written.
type build struct {
	ctx   context.Context
	gen   *seedgen.Gen
	clock int64
	st    *writer.Store
}

func (b *build) tick() uint64 {
	b.clock += 1e6
	return uint64(b.clock)
}

func (b *build) newID(ts uint64) record.ID { return b.gen.ID(ts) }

func (b *build) nonce() [16]byte { return b.gen.Nonce() }

func (b *build) key(principal string) ed25519.PrivateKey { return b.gen.Key(principal) }

// defaultTrust is a passage's trust when its row gives none: the writer
// class decides (user content is Trusted, external content External).
func defaultTrust(writerName string) record.Trust {
	switch {
	case writerName == "user":
		return record.Trusted
	case strings.HasPrefix(writerName, "external:"):
		return record.External
	}
	return record.DerivedTrusted
}

// principals lists the writers in order of first use with their channels.
func principals(g *graphfile.Graph, defWriter string) ([]Principal, []string) {
	type state struct {
		p          Principal
		auth, unau int
	}
	var order []string
	by := map[string]*state{}
	use := func(name string) *state {
		if s, ok := by[name]; ok {
			return s
		}
		s := &state{p: Principal{Name: name}}
		by[name] = s
		order = append(order, name)
		return s
	}
	for _, n := range g.Nodes {
		if n.Kind == snapshot.NodePassage {
			use(or(n.Writer, defWriter))
		}
	}
	for _, e := range g.Edges {
		s := use(or(e.Writer, defWriter))
		switch e.Declared {
		case graphfile.LabelAuthenticated:
			s.auth++
		case graphfile.LabelUnauthenticated:
			s.unau++
		}
	}
	var out []Principal
	var warnings []string
	for _, name := range order {
		s := by[name]
		switch {
		case strings.HasPrefix(name, "external:"):
			s.p.Channel, s.p.Why = record.ChannelUnauthenticated, "external principal class"
		case s.unau > 0:
			s.p.Channel = record.ChannelUnauthenticated
			s.p.Why = fmt.Sprintf("%d write(s) declared unauthenticated", s.unau)
			if s.auth > 0 {
				warnings = append(warnings, fmt.Sprintf("writer %s has %d write(s) declared authenticated and %d declared unauthenticated; "+
					"it is registered with channel unauthenticated, so only the declared label policy keeps its authenticated writes in G_auth", name, s.auth, s.unau))
			}
		default:
			s.p.Channel, s.p.Why = record.ChannelAuthenticated, "no write declared unauthenticated"
		}
		out = append(out, s.p)
	}
	return out, warnings
}

func or(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// Write signs and writes a validated import into opt.Out. On failure it
// removes what it wrote.
func Write(ctx context.Context, g *graphfile.Graph, inputs []InputFile, opt Options) (m *Manifest, err error) {
	if err := g.Validate(); err != nil {
		return nil, err
	}
	defWriter := or(opt.DefaultWriter, DefaultWriter)
	if reason := principalProblem(defWriter); reason != "" {
		return nil, fmt.Errorf("importer: default writer %q: %s", defWriter, reason)
	}
	if opt.Out == "" {
		return nil, errors.New("importer: no output directory")
	}
	if ents, err := os.ReadDir(opt.Out); err == nil && len(ents) > 0 {
		return nil, fmt.Errorf("importer: %s is not empty; evidence is never overwritten, pick a new --out directory", opt.Out)
	} else if err != nil && !os.IsNotExist(err) {
		return nil, fmt.Errorf("importer: %w", err)
	}
	_, statErr := os.Stat(opt.Out)
	created := os.IsNotExist(statErr)
	if err := os.MkdirAll(opt.Out, 0o755); err != nil {
		return nil, fmt.Errorf("importer: %w", err)
	}
	defer func() {
		if err == nil {
			return
		}
		// Only what this call created: the directory was empty or absent.
		if created {
			os.RemoveAll(opt.Out)
			return
		}
		ents, _ := os.ReadDir(opt.Out)
		for _, e := range ents {
			os.RemoveAll(filepath.Join(opt.Out, e.Name()))
		}
	}()
	m, err = write(ctx, g, inputs, opt, defWriter)
	return m, err
}

func write(ctx context.Context, g *graphfile.Graph, inputs []InputFile, opt Options, defWriter string) (*Manifest, error) {
	// Cleanup after a failure must stop the log's background work even when
	// the failure was a cancelled context, before the caller removes files.
	cleanupCtx := context.WithoutCancel(ctx)
	b := &build{ctx: ctx, gen: seedgen.New(opt.Seed, "memscope-import"), clock: importBase}
	// The origin names the input so that two imports' checkpoints are never
	// confused; it is derived from the input hashes, not from paths.
	h := sha256.New()
	for _, in := range inputs {
		h.Write([]byte(in.Role + "\x00" + in.SHA256 + "\x00"))
	}
	origin := "import.memscope.local/" + hex.EncodeToString(h.Sum(nil)[:8])
	signer, vkey, err := b.gen.NoteKey(origin)
	if err != nil {
		return nil, err
	}
	rootSeed := b.gen.Derive("registry-root")
	root := ed25519.NewKeyFromSeed(rootSeed[:])
	rootPub := root.Public().(ed25519.PublicKey)

	log, err := appender.Create(ctx, filepath.Join(opt.Out, evidence.LogDir), signer)
	if err != nil {
		return nil, err
	}
	names := make([]string, len(inputs))
	for i, in := range inputs {
		names[i] = in.Name
	}
	b.st, err = writer.Create(writer.Config{
		SnapshotPath: filepath.Join(opt.Out, evidence.SnapshotFile),
		Log:          log,
		LogSigner:    signer,
		Origin:       origin,
		LogVerifier:  vkey,
		RootKeys:     []ed25519.PublicKey{rootPub},
		Description:  fmt.Sprintf("Imported by memscope import from %s (seed %d). %s", strings.Join(names, ", "), opt.Seed, notice),
	})
	if err != nil {
		log.Close(cleanupCtx)
		return nil, err
	}
	nodesHash := ""
	for _, in := range inputs {
		if in.Role == "nodes" {
			nodesHash = in.SHA256
		}
	}
	info, err := b.fill(g, defWriter, nodesHash, root)
	if err != nil {
		b.st.Close(cleanupCtx)
		return nil, err
	}
	info.Tool, info.SignedBy, info.Notice, info.KeySeed, info.Inputs = "memscope import", SignedByImporter, notice, opt.Seed, inputs
	meta, _ := json.Marshal(info)
	if err := b.st.SetMeta(snapshot.MetaImport, string(meta)); err != nil {
		b.st.Close(cleanupCtx)
		return nil, err
	}
	// A cancelled import must fail whatever stage Tessera was at.
	if err := ctx.Err(); err != nil {
		b.st.Close(cleanupCtx)
		return nil, err
	}
	if _, err := b.st.Close(ctx); err != nil {
		return nil, err
	}
	man := &Manifest{Import: *info}
	man.Name = "import"
	man.Description = fmt.Sprintf("Graph imported from %s by memscope import.", strings.Join(names, ", "))
	man.Snapshot, man.Log, man.Seed = evidence.SnapshotFile, evidence.LogDir, opt.Seed
	man.Anchors = evidence.Anchors{LogKey: vkey, Trust: []string{hex.EncodeToString(rootPub)}}
	man.ExpectedFindings = []string{}
	man.VerifyArgs = []string{evidence.SnapshotFile, "--log", evidence.LogDir, "--log-key", evidence.LogKeyFile, "--trust", evidence.TrustFile}
	man.Expect = "no integrity findings: the importer signed every record itself. Provenance labels are declared by the input, not verified."
	mj, err := json.MarshalIndent(man, "", "  ")
	if err != nil {
		return nil, err
	}
	files := []struct{ name, body string }{
		{evidence.TrustFile, man.Anchors.Trust[0] + "\n"},
		{evidence.LogKeyFile, vkey + "\n"},
		{evidence.ManifestFile, string(mj) + "\n"},
		{"README.md", fmt.Sprintf("# Imported graph\n\n%s\n\n%s\n\nCheck it with:\n\n    memscope verify %s\n",
			man.Description, notice, strings.Join(man.VerifyArgs, " "))},
	}
	for _, f := range files {
		if err := os.WriteFile(filepath.Join(opt.Out, f.name), []byte(f.body), 0o644); err != nil {
			return nil, err
		}
	}
	return man, nil
}

// fill registers the principals and writes entries, nodes, structural
// writes, queries, checkpoints and the declared-label meta keys.
func (b *build) fill(g *graphfile.Graph, defWriter, nodesHash string, root ed25519.PrivateKey) (*Info, error) {
	ctx, st := b.ctx, b.st
	prins, warnings := principals(g, defWriter)
	info := &Info{Declared: map[string]int{}, Warnings: warnings}
	if info.Warnings == nil {
		info.Warnings = []string{}
	}
	for i, p := range prins {
		pub := b.key(p.Name).Public().(ed25519.PublicKey)
		ts := b.tick()
		ev := &record.PrincipalEvent{RID: b.newID(ts), Op: record.OpRegister, Principal: p.Name, Channel: p.Channel, TS: ts, Nonce: b.nonce()}
		copy(ev.PublicKey[:], pub)
		if err := st.Register(ctx, ev, root); err != nil {
			return nil, err
		}
		prins[i].PublicKey = hex.EncodeToString(pub)
	}
	info.Principals = prins
	if _, err := st.Checkpoint(int64(b.tick())); err != nil {
		return nil, err
	}
	// h_ctx: the nodes file the entry was imported from (its SHA-256).
	var nodesSum [32]byte
	hex.Decode(nodesSum[:], []byte(nodesHash))
	eids := map[string]record.ID{}
	for _, n := range g.Nodes {
		node := writer.Node{ID: n.ID, Kind: n.Kind, Label: n.Text}
		if n.Kind == snapshot.NodePassage {
			w := or(n.Writer, defWriter)
			trust := defaultTrust(w)
			if n.Trust != nil {
				trust = *n.Trust
			}
			ts := b.tick()
			en := &record.Entry{EID: b.newID(ts), Content: n.Text, Writer: w, Trust: trust, TS: ts, Nonce: b.nonce(),
				HSrc: sha256.Sum256([]byte(n.Text)), HCtx: nodesSum}
			if err := st.AddEntry(ctx, en, b.key(w), writer.EntryOptions{}); err != nil {
				return nil, err
			}
			eid := en.EID
			node.EID = &eid
			eids[n.ID] = eid
			info.Entries++
		} else {
			info.Entities++
		}
		if err := st.AddNode(node); err != nil {
			return nil, err
		}
	}
	for _, e := range g.Edges {
		ts := b.tick()
		w := or(e.Writer, defWriter)
		rec := &record.Write{Kind: e.Kind, WID: b.newID(ts), Src: e.Src, Dst: e.Dst, Rel: e.Rel, Weight: e.Weight, Writer: w, TS: ts, Nonce: b.nonce(),
			Sources: make([]record.ID, len(e.Sources))}
		for i, s := range e.Sources {
			rec.Sources[i] = eids[s]
		}
		if err := st.AddWrite(ctx, rec, b.key(w)); err != nil {
			return nil, err
		}
		if e.Declared != "" || e.ID != "" {
			// The write's input id and declared label, signed by its writer
			// in a note of their own: the write record has no field for
			// them, and the meta table that held them is bounded.
			n := &record.ImportNote{Name: rec.WID.String(), InputID: e.ID, Declared: e.Declared, Writer: w, TS: ts, Nonce: noteNonce(rec.Nonce)}
			if err := st.AddImportNote(ctx, n, b.key(w)); err != nil {
				return nil, err
			}
		}
		if e.Declared != "" {
			info.Declared[e.Declared]++
		}
		if len(e.Sources) == 0 {
			info.NoSource++
		}
		info.Writes++
	}
	for _, q := range g.Queries {
		if err := st.AddQuery(writer.Query{ID: q.ID, Text: q.Text, K: q.K, Reset: q.Reset, Dense: q.Dense, Selected: q.Selected, TS: int64(b.tick())}); err != nil {
			return nil, err
		}
		info.Queries++
	}
	if _, err := st.Checkpoint(int64(b.tick())); err != nil {
		return nil, err
	}
	return info, nil
}

// noteNonce derives an import note's nonce from its write's, so that the
// notes leave the seeded sequence every other record draws from unchanged.
func noteNonce(write [16]byte) [16]byte {
	h := sha256.Sum256(append([]byte("memscope-import-note\x00"), write[:]...))
	var n [16]byte
	copy(n[:], h[:])
	return n
}

// ReadInfo returns the import account stored in a snapshot's meta map;
// ok is false when the snapshot was not written by the importer.
func ReadInfo(meta map[string]string) (info *Info, ok bool, err error) {
	raw, ok := meta[snapshot.MetaImport]
	if !ok {
		return nil, false, nil
	}
	info = &Info{}
	if err := json.Unmarshal([]byte(raw), info); err != nil {
		return nil, true, fmt.Errorf("meta %s: %w", snapshot.MetaImport, err)
	}
	return info, true, nil
}
