package mwp

import (
	"context"
	"crypto/sha256"
	"errors"
	"strconv"

	"github.com/memscope/memscope/evidence/record"
	"github.com/memscope/memscope/evidence/snapshot"
	"github.com/memscope/memscope/loader"
	"github.com/memscope/memscope/verify"
)

func ids(xs []record.ID) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = x.String()
	}
	return out
}

// rowsRead keeps the rows a table read when only some rows were malformed
// (loader.RowErrors: verify reports each as ROW_MALFORMED); any other
// error stops the audit.
func rowsRead(err error) error {
	var bad loader.RowErrors
	if errors.As(err, &bad) {
		return nil
	}
	return err
}

// Collect reads the audit's input from a snapshot. Records and rows that
// do not decode are skipped (verify reports them); leaves is the set of record ids
// with a log leaf, nil when the log was not read. rep is the store's
// verification: only meta values its signed configuration verified
// (Report.Config) decide anything, and its coverage labels the gate events
// and vectors. A nil rep (not verified) makes every meta value a claim.
func Collect(ctx context.Context, s *loader.Snapshot, leaves map[string]bool, rep *verify.Report) (Input, error) {
	in := Input{NodeEntry: map[string]string{}, Leaves: leaves}
	config := func(key string, dst **int64, claimed, label *string) {
		if v, ok := rep.ConfigValue(key); ok {
			if n, err := strconv.ParseInt(v, 10, 64); err == nil {
				*dst = &n
				return
			}
		}
		if v, ok := s.Meta[key]; ok {
			*claimed, *label = v, rep.Label(verify.TableMeta, key)
		}
	}
	config(snapshot.MetaGateMediatedSince, &in.MediatedSince, &in.MediatedSinceClaim, &in.MediatedSinceLabel)
	config(snapshot.MetaStoreVersion, &in.StoreVersion, &in.StoreVersionClaim, &in.StoreVersionLabel)
	gates, err := s.GateEvents(ctx)
	if err := rowsRead(err); err != nil {
		return in, err
	}
	if rep != nil {
		in.GateLabels = map[string]string{}
	}
	for _, g := range gates {
		if rep != nil {
			in.GateLabels[g.ID] = rep.Label(verify.TableGateEvents, g.ID)
		}
		in.Gate = append(in.Gate, GateEvent{ID: g.ID, CandidateEID: g.CandidateEID, CandidateHash: g.CandidateHash, Accept: g.Verdict == snapshot.GateAccept,
			VersionBefore: g.VersionBefore, VersionAfter: g.VersionAfter, TS: g.TS})
	}
	if err := s.EachEntry(ctx, func(r *loader.EntryRow) error {
		if r.Entry == nil {
			return nil
		}
		e := r.Entry
		in.Records = append(in.Records, Record{Kind: "entry", ID: r.EID, TS: int64(e.TS), Nonce: e.Nonce, Sum: sha256.Sum256(r.Raw), HasBytes: r.Raw != nil, Parents: ids(e.Parents)})
		return nil
	}); err != nil {
		return in, err
	}
	if err := s.EachWrite(ctx, func(r *loader.WriteRow) error {
		if r.Write == nil {
			return nil
		}
		w := r.Write
		in.Records = append(in.Records, Record{Kind: "write", ID: r.WID, TS: int64(w.TS), Nonce: w.Nonce, Sum: sha256.Sum256(r.Raw), HasBytes: r.Raw != nil, Sources: ids(w.Sources)})
		return nil
	}); err != nil {
		return in, err
	}
	if err := s.EachPrincipal(ctx, func(r *loader.PrincipalRow) error {
		if r.Event != nil {
			in.Records = append(in.Records, Record{Kind: "principal", ID: r.RID, TS: int64(r.Event.TS), Nonce: r.Event.Nonce, Sum: sha256.Sum256(r.Raw), HasBytes: r.Raw != nil})
		}
		return nil
	}); err != nil {
		return in, err
	}
	if err := s.EachTombstone(ctx, func(r *loader.TombstoneRow) error {
		if r.Tombstone != nil {
			in.Records = append(in.Records, Record{Kind: "tombstone", ID: "ts:" + r.Tombstone.Target.String(), TS: int64(r.Tombstone.TS), Nonce: r.Tombstone.Nonce, Sum: sha256.Sum256(r.Raw), HasBytes: r.Raw != nil})
		}
		return nil
	}); err != nil {
		return in, err
	}
	acts, err := s.Actions(ctx)
	if err := rowsRead(err); err != nil {
		return in, err
	}
	for _, a := range acts {
		cites := append([]string(nil), a.Justification...)
		for _, ps := range a.Sources {
			cites = append(cites, ps.From...)
			cites = append(cites, ps.Alt...)
		}
		in.Actions = append(in.Actions, Action{ID: a.ID, Cites: cites, TS: a.TS})
	}
	qs, err := s.Queries(ctx)
	if err := rowsRead(err); err != nil {
		return in, err
	}
	for _, q := range qs {
		in.Queries = append(in.Queries, Query{ID: q.ID, Selected: q.Selected})
	}
	if s.Has(snapshot.VectorTable) {
		vs, err := s.Vectors(ctx)
		var bad loader.RowErrors
		if errors.As(err, &bad) {
			in.BadVectors = len(bad)
		} else if err != nil {
			return in, err
		}
		in.HasVectorTable = true
		for _, v := range vs {
			in.Vectors = append(in.Vectors, Vector{EID: v.EID, ContentHash: v.ContentHash, Label: rep.Label(verify.TableVectors, strconv.FormatInt(v.Seq, 10))})
		}
	}
	nodes, err := s.Nodes(ctx)
	if err := rowsRead(err); err != nil {
		return in, err
	}
	for _, n := range nodes {
		if n.EID != "" {
			in.NodeEntry[n.ID] = n.EID
		}
	}
	return in, nil
}
