package verify

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/memscope/memscope/evidence/record"
	"github.com/memscope/memscope/evidence/snapshot"
	"github.com/memscope/memscope/internal/present/finding"
	"github.com/memscope/memscope/loader"
)

// Event records (queries, actions, gate events, node declarations) are
// checked with the same families as entries: strict decoding and canonical
// form, the columns against the record, the signer against the registry
// and key validity, and the kind-tagged leaf's inclusion in the log.

// eventTable names the table of each kind-tagged record kind.
var eventTable = map[string]string{record.KindQuery: "queries", record.KindAction: "actions", record.KindGate: "gate_events", record.KindNode: "nodes",
	record.KindConfig: TableMeta, record.KindCheckpoint: TableCheckpoints, record.KindVector: TableVectors}

// operatorKind marks the kinds the store's operator signs about the store
// itself (meta values, checkpoint sightings, vectors). Each table is signed
// or not on its own: stores older than these records sign their events but
// not these tables.
var operatorKind = map[string]bool{record.KindConfig: true, record.KindCheckpoint: true, record.KindVector: true}

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
		if rr.Signed() && rr.Kind != record.KindImportNote {
			return true
		}
	}
	return false
}

// signsOperator reports, per operator kind, whether the store signs that
// table: the log holds a leaf of the kind or some row carries a record.
func (v *verifier) signsOperator(er *eventRows) map[string]bool {
	out := map[string]bool{}
	for _, k := range v.eventLeafKind {
		if operatorKind[k] {
			out[k] = true
		}
	}
	for _, rr := range er.recs {
		if operatorKind[rr.Kind] && rr.Signed() {
			out[rr.Kind] = true
		}
	}
	return out
}

