package tlog

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/transparency-dev/tessera/api/layout"

	"github.com/memscope/memscope/evidence"
)

// Every read of a log resource is bounded in bytes and, over HTTP, in time:
// a checkpoint or bundle that is a symlink to /dev/zero, a FIFO, a body that
// never ends or a server that never answers must end in an error naming the
// resource, never in a hang or an exhausted process.

// Byte caps per resource kind. A hash tile is at most 256 hashes (the cap
// leaves room so a slightly padded tile is diagnosed by its length check);
// an entry bundle at most 256 entries of at most 64 KiB each.
const (
	maxTileBytes   = 8 * layout.TileWidth * HashSize
	maxBundleBytes = layout.EntryBundleWidth * (2 + 0xffff)
)

// Options bound and allow what Open may do.
type Options struct {
	// AllowCrossOriginRedirects lets an HTTP log redirect to another scheme,
	// host or port. Off by default: a redirect elsewhere is an error.
	AllowCrossOriginRedirects bool
	// HTTP time limits; zero values take the defaults below.
	ConnectTimeout time.Duration // dial and TLS handshake
	HeaderTimeout  time.Duration // request sent to response headers
	IdleTimeout    time.Duration // longest pause between body bytes
	RequestTimeout time.Duration // one whole request, body included
	// Deadline, when set, bounds every HTTP read of the log: past it each
	// read fails with ErrDeadline. A command sets it once, at its start,
	// so that a server staying just inside every per-request limit cannot
	// hold the command for hours (a 153-leaf log took 570 s).
	Deadline time.Time
	// MinThroughput (bytes a second, 0: 1024) is the least average rate
	// of a response body once ThroughputGrace (0: 10 s) has passed since
	// the request was sent: a server that trickles a byte a second ends
	// its request after the grace, not after RequestTimeout.
	MinThroughput   int
	ThroughputGrace time.Duration
	// TileCache is how many hash tiles the reader keeps expanded in
	// memory, about 16 KiB each (0: 2048). A reader that walks the log in
	// order (verify) needs only a few.
	TileCache int
}

const (
	defaultConnectTimeout = 10 * time.Second
	defaultHeaderTimeout  = 15 * time.Second
	defaultIdleTimeout    = 15 * time.Second
	defaultRequestTimeout = 2 * time.Minute
	defaultMinThroughput  = 1024
	defaultGrace          = 10 * time.Second
)

// ErrDeadline says the log's read deadline (Options.Deadline) passed.
var ErrDeadline = errors.New("the deadline for reading the log passed")

func orDefault(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
}

// readCapped reads at most max bytes from rd; one more is an error.
func readCapped(rd io.Reader, max int64, name string) ([]byte, error) {
	return readCappedSized(rd, max, name, 0)
}

// readCappedSized is readCapped with the expected size, when known, to
// read into one buffer instead of growing one.
func readCappedSized(rd io.Reader, max int64, name string, size int64) ([]byte, error) {
	var buf bytes.Buffer
	if size > 0 && size <= max {
		buf.Grow(int(size) + bytes.MinRead)
	}
	if _, err := buf.ReadFrom(io.LimitReader(rd, max+1)); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if int64(buf.Len()) > max {
		return nil, &evidence.TooLargeError{Name: name, Max: max}
	}
	return buf.Bytes(), nil
}

// dirFetcher reads a log directory. Each resource must be a regular file
// whose real path lies inside the log directory's real path: a symlink out
// of the directory, a FIFO or a device is an error naming the file.
type dirFetcher struct {
	root     string // as given
	realRoot string // symlinks resolved

	mu   sync.Mutex
	dirs map[string]string // a resource's directory -> its real path
}

func newDirFetcher(root string) (*dirFetcher, error) {
	real, err := filepath.EvalSymlinks(root)
	if err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(real)
	if err != nil {
		return nil, err
	}
	return &dirFetcher{root: root, realRoot: abs, dirs: map[string]string{}}, nil
}

// realPath is filepath.Abs(filepath.EvalSymlinks(p)), with each directory
// resolved once: a verify reads thousands of tiles and bundles from a few
// directories, and resolving every path component of every one was a
// tenth of its reading. A file that is itself a symlink, or any error,
// takes the full resolution, so results and errors are EvalSymlinks's.
func (d *dirFetcher) realPath(p string) (string, error) {
	dir, base := filepath.Dir(p), filepath.Base(p)
	d.mu.Lock()
	realDir, ok := d.dirs[dir]
	d.mu.Unlock()
	if !ok {
		if r, err := filepath.EvalSymlinks(dir); err == nil {
			if r, err = filepath.Abs(r); err == nil {
				realDir, ok = r, true
				d.mu.Lock()
				d.dirs[dir] = r
				d.mu.Unlock()
			}
		}
	}
	if ok {
		cand := filepath.Join(realDir, base)
		if fi, err := os.Lstat(cand); err == nil && fi.Mode()&fs.ModeSymlink == 0 {
			return cand, nil
		}
	}
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return "", err // keeps os.ErrNotExist for the partial-tile fallback
	}
	return filepath.Abs(real)
}

