package assemble

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"testing"

	"github.com/memscope/memscope/evidence/record"
	"github.com/memscope/memscope/verify"
)

// rowsOf is what a session holds per entry row, errors as text (two
// decodes of one row give equal errors, not the same value).
func rowsOf(s *Session) []string { return rowsIn(s, held(s)) }

func rowsIn(s *Session, es []Entry) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = fmt.Sprintf("%s %s %d %d %d %q %d %v seq=%d", e.ID, e.Writer, e.Recorded, e.Flags, e.TS, e.Content, e.Leaf, e.DecodeErr, s.seqOf(i))
	}
	return out
}

// LoadVerify (verification reading the rows and handing each to the load)
// leaves the session exactly as Load followed by Verify does: the same
// rows, lineage and labels, and the report memscope verify gives for the
// same evidence and anchors. A preload of 3 rows makes both the preload
// and verification's hand-over fill rows.
func TestLoadVerifyEqualsLoadThenVerify(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"clean", "tampered", "sleeper", "structural-write", "tombstone", "incident", "memorygraft"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			want, _ := open(t, name)
			wantRep, err := want.Verify(context.Background(), nil)
			if err != nil {
				t.Fatal(err)
			}
			cli, err := verify.Run(context.Background(), want.verifyOptions(nil))
			if err != nil {
				t.Fatal(err)
			}
			got, _ := openUnloaded(t, name)
			got.preloadRows = 3
			var order []int
			checked := 0
			err = got.LoadVerify(context.Background(), func(done, total int) { checked = done }, func(i int, e *Entry) {
				order = append(order, i)
				e.Flags = uint16(len(e.ID)) // the callback's marks are kept
			})
			if err != nil {
				t.Fatal(err)
			}
			wantRows := held(want)
			for i, e := range wantRows {
				wantRows[i].Flags = uint16(len(e.ID))
			}
			if g, w := rowsOf(got), rowsIn(want, wantRows); !reflect.DeepEqual(g, w) {
				t.Fatalf("rows differ: LoadVerify %d rows, Load %d", len(g), len(w))
			}
			for i := range order {
				if order[i] != i {
					t.Fatalf("onEntry saw row %d at call %d: each row must be seen once, in order", order[i], i)
				}
			}
			if len(order) != len(wantRows) || checked == 0 {
				t.Errorf("onEntry saw %d of %d rows; progress reached %d", len(order), len(wantRows), checked)
			}
			for i, e := range held(got) {
				if row, ok := got.Index(e.ID); !ok || got.EntryAt(row).ID != e.ID {
					t.Fatalf("row %d (%s) not found by id", i, e.ID)
				}
			}
			gl, err := got.Labels(DefaultTau, false)
			if err != nil {
				t.Fatal(err)
			}
			wl, _ := want.Labels(DefaultTau, false)
			if !reflect.DeepEqual(gl, wl) {
				t.Error("lineage labels differ")
			}
			rep := got.Report()
			if rep == nil {
				t.Fatal("no report cached after LoadVerify")
			}
			for _, r := range []*verify.Report{wantRep, cli} {
				if !reflect.DeepEqual(rep.Findings, r.Findings) || !reflect.DeepEqual(rep.EntryStatus, r.EntryStatus) ||
					!reflect.DeepEqual(rep.Families, r.Families) || rep.OK != r.OK {
					t.Fatalf("LoadVerify's report differs from verify's:\n%v\n%v", rep.Findings, r.Findings)
				}
			}
			if again, err := got.Verify(context.Background(), nil); err != nil || again != rep {
				t.Errorf("Verify after LoadVerify ran again: %v", err)
			}
		})
	}
}

