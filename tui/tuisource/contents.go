package tuisource

import (
	"context"
	"sync"

	"github.com/memscope/memscope/internal/assemble"
)

// The session keeps no contents (assemble.Options.LazyContent): the
// Entries view reads the previews of the rows it shows back from the
// snapshot, a window of rows at a time, and keeps a few windows. A filter
// scan walks the windows in order, so it reads the table once.
const (
	previewWindow  = 256
	previewWindows = 8
	previewRunes   = 240
)

type previewCache struct {
	mu      sync.Mutex
	windows map[int][]string // first row of the window -> previews
	order   []int            // least recently used first
}

// preview is row i's content preview (Loaded() > i) when its window is in
// memory; pending when it is not. It does no IO: Entry calls it from the
// render path, and ReadPreviews, from a background command, reads.
func (src *Source) preview(i int) (text string, pending bool) {
	c := &src.previews
	from := i - i%previewWindow
	c.mu.Lock()
	defer c.mu.Unlock()
	if w, ok := c.windows[from]; ok && i-from < len(w) {
		c.touch(from)
		return w[i-from], false
	}
	return "", true
}

// ReadPreviews implements tui.PreviewSource: it reads the windows of rows
// that hold [from, to) that are not in memory yet.
func (src *Source) ReadPreviews(ctx context.Context, from, to int) error {
	for w := from - from%previewWindow; w < to; w += previewWindow {
		if err := src.readWindow(ctx, w); err != nil {
			return err
		}
	}
	return nil
}

// readWindow reads the previews of the window starting at row from. A
// window past the rows loaded so far is read short and read again once
// more rows are in.
func (src *Source) readWindow(ctx context.Context, from int) error {
	c := &src.previews
	to := min(from+previewWindow, src.s.Loaded())
	c.mu.Lock()
	if w, ok := c.windows[from]; ok && len(w) >= to-from {
		c.mu.Unlock()
		return nil
	}
	c.mu.Unlock()
	contents, err := src.s.Contents(ctx, from, to)
	if err != nil {
		return err
	}
	w := make([]string, len(contents))
	for j, s := range contents {
		w[j] = assemble.Preview(s, previewRunes)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.windows == nil {
		c.windows = map[int][]string{}
	}
	if _, ok := c.windows[from]; !ok && len(c.order) >= previewWindows {
		delete(c.windows, c.order[0])
		c.order = c.order[1:]
	}
	c.windows[from] = w
	c.touch(from)
	return nil
}

func (c *previewCache) touch(from int) {
	for k, f := range c.order {
		if f == from {
			c.order = append(c.order[:k], c.order[k+1:]...)
			break
		}
	}
	c.order = append(c.order, from)
}
