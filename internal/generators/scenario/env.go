// Package scenario generates memscope's seed evidence: deterministic stores
// (same seed, same bytes) for a clean agent memory and for each attack and
// tampering case, each with a manifest saying what a responder should find.
// Every fixture of the project's tests comes from here.
package scenario

import (
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"golang.org/x/mod/sumdb/note"

	"github.com/memscope/memscope/evidence"
	"github.com/memscope/memscope/evidence/record"
	"github.com/memscope/memscope/evidence/seedgen"
	"github.com/memscope/memscope/evidence/tlog/appender"
	"github.com/memscope/memscope/evidence/writer"
	"github.com/memscope/memscope/replay"
)

// baseTime is the scenarios' clock origin: 2026-03-02T09:00:00Z.
const baseTime = int64(1772442000) * 1e9

// env is the state of one scenario being generated.
type env struct {
	ctx      context.Context
	dir      string
	seed     uint64
	keys     *seedgen.Gen // principal and root keys: shared by every scenario of a seed
	gen      *seedgen.Gen // ids, nonces, log key and choices: per scenario
	root     ed25519.PrivateKey
	signer   note.Signer
	vkey     string
	st       *writer.Store
	log      *appender.Writer
	clock    int64
	hmacKey  []byte
	man      evidence.Manifest
	byName   map[string]record.ID // entries by a scenario-local handle
	passages map[string]string    // passage node id by handle
	// The graph as written so far, so that a query records the selection
	// the agent's selector (PPR on G) showed it at that moment.
	nodes []replay.Node
	edges []replay.Edge
	// added records every record id the scenario stored, by table, so a
	// phased scenario can say what each phase added.
	added map[string][]string
	// deferQueries: the scenario records its queries itself, later.
	deferQueries bool
}

func newEnv(ctx context.Context, dir, name string, seed uint64, withHMAC bool) (*env, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	e := &env{ctx: ctx, dir: dir, seed: seed, keys: seedgen.New(seed, "scenario"), gen: seedgen.New(seed, "scenario:"+name),
		byName: map[string]record.ID{}, passages: map[string]string{}, clock: baseTime, added: map[string][]string{}}
	rootSeed := e.keys.Derive("registry-root")
	e.root = ed25519.NewKeyFromSeed(rootSeed[:])
	origin := "memscope.example/log/" + name
	signer, vkey, err := e.gen.NoteKey(origin)
	if err != nil {
		return nil, err
	}
	e.signer, e.vkey = signer, vkey
	if withHMAC {
		k := e.gen.Derive("hmac")
		e.hmacKey = k[:]
	}
	if e.log, err = appender.Create(ctx, filepath.Join(dir, evidence.LogDir), e.signer); err != nil {
		return nil, err
	}
	rootPub := e.root.Public().(ed25519.PublicKey)
	// The commit gate is the store's write path, so it signs the store's
	// own rows (meta values, checkpoint sightings, vectors) when the store
	// is closed or copied; base() registers it first.
	opNonce := e.gen.Derive("operator")
	operator := &writer.Signer{Principal: gatePrincipal, Key: e.key(gatePrincipal)}
	copy(operator.Nonce[:], opNonce[:])
	e.st, err = writer.Create(writer.Config{
		Operator:     operator,
		SnapshotPath: filepath.Join(dir, evidence.SnapshotFile),
		Log:          e.log,
		LogSigner:    e.signer,
		Origin:       origin,
		LogVerifier:  vkey,
		RootKeys:     []ed25519.PublicKey{rootPub},
		HMACKey:      e.hmacKey,
	})
	if err != nil {
		return nil, err
	}
	e.man = evidence.Manifest{Name: name, Snapshot: evidence.SnapshotFile, Log: evidence.LogDir, Seed: seed,
		Anchors: evidence.Anchors{LogKey: vkey, Trust: []string{hex.EncodeToString(rootPub)}}}
	return e, nil
}

// tick advances the scenario clock by about a second.
func (e *env) tick() uint64 {
	e.clock += 1e9 + int64(e.gen.Rand().IntN(1000))*1e6
	return uint64(e.clock)
}

// newID makes a UUIDv7 from the clock and the scenario's random stream.
func (e *env) newID(ts uint64) record.ID { return e.gen.ID(ts) }

func (e *env) nonce() [16]byte { return e.gen.Nonce() }

// key returns the deterministic private key of a principal (generation).
func (e *env) key(principal string) ed25519.PrivateKey { return e.keys.Key(principal) }

// register adds a principal key to the registry, signed by the root.
func (e *env) register(principal, channel string) error {
	pub := e.key(principal).Public().(ed25519.PublicKey)
	ts := e.tick()
	ev := &record.PrincipalEvent{RID: e.newID(ts), Op: record.OpRegister, Principal: principal, Channel: channel, TS: ts, Nonce: e.nonce()}
	copy(ev.PublicKey[:], pub)
	e.added["principals"] = append(e.added["principals"], ev.RID.String())
	return e.st.Register(e.ctx, ev, e.root)
}

