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

// The MWP audit's findings arrive after "verified" and join the list
// above rows the responder may be reading: the cursor stays on the
// finding it was on, not on the row index (where the new MWP finding now
// is), and the preview keeps showing it.
func TestFindingsSelectionSurvivesLateFindings(t *testing.T) {
	t.Parallel()
	src := &auditing{Fake: tuitest.New(10), release: make(chan struct{})}
	m := tui.New(src, tui.Options{Static: true})
	m = send(t, m, tea.WindowSizeMsg{Width: 120, Height: 30})
	m, next := m.Update(firstVerifyMsg(t, m))
	m = press(t, m, "2", "g", "j", "j", "j")
	selected := func(s string) string {
		for _, l := range strings.Split(s, "\n") {
			if strings.HasPrefix(l, "▶") {
				return l
			}
		}
		return ""
	}
	before := screen(m)
	if !strings.Contains(selected(before), "REGISTRY_ROOT_UNANCHORED") {
		t.Fatalf("the fourth row is not the one this test reads:\n%s", before)
	}
	close(src.release)
	m = drive(t, m, next)
	after := screen(m)
	mustContain(t, after, "7 of 7 findings", "MWP_GATE_BYPASS", "subject: registry")
	if !strings.Contains(selected(after), "REGISTRY_ROOT_UNANCHORED") {
		t.Errorf("the selection moved when the MWP finding arrived:\n%s", after)
	}
}
