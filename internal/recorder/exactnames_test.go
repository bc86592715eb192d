package recorder

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/memscope/memscope/internal/exactjson"
	"github.com/memscope/memscope/internal/sharedtest"
)

// Field names of the structs the gateway decodes hostile members into.
var gatewayFieldNames = []string{"jsonrpc", "id", "method", "params", "result", "error", "name", "arguments", "content", "type", "text", "structuredContent", "isError", "entities", "relations", "entityType", "observations", "from", "to", "relationType", "results", "entityName", "addedObservations", "requestId", "reason", "tools", "nextCursor", "protocolVersion", "capabilities"}

// caseVariant reports whether b has a member name that Go's encoding/json
// would match to one of the gateway's fields without being that name.
func caseVariant(b []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(b))
	for {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		s, ok := tok.(string)
		if !ok {
			continue
		}
		for _, f := range gatewayFieldNames {
			if s != f && strings.EqualFold(s, f) {
				return true
			}
		}
	}
}

// FuzzDecodeExactAgreesWithStdlib: apart from case variants and repeated
// names (refused before decoding), decodeExact reads what encoding/json
// reads, into each struct the gateway decodes.
func FuzzDecodeExactAgreesWithStdlib(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"create_entities","arguments":{"entities":[{"name":"a","entityType":"t","observations":["o"]}]}}}`,
		`{"content":[{"type":"text","text":"hello \u00e9 \ud83d\ude00"}],"structuredContent":{"entities":[]},"isError":false}`,
		`{"content":[{"type":"text","text":"bad \ud800 surrogate"}],"isError":null}`,
		"{\"content\":[{\"type\":\"text\",\"text\":\"raw \xff byte\"}]}",
		`{"name":"x","arguments":{"query":"q","names":["a","b"]}}`,
		`{"entities":[{"name":"e","entityType":"t","observations":[]}],"relations":[{"from":"a","to":"b","relationType":"r"}]}`,
		`{"content":"not an array","isError":"no"}`,
		`{"id":null,"result":1e999}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if !json.Valid(b) || exactjson.RepeatedName(b) != nil || caseVariant(b) {
			return
		}
		for _, mk := range []func() any{
			func() any { return new(message) },
			func() any { return new(callParams) },
			func() any { return new(callResult) },
			func() any { return new(kgGraph) },
			func() any { return new([]kgRelation) },
		} {
			exact, std := mk(), mk()
			errExact, errStd := exactjson.DecodeChecked(b, exact), json.Unmarshal(b, std)
			if (errExact == nil) != (errStd == nil) {
				t.Fatalf("%q into %T: decodeExact error %v, encoding/json error %v", b, exact, errExact, errStd)
			}
			if errExact == nil && !reflect.DeepEqual(exact, std) {
				t.Fatalf("%q into %T:\ndecodeExact %+v\nencoding/json %+v", b, exact, exact, std)
			}
		}
	})
}

