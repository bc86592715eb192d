// Package defences says, for every recorded action, what each published
// defence would have decided: no defence, justification IFC (signature
// labels only), MemLineage's parameter-level gate M6 (MemLineage, arXiv:2605.14421, section
// 3.7), AuthSelect's re-selection on G_auth (AuthSelect, arXiv:2606.12290, Algorithm 1) and
// SMSR's tags and ablation certificate (SMSR, arXiv:2606.12703). It is pure analysis:
// callers hand it labels from verify and lineage and rows from replay.
package defences

import (
	"fmt"
	"sort"
	"strings"

	"github.com/memscope/memscope/diff"
	"github.com/memscope/memscope/evidence/record"
	"github.com/memscope/memscope/internal/analyses/smsr"
	"github.com/memscope/memscope/lineage"
	"github.com/memscope/memscope/replay"
)

// Defence names, the keys of Row.Verdicts and of the JSON object.
const (
	None       = "none"
	IFC        = "ifc"
	MemLineage = "memlineage"
	AuthSelect = "authselect"
	SMSR       = "smsr"
)

// Names lists the defences in the order views show them.
var Names = []string{None, IFC, MemLineage, AuthSelect, SMSR}

// Decisions. "not checked" is what a defence says when the evidence it
// needs is absent: never an allow.
const (
	Allow          = "allow"
	Deny           = "deny"
	RequireUser    = "require-user"
	StripAndRetry  = "strip-and-retry"
	RepairAndRetry = "repair-and-retry"
	Accept         = "accept"
	Substitute     = "substitute"
	Escalate       = "escalate"
	NotChecked     = "not checked"
)

// Verdict is one defence's decision on one action.
type Verdict struct {
	Decision string `json:"decision"`
	Reason   string `json:"reason"`
}

// Action is a recorded action with what the defences need.
type Action struct {
	ID            string
	Tool          string
	Params        map[string]string
	Justification []string
	// Sources maps a parameter to the entries its value came from (From)
	// and the other entries that offered a value for it (Alt). nil: not
	// recorded, and M6 falls back to the justification as a whole.
	Sources    map[string]Sources
	Query      string // the query whose selection the action followed
	Dispatched bool
	TS         int64
}

// Sources are the entries behind one parameter.
type Sources struct {
	From []string
	Alt  []string
}

// EntryLabel is what verification and lineage say of one entry.
type EntryLabel struct {
	Known bool // the entry is in the store
	// Authenticated is the signature-only label justification IFC reads:
	// the record verified (signature, registration, key validity,
	// canonical form, log inclusion) and its writer registered an
	// authenticated channel.
	Authenticated bool
	// Trust is the label after verification and lineage (an entry that
	// failed verification is External).
	Trust record.Trust
	Why   string // why the entry is untrusted or unauthenticated ("" when neither)
	// Tag is the SMSR tag status: "valid", "missing", "malformed", "wrong",
	// or "" when no HMAC key was given.
	Tag string
}

// QueryView is the replay of one query with the mapping between passage
// nodes and entries.
type QueryView struct {
	Row replay.Row
	// EntryOf maps a passage node to the entry it shows.
	EntryOf map[string]string
	// Pool is the query's candidate pool size (SMSR's m): the passages
	// with a dense score, else the passages with reset mass.
	Pool int
	// Failing is how many pool entries fail verification (SMSR's t).
	Failing int
	TS      int64
}

// Input is everything Evaluate reads.
type Input struct {
	Actions []Action
	Labels  func(id string) EntryLabel
	Queries map[string]*QueryView
	// QueryErr explains why a query could not be replayed.
	QueryErr    map[string]string
	Policy      *lineage.Policy // nil: lineage.DefaultPolicy
	HMACChecked bool
	// Runs is SMSR's n (0: 5); Target its delta bound (0: 0.10).
	Runs   int
	Target float64
	// Unlabelled, when set, says why no entry label can be drawn (a log
	// that proves no entry's inclusion): the defences that read labels
	// (IFC, MemLineage, AuthSelect) say NotChecked with this reason.
	Unlabelled string
}

