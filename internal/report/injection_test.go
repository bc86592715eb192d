package report

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/memscope/memscope/internal/assemble"
	"github.com/memscope/memscope/internal/generators/importer"
)

// hostile carries every way evidence text could try to become active in
// a page: script, leaving the stylesheet, javascript: and data: links,
// SVG and image event handlers, CSS url() (an outbound request), template
// syntax, a CDATA end, bidi overrides and terminal escapes.
const hostile = `<script>alert(1)</script></style><style>body{background:url(https://evil.example/u.png)}</style>` +
	`<a href="javascript:alert(1)">x</a><a href=data:text/html,1>d</a><svg onload=alert(1)><img src=x onerror=alert(1)>` +
	"<iframe src=//evil.example></iframe>{{.}}]]>\u202Egnp.exe\u202C\u200B\x1b]8;;https://evil.example\x07link\x1b]8;;\x07\x9b31m"

// checkInert fails when anything in page could run, load or restyle: a
// tag the template does not write, an event handler, a script or
// javascript: URL, a second stylesheet, a url() or a raw control, bidi
// or invisible character.
func checkInert(t *testing.T, page []byte) {
	t.Helper()
	allowed := map[string]bool{"html": true, "head": true, "meta": true, "title": true, "style": true, "body": true, "header": true,
		"div": true, "h1": true, "h2": true, "h3": true, "h4": true, "dl": true, "dt": true, "dd": true, "nav": true, "a": true,
		"section": true, "p": true, "q": true, "span": true, "strong": true, "ol": true, "li": true, "table": true, "thead": true,
		"tbody": true, "tr": true, "b": true, "th": true, "td": true, "code": true, "br": true, "figure": true, "figcaption": true, "svg": true,
		"line": true, "polyline": true, "circle": true, "polygon": true, "text": true, "tspan": true}
	tag := regexp.MustCompile(`<(/?)([A-Za-z][A-Za-z0-9]*)([^>]*)>`)
	attr := regexp.MustCompile(`\s([^\s=/>]+)(?:=("[^"]*"|'[^']*'|[^\s>]+))?`)
	for _, m := range tag.FindAllSubmatch(page, -1) {
		name := strings.ToLower(string(m[2]))
		if !allowed[name] {
			t.Errorf("element <%s> is on the page", name)
		}
		for _, a := range attr.FindAllSubmatch(m[3], -1) {
			an := strings.ToLower(string(a[1]))
			val := strings.ToLower(string(a[2]))
			if strings.HasPrefix(an, "on") {
				t.Errorf("event handler attribute %s=%s on <%s>", an, val, name)
			}
			if an == "style" || an == "src" {
				t.Errorf("attribute %s on <%s>", an, name)
			}
			if an == "href" && !strings.HasPrefix(strings.Trim(val, `"'`), "#") {
				t.Errorf("link to %s: only in-page links are allowed", val)
			}
		}
	}
	if n := bytes.Count(bytes.ToLower(page), []byte("</style")); n != 1 {
		t.Errorf("%d stylesheet ends, want exactly the report's own", n)
	}
	if bytes.Contains(bytes.ToLower(page), []byte("<script")) {
		t.Error("a script element is on the page")
	}
	// Text may say url( harmlessly; the stylesheet must not.
	if _, rest, ok := bytes.Cut(page, []byte("<style>")); ok {
		if sheet, _, _ := bytes.Cut(rest, []byte("</style>")); bytes.Contains(sheet, []byte("url(")) {
			t.Error("the stylesheet loads a url()")
		}
	}
	if !utf8.Valid(page) {
		t.Error("the page is not valid UTF-8")
	}
	for i, r := range string(page) {
		if r != '\n' && (unicode.IsControl(r) || unicode.Is(unicode.Cf, r)) {
			t.Errorf("raw character %U at byte %d", r, i)
			break
		}
	}
}

// fillText sets every Text field reachable from v to payload plus a
// marker naming the field, so a field added later is covered too.
func fillText(v reflect.Value, payload string, n *int) {
	textType := reflect.TypeOf(Text(""))
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			if !v.CanSet() {
				return
			}
			v.Set(reflect.New(v.Type().Elem()))
		}
		fillText(v.Elem(), payload, n)
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				fillText(v.Field(i), payload, n)
			}
		}
	case reflect.Slice:
		if v.Len() == 0 && v.CanSet() {
			v.Set(reflect.MakeSlice(v.Type(), 1, 1))
		}
		for i := 0; i < v.Len(); i++ {
			fillText(v.Index(i), payload, n)
		}
	case reflect.String:
		if v.Type() == textType && v.CanSet() {
			*n++
			v.SetString(fmt.Sprintf("%s#%d", payload, *n))
		}
	}
}

