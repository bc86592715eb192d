package recorder

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/memscope/memscope/internal/exactjson"
)

// Gateway is memscope record: an MCP server for agent sessions and an MCP
// client of the upstream servers, recording as it forwards.
type Gateway struct {
	rec   *Recorder
	cfg   *Config
	agent string
	ups   []*upstream
	// log receives diagnostics (stderr by default).
	log io.Writer

	toolsMu sync.Mutex
	tools   map[string]route // exposed tool name -> upstream and its name
	listed  json.RawMessage  // merged tools/list result (several upstreams)

	sessMu   sync.Mutex
	sessions map[*session]bool
	// inFlight holds a slot per request in flight, of every session.
	inFlight chan struct{}
	// server-to-client requests in flight: gateway id -> origin
	srvReqs  sync.Map
	srvNext  atomic.Int64
	sessNext atomic.Int64
}

type route struct {
	up   *upstream
	name string
}

type srvReq struct {
	up *upstream
	id json.RawMessage
}

// NewGateway starts the upstream servers of cfg.
func NewGateway(ctx context.Context, rec *Recorder, cfg *Config, agent string) (*Gateway, error) {
	g := &Gateway{rec: rec, cfg: cfg, agent: agent, log: os.Stderr, sessions: map[*session]bool{}, inFlight: make(chan struct{}, MaxGatewayRequests)}
	if len(cfg.Servers) == 0 {
		return nil, fmt.Errorf("record: no upstream server (give -- CMD ARGS or a config with servers)")
	}
	for _, s := range cfg.Servers {
		u, err := startUpstream(ctx, g, s)
		if err != nil {
			g.Close()
			return nil, err
		}
		g.ups = append(g.ups, u)
	}
	return g, nil
}

func (g *Gateway) logf(format string, a ...any) {
	fmt.Fprintf(g.log, "memscope record: "+format+"\n", a...)
}

// Close stops the upstream servers.
func (g *Gateway) Close() {
	for _, u := range g.ups {
		u.stop()
	}
}

// MaxSessionRequests bounds one session's requests in flight (each holds
// a goroutine with a presized stack, requestStack), and
// MaxGatewayRequests all sessions' together (with --listen's 64
// sessions, 64 x 256 stacks would be 2 GiB; 1,024 are 128 MiB), so one
// session that floods leaves the others room.
const (
	MaxSessionRequests = 256
	MaxGatewayRequests = 1024
)

// acquire takes a slot in both bounds, in order, or gives up when ctx is
// done.
func acquire(ctx context.Context, session, gateway chan struct{}) bool {
	select {
	case session <- struct{}{}:
	case <-ctx.Done():
		return false
	}
	select {
	case gateway <- struct{}{}:
		return true
	case <-ctx.Done():
		<-session
		return false
	}
}

// Serve runs one agent session over r/w until r ends or ctx is done.
func (g *Gateway) Serve(ctx context.Context, r io.Reader, w io.Writer) error {
	s := &session{g: g, out: newLineWriter(w), id: fmt.Sprintf("mcp-%s-%d", newID(now()).String(), g.sessNext.Add(1)),
		seen: newWindow(g.cfg.window(), g.cfg.weight()), inflight: map[string]inflight{}}
	g.sessMu.Lock()
	g.sessions[s] = true
	g.sessMu.Unlock()
	defer func() {
		g.sessMu.Lock()
		delete(g.sessions, s)
		g.sessMu.Unlock()
	}()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if c, ok := r.(io.Closer); ok {
		// Ctrl-C: closing the input ends the blocked read, and the store
		// is then closed cleanly.
		go func() {
			<-ctx.Done()
			c.Close()
		}()
	}
	var wg sync.WaitGroup
	defer wg.Wait()
	// Requests in flight are bounded: past the bound the session stops
	// reading until one finishes (the transport's own backpressure), so
	// an agent that sends without waiting cannot grow the gateway's
	// goroutines and stacks without end.
	inFlight := make(chan struct{}, MaxSessionRequests)
	lr := newLineReader(r, MaxMessage)
	for {
		line, err := lr.next()
		if err == errTooLong {
			_ = s.out.send(errorResponse(nil, codeInvalidRequest, fmt.Sprintf("message over %d bytes refused", MaxMessage)))
			continue
		}
		if err != nil {
			if err == io.EOF || ctx.Err() != nil {
				return nil
			}
			return err
		}
		m, perr := parseMessage(line)
		if perr != nil {
			code := codeParseError
			var id json.RawMessage
			if m != nil {
				code, id = codeInvalidRequest, m.ID
			}
			_ = s.out.send(errorResponse(id, code, perr.Error()))
			continue
		}
		switch {
		case m.isRequest():
			if !acquire(ctx, inFlight, g.inFlight) {
				return nil
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer func() { <-inFlight; <-g.inFlight }()
				presizeStack(len(line))
				s.request(ctx, m)
			}()
		case m.isNotification():
			s.notification(m)
		case m.isResponse():
			g.clientResponse(m)
		default:
			_ = s.out.send(errorResponse(m.ID, codeInvalidRequest, "not a JSON-RPC request, notification or response"))
		}
	}
}

