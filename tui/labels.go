package tui

import tea "charm.land/bubbletea/v2"

// The label state is global: one tau and one label policy for every view.
// Changing either asks the Source to recompute every label (a tea.Cmd);
// when it is done the Entries NOW column, the Actions verdicts, the
// Overview and the Lineage view all show the new labels, and the header
// says which are in force.

func policyName(failClosed bool) string {
	if failClosed {
		return "fail-closed"
	}
	return "fail-open"
}

// setTau changes the one tau every view uses and reloads what depends on it.
func (m *Model) setTau(t float64) tea.Cmd {
	if t == m.tau {
		return nil
	}
	m.tau = t
	return m.relabel()
}

// setPolicy switches the one label policy every view uses.
func (m *Model) setPolicy(failClosed bool) tea.Cmd {
	if _, ok := m.src.(PolicyRelabeler); !ok {
		m.setErr("this store's label policy is fixed (%s)", policyName(m.failClosed))
		return nil
	}
	if failClosed == m.failClosed {
		m.setStatus("labels are already %s", policyName(failClosed))
		return nil
	}
	m.failClosed = failClosed
	return m.relabel()
}

// relabel recomputes every label at the current tau and policy.
func (m *Model) relabel() tea.Cmd {
	t, fc := m.tau, m.failClosed
	var cmds []tea.Cmd
	m.relabeling++
	gen, ctx := m.relabeling, m.ctx
	switch rl := m.src.(type) {
	case PolicyRelabeler:
		cmds = append(cmds, func() tea.Msg {
			return relabelMsg{gen: gen, tau: t, failClosed: fc, err: rl.RelabelPolicy(ctx, t, fc)}
		}, m.startTick())
		m.setStatus("tau = %.2f, labels %s: recomputing every label...", t, policyName(fc))
	case Relabeler:
		cmds = append(cmds, func() tea.Msg { return relabelMsg{gen: gen, tau: t, failClosed: fc, err: rl.Relabel(ctx, t)} }, m.startTick())
		m.setStatus("tau = %.2f: recomputing every label...", t)
	default:
		m.setStatus("tau = %.2f (this store's labels are fixed: only Lineage follows)", t)
		if m.view == ViewLineage && m.lin.id != "" && !m.lineageDeclared() {
			cmds = append(cmds, m.loadLineage(m.lin.id))
		}
	}
	return tea.Batch(cmds...)
}

type relabelMsg struct {
	gen        int
	tau        float64
	failClosed bool
	err        error
}

// relabeled takes the Source's new labels into every view. The lineage
// drawing is reloaded only now, so it is drawn with the labels in force.
func (m *Model) relabeled(msg relabelMsg) tea.Cmd {
	if msg.gen != m.relabeling {
		return nil
	}
	if msg.err != nil {
		m.setErr("relabel at tau %.2f, %s: %v", msg.tau, policyName(msg.failClosed), msg.err)
		return nil
	}
	m.ov = m.src.Overview()
	m.ent.cache = nil
	m.reloadActions()
	m.setStatus("tau = %.2f, labels %s: every view shows labels recomputed with them", msg.tau, policyName(msg.failClosed))
	if m.view == ViewLineage && m.lin.id != "" && !m.lineageDeclared() {
		v := m.view
		sel := m.lin.cur
		cmd := m.loadLineage(m.lin.id)
		m.view, m.lin.keepCur = v, &sel
		return cmd
	}
	return nil
}