// checkEvents verifies every signed event row on the workers, as entries
// are, and counts the signed rows per table for coverage.
func (v *verifier) checkEvents(ctx context.Context, er *eventRows) map[string]int {
	signed := map[string]int{}
	signing := v.signsEvents(er)
	v.signing = signing
	opSigning := v.signsOperator(er)
	var todo []*loader.RowRecord
	orders := map[string]*rowOrder{}
	for _, rr := range er.recs {
		if orders[rr.Kind] == nil {
			orders[rr.Kind] = v.newRowOrder(eventTable[rr.Kind])
		}
		// meta rows have no seq: nothing orders them.
		if rr.Kind != record.KindConfig {
			orders[rr.Kind].next(rr.Seq, rr.LeafIndex)
		}
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
		if operatorKind[rr.Kind] {
			if opSigning[rr.Kind] {
				v.add(phaseRows, rr.Seq, finding.RowUnsigned, rr.Kind+" "+rr.Name,
					fmt.Sprintf("the %s row carries no signed record although this store's operator signs its %s: an inserted row, or one whose record was removed", table, table))
			}
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
	v.configRevisions(er)
	v.sightings()
	return signed
}

// sightings sets each checkpoint verdict's Sighting from its signed
// record's checks, and names the first failure when the verdict has none.
func (v *verifier) sightings() {
	byName := map[string]*loader.RowRecord{}
	for _, rr := range v.cpRecords {
		byName[rr.Name] = rr
	}
	for i := range v.rep.CheckpointVerdicts {
		cv := &v.rep.CheckpointVerdicts[i]
		name := strconv.FormatInt(cv.Seq, 10)
		rr := byName[name]
		subj := record.KindCheckpoint + " " + name
		switch {
		case !rr.Signed():
			continue
		case !v.rep.BadEvents[subj]:
			cv.Sighting = Passed
			continue
		}
		cv.Sighting = Failed
		if cv.Code != "" {
			continue
		}
		for _, o := range v.findings {
			if o.phase == phaseRows && o.f.Subject == subj {
				cv.Code, cv.Message = o.f.Code, o.f.Message
				break
			}
		}
	}
}

// configRevisions handles what revisions of meta values add to the other
// event kinds: a meta row must hold the latest revision of its key that
// the log has (an earlier one is a rolled-back value, validly signed), and
// the leaves of the earlier revisions of a key the snapshot holds are
// superseded, not deleted records. It also fills Report.Config with the
// meta values whose record passed every check.
func (v *verifier) configRevisions(er *eventRows) {
	v.rep.Config = map[string]string{}
	for _, rr := range er.recs {
		if rr.Kind != record.KindConfig || !rr.Signed() || rr.Err != nil {
			continue
		}
		c, err := record.DecodeConfig(rr.Raw)
		if err != nil {
			continue
		}
		subj := rr.Kind + " " + rr.Name
		if v.logOK && !v.rep.Partial {
			if idx, ok := v.leafByID.lookup(record.ConfigID(c.Name, c.Rev+1)); ok {
				v.add(phaseRows, rr.Seq, finding.LeafWithoutRecord, subj,
					fmt.Sprintf("the meta row holds revision %d of \"%s\", but leaf %d of the log holds revision %d: a rolled-back value", c.Rev, c.Name, idx, c.Rev+1))
				v.markEvent(subj)
			}
			if v.superseded == nil {
				v.superseded = map[record.ID]bool{}
			}
			for r := uint64(1); r < c.Rev && r <= maxRevisions; r++ {
				v.superseded[record.ConfigID(c.Name, r)] = true
			}
		}
		if !v.rep.BadEvents[subj] {
			v.rep.Config[rr.Name] = c.Value
		}
	}
}

// maxRevisions bounds the superseded revisions looked up per meta key (a
// hostile record can claim any revision).
const maxRevisions = 1 << 12

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
	v.inFuture(rr.TS, func(c finding.Code, m string) { v.add(phaseRows, rr.Seq, c, subj, m) })
	pos := v.logPos(rr.ID)
	if code, msg := v.checkSigner(rr.Raw, rr.Sig, rr.Writer, rr.KID, rr.TS, pos); code != "" {
		v.signerFindings(code, msg, rr.Writer, rr.KID, rr.TS, pos, func(c finding.Code, m string) { v.add(phaseRows, rr.Seq, c, subj, m) })
		v.markEvent(subj)
	} else if ch := v.rep.ChannelAt(rr.Writer, pos); operatorKind[rr.Kind] && ch != record.ChannelAuthenticated {
		// The channel the signer had where the record was logged, as for
		// every other write (docs/FORMAT.md): a later promotion does not
		// give an earlier operator record authority.
		v.add(phaseRows, rr.Seq, finding.OperatorNoAuthority, subj,
			fmt.Sprintf("signed by %s, on the %s channel where the record was logged: only an authenticated principal speaks for the store", rr.Writer, channelName(ch)))
		v.markEvent(subj)
	}
	id := rr.ID
	if failed := v.inLog(phaseRows, rr.Seq, id, subj, record.EventLeaf(rr.Kind, id, rr.Sig), rr.LeafIndex); len(failed) > 0 {
		v.markEvent(subj)
	}
}

// channelName names a ChannelAt answer ("" is no live key).
func channelName(ch string) string {
	if ch == "" {
		return "no"
	}
	return ch
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

// operatorRows reads the tables the store's operator signs (meta, and the
// vector index when the store has one; checkpoints were read by their own
// phase) and adds their records to the event rows.
func (v *verifier) operatorRows(ctx context.Context, er *eventRows, count func(string, int, error) error) error {
	meta, err := v.snap.MetaRows(ctx)
	if err := count(TableMeta, len(meta), err); err != nil {
		return err
	}
	for i := range meta {
		er.add(meta[i].Record)
	}
	for _, rr := range v.cpRecords {
		er.add(rr)
	}
	if v.snap.Has(snapshot.VectorTable) {
		vs, err := v.snap.Vectors(ctx)
		er.malformed[record.KindVector] = malformedNames(err)
		if err := count(TableVectors, len(vs), err); err != nil {
			return err
		}
		for i := range vs {
			er.add(vs[i].Record)
		}
	}
	return nil
}

// operatorCoverage lists the operator's tables: meta, checkpoints (whose
// notes the log key signs as well, which CHECKPOINT_UNANCHORED reports on)
// and the vector index when the store has one.
func (v *verifier) operatorCoverage(plain, signedRows map[string]int, cov func(string, int, int, string)) {
	by := func(t string) string {
		if signedRows[t] == 0 {
			return "nothing"
		}
		return "operator signature"
	}
	cov(TableMeta, plain[TableMeta], signedRows[TableMeta], by(TableMeta))
	cov(TableCheckpoints, v.rep.Checkpoints, signedRows[TableCheckpoints], by(TableCheckpoints)+" (seen_at and note); the note's own signature is the log key's")
	if v.snap.Has(snapshot.VectorTable) {
		cov(TableVectors, plain[TableVectors], signedRows[TableVectors], by(TableVectors))
	}
}

func (v *verifier) gate(ctx context.Context) error {
	events, err := v.snap.GateEvents(ctx)
	if err != nil && !v.rowErrors(ctx, phaseGate, "gate_events", err) {
		return err
	}
	v.gateEvents, v.gateErr = events, err
	v.gateRows = len(events)
	var re loader.RowErrors
	if errors.As(err, &re) {
		v.gateRows += len(re)
	}
	for i, g := range events {
		if g.Verdict != snapshot.GateReject {
			continue
		}
		subj := "gate " + g.ID
		var why []string
		if g.VersionAfter != g.VersionBefore {
			why = append(why, fmt.Sprintf("store version advanced %d -> %d", g.VersionBefore, g.VersionAfter))
		}
		if id, err := record.ParseID(g.CandidateEID); err == nil {
			if v.entryIDs.has(id) {
				why = append(why, "the candidate is in the store")
			}
			if _, ok := v.leafByID.lookup(id); ok {
				why = append(why, "the candidate is in the log")
			}
		}
		if len(why) > 0 {
			v.add(phaseGate, int64(i), finding.GateMaterialised, subj, fmt.Sprintf("rejected candidate %s left a trace: %s", g.CandidateEID, strings.Join(why, "; ")))
		}
	}
	return nil
}
