package record

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"math"
	"unicode/utf8"

	"github.com/fxamacker/cbor/v2"
)

// Kinds of the records that sign what an agent did rather than what its
// memory holds: the queries it ran, the actions it took, its commit gate's
// decisions and the graph's node declarations. Each is signed by the
// principal that produced it and logged under a leaf that names its kind.
const (
	KindQuery  = "query"
	KindAction = "action"
	KindGate   = "gate"
	KindNode   = "node"
)

// EventKinds lists the kinds of records logged under a kind-tagged leaf,
// in a fixed order: the event records, then the store's own (store.go), then
// import notes (importnote.go).
var EventKinds = []string{KindQuery, KindAction, KindGate, KindNode, KindConfig, KindCheckpoint, KindVector, KindImportNote}

// Bounds of event records. A query's reset vector and dense scores hold one
// value per graph node at most, so they get far more room than an entry's
// parents; MaxRecordBytes still bounds the whole record.
const (
	MaxEventItems = 1 << 16
	MaxTextBytes  = MaxContentBytes
)

// eventDecMode is decMode with room for the maps and lists of event records.
var eventDecMode = func() cbor.DecMode {
	m, err := cbor.DecOptions{
		DupMapKey:         cbor.DupMapKeyEnforcedAPF,
		IndefLength:       cbor.IndefLengthForbidden,
		TagsMd:            cbor.TagsForbidden,
		ExtraReturnErrors: cbor.ExtraDecErrorUnknownField,
		UTF8:              cbor.UTF8RejectInvalid,
		FieldNameMatching: cbor.FieldNameMatchingCaseSensitive,
		MaxNestedLevels:   6,
		MaxArrayElements:  MaxEventItems,
		MaxMapPairs:       MaxEventItems,
		NaN:               cbor.NaNDecodeForbidden,
		Inf:               cbor.InfDecodeForbidden,
	}.DecMode()
	if err != nil {
		panic(err)
	}
	return m
}()

// Query is a retrieval an agent ran, signed by the principal that ran it:
// the text, k, the selector's input (reset vector, dense scores) and the
// selection it was shown. Dense and Selected are null when not recorded.
type Query struct {
	V        uint               `cbor:"v"`
	Kind     string             `cbor:"kind"`
	Name     string             `cbor:"name"` // the query's id in the store
	Text     string             `cbor:"text"`
	K        uint               `cbor:"k"`
	Reset    map[string]float64 `cbor:"reset"`
	Dense    map[string]float64 `cbor:"dense"`
	Selected []string           `cbor:"selected"`
	Writer   string             `cbor:"writer"`
	KID      KeyID              `cbor:"kid"`
	TS       uint64             `cbor:"ts"`
	Nonce    [16]byte           `cbor:"nonce"`
	Sig      []byte             `cbor:"sig"`
}

// ParamSources are the entries behind one action parameter: those its value
// came from and the others that offered a value.
type ParamSources struct {
	From []ID `cbor:"from"`
	Alt  []ID `cbor:"alt"`
}

// Action is a tool call, signed by the agent that made it. Query is the
// query whose selection it followed ("" for none); Sources is null when the
// agent did not record per-parameter sources.
type Action struct {
	V             uint                    `cbor:"v"`
	Kind          string                  `cbor:"kind"`
	Name          string                  `cbor:"name"` // the action's id in the store
	Tool          string                  `cbor:"tool"`
	Params        map[string]string       `cbor:"params"`
	Justification []ID                    `cbor:"justification"`
	Query         string                  `cbor:"query"`
	Sources       map[string]ParamSources `cbor:"sources"`
	Dispatched    bool                    `cbor:"dispatched"`
	Writer        string                  `cbor:"writer"`
	KID           KeyID                   `cbor:"kid"`
	TS            uint64                  `cbor:"ts"`
	Nonce         [16]byte                `cbor:"nonce"`
	Sig           []byte                  `cbor:"sig"`
}

// GateEvent is one commit-gate decision over a candidate record, signed by
// the gate's principal.
type GateEvent struct {
	V             uint     `cbor:"v"`
	Kind          string   `cbor:"kind"`
	Name          string   `cbor:"name"` // the event's id in the store
	Candidate     ID       `cbor:"candidate"`
	CandidateHash [32]byte `cbor:"candidate_hash"`
	Verdict       string   `cbor:"verdict"`
	Reason        string   `cbor:"reason"`
	VersionBefore uint64   `cbor:"version_before"`
	VersionAfter  uint64   `cbor:"version_after"`
	Writer        string   `cbor:"writer"`
	KID           KeyID    `cbor:"kid"`
	TS            uint64   `cbor:"ts"`
	Nonce         [16]byte `cbor:"nonce"`
	Sig           []byte   `cbor:"sig"`
}