// entry writes a signed entry and remembers it under handle.
func (e *env) entry(handle, writerName, content string, trust record.Trust, parents []string, weights []float64, session string) (*record.Entry, error) {
	ts := e.tick()
	en := &record.Entry{EID: e.newID(ts), Content: content, Writer: writerName, Trust: trust, TS: ts, Nonce: e.nonce()}
	en.HSrc = sha256.Sum256([]byte("src:" + writerName + ":" + handle))
	en.HCtx = sha256.Sum256([]byte("ctx:" + handle))
	for _, p := range parents {
		id, ok := e.byName[p]
		if !ok {
			return nil, fmt.Errorf("scenario: unknown parent handle %q", p)
		}
		en.Parents = append(en.Parents, id)
	}
	en.Weights = append(en.Weights, weights...)
	if err := e.st.AddEntry(e.ctx, en, e.key(writerName), writer.EntryOptions{SessionID: session}); err != nil {
		return nil, err
	}
	if handle != "" {
		e.byName[handle] = en.EID
	}
	e.added["entries"] = append(e.added["entries"], en.EID.String())
	return en, nil
}

// Principals that sign what the agent did: its queries and actions, and
// its commit gate's decisions.
const (
	agentPrincipal = "agent:planner"
	gatePrincipal  = "tool:commit-gate"
)

// signAs signs an event record as principal, with the next nonce.
func (e *env) signAs(principal string) writer.Signer {
	return writer.Signer{Principal: principal, Key: e.key(principal), Nonce: e.nonce()}
}

// action signs and stores an action (the agent's) and remembers its id.
func (e *env) action(a writer.Action) error {
	e.added["actions"] = append(e.added["actions"], a.ID)
	return e.st.RecordAction(e.ctx, a, e.signAs(agentPrincipal))
}

// gateEvent signs and stores a commit-gate decision as the gate.
func (e *env) gateEvent(g writer.GateEvent) error {
	return e.st.RecordGateEvent(e.ctx, g, e.signAs(gatePrincipal))
}

// node signs and stores a node declaration as its writer.
func (e *env) node(n writer.Node, writerName string) error {
	n.TS = e.clock
	return e.st.DeclareNode(e.ctx, n, e.signAs(writerName))
}

func (e *env) id(handle string) record.ID {
	id, ok := e.byName[handle]
	if !ok {
		panic("scenario: unknown handle " + handle)
	}
	return id
}

// expectAction records the decisions the defences should reach on an
// action: none, ifc, memlineage, authselect, then smsr, which is "allow"
// when the scenario has an HMAC key (every justifying tag verifies) and
// "not checked" otherwise.
func (e *env) expectAction(id, none, ifc, memlineage, authselect string) {
	if e.man.ExpectedActions == nil {
		e.man.ExpectedActions = map[string]map[string]string{}
	}
	sm := "not checked"
	if e.hmacKey != nil {
		sm = "allow"
	}
	e.man.ExpectedActions[id] = map[string]string{"none": none, "ifc": ifc, "memlineage": memlineage, "authselect": authselect, "smsr": sm}
}

// ids resolves handles to record ids.
func (e *env) ids(handles ...string) []record.ID {
	out := make([]record.ID, len(handles))
	for i, h := range handles {
		out[i] = e.id(h)
	}
	return out
}

// finish closes the store and writes the manifest, anchors and README.
func (e *env) finish(expected []string, expect string) (*evidence.Manifest, error) {
	if _, err := e.st.Close(e.ctx); err != nil {
		return nil, err
	}
	// Every table of a generated store is signed (nodes, queries, actions
	// and gate events by the principals that produced them, sessions in
	// their entries), so no scenario expects TABLE_UNSIGNED.
	sort.Strings(expected)
	e.man.ExpectedFindings = expected
	e.man.Expect = expect
	e.man.VerifyArgs = []string{evidence.SnapshotFile, "--log", evidence.LogDir, "--log-key", evidence.LogKeyFile, "--trust", evidence.TrustFile}
	if e.hmacKey != nil {
		if err := os.WriteFile(filepath.Join(e.dir, evidence.HMACKeyFile), []byte(hex.EncodeToString(e.hmacKey)+"\n"), 0o644); err != nil {
			return nil, err
		}
		e.man.HMACKeyFile = evidence.HMACKeyFile
		e.man.VerifyArgs = append(e.man.VerifyArgs, "--hmac-key", evidence.HMACKeyFile)
	}
	files := map[string]string{
		evidence.TrustFile:  e.man.Anchors.Trust[0] + "\n",
		evidence.LogKeyFile: e.vkey + "\n",
		"README.md": fmt.Sprintf("# Scenario %s\n\n%s\n\nA responder should find: %s\n\nCheck it with:\n\n    memscope verify %s\n",
			e.man.Name, e.man.Description, expect, joinArgs(e.man.VerifyArgs)),
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(e.dir, name), []byte(body), 0o644); err != nil {
			return nil, err
		}
	}
	b, err := json.MarshalIndent(e.man, "", "  ")
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(e.dir, evidence.ManifestFile), append(b, '\n'), 0o644); err != nil {
		return nil, err
	}
	m := e.man
	return &m, nil
}

func joinArgs(a []string) string {
	s := ""
	for i, x := range a {
		if i > 0 {
			s += " "
		}
		s += x
	}
	return s
}

// chainStep is one entry a scenario writes: handle names it for later
// steps, parents (by handle) and weights are its derivation edges.
type chainStep struct {
	handle, writer, text string
	trust                record.Trust
	parents              []string
	weights              []float64
}

// entries writes steps in order in session and returns each written
// entry by handle.
func (e *env) entries(steps []chainStep, session string) (map[string]*record.Entry, error) {
	out := make(map[string]*record.Entry, len(steps))
	for _, s := range steps {
		en, err := e.entry(s.handle, s.writer, s.text, s.trust, s.parents, s.weights, session)
		if err != nil {
			return nil, err
		}
		out[s.handle] = en
	}
	return out, nil
}
