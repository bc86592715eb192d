package tuisource

import (
	"context"

	"github.com/memscope/memscope/exposure"
	"github.com/memscope/memscope/tui"
)

var _ tui.ExposureSource = (*Source)(nil)

// inspectorDraws keeps the Exposure view interactive: fewer draws than the
// CLI's default 1000 (memscope exposure gives the full estimate).
const inspectorDraws = 200

// Exposure implements tui.ExposureSource.
func (src *Source) Exposure(ctx context.Context) (*exposure.Result, error) {
	rp, err := src.replayer(ctx)
	if err != nil {
		return nil, err
	}
	return exposure.Analyze(ctx, rp, src.s.ReplayQueries(), exposure.Options{Seed: 1, Draws: inspectorDraws, CurveDraws: 10})
}
