//go:build unix

package bigslice

import "syscall"

// mapAnon maps size bytes of zeroed anonymous memory (nil on failure: the
// caller falls back to the heap).
func mapAnon(size int) ([]byte, func()) {
	b, err := syscall.Mmap(-1, 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return nil, nil
	}
	return b, func() { _ = syscall.Munmap(b) }
}
