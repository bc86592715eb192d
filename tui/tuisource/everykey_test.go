package tuisource

import (
	"context"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/memscope/memscope/internal/analyses/exposure"
	"github.com/memscope/memscope/internal/assemble/exposurecase"
	"github.com/memscope/memscope/internal/generators/scenario"
	"github.com/memscope/memscope/internal/present/finding"
	"github.com/memscope/memscope/tui"
	"github.com/memscope/memscope/tui/tuitest"
)

// boundKeys is every key of every binding of the default key map, read from
// the KeyMap struct itself so a binding added later is pressed too. Quit is
// left out (it ends the program; TestCtrlCQuitsEverywhere covers it).
func boundKeys() []string {
	km := tui.DefaultKeyMap()
	v := reflect.ValueOf(km)
	seen := map[string]bool{}
	var out []string
	for i := 0; i < v.NumField(); i++ {
		if v.Type().Field(i).Name == "Quit" {
			continue
		}
		b, ok := v.Field(i).Interface().(key.Binding)
		if !ok {
			continue
		}
		for _, k := range b.Keys() {
			if !seen[k] {
				seen[k] = true
				out = append(out, k)
			}
		}
	}
	return out
}

// viewKeys are the keys that switch to each view, in View order.
var viewKeys = []string{"1", "2", "3", "4", "5", "6", "7", "8", "9", "0"}

// pressEveryKey presses every bound key in every view of m and requires
// each to change the screen or put a message in the status line (a panic
// fails the test by itself). Each key is pressed from the view freshly
// selected, then any overlay it opened is closed with esc.
func pressEveryKey(t *testing.T, m tea.Model) {
	t.Helper()
	keys := boundKeys()
	for _, vk := range viewKeys {
		for _, k := range keys {
			m = tuitest.Press(t, m, "esc", "esc", vk)
			before := tuitest.Screen(m)
			m = tuitest.Press(t, m, k)
			after := tuitest.Screen(m)
			// A status message changes the status line, so an unchanged
			// screen means the key did nothing and said nothing.
			if after == before {
				t.Errorf("view %s, key %q: nothing changed and the status line says nothing:\n%s", vk, k, after)
			}
			if st := statusLine(after); strings.Contains(st, "failed") || strings.Contains(st, "panic") {
				t.Errorf("view %s, key %q: %s", vk, k, st)
			}
		}
	}
}

// Every bound key on every view of every demo scenario, and of a native
// store, works or says why not; none panics (issue 24, item 1: e in
// Timeline and Exposure dereferenced a nil export).
func TestEveryKeyOnEveryView(t *testing.T) {
	if testing.Short() {
		t.Skip("opens every scenario")
	}
	for _, spec := range scenario.Specs {
		t.Run(spec.Name, func(t *testing.T) {
			src, _ := openScenario(t, spec.Name)
			var m tea.Model = tui.New(src, tui.Options{Static: true, ExportDir: t.TempDir()})
			m = tuitest.Drive(t, m, m.Init())
			m = tuitest.Send(t, m, tea.WindowSizeMsg{Width: 120, Height: 40})
			pressEveryKey(t, m)
		})
	}
	t.Run("native-hipporag", func(t *testing.T) {
		dir := filepath.Join("..", "..", "testdata", "hipporag")
		n := openNative(t, filepath.Join(dir, "poisoned"), filepath.Join(dir, "queries.jsonl"), NativeOptions{})
		var m tea.Model = tui.New(n, tui.Options{Static: true, ExportDir: t.TempDir()})
		m = tuitest.Drive(t, m, m.Init())
		m = tuitest.Send(t, m, tea.WindowSizeMsg{Width: 120, Height: 40})
		pressEveryKey(t, m)
	})
}

// The Actions view on structural-write agrees with the story and with
// memscope actions: the payment row carries the HEADLINE mark and
// AuthSelect's substitute, the header counts it, and enter on it opens the
// story of the query it followed (issue 24, item 2).
func TestActionsViewAgreesWithTheStory(t *testing.T) {
	if testing.Short() {
		t.Skip("opens a scenario")
	}
	src, _ := openScenario(t, "structural-write")
	finish(t, src)
	var row defencesRow
	for _, r := range src.ActionVerdicts() {
		if r.Headline {
			row = defencesRow{r.Action, r.Query}
		}
	}
	if row.action == "" || row.query == "" {
		t.Fatalf("structural-write has no HEADLINE action that followed a query: %+v", src.ActionVerdicts())
	}
	var m tea.Model = tui.New(src, tui.Options{Static: true})
	m = tuitest.Drive(t, m, m.Init())
	m = tuitest.Send(t, m, tea.WindowSizeMsg{Width: 120, Height: 40})
	m = tuitest.Press(t, m, "8")
	scr := tuitest.Screen(m)
	sel := selectedLine(scr)
	if !strings.Contains(sel, "! "+row.action) || !strings.Contains(sel, "substitute") {
		t.Errorf("the payment row lacks ! or AuthSelect's substitute: %q\n%s", sel, scr)
	}
	if strings.Contains(scr, " 0 dispatched that a defence refuses") || !strings.Contains(scr, "dispatched that a defence refuses") {
		t.Errorf("the header does not count the refused payment:\n%s", scr)
	}
	m = tuitest.Press(t, m, "enter")
	scr = tuitest.Screen(m)
	if !strings.Contains(scr, "[6 Replay]") || !strings.Contains(scr, "INJECTED") {
		t.Errorf("enter on %s did not open the story of %s:\n%s", row.action, row.query, scr)
	}
}

