//go:build !linux

package writer

import "os"

// syncData syncs a file (fsync where fdatasync is not offered).
func syncData(f *os.File) error { return f.Sync() }
