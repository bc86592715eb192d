package tui_test

import (
	"context"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/memscope/memscope/internal/present/finding"
	"github.com/memscope/memscope/tui"
	"github.com/memscope/memscope/tui/tuitest"
)

// auditing is a Source that says "verified" before its MWP audit ends,
// as tuisource does: the audit's finding comes in the last message, once
// release is closed.
type auditing struct {
	*tuitest.Fake
	release chan struct{}
}

func (a *auditing) Verify(ctx context.Context) <-chan tui.Progress {
	ch := make(chan tui.Progress)
	go func() {
		defer close(ch)
		ch <- tui.Progress{Verified: true, Findings: a.VerifyFindings()}
		<-a.release
		all := append(a.VerifyFindings(), finding.Finding{Severity: finding.SevError, Code: finding.MWPGateBypass, Subject: "entry e-1", Message: "no accept event", Family: finding.FamMWP})
		ch <- tui.Progress{Finished: true, Findings: all}
	}()
	return ch
}

// The status line says "verified" with verification's, lineage's and
// replay's counts while the MWP audit still runs, says the audit is
// running, and counts its findings once they come (issue 24, item 12).
func TestVerifiedBeforeTheMWPAuditEnds(t *testing.T) {
	t.Parallel()
	src := &auditing{Fake: tuitest.New(10), release: make(chan struct{})}
	m := tui.New(src, tui.Options{Static: true})
	m = send(t, m, tea.WindowSizeMsg{Width: 120, Height: 30})
	m, next := m.Update(firstVerifyMsg(t, m))
	mustContain(t, screen(m), "verified: 2 errors, 1 warning, 0 info  lineage: 1 warning, 1 info  replay: 1 error  mwp: auditing")
	m = press(t, m, "2")
	mustContain(t, screen(m), "6 of 6 findings", "MWP audit running")
	close(src.release)
	m = drive(t, m, next)
	scr := screen(m)
	mustContain(t, scr, "7 of 7 findings", "MWP_GATE_BYPASS", "replay: 1 error  mwp: 1 error")
	for _, gone := range []string{"auditing", "MWP audit running"} {
		if strings.Contains(scr, gone) {
			t.Errorf("%q still on screen once the audit ended:\n%s", gone, scr)
		}
	}
}
