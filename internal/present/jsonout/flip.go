package jsonout

import "github.com/memscope/memscope/internal/analyses/timeline"

// FirstFlip is `replay --first-flip`'s answer for one diverging query: the
// first write after which G's selection differs from G_auth's.
type FirstFlip struct {
	Found           bool       `json:"found"`
	Write           string     `json:"write"`
	Writer          string     `json:"writer"`
	Leaf            *int64     `json:"leaf"`
	Time            string     `json:"time"`
	Confirmed       bool       `json:"confirmed"`
	Candidates      int        `json:"candidates"`
	Solves          int64      `json:"solves"`
	Budget          int        `json:"solve_budget"`
	Intervals       []Interval `json:"intervals"`
	IntervalsNote   string     `json:"intervals_checked"`
	BisectionAgrees bool       `json:"bisection_agrees"`
	QueriesAffected []string   `json:"queries_affected"`
	ActionsAffected []string   `json:"actions_affected"`
}

// WriteRef names a write with its place in the log and its time.
type WriteRef struct {
	Write  string `json:"write"`
	Writer string `json:"writer"`
	Leaf   *int64 `json:"leaf"`
	Time   string `json:"time"`
}

// Interval is a run of the log during which the selection diverged.
type Interval struct {
	From  WriteRef  `json:"from"`
	Until *WriteRef `json:"until"`
}

// NewWriteRef describes w.
func NewWriteRef(w timeline.WriteRef) WriteRef {
	return WriteRef{Write: w.ID, Writer: w.Writer, Time: FormatTime(w.TS), Leaf: leafOf(w.Leaf)}
}

// leafOf is a log leaf, nil for -1 (not in the log).
func leafOf(leaf int64) *int64 {
	if leaf < 0 {
		return nil
	}
	return &leaf
}

// NewFirstFlip describes f; haveNow says the query's current row was
// given to the search (its solve budget counts one replay less).
func NewFirstFlip(f *timeline.Flip, haveNow bool) *FirstFlip {
	j := &FirstFlip{Found: f.Found, Confirmed: f.Confirmed, Candidates: f.Candidates, Solves: f.Solves, Budget: timeline.FlipBudget(f.Candidates, haveNow),
		BisectionAgrees: f.BisectionAgrees, QueriesAffected: append([]string{}, f.QueriesAffected...), ActionsAffected: append([]string{}, f.ActionsAffected...),
		IntervalsNote: "not checked (pass --scan)"}
	if f.Found {
		r := NewWriteRef(f.Write)
		j.Write, j.Writer, j.Leaf, j.Time = r.Write, r.Writer, r.Leaf, r.Time
	}
	if f.Scanned {
		j.IntervalsNote = "scanned after every unauthenticated write"
		j.Intervals = []Interval{}
		for _, in := range f.Intervals {
			ji := Interval{From: NewWriteRef(in.From)}
			if in.Until != nil {
				u := NewWriteRef(*in.Until)
				ji.Until = &u
			}
			j.Intervals = append(j.Intervals, ji)
		}
	}
	return j
}
