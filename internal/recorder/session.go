package recorder

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/memscope/memscope/evidence/record"
	"github.com/memscope/memscope/internal/exactjson"
)

// session is one agent connected to the gateway.
type session struct {
	g   *Gateway
	out *lineWriter
	id  string

	mu        sync.Mutex
	seen      *window
	lastQuery string
	// inflight maps the agent's request ids to the upstream request, for
	// notifications/cancelled.
	inflight map[string]inflight
}

type inflight struct {
	up *upstream
	id int64
}

// seenItem is an entry that entered the agent's context.
type seenItem struct {
	id      record.ID
	content string
	trust   record.Trust
}

// window keeps the last n items the agent saw (lineage from context).
type window struct {
	n      int
	weight float64
	items  []seenItem
}

func newWindow(n int, w float64) *window { return &window{n: n, weight: w} }

func (w *window) add(items ...seenItem) {
	for _, it := range items {
		for i, old := range w.items { // seen again: it moves to the end
			if old.id == it.id {
				w.items = append(w.items[:i], w.items[i+1:]...)
				break
			}
		}
		w.items = append(w.items, it)
	}
	if len(w.items) > w.n {
		w.items = append([]seenItem(nil), w.items[len(w.items)-w.n:]...)
	}
}

// lineage returns the window as parents, their weights, and the trust
// an entry derived from them records (MemLineage's propagation as the
// writer knows it: External or Derived-Untrusted in context makes it
// Derived-Untrusted; otherwise Derived-Trusted, or Trusted with no parent).
func (w *window) lineage() ([]record.ID, []float64, record.Trust, []seenItem) {
	items := append([]seenItem(nil), w.items...)
	parents := make([]record.ID, len(items))
	weights := make([]float64, len(items))
	trust := record.Trusted
	if len(items) > 0 {
		trust = record.DerivedTrusted
	}
	for i, it := range items {
		parents[i], weights[i] = it.id, w.weight
		if it.trust.IsUntrusted() {
			trust = record.DerivedUntrusted
		}
	}
	return parents, weights, trust, items
}

func (s *session) notification(m *message) {
	g := s.g
	if m.Method == "notifications/cancelled" {
		var p struct {
			RequestID json.RawMessage `json:"requestId"`
			Reason    string          `json:"reason"`
		}
		if exactjson.DecodeChecked(m.Params, &p) == nil {
			s.mu.Lock()
			f, ok := s.inflight[string(p.RequestID)]
			s.mu.Unlock()
			if ok {
				f.up.notifyCancelled(f.id, p.Reason)
			}
		}
		return
	}
	for _, u := range g.ups {
		u.notify(m)
	}
}

// request answers one agent request.
func (s *session) request(ctx context.Context, m *message) {
	g := s.g
	switch m.Method {
	case "initialize":
		res, e := g.initialize(ctx, m.Params)
		_ = s.out.send(envelope(m.ID, &message{Result: res, Error: e}))
		return
	case "tools/list":
		if len(g.ups) > 1 {
			_, listed, _ := g.routes(ctx)
			_ = s.out.send(envelope(m.ID, &message{Result: listed}))
			return
		}
	case "tools/call":
		s.toolCall(ctx, m)
		return
	case "server/discover":
		// MCP's stateless revision (2026-07-28, SEP-2575) probes with
		// server/discover. With several upstreams the gateway is the
		// server and speaks the initialize handshake only: method not
		// found makes a client fall back to it, as the revision says.
		if len(g.ups) > 1 {
			_ = s.out.send(errorResponse(m.ID, codeMethodNotFound, "server/discover is not supported by memscope record with several upstream servers; use initialize"))
			return
		}
	}
	// Everything else goes to the first upstream (with one upstream, to
	// it): resources, prompts, completion, logging, ping.
	s.forward(ctx, g.ups[0], m, m.Params)
}

// forward sends m to u and the answer back unchanged but for the id.
func (s *session) forward(ctx context.Context, u *upstream, m *message, params json.RawMessage) {
	resp, err := s.call(ctx, u, m, params)
	if err != nil {
		_ = s.out.send(errorResponse(m.ID, codeInternal, err.Error()))
		return
	}
	_ = s.out.send(envelope(m.ID, resp))
}

func (s *session) call(ctx context.Context, u *upstream, m *message, params json.RawMessage) (*message, error) {
	key := string(m.ID)
	resp, err := u.call(ctx, m.Method, params, func(id int64) {
		s.mu.Lock()
		s.inflight[key] = inflight{u, id}
		s.mu.Unlock()
	})
	s.mu.Lock()
	delete(s.inflight, key)
	s.mu.Unlock()
	return resp, err
}