// Row is one action's verdicts.
type Row struct {
	Action     string             `json:"action"`
	Tool       string             `json:"tool"`
	Query      string             `json:"query"`
	Dispatched bool               `json:"dispatched"`
	Verdicts   map[string]Verdict `json:"verdicts"`
	// Headline marks an action whose justification passes IFC while
	// AuthSelect would not accept it: only unauthenticated structure
	// brought its justification in.
	Headline bool `json:"headline"`
}

// RefusedBy lists, in Names order, the defences (other than none) that
// would not have let the action run as emitted; "not checked" is no
// refusal.
func (r Row) RefusedBy() []string {
	var out []string
	for _, d := range Names[1:] {
		switch r.Verdicts[d].Decision {
		case Allow, Accept, NotChecked, "":
		default:
			out = append(out, d)
		}
	}
	return out
}

// Evaluate computes every action's row, in action order.
func Evaluate(in Input) []Row {
	if in.Policy == nil {
		in.Policy = lineage.DefaultPolicy()
	}
	if in.Runs == 0 {
		in.Runs = 5
	}
	if in.Target == 0 {
		in.Target = 0.10
	}
	out := make([]Row, 0, len(in.Actions))
	for _, a := range in.Actions {
		r := Row{Action: a.ID, Tool: a.Tool, Query: a.Query, Dispatched: a.Dispatched, Verdicts: map[string]Verdict{}}
		r.Verdicts[None] = none(a)
		if in.Unlabelled != "" {
			for _, d := range []string{IFC, MemLineage, AuthSelect} {
				r.Verdicts[d] = Verdict{NotChecked, in.Unlabelled}
			}
		} else {
			r.Verdicts[IFC] = ifc(in, a)
			r.Verdicts[MemLineage] = m6(in, a)
			r.Verdicts[AuthSelect] = authSelect(in, a)
		}
		r.Verdicts[SMSR] = smsrVerdict(in, a)
		as := r.Verdicts[AuthSelect].Decision
		r.Headline = r.Verdicts[IFC].Decision == Allow && (as == Substitute || as == Escalate)
		out = append(out, r)
	}
	return out
}

func none(a Action) Verdict {
	if a.Dispatched {
		return Verdict{Allow, "no defence: the action ran as the agent emitted it"}
	}
	return Verdict{Allow, "no defence would stop it (the store records it as not dispatched)"}
}

func describe(id string, l EntryLabel) string {
	if !l.Known {
		return id + " (not in the store)"
	}
	if l.Why != "" {
		return id + " (" + l.Why + ")"
	}
	return id + " (" + l.Trust.String() + ")"
}

// ifc is justification IFC as AuthSelect (arXiv:2606.12290) defines it: it fires when an item
// of the justification is unauthenticated, judged from the item's own
// signature label. It never looks at how the items were selected.
func ifc(in Input, a Action) Verdict {
	var bad []string
	for _, id := range a.Justification {
		if l := in.Labels(id); !l.Known || !l.Authenticated {
			bad = append(bad, describe(id, l))
		}
	}
	if len(bad) > 0 {
		return Verdict{Deny, "unauthenticated item in the justification: " + strings.Join(bad, ", ")}
	}
	if len(a.Justification) == 0 {
		return Verdict{Allow, "empty justification: nothing for IFC to refuse"}
	}
	return Verdict{Allow, "every justifying entry is signed, registered and on an authenticated channel"}
}

