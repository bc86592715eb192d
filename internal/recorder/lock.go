package recorder

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
)

// LockFile is the file a running gateway holds an exclusive flock on, in
// the store's directory: a second gateway on the same store is refused
// (two writers would number leaves twice), and a reader can tell a store
// that is being written from a copy (tuisource.IsLive tries a shared lock
// on it, which never changes the file).
const LockFile = "record.lock"

// lockStore takes the store's lock or says who holds it.
func lockStore(dir string) (*os.File, error) {
	f, err := os.OpenFile(filepath.Join(dir, LockFile), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("record: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		pid, _ := os.ReadFile(f.Name())
		f.Close()
		return nil, fmt.Errorf("record: %s is being recorded by another gateway (pid %s): one gateway a store", dir, pid)
	}
	f.Truncate(0)
	f.WriteAt([]byte(strconv.Itoa(os.Getpid())), 0)
	return f, nil
}
