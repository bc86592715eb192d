// Package bigslice allocates large pointer-free arrays outside the Go heap.
//
// verify keeps a few bytes per log position for a whole store (10M
// positions: hundreds of MB). On the Go heap such arrays count towards the
// garbage collector's goal, so every megabyte of them lets another
// megabyte of garbage accumulate before a collection: peak RSS is about
// twice the live state. Mapped outside the heap they cost their size once.
// Elements must hold no Go pointers (the collector never scans them).
package bigslice

import "unsafe"

// Arena owns the arrays it made; Free releases them all at once.
type Arena struct {
	free []func()
}

// Make returns a zeroed slice of n elements of T, which must contain no
// pointers. Small slices come from the Go heap.
func Make[T any](a *Arena, n int) []T {
	var zero T
	size := uintptr(n) * unsafe.Sizeof(zero)
	if n <= 0 || size < minMapped || a == nil {
		return make([]T, n)
	}
	b, release := mapAnon(int(size))
	if b == nil {
		return make([]T, n)
	}
	a.free = append(a.free, release)
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(b))), n)
}

// Free unmaps every array the arena made; none may be used afterwards.
func (a *Arena) Free() {
	if a == nil {
		return
	}
	for _, f := range a.free {
		f()
	}
	a.free = nil
}

// minMapped is the size below which the heap serves: mapping costs a
// system call and whole pages.
const minMapped = 1 << 20
