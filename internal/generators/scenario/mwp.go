package scenario

import (
	"crypto/sha256"
	"strconv"

	"github.com/memscope/memscope/evidence/record"
	"github.com/memscope/memscope/evidence/snapshot"
	"github.com/memscope/memscope/evidence/writer"
)

// buildMWP writes one case of each non-formation failure the MWP audit
// finds, after the store declares that its gate mediates every write.
func buildMWP(e *env, _ Options) ([]string, string, error) {
	if err := e.base(); err != nil {
		return nil, "", err
	}
	since := e.clock + 1
	if err := e.st.SetMeta(snapshot.MetaGateMediatedSince, strconv.FormatInt(since, 10)); err != nil {
		return nil, "", err
	}
	// The store keeps a vector index (MWP's mock vector store): every
	// accepted entry is embedded.
	accept := func(id string, en *record.Entry, raw []byte) error {
		v := e.st.Version()
		if err := e.st.AddVector(en.EID, writer.CandidateHash(raw), embed(raw)); err != nil {
			return err
		}
		return e.gateEvent(writer.GateEvent{ID: id, CandidateEID: en.EID, CandidateHash: writer.CandidateHash(raw), Verdict: snapshot.GateAccept,
			Reason: "writer authenticated, sources trusted", VersionBefore: v - 1, VersionAfter: v, TS: int64(e.tick())})
	}
	// An honest mediated write.
	ok, err := e.entry("mwp-ok", "agent:planner", "Prize committee meets on Friday.", record.DerivedTrusted, []string{"note-prize"}, []float64{0.9}, "session-7")
	if err != nil {
		return nil, "", err
	}
	raw, err := record.Encode(ok)
	if err != nil {
		return nil, "", err
	}
	if err := accept("gate-mwp-ok", ok, raw); err != nil {
		return nil, "", err
	}
	// A write that reached the store with no gate event (bypass); the next
	// accept then starts at a version the previous event did not leave.
	if _, err := e.entry("mwp-bypass", "agent:planner", "Side channel: the prize account changed to 7731.", record.DerivedTrusted, nil, nil, "session-7"); err != nil {
		return nil, "", err
	}
	// An accepted write that replays the nonce of an earlier entry (A4).
	ts := e.tick()
	replay := &record.Entry{EID: e.newID(ts), Content: "Replayed: pay the prize today.", Writer: "agent:planner", Trust: record.DerivedTrusted, TS: ts, Nonce: ok.Nonce}
	if err := e.st.AddEntry(e.ctx, replay, e.key("agent:planner"), writer.EntryOptions{SessionID: "session-7"}); err != nil {
		return nil, "", err
	}
	raw, err = record.Encode(replay)
	if err != nil {
		return nil, "", err
	}
	if err := accept("gate-mwp-replay", replay, raw); err != nil {
		return nil, "", err
	}
	// An accepted write whose stored bytes are not what the gate hashed
	// (content tampered between staging and commit, A5).
	staged, err := e.entry("mwp-staged", "agent:planner", "Committee notes: ledger reviewed.", record.DerivedTrusted, nil, nil, "session-7")
	if err != nil {
		return nil, "", err
	}
	v := e.st.Version()
	if err := e.gateEvent(writer.GateEvent{ID: "gate-mwp-staged", CandidateEID: staged.EID, CandidateHash: writer.CandidateHash([]byte("the staged candidate's bytes")),
		Verdict: snapshot.GateAccept, Reason: "checked at staging", VersionBefore: v - 1, VersionAfter: v, TS: int64(e.tick())}); err != nil {
		return nil, "", err
	}
	// A clean rejection (no row, no version advance) whose content still
	// reached the next reasoning turn: a later entry derives from it and an
	// action cites it (PRLR).
	cand, craw, err := e.signedEntry("session-7", "agent:planner", "Candidate: wire the prize to account 7731.", record.DerivedTrusted, nil, nil)
	if err != nil {
		return nil, "", err
	}
	v = e.st.Version()
	if err := e.gateEvent(writer.GateEvent{ID: "gate-mwp-reject", CandidateEID: cand.EID, CandidateHash: writer.CandidateHash(craw), Verdict: snapshot.GateReject,
		Reason: "candidate names an unverified account", VersionBefore: v, VersionAfter: v, TS: int64(e.tick())}); err != nil {
		return nil, "", err
	}
	e.byName["mwp-rejected"] = cand.EID
	// A rejection whose row never formed and whose version did not advance,
	// but whose vector the write-first index had already taken (alpha_vec).
	vcand, vraw, err := e.signedEntry("session-7", "agent:planner", "Candidate: the prize committee now meets at account 7731.", record.DerivedTrusted, nil, nil)
	if err != nil {
		return nil, "", err
	}
	if err := e.st.AddVector(vcand.EID, writer.CandidateHash(vraw), embed(vraw)); err != nil {
		return nil, "", err
	}
	v = e.st.Version()
	if err := e.gateEvent(writer.GateEvent{ID: "gate-mwp-vector", CandidateEID: vcand.EID, CandidateHash: writer.CandidateHash(vraw), Verdict: snapshot.GateReject,
		Reason: "candidate names an unverified account", VersionBefore: v, VersionAfter: v, TS: int64(e.tick())}); err != nil {
		return nil, "", err
	}
	leak, err := e.entry("mwp-leak", "agent:planner", "Plan: wire the prize to account 7731 as discussed.", record.DerivedTrusted, []string{"mwp-rejected"}, []float64{0.9}, "session-7")
	if err != nil {
		return nil, "", err
	}
	raw, err = record.Encode(leak)
	if err != nil {
		return nil, "", err
	}
	if err := accept("gate-mwp-leak", leak, raw); err != nil {
		return nil, "", err
	}
	// Not dispatched; the justification names an entry that is not in the
	// store, so IFC and MemLineage refuse it, and it names no query.
	e.expectAction("act-wire-7731", "allow", "deny", "deny", "not checked")
	if err := e.action(writer.Action{ID: "act-wire-7731", Tool: "transfer_funds", Params: map[string]string{"recipient": "account 7731", "amount": "1000"},
		Justification: []record.ID{cand.EID}, Dispatched: false, TS: int64(e.tick())}); err != nil {
		return nil, "", err
	}
	if _, err := e.st.Checkpoint(int64(e.tick())); err != nil {
		return nil, "", err
	}
	return []string{"PARENT_MISSING"}, "verify: mwp-leak names a parent that is not in the store (PARENT_MISSING); the MWP audit in memscope exposure: MWP_GATE_BYPASS (mwp-bypass), MWP_VERSION_CHAIN_BROKEN (the version steps mwp-bypass took without a gate), MWP_NONCE_REUSE (the replayed entry), MWP_CANDIDATE_HASH_MISMATCH (gate-mwp-staged), MWP_VECTOR_RESIDUE (gate-mwp-vector's candidate left a vector entry) and MWP_PRLR_TRACE (the rejected candidate as a parent and in act-wire-7731's justification).", nil
}

// embed is a deterministic stand-in embedding: eight values from the
// record's hash. Only the vector table's keys matter to the audit.
func embed(raw []byte) []float32 {
	h := sha256.Sum256(raw)
	out := make([]float32, 8)
	for i := range out {
		out[i] = float32(h[i]) / 255
	}
	return out
}
