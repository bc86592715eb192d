package jsonout

import "github.com/memscope/memscope/diff"

// DiffChange is one row change of `diff --json` (its `changes` array,
// streamed one object at a time).
type DiffChange struct {
	Table  string `json:"table"`
	Key    string `json:"key"`
	Change string `json:"change"`
	Signed bool   `json:"signed"`
	Leaf   *int64 `json:"leaf"`
	// Coverage is "unsigned" for a row of a table no signature covers
	// (the loader's per-table answer, as Signed): nothing proves either
	// version.
	Coverage string `json:"coverage,omitempty"`
}

// NewDiffChange is the one constructor of a row change; unsigned is the
// coverage label of a row no signature covers (verify.LabelUnsigned).
func NewDiffChange(c diff.RowChange, unsigned string) DiffChange {
	j := DiffChange{Table: c.Table, Key: c.Key, Change: string(c.Kind), Signed: c.Signed, Leaf: leafOf(c.Leaf)}
	if !c.Signed {
		j.Coverage = unsigned
	}
	return j
}

// DiffCheckpoint is one side's checkpoint in `diff --json`'s consistency.
type DiffCheckpoint struct {
	Present   bool   `json:"present"`
	Size      uint64 `json:"tree_size"`
	Root      []byte `json:"root_hash"`
	Signature string `json:"signature"`
	Problem   string `json:"problem,omitempty"`
}

// DiffConsistency is whether B's checkpoint extends A's.
type DiffConsistency struct {
	A      DiffCheckpoint `json:"a"`
	B      DiffCheckpoint `json:"b"`
	Status string         `json:"status"`
	Detail string         `json:"detail"`
}

// NewDiffConsistency describes c.
func NewDiffConsistency(c diff.Consistency) DiffConsistency {
	cp := func(c diff.Checkpoint) DiffCheckpoint {
		return DiffCheckpoint{Present: c.Present, Size: c.Size, Root: c.Root, Signature: c.Signature, Problem: c.Problem}
	}
	return DiffConsistency{A: cp(c.A), B: cp(c.B), Status: c.Status, Detail: c.Detail}
}

// DiffCounts are one table's row counts by change.
type DiffCounts struct {
	Added      int `json:"added"`
	Removed    int `json:"removed"`
	Tombstoned int `json:"tombstoned"`
	Changed    int `json:"changed"`
	Same       int `json:"same"`
}

// DiffSelection is one query's selection then (A) and now (B).
type DiffSelection struct {
	Query   string   `json:"query"`
	Then    []string `json:"then"`
	Now     []string `json:"now"`
	Class   string   `json:"class"`
	Problem string   `json:"problem,omitempty"`
}
