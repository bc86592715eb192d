package assemble

import (
	"sort"
	"unsafe"

	"github.com/memscope/memscope/evidence/record"
)

// entryRow is one entry row as the session holds it. It holds no
// pointer: a million rows are one 40 MB array the collector never scans.
// The 88-byte Entry (two strings, the content and an error) was marked
// again at every cycle while verification's garbage piled up beside it,
// and the inspector holds its rows through all of verification. The
// strings are in the store's tables.
type entryRow struct {
	idBlock, idOff, idLen uint32 // the id's text in entryStore.blocks
	writer                uint32 // in entryStore.writers
	ts, leaf              int64
	flags                 uint16
	recorded              record.Trust
	decodeErr             bool // the error is in entryStore.errs
}

// entryStore holds the entry rows: appended to only (Load's one
// goroutine), so a copy of it taken when rows are published reads every
// row below its length while the loader goes on appending.
type entryStore struct {
	rows []entryRow
	// blocks hold the ids' text in 64 KiB blocks, each byte written once:
	// a few hundred allocations for a million ids, and no pointer per row.
	// A block's slice is never changed once appended (used counts what is
	// written in the last), so readers of a published copy race with no
	// write.
	blocks  [][]byte
	used    int
	writers []string // a million rows share a few writers
	// contents are the rows' contents, unless LazyContent (then nil: the
	// rows on screen read theirs back).
	contents []string
	errs     []rowError // rows whose record did not decode, in row order
}

type rowError struct {
	row int
	err error
}

// entryStoreBlock is the size of an id text block.
const entryStoreBlock = 64 << 10

// len is the number of rows held.
func (st *entryStore) len() int {
	if st == nil {
		return 0
	}
	return len(st.rows)
}

// at is row i as callers read it (no copy of its strings).
func (st *entryStore) at(i int) Entry {
	r := &st.rows[i]
	e := Entry{ID: st.id(r), Writer: st.writers[r.writer], Recorded: r.recorded, Flags: r.flags, TS: r.ts, Leaf: r.leaf}
	if st.contents != nil {
		e.Content = st.contents[i]
	}
	if r.decodeErr {
		k := sort.Search(len(st.errs), func(k int) bool { return st.errs[k].row >= i })
		e.DecodeErr = st.errs[k].err
	}
	return e
}

func (st *entryStore) id(r *entryRow) string {
	if r.idLen == 0 {
		return ""
	}
	// The bytes are written once, by hold, and never changed afterwards.
	return unsafe.String(&st.blocks[r.idBlock][r.idOff], int(r.idLen))
}

// hold copies s into the last block (a new one when it does not fit).
func (st *entryStore) hold(s string) (block, off uint32) {
	if len(st.blocks) == 0 || len(s) > len(st.blocks[len(st.blocks)-1])-st.used {
		st.blocks = append(st.blocks, make([]byte, max(entryStoreBlock, len(s))))
		st.used = 0
	}
	off = uint32(st.used)
	st.used += copy(st.blocks[len(st.blocks)-1][st.used:], s)
	return uint32(len(st.blocks) - 1), off
}

// add appends e; writer is e.Writer's index in writers.
func (st *entryStore) add(e *Entry, writer uint32, keepContent bool) {
	r := entryRow{writer: writer, ts: e.TS, leaf: e.Leaf, flags: e.Flags, recorded: e.Recorded, idLen: uint32(len(e.ID))}
	if e.ID != "" {
		r.idBlock, r.idOff = st.hold(e.ID)
	}
	if e.DecodeErr != nil {
		r.decodeErr = true
		st.errs = append(st.errs, rowError{len(st.rows), e.DecodeErr})
	}
	if keepContent {
		st.contents = append(st.contents, e.Content)
	}
	st.rows = append(st.rows, r)
}
