// Package glossary explains, in plain words, every term memscope's outputs
// use: the inspector (? then a word, memscope help WORD) and the HTML
// report print the same text, and docs/GLOSSARY.md holds it word for word
// (tested in package tui). It is data only: no analysis, no presentation.
package glossary

import "strings"

// Term is one glossary entry.
type Term struct {
	Term    string // as it appears in outputs
	Meaning string // plain sentences
	// InspectorOnly marks words only the terminal inspector shows (column
	// headers, status words, keys); a report leaves them out. ReportOnly
	// marks words the report uses that the inspector's views do not (yet):
	// its help leaves them out.
	InspectorOnly, ReportOnly bool
}

// Papers memscope's terms come from, cited by title and arXiv id.
const (
	PaperAuthSelect = "Selection Integrity for LLM Graph Memory: An Accumulability Criterion for Information-Flow-Blind Retrieval, arXiv:2606.12290"
	PaperMemLineage = "MemLineage: Lineage-Guided Enforcement for LLM Agent Memory, arXiv:2605.14421"
	PaperSMSR       = "SMSR: Certified Defence Against Runtime Memory Poisoning in Persistent LLM Agent Systems, arXiv:2606.12703"
)

// Terms lists every term in display order.
var Terms = []Term{
	{Term: "tau", Meaning: "The weight threshold of lineage. An edge from a parent to a child counts as 'strong' when its weight is above tau; trust labels only travel along strong edges. Higher tau: fewer edges count, less untrusted influence propagates. Set it with + and -; every view uses the same tau."},
	{Term: "weight", Meaning: "How much a parent contributed to a derived entry, from 0 to 1 (structural writes in a graph memory can carry larger raw weights, such as 60). Drawn as -[w]-> (for example -[0.80]->): the number in brackets is the weight, the dashes are the arrow."},
	{Term: "REC", Meaning: "The trust label recorded in the entry when it was written (what the store claims).", InspectorOnly: true},
	{Term: "NOW", Meaning: "The trust label memscope recomputes from the lineage at the current tau. A '*' marks an entry whose recorded label is safer than the recomputed one: laundering.", InspectorOnly: true},
	{Term: "T", Meaning: "Trusted: written by the user or the agent's own principal, with no untrusted parent reaching it through a strong edge."},
	{Term: "DT", Meaning: "Derived-Trusted: derived from trusted material, or written by a tool (authenticated, but possibly influenced by what the tool read)."},
	{Term: "DU", Meaning: "Derived-Untrusted: derived, through strong edges, from something external. A sensitive action should not rely on it."},
	{Term: "EXT", Meaning: "External: written by an outside principal (web page, e-mail, another agent's unregistered key), or an id not in the store."},
	{Term: "laundering", Meaning: "An entry recorded as trusted whose lineage says it is untrusted: untrusted content turned 'trusted' by passing through a summary or a derivation."},
	{Term: "bottleneck", Meaning: "The weakest edge on the strongest path from an External ancestor to the entry. If it is at or below tau, the untrusted label stops there (BREAK<=tau); above tau it PROPAGATES."},
	{Term: "BREAK<=tau", Meaning: "The first edge on a path whose weight is at or below tau: the untrusted label does not pass it.", InspectorOnly: true},
	{Term: "gate", Meaning: "The check before a sensitive tool call (a transfer, an e-mail): it looks at the labels of the entries that justify the call and allows, denies, or asks the user."},
	{Term: "fail-open", Meaning: "The label policy for a derived entry none of whose parent edges is strong (all at or below tau): fail-open keeps it Trusted (the MemLineage default), fail-closed labels it Derived-Untrusted. The header shows which is in force."},
	{Term: "fail-closed", Meaning: "See fail-open: a derived entry with no strong parent is labelled Derived-Untrusted."},
	{Term: "SHOULD REFUSE", Meaning: "An action that was dispatched although the gate, recomputed from the lineage, would have refused it.", InspectorOnly: true},
	{Term: "G", Meaning: "The full memory graph, every edge included: what the agent actually retrieved from."},
	{Term: "G_auth", Meaning: "The authenticated graph: only edges whose writer could be checked. Replaying a query on both shows what unauthenticated structure changed."},
	{Term: "DIVERGE", Meaning: "The top-k selection on G has different items from the one on G_auth: unauthenticated structure changed what the agent saw."},
	{Term: "REORDER", Meaning: "Same items on G and G_auth, in a different order."},
	{Term: "IFC", Meaning: "Information-flow control: defences that check the provenance of each item an agent retrieves."},
	{Term: "IFC-BLIND", Meaning: "A divergent query where every item selected on G is itself authenticated, so a provenance check of the retrieved items passes. Only replaying the selection shows the attack (AuthSelect, arXiv:2606.12290)."},
	{Term: "culprit", Meaning: "An unauthenticated structural write whose removal (together with the other culprits) gives back the G_auth selection."},
	{Term: "1-minimal", Meaning: "The culprit set cannot lose any single member and still restore G_auth: every culprit is needed."},
	{Term: "no-source", Meaning: "A structural write (an edge) that names no source entry: nothing in the store justifies it."},
	{Term: "structural write", Meaning: "A write that adds or changes an edge of the graph memory rather than a passage."},
	{Term: "what-if", Meaning: "Replay a query with chosen unauthenticated writes removed (x toggles one, w all culprits). The set is global: the header shows it.", InspectorOnly: true},
	{Term: "Lemma 1", Meaning: "The AuthSelect bound: a passage whose reset mass gives it a score floor above the capture bound cannot be pushed out of the top-k by unauthenticated edges; below it, it is EVICTABLE."},
	{Term: "floor", Meaning: "The lowest score a passage keeps whatever the attacker adds (from its reset mass and the damping)."},
	{Term: "capture bound", Meaning: "The most score unauthenticated edges can take away from or give to a passage. Floor above it: safe; below: EVICTABLE."},
	{Term: "EVICTABLE", Meaning: "A selected passage that unauthenticated edges could push out of the top-k (its floor is below the capture bound).", InspectorOnly: true},
	{Term: "PPR", Meaning: "Personalised PageRank: how the graph memory scores passages for a query, starting from the query's entities."},
	{Term: "checkpoint", Meaning: "A signed statement of the log's size and root hash at one time. Two checkpoints must be consistent: the later log extends the earlier one."},
	{Term: "inclusion proof", Meaning: "Hashes that lead from an entry's leaf to the checkpoint root: proof the entry was in the log when the checkpoint was signed."},
	{Term: "tombstone", Meaning: "A signed deletion: the entry is gone from the store, the log keeps its leaf and a ts: tombstone naming it and the reason."},
	{Term: "TOMBSTONED", Meaning: "Status: the entry is still in the store although a tombstone deleted it.", InspectorOnly: true},
	{Term: "PARENT?", Meaning: "Status: the signature verifies, but a parent the entry names is not in the store.", InspectorOnly: true},
	{Term: "HMAC?", Meaning: "Status: the signature verifies, but the SMSR HMAC tag is missing or wrong.", InspectorOnly: true},
	{Term: "SIG FAIL", Meaning: "Status: the Ed25519 signature does not verify under the writer's registered key.", InspectorOnly: true},
	{Term: "ok", Meaning: "Status: the checks that ran passed. Checks that could not run (no key given) say 'not checked', never ok.", InspectorOnly: true},
	{Term: "anchor", Meaning: "A key you supply to memscope (log key, registry root, HMAC key). 'pinned': you gave it; UNANCHORED: read from the snapshot itself, which an attacker could have replaced."},
	{Term: "HMAC", Meaning: "SMSR's keyed tag on each memory (arXiv:2606.12703): without the key nobody can forge it."},
	{Term: "verdict", Meaning: "What a defence would have done with an action: allow, deny, require-user, strip-and-retry, repair-and-retry."},
	{Term: "AuthSelect", Meaning: "The defence that re-runs the agent's graph selection on G_auth before an action: it accepts the action when its justification is still selected, substitutes the G_auth selection when it is not, and escalates by the action's authority (" + PaperAuthSelect + ").", ReportOnly: true},
	{Term: "MemLineage M6", Meaning: "MemLineage's parameter-level gate: each governed parameter of a sensitive tool (an amount, a recipient) must come from a trusted entry; otherwise deny, strip the untrusted entries and retry, or repair the parameter from a trusted value (" + PaperMemLineage + ").", ReportOnly: true},
	{Term: "justification IFC", Meaning: "The signature-only baseline: an action passes when every entry that justifies it is signed, registered and written on an authenticated channel. It passes IFC-blind actions.", ReportOnly: true},
	{Term: "SMSR", Meaning: "The defence that tags every memory with an HMAC and certifies retrieval by random ablation: delta bounds the chance that most of n runs see an adversarial memory (" + PaperSMSR + ").", ReportOnly: true},
	{Term: "not checked", Meaning: "What memscope says when the evidence a check needs is absent (no key, no recorded query). It is never an allow or a pass.", ReportOnly: true},
	{Term: "SAME", Meaning: "A query whose top-k on G and on G_auth agree.", ReportOnly: true},
	{Term: "top-k", Meaning: "The k passages (k = 5 by default) with the highest walk scores: what the agent was shown for a query.", ReportOnly: true},
	{Term: "strong edge", Meaning: "A derivation edge whose weight is above tau: it carries trust labels from parent to child. At or below tau the edge is weak and does not.", ReportOnly: true},
	{Term: "Trusted", Meaning: "Trust label 0 (T): written by the user or an authenticated principal, with no untrusted strong ancestor. Derived-Trusted (DT) is 1, Derived-Untrusted (DU) 2, External (EXT) 3.", ReportOnly: true},
	{Term: "S_dom", Meaning: "Structural dominance of a selector on a query: 1 minus the Jaccard overlap of its top-k on G_auth with the top-k of the structure-free baseline (dense scores for PPR and Leiden, RRF for node-distance). 0: the graph's structure changes nothing; 1: it decides every item (docs/EXPOSURE.md)."},
	{Term: "S_adv", Meaning: "The share of random bounded no-source writes at the heavy budget (edge weight 60) that change a query's selected set on G_auth, estimated by seeded Monte Carlo. The column S_ADV W<=N is the same share at the clean budget, whose weights (1 to N) look like clean edges."},
	{Term: "EXPOSED", Meaning: "A selector is exposed when any random draw or the targeted write changed the selected set of any query: writes nobody authenticated can move what it selects."},
	{Term: "rho_detect", Meaning: "EquiMem's score of one structural write (alpha s_local + (1 - alpha) s_path): how well its relation fits the relations around its endpoints. A low rho_detect is unusual structure; the triage ranks writes lowest first (RHO column)."},
	{Term: "delta", Meaning: "SMSR's certificate bound: the chance that a majority of n random ablation runs, each keeping k of the m candidate passages, lets one of the t unauthenticated passages through. Smaller is safer."},
	{Term: "allow", Meaning: "The decision that lets an action run as emitted (IFC, the MemLineage gate, no defence). accept is AuthSelect's and SMSR's word for the same."},
	{Term: "accept", Meaning: "AuthSelect's and SMSR's decision that lets an action run as emitted: every justifying passage is still selected on G_auth, or every justifying entry carries a valid HMAC tag."},
	{Term: "deny", Meaning: "The MemLineage gate's refusal: an entry that justifies a sensitive action is untrusted at the current tau."},
	{Term: "substitute", Meaning: "AuthSelect's decision when a justifying passage is not selected on G_auth but G_auth offers an authenticated item with the authority the action needs: the action runs on that item, not as emitted. A refusal of the action as emitted."},
	{Term: "escalate", Meaning: "AuthSelect's decision when a justifying passage is not selected on G_auth and G_auth offers no item with the authority the action needs: a person must decide. A refusal of the action as emitted."},
	{Term: "authority", Meaning: "What AuthSelect requires of a substitute: A (an authenticated item) for a tool the gate policy calls sensitive, U (any item) otherwise. In findings (TOMBSTONE_NO_AUTHORITY, OPERATOR_NO_AUTHORITY) it says whether a signer may act on that record."},
	{Term: "HEADLINE", Meaning: "An action IFC allows while AuthSelect substitutes or escalates: every justifying entry is authenticated, yet only unauthenticated structure brought it into the selection. Marked ! in the Actions view and in memscope actions."},
	{Term: "AS-RAN", Meaning: "The replay on the graph as the query ran: only the writes logged before it. memscope replay's AS-RAN column and the inspector's t key set it beside the graph as it is now."},
	{Term: "RANK1 FLIP", Meaning: "The item ranked first differs between G and G_auth (memscope replay's RANK1 column says FLIP): the top answer itself changed, not only the rest of the top-k."},
	{Term: "low-floor", Meaning: "A passage selected on G_auth whose teleport floor is below the capture bound: a heavy enough unauthenticated write can evict it (Lemma 1). The opposite of anchored."},
	{Term: "anchored", Meaning: "A passage selected on G_auth whose teleport floor is at or above the capture bound: no budget of unauthenticated edges can evict it (Lemma 1)."},
	{Term: "Leiden", Meaning: "A community-detection algorithm (modularity, seeded). The Leiden selector ranks communities by the reset mass they hold and takes passages by dense score within them; writes that move the communities move its selection."},
	{Term: "RRF", Meaning: "Reciprocal-rank fusion (constant 60) of the stored dense scores and BM25 over the passage text: a selector that reads no graph structure, so its S_adv is 0 by construction."},
	{Term: "PRLR", Meaning: "Post-rejection leakage in the mediated write path (MWP): a candidate the write gate rejected that still reaches the agent's reasoning, as a parent, a write's source, an action's justification, a recorded selection or a log leaf. Each trace is an MWP_PRLR_TRACE finding."},
	{Term: "MWP", Meaning: "Mediated write path: a store that declares a write gate. The MWP audit (memscope exposure, the Exposure view, the report) checks that rejected candidates left no trace and that accepted writes went through the gate unchanged."},
	{Term: "INJECTED", Meaning: "A passage G selects and G_auth does not: unauthenticated structure brought it into the top-k."},
	{Term: "UNAUTH", Meaning: "Timeline mark of a write no verified signature of a registered writer covers: it counts towards G, not G_auth."},
	{Term: "CONSISTENT", Meaning: "Log view column: whether the checkpoint's tree extends the previous checkpoint's (a consistency proof checked), so the log was only appended to."},
	{Term: "LAUNDERED", Meaning: "Lineage view mark of an entry whose recorded label is safer than the recomputed one (see laundering)."},
	{Term: "PROPAGATES", Meaning: "The untrusted label passes the path's weakest edge (its weight is above tau) and reaches the entry."},
	{Term: "MALFORMED", Meaning: "Status: the record or its row could not be decoded (RECORD_MALFORMED, ROW_MALFORMED); the rest of the store is still read."},
	{Term: "WRITER?", Meaning: "Status: the writer is not registered, so no key vouches for the signature (WRITER_UNREGISTERED)."},
	{Term: "KEY DATE", Meaning: "Status: the writer's key was used outside its registered validity (KEY_OUTSIDE_VALIDITY)."},
	{Term: "NOT CANON", Meaning: "Status: the signed bytes are not the record's canonical encoding (RECORD_NOT_CANONICAL)."},
	{Term: "COLUMNS?", Meaning: "Status: a table column disagrees with the signed record (COLUMN_MISMATCH)."},
	{Term: "NOT IN LOG", Meaning: "Status: no log leaf holds the record (RECORD_NOT_IN_LOG)."},
	{Term: "PROOF FAIL", Meaning: "Status: the inclusion proof from the record's leaf does not reach the checkpoint root (INCLUSION_FAILED)."},
	{Term: "NO HMAC", Meaning: "Status of an SMSR memory: its HMAC tag is missing, so it was never certified."},
	{Term: "NO-SRC EDGE", Meaning: "Status of a graph node of a native store: an edge touching it names no source passage (STORE_EDGE_UNEXPLAINED)."},
	{Term: "NO SOURCE", Meaning: "A declared edge of a native store with no source passage behind it: a no-source write."},
	{Term: "NO ADD", Meaning: "Status of a Mem0 memory whose history starts with an UPDATE, not an ADD (MEM0_CHAIN_STARTS_WITH_UPDATE)."},
	{Term: "ORDER?", Meaning: "Status of a Mem0 memory whose history events are out of order (MEM0_EVENTS_OUT_OF_ORDER)."},
	{Term: "AFTER DEL", Meaning: "Status of a Mem0 memory with an event after its DELETE."},
	{Term: "OVER 10", Meaning: "Status of a Mem0 scope holding more recent messages than Mem0 reads (MEM0_MESSAGES_OVER_LIMIT)."},
	{Term: "none", Meaning: "The no-defence baseline column of the Actions view and memscope actions: what happened with nothing checking the action."},
}

// Lookup finds a term by name, ignoring case.
func Lookup(name string) (Term, bool) {
	for _, t := range Terms {
		if strings.EqualFold(t.Term, name) {
			return t, true
		}
	}
	return Term{}, false
}

// Explains reports whether the glossary explains w as outputs print it:
// a term of that name (any case), its plural (CULPRITS), the first word of
// a longer term (MemLineage of "MemLineage M6", RHO of rho_detect), or one
// word of a status of several (PROOF of "PROOF FAIL").
func Explains(w string) bool {
	if _, ok := Lookup(w); ok {
		return true
	}
	if s, ok := strings.CutSuffix(w, "S"); ok {
		if _, ok := Lookup(s); ok {
			return true
		}
	}
	lw := strings.ToLower(w)
	for _, t := range Terms {
		lt := strings.ToLower(t.Term)
		if strings.HasPrefix(lt, lw+" ") || strings.HasPrefix(lt, lw+"_") {
			return true
		}
		for _, part := range strings.Fields(t.Term) {
			if part == w {
				return true
			}
		}
	}
	return false
}
