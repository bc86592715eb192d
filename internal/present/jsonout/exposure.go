package jsonout

import (
	"github.com/memscope/memscope/internal/analyses/exposure"
	"github.com/memscope/memscope/internal/analyses/smsr"
	"github.com/memscope/memscope/internal/present/finding"
)

// Exposure is exposurecase's answer in JSON (exposurecase.Exposure.JSON
// builds it), the one shape both `memscope exposure --json` and the
// report's case file (its `exposure` key) write (docs/JSON.md,
// docs/EXPOSURE.md).
type Exposure struct {
	Budget ExposureBudget `json:"budget"`
	// Selectors is keyed ppr, leiden, node_distance, rrf, dense (those
	// that ran).
	Selectors map[string]ExposureSelector `json:"selectors"`
	Ranked    []string                    `json:"ranked"`
	SMSR      *SMSRStore                  `json:"smsr"`
	EquiMem   *EquiMem                    `json:"equimem"`
	MWP       *MWP                        `json:"mwp"`
	Notes     []string                    `json:"notes"`
	// BlastRadius maps each query some recorded action followed to those
	// actions: what a flip of its selection reaches.
	BlastRadius map[string]ActionReach `json:"blast_radius"`
	// QueryCoverage maps each query whose row no signature covers to its
	// label ("unsigned"); covered queries are absent.
	QueryCoverage map[string]string `json:"query_coverage"`
}

// ExposureBudget is the attacker's bounded write and the Monte Carlo
// budget the estimate ran with.
type ExposureBudget struct {
	Edges       int     `json:"edges"`
	CleanWeight float64 `json:"clean_weight_max"`
	HeavyWeight float64 `json:"heavy_weight"`
	Draws       int     `json:"draws"`
	CurveDraws  int     `json:"curve_draws"`
	CurveMax    int     `json:"curve_max"`
	Seed        uint64  `json:"seed"`
	// LeidenMode is how Leiden draws were recomputed: full or incremental.
	LeidenMode string `json:"leiden_mode"`
}

// ExposureSelector is one selector over every query.
type ExposureSelector struct {
	Structural bool    `json:"structural"`
	Exposed    bool    `json:"exposed"`
	SDom       float64 `json:"s_dom"`
	// SDomNotCheckable is set when no query had S_dom computed (s_dom is
	// then no measurement); SDomQueries counts the queries s_dom averages.
	SDomNotCheckable string          `json:"s_dom_not_checkable,omitempty"`
	SDomQueries      int             `json:"s_dom_queries"`
	SAdv             float64         `json:"s_adv"`
	SAdvClean        float64         `json:"s_adv_clean"`
	Curve            []CurvePoint    `json:"curve"`
	Queries          []ExposureQuery `json:"queries"`
}

// CurvePoint is the share of write sequences whose selected set changed
// after Writes accumulated clean-budget writes.
type CurvePoint struct {
	Writes  int     `json:"writes"`
	Changed float64 `json:"changed"`
}

// ExposureQuery is one query under one selector.
type ExposureQuery struct {
	Query string  `json:"query"`
	Class string  `json:"class"`
	SDom  float64 `json:"s_dom"`
	// SDomNotCheckable says why s_dom was not computed (it is then 0 and
	// no measurement, and left out of the selector's mean).
	SDomNotCheckable string           `json:"s_dom_not_checkable,omitempty"`
	SAdv             float64          `json:"s_adv"`
	SAdvClean        float64          `json:"s_adv_clean"`
	Reordered        float64          `json:"reordered"`
	Targeted         bool             `json:"targeted"`
	FirstFlip        int              `json:"first_flip"`
	Flipped          float64          `json:"flipped"`
	Uncertain        int              `json:"uncertain"`
	TopKG            []string         `json:"topk_g"`
	TopKAuth         []string         `json:"topk_auth"`
	Baseline         []string         `json:"baseline"`
	Targets          []ExposureTarget `json:"targets,omitempty"`
	SMSR             *SMSRCert        `json:"smsr,omitempty"`
	NotCheckable     string           `json:"not_checkable,omitempty"`
	// Coverage is "unsigned" when no signature covers the query row whose
	// reset vector the draws start from.
	Coverage string `json:"coverage,omitempty"`
}

// ActionReach counts the recorded actions that followed a query.
type ActionReach struct {
	Actions    int `json:"actions"`
	Dispatched int `json:"dispatched"`
}