// serverRequest forwards a request an upstream sent (sampling, roots,
// elicitation, ping) to a session, under a gateway id.
func (g *Gateway) serverRequest(u *upstream, m *message) {
	s := g.anySession()
	if s == nil {
		u.respond(m.ID, &message{Error: errorObject(codeMethodNotFound, "no agent session")})
		return
	}
	gid := "memscope-" + strconv.FormatInt(g.srvNext.Add(1), 10)
	g.srvReqs.Store(gid, srvReq{up: u, id: m.ID})
	idb, _ := json.Marshal(gid)
	_ = s.out.send(envelope(idb, m))
}

// clientResponse routes an agent's response to a server request back.
func (g *Gateway) clientResponse(m *message) {
	var gid string
	if exactjson.DecodeChecked(m.ID, &gid) != nil {
		g.logf("agent: response for unknown id %.64s discarded", m.ID)
		return
	}
	v, ok := g.srvReqs.LoadAndDelete(gid)
	if !ok {
		g.logf("agent: response for unknown id %.64s discarded", m.ID)
		return
	}
	r := v.(srvReq)
	r.up.respond(r.id, m)
}

// serverNotification forwards an upstream's notification to every session.
func (g *Gateway) serverNotification(u *upstream, m *message) {
	if m.Method == "notifications/tools/list_changed" {
		g.toolsMu.Lock()
		g.tools, g.listed = nil, nil
		g.toolsMu.Unlock()
	}
	g.sessMu.Lock()
	defer g.sessMu.Unlock()
	for s := range g.sessions {
		_ = s.out.send(envelope(nil, m))
	}
}

func (g *Gateway) anySession() *session {
	g.sessMu.Lock()
	defer g.sessMu.Unlock()
	for s := range g.sessions {
		return s
	}
	return nil
}

// routes lists every upstream's tools (following pagination) and names
// them: a tool keeps its name unless two upstreams offer it, then each
// copy is SERVER__NAME.
func (g *Gateway) routes(ctx context.Context) (map[string]route, json.RawMessage, error) {
	g.toolsMu.Lock()
	defer g.toolsMu.Unlock()
	if g.tools != nil {
		return g.tools, g.listed, nil
	}
	type tool struct {
		up   *upstream
		name string
		raw  map[string]json.RawMessage
	}
	var all []tool
	count := map[string]int{}
	complete := true
	for _, u := range g.ups {
		cursor := ""
		for page := 0; page < 1000; page++ {
			params := json.RawMessage(`{}`)
			if cursor != "" {
				params, _ = json.Marshal(map[string]string{"cursor": cursor})
			}
			var res struct {
				Tools      []map[string]json.RawMessage `json:"tools"`
				NextCursor string                       `json:"nextCursor"`
			}
			// A server may still be taking in the initialized notification
			// (the Go SDK's handles it asynchronously): a few retries.
			var failure string
			for try := 0; try < 20; try++ {
				m, err := u.call(ctx, "tools/list", params, nil)
				switch {
				case err != nil:
					failure = err.Error()
				case m.Error != nil || exactjson.DecodeChecked(m.Result, &res) != nil:
					failure = string(m.Error)
				default:
					failure = ""
				}
				if failure == "" || err != nil {
					break
				}
				time.Sleep(25 * time.Millisecond)
			}
			if failure != "" {
				g.logf("tools/list of %s failed: %.200s", u.cfg.Name, failure)
				complete = false
				break
			}
			for _, t := range res.Tools {
				var name string
				if exactjson.DecodeChecked(t["name"], &name) != nil || name == "" {
					continue
				}
				all = append(all, tool{u, name, t})
				count[name]++
			}
			if cursor = res.NextCursor; cursor == "" {
				break
			}
		}
	}
	tools := map[string]route{}
	var listed []map[string]json.RawMessage
	for _, t := range all {
		exposed := t.name
		if count[t.name] > 1 {
			exposed = t.up.cfg.Name + "__" + t.name
			nb, _ := json.Marshal(exposed)
			t.raw["name"] = nb
		}
		tools[exposed] = route{t.up, t.name}
		listed = append(listed, t.raw)
	}
	if listed == nil {
		listed = []map[string]json.RawMessage{}
	}
	res, _ := json.Marshal(map[string]any{"tools": listed})
	if complete { // an incomplete list is asked again next time
		g.tools, g.listed = tools, res
	}
	return tools, res, nil
}

