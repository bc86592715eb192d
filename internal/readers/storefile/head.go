package storefile

import (
	"errors"
	"io"
	"os"
)

// Head is the first n bytes of the regular file at path (fewer when the
// file is shorter), for detectors that sniff a format; false when path is
// not a readable regular file. Anything else (a FIFO, a device) is never
// opened: a read of one could block detection.
func Head(path string, n int) ([]byte, bool) {
	st, err := os.Stat(path)
	if err != nil || !st.Mode().IsRegular() {
		return nil, false
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	buf := make([]byte, n)
	got, err := io.ReadFull(f, buf)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return nil, false
	}
	return buf[:got], true
}
