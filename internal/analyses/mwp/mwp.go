// Package mwp audits a store for non-formation of rejected writes, in
// depth, as the mediated write path paper ("Structural Write-Path Control
// for Non-Formation in Agent Persistent Memory") defines it: a rejected
// candidate leaves no row, no vector entry and no version advance, and
// never reaches the next reasoning turn. verify already reports a rejected
// candidate that advanced the version or reached the store or log
// (GATE_MATERIALISED); this audit adds the PRLR proxy (the candidate's id or
// hash found where reasoning reads it), gate bypass, the candidate hash
// against the stored bytes, nonce reuse and version-chain continuity, and
// says "not checkable" for what the store cannot show. Pure analysis.
package mwp

import (
	"encoding/hex"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/memscope/memscope/internal/present/finding"
)

// GateEvent is one recorded commit-gate decision, in store order.
type GateEvent struct {
	ID            string
	CandidateEID  string
	CandidateHash [32]byte
	Accept        bool
	VersionBefore int64
	VersionAfter  int64
	TS            int64
}

// Record is one signed record with what the audit reads of it.
type Record struct {
	Kind  string // "entry", "write", "principal", "tombstone"
	ID    string
	TS    int64
	Nonce [16]byte
	// Sum is the SHA-256 of the signed bytes, when HasBytes: the audit
	// compares hashes only, and a million records' bytes held until it
	// ran were gigabytes.
	Sum      [32]byte
	HasBytes bool
	Parents  []string // entries: parent ids
	Sources  []string // writes: source entry ids
}

// Action is a recorded tool call's justification and parameter sources.
type Action struct {
	ID      string
	Cites   []string // justification entries plus every parameter source
	TS      int64
	Subject string
}

// Query is a recorded selection (node ids) with the entries behind them.
type Query struct {
	ID       string
	Selected []string // node ids as recorded
}

// Input is what the audit reads.
type Input struct {
	Gate    []GateEvent
	Records []Record
	Actions []Action
	Queries []Query
	// NodeEntry maps a passage node id to the entry it shows.
	NodeEntry map[string]string
	// Leaves is the set of record ids with a leaf in the log; nil when the
	// log was not read.
	Leaves map[string]bool
	// MediatedSince is the declared start of the mediated write path (ns),
	// from the store's signed configuration; nil when the store declares
	// none or the declaration is not signed (see MediatedSinceClaim).
	MediatedSince *int64
	// MediatedSinceClaim is the meta table's value when no verified
	// configuration record stands behind it, with its label (unsigned,
	// fails verification, not checked): shown, never used.
	MediatedSinceClaim, MediatedSinceLabel string
	// StoreVersion is the store's version from its signed configuration;
	// StoreVersionClaim and StoreVersionLabel as for MediatedSince.
	StoreVersion                         *int64
	StoreVersionClaim, StoreVersionLabel string
	// GateLabels is verify's coverage label of each gate event ("" when a
	// verified signature covers it); nil when not known.
	GateLabels map[string]string
	// HasVectorTable: the store keeps a vector index the audit can read.
	HasVectorTable bool
	// Vectors are the vector index's rows (with HasVectorTable).
	Vectors []Vector
	// BadVectors counts vector rows that could not be read (each an error
	// of the loader's, not searched).
	BadVectors int
}

// Vector is one vector index row: the memory it embeds and the SHA-256 of
// the signed bytes that were embedded.
type Vector struct {
	EID         string
	ContentHash [32]byte
	// Label is verify's coverage label of the row ("" when the operator's
	// verified signature covers it).
	Label string
}

// Check statuses.
const (
	StatusChecked      = "checked"
	StatusNotCheckable = "not checkable"
	StatusNotChecked   = "not checked"
)

// Check is one audit step and whether the store let it run.
type Check struct {
	Name     string
	Status   string
	Detail   string
	Findings int
}

// Report is the audit's result.
type Report struct {
	Rejected int // rejected candidates
	Accepted int
	Checks   []Check
	Findings []finding.Finding
	// GateLabels carries Input.GateLabels, for outputs that show gate
	// events beside the findings about them.
	GateLabels map[string]string
}

// GateLabel is the coverage label of gate event id ("" when covered and
// verified, "not checked" when unknown).
func (r Report) GateLabel(id string) string {
	if r.GateLabels == nil {
		return "not checked"
	}
	return r.GateLabels[id]
}

// claim describes a meta value that decides nothing.
func claim(key, value, label string) string {
	if label == "" {
		label = "unsigned"
	}
	return fmt.Sprintf("meta %s = \"%s\" is %s: a claim, which decides nothing", key, value, label)
}

