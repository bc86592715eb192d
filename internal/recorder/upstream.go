package recorder

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"time"

	"github.com/memscope/memscope/internal/exactjson"
)

// upstream is one MCP server the gateway started, spoken to over stdio.
// Requests to it carry the gateway's own integer ids; responses are routed
// back by id, and a response for an id the gateway never sent (or already
// answered) is dropped with a line on stderr.
type upstream struct {
	cfg     ServerConfig
	g       *Gateway
	cmd     *exec.Cmd
	w       *lineWriter
	mu      sync.Mutex
	next    int64
	pending map[int64]chan *message
	dead    chan struct{}
	deadErr error
	// initialized by the first session's initialize
	initOnce   sync.Once
	initResult json.RawMessage
	initErr    json.RawMessage
}

func startUpstream(ctx context.Context, g *Gateway, cfg ServerConfig) (*upstream, error) {
	cmd := exec.CommandContext(ctx, cfg.Command[0], cfg.Command[1:]...)
	cmd.Env = os.Environ()
	for k, v := range cfg.Env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("record: starting upstream %s (%s): %w", cfg.Name, cfg.Command[0], err)
	}
	u := &upstream{cfg: cfg, g: g, cmd: cmd, w: newLineWriter(in), pending: map[int64]chan *message{}, dead: make(chan struct{})}
	go u.read(out)
	return u, nil
}

func (u *upstream) read(out io.Reader) {
	lr := newLineReader(out, MaxMessage)
	var err error
	for {
		var line []byte
		line, err = lr.next()
		if err == errTooLong {
			u.g.logf("upstream %s: message over %d bytes discarded", u.cfg.Name, MaxMessage)
			continue
		}
		if err != nil {
			break
		}
		m, perr := parseMessage(line)
		var repeated *exactjson.RepeatedNameError
		if errors.As(perr, &repeated) && m.isResponse() {
			// Answered as an error, so the call ends now rather than at
			// its timeout, and nothing of it is recorded or forwarded.
			u.g.logf("upstream %s: response refused: %v", u.cfg.Name, perr)
			m = &message{ID: m.ID, Error: errorObject(codeInternal, fmt.Sprintf("upstream %s sent a response that memscope record refused: %v", u.cfg.Name, perr))}
		} else if perr != nil {
			u.g.logf("upstream %s: malformed message discarded: %v", u.cfg.Name, perr)
			continue
		}
		switch {
		case m.isResponse():
			id, perr := strconv.ParseInt(string(m.ID), 10, 64)
			u.mu.Lock()
			ch, ok := u.pending[id]
			delete(u.pending, id)
			u.mu.Unlock()
			if perr != nil || !ok {
				u.g.logf("upstream %s: response for unknown id %.64s discarded", u.cfg.Name, m.ID)
				continue
			}
			ch <- m
		case m.isRequest():
			u.g.serverRequest(u, m)
		case m.isNotification():
			u.g.serverNotification(u, m)
		default:
			u.g.logf("upstream %s: message that is neither request, response nor notification discarded", u.cfg.Name)
		}
	}
	u.mu.Lock()
	u.deadErr = fmt.Errorf("upstream %s closed its output: %v", u.cfg.Name, err)
	for id, ch := range u.pending {
		close(ch)
		delete(u.pending, id)
	}
	u.mu.Unlock()
	close(u.dead)
	u.g.logf("%v", u.deadErr)
}

// call sends a request and waits for its response (nil, error when the
// upstream died, timed out or ctx ended). cancel is called with the
// upstream id before the wait starts (for forwarding cancellation).
func (u *upstream) call(ctx context.Context, method string, params json.RawMessage, started func(id int64)) (*message, error) {
	ch := make(chan *message, 1)
	u.mu.Lock()
	if u.deadErr != nil {
		u.mu.Unlock()
		return nil, u.deadErr
	}
	u.next++
	id := u.next
	u.pending[id] = ch
	u.mu.Unlock()
	if started != nil {
		started(id)
	}
	req := envelope(json.RawMessage(strconv.FormatInt(id, 10)), &message{Method: method, Params: params})
	if err := u.w.send(req); err != nil {
		u.forget(id)
		return nil, fmt.Errorf("upstream %s: %w", u.cfg.Name, err)
	}
	timer := time.NewTimer(u.g.cfg.callTimeout())
	defer timer.Stop()
	select {
	case m, ok := <-ch:
		if !ok {
			return nil, fmt.Errorf("upstream %s exited before answering", u.cfg.Name)
		}
		return m, nil
	case <-timer.C:
		u.forget(id)
		u.notifyCancelled(id, "timed out in memscope record")
		return nil, fmt.Errorf("upstream %s did not answer %s within %v", u.cfg.Name, method, u.g.cfg.callTimeout())
	case <-ctx.Done():
		u.forget(id)
		u.notifyCancelled(id, "the agent's session ended")
		return nil, ctx.Err()
	}
}

func (u *upstream) forget(id int64) {
	u.mu.Lock()
	delete(u.pending, id)
	u.mu.Unlock()
}

func (u *upstream) notifyCancelled(id int64, reason string) {
	p, _ := json.Marshal(map[string]any{"requestId": id, "reason": reason})
	_ = u.w.send(envelope(nil, &message{Method: "notifications/cancelled", Params: p}))
}

func (u *upstream) notify(m *message) { _ = u.w.send(envelope(nil, m)) }

// respond answers a request the upstream sent (id is the upstream's).
func (u *upstream) respond(id json.RawMessage, m *message) {
	_ = u.w.send(envelope(id, &message{Result: m.Result, Error: m.Error}))
}

func (u *upstream) stop() {
	if u.cmd.Process != nil {
		_ = u.cmd.Process.Kill()
	}
	_ = u.cmd.Wait()
}