// serverFor says which upstream serves a tool.
func (g *Gateway) serverFor(ctx context.Context, name string) (route, bool) {
	if len(g.ups) == 1 {
		return route{g.ups[0], name}, true
	}
	tools, _, _ := g.routes(ctx)
	r, ok := tools[name]
	return r, ok
}

// initialize sends the first agent's initialize to every upstream once;
// later sessions get the same answer.
func (g *Gateway) initialize(ctx context.Context, params json.RawMessage) (json.RawMessage, json.RawMessage) {
	var wg sync.WaitGroup
	for _, u := range g.ups {
		wg.Add(1)
		go func() {
			defer wg.Done()
			u.initOnce.Do(func() {
				m, err := u.call(ctx, "initialize", params, nil)
				switch {
				case err != nil:
					u.initErr, _ = json.Marshal(map[string]any{"code": codeInternal, "message": err.Error()})
				default:
					u.initResult, u.initErr = m.Result, m.Error
				}
			})
		}()
	}
	wg.Wait()
	if len(g.ups) == 1 {
		return g.ups[0].initResult, g.ups[0].initErr
	}
	// Several upstreams: the gateway is the server the agent sees.
	var version json.RawMessage
	caps := map[string]json.RawMessage{}
	for _, u := range g.ups {
		if u.initErr != nil {
			g.logf("initialize of %s failed: %.200s", u.cfg.Name, u.initErr)
			continue
		}
		var r struct {
			ProtocolVersion json.RawMessage            `json:"protocolVersion"`
			Capabilities    map[string]json.RawMessage `json:"capabilities"`
		}
		if exactjson.DecodeChecked(u.initResult, &r) != nil {
			continue
		}
		if version == nil {
			version = r.ProtocolVersion
		}
		for k, v := range r.Capabilities {
			if _, ok := caps[k]; !ok {
				caps[k] = v
			}
		}
	}
	if version == nil {
		e, _ := json.Marshal(map[string]any{"code": codeInternal, "message": "no upstream server initialized"})
		return nil, e
	}
	res, _ := json.Marshal(map[string]any{"protocolVersion": version, "capabilities": caps,
		"serverInfo": map[string]string{"name": "memscope-record", "version": "1"}})
	return res, nil
}

func (g *Gateway) upstreamNames() string {
	var n []string
	for _, u := range g.ups {
		n = append(n, u.cfg.Name)
	}
	return strings.Join(n, ", ")
}

// requestStack is the stack a request's goroutine starts with (a
// recorded call runs SQLite, transpiled C whose frames are deep and
// large). A goroutine's stack starts small and grows by copying: grown
// from inside SQLite, every deep frame was copied and adjusted, several
// times per call (1.5-8.6 % of the gateway's CPU in sustained runs'
// profiles, 3 % in the 8-session latency run's). The price is the stack
// of each request in flight: 128 KiB (about 4 MiB more resident memory
// with 64 calls in flight).
const requestStack = 64 << 10

// presizeStack grows the calling goroutine's stack while it is shallow,
// so it is copied once and cheaply; i only keeps the compiler from
// eliding the frame.
//
//go:noinline
func presizeStack(i int) byte {
	var pad [requestStack]byte
	pad[i%requestStack] = 1
	return pad[(i+1)%requestStack]
}
