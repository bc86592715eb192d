package recorder

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/memscope/memscope/internal/exactjson"
)

// The gateway forwards JSON-RPC 2.0 messages of MCP's stdio transport
// (one message per line) itself rather than through the Go SDK's
// mcp.Client/mcp.Server: those answer and re-encode every message, while
// the gateway must pass methods, params, results and errors through byte
// for byte and only translate request ids (several agent sessions and the
// gateway's own requests share one connection to each upstream). The SDK's
// typed params and results (mcp.CallToolParams, mcp.CallToolResult) are
// used to read what is recorded.

// MaxMessage bounds one JSON-RPC message (a line) in either direction; a
// longer line is discarded and answered with an error. It bounds the
// gateway's memory per message in flight.
const MaxMessage = 64 << 20

// message is one JSON-RPC message, split into its members; every member is
// kept as the raw bytes received.
type message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   json.RawMessage `json:"error,omitempty"`
}

func (m *message) hasID() bool { return len(m.ID) > 0 && string(m.ID) != "null" }

func (m *message) isRequest() bool { return m.Method != "" && m.hasID() }

func (m *message) isNotification() bool { return m.Method != "" && !m.hasID() }

func (m *message) isResponse() bool {
	return m.Method == "" && len(m.ID) > 0 && (m.Result != nil) != (m.Error != nil)
}

// JSON-RPC error codes.
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
	codeMethodNotFound = -32601
	codeInternal       = -32603
)

var errTooLong = errors.New("message over the size limit")

// lineReader reads newline-delimited messages of at most MaxMessage bytes.
type lineReader struct {
	r   *bufio.Reader
	max int
}

func newLineReader(r io.Reader, max int) *lineReader {
	return &lineReader{r: bufio.NewReaderSize(r, 64<<10), max: max}
}

// next returns the next non-empty line (without its newline). A line over
// the limit is skipped to its end and reported as errTooLong.
func (l *lineReader) next() ([]byte, error) {
	for {
		var buf []byte
		over := false
		for {
			chunk, err := l.r.ReadSlice('\n')
			if !over {
				if len(buf)+len(chunk) > l.max+1 {
					over, buf = true, nil
				} else {
					buf = append(buf, chunk...)
				}
			}
			if err == bufio.ErrBufferFull {
				continue
			}
			if err != nil {
				if err == io.EOF && len(buf) > 0 && !over {
					return bytes.TrimSpace(buf), nil
				}
				return nil, err
			}
			break
		}
		if over {
			return nil, errTooLong
		}
		if line := bytes.TrimSpace(buf); len(line) > 0 {
			return line, nil
		}
	}
}

// lineWriter writes one message per line, safe for concurrent use.
type lineWriter struct {
	mu  sync.Mutex
	w   *bufio.Writer
	err error
}

func newLineWriter(w io.Writer) *lineWriter { return &lineWriter{w: bufio.NewWriterSize(w, 64<<10)} }

func (l *lineWriter) send(b []byte) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.err != nil {
		return l.err
	}
	if _, err := l.w.Write(b); err != nil {
		l.err = err
		return err
	}
	if err := l.w.WriteByte('\n'); err != nil {
		l.err = err
		return err
	}
	l.err = l.w.Flush()
	return l.err
}

// envelope re-wraps forwarded members with a translated id: only the id
// changes; method, params, result and error are the bytes received.
func envelope(id json.RawMessage, m *message) []byte {
	var b bytes.Buffer
	b.WriteString(`{"jsonrpc":"2.0"`)
	if id != nil {
		b.WriteString(`,"id":`)
		b.Write(id)
	}
	if m.Method != "" {
		b.WriteString(`,"method":`)
		mb, _ := json.Marshal(m.Method)
		b.Write(mb)
	}
	if m.Params != nil {
		b.WriteString(`,"params":`)
		b.Write(m.Params)
	}
	if m.Result != nil {
		b.WriteString(`,"result":`)
		b.Write(m.Result)
	}
	if m.Error != nil {
		b.WriteString(`,"error":`)
		b.Write(m.Error)
	}
	b.WriteByte('}')
	return b.Bytes()
}

// errorResponse is a JSON-RPC error response for id (null when unknown).
func errorResponse(id json.RawMessage, code int, msg string) []byte {
	if id == nil {
		id = json.RawMessage("null")
	}
	return envelope(id, &message{Error: errorObject(code, msg)})
}

// errorObject is a JSON-RPC error member.
func errorObject(code int, msg string) json.RawMessage {
	e, _ := json.Marshal(map[string]any{"code": code, "message": msg})
	return e
}

// parseMessage decodes one line. A batch (array) is not part of MCP's
// current revision and is refused. The gateway records what its peers
// act on, and they read by exact member name (JSON.parse in the
// TypeScript SDK, pydantic in Python's): so does parseMessage, and every
// decoding of a member after it (exactjson.DecodeChecked), never Go's
// case-insensitive matching (docs/RECORD.md, "Member names are read as
// the peers read them"). A line that repeats a name in one object, which
// the peers and Go resolve differently, returns the message decoded so
// far with an *exactjson.RepeatedNameError, so that a response can still
// be matched to its request and refused there.
func parseMessage(line []byte) (*message, error) {
	if len(line) > 0 && line[0] == '[' {
		return nil, fmt.Errorf("JSON-RPC batches are not supported")
	}
	if err := exactjson.Valid(line); err != nil {
		return nil, err
	}
	var m message
	if err := exactjson.DecodeChecked(line, &m); err != nil {
		return nil, err
	}
	if err := exactjson.RepeatedName(line); err != nil {
		return &m, fmt.Errorf("%w: memscope record cannot tell which value the peer acts on, so the message is refused", err)
	}
	if m.JSONRPC != "2.0" {
		return &m, fmt.Errorf("jsonrpc member is %q, want \"2.0\"", m.JSONRPC)
	}
	return &m, nil
}
