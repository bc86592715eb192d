// Package storefile reads the files of a native store: read-only, size
// checked before a byte is read, whole-file digests for the report.
package storefile

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"

	"github.com/memscope/memscope/evidence"
	"github.com/memscope/memscope/internal/readers/storemodel"
)

// Size limits per kind of file. A HotpotQA-size HippoRAG 2 store (about
// 10,000 nodes) has a graph.pickle of a few MB and OpenIE JSON of tens of
// MB; the limits leave two orders of magnitude of room and still keep a
// hostile file from exhausting memory.
const (
	MaxJSON    = 1 << 30
	MaxPickle  = 1 << 30
	MaxParquet = 2 << 30
	// GraphML is streamed, never held: its limit bounds reading time, and
	// lightrag bounds the graph kept (MaxGraphElements).
	MaxGraphML = 2 << 30
)

// ReadAll reads a whole regular file of at most max bytes, read-only, and
// describes it. The context is checked between 1 MiB blocks.
func ReadAll(ctx context.Context, path, role string, max int64) ([]byte, storemodel.File, error) {
	f, err := evidence.OpenRegular(path)
	if err != nil {
		return nil, storemodel.File{}, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, storemodel.File{}, err
	}
	if st.Size() > max {
		return nil, storemodel.File{}, &evidence.TooLargeError{Name: path, Size: st.Size(), Max: max, What: role}
	}
	buf := make([]byte, 0, st.Size())
	h := sha256.New()
	block := make([]byte, 1<<20)
	r := io.LimitReader(f, max+1)
	for {
		if err := ctx.Err(); err != nil {
			return nil, storemodel.File{}, err
		}
		n, err := r.Read(block)
		buf = append(buf, block[:n]...)
		h.Write(block[:n])
		if int64(len(buf)) > max {
			return nil, storemodel.File{}, &evidence.TooLargeError{Name: path, Max: max, What: role}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, storemodel.File{}, fmt.Errorf("%s: %w", path, err)
		}
	}
	return buf, storemodel.File{Path: path, Role: role, Size: int64(len(buf)), SHA256: hex.EncodeToString(h.Sum(nil))}, nil
}

// Describe digests a file without keeping its bytes (for files another
// library opens itself, such as SQLite databases).
func Describe(ctx context.Context, path, role string) (storemodel.File, error) {
	n, sum, err := evidence.HashFile(ctx, path)
	if err != nil {
		return storemodel.File{}, err
	}
	return storemodel.File{Path: path, Role: role, Size: n, SHA256: sum}, nil
}
