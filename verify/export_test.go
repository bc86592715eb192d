package verify

import "context"

// RunGeneral is Run with the cross-record checks on their general path,
// for tests that compare it with the per-position path.
func RunGeneral(ctx context.Context, opts Options) (*Report, error) {
	rep, _, err := run(ctx, opts, true)
	return rep, err
}

// RunTookGeneral is Run, saying whether the cross-record checks had to
// take the general path.
func RunTookGeneral(ctx context.Context, opts Options) (*Report, bool, error) {
	return run(ctx, opts, false)
}
