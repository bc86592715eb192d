package verify

import (
	"fmt"
	"strconv"

	"github.com/memscope/memscope/evidence/tlog"
	"github.com/memscope/memscope/internal/present/finding"
	"github.com/memscope/memscope/loader"
)

// rowOrder checks that a table's seq order (the only thing seq means: the
// order the writer stored rows in) agrees with the log order of their
// records. A reordered row would let a reader that trusts seq see events in
// an order the log never had; the log, not seq, is what every analysis
// orders by, and this check makes a seq edit visible rather than silent.
// One finding per table: the first row out of order.
type rowOrder struct {
	v        *verifier
	table    string
	last     int64 // last leaf index seen, -1 before the first
	lastSeq  int64
	reported bool
}

func (v *verifier) newRowOrder(table string) *rowOrder {
	return &rowOrder{v: v, table: table, last: -1}
}

// next takes the next row in seq order with its leaf index (-1: none).
func (o *rowOrder) next(seq, leaf int64) {
	if leaf < 0 {
		return
	}
	if o.last >= 0 && leaf <= o.last && !o.reported {
		o.reported = true
		o.v.add(phaseRows, seq, finding.RowOrder, o.table+" seq "+strconv.FormatInt(seq, 10),
			fmt.Sprintf("row seq %d has leaf %d but follows row seq %d at leaf %d: the table's row order disagrees with the log", seq, leaf, o.lastSeq, o.last))
	}
	if leaf > o.last {
		o.last, o.lastSeq = leaf, seq
	}
}

// checkpointOrder checks the checkpoints table in seq order: a store sees
// its log grow, so a later row never has a smaller tree or an earlier
// seen_at than the row before it.
func (v *verifier) checkpointOrder(rows []loader.CheckpointRow) {
	var lastSize uint64
	var lastSeen, lastSeq int64
	for i, row := range rows {
		cp, err := tlog.ParseCheckpoint(row.Note)
		if err != nil {
			continue
		}
		if i > 0 && (cp.Size < lastSize || row.SeenAt < lastSeen) {
			v.add(phaseCheckpoints, row.Seq, finding.RowOrder, "checkpoints seq "+strconv.FormatInt(row.Seq, 10),
				fmt.Sprintf("checkpoint row seq %d (size %d, seen at %d) follows row seq %d (size %d, seen at %d): checkpoints were reordered", row.Seq, cp.Size, row.SeenAt, lastSeq, lastSize, lastSeen))
			return
		}
		lastSize, lastSeen, lastSeq = cp.Size, row.SeenAt, row.Seq
	}
}