func short(h [32]byte) string { return hex.EncodeToString(h[:6]) }

// Audit runs every check.
func Audit(in Input) Report {
	au := &auditor{in: in, rep: &Report{GateLabels: in.GateLabels}, rejected: map[string]GateEvent{}, rejHash: map[[32]byte]GateEvent{}, accepted: map[string]bool{}}
	for _, g := range in.Gate {
		if g.Accept {
			au.rep.Accepted++
			au.accepted[g.CandidateEID] = true
			continue
		}
		au.rep.Rejected++
		au.rejected[g.CandidateEID] = g
		au.rejHash[g.CandidateHash] = g
	}
	for _, check := range []func() Check{au.prlr, au.gateBypass, au.candidateHash, au.nonceReuse, au.versionChain, au.alphaVec} {
		au.rep.Checks = append(au.rep.Checks, check())
	}
	return *au.rep
}

// auditor runs Audit's checks over one input; every check's findings go
// to rep in the order the checks run.
type auditor struct {
	in       Input
	rep      *Report
	rejected map[string]GateEvent
	rejHash  map[[32]byte]GateEvent
	accepted map[string]bool
}

func (au *auditor) add(c *Check, code finding.Code, subject, msg string) {
	// A finding about a gate event says how far verify vouches for
	// that event, in every output that shows it.
	if id, ok := strings.CutPrefix(subject, "gate "); ok {
		if l := au.rep.GateLabel(id); l != "" {
			msg += " [gate event " + id + ": " + l + "]"
		}
	}
	au.rep.Findings = append(au.rep.Findings, finding.New(code, subject, msg))
	c.Findings++
}

// PRLR proxy: where the agent's reasoning reads, a rejected candidate
// must not appear.
func (au *auditor) prlr() Check {
	in := au.in
	rejected, rejHash := au.rejected, au.rejHash
	prlr := Check{Name: "prlr", Status: StatusChecked,
		Detail: "rejected candidate ids and content hashes searched in parents, write sources, action justifications and parameter sources, recorded selections and log leaves"}
	if in.Leaves == nil {
		prlr.Detail += " (log leaves not searched here: memscope verify reports a rejected candidate with a log leaf as GATE_MATERIALISED)"
	}
	if len(rejected) > 0 {
		for _, r := range in.Records {
			for _, p := range r.Parents {
				if g, ok := rejected[p]; ok {
					au.add(&prlr, finding.MWPPRLRTrace, "gate "+g.ID, fmt.Sprintf("rejected candidate %s is a parent of %s %s: it reached a later reasoning turn", p, r.Kind, r.ID))
				}
			}
			for _, s := range r.Sources {
				if g, ok := rejected[s]; ok {
					au.add(&prlr, finding.MWPPRLRTrace, "gate "+g.ID, fmt.Sprintf("rejected candidate %s is a source of %s %s", s, r.Kind, r.ID))
				}
			}
			if r.HasBytes {
				if g, ok := rejHash[r.Sum]; ok && r.ID != g.CandidateEID {
					au.add(&prlr, finding.MWPPRLRTrace, "gate "+g.ID, fmt.Sprintf("%s %s has the rejected candidate's content hash %s", r.Kind, r.ID, short(g.CandidateHash)))
				}
			}
		}
		for _, a := range in.Actions {
			for _, c := range a.Cites {
				if g, ok := rejected[c]; ok {
					au.add(&prlr, finding.MWPPRLRTrace, "gate "+g.ID, fmt.Sprintf("rejected candidate %s is cited by action %s", c, a.ID))
				}
			}
		}
		for _, q := range in.Queries {
			for _, n := range q.Selected {
				id := n
				if e, ok := in.NodeEntry[n]; ok {
					id = e
				}
				if g, ok := rejected[id]; ok {
					au.add(&prlr, finding.MWPPRLRTrace, "gate "+g.ID, fmt.Sprintf("rejected candidate %s was in query %s's recorded selection", id, q.ID))
				}
			}
		}
		if in.Leaves != nil {
			ids := slices.Sorted(maps.Keys(rejected))
			for _, id := range ids {
				if in.Leaves[id] {
					au.add(&prlr, finding.MWPPRLRTrace, "gate "+rejected[id].ID, fmt.Sprintf("rejected candidate %s has a leaf in the log", id))
				}
			}
		}
	}
	return prlr
}

