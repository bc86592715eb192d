package tuisource

import (
	"context"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"

	"github.com/transparency-dev/merkle/rfc6962"

	"github.com/memscope/memscope/evidence/record"
	"github.com/memscope/memscope/lineage"
	"github.com/memscope/memscope/tui"
	"github.com/memscope/memscope/verify"
)

// EntryDetail implements tui.Source.
func (src *Source) EntryDetail(ctx context.Context, i int) (tui.EntryDetail, error) {
	if i < 0 || i >= src.EntryCount() {
		return tui.EntryDetail{}, fmt.Errorf("no entry row %d", i)
	}
	row := src.Entry(i)
	r, err := src.s.Snap.EntryByID(ctx, row.ID)
	if err != nil {
		return tui.EntryDetail{}, err
	}
	d := tui.EntryDetail{Row: row, SignedBytes: r.Raw}
	if r.DecodeErr != nil {
		d.Signature, d.SigNote = tui.Failed, "record does not decode: "+r.DecodeErr.Error()
		d.Fields = []tui.Field{{Name: "error", Value: r.DecodeErr.Error()}}
	} else {
		d.Fields = entryFields(r.Entry)
		d.Signature, d.SigNote = src.signatureStatus(row.ID, r.Entry)
	}
	d.HMAC, d.HMACNote = src.hmacStatus(row.ID, r.SessionID)
	if l := src.s.Coverage(verify.TableSessions, row.ID); r.SessionID != "" && l != "" {
		// The session is a row column: say so where the tag is shown.
		d.HMACNote += "; session_id " + r.SessionID + " [" + l + "]"
	}
	// The row's leaf index; verify reports INCLUSION_FAILED when it is not
	// where the log has the record.
	leaf := r.LeafIndex
	if leaf >= 0 && r.Entry != nil {
		d.Inclusion = src.inclusion(ctx, uint64(leaf), record.RecordLeaf(r.Entry.EID, r.Entry.Sig))
	}
	if err := src.WaitLoaded(ctx); err == nil {
		tau := src.currentTau() // the inspector's one tau (Relabel)
		labels, _ := src.labelsAt(tau)
		d.Parents, d.Children = src.links(row.ID, labels, tau)
	}
	return d, nil
}

// entryFields lists the record's fields in their canonical encoding order.
func entryFields(e *record.Entry) []tui.Field {
	ids := func(xs []record.ID) string {
		s := make([]string, len(xs))
		for i, x := range xs {
			s[i] = x.String()
		}
		return "[" + strings.Join(s, ", ") + "]"
	}
	ws := make([]string, len(e.Weights))
	for i, w := range e.Weights {
		ws[i] = strconv.FormatFloat(w, 'g', -1, 64)
	}
	return []tui.Field{
		{Name: "v", Value: strconv.FormatUint(uint64(e.V), 10)},
		{Name: "ts", Value: strconv.FormatUint(e.TS, 10)},
		{Name: "eid", Value: e.EID.String()},
		{Name: "kid", Value: e.KID.String()},
		{Name: "sig", Value: hex.EncodeToString(e.Sig)},
		{Name: "kind", Value: e.Kind},
		{Name: "h_ctx", Value: hex.EncodeToString(e.HCtx[:])},
		{Name: "h_src", Value: hex.EncodeToString(e.HSrc[:])},
		{Name: "nonce", Value: hex.EncodeToString(e.Nonce[:])},
		{Name: "trust", Value: fmt.Sprintf("%d (%s)", e.Trust, e.Trust)},
		{Name: "writer", Value: e.Writer},
		{Name: "content", Value: e.Content},
		{Name: "parents", Value: ids(e.Parents)},
		{Name: "weights", Value: "[" + strings.Join(ws, ", ") + "]"},
	}
}

func (src *Source) signatureStatus(id string, e *record.Entry) (tui.Status, string) {
	rep := src.Report()
	if rep == nil {
		return tui.Unknown, "not verified yet"
	}
	v := rep.Entry(id)
	if v.Signature != verify.Passed {
		return status(v.Signature), string(v.SignatureCode)
	}
	anchor := "registry pinned"
	if rep.Anchors.Registry != "pinned" {
		anchor = "registry UNANCHORED"
	}
	return tui.OK, fmt.Sprintf("Ed25519 under key %s (%s), %s", e.KID, e.Writer, anchor)
}

func (src *Source) hmacStatus(id, session string) (tui.Status, string) {
	rep := src.Report()
	switch {
	case src.s.Opts.HMACKey == nil:
		return tui.Unknown, "no --hmac-key given"
	case rep == nil:
		return tui.Unknown, "not verified yet"
	}
	v := rep.Entry(id)
	switch v.HMAC {
	case verify.Passed:
		return tui.OK, "HMAC-SHA256 tag matches (session " + session + ")"
	case verify.Failed:
		return tui.Failed, string(v.HMACCode)
	}
	return tui.Unknown, "not checked: the record does not decode"
}

// inclusion fetches the leaf's proof and maps tlog's path and verdict.
func (src *Source) inclusion(ctx context.Context, index uint64, leaf []byte) *tui.Inclusion {
	inc := &tui.Inclusion{LeafIndex: index, TreeSize: src.logSize, Root: src.logRoot, LeafHash: rfc6962.DefaultHasher.HashLeaf(leaf)}
	if src.log == nil {
		inc.Err = "the log could not be opened"
		return inc
	}
	steps, err := src.log.InclusionPath(ctx, index, src.logSize, inc.LeafHash, src.logRoot)
	for _, s := range steps {
		inc.Steps = append(inc.Steps, tui.ProofStep{Sibling: s.Sibling, Left: s.Left, Node: s.Node})
	}
	inc.Verified = err == nil
	if err != nil {
		inc.Err = err.Error()
	}
	return inc
}

func (src *Source) links(id string, labels []lineage.Trust, tau float64) (parents, children []tui.Link) {
	g := src.s.Lineage
	i, ok := g.Index(id)
	if !ok || labels == nil {
		return nil, nil
	}
	for _, e := range g.Parents(i) {
		parents = append(parents, tui.Link{ID: g.ID(e.Node), Weight: e.Weight, Strong: e.Weight > tau, Trust: labels[e.Node]})
	}
	for _, e := range g.Children(i) {
		children = append(children, tui.Link{ID: g.ID(e.Node), Weight: e.Weight, Strong: e.Weight > tau, Trust: labels[e.Node]})
	}
	return parents, children
}
