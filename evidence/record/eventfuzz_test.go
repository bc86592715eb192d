package record_test

import (
	"crypto/ed25519"
	"testing"

	"github.com/memscope/memscope/evidence/record"
)

// signedEvents are one signed record of each event kind, as a runtime
// writes them (seeds for the fuzzers below).
func signedEvents(t testing.TB) (*record.Query, *record.Action, *record.GateEvent, *record.Node) {
	t.Helper()
	key := testKey(12)
	kid := record.KeyIDOf(key.Public().(ed25519.PublicKey))
	q := &record.Query{V: record.FormatVersion, Kind: record.KindQuery, Name: "q-born-first", Text: "Who was born first?", K: 5,
		Reset: map[string]float64{"entity:Chatwin": 0.5, "entity:Fowler": 0.5}, Dense: map[string]float64{"passage:p1": 0.8},
		Selected: []string{"passage:p1"}, Writer: "agent:planner", KID: kid, TS: 1772442000000000003, Nonce: [16]byte{4}}
	a := &record.Action{V: record.FormatVersion, Kind: record.KindAction, Name: "act-pay", Tool: "transfer_funds",
		Params: map[string]string{"amount": "120", "recipient": "acct-7731"}, Justification: []record.ID{v7(1)}, Query: "q-born-first",
		Sources:    map[string]record.ParamSources{"amount": {From: []record.ID{v7(1)}, Alt: []record.ID{}}},
		Dispatched: true, Writer: "agent:planner", KID: kid, TS: 1772442000000000004, Nonce: [16]byte{5}}
	g := &record.GateEvent{V: record.FormatVersion, Kind: record.KindGate, Name: "gate-1", Candidate: v7(1), CandidateHash: [32]byte{7},
		Verdict: "accept", Reason: "writer authenticated", VersionBefore: 1, VersionAfter: 2, Writer: "tool:commit-gate", KID: kid,
		TS: 1772442000000000005, Nonce: [16]byte{6}}
	eid := v7(1)
	n := &record.Node{V: record.FormatVersion, Kind: record.KindNode, Name: "passage:p1", NodeKind: "passage", Label: "p1", EID: &eid,
		Writer: "agent:planner", KID: kid, TS: 1772442000000000006, Nonce: [16]byte{7}}
	for _, r := range []any{q, a, g, n} {
		if err := record.Sign(r, key); err != nil {
			t.Fatal(err)
		}
	}
	return q, a, g, n
}

// TestEventSeedsDecode keeps the seeds honest: each decodes as its kind.
func TestEventSeedsDecode(t *testing.T) {
	q, a, g, n := signedEvents(t)
	if _, err := record.DecodeQuery(mustEncode(t, q)); err != nil {
		t.Error(err)
	}
	if _, err := record.DecodeAction(mustEncode(t, a)); err != nil {
		t.Error(err)
	}
	if _, err := record.DecodeGateEvent(mustEncode(t, g)); err != nil {
		t.Error(err)
	}
	if _, err := record.DecodeNode(mustEncode(t, n)); err != nil {
		t.Error(err)
	}
}

func FuzzDecodeQuery(f *testing.F) {
	q, _, _, _ := signedEvents(f)
	fuzzDecoder(f, record.KindQuery, mustEncode(f, q), record.DecodeQuery)
}

func FuzzDecodeAction(f *testing.F) {
	_, a, _, _ := signedEvents(f)
	fuzzDecoder(f, record.KindAction, mustEncode(f, a), record.DecodeAction)
}

func FuzzDecodeGateEvent(f *testing.F) {
	_, _, g, _ := signedEvents(f)
	fuzzDecoder(f, record.KindGate, mustEncode(f, g), record.DecodeGateEvent)
}

func FuzzDecodeNode(f *testing.F) {
	_, _, _, n := signedEvents(f)
	fuzzDecoder(f, record.KindNode, mustEncode(f, n), record.DecodeNode)
}
