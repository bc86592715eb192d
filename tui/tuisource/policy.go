package tuisource

import (
	"context"

	"github.com/memscope/memscope/internal/analyses/defences"
	"github.com/memscope/memscope/tui"
)

var _ tui.PolicyRelabeler = (*Source)(nil)

// labelKey names one computed labelling: a tau and a label policy.
type labelKey struct {
	tau        float64
	failClosed bool
}

// failClosed is the label policy in force: the one the inspector last
// asked for (RelabelPolicy), else the one the session was opened with.
func (src *Source) failClosed() bool {
	if p := src.policy.Load(); p != nil {
		return *p
	}
	return src.s.Opts.FailClosed
}

// RelabelPolicy implements tui.PolicyRelabeler: every entry's label and the
// gate audit are recomputed at tau under the policy, and Entry, Actions,
// Lineage and Overview use them from then on. The session's options are
// not changed: verification's lineage findings keep the policy the store
// was opened with, as the CLI reports them.
func (src *Source) RelabelPolicy(ctx context.Context, tau float64, failClosed bool) error {
	if err := src.WaitLoaded(ctx); err != nil {
		return err
	}
	if err := src.relabel(tau, failClosed); err != nil {
		return err
	}
	return src.computeVerdicts(ctx, labelKey{tau: tau, failClosed: failClosed})
}

// relabel recomputes every entry's label and the gate audit at tau under
// a policy and makes them the ones shown (the Entries view's recomputed
// column, the Actions view's gate rows). relabelMu orders it with the
// refresh after verification, so labels computed before verification
// never overwrite the verified ones.
func (src *Source) relabel(tau float64, failClosed bool) error {
	src.relabelMu.Lock()
	defer src.relabelMu.Unlock()
	labels, err := src.labelsWith(tau, failClosed)
	if err != nil {
		return err
	}
	gate, err := src.s.GateAudit(labels)
	if err != nil {
		return err
	}
	src.recomputed.Store(src.byRow(labels))
	src.mu.Lock()
	src.gate, src.tau = gate, tau
	fc := failClosed
	src.policy.Store(&fc)
	src.mu.Unlock()
	return nil
}

// computeVerdicts evaluates the five defences on every action at one tau
// and label policy, once verification has finished, and keeps the rows
// per pair for ActionVerdicts. It runs on the background steps (after
// Verify, and in RelabelPolicy), never on the render path. MemLineage's
// gate reads the labels at tau, so a new pair is a new evaluation.
func (src *Source) computeVerdicts(ctx context.Context, key labelKey) error {
	if src.Report() == nil {
		return nil // the step after Verify computes them
	}
	src.mu.Lock()
	_, done := src.verdicts[key]
	src.mu.Unlock()
	if done {
		return nil
	}
	rows, err := src.s.ActionVerdictsAt(ctx, key.tau, key.failClosed)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		// The view shows no verdicts rather than an error line per frame;
		// the CLI's memscope actions reports the failure.
		return nil
	}
	src.mu.Lock()
	if src.verdicts == nil {
		src.verdicts = map[labelKey][]defences.Row{}
	}
	src.verdicts[key] = rows
	src.mu.Unlock()
	return nil
}