// Node declares a vertex of the graph memory, signed by its writer (for a
// passage, the writer of the entry it shows). EID is null for an entity.
type Node struct {
	V        uint     `cbor:"v"`
	Kind     string   `cbor:"kind"`
	Name     string   `cbor:"name"` // the node id
	NodeKind string   `cbor:"node_kind"`
	Label    string   `cbor:"label"`
	EID      *ID      `cbor:"eid"`
	Writer   string   `cbor:"writer"`
	KID      KeyID    `cbor:"kid"`
	TS       uint64   `cbor:"ts"`
	Nonce    [16]byte `cbor:"nonce"`
	Sig      []byte   `cbor:"sig"`
}

// EventID is the 16-byte log id of an event record: the first 16 bytes of
// SHA-256("memscope/" kind 0x00 name). Rows are keyed by a text name, and a
// fixed-size id lets the log and the verifier find a record by it.
func EventID(kind, name string) ID {
	h := sha256.New()
	h.Write([]byte("memscope/" + kind))
	h.Write([]byte{0})
	h.Write([]byte(name))
	var id ID
	copy(id[:], h.Sum(nil))
	return id
}

// EventLeafPrefix is the start of an event record's leaf: its kind and ':'.
func EventLeafPrefix(kind string) []byte { return []byte(kind + ":") }

// EventLeaf is the log leaf of an event record: kind ":" || id || sig. The
// kind in clear lets the log alone say that a leaf is, say, an action.
func EventLeaf(kind string, id ID, sig []byte) []byte {
	leaf := make([]byte, 0, len(kind)+1+RecordLeafSize)
	leaf = append(leaf, kind...)
	leaf = append(leaf, ':')
	leaf = append(leaf, id[:]...)
	return append(leaf, sig...)
}

// parseEventLeaf recognises an event leaf, or reports ok false.
func parseEventLeaf(leaf []byte) (ParsedLeaf, bool) {
	for _, k := range EventKinds {
		p := EventLeafPrefix(k)
		if len(leaf) == len(p)+RecordLeafSize && bytes.HasPrefix(leaf, p) {
			var id ID
			copy(id[:], leaf[len(p):len(p)+16])
			return ParsedLeaf{Kind: LeafEvent, EventKind: k, ID: id, Sig: leaf[len(p)+16:]}, true
		}
	}
	return ParsedLeaf{}, false
}

func checkText(kind, id, field, s string, limit int) error {
	if len(s) > limit {
		return &FieldError{Kind: kind, ID: id, Field: field, Reason: fmt.Sprintf("%d bytes, limit %d", len(s), limit)}
	}
	if !utf8.ValidString(s) {
		return &FieldError{Kind: kind, ID: id, Field: field, Reason: "not UTF-8"}
	}
	return nil
}

// checkEventHead applies the checks every event record shares.
func checkEventHead(kind string, v uint, gotKind, name, writer string, sig []byte) error {
	if err := checkHeader(kind, name, v, gotKind); err != nil {
		return err
	}
	if r := NameProblem(name); r != "" {
		return &FieldError{Kind: kind, Field: "name", Reason: r}
	}
	if r := PrincipalProblem(writer); r != "" {
		return &FieldError{Kind: kind, ID: name, Field: "writer", Reason: r}
	}
	return checkSig(kind, name, sig)
}

func finiteMap(kind, id, field string, m map[string]float64) error {
	for k, x := range m {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return &FieldError{Kind: kind, ID: id, Field: field, Reason: fmt.Sprintf("value for %q is not finite", k)}
		}
		if r := NameProblem(k); r != "" {
			return &FieldError{Kind: kind, ID: id, Field: field, Reason: "node id " + r}
		}
	}
	return nil
}

// decodeEvent is decodeStrict with the event bounds; the name pair, when
// readable, identifies the record in errors.
func decodeEvent(kind string, raw []byte, out any) error {
	err := decodeStrictWith(eventDecMode, kind, raw, out)
	if err == nil {
		return nil
	}
	if fe, ok := err.(*FieldError); ok && fe.ID == "" {
		pairs, _ := topLevelPairs(raw)
		for _, p := range pairs {
			var s string
			if p.key == "name" && lenientMode.Unmarshal(p.value, &s) == nil && NameProblem(s) == "" {
				fe.ID = s
			}
		}
	}
	return err
}