// m6 is MemLineage's gate at parameter level (MemLineage, arXiv:2605.14421, section 3.7): a
// governed parameter of a sensitive tool is authorised when every entry its
// value came from is trusted after lineage. An unauthorised parameter gets
// the tool rule's verdict; Repair-and-Retry needs a trusted entry that
// offered a value for that parameter, Strip-and-Retry needs every governed
// parameter to keep a trusted source once untrusted entries are dropped,
// and both fail closed to Deny otherwise. Untrusted entries that supply no
// governed parameter do not refuse the call (MemLineage, arXiv:2605.14421, Table 10: a trusted
// bill next to an untrusted note is allowed), which is where coarse taint
// over the whole justification over-refuses.
func m6(in Input, a Action) Verdict {
	rule, sensitive := in.Policy.Rule(a.Tool)
	if !sensitive {
		return Verdict{Allow, fmt.Sprintf("tool %s is not sensitive under the policy", a.Tool)}
	}
	trusted := func(id string) bool {
		l := in.Labels(id)
		return l.Known && !l.Trust.IsUntrusted()
	}
	if a.Sources == nil {
		// No parameter provenance: only the coarse rule is possible.
		var bad []string
		for _, id := range a.Justification {
			if !trusted(id) {
				bad = append(bad, describe(id, in.Labels(id)))
			}
		}
		if len(bad) == 0 {
			return Verdict{Allow, "no per-parameter sources recorded; every justifying entry is trusted (coarse rule)"}
		}
		return Verdict{failClosed(rule.Verdict).String(), "no per-parameter sources recorded, so the coarse rule applies: untrusted " + strings.Join(bad, ", ")}
	}
	var governed []string
	for _, g := range rule.Governed {
		if _, ok := a.Params[g]; ok {
			governed = append(governed, g)
		}
	}
	sort.Strings(governed)
	var unauth, repairable, notes []string
	for _, g := range governed {
		src := a.Sources[g]
		ok := len(src.From) > 0
		var bad []string
		for _, id := range src.From {
			if !trusted(id) {
				ok = false
				bad = append(bad, describe(id, in.Labels(id)))
			}
		}
		if ok {
			continue
		}
		if len(src.From) == 0 {
			bad = append(bad, "no recorded source")
		}
		unauth = append(unauth, g)
		notes = append(notes, g+" from "+strings.Join(bad, ", "))
		for _, id := range src.Alt {
			if trusted(id) {
				repairable = append(repairable, g+" <- "+id)
				break
			}
		}
	}
	if len(unauth) == 0 {
		if len(governed) == 0 {
			return Verdict{Allow, fmt.Sprintf("sensitive tool %s, but it names none of its governed parameters", a.Tool)}
		}
		return Verdict{Allow, "every governed parameter (" + strings.Join(governed, ", ") + ") comes from trusted entries"}
	}
	why := "unauthorised " + strings.Join(notes, "; ")
	switch rule.Verdict {
	case lineage.RepairAndRetry:
		if len(repairable) == len(unauth) {
			return Verdict{RepairAndRetry, why + "; repaired from trusted " + strings.Join(repairable, ", ")}
		}
		return Verdict{Deny, why + "; no trusted value to repair every one, so deny (fail closed)"}
	case lineage.StripAndRetry:
		// After stripping untrusted entries each governed parameter needs a
		// trusted entry that offered it.
		if len(repairable) == len(unauth) {
			return Verdict{StripAndRetry, why + "; once untrusted entries are stripped, trusted values remain: " + strings.Join(repairable, ", ")}
		}
		return Verdict{Deny, why + "; stripping the untrusted entries leaves no trusted value, so deny (fail closed)"}
	}
	return Verdict{failClosed(rule.Verdict).String(), why}
}

func failClosed(v lineage.Verdict) lineage.Verdict {
	if v == lineage.Allow {
		return lineage.Deny
	}
	return v
}

// authority is the paper's U <= A <= T requirement of an action: a
// sensitive tool needs authenticated authority (A), advisory calls
// tolerate unauthenticated context (U).
func authority(in Input, a Action) string {
	if _, sensitive := in.Policy.Rule(a.Tool); sensitive {
		return "A"
	}
	return "U"
}

