package verify

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/memscope/memscope/evidence/record"
	"github.com/memscope/memscope/internal/present/finding"
	"github.com/memscope/memscope/internal/present/textscan"
	"github.com/memscope/memscope/loader"
)

// plainRows reads the unsigned tables so that malformed rows are reported
// (one finding per row; the other rows are still read), and reports what
// each table's rows are covered by.
func (v *verifier) plainRows(ctx context.Context) error {
	rows := map[string]int{}
	count := func(table string, n int, err error) error {
		rows[table] = n
		if err == nil {
			return nil
		}
		var re loader.RowErrors
		if errors.As(err, &re) {
			rows[table] += len(re)
		}
		if !v.rowErrors(ctx, phaseRows, table, err) {
			return err
		}
		return nil
	}
	er := &eventRows{malformed: map[string][]string{}}
	n, err := v.snap.Nodes(ctx)
	er.malformed[record.KindNode] = malformedNames(err)
	if err := count("nodes", len(n), err); err != nil {
		return err
	}
	for i := range n {
		er.add(n[i].Record)
	}
	q, err := v.snap.Queries(ctx)
	er.malformed[record.KindQuery] = malformedNames(err)
	if err := count("queries", len(q), err); err != nil {
		return err
	}
	for i := range q {
		er.add(q[i].Record)
	}
	v.queryNodes(n, q)
	// Unsigned text read from the rows: labels and query text are shown,
	// and a responder reads them on a terminal.
	for i := range n {
		v.text.CheckAt(rowsAfterEntries+int64(i), textscan.Field{Record: "node " + n[i].ID, Name: "label", Text: n[i].Label})
	}
	for i := range q {
		v.text.CheckAt(rowsAfterEntries+int64(len(n)+i), textscan.Field{Record: "query " + q[i].ID, Name: "text", Text: q[i].Text})
	}
	a, err := v.snap.Actions(ctx)
	er.malformed[record.KindAction] = malformedNames(err)
	if err := count("actions", len(a), err); err != nil {
		return err
	}
	for i := range a {
		er.add(a[i].Record)
	}
	er.malformed[record.KindGate] = malformedNames(v.gateErr)
	for i := range v.gateEvents {
		er.add(v.gateEvents[i].Record)
	}
	rows["gate_events"] = v.gateRows
	if err := v.operatorRows(ctx, er, count); err != nil {
		return err
	}
	if err := v.importNoteRows(ctx, er, count); err != nil {
		return err
	}
	signed := v.checkEvents(ctx, er)
	if ctx.Err() != nil {
		return ctx.Err()
	}
	v.coverage(rows, signed)
	return nil
}

// queryNodes reports each recorded query whose selector input names a node
// the nodes table lacks: replay cannot run that query (it fails alone), so
// verify says so instead of passing what replay refuses.
func (v *verifier) queryNodes(nodes []loader.Node, queries []loader.Query) {
	known := make(map[string]bool, len(nodes))
	for _, n := range nodes {
		known[n.ID] = true
	}
	for i, q := range queries {
		var missing []string
		add := func(where, id string) {
			if !known[id] && len(missing) < 4 {
				missing = append(missing, fmt.Sprintf("%s \"%s\"", where, id))
			}
		}
		for _, id := range sortedKeys(q.Reset) {
			add("reset node", id)
		}
		for _, id := range sortedKeys(q.Dense) {
			add("dense-score node", id)
		}
		for _, id := range q.Selected {
			add("selected node", id)
		}
		if len(missing) > 0 {
			v.add(phaseRows, int64(i), finding.QueryUnknownNode, "query "+q.ID,
				"the query names nodes the nodes table does not have ("+strings.Join(missing, ", ")+"); replay cannot run it")
		}
	}
}

func sortedKeys(m map[string]float64) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// rowErrors reports each malformed row of a table read as ROW_MALFORMED
// (the other rows were read), or a table that could not be read at all as
// one ROW_MALFORMED. It returns false only when the run was cancelled.
func (v *verifier) rowErrors(ctx context.Context, phase int, table string, err error) bool {
	if ctx.Err() != nil {
		return false
	}
	var re loader.RowErrors
	if !errors.As(err, &re) {
		v.add(phase, 0, finding.RowMalformed, table, "table could not be read: "+err.Error())
		return true
	}
	for i, e := range re {
		subj := table
		if e.Record != "" {
			subj = table + " " + e.Record
		}
		v.add(phase, int64(i), finding.RowMalformed, subj, e.Error())
	}
	return true
}

// coverage lists every table with what covers its rows. Signed record
// tables are covered by their signatures (whether those verify is the
// signature findings' business); entries.session_id is covered only by the
// SMSR tag, so only when a key was given; checkpoints by the log key only
// when it is pinned. Every other table is unsigned, and says so.
func (v *verifier) coverage(plain, signedRows map[string]int) {
	r := v.rep
	cov := func(table string, rows, signed int, by string) {
		st := StatusSigned
		switch {
		case rows == 0:
			st = StatusEmpty
		case signed == 0:
			st = StatusUnsigned
		case signed < rows:
			st = StatusPartial
		}
		r.Coverage = append(r.Coverage, TableCoverage{Table: table, Rows: rows, Signed: signed, By: by, Status: st})
	}
	cov("principals", r.Principals, r.Principals, "registry root signature")
	cov("entries", r.Entries, r.Entries, "writer signature")
	var sess int
	by := "writer signature (session signed in the entry)"
	if r.HMACChecked {
		sess, by = r.Entries, "writer signature or SMSR HMAC tag"
	} else if len(v.sessionUnsigned) > 0 {
		// Entries without a signed session whose column is empty claim
		// nothing; only a set column is an unsigned claim, and in a store
		// that signs sessions it is an error.
		sess = r.Entries - len(v.sessionUnsigned)
		if v.signing {
			sort.Strings(v.sessionUnsigned)
			for i, eid := range v.sessionUnsigned {
				v.add(phaseRows, int64(i), finding.RowUnsigned, "entry "+eid, "the entry's session_id is set but its signed record carries no session, although this store signs sessions")
			}
		}
		by = "writer signature (session signed in the entry), or SMSR HMAC tag with --hmac-key"
	} else {
		sess = r.Entries
	}
	cov(TableSessions, r.Entries, sess, by)
	cov("writes", r.Edges, r.Edges, "writer signature")
	cov("tombstones", r.Tombstones, r.Tombstones, "writer signature")
	for _, t := range []string{TableNodes, TableQueries, TableActions, TableGateEvents} {
		by := "principal signature"
		if signedRows[t] == 0 {
			by = "nothing"
		}
		cov(t, plain[t], signedRows[t], by)
	}
	v.operatorCoverage(plain, signedRows, cov)
	v.importNoteCoverage(plain, signedRows, cov)
	var unsigned []string
	for i, c := range r.Coverage {
		if c.Status == StatusUnsigned || c.Status == StatusPartial {
			unsigned = append(unsigned, c.Table)
			v.add(phaseRows, int64(10+i), finding.TableUnsigned, c.Table, fmt.Sprintf("%d of %d rows are covered by no signature or tag (%s): every value read from them is an unsigned claim", c.Rows-c.Signed, c.Rows, c.By))
		}
	}
	r.Unsigned = unsigned
}