// DecodeQuery decodes and validates a query record.
func DecodeQuery(raw []byte) (*Query, error) {
	var q Query
	if err := decodeEvent(KindQuery, raw, &q); err != nil {
		return nil, err
	}
	if err := checkEventHead(KindQuery, q.V, q.Kind, q.Name, q.Writer, q.Sig); err != nil {
		return nil, err
	}
	if err := checkText(KindQuery, q.Name, "text", q.Text, MaxTextBytes); err != nil {
		return nil, err
	}
	if q.K == 0 || q.K > 1000 {
		return nil, &FieldError{Kind: KindQuery, ID: q.Name, Field: "k", Reason: fmt.Sprintf("%d is outside 1..1000", q.K)}
	}
	if q.Reset == nil {
		return nil, &FieldError{Kind: KindQuery, ID: q.Name, Field: "reset", Reason: "null; a query records its reset vector"}
	}
	if err := finiteMap(KindQuery, q.Name, "reset", q.Reset); err != nil {
		return nil, err
	}
	if err := finiteMap(KindQuery, q.Name, "dense", q.Dense); err != nil {
		return nil, err
	}
	for _, s := range q.Selected {
		if r := NameProblem(s); r != "" {
			return nil, &FieldError{Kind: KindQuery, ID: q.Name, Field: "selected", Reason: "node id " + r}
		}
	}
	return &q, nil
}

// DecodeAction decodes and validates an action record.
func DecodeAction(raw []byte) (*Action, error) {
	var a Action
	if err := decodeEvent(KindAction, raw, &a); err != nil {
		return nil, err
	}
	if err := checkEventHead(KindAction, a.V, a.Kind, a.Name, a.Writer, a.Sig); err != nil {
		return nil, err
	}
	if r := NameProblem(a.Tool); r != "" {
		return nil, &FieldError{Kind: KindAction, ID: a.Name, Field: "tool", Reason: r}
	}
	if a.Query != "" {
		if r := NameProblem(a.Query); r != "" {
			return nil, &FieldError{Kind: KindAction, ID: a.Name, Field: "query", Reason: r}
		}
	}
	if a.Params == nil || a.Justification == nil {
		return nil, &FieldError{Kind: KindAction, ID: a.Name, Field: "params", Reason: "params and justification are never null"}
	}
	for k, v := range a.Params {
		if err := checkText(KindAction, a.Name, "params", k+v, MaxTextBytes); err != nil {
			return nil, err
		}
	}
	return &a, nil
}

// DecodeGateEvent decodes and validates a commit-gate event record.
func DecodeGateEvent(raw []byte) (*GateEvent, error) {
	var g GateEvent
	if err := decodeEvent(KindGate, raw, &g); err != nil {
		return nil, err
	}
	if err := checkEventHead(KindGate, g.V, g.Kind, g.Name, g.Writer, g.Sig); err != nil {
		return nil, err
	}
	if g.Verdict != "accept" && g.Verdict != "reject" {
		return nil, &FieldError{Kind: KindGate, ID: g.Name, Field: "verdict", Reason: fmt.Sprintf("%q is not accept or reject", g.Verdict)}
	}
	if err := checkText(KindGate, g.Name, "reason", g.Reason, MaxReasonBytes); err != nil {
		return nil, err
	}
	if g.VersionBefore > math.MaxInt64 || g.VersionAfter > math.MaxInt64 {
		return nil, &FieldError{Kind: KindGate, ID: g.Name, Field: "version_after", Reason: "beyond 2^63-1"}
	}
	return &g, nil
}

// DecodeNode decodes and validates a node declaration record.
func DecodeNode(raw []byte) (*Node, error) {
	var n Node
	if err := decodeEvent(KindNode, raw, &n); err != nil {
		return nil, err
	}
	if err := checkEventHead(KindNode, n.V, n.Kind, n.Name, n.Writer, n.Sig); err != nil {
		return nil, err
	}
	switch n.NodeKind {
	case "passage", "entity":
	default:
		return nil, &FieldError{Kind: KindNode, ID: n.Name, Field: "node_kind", Reason: fmt.Sprintf("%q is not passage or entity", n.NodeKind)}
	}
	if err := checkText(KindNode, n.Name, "label", n.Label, MaxTextBytes); err != nil {
		return nil, err
	}
	return &n, nil
}
