//go:build !unix

package scenariocache

// lock does not lock where flock is missing: two test binaries may then
// both generate, and the rename in ensure keeps the cache whole.
func lock(string) (func(), error) { return func() {}, nil }