// smuggled are messages an SDK never writes, each read differently by Go's
// encoding/json and by JSON.parse. want is what JSON.parse reads (checked
// against node below); refused ones must be refused.
var smuggled = []struct {
	line    string
	refused bool
	// goDiffers: encoding/json reads the line otherwise (the case the
	// line covers); the NUL-suffixed name is segmentio's own old bug
	// (GHSA-q382-vc8q-7jhj), which encoding/json never had.
	goDiffers bool
}{
	{line: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"create_entities","Name":"read_graph","arguments":{"entities":[]}}}`, goDiffers: true},
	{line: `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"delete_entities","arguments":{"entityNames":["A"]},"Arguments":{"entityNames":["B"]}}}`, goDiffers: true},
	{line: `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"delete_entities","arguments":{"entityNames":["A"]},"argumentſ":{"entityNames":["B"]}}}`, goDiffers: true},
	{line: `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"read_graph","naMe":"delete_entities"}}`, goDiffers: true},
	{line: `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"read_graph","name\u0000":"delete_entities"}}`},
	{line: `{"jsonrpc":"2.0","id":6,"result":{"content":[{"type":"text","text":"ATTACK"}],"Content":[{"type":"text","text":"benign"}]}}`, goDiffers: true},
	{line: `{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"ATTACK","Text":"benign"}],"isError":false,"IsError":true}}`, goDiffers: true},
	{line: `{"jsonrpc":"2.0","id":8,"result":{"content":[{"type":"text","text":"A"}],"content":[{"type":"image"}]}}`, refused: true},
	{line: `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"x","arguments":{"a":1},"arguments":{"b":2}}}`, refused: true},
	{line: `{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"x","\u0061rguments":{"a":1},"arguments":{"b":2}}}`, refused: true},
	{line: `{"jsonrpc":"2.0","id":11,"id":12,"method":"ping"}`, refused: true},
}

// readByGateway is what the gateway reads of a smuggled line, in the
// shape the node script prints.
func readByGateway(t *testing.T, line string) map[string]any {
	m, err := parseMessage([]byte(line))
	if err != nil {
		t.Fatalf("%s: refused: %v", line, err)
	}
	out := map[string]any{"method": m.Method}
	if m.Params != nil {
		var p callParams
		if err := exactjson.DecodeChecked(m.Params, &p); err != nil {
			t.Fatal(err)
		}
		args := map[string]any{}
		for k, v := range p.Arguments {
			var x any
			_ = json.Unmarshal(v, &x)
			args[k] = x
		}
		out["name"], out["arguments"] = p.Name, args
	}
	if m.Result != nil {
		var r callResult
		if err := exactjson.DecodeChecked(m.Result, &r); err != nil {
			t.Fatal(err)
		}
		var texts []any
		for _, c := range r.Content {
			texts = append(texts, c.Text)
		}
		out["texts"], out["isError"] = texts, r.IsError
	}
	return out
}

// nodeReads is the same, from JSON.parse (the TypeScript SDK's reading).
const nodeReads = `
const lines = require('fs').readFileSync(0, 'utf8').split('\n').filter(Boolean);
for (const l of lines) {
  const m = JSON.parse(l);
  const out = {method: m.method ?? ''};
  if (m.params !== undefined) { out.name = m.params.name ?? ''; out.arguments = m.params.arguments ?? {}; }
  if (m.result !== undefined) { out.texts = (m.result.content ?? []).map(c => c.text ?? ''); out.isError = m.result.isError ?? false; }
  console.log(JSON.stringify(out));
}
`

// TestSmuggledNamesReadAsJSONParse checks the gateway's reading of each
// smuggled line against node's JSON.parse, and that it refuses the lines
// whose repeated names JSON.parse and Go resolve differently.
func TestSmuggledNamesReadAsJSONParse(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		sharedtest.Missing(t, "node")
	}
	var in bytes.Buffer
	var accepted []string
	goDiffers := map[string]bool{}
	for _, s := range smuggled {
		_, err := parseMessage([]byte(s.line))
		var e *exactjson.RepeatedNameError
		if s.refused {
			if !errors.As(err, &e) {
				t.Errorf("%s: want refused for a repeated name, got %v", s.line, err)
			}
			continue
		}
		accepted = append(accepted, s.line)
		goDiffers[s.line] = s.goDiffers
		in.WriteString(s.line + "\n")
	}
	script := filepath.Join(t.TempDir(), "reads.js")
	if err := os.WriteFile(script, []byte(nodeReads), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(node, script)
	cmd.Stdin = &in
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v", err)
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for i := 0; sc.Scan(); i++ {
		var want map[string]any
		if err := json.Unmarshal(sc.Bytes(), &want); err != nil {
			t.Fatal(err)
		}
		got := readByGateway(t, accepted[i])
		gotJSON, _ := json.Marshal(got)
		var gotNorm map[string]any
		_ = json.Unmarshal(gotJSON, &gotNorm)
		if !reflect.DeepEqual(gotNorm, want) {
			t.Errorf("%s:\n gateway reads %s\n JSON.parse    %s", accepted[i], gotJSON, sc.Bytes())
		}
		if !goDiffers[accepted[i]] {
			continue
		}
		// And the stdlib reads it otherwise: the case the line covers.
		var std callParams
		var stdRes callResult
		m := new(message)
		_ = json.Unmarshal([]byte(accepted[i]), m)
		_ = json.Unmarshal(m.Params, &std)
		_ = json.Unmarshal(m.Result, &stdRes)
		sameParams := m.Params == nil || std.Name == got["name"] && reflect.DeepEqual(argsOf(std), got["arguments"])
		sameResult := m.Result == nil || len(stdRes.Content) > 0 && stdRes.Content[0].Text == "ATTACK" && stdRes.IsError == got["isError"]
		if sameParams && sameResult {
			t.Errorf("%s: encoding/json reads it as the gateway does; the case tests nothing", accepted[i])
		}
	}
	if err := sc.Err(); err != nil && err != io.EOF {
		t.Fatal(err)
	}
}

func argsOf(p callParams) map[string]any {
	args := map[string]any{}
	for k, v := range p.Arguments {
		var x any
		_ = json.Unmarshal(v, &x)
		args[k] = x
	}
	return args
}

// FuzzParseMessage: any line is parsed or refused without a panic, and an
// accepted message re-wrapped for forwarding (envelope) parses back to the
// same members, byte for byte.
func FuzzParseMessage(f *testing.F) {
	for _, s := range smuggled {
		f.Add([]byte(s.line))
	}
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":"a","result":{"content":[]}}`,
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}`,
		`{"jsonrpc":"1.0","id":7,"method":"tools/list"}`,
		`[{"jsonrpc":"2.0","id":8,"method":"tools/list"}]`,
		`{not json`,
		`{"jsonrpc":"2.0","id":1,"method":"a\u0000b","params":[1,{"x":"\ud800"}]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		m, err := parseMessage(line)
		if err != nil {
			return
		}
		again, err := parseMessage(envelope(m.ID, m))
		if err != nil {
			t.Fatalf("%q: re-wrapped %q is refused: %v", line, envelope(m.ID, m), err)
		}
		if again.Method != m.Method || !bytes.Equal(again.ID, m.ID) || !bytes.Equal(again.Params, m.Params) || !bytes.Equal(again.Result, m.Result) || !bytes.Equal(again.Error, m.Error) {
			t.Fatalf("%q: re-wrapped as %q, members differ", line, envelope(m.ID, m))
		}
	})
}
