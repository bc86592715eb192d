package loader

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/memscope/memscope/evidence"
)

// The snapshot is opened immutable, so SQLite ignores a -wal or -journal
// file beside it: committed transactions in a WAL are not shown, and a hot
// journal is not rolled back. Both mean the file on disk is not what SQLite
// would show, so both are reported. The WAL is parsed here (header, salts,
// the cumulative checksum chain) to count the committed frames SQLite would
// apply; nothing is ever written.

// maxWALScan bounds how much of a WAL file is examined.
const maxWALScan = 1 << 30

// WALInfo summarises a write-ahead log beside a snapshot.
type WALInfo struct {
	Bytes          int64
	PageSize       int
	Frames         int // frames whose salts and checksums are valid
	CommittedPages int // distinct pages in committed transactions
	Commits        int
	Truncated      bool // stopped at maxWALScan
}

func (s *Snapshot) checkSidecars() {
	info, err := readWAL(s.Path + "-wal")
	switch {
	case errors.Is(err, os.ErrNotExist):
	case info.Bytes == 0 && (err == nil || errors.Is(err, errNotWAL)):
		// memscope record leaves an empty WAL between bursts of calls
		// (docs/RECORD.md).
		s.problem(ProblemWALPresent, s.Path+"-wal", "an empty write-ahead log beside the snapshot (SQLite ignores it; a writer keeps one between commits)")
	case err != nil:
		s.problem(ProblemWALPresent, s.Path+"-wal", "write-ahead log beside the snapshot could not be examined: "+err.Error())
	case info.Commits > 0:
		s.problem(ProblemWAL, s.Path+"-wal", fmt.Sprintf("write-ahead log holds %d committed transaction(s) changing %d page(s) that SQLite would show and this report does not read (copy the store after a checkpoint, or open a copy with sqlite3 to apply it)", info.Commits, info.CommittedPages))
	default:
		s.problem(ProblemWALPresent, s.Path+"-wal", fmt.Sprintf("write-ahead log of %d bytes beside the snapshot holds no valid committed transaction (SQLite would ignore it)", info.Bytes))
	}
	if err == nil && info.Truncated {
		s.problem(ProblemWALPresent, s.Path+"-wal", fmt.Sprintf("write-ahead log examined only up to %d bytes", maxWALScan))
	}
	if st, err := os.Lstat(s.Path + "-journal"); err == nil {
		msg := fmt.Sprintf("rollback journal of %d bytes beside the snapshot: SQLite would roll the file back to the pages it holds; this report reads the file as it is", st.Size())
		if !st.Mode().IsRegular() {
			msg = "a -journal beside the snapshot is not a regular file (" + evidence.FileKind(st.Mode()) + ")"
		} else if st.Size() == 0 {
			msg = "an empty rollback journal beside the snapshot (SQLite would ignore it)"
		}
		s.problem(ProblemJournal, s.Path+"-journal", msg)
	}
}

var errNotWAL = errors.New("not a SQLite write-ahead log (bad header)")

// readWAL parses a WAL file as SQLite's wal.c does when it recovers one:
// frames count while their salts match the header and the checksum chain
// holds; a frame with a non-zero "database size" field ends a transaction.
func readWAL(path string) (WALInfo, error) {
	var info WALInfo
	st, err := os.Lstat(path)
	if err != nil {
		return info, err
	}
	if !st.Mode().IsRegular() {
		return info, fmt.Errorf("not a regular file (%s)", evidence.FileKind(st.Mode()))
	}
	info.Bytes = st.Size()
	f, err := os.Open(path)
	if err != nil {
		return info, err
	}
	defer f.Close()
	return walFrames(bufio.NewReaderSize(io.LimitReader(f, maxWALScan), 1<<16), info)
}

func walFrames(r io.Reader, info WALInfo) (WALInfo, error) {
	var hdr [32]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return info, errNotWAL
	}
	magic := binary.BigEndian.Uint32(hdr[0:])
	if magic&^1 != 0x377f0682 {
		return info, errNotWAL
	}
	var order binary.ByteOrder = binary.LittleEndian
	if magic&1 == 1 {
		order = binary.BigEndian
	}
	pageSize := int(binary.BigEndian.Uint32(hdr[8:]))
	if pageSize == 1 {
		pageSize = 65536
	}
	if pageSize < 512 || pageSize > 65536 || pageSize&(pageSize-1) != 0 {
		return info, fmt.Errorf("write-ahead log header: page size %d", pageSize)
	}
	info.PageSize = pageSize
	s0, s1 := walChecksum(order, hdr[:24], 0, 0)
	if s0 != binary.BigEndian.Uint32(hdr[24:]) || s1 != binary.BigEndian.Uint32(hdr[28:]) {
		return info, nil // SQLite treats a bad header checksum as an empty WAL
	}
	salt := hdr[16:24]
	frame := make([]byte, 24+pageSize)
	pending := map[uint32]bool{}
	committed := map[uint32]bool{}
	for {
		if _, err := io.ReadFull(r, frame); err != nil {
			if info.Bytes >= maxWALScan {
				info.Truncated = true
			}
			break
		}
		if string(frame[8:16]) != string(salt) {
			break
		}
		s0, s1 = walChecksum(order, frame[:8], s0, s1)
		s0, s1 = walChecksum(order, frame[24:], s0, s1)
		if s0 != binary.BigEndian.Uint32(frame[16:]) || s1 != binary.BigEndian.Uint32(frame[20:]) {
			break
		}
		info.Frames++
		pending[binary.BigEndian.Uint32(frame[0:])] = true
		if binary.BigEndian.Uint32(frame[4:]) != 0 {
			info.Commits++
			for p := range pending {
				committed[p] = true
			}
			clear(pending)
		}
	}
	info.CommittedPages = len(committed)
	return info, nil
}

// walChecksum is the WAL checksum of SQLite's file format documentation
// (section 4.4): pairs of 32-bit words in the byte order the magic names.
func walChecksum(order binary.ByteOrder, b []byte, s0, s1 uint32) (uint32, uint32) {
	for i := 0; i+8 <= len(b); i += 8 {
		s0 += order.Uint32(b[i:]) + s1
		s1 += order.Uint32(b[i+4:]) + s0
	}
	return s0, s1
}