// Gate bypass: only where the store declares what its gate mediates.
func (au *auditor) gateBypass() Check {
	in := au.in
	bypass := Check{Name: "gate_bypass"}
	switch {
	case in.MediatedSince == nil && in.MediatedSinceClaim != "":
		// An unsigned window could be moved to hide a bypass, and checking
		// every write would accuse the writes the gate never mediated: the
		// honest answer is that the check cannot run.
		bypass.Status = StatusNotCheckable
		bypass.Detail = claim("gate_mediated_since", in.MediatedSinceClaim, in.MediatedSinceLabel) + "; which writes the gate mediates is unknown"
	case in.MediatedSince == nil:
		bypass.Status = StatusNotCheckable
		bypass.Detail = "the store does not declare which writes its gate mediates (meta gate_mediated_since)"
	default:
		bypass.Status = StatusChecked
		bypass.Detail = fmt.Sprintf("every entry and structural write with ts >= %d must have an accept event; that start is the store's signed configuration (meta gate_mediated_since), so writes before it were not checked", *in.MediatedSince)
		for _, r := range in.Records {
			if (r.Kind == "entry" || r.Kind == "write") && r.TS >= *in.MediatedSince && !au.accepted[r.ID] {
				au.add(&bypass, finding.MWPGateBypass, r.Kind+" "+r.ID, fmt.Sprintf("%s %s reached the store after the gate was declared (ts %d) with no accept event", r.Kind, r.ID, r.TS))
			}
		}
	}
	return bypass
}

// candidate_hash against the candidate's bytes, where they are present.
func (au *auditor) candidateHash() Check {
	in := au.in
	hash := Check{Name: "candidate_hash", Status: StatusChecked}
	// The first record of each candidate id (indexes, not copies: the
	// records of a million-entry store are not keyed).
	byID := map[string]int{}
	for _, g := range in.Gate {
		byID[g.CandidateEID] = -1
	}
	for i, r := range in.Records {
		if at, want := byID[r.ID]; want && at < 0 {
			byID[r.ID] = i
		}
	}
	present, absent := 0, 0
	for _, g := range in.Gate {
		at := byID[g.CandidateEID]
		if at < 0 || !in.Records[at].HasBytes {
			absent++
			continue
		}
		present++
		if r := in.Records[at]; r.Sum != g.CandidateHash {
			au.add(&hash, finding.MWPCandidateHashMismatch, "gate "+g.ID, fmt.Sprintf("the stored bytes of %s %s hash to %s, the gate recorded %s", r.Kind, r.ID, short(r.Sum), short(g.CandidateHash)))
		}
	}
	hash.Detail = fmt.Sprintf("%d candidates with bytes in the store checked; %d without bytes (rejected or removed) not checkable", present, absent)
	if present == 0 && len(in.Gate) > 0 {
		hash.Status = StatusNotCheckable
	}
	return hash
}

// Nonce reuse across every signed record.
func (au *auditor) nonceReuse() Check {
	in := au.in
	nonce := Check{Name: "nonce_reuse", Status: StatusChecked, Detail: "nonces of every entry, write, registry event and tombstone"}
	first := make(map[[16]byte]int32, len(in.Records)) // nonce -> its first record
	for i, r := range in.Records {
		if at, ok := first[r.Nonce]; ok {
			f := in.Records[at]
			au.add(&nonce, finding.MWPNonceReuse, r.Kind+" "+r.ID, fmt.Sprintf("%s %s reuses the nonce %s of %s %s", r.Kind, r.ID, hex.EncodeToString(r.Nonce[:]), f.Kind, f.ID))
			continue
		}
		first[r.Nonce] = int32(i)
	}
	return nonce
}

