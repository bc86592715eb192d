package verify_test

import (
	"context"
	"errors"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/memscope/memscope/evidence"
	"github.com/memscope/memscope/loader"
	"github.com/memscope/memscope/verify"
)

// OnEntry hands the caller every entry row verify reads, decoded, in the
// loader's stored order, without changing the report; an error from it
// stops the run (the inspector's load rides on verification this way).
func TestOnEntrySeesEveryRowOnce(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"clean", "tampered"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := pristine(t, name)
			m, err := evidence.ReadManifest(dir)
			if err != nil {
				t.Fatal(err)
			}
			opts := verify.Options{Snapshot: filepath.Join(dir, m.Snapshot), Log: filepath.Join(dir, m.Log)}
			plain, err := verify.Run(context.Background(), opts)
			if err != nil {
				t.Fatal(err)
			}
			snap, err := loader.Open(opts.Snapshot)
			if err != nil {
				t.Fatal(err)
			}
			defer snap.Close()
			type seen struct {
				seq     int64
				id      string
				decoded bool
			}
			var want []seen
			if err := snap.EachEntry(context.Background(), func(r *loader.EntryRow) error {
				want = append(want, seen{r.Seq, r.EID, r.Entry != nil})
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			var got []seen
			opts.OnEntry = func(r *loader.EntryRow) error {
				if r.Entry == nil && r.DecodeErr == nil {
					t.Errorf("row %d (%s) handed over undecoded", r.Seq, r.EID)
				}
				got = append(got, seen{r.Seq, r.EID, r.Entry != nil})
				return nil
			}
			// EntriesRead comes once, after the last row.
			read, readAt := 0, -1
			opts.EntriesRead = func() { read, readAt = read+1, len(got) }
			hooked, err := verify.Run(context.Background(), opts)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("OnEntry saw %d rows, the loader streams %d (or in another order)", len(got), len(want))
			}
			if read != 1 || readAt != len(want) {
				t.Errorf("EntriesRead called %d times, after %d of %d rows; want once, after every row", read, readAt, len(want))
			}
			if !reflect.DeepEqual(hooked.Findings, plain.Findings) {
				t.Errorf("the hook changed the findings:\n%s", findingsDiff(plain.Findings, hooked.Findings))
			}
			stop := errors.New("stop here")
			n := 0
			opts.OnEntry = func(*loader.EntryRow) error {
				if n++; n == 3 {
					return stop
				}
				return nil
			}
			read = 0
			if _, err := verify.Run(context.Background(), opts); !errors.Is(err, stop) {
				t.Errorf("an OnEntry error must end the run with it, got %v", err)
			}
			if read != 0 {
				t.Errorf("EntriesRead called after the rows stopped short")
			}
		})
	}
}
