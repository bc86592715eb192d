package assemble

import "testing"

// The inspector's spare P only stays spare if verification is held to
// the worker count it was given.
func TestVerifyOptionsCarryWorkers(t *testing.T) {
	for _, n := range []int{0, 1, 3} {
		s := &Session{Opts: Options{Workers: n}}
		if got := s.verifyOptions(nil).Workers; got != n {
			t.Errorf("Workers %d reached verify as %d", n, got)
		}
	}
}
