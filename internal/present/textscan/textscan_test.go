package textscan

import (
	"fmt"
	"testing"
)

// Concurrent callers (verify's workers) get the same findings whatever
// order the fields arrive in: those of smallest order are named.
func TestCheckAtIsOrderIndependent(t *testing.T) {
	t.Parallel()
	field := func(i int) Field { return Field{fmt.Sprint("entry ", i), "content", fmt.Sprint("x\x1b[2J", i)} }
	fwd, rev := New("s.db"), New("s.db")
	for i := 0; i < 300; i++ {
		fwd.CheckAt(int64(i), field(i))
		rev.CheckAt(int64(299-i), field(299-i))
	}
	a, b := fwd.Findings(), rev.Findings()
	if fmt.Sprint(a) != fmt.Sprint(b) || len(a) != PerCode+1 || a[0].Subject != "s.db: entry 0" {
		t.Fatalf("forward and reverse differ or name the wrong fields:\n%v\n%v", a, b)
	}
}
