package evidence

import (
	"fmt"
	"os"
	"syscall"
)

// OpenRegular opens path read-only and returns it only if it is a regular
// file. It opens with O_NONBLOCK so that a FIFO planted in evidence cannot
// block the open itself (a plain open of a FIFO waits for a writer), then
// checks the opened file, so a swap between check and open is caught too.
func OpenRegular(path string) (*os.File, error) {
	f, _, err := openRegular(path)
	return f, err
}

// openRegular is OpenRegular, also returning the opened file's FileInfo so
// that callers checking its size need no second stat.
func openRegular(path string) (*os.File, os.FileInfo, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, nil, fmt.Errorf("%s: not a regular file (%s)", path, FileKind(st.Mode()))
	}
	return f, st, nil
}

// FileKind names what a file that is not regular is, for error messages
// ("a directory" rather than Go's mode string "d---------").
func FileKind(m os.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&os.ModeSymlink != 0:
		return "a symbolic link"
	case m&os.ModeNamedPipe != 0:
		return "a named pipe"
	case m&os.ModeSocket != 0:
		return "a socket"
	case m&os.ModeCharDevice != 0:
		return "a character device"
	case m&os.ModeDevice != 0:
		return "a block device"
	case m.IsRegular():
		return "a regular file"
	}
	return "an irregular file"
}
