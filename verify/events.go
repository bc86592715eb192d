package verify

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/memscope/memscope/finding"
	"github.com/memscope/memscope/loader"
	"github.com/memscope/memscope/record"
)

// Event records (queries, actions, gate events, node declarations) are
// checked with the same families as entries: strict decoding and canonical
// form, the columns against the record, the signer against the registry
// and key validity, and the kind-tagged leaf's inclusion in the log.

// eventTable names the table of each event record kind.
var eventTable = map[string]string{record.KindQuery: "queries", record.KindAction: "actions", record.KindGate: "gate_events", record.KindNode: "nodes"}

// eventRows is what plainRows read of the event tables.
type eventRows struct {
	recs []*loader.RowRecord
	// malformed rows by table: their names, so that their leaves are
	// claimed (the finding is the row, not a deletion).
	malformed map[string][]string
}

func (er *eventRows) add(rr *loader.RowRecord) {
	if rr != nil {
		er.recs = append(er.recs, rr)
	}
}

// signsEvents reports whether the store is one whose runtime signs its
// event tables: the log holds an event leaf or some event row carries a
// record. In such a store an unsigned row is an insertion (or a record
// stripped from its row), not an older format.
func (v *verifier) signsEvents(er *eventRows) bool {
	if v.eventLeaves > 0 {
		return true
	}
	for _, rr := range er.recs {
		if rr.Signed() {
			return true
		}
	}
	return false
}

// checkEvents verifies every signed event row on the workers, as entries
// are, and counts the signed rows per table for coverage.
func (v *verifier) checkEvents(ctx context.Context, er *eventRows) map[string]int {
	signed := map[string]int{}
	signing := v.signsEvents(er)
	v.signing = signing
	var todo []*loader.RowRecord
	orders := map[string]*rowOrder{}
	for _, rr := range er.recs {
		if orders[rr.Kind] == nil {
			orders[rr.Kind] = v.newRowOrder(eventTable[rr.Kind])
		}
		orders[rr.Kind].next(rr.Seq, rr.LeafIndex)
		table := eventTable[rr.Kind]
		if rr.Signed() {
			signed[table]++
			todo = append(todo, rr)
			if v.rep.SignedRows == nil {
				v.rep.SignedRows = map[string]map[string]bool{}
			}
			if v.rep.SignedRows[table] == nil {
				v.rep.SignedRows[table] = map[string]bool{}
			}
			v.rep.SignedRows[table][rr.Name] = true
			continue
		}
		if signing {
			v.add(phaseRows, rr.Seq, finding.RowUnsigned, rr.Kind+" "+rr.Name,
				fmt.Sprintf("the %s row carries no signed record although this store signs its %s: an inserted row, or one whose record was removed", table, table))
		}
	}
	for kind, names := range er.malformed {
		for _, n := range names {
			v.claimEventLeaf(kind, n)
		}
	}
	// The same worker pool as entries and writes: signature checks
	// dominate, whatever the record kind.
	_ = fanOut(v.opts.Workers, func(yield func(*loader.RowRecord) error) error {
		for _, rr := range todo {
			if err := ctx.Err(); err != nil {
				return err
			}
			if err := yield(rr); err != nil {
				return err
			}
		}
		return nil
	}, v.checkEvent, nil)
	return signed
}

func (v *verifier) claimEventLeaf(kind, name string) {
	if !v.logOK {
		return
	}
	if idx, ok := v.leafByID.lookup(record.EventID(kind, name)); ok {
		v.mu.Lock()
		v.seenLeaf.set(idx)
		v.mu.Unlock()
	}
}

// checkEvent runs the per-record checks of one signed event row.
func (v *verifier) checkEvent(rr *loader.RowRecord) {
	subj := rr.Kind + " " + rr.Name
	if rr.Err != nil {
		v.claimEventLeaf(rr.Kind, rr.Name)
		v.recordFinding(phaseRows, rr.Seq, subj, rr.Err)
		v.markEvent(subj)
		return
	}
	if len(rr.Mismatch) > 0 {
		v.add(phaseRows, rr.Seq, finding.ColumnMismatch, subj, fmt.Sprintf("column(s) %s of the %s row disagree with the signed %s record", strings.Join(rr.Mismatch, ", "), eventTable[rr.Kind], rr.Kind))
		v.markEvent(subj)
	}
	if code, msg := v.checkSigner(rr.Raw, rr.Sig, rr.Writer, rr.KID, rr.TS); code != "" {
		v.add(phaseRows, rr.Seq, code, subj, msg)
		v.markEvent(subj)
	}
	id := record.EventID(rr.Kind, rr.Name)
	if failed := v.inLog(phaseRows, rr.Seq, id, subj, record.EventLeaf(rr.Kind, id, rr.Sig), rr.LeafIndex); len(failed) > 0 {
		v.markEvent(subj)
	}
}

// markEvent records that an event row failed a check, for views that show
// a status per query or action.
func (v *verifier) markEvent(subject string) {
	v.mu.Lock()
	v.rep.BadEvents[subject] = true
	v.mu.Unlock()
}

// malformedNames lists the record names of a table read's malformed rows.
func malformedNames(err error) []string {
	var re loader.RowErrors
	if !errors.As(err, &re) {
		return nil
	}
	var out []string
	for _, e := range re {
		out = append(out, e.Record)
	}
	return out
}