func (d *dirFetcher) read(rel string, max int64) ([]byte, error) {
	p := filepath.Join(d.root, filepath.FromSlash(rel))
	abs, err := d.realPath(p)
	if err != nil {
		return nil, err
	}
	if abs != d.realRoot && !strings.HasPrefix(abs, d.realRoot+string(filepath.Separator)) {
		return nil, fmt.Errorf("%s resolves to %s, outside the log directory: not read", p, abs)
	}
	st, err := os.Stat(abs)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file (%s): not read", p, evidence.FileKind(st.Mode()))
	}
	if st.Size() > max {
		return nil, &evidence.TooLargeError{Name: p, Size: st.Size(), Max: max}
	}
	f, err := os.Open(abs)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// The size was checked, but a file can grow: the read is capped too.
	return readCappedSized(f, max, p, st.Size())
}

// partialOrFull reads the partial resource, falling back to the full one
// when the partial is absent (the tree grew), as tessera's fetchers do.
func partialOrFull(p uint8, read func(uint8) ([]byte, error)) ([]byte, error) {
	b, err := read(p)
	if errors.Is(err, os.ErrNotExist) && p > 0 {
		return read(0)
	}
	return b, err
}

func (d *dirFetcher) checkpoint(context.Context) ([]byte, error) {
	return d.read(layout.CheckpointPath, maxCheckpointSize)
}

func (d *dirFetcher) tile(_ context.Context, l, i uint64, p uint8) ([]byte, error) {
	return partialOrFull(p, func(p uint8) ([]byte, error) { return d.read(layout.TilePath(l, i, p), maxTileBytes) })
}

func (d *dirFetcher) bundle(_ context.Context, i uint64, p uint8) ([]byte, error) {
	return partialOrFull(p, func(p uint8) ([]byte, error) { return d.read(layout.EntriesPath(i, p), maxBundleBytes) })
}

// httpFetcher reads a log over HTTP with every limit of Options.
type httpFetcher struct {
	base     *url.URL
	client   *http.Client
	idle     time.Duration
	total    time.Duration
	deadline time.Time
	minRate  int
	grace    time.Duration
}

func newHTTPFetcher(base *url.URL, o Options) *httpFetcher {
	connect := orDefault(o.ConnectTimeout, defaultConnectTimeout)
	tr := &http.Transport{
		Proxy:                  http.ProxyFromEnvironment,
		DialContext:            (&net.Dialer{Timeout: connect}).DialContext,
		TLSHandshakeTimeout:    connect,
		ResponseHeaderTimeout:  orDefault(o.HeaderTimeout, defaultHeaderTimeout),
		MaxResponseHeaderBytes: 64 << 10,
		MaxIdleConnsPerHost:    8,
		IdleConnTimeout:        30 * time.Second,
	}
	c := &http.Client{Transport: tr, CheckRedirect: func(req *http.Request, via []*http.Request) error {
		if len(via) >= 5 {
			return fmt.Errorf("more than 5 redirects")
		}
		if !o.AllowCrossOriginRedirects && origin(req.URL) != origin(via[0].URL) {
			return fmt.Errorf("redirect from %s to another origin %s refused (allow with --allow-cross-origin-redirects)", origin(via[0].URL), origin(req.URL))
		}
		return nil
	}}
	minRate := o.MinThroughput
	if minRate <= 0 {
		minRate = defaultMinThroughput
	}
	return &httpFetcher{base: base, client: c, idle: orDefault(o.IdleTimeout, defaultIdleTimeout), total: orDefault(o.RequestTimeout, defaultRequestTimeout),
		deadline: o.Deadline, minRate: minRate, grace: orDefault(o.ThroughputGrace, defaultGrace)}
}

func origin(u *url.URL) string {
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	return u.Scheme + "://" + u.Hostname() + ":" + port
}

