// Package glossary explains, in plain words, every term memscope's outputs
// use. The HTML report prints it, and any other view can look terms up, so
// a term means the same thing everywhere. It is data only: no analysis, no
// presentation.
package glossary

import "strings"

// Term is one glossary entry.
type Term struct {
	Term    string // as it appears in outputs
	Aliases []string
	Meaning string // one or two plain sentences
}

// Papers memscope's terms come from, cited by title and arXiv id.
const (
	PaperAuthSelect = "Selection Integrity for LLM Graph Memory: An Accumulability Criterion for Information-Flow-Blind Retrieval (arXiv:2606.12290)"
	PaperMemLineage = "MemLineage: Lineage-Guided Enforcement for LLM Agent Memory (arXiv:2605.14421)"
	PaperSMSR       = "SMSR: Certified Defence Against Runtime Memory Poisoning in Persistent LLM Agent Systems (arXiv:2606.12703)"
)

// Terms lists every term, in alphabetical order of Term (case-insensitive).
var Terms = []Term{
	{Term: "1-minimal", Meaning: "A culprit set is 1-minimal when removing the whole set restores the authenticated selection but putting back any single write of it breaks that again. A smaller set may still exist elsewhere."},
	{Term: "anchor", Aliases: []string{"trust anchor"}, Meaning: "A key the investigator supplies from outside the evidence: the log's verifier key and the principal registry's root key. Checks are only as strong as the anchors."},
	{Term: "AuthSelect", Meaning: "The defence that re-runs the agent's graph selection on G_auth and accepts an action only when its justification is still selected (" + PaperAuthSelect + ")."},
	{Term: "bottleneck", Meaning: "The weakest edge on the strongest path from an External ancestor to a memory. At or below tau the untrusted label stops there (BREAK<=tau); above tau it propagates."},
	{Term: "BREAK<=tau", Meaning: "The first edge on a path whose weight is at or below tau: the untrusted label does not pass it."},
	{Term: "capture bound", Meaning: "Part of Lemma 1: the least share of the walk that a passage fed by injected edges captures, (1 - d) * d / k (0.05 at d = 0.5, k = 5)."},
	{Term: "checkpoint", Meaning: "A signed statement of the log's size and root hash. A checkpoint signed by the pinned log key fixes what the log held at that size."},
	{Term: "culprit write", Aliases: []string{"culprit"}, Meaning: "An unauthenticated structural write whose removal, together with the other culprits, gives back the selection the authenticated graph makes."},
	{Term: "Derived-Trusted", Aliases: []string{"DT"}, Meaning: "Trust label 1: the memory was derived only from trusted memories through strong edges."},
	{Term: "Derived-Untrusted", Aliases: []string{"DU"}, Meaning: "Trust label 2: an External memory reaches this one through strong edges only, so its content may carry attacker text."},
	{Term: "DIVERGE", Meaning: "A query whose top-k on G and on G_auth are different sets of passages: unauthenticated structure changed what the agent was shown."},
	{Term: "EVICTABLE", Meaning: "A selected passage that unauthenticated edges could push out of the top-k: its floor is below the capture bound (Lemma 1)."},
	{Term: "External", Aliases: []string{"EXT"}, Meaning: "Trust label 3: written from outside (a web page, an e-mail, an unregistered or failing writer). Everything memscope cannot authenticate is External."},
	{Term: "fail-open", Aliases: []string{"fail-closed"}, Meaning: "What lineage does with a memory whose parents are all weak: fail-open (the paper's choice) calls it Trusted, fail-closed calls it Derived-Untrusted."},
	{Term: "G", Meaning: "The full memory graph as stored, with every structural write, authenticated or not."},
	{Term: "G_auth", Meaning: "The memory graph with every unauthenticated structural write removed. Every node stays; only edges go."},
	{Term: "gate", Aliases: []string{"MemLineage gate"}, Meaning: "MemLineage's check before a sensitive tool call: an action justified by an untrusted memory is denied (or repaired) (" + PaperMemLineage + ")."},
	{Term: "HMAC tag", Aliases: []string{"HMAC"}, Meaning: "SMSR's keyed checksum over a memory's content, session and time; it can only be checked with the key (" + PaperSMSR + ")."},
	{Term: "HMAC?", Meaning: "Entry status: the signature verifies, but the SMSR HMAC tag is missing or does not match."},
	{Term: "IFC", Meaning: "Information-flow control: defences that check the provenance of each memory an agent retrieves, not how it was selected."},
	{Term: "IFC-blind", Meaning: "A diverging query where every passage selected on G is itself authenticated. Checking the provenance of what was retrieved (information-flow control) passes it; only replaying the selection finds it."},
	{Term: "inclusion proof", Meaning: "Hashes that show a record's leaf is in the log under a checkpoint's root. A failed proof means the record or the log was changed."},
	{Term: "laundering", Meaning: "A memory recorded as more trusted than its lineage allows, for example an agent's summary of a web page stored as Trusted."},
	{Term: "Lemma 1", Aliases: []string{"floor", "teleport floor"}, Meaning: "A passage keeps at least (1 - d) * r of the walk whatever edges are written (its teleport floor, r its seed mass). If the floor is below the capture bound, structure alone can push the passage out of the top-k (" + PaperAuthSelect + ")."},
	{Term: "no-source write", Aliases: []string{"no-source"}, Meaning: "A structural write that cites no memory as its source. Nothing vouches for it, so it is unauthenticated by construction."},
	{Term: "NOW", Meaning: "The trust label memscope recomputes from the lineage at the current tau. A * marks a memory whose recorded label is safer than the recomputed one: laundering."},
	{Term: "ok", Meaning: "Status: every check that ran passed. A check that could not run (no key given) says not checked, never ok."},
	{Term: "PARENT?", Meaning: "Entry status: the signature verifies, but a parent the memory names is neither in the store nor tombstoned."},
	{Term: "pinned", Aliases: []string{"unanchored"}, Meaning: "Pinned: the anchor came from the investigator. Unanchored: it was read from the evidence itself, which proves nothing, since whoever altered the evidence could also have altered it."},
	{Term: "PPR", Aliases: []string{"Personalized PageRank"}, Meaning: "Personalized PageRank, the graph walk HippoRAG2-style memories use to select passages: random steps along edges, restarting at the query's seed nodes with probability 1 - d (d = damping, 0.5)."},
	{Term: "REC", Meaning: "The trust label recorded in the memory when it was written: what the store claims."},
	{Term: "REORDER", Meaning: "A query whose top-k on G and on G_auth hold the same passages in a different order."},
	{Term: "SAME", Meaning: "A query whose top-k on G and on G_auth agree."},
	{Term: "SHOULD REFUSE", Meaning: "An action that was dispatched although the gate, recomputed from the lineage, would have refused it."},
	{Term: "SIG FAIL", Meaning: "Entry status: the Ed25519 signature does not verify under the writer's registered key."},
	{Term: "SMSR", Meaning: "The defence that tags every memory with an HMAC and certifies retrieval by random ablation (" + PaperSMSR + ")."},
	{Term: "strong edge", Aliases: []string{"weak edge"}, Meaning: "A derivation edge whose weight is above tau is strong and carries trust labels; at or below tau it is weak and does not."},
	{Term: "structural write", Meaning: "A signed record that adds an edge, a merge link or a relation to the memory graph. Its integrity follows its own writer and sources, not the nodes it connects."},
	{Term: "tau", Meaning: "The declassification threshold of lineage: only edges with weight strictly above tau carry an untrusted label to the child."},
	{Term: "tombstone", Meaning: "A signed log leaf that records a lawful deletion; the deleted record's own leaf stays in the log and stays provable."},
	{Term: "TOMBSTONED", Meaning: "Entry status: the memory is still in the store although a signed tombstone deleted it."},
	{Term: "top-k", Meaning: "The k passages (k = 5 by default) with the highest walk scores: what the agent was shown for a query."},
	{Term: "Trusted", Aliases: []string{"T"}, Meaning: "Trust label 0: written by the user or an authenticated principal, with no untrusted strong ancestor."},
	{Term: "verdict", Meaning: "What a defence would have done with an action: allow, deny, require-user, strip-and-retry, repair-and-retry, or not checked when its evidence is missing."},
	{Term: "weight", Meaning: "How much a parent contributed to a derived memory, from 0 to 1 (structural writes in a graph memory can carry larger raw weights, such as 60). The inspector draws an edge as -[0.80]->: the number in brackets is the weight, the dashes are the arrow."},
	{Term: "what-if", Meaning: "A replay of a query with chosen unauthenticated writes removed (x toggles one, w all culprits in the inspector). The set is global: the inspector's header shows it."},
}

// Lookup finds a term by its name or an alias, ignoring case.
func Lookup(name string) (Term, bool) {
	for _, t := range Terms {
		if strings.EqualFold(t.Term, name) {
			return t, true
		}
		for _, a := range t.Aliases {
			if strings.EqualFold(a, name) {
				return t, true
			}
		}
	}
	return Term{}, false
}

// Search returns the terms whose name or an alias starts with q
// (case-insensitive), or, when none does, those that mention q. An empty q
// or "*" returns every term.
func Search(q string) []Term {
	q = strings.ToLower(strings.TrimSpace(q))
	if q == "" || q == "*" {
		return Terms
	}
	var out []Term
	for _, t := range Terms {
		for _, n := range append([]string{t.Term}, t.Aliases...) {
			if strings.HasPrefix(strings.ToLower(n), q) {
				out = append(out, t)
				break
			}
		}
	}
	if len(out) > 0 {
		return out
	}
	for _, t := range Terms {
		if strings.Contains(strings.ToLower(t.Term+" "+strings.Join(t.Aliases, " ")+" "+t.Meaning), q) {
			out = append(out, t)
		}
	}
	return out
}
