package diff

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"iter"

	"github.com/memscope/memscope/internal/present/finding"
)

// Row is one row of a snapshot table, streamed in key order. Bytes is the
// signed record for signed tables and the row's whole content otherwise.
type Row struct {
	Key    string `json:"key"`
	Bytes  []byte `json:"bytes"`
	Signed bool   `json:"signed"`
	Leaf   int64  `json:"leaf"` // -1: no leaf
}

// Stream hands every row of one table of one snapshot to fn, in ascending
// key order (byte order). It is how a caller feeds Snapshots without the
// diff holding either snapshot in memory.
type Stream func(ctx context.Context, table string, fn func(Row) error) error

// ChangeKind says what happened to a row between A and B.
type ChangeKind string

const (
	Added   ChangeKind = "added"
	Removed ChangeKind = "removed"
	// Tombstoned: the entry left the store and B holds its tombstone (a
	// lawful deletion).
	Tombstoned ChangeKind = "tombstoned"
	Changed    ChangeKind = "changed"
)

// RowChange is one difference between the snapshots.
type RowChange struct {
	Table  string     `json:"table"`
	Key    string     `json:"key"`
	Kind   ChangeKind `json:"kind"`
	Signed bool       `json:"signed"`
	Leaf   int64      `json:"leaf"`
}

// Counts are one table's differences.
type Counts struct {
	Added      int `json:"added"`
	Removed    int `json:"removed"`
	Tombstoned int `json:"tombstoned"`
	Changed    int `json:"changed"`
	Same       int `json:"same"`
}

// SnapshotReport is the comparison of snapshot A (then) with B (now).
type SnapshotReport struct {
	Tables   map[string]*Counts `json:"tables"`
	Findings []finding.Finding  `json:"findings"`
	// Dropped counts findings left out past MaxFindings.
	Dropped int `json:"dropped"`
}

// MaxFindings bounds the findings one comparison keeps, so a snapshot
// that rewrote every row cannot exhaust memory; the rest are counted.
const MaxFindings = 10000

// TombstoneTable and EntryTable name the tables whose relation makes a
// removal lawful.
const (
	TombstoneTable = "tombstones"
	EntryTable     = "entries"
)

// Snapshots compares the given tables of A and B by merging their key
// ordered streams: memory does not grow with the number of rows (only the
// tombstone targets of B are held). emit sees every difference in table
// order and key order; an error from emit stops the comparison.
//
// A signed record removed without a tombstone, or changed, is an error;
// an entry removed with B's tombstone is a lawful deletion; a changed or
// removed unsigned row is a warning (nothing proves either version).
func Snapshots(ctx context.Context, a, b Stream, tables []string, emit func(RowChange) error) (*SnapshotReport, error) {
	rep := &SnapshotReport{Tables: map[string]*Counts{}}
	tomb := map[string]bool{}
	err := b(ctx, TombstoneTable, func(r Row) error {
		tomb[r.Key] = true
		return nil
	})
	if err != nil {
		return nil, err
	}
	add := func(f finding.Finding) {
		if len(rep.Findings) >= MaxFindings {
			rep.Dropped++
			return
		}
		rep.Findings = append(rep.Findings, f)
	}
	for _, table := range tables {
		c := &Counts{}
		rep.Tables[table] = c
		out := func(ch RowChange) error {
			switch ch.Kind {
			case Added:
				c.Added++
			case Removed:
				c.Removed++
				if ch.Signed {
					add(finding.New(finding.DiffRemovedWithoutTombstone, subject(table, ch.Key), fmt.Sprintf("%s row %s is in A but not in B, and B has no tombstone for it", table, ch.Key)))
				} else {
					add(finding.New(finding.DiffUnsignedChanged, subject(table, ch.Key), fmt.Sprintf("unsigned %s row %s was removed between A and B (nothing proves either version)", table, ch.Key)))
				}
			case Tombstoned:
				c.Tombstoned++
			case Changed:
				c.Changed++
				if ch.Signed {
					add(finding.New(finding.DiffSignedChanged, subject(table, ch.Key), fmt.Sprintf("the signed %s record %s differs between A and B", table, ch.Key)))
				} else {
					add(finding.New(finding.DiffUnsignedChanged, subject(table, ch.Key), fmt.Sprintf("unsigned %s row %s changed between A and B (nothing proves either version)", table, ch.Key)))
				}
			}
			if emit != nil {
				return emit(ch)
			}
			return nil
		}
		if err := mergeTable(ctx, a, b, table, tomb, c, out); err != nil {
			return nil, err
		}
	}
	return rep, nil
}

