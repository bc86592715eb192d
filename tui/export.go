package tui

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/memscope/memscope/internal/present/jsonout"
	"github.com/memscope/memscope/replay"
)

// exportPath names an export file: memscope-<view>-<time>.<ext> in ExportDir.
func (m *Model) exportPath(ext string) string {
	name := fmt.Sprintf("memscope-%s-%s.%s", strings.ToLower(m.view.String()), m.opts.Now().UTC().Format("20060102-150405"), ext)
	return filepath.Join(m.opts.ExportDir, name)
}

// exportJSON writes the current view's data as the CLI's --json does
// (package jsonout) in a background command. The entries view exports the filtered rows.
func (m *Model) exportJSON() tea.Cmd {
	path := m.exportPath("json")
	var data func() any
	switch m.view {
	case ViewOverview:
		ov := m.ov
		data = func() any { return ov }
	case ViewFindings:
		fs := make([]any, 0, len(m.fnd.rows))
		for _, g := range m.fnd.groups {
			for _, i := range g.members {
				fs = append(fs, m.findings[i])
			}
		}
		if m.fnd.group == groupNone {
			for _, r := range m.fnd.rows {
				fs = append(fs, m.findings[r.fi])
			}
		}
		data = func() any { return fs }
	case ViewEntries:
		src, order, sorted, n := m.src, m.ent.order, m.ent.sorted, m.ent.n
		data = func() any {
			idx := order
			if idx == nil {
				idx = sorted
			}
			var rows []EntryRow
			if idx == nil {
				rows = make([]EntryRow, n)
				for i := range rows {
					rows[i] = entryWithPreview(context.Background(), src, i)
				}
			} else {
				rows = make([]EntryRow, len(idx))
				for p, i := range idx {
					rows[p] = entryWithPreview(context.Background(), src, int(i))
				}
			}
			return rows
		}
	case ViewDetail:
		if m.det.d == nil {
			m.setErr("nothing to export: no entry loaded")
			return nil
		}
		d := *m.det.d
		data = func() any { return d }
	case ViewLineage:
		if m.lin.lv == nil {
			m.setErr("nothing to export: no lineage loaded")
			return nil
		}
		lv := *m.lin.lv
		data = func() any { return lv }
	case ViewReplay:
		if m.rep.rv == nil {
			m.setErr("nothing to export: replay not loaded")
			return nil
		}
		rv := *m.rep.rv
		data = func() any { return exportReplayRows(rv.Rows) }
		if a, ok := m.src.(Answerer); ok {
			data = func() any {
				if rows, err := a.ReplayAnswer(context.Background()); err == nil {
					return rows
				}
				return exportReplayRows(rv.Rows)
			}
		}
	case ViewLog:
		src := m.src
		data = func() any {
			leaves := make([]LeafRow, src.LeafCount())
			for i := range leaves {
				leaves[i] = src.Leaf(i)
			}
			return map[string]any{"checkpoints": src.Checkpoints(), "leaves": leaves}
		}
	case ViewActions:
		rows := m.act.rows
		data = func() any { return rows }
		if a, ok := m.src.(Answerer); ok {
			data = func() any { return a.ActionAnswer() }
		}
	case ViewTimeline:
		if m.tl.tl == nil {
			m.setErr("nothing to export: the timeline has not loaded")
			return nil
		}
		tl := m.tl.tl
		data = func() any { return tl }
		if a, ok := m.src.(Answerer); ok {
			data = func() any { return a.TimelineAnswer(tl) }
		}
	case ViewExposure:
		if m.exp.res == nil {
			m.setErr("nothing to export: the exposure estimate has not been computed")
			return nil
		}
		res, extras := m.exp.res, m.exp.extras
		data = func() any { return map[string]any{"exposure": res, "extras": extras} }
	}
	if data == nil {
		// A view added without an export must say so, not crash.
		m.setErr("the %s view has no JSON export", m.view)
		return nil
	}
	m.setStatus("exporting %s...", path)
	return func() tea.Msg {
		// One schema with the CLI's --json: snake_case keys, every string
		// sanitised (package jsonout).
		b, err := jsonout.Marshal(data())
		written := path
		if err == nil {
			written, err = writeNew(path, b)
		}
		return exportMsg{path: written, err: err}
	}
}

// exportDOT writes the lineage neighbourhood as Graphviz DOT.
func (m *Model) exportDOT() tea.Cmd {
	if m.lineageDeclared() {
		m.setErr("no DOT export for a store's declared lineage (a tree of the store's own claims, not a DAG of trust labels); e exports the view as JSON")
		return nil
	}
	if m.lin.lv == nil || m.lin.lv.DOT == "" {
		m.setErr("no lineage to export as DOT: open one with → on an entry")
		return nil
	}
	path, dot := m.exportPath("dot"), m.lin.lv.DOT
	return func() tea.Msg {
		written, err := writeNew(path, []byte(dot))
		return exportMsg{path: written, err: err}
	}
}

// writeNew never overwrites an existing file: a second export of a view
// within the same second is written as NAME-2.json, NAME-3.json...
// (created exclusively, so a file that appears meanwhile is never
// touched).
func writeNew(path string, b []byte) (string, error) {
	ext := filepath.Ext(path)
	base := strings.TrimSuffix(path, ext)
	var f *os.File
	var err error
	for n := 1; n <= 100; n++ {
		p := path
		if n > 1 {
			p = fmt.Sprintf("%s-%d%s", base, n, ext)
		}
		f, err = os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if !errors.Is(err, os.ErrExist) {
			path = p
			break
		}
	}
	if err != nil {
		return path, err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return path, err
	}
	return path, f.Close()
}

// exportLemma is a Lemma 1 target as memscope replay --json writes it: a
// passage not selected on G has no margin (null), where replay.Lemma1
// holds NaN, which JSON cannot carry.
type exportLemma struct {
	replay.Lemma1
	Margin *float64 `json:"margin"`
}

// exportRow is a replay row with its targets as exportLemma.
type exportRow struct {
	replay.Row
	Targets []exportLemma `json:"targets"`
}

func exportReplayRows(rows []replay.Row) []exportRow {
	out := make([]exportRow, len(rows))
	for i, r := range rows {
		out[i].Row = r
		out[i].Targets = make([]exportLemma, len(r.Targets))
		for j, t := range r.Targets {
			out[i].Targets[j].Lemma1 = t
			if !math.IsNaN(t.Margin) && !math.IsInf(t.Margin, 0) {
				m := t.Margin
				out[i].Targets[j].Margin = &m
			}
		}
	}
	return out
}
