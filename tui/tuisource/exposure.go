package tuisource

import (
	"context"
	"fmt"
	"sync"

	"github.com/memscope/memscope/internal/analyses/exposure"
	"github.com/memscope/memscope/internal/assemble/exposurecase"
	"github.com/memscope/memscope/tui"
)

var (
	_ tui.ExposureSource       = (*Source)(nil)
	_ tui.ExposureExtrasSource = (*Source)(nil)
)

// inspectorDraws keeps the Exposure view interactive: fewer draws than the
// CLI's default 1000 (memscope exposure gives the full estimate).
const inspectorDraws = 200

// exposureCase is memscope exposure's whole answer, computed once for the
// view (the selectors, then SMSR and EquiMem beside them).
type exposureCase struct {
	mu  sync.Mutex
	ex  *exposurecase.Exposure
	err error
}

func (src *Source) exposureCase(ctx context.Context) (*exposurecase.Exposure, error) {
	c := &src.expCase
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ex == nil && c.err == nil {
		c.ex, c.err = exposurecase.Build(ctx, src.s, exposure.Options{Seed: 1, Draws: inspectorDraws, CurveDraws: 10})
		if ctx.Err() != nil {
			// A cancelled run is not the answer: the next visit retries.
			c.ex, c.err = nil, nil
			return nil, ctx.Err()
		}
	}
	return c.ex, c.err
}

// Exposure implements tui.ExposureSource.
func (src *Source) Exposure(ctx context.Context) (*exposure.Result, error) {
	ex, err := src.exposureCase(ctx)
	if err != nil {
		return nil, err
	}
	return ex.Result, nil
}

// ExposureExtras implements tui.ExposureExtrasSource: SMSR's store
// certificate and EquiMem's triage from the same run.
func (src *Source) ExposureExtras(ctx context.Context) (*tui.ExposureExtras, error) {
	ex, err := src.exposureCase(ctx)
	if err != nil {
		return nil, err
	}
	out := &tui.ExposureExtras{SMSR: ex.StoreSMSR, SMSRBasis: exposurecase.StoreSMSRBasis, EquiMemCaveat: exposurecase.EquiMemCaveat, MWP: exposurecase.MWPJSON(ex.MWP)}
	if e := ex.EquiMem; e != nil {
		out.EquiMemSummary = fmt.Sprintf("%d writes (BFS depth %d); top decile (%d lowest) holds %d of %d replay culprits and %d of %d unauthenticated writes",
			len(e.Writes), e.Depth, e.TopDecile, e.CulpritsInTopDecile, e.Culprits, e.UnauthInDecile, e.Unauthenticated)
		out.EquiMem = make([]tui.EquiMemRow, len(e.Writes))
		for _, w := range e.Writes {
			if w.Rank < 1 || w.Rank > len(out.EquiMem) {
				continue
			}
			out.EquiMem[w.Rank-1] = tui.EquiMemRow{Rank: w.Rank, Write: w.ID, Writer: w.Writer, Rel: w.Rel, Rho: w.Rho, SLocal: w.SLocal, SPath: w.SPath,
				Authenticated: w.Authenticated, Culprit: w.Culprit}
		}
	}
	return out, nil
}