func subject(table, key string) string {
	switch table {
	case "entries":
		return "entry " + key
	case "writes":
		return "write " + key
	case "principals":
		return "registry event " + key
	case "tombstones":
		return "tombstone of " + key
	case "queries":
		return "query " + key
	case "actions":
		return "action " + key
	case "gate_events":
		return "gate event " + key
	}
	return table + " " + key
}

// pull turns a callback stream into a pull iterator.
func pull(ctx context.Context, s Stream, table string) (next func() (Row, bool), stop func(), errp *error) {
	var streamErr error
	seq := iter.Seq[Row](func(yield func(Row) bool) {
		streamErr = s(ctx, table, func(r Row) error {
			if !yield(r) {
				return errStop
			}
			return nil
		})
		if errors.Is(streamErr, errStop) {
			streamErr = nil
		}
	})
	next, stop = iter.Pull(seq)
	return next, stop, &streamErr
}

var errStop = errors.New("diff: stream stopped")

func mergeTable(ctx context.Context, a, b Stream, table string, tomb map[string]bool, c *Counts, out func(RowChange) error) error {
	nextA, stopA, errA := pull(ctx, a, table)
	defer stopA()
	nextB, stopB, errB := pull(ctx, b, table)
	defer stopB()
	ra, okA := nextA()
	rb, okB := nextB()
	var lastA, lastB string
	for okA || okB {
		if err := ctx.Err(); err != nil {
			return err
		}
		var ch *RowChange
		switch {
		case okA && (!okB || ra.Key < rb.Key):
			kind := Removed
			if table == EntryTable && tomb[ra.Key] {
				kind = Tombstoned
			}
			ch = &RowChange{Table: table, Key: ra.Key, Kind: kind, Signed: ra.Signed, Leaf: ra.Leaf}
		case okB && (!okA || rb.Key < ra.Key):
			ch = &RowChange{Table: table, Key: rb.Key, Kind: Added, Signed: rb.Signed, Leaf: rb.Leaf}
		default:
			if !bytes.Equal(ra.Bytes, rb.Bytes) {
				ch = &RowChange{Table: table, Key: ra.Key, Kind: Changed, Signed: ra.Signed || rb.Signed, Leaf: rb.Leaf}
			} else {
				c.Same++
			}
		}
		if ch != nil {
			if err := out(*ch); err != nil {
				return err
			}
		}
		advA := ch == nil || ch.Kind != Added
		advB := ch == nil || ch.Kind == Added || ch.Kind == Changed
		if advA {
			lastA = ra.Key
			if ra, okA = nextA(); okA && ra.Key <= lastA {
				return fmt.Errorf("diff: snapshot A's %s stream is not in strict key order at \"%s\"", table, ra.Key)
			}
		}
		if advB {
			lastB = rb.Key
			if rb, okB = nextB(); okB && rb.Key <= lastB {
				return fmt.Errorf("diff: snapshot B's %s stream is not in strict key order at \"%s\"", table, rb.Key)
			}
		}
	}
	if *errA != nil {
		return fmt.Errorf("snapshot A: %w", *errA)
	}
	if *errB != nil {
		return fmt.Errorf("snapshot B: %w", *errB)
	}
	return nil
}
