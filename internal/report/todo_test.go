package report

import (
	"strings"
	"testing"
)

// TestPreserveTheCopyFirst: when anything was found, the first thing the
// report asks is to preserve this copy (the findings rest on it), before
// any remediation; an honest store asks nothing of the kind.
func TestPreserveTheCopyFirst(t *testing.T) {
	for _, name := range []string{"structural-write", "tampered", "agentpoison"} {
		c, _, _ := buildCase(t, name, true)
		if len(c.Verdict.Todo) < 2 || !strings.HasPrefix(c.Verdict.Todo[0], "Preserve this copy unchanged") {
			t.Errorf("%s: what to do starts %q", name, c.Verdict.Todo)
		}
	}
	c, _, _ := buildCase(t, "clean", true)
	for _, td := range c.Verdict.Todo {
		if strings.HasPrefix(td, "Preserve this copy") {
			t.Errorf("clean: %q", c.Verdict.Todo)
		}
	}
}