// callParams is what the recorder reads of a tools/call request.
type callParams struct {
	Name      string                     `json:"name"`
	Arguments map[string]json.RawMessage `json:"arguments"`
}

// callResult is what the recorder reads of a tools/call result.
type callResult struct {
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent"`
	IsError           bool            `json:"isError"`
}

// toolCall routes a tools/call, records what its role says, and releases
// the result only once the records are durable.
func (s *session) toolCall(ctx context.Context, m *message) {
	g := s.g
	var p callParams
	if err := exactjson.DecodeChecked(m.Params, &p); err != nil || p.Name == "" {
		_ = s.out.send(errorResponse(m.ID, -32602, "tools/call: params must name a tool"))
		return
	}
	rt, ok := g.serverFor(ctx, p.Name)
	if !ok {
		_ = s.out.send(errorResponse(m.ID, -32602, fmt.Sprintf("unknown tool %q (upstreams: %s)", p.Name, g.upstreamNames())))
		return
	}
	params := m.Params
	if rt.name != p.Name { // a renamed tool: the upstream knows its own name
		var raw map[string]json.RawMessage
		_ = exactjson.DecodeChecked(m.Params, &raw)
		raw["name"], _ = json.Marshal(rt.name)
		params, _ = json.Marshal(raw)
	}
	role := rt.up.cfg.Role
	if role == RoleSensitive {
		if err := s.recordAction(ctx, rt, p); err != nil {
			_ = s.out.send(errorResponse(m.ID, codeInternal, "memscope record could not record this call, so it was not sent: "+err.Error()))
			return
		}
	}
	resp, err := s.call(ctx, rt.up, m, params)
	if err != nil {
		_ = s.out.send(errorResponse(m.ID, codeInternal, err.Error()))
		return
	}
	var res callResult
	if resp.Error == nil && s.decodeResult(resp.Result, role, &res) && !res.IsError {
		var rerr error
		switch role {
		case RoleMemory:
			rerr = s.recordMemory(ctx, rt, p, &res)
		case RoleSourceUntrusted, RoleSourceTrusted:
			rerr = s.recordSource(ctx, rt, resp.Result, &res)
		}
		if rerr != nil {
			// Durable before acknowledged: a result whose records failed
			// is not released as a success.
			_ = s.out.send(errorResponse(m.ID, codeInternal, "memscope record could not record this result durably: "+rerr.Error()))
			return
		}
	}
	_ = s.out.send(envelope(m.ID, resp))
}

// decodeResult reads what the recorder needs of a result. A source's
// result too large to be kept as content is only checked for isError, so
// a huge result is not copied again (it is recorded as its size and hash).
func (s *session) decodeResult(raw json.RawMessage, role string, res *callResult) bool {
	if len(raw) > 2*maxContent && role != RoleMemory {
		var head struct {
			IsError bool `json:"isError"`
		}
		if exactjson.DecodeChecked(raw, &head) != nil {
			return false
		}
		res.IsError = head.IsError
		return true
	}
	return exactjson.DecodeChecked(raw, res) == nil
}

// recordSource records a source tool's output as an entry by its server's
// principal: External for source-untrusted, Trusted for source-trusted.
func (s *session) recordSource(ctx context.Context, rt route, raw json.RawMessage, res *callResult) error {
	principal, trust := "external:"+rt.up.cfg.Name, record.External
	if rt.up.cfg.Role == RoleSourceTrusted {
		principal, trust = "tool:"+rt.up.cfg.Name, record.Trusted
	}
	content := resultText(raw, res)
	if len(raw) > 2*maxContent {
		content = fmt.Sprintf("[memscope record: content of a %d-byte result not kept (over %d bytes); SHA-256 of the result %x]", len(raw), maxContent, sha(raw))
	}
	var id record.ID
	err := s.g.rec.Do(ctx, func(tx *Tx) error {
		var err error
		id, err = tx.Entry(EntryIn{Writer: principal, Content: content, Trust: trust, Parents: []record.ID{}, Weights: []float64{},
			Source: sha(raw), Context: sha([]byte(rt.name)), Session: s.id})
		return err
	})
	if err == nil {
		s.mu.Lock()
		s.seen.add(seenItem{id, content, trust})
		s.mu.Unlock()
	}
	return err
}

// resultText is a tool result as the agent reads it: its text blocks, or
// the raw result when it has none.
func resultText(raw json.RawMessage, res *callResult) string {
	var out []byte
	for _, c := range res.Content {
		if c.Type == "text" {
			if len(out) > 0 {
				out = append(out, '\n')
			}
			out = append(out, c.Text...)
		}
	}
	if out == nil {
		return string(raw)
	}
	return string(out)
}
