package tui

import (
	"strings"

	tea "charm.land/bubbletea/v2"
)

// Term is one glossary entry: a word the inspector shows, in plain words.
type Term struct {
	Term, Means string
}

// glossary explains every label and word the views use. docs/GLOSSARY.md
// holds the same list (a test keeps them in step).
var glossary = []Term{
	{"tau", "The weight threshold of lineage. An edge from a parent to a child counts as 'strong' when its weight is above tau; trust labels only travel along strong edges. Higher tau: fewer edges count, less untrusted influence propagates. Set it with + and -; every view uses the same tau."},
	{"weight", "How much a parent contributed to a derived entry, from 0 to 1 (structural writes in a graph memory can carry larger raw weights, such as 60). Drawn as -[w]-> (for example -[0.80]->): the number in brackets is the weight, the dashes are the arrow."},
	{"REC", "The trust label recorded in the entry when it was written (what the store claims)."},
	{"NOW", "The trust label memscope recomputes from the lineage at the current tau. A '*' marks an entry whose recorded label is safer than the recomputed one: laundering."},
	{"T", "Trusted: written by the user or the agent's own principal, with no untrusted parent reaching it through a strong edge."},
	{"DT", "Derived-Trusted: derived from trusted material, or written by a tool (authenticated, but possibly influenced by what the tool read)."},
	{"DU", "Derived-Untrusted: derived, through strong edges, from something external. A sensitive action should not rely on it."},
	{"EXT", "External: written by an outside principal (web page, e-mail, another agent's unregistered key), or an id not in the store."},
	{"laundering", "An entry recorded as trusted whose lineage says it is untrusted: untrusted content turned 'trusted' by passing through a summary or a derivation."},
	{"bottleneck", "The weakest edge on the strongest path from an External ancestor to the entry. If it is at or below tau, the untrusted label stops there (BREAK<=tau); above tau it PROPAGATES."},
	{"BREAK<=tau", "The first edge on a path whose weight is at or below tau: the untrusted label does not pass it."},
	{"gate", "The check before a sensitive tool call (a transfer, an e-mail): it looks at the labels of the entries that justify the call and allows, denies, or asks the user."},
	{"fail-open", "The label policy for a derived entry none of whose parent edges is strong (all at or below tau): fail-open keeps it Trusted (the MemLineage default), fail-closed labels it Derived-Untrusted. The header shows which is in force."},
	{"fail-closed", "See fail-open: a derived entry with no strong parent is labelled Derived-Untrusted."},
	{"SHOULD REFUSE", "An action that was dispatched although the gate, recomputed from the lineage, would have refused it."},
	{"G", "The full memory graph, every edge included: what the agent actually retrieved from."},
	{"G_auth", "The authenticated graph: only edges whose writer could be checked. Replaying a query on both shows what unauthenticated structure changed."},
	{"DIVERGE", "The top-k selection on G has different items from the one on G_auth: unauthenticated structure changed what the agent saw."},
	{"REORDER", "Same items on G and G_auth, in a different order."},
	{"IFC", "Information-flow control: defences that check the provenance of each item an agent retrieves."},
	{"IFC-BLIND", "A divergent query where every item selected on G is itself authenticated, so a provenance check of the retrieved items passes. Only replaying the selection shows the attack (AuthSelect, arXiv:2606.12290)."},
	{"culprit", "An unauthenticated structural write whose removal (together with the other culprits) gives back the G_auth selection."},
	{"1-minimal", "The culprit set cannot lose any single member and still restore G_auth: every culprit is needed."},
	{"no-source", "A structural write (an edge) that names no source entry: nothing in the store justifies it."},
	{"structural write", "A write that adds or changes an edge of the graph memory rather than a passage."},
	{"what-if", "Replay a query with chosen unauthenticated writes removed (x toggles one, w all culprits). The set is global: the header shows it."},
	{"Lemma 1", "The AuthSelect bound: a passage whose reset mass gives it a score floor above the capture bound cannot be pushed out of the top-k by unauthenticated edges; below it, it is EVICTABLE."},
	{"floor", "The lowest score a passage keeps whatever the attacker adds (from its reset mass and the damping)."},
	{"capture bound", "The most score unauthenticated edges can take away from or give to a passage. Floor above it: safe; below: EVICTABLE."},
	{"EVICTABLE", "A selected passage that unauthenticated edges could push out of the top-k (its floor is below the capture bound)."},
	{"PPR", "Personalised PageRank: how the graph memory scores passages for a query, starting from the query's entities."},
	{"checkpoint", "A signed statement of the log's size and root hash at one time. Two checkpoints must be consistent: the later log extends the earlier one."},
	{"inclusion proof", "Hashes that lead from an entry's leaf to the checkpoint root: proof the entry was in the log when the checkpoint was signed."},
	{"tombstone", "A signed deletion: the entry is gone from the store, the log keeps its leaf and a ts: tombstone naming it and the reason."},
	{"TOMBSTONED", "Status: the entry is still in the store although a tombstone deleted it."},
	{"PARENT?", "Status: the signature verifies, but a parent the entry names is not in the store."},
	{"HMAC?", "Status: the signature verifies, but the SMSR HMAC tag is missing or wrong."},
	{"SIG FAIL", "Status: the Ed25519 signature does not verify under the writer's registered key."},
	{"ok", "Status: the checks that ran passed. Checks that could not run (no key given) say 'not checked', never ok."},
	{"anchor", "A key you supply to memscope (log key, registry root, HMAC key). 'pinned': you gave it; UNANCHORED: read from the snapshot itself, which an attacker could have replaced."},
	{"HMAC", "SMSR's keyed tag on each memory (arXiv:2606.12703): without the key nobody can forge it."},
	{"verdict", "What a defence would have done with an action: allow, deny, require-user, strip-and-retry, repair-and-retry."},
}