type defencesRow struct{ action, query string }

// Every finding memscope exposure reports on the mwp scenario (its MWP
// audit) is in the inspector's findings with the same severity, beside
// verify's; each MWP code the scenario's expect line names is there, and
// the Exposure view has the MWP section (issue 24, item 3).
func TestMWPFindingsReachTheInspector(t *testing.T) {
	if testing.Short() {
		t.Skip("opens a scenario")
	}
	src, man := openScenario(t, "mwp")
	p := finish(t, src)
	have := map[string]finding.Severity{}
	for _, f := range p.Findings {
		have[string(f.Code)+" "+f.Subject] = f.Severity
	}
	ex, err := exposurecase.Build(context.Background(), src.Session(), exposure.Options{Seed: 1, Draws: 5, CurveDraws: 0})
	if err != nil {
		t.Fatal(err)
	}
	if len(ex.MWP.Findings) == 0 {
		t.Fatal("memscope exposure's MWP audit reports nothing on mwp")
	}
	for _, f := range ex.MWP.Findings {
		if sev, ok := have[string(f.Code)+" "+jumpSubject(f.Subject)]; !ok || sev != f.Severity {
			t.Errorf("exposure reports %s %s %s; the inspector has %q (listed: %v)", f.Severity, f.Code, f.Subject, sev, ok)
		}
	}
	for _, code := range regexp.MustCompile(`MWP_[A-Z_]+`).FindAllString(man.Expect, -1) {
		found := false
		for _, f := range p.Findings {
			found = found || string(f.Code) == code
		}
		if !found {
			t.Errorf("the scenario expects %s; the inspector lists none", code)
		}
	}
	var m tea.Model = tui.New(src, tui.Options{Static: true, NoVerify: true})
	m = tuitest.Send(t, m, tea.WindowSizeMsg{Width: 200, Height: 50})
	m = tuitest.Press(t, m, "0", "G")
	if scr := tuitest.Screen(m); !strings.Contains(scr, "MWP non-formation audit") || !strings.Contains(scr, "MWP_GATE_BYPASS") {
		t.Errorf("the Exposure view has no MWP section:\n%s", scr)
	}
}

// Every id a view prints opens with : in each form the views print it (in
// full, head…tail, the 5-character tail): entries, every log leaf's record
// and the culprit writes the stories list (issue 24, item 6).
func TestEveryIDOpensWithColon(t *testing.T) {
	if testing.Short() {
		t.Skip("opens a scenario")
	}
	src, _ := openScenario(t, "structural-write")
	finish(t, src)
	rv, err := src.Replay(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]string{}
	for _, r := range rv.Rows {
		if r.Culprits != nil {
			for _, c := range r.Culprits.Set {
				ids[c.EdgeID] = "culprit"
			}
		}
	}
	if len(ids) == 0 {
		t.Fatal("structural-write has no culprit writes")
	}
	for i := 0; i < src.LeafCount(); i++ {
		if lf := src.Leaf(i); lf.Subject != "" {
			ids[lf.Subject] = lf.Kind.String()
		}
	}
	for i := 0; i < src.EntryCount(); i++ {
		ids[src.Entry(i).ID] = "entry"
	}
	var m tea.Model = tui.New(src, tui.Options{Static: true, NoVerify: true})
	m = tuitest.Send(t, m, tea.WindowSizeMsg{Width: 200, Height: 50})
	m = tuitest.Press(t, m, "6") // the stories' culprits are known once replay has loaded
	for id, kind := range ids {
		forms := []string{id}
		if r := []rune(id); len(r) > 12 {
			forms = append(forms, string(r[:8])+"…"+string(r[len(r)-5:]), string(r[len(r)-5:]))
		}
		for _, form := range forms {
			m = tuitest.Press(t, m, "esc", "1", ":")
			for _, r := range form {
				m = tuitest.Press(t, m, string(r))
			}
			m = tuitest.Press(t, m, "enter")
			st := statusLine(tuitest.Screen(m))
			if strings.Contains(st, "no id matches") || strings.Contains(st, "cannot open") || strings.Contains(st, "not a view") {
				if strings.Contains(st, "matches") && strings.Contains(st, "ids (") {
					continue // a short tail two ids share: the message says so
				}
				t.Errorf("%s %s as %q: %s", kind, id, form, st)
			}
		}
	}
}