// authSelect is AuthSelect's (arXiv:2606.12290) Algorithm 1 for an action: re-select the
// action's query on G_auth; accept when every justifying passage is still
// selected there, else substitute the answer read off the G_auth selection
// (its rank 1), or escalate when that item does not meet the action's
// authority.
func authSelect(in Input, a Action) Verdict {
	if a.Query == "" {
		return Verdict{NotChecked, "the action names no query, so its selection cannot be replayed"}
	}
	qv, ok := in.Queries[a.Query]
	if !ok {
		why := in.QueryErr[a.Query]
		if why == "" {
			why = "no such query in the store"
		}
		return Verdict{NotChecked, "query " + a.Query + " could not be replayed: " + why}
	}
	row := qv.Row
	nodeOf := map[string]string{}
	for n, e := range qv.EntryOf {
		nodeOf[e] = n
	}
	onAuth := map[string]bool{}
	for _, it := range row.GAuth.Items {
		onAuth[it.NodeID] = true
	}
	var passages, missing []string
	for _, id := range a.Justification {
		if n, ok := nodeOf[id]; ok {
			passages = append(passages, n)
			if !onAuth[n] {
				missing = append(missing, n)
			}
		}
	}
	class := string(row.Class)
	if len(passages) == 0 {
		if row.Class == diff.Same {
			return Verdict{Accept, fmt.Sprintf("query %s selects the same on G and G_auth (no justifying entry is a graph passage)", a.Query)}
		}
		return Verdict{Escalate, fmt.Sprintf("query %s is %s on G vs G_auth and no justifying entry is a graph passage to compare", a.Query, class)}
	}
	if len(missing) == 0 {
		return Verdict{Accept, fmt.Sprintf("every justifying passage (%s) is still selected on G_auth (query %s: %s)", strings.Join(passages, ", "), a.Query, class)}
	}
	// The substitute is the answer read off the G_auth selection
	// (AuthSelect, arXiv:2606.12290, Algorithm 1 line 9: return
	// a_{G_auth}): the passage G_auth's selection is read first, its rank
	// 1, which in the paper's Figure 4 case is Bruce Chatwin. It is not
	// "the first G_auth item G lacks", which can be any lower-ranked
	// passage the attack happened to push out.
	var sub *replay.Item
	if len(row.GAuth.Items) > 0 {
		sub = &row.GAuth.Items[0]
	}
	need := authority(in, a)
	lead := fmt.Sprintf("query %s is %s: justifying passage %s is not selected on G_auth", a.Query, class, strings.Join(missing, ", "))
	switch {
	case sub == nil:
		return Verdict{Escalate, lead + "; G_auth offers no other item, so escalate (action needs authority " + need + ")"}
	case !sub.Authenticated && need != "U":
		return Verdict{Escalate, fmt.Sprintf("%s; the G_auth item %s is unauthenticated and the action needs authority %s, so escalate", lead, sub.NodeID, need)}
	}
	return Verdict{Substitute, fmt.Sprintf("%s; substitute %s (rank %d on G_auth, authenticated, meets authority %s; G_auth selects %s)", lead, sub.NodeID, sub.Rank+1, need, strings.Join(row.GAuth.IDs(), ", "))}
}

// smsrVerdict checks the justifying entries' HMAC tags (SMSR filters any
// memory whose tag fails) and states the ablation certificate for the
// action's query with m = its candidate pool and t = pool entries failing
// verification.
func smsrVerdict(in Input, a Action) Verdict {
	cert := ""
	if qv, ok := in.Queries[a.Query]; ok && qv.Pool > 0 {
		k := min(qv.Row.K, qv.Pool)
		if c, err := smsr.Certify(qv.Pool, k, in.Runs, min(qv.Failing, qv.Pool)); err == nil {
			holds := "holds"
			if !c.AtMost(smsr.DecimalRat(in.Target)) {
				holds = "does not hold"
			}
			cert = fmt.Sprintf("; certificate for %s: m=%d k=%d n=%d t=%d gives delta %.4f (%s at %.2f)", a.Query, c.M, c.K, c.N, c.T, c.Delta, holds, in.Target)
		}
	}
	if !in.HMACChecked {
		return Verdict{NotChecked, "no HMAC key given: tags not checked" + cert}
	}
	var bad []string
	for _, id := range a.Justification {
		l := in.Labels(id)
		switch {
		case !l.Known:
			bad = append(bad, id+" (not in the store)")
		case l.Tag != "valid":
			bad = append(bad, fmt.Sprintf("%s (tag %s)", id, l.Tag))
		}
	}
	if len(bad) > 0 {
		return Verdict{Deny, "SMSR filters memories whose tag fails: " + strings.Join(bad, ", ") + cert}
	}
	return Verdict{Allow, "every justifying entry's HMAC tag verifies" + cert}
}

// TagStatus converts an smsr tag status to EntryLabel.Tag.
func TagStatus(s smsr.TagStatus) string { return s.String() }
