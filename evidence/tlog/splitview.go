package tlog

import (
	"crypto/sha256"
	"fmt"
	"sort"
	"sync"

	"github.com/transparency-dev/tessera/api/layout"
)

// A log server is not trusted: it may answer two reads of the same tile or
// entry bundle with different bytes (a split view), for instance the
// original bundle to the reader that hashes the tree and a doctored one to
// a later reader. The Reader remembers a SHA-256 of the bytes it used from
// every tile and bundle (the first width hashes or entries, so a partial
// tile later replaced by its full tile is not a split view) and records
// each read that disagrees with the first. About 64 bytes per resource: a
// 10M-leaf log holds some 80,000 of them.

// SplitView is one resource the log answered with different bytes.
type SplitView struct {
	// Resource is the log-relative path, e.g. "tile/entries/000.p/153".
	Resource string
	// Width is how many hashes or entries of it were used.
	Width        int
	First, Later [sha256.Size]byte
	// Reads is how many reads of it disagreed with the first.
	Reads int
}

func (s SplitView) String() string {
	return fmt.Sprintf("%s (first %d %s): read again, the log answered other bytes (sha256 %x… first, %x… later; %d differing read(s))",
		s.Resource, s.Width, map[bool]string{true: "entries", false: "hashes"}[isBundlePath(s.Resource)], s.First[:6], s.Later[:6], s.Reads)
}

func isBundlePath(p string) bool { return len(p) >= 13 && p[:13] == "tile/entries/" }

// resourceKey names what was read: level -1 for entry bundles.
type resourceKey struct {
	level int
	index uint64
	width int
}

type fingerprints struct {
	mu    sync.Mutex
	first map[resourceKey][sha256.Size]byte
	split map[resourceKey]*SplitView
}

func newFingerprints() *fingerprints {
	return &fingerprints{first: map[resourceKey][sha256.Size]byte{}, split: map[resourceKey]*SplitView{}}
}

// remember records the bytes used from one read of k.
func (f *fingerprints) remember(k resourceKey, used []byte) {
	sum := sha256.Sum256(used)
	f.mu.Lock()
	defer f.mu.Unlock()
	prev, ok := f.first[k]
	if !ok {
		f.first[k] = sum
		return
	}
	if prev == sum {
		return
	}
	sv := f.split[k]
	if sv == nil {
		sv = &SplitView{Resource: k.path(), Width: k.width, First: prev}
		f.split[k] = sv
	}
	sv.Later = sum
	sv.Reads++
}

func (k resourceKey) path() string {
	if k.level < 0 {
		return layout.EntriesPath(k.index, uint8(k.width%layout.EntryBundleWidth))
	}
	return layout.TilePath(uint64(k.level), k.index, uint8(k.width%layout.TileWidth))
}

// SplitViews lists the tiles and entry bundles that the log answered with
// different bytes on different reads so far, by path. Call it after the
// last read whose answer counts: each entry is a finding against the log.
func (r *Reader) SplitViews() []SplitView {
	r.seen.mu.Lock()
	out := make([]SplitView, 0, len(r.seen.split))
	for _, sv := range r.seen.split {
		out = append(out, *sv)
	}
	r.seen.mu.Unlock()
	sort.Slice(out, func(i, j int) bool { return out[i].Resource < out[j].Resource })
	return out
}

// bundlePrefix is the bytes of raw that hold its first n entries (each a
// 2-byte length and its data), as splitBundle read them.
func bundlePrefix(raw []byte, entries [][]byte) []byte {
	n := 0
	for _, e := range entries {
		n += 2 + len(e)
	}
	return raw[:n]
}