func (h *httpFetcher) get(ctx context.Context, rel string, max int64) ([]byte, error) {
	u := h.base.JoinPath(rel)
	if !h.deadline.IsZero() {
		if !time.Now().Before(h.deadline) {
			return nil, fmt.Errorf("get %s: %w", u, ErrDeadline)
		}
		var stop context.CancelFunc
		ctx, stop = context.WithDeadline(ctx, h.deadline)
		defer stop()
	}
	ctx, cancel := context.WithTimeout(ctx, h.total)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, err
	}
	resp, err := h.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("get %s: %w", u, err)
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusNotFound:
		return nil, fmt.Errorf("get %s: %w", u, os.ErrNotExist)
	case resp.StatusCode != http.StatusOK:
		return nil, fmt.Errorf("get %s: HTTP status %d", u, resp.StatusCode)
	}
	if resp.ContentLength > max {
		return nil, &evidence.TooLargeError{Name: "get " + u.String(), What: "Content-Length", Size: resp.ContentLength, Max: max}
	}
	// The idle limit: each pause between body bytes restarts a timer that
	// cancels the request when it fires.
	idle := time.AfterFunc(h.idle, cancel)
	defer idle.Stop()
	// The rate is the body's, from the headers on (their wait has its own
	// limit); a body that is complete by its Content-Length is never slow.
	start := time.Now()
	body := &idleReader{r: resp.Body, timer: idle, d: h.idle, start: start, grace: h.grace, minRate: h.minRate, length: resp.ContentLength}
	b, err := readCapped(body, max, "get "+u.String())
	switch {
	case err != nil && body.slow:
		return nil, fmt.Errorf("get %s: %d bytes in %v, under the %d bytes a second a response must average after %v", u, body.n, time.Since(start).Round(time.Millisecond), h.minRate, h.grace)
	case err != nil && !h.deadline.IsZero() && !time.Now().Before(h.deadline):
		return nil, fmt.Errorf("get %s: %w", u, ErrDeadline)
	case err != nil && ctx.Err() != nil:
		return nil, fmt.Errorf("get %s: body stalled for %v or the request took over %v: %w", u, h.idle, h.total, ctx.Err())
	}
	return b, err
}

// idleReader restarts the idle timer on every byte and ends a body whose
// average rate, once the grace has passed, is under minRate.
type idleReader struct {
	r       io.Reader
	timer   *time.Timer
	d       time.Duration
	start   time.Time
	grace   time.Duration
	minRate int
	length  int64 // Content-Length, or -1
	n       int64
	slow    bool
}

// errSlow ends a body read below the minimum throughput.
var errSlow = errors.New("response body under the minimum throughput")

func (i *idleReader) Read(p []byte) (int, error) {
	n, err := i.r.Read(p)
	if n > 0 {
		i.timer.Reset(i.d)
		i.n += int64(n)
	}
	if err == nil && (i.length <= 0 || i.n < i.length) {
		if el := time.Since(i.start); el > i.grace && float64(i.n) < float64(i.minRate)*el.Seconds() {
			i.slow = true
			return n, errSlow
		}
	}
	return n, err
}

func (h *httpFetcher) checkpoint(ctx context.Context) ([]byte, error) {
	return h.get(ctx, layout.CheckpointPath, maxCheckpointSize)
}

func (h *httpFetcher) tile(ctx context.Context, l, i uint64, p uint8) ([]byte, error) {
	return partialOrFull(p, func(p uint8) ([]byte, error) { return h.get(ctx, layout.TilePath(l, i, p), maxTileBytes) })
}

func (h *httpFetcher) bundle(ctx context.Context, i uint64, p uint8) ([]byte, error) {
	return partialOrFull(p, func(p uint8) ([]byte, error) { return h.get(ctx, layout.EntriesPath(i, p), maxBundleBytes) })
}

// Present checks that the log really holds size leaves, by reading the
// entry bundle of leaf size-1 (bounded), before a caller allocates anything
// in proportion to a size taken from a checkpoint: a checkpoint claiming
// 2^63 leaves costs one failed read, not a terabyte.
func (r *Reader) Present(ctx context.Context, size uint64) error {
	if size == 0 {
		return nil
	}
	last := size - 1
	width := int(last%layout.EntryBundleWidth) + 1
	if _, _, err := r.bundleEntries(ctx, last/layout.EntryBundleWidth, width); err != nil {
		return fmt.Errorf("the checkpoint claims %d leaves but leaf %d cannot be read: %w", size, last, err)
	}
	return nil
}

// PastDeadline says whether the reader's deadline (Options.Deadline, HTTP
// logs only) has passed: every read since failed, so nothing read after it
// can be relied on and a caller should refuse to conclude.
func (r *Reader) PastDeadline() bool {
	return !r.deadline.IsZero() && !time.Now().Before(r.deadline)
}