// ExposureTarget is a passage PPR selects on G_auth with its Lemma 1
// standing and how often heavy draws evicted it.
type ExposureTarget struct {
	Node      string  `json:"node"`
	ResetMass float64 `json:"reset_mass"`
	Floor     float64 `json:"teleport_floor"`
	Anchored  bool    `json:"anchored"`
	Evicted   float64 `json:"evicted"`
}

// SMSRCert is one SMSR certificate.
type SMSRCert struct {
	M     int     `json:"m"`
	K     int     `json:"k"`
	N     int     `json:"n"`
	T     int     `json:"t"`
	Delta float64 `json:"delta"`
}

// SMSRPoint is one point of a certificate curve (delta against t or m).
type SMSRPoint struct {
	X     int     `json:"x"`
	Delta float64 `json:"delta"`
}

// SMSRPoints converts smsr's curve points.
func SMSRPoints(ps []smsr.Point) []SMSRPoint {
	out := make([]SMSRPoint, len(ps))
	for i, p := range ps {
		out[i] = SMSRPoint{p.X, p.Delta}
	}
	return out
}

// SMSRStore is the store's certificate with SMSR's Figure 3 curves.
type SMSRStore struct {
	SMSRCert
	// Keyed by the number of runs ("5", "7").
	DeltaVsT map[string][]SMSRPoint `json:"delta_vs_t"`
	DeltaVsM map[string][]SMSRPoint `json:"delta_vs_m"`
	Basis    string                 `json:"basis"`
}

// EquiMemWrite is one structural write's EquiMem score beside its
// provenance label.
type EquiMemWrite struct {
	Write         string  `json:"write"`
	Writer        string  `json:"writer"`
	Rel           string  `json:"rel"`
	Src           string  `json:"src"`
	Dst           string  `json:"dst"`
	SLocal        float64 `json:"s_local"`
	SPath         float64 `json:"s_path"`
	Alpha         float64 `json:"alpha"`
	Rho           float64 `json:"rho_detect"`
	Paths         int     `json:"paths"`
	Truncated     bool    `json:"truncated"`
	Authenticated bool    `json:"authenticated"`
	Rule          string  `json:"label_rule"`
	Culprit       bool    `json:"culprit"`
	Rank          int     `json:"triage_rank"`
}

// EquiMem is EquiMem's triage: every structural write in store order
// (triage_rank gives rho_detect's order) and its caveat.
type EquiMem struct {
	Depth               int            `json:"depth"`
	TopDecile           int            `json:"top_decile"`
	Culprits            int            `json:"culprits"`
	CulpritsInTopDecile int            `json:"culprits_in_top_decile"`
	Unauthenticated     int            `json:"unauthenticated"`
	UnauthInTopDecile   int            `json:"unauthenticated_in_top_decile"`
	Writes              []EquiMemWrite `json:"writes"`
	Caveat              string         `json:"caveat"`
}

// MWPCheck is one step of the MWP non-formation audit.
type MWPCheck struct {
	Name     string `json:"name"`
	Status   string `json:"status"`
	Detail   string `json:"detail"`
	Findings int    `json:"findings"`
}

// MWP is the MWP non-formation audit.
type MWP struct {
	Rejected int               `json:"rejected"`
	Accepted int               `json:"accepted"`
	Checks   []MWPCheck        `json:"checks"`
	Findings []finding.Finding `json:"findings"`
}

// ExposureNotes go with every exposure result.
var ExposureNotes = []string{
	"s_adv: share of bounded no-source writes (heavy budget) that change a query's selected set on G_auth; s_adv_clean: the same at the clean-indistinguishable budget",
	"harm here is selection change, the stage replay can measure; whether the reader then acts wrongly is not measured",
	"rrf and dense read no structure: their s_adv is 0 by construction, and measured as such",
}

// LeidenNote says how the Leiden draws were recomputed.
func LeidenNote(mode string) string {
	if mode == exposure.LeidenIncremental {
		return "leiden draws re-ran local moving from the writes' endpoints only (incremental): an approximation of re-clustering that can miss changes a full run finds (docs/EXPOSURE.md)"
	}
	return "leiden draws re-ran the full algorithm (local moving, refinement, aggregation, until stable) on each written graph, warm-started from G_auth's partition"
}

// OrEmpty is s, or an empty list for nil (JSON [] rather than null).
func OrEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