func TestInjectionEveryField(t *testing.T) {
	t.Parallel()
	c, _, _ := buildCase(t, "sleeper", true)
	// Keep the sections that are drawn only when present, then make every
	// evidence string hostile, drawings' labels included.
	c.Timeline = &TimelineSection{Total: 1}
	c.Replay.Available = true
	n := 0
	fillText(reflect.ValueOf(c), hostile, &n)
	for _, r := range c.Lineage.Refused {
		for _, e := range r.Entries {
			if e.Drawing != nil {
				for i := range e.Drawing.Nodes {
					e.Drawing.Nodes[i].Label = Text(hostile)
				}
			}
		}
	}
	var page, js bytes.Buffer
	if err := WriteHTML(&page, c); err != nil {
		t.Fatal(err)
	}
	checkInert(t, page.Bytes())
	// The values reached the page as text, with visible escapes.
	for _, want := range []string{"&lt;script&gt;alert(1)&lt;/script&gt;", `<span class="esc" title="hidden or control character, shown escaped">&lt;U&#43;202E&gt;</span>`, `<span class="esc" title="hidden or control character, shown escaped">\e</span>`} {
		if !bytes.Contains(page.Bytes(), []byte(want)) {
			t.Errorf("page lacks %s", want)
		}
	}
	if err := WriteJSON(&js, c); err != nil {
		t.Fatal(err)
	}
	if bytes.ContainsAny(js.Bytes(), "<>\u202E\x1b") {
		t.Error("the case file carries a raw <, >, bidi override or ESC")
	}
	var back map[string]any
	if err := json.Unmarshal(js.Bytes(), &back); err != nil {
		t.Fatalf("case file: %v", err)
	}
}

// TestInjectionStore writes a real store whose contents are hostile (with
// the importer, from the importer's small fixture with its texts, ids and
// writers replaced) and checks the report of it.
func TestInjectionStore(t *testing.T) {
	t.Parallel()
	c := hostileCase(t, hostile)
	var page bytes.Buffer
	if err := WriteHTML(&page, c); err != nil {
		t.Fatal(err)
	}
	checkInert(t, page.Bytes())
	// The hostile values are on the page as text: the diverging query,
	// its passages and the culprit writer.
	if c.Replay.Diverge == 0 || len(c.Replay.Details) == 0 {
		t.Fatal("the hostile store's attacked query does not diverge")
	}
	for _, want := range []string{"agent:&lt;/style&gt;&lt;script&gt;alert(1)&lt;/script&gt;", "p-payee&lt;svg/onload=alert(1)&gt;", "&lt;U&#43;202E&gt;gnp.exe"} {
		if !bytes.Contains(page.Bytes(), []byte(want)) {
			t.Errorf("page lacks the escaped value %s", want)
		}
	}
}

// evilID and evilWriter are names the record format allows (printable
// ASCII without spaces) that still carry markup.
const (
	evilID     = "p-payee<svg/onload=alert(1)>"
	evilWriter = "agent:</style><script>alert(1)</script>"
)

// hostileCase imports a store whose passages and queries carry payload,
// whose attacked passage has a markup id and whose attacker has a markup
// name, and builds its case.
func hostileCase(t *testing.T, payload string) *Case {
	t.Helper()
	dir := t.TempDir()
	rewrite := func(name string, edit func(map[string]any)) string {
		in, err := os.ReadFile(filepath.Join("..", "generators", "importer", "testdata", "small", name))
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		sc := bufio.NewScanner(bytes.NewReader(in))
		for sc.Scan() {
			var row map[string]any
			if err := json.Unmarshal(sc.Bytes(), &row); err != nil {
				t.Fatal(err)
			}
			edit(row)
			b, err := json.Marshal(row)
			if err != nil {
				t.Fatal(err)
			}
			out.Write(append(b, '\n'))
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	swap := func(v any) any {
		if s, ok := v.(string); ok && s == "p-payee" {
			return evilID
		}
		return v
	}
	nodes := rewrite("nodes.jsonl", func(r map[string]any) {
		r["id"] = swap(r["id"])
		r["text"] = payload + " " + r["text"].(string)
	})
	edges := rewrite("edges.jsonl", func(r map[string]any) {
		r["src"], r["dst"] = swap(r["src"]), swap(r["dst"])
		if r["writer"] == "agent:peer" {
			r["writer"] = evilWriter
		}
		if src, ok := r["sources"].([]any); ok {
			for i := range src {
				src[i] = swap(src[i])
			}
		}
	})
	queries := rewrite("queries.jsonl", func(r map[string]any) {
		r["text"] = payload + " " + r["text"].(string)
		for _, key := range []string{"reset", "dense"} {
			if m, ok := r[key].(map[string]any); ok {
				if v, ok := m["p-payee"]; ok {
					delete(m, "p-payee")
					m[evilID] = v
				}
			}
		}
		if sel, ok := r["selected"].([]any); ok {
			for i := range sel {
				sel[i] = swap(sel[i])
			}
		}
	})
	out := filepath.Join(dir, "store")
	man, err := importer.Import(context.Background(), importer.Options{Nodes: nodes, Edges: edges, Queries: queries, Out: out, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	s, err := assemble.Open(context.Background(), assemble.Options{Snapshot: filepath.Join(out, man.Snapshot), Log: filepath.Join(out, man.Log), Title: payload})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if err := s.Load(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	c, err := Build(context.Background(), s, Options{Inputs: []Input{{Role: "snapshot", Path: filepath.Join(out, man.Snapshot)}},
		Command: []string{"memscope", "report", payload}, Version: "test", Now: fixedClock})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// Every demo scenario's report builds, renders and is inert.
func TestEveryScenarioInert(t *testing.T) {
	t.Parallel()
	for _, name := range scenarioNames {
		c, page, js := buildCase(t, name, true)
		checkInert(t, page)
		if c.Verdict.Headline == "" || len(c.Verdict.Paragraph) == 0 || !json.Valid(js) {
			t.Errorf("%s: empty verdict or invalid case file", name)
		}
	}
}
