package storefile

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"

	"github.com/memscope/memscope/evidence"
	"github.com/memscope/memscope/internal/readers/storemodel"
)

// Stream reads a regular file of at most max bytes front to back without
// holding it, digesting what it reads, so that a parser's memory follows
// what it keeps rather than the file's size. The context is checked on
// every read. Rewinding (Seek to 0) starts the digest afresh: File
// describes the last pass read to its end.
type Stream struct {
	ctx       context.Context
	f         *os.File
	r         *bufio.Reader
	h         hash.Hash
	n, max    int64
	path      string
	role      string
	completed *storemodel.File
}

// OpenStream opens path read-only after checking its size against max.
func OpenStream(ctx context.Context, path, role string, max int64) (*Stream, error) {
	f, err := evidence.OpenRegular(path)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if st.Size() > max {
		f.Close()
		return nil, &evidence.TooLargeError{Name: path, Size: st.Size(), Max: max, What: role}
	}
	return &Stream{ctx: ctx, f: f, r: bufio.NewReaderSize(f, 1<<20), h: sha256.New(), max: max, path: path, role: role}, nil
}

func (s *Stream) Read(p []byte) (int, error) {
	if err := s.ctx.Err(); err != nil {
		return 0, err
	}
	n, err := s.r.Read(p)
	s.h.Write(p[:n])
	s.n += int64(n)
	if s.n > s.max {
		return n, &evidence.TooLargeError{Name: s.path, Size: s.n, Max: s.max, What: s.role}
	}
	if errors.Is(err, io.EOF) {
		s.completed = &storemodel.File{Path: s.path, Role: s.role, Size: s.n, SHA256: hex.EncodeToString(s.h.Sum(nil))}
	}
	return n, err
}

// Seek rewinds to the start (the only offset supported).
func (s *Stream) Seek(offset int64, whence int) (int64, error) {
	if offset != 0 || whence != io.SeekStart {
		return 0, errors.New("storefile: a stream only rewinds to its start")
	}
	if _, err := s.f.Seek(0, io.SeekStart); err != nil {
		return 0, err
	}
	s.r.Reset(s.f)
	s.h.Reset()
	s.n, s.completed = 0, nil
	return 0, nil
}

// File describes the bytes of the last pass read to the end; an error if
// no pass was (the parser stopped early).
func (s *Stream) File() (storemodel.File, error) {
	if s.completed == nil {
		return storemodel.File{}, fmt.Errorf("%s: not read to its end", s.path)
	}
	return *s.completed, nil
}

// Close closes the file.
func (s *Stream) Close() error { return s.f.Close() }
