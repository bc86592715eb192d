package exposurecase

import (
	"context"

	"github.com/memscope/memscope/internal/analyses/equimem"
	"github.com/memscope/memscope/internal/analyses/exposure"
	"github.com/memscope/memscope/internal/analyses/smsr"
	"github.com/memscope/memscope/internal/analyses/storereplay"
	"github.com/memscope/memscope/internal/readers/storemodel"
	"github.com/memscope/memscope/replay"
)

// BuildNative runs exposure on a native graph store: S_dom and S_adv by
// Monte Carlo over bounded no-source writes for each of the user's
// queries, every selector (PPR, Leiden...), SMSR's per-query certificate
// and EquiMem's triage of the store's own edges, which needs no
// provenance. A native store records no actions and no gate, so there is
// no action reach, no store certificate and no MWP audit.
func BuildNative(ctx context.Context, st *storemodel.Store, rp *replay.Replayer, qs []replay.Query, opt exposure.Options) (*Exposure, error) {
	res, err := exposure.Analyze(ctx, rp, qs, opt)
	if err != nil {
		return nil, err
	}
	out := &Exposure{Result: res, Queries: qs, QuerySMSR: map[string]smsr.Certificate{}, Reach: map[string]ActionReach{}}
	for _, q := range qs {
		k := q.K
		if k == 0 {
			k = replay.DefaultK
		}
		if c, ok := QueryCertificate(rp, q, k); ok {
			out.QuerySMSR[q.ID] = c
		}
	}
	w := storereplay.Writer(st.Format)
	ws := make([]equimem.Write, len(st.Edges))
	for i, e := range st.Edges {
		ws[i] = equimem.Write{ID: e.ID, Src: e.Src, Dst: e.Dst, Rel: e.Kind, Writer: w}
	}
	if out.EquiMem, err = triageWrites(ctx, ws, rp, qs); err != nil {
		return nil, err
	}
	return out, nil
}