// Version-chain continuity over the gate events.
func (au *auditor) versionChain() Check {
	in := au.in
	chain := Check{Name: "version_chain", Status: StatusChecked, Detail: "gate events in store order: versions never go back, an accept advances by one, and inside a declared mediated window every step is a gate event"}
	if len(in.Gate) == 0 {
		chain.Status = StatusNotCheckable
		chain.Detail = "the store records no gate events"
	}
	for i, g := range in.Gate {
		subj := "gate " + g.ID
		if g.VersionAfter < g.VersionBefore {
			au.add(&chain, finding.MWPVersionChainBroken, subj, fmt.Sprintf("version went back %d -> %d", g.VersionBefore, g.VersionAfter))
		}
		if g.Accept && g.VersionAfter != g.VersionBefore+1 {
			au.add(&chain, finding.MWPVersionChainBroken, subj, fmt.Sprintf("an accept moved the version %d -> %d, not by one", g.VersionBefore, g.VersionAfter))
		}
		if i == 0 {
			continue
		}
		prev := in.Gate[i-1]
		switch {
		case g.VersionBefore < prev.VersionAfter:
			au.add(&chain, finding.MWPVersionChainBroken, subj, fmt.Sprintf("starts at version %d, below %d where gate %s left it", g.VersionBefore, prev.VersionAfter, prev.ID))
		case in.MediatedSince != nil && prev.TS >= *in.MediatedSince && g.VersionBefore > prev.VersionAfter:
			au.add(&chain, finding.MWPVersionChainBroken, subj, fmt.Sprintf("starts at version %d but gate %s left %d: %d version steps passed no gate", g.VersionBefore, prev.ID, prev.VersionAfter, g.VersionBefore-prev.VersionAfter))
		}
	}
	if n := len(in.Gate); n > 0 && in.StoreVersion != nil && *in.StoreVersion < in.Gate[n-1].VersionAfter {
		au.add(&chain, finding.MWPVersionChainBroken, "meta store_version", fmt.Sprintf("the store's version %d is below %d, where the last gate event left it", *in.StoreVersion, in.Gate[n-1].VersionAfter))
	}
	if in.StoreVersion == nil && in.StoreVersionClaim != "" {
		chain.Detail += "; the store's version was not compared with the last gate event: " + claim("store_version", in.StoreVersionClaim, in.StoreVersionLabel)
	}
	if in.MediatedSince == nil && in.MediatedSinceClaim != "" {
		chain.Detail += "; no mediated window is known (" + claim("gate_mediated_since", in.MediatedSinceClaim, in.MediatedSinceLabel) + "), so version steps outside gate events were not checked"
	}
	return chain
}

// alpha_vec: a rejected candidate leaves no vector entry. A vector is
// the candidate's when it is keyed by the candidate's id or embeds the
// bytes its gate event hashed (a re-keyed vector of the same content).
func (au *auditor) alphaVec() Check {
	in := au.in
	rejected, rejHash := au.rejected, au.rejHash
	vec := Check{Name: "alpha_vec", Status: StatusNotCheckable, Detail: "the store has no vector table: whether a rejected candidate left a vector entry cannot be seen"}
	if in.HasVectorTable {
		vec.Status = StatusChecked
		stored := map[string]bool{}
		for _, r := range in.Records {
			stored[r.ID] = true
		}
		orphans, unsigned := 0, 0
		for _, v := range in.Vectors {
			// A vector no verified signature covers is a claim: its
			// finding says so.
			note := ""
			if v.Label != "" {
				unsigned++
				note = " (the vector row is " + v.Label + ")"
			}
			g, byID := rejected[v.EID]
			if !byID {
				g, byID = rejHash[v.ContentHash]
				if byID {
					au.add(&vec, finding.MWPVectorResidue, "gate "+g.ID, fmt.Sprintf("a vector keyed %s embeds the bytes of rejected candidate %s (hash %s)%s", v.EID, g.CandidateEID, short(g.CandidateHash), note))
					continue
				}
			} else {
				au.add(&vec, finding.MWPVectorResidue, "gate "+g.ID, fmt.Sprintf("rejected candidate %s has a vector entry: the rejection left it in the vector index%s", v.EID, note))
				continue
			}
			if !stored[v.EID] {
				orphans++
			}
		}
		vec.Detail = fmt.Sprintf("%d vector entries searched for the ids and hashes of %d rejected candidates", len(in.Vectors), len(rejected))
		if in.BadVectors > 0 {
			vec.Detail += fmt.Sprintf("; %d malformed vector rows could not be read and were not searched", in.BadVectors)
		}
		if unsigned > 0 {
			vec.Detail += fmt.Sprintf("; %d vector rows are not covered by a verified signature (unsigned claims)", unsigned)
		}
		if orphans > 0 {
			vec.Detail += fmt.Sprintf("; %d vectors name no stored record and no rejected candidate (not a finding: the audit cannot tell whose they are)", orphans)
		}
	}
	return vec
}

// Summary is a one-line description for plain output.
func (r Report) Summary() string {
	var parts []string
	for _, c := range r.Checks {
		s := c.Name + ": " + c.Status
		if c.Findings > 0 {
			s += fmt.Sprintf(" (%d)", c.Findings)
		}
		parts = append(parts, s)
	}
	return fmt.Sprintf("%d rejected, %d accepted; %s", r.Rejected, r.Accepted, strings.Join(parts, ", "))
}