// LookUp returns the glossary terms that start with q (or mention it), for
// memscope help TERM.
func LookUp(q string) []Term { return glossaryMatches(q) }

// Glossary returns every term, in display order.
func Glossary() []Term { return append([]Term(nil), glossary...) }

// glossaryMatches are the terms whose name starts with q (or all for "*").
func glossaryMatches(q string) []Term {
	q = strings.ToLower(strings.TrimSpace(q))
	if q == "" || q == "*" {
		return glossary
	}
	var out []Term
	for _, t := range glossary {
		if strings.HasPrefix(strings.ToLower(t.Term), q) {
			out = append(out, t)
		}
	}
	if len(out) == 0 {
		for _, t := range glossary {
			if strings.Contains(strings.ToLower(t.Term+" "+t.Means), q) {
				out = append(out, t)
			}
		}
	}
	return out
}

// helpKey: in the help screen j/k/pgup/pgdn/g/G scroll, typing looks a
// term up in the glossary, backspace edits it, esc or ? closes.
func (m *Model) helpKey(msg tea.KeyPressMsg) tea.Cmd {
	switch s := msg.String(); s {
	case "ctrl+c":
		return m.quit()
	case "esc", "?", "q":
		if s == "esc" && m.glossary != "" && m.glossary != "*" {
			m.glossary, m.helpScroll = "", 0
			return nil
		}
		m.showHelp = false
	case "down", "ctrl+d", "ctrl+n":
		m.helpScroll++
	case "up", "ctrl+u", "ctrl+p":
		m.helpScroll = max(0, m.helpScroll-1)
	case "j", "k":
		if m.glossary != "" {
			m.glossary += s
			m.helpScroll = 0
		} else if s == "j" {
			m.helpScroll++
		} else {
			m.helpScroll = max(0, m.helpScroll-1)
		}
	case "pgdown", "space":
		m.helpScroll += max(1, m.bodyHeight()-2)
	case "pgup":
		m.helpScroll = max(0, m.helpScroll-max(1, m.bodyHeight()-2))
	case "home":
		m.helpScroll = 0
	case "end":
		m.helpScroll = 1 << 30
	case "backspace":
		if r := []rune(m.glossary); len(r) > 0 {
			m.glossary = string(r[:len(r)-1])
		}
		m.helpScroll = 0
	default:
		if msg.Text != "" {
			m.glossary += msg.Text
			m.helpScroll = 0
		}
	}
	return nil
}

func (m *Model) renderHelp(w, h int) []string {
	s := m.styles
	var lines []string
	if m.glossary != "" {
		q := m.glossary
		lines = append(lines, s.Title.Render("Glossary")+s.Dim.Render("  looking up: ")+s.Bold.Render(q)+s.Dim.Render("  (type to look up, backspace edits, esc all keys)"), "")
		ts := glossaryMatches(q)
		if len(ts) == 0 {
			lines = append(lines, s.Dim.Render("  no term matches"))
		}
		for _, t := range ts {
			lines = append(lines, s.Bold.Render("  "+t.Term))
			lines = append(lines, wrapLine("    "+t.Means, w-2)...)
		}
	} else {
		lines = append(lines, s.Title.Render("Keys")+s.Dim.Render("  (effective bindings; remap in "+keyMapPathHint()+"; j/k scroll, esc closes; type a word to look it up)"), "")
		for _, group := range m.keys.FullHelp() {
			for _, b := range group {
				if !b.Enabled() {
					continue
				}
				hp := b.Help()
				lines = append(lines, "  "+s.Bold.Render(padRight(strings.Join(b.Keys(), " / "), 22))+" "+hp.Desc)
			}
			lines = append(lines, "")
		}
		lines = append(lines, s.Title.Render("Glossary")+s.Dim.Render("  (type a term to look it up; also docs/GLOSSARY.md)"))
		for _, t := range glossary {
			lines = append(lines, wrapLine("  "+s.Bold.Render(t.Term)+"  "+t.Means, w-2)...)
		}
	}
	top := min(m.helpScroll, max(0, len(lines)-h))
	m.helpScroll = top
	end := min(len(lines), top+h)
	out := append([]string(nil), lines[top:end]...)
	if end < len(lines) && h > 1 {
		out[len(out)-1] = s.Dim.Render(moreLine(len(lines)-end+1, s.Plain))
	}
	return out
}