// A verification that cannot run (here an unusable log key) still leaves
// every row loaded, and Verify then reports why it cannot run.
func TestLoadVerifyLoadsWhenVerificationFails(t *testing.T) {
	t.Parallel()
	want, _ := open(t, "sleeper")
	got, _ := openUnloaded(t, "sleeper")
	got.Opts.LogKey = "not a key"
	got.preloadRows = 3
	if err := got.LoadVerify(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	if g, w := rowsOf(got), rowsOf(want); !reflect.DeepEqual(g, w) {
		t.Fatalf("rows differ: %d against %d", len(g), len(w))
	}
	if _, err := got.Verify(context.Background(), nil); err == nil {
		t.Error("Verify with an unusable log key reports no error")
	}
}

// Cancelling mid-verification (the inspector quitting) ends LoadVerify
// with the context's error, and waiters are released.
func TestLoadVerifyStopsWhenCancelled(t *testing.T) {
	t.Parallel()
	s, _ := openUnloaded(t, "sleeper")
	s.preloadRows = 2
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	err := s.LoadVerify(ctx, nil, func(i int, e *Entry) {
		if i == 4 { // a row verification hands over
			cancel()
		}
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("LoadVerify after cancel: %v", err)
	}
	if err := s.ensureLoaded(context.Background(), false); !errors.Is(err, context.Canceled) {
		t.Errorf("a waiter for the load got %v", err)
	}
	if s.Report() != nil {
		t.Error("a cancelled verification left a report")
	}
}

// Rows held in the pointer-free store read back as given: ids across
// block boundaries, an id longer than a block, an empty id, writers,
// contents and decode errors on the rows that had them; and a copy taken
// before more rows were added still reads its own rows.
func TestEntryStoreHoldsEachRow(t *testing.T) {
	t.Parallel()
	var st entryStore
	var in []Entry
	var early *entryStore
	for i := range 5000 {
		e := Entry{ID: fmt.Sprintf("019cadc6-d84c-7ffe-873d-%012d", i), Writer: fmt.Sprintf("agent:%d", i%3), Recorded: record.Trust(i % 4),
			Flags: uint16(i), TS: int64(i) * 7, Content: fmt.Sprint("content ", i), Leaf: int64(i) - 1}
		switch i {
		case 2500:
			e.ID = string(make([]byte, 70<<10)) + "x"
		case 10:
			e.ID = ""
		case 11, 4999:
			e.DecodeErr = fmt.Errorf("row %d does not decode", i)
		}
		in = append(in, e)
		st.add(&e, uint32(i%3), true)
		if i%3 == len(st.writers) {
			st.writers = append(st.writers, e.Writer)
		}
		if i == 2000 {
			c := st
			early = &c
		}
	}
	for i, want := range in {
		if got := st.at(i); got != want {
			t.Fatalf("row %d reads back as %+v, was %+v", i, got, want)
		}
	}
	if early.len() != 2001 || early.at(2000) != in[2000] || early.at(11) != in[11] {
		t.Fatal("a copy taken before more rows were added does not read its rows")
	}
}

// held is every entry row the session holds.
func held(s *Session) []Entry {
	out := make([]Entry, s.HeldEntries())
	for i := range out {
		out[i] = s.EntryAt(i)
	}
	return out
}

// Verification stopped after every row was handed over (here cancelled at
// the last row, while the lineage graph is being built beside the checks
// that follow) still ends LoadVerify with the context's error and no
// report.
func TestLoadVerifyCancelledAfterTheLastRow(t *testing.T) {
	t.Parallel()
	full, _ := open(t, "sleeper")
	last := full.HeldEntries() - 1
	s, _ := openUnloaded(t, "sleeper")
	s.preloadRows = 2
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	err := s.LoadVerify(ctx, nil, func(i int, e *Entry) {
		if i == last {
			cancel()
		}
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("LoadVerify cancelled at its last row: %v", err)
	}
	if s.Report() != nil {
		t.Error("a cancelled verification left a report")
	}
}

// Labels taken before verification (writers' names alone) are not kept:
// once verification is fed in, an entry that failed it is External.
func TestLabelsBeforeVerificationAreNotReused(t *testing.T) {
	t.Parallel()
	s, _ := open(t, "tampered")
	before, err := s.Labels(DefaultTau, false)
	if err != nil {
		t.Fatal(err)
	}
	before = slices.Clone(before)
	mustVerify(t, s)
	after, err := s.Labels(DefaultTau, false)
	if err != nil {
		t.Fatal(err)
	}
	fresh, err := s.Lineage.Propagate(s.propagateOptions(DefaultTau, false))
	if err != nil {
		t.Fatal(err)
	}
	if slices.Equal(before, after) {
		t.Error("tampered: the labels did not change when verification was fed in")
	}
	if !slices.Equal(after, fresh) {
		t.Error("the kept labels differ from a fresh propagation")
	}
	if again, _ := s.Labels(DefaultTau, false); &again[0] != &after[0] {
		t.Error("the verified labelling was computed twice")
	}
}
