package recorder

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"syscall"
	"time"
)

// MaxListenSessions bounds the agent sessions one gateway serves at once
// on --listen: each holds goroutines and buffers, so a local client that
// opens connections without end must not exhaust the gateway. A
// connection beyond it gets one JSON-RPC error and is closed.
const MaxListenSessions = 64

// Listen creates the Unix socket a gateway serves agent sessions on. The
// path must not exist: bind refuses an existing file, so nothing is ever
// replaced (a socket left by a gateway that was killed must be removed by
// hand, which the error says). The socket is created owner-only (umask
// 077 around bind, not a chmod after it, which would leave a moment in
// which another user could connect and write as the agent principal;
// the umask is the process's, so call it before anything else creates
// files), and it is removed when the listener closes.
func Listen(path string) (*net.UnixListener, error) {
	old := syscall.Umask(0o077)
	l, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	syscall.Umask(old)
	if err != nil {
		if _, serr := os.Lstat(path); serr == nil {
			return nil, fmt.Errorf("record: --listen %s: the path exists (a gateway's socket is removed when it stops; remove a stale one by hand): %w", path, err)
		}
		return nil, fmt.Errorf("record: --listen %s: %w", path, err)
	}
	l.SetUnlinkOnClose(true)
	return l, nil
}

// ServeListener serves each connection accepted on l as one agent
// session (the stdio transport's framing: one JSON-RPC message a line)
// until ctx is done or l fails. The sessions share the upstream servers
// and the recorder, so their writes are group-committed together; they
// all record as the gateway's agent principal.
func (g *Gateway) ServeListener(ctx context.Context, l net.Listener) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		<-ctx.Done()
		l.Close()
	}()
	slots := make(chan struct{}, MaxListenSessions)
	var wg sync.WaitGroup
	defer wg.Wait()
	for {
		c, err := l.Accept()
		if err != nil {
			if ctx.Err() != nil || errors.Is(err, net.ErrClosed) {
				return nil
			}
			if errors.Is(err, syscall.EMFILE) || errors.Is(err, syscall.ENFILE) || errors.Is(err, syscall.ECONNABORTED) {
				// Out of descriptors for a moment (or a client gone before
				// its accept): the sessions open go on; try again shortly.
				g.logf("accepting a session: %v; retrying", err)
				select {
				case <-time.After(100 * time.Millisecond):
				case <-ctx.Done():
					return nil
				}
				continue
			}
			return fmt.Errorf("record: accepting a session: %w", err)
		}
		select {
		case slots <- struct{}{}:
		default:
			_ = newLineWriter(c).send(errorResponse(nil, codeInternal, fmt.Sprintf("memscope record: %d sessions already open on this gateway; try again when one ends", MaxListenSessions)))
			c.Close()
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-slots }()
			defer c.Close()
			if err := g.Serve(ctx, c, c); err != nil {
				g.logf("a session ended: %v", err)
			}
		}()
	}
}

// Connect relays stdin and stdout to a gateway's socket, for an agent
// whose MCP client can only start a command: the agent's config names
// `memscope record --connect PATH` in place of the server. It returns
// when the gateway ends the session or ctx is done; the end of stdin ends
// the session (the socket's write side is shut, so the gateway sees it).
func Connect(ctx context.Context, path string, stdin io.Reader, stdout io.Writer) error {
	var d net.Dialer
	c, err := d.DialContext(ctx, "unix", path)
	if err != nil {
		return fmt.Errorf("record: --connect %s: %w", path, err)
	}
	conn := c.(*net.UnixConn)
	defer conn.Close()
	go func() {
		<-ctx.Done()
		conn.Close()
	}()
	go func() {
		_, _ = io.Copy(conn, stdin)
		_ = conn.CloseWrite()
	}()
	if _, err := io.Copy(stdout, conn); err != nil && ctx.Err() == nil {
		return fmt.Errorf("record: --connect %s: %w", path, err)
	}
	return nil
}
