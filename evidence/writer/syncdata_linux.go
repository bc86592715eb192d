package writer

import (
	"os"
	"syscall"
)

// syncData syncs a file's data and the metadata needed to read it back
// (its size), not its times: fdatasync, as SQLite syncs on Linux.
func syncData(f *os.File) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var serr error
	if err := rc.Control(func(fd uintptr) {
		for {
			if serr = syscall.Fdatasync(int(fd)); serr != syscall.EINTR {
				return
			}
		}
	}); err != nil {
		return err
	}
	return serr
}
