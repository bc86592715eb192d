package report

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/memscope/memscope/internal/sharedtest"
)

// The browser test opens reports in headless Chromium (Debian's chromium
// package) through the DevTools protocol over a pipe: it records every
// network request the page makes, measures where the verdict and the
// attacked query are on the first screen, and prints the page to PDF on A4
// and Letter. Without chromium it is skipped, unless MEMSCOPE_BROWSER_TEST
// is set (as .ci/run sets it), where a missing browser fails.

var shotDir = flag.String("screenshot", "", "write the browser test's first-screen screenshots (PNG) into this directory")

func chromium(t *testing.T) string { return sharedtest.Chromium(t) }

// cdp is one DevTools session over --remote-debugging-pipe.
type cdp struct {
	w       *os.File
	next    atomic.Int64
	mu      sync.Mutex
	waiting map[int64]chan cdpMsg
	events  chan cdpMsg
	session string
}

type cdpMsg struct {
	ID     int64           `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  *struct {
		Message string `json:"message"`
	} `json:"error,omitempty"`
	SessionID string `json:"sessionId,omitempty"`
}

func startChromium(t *testing.T, ctx context.Context, bin string) *cdp {
	t.Helper()
	toR, toW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	fromR, fromW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(ctx, bin, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-extensions",
		"--user-data-dir="+t.TempDir(), "--hide-scrollbars", "--remote-debugging-pipe", "about:blank")
	cmd.ExtraFiles = []*os.File{toR, fromW} // fd 3: commands in, fd 4: replies out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	toR.Close()
	fromW.Close()
	c := &cdp{w: toW, waiting: map[int64]chan cdpMsg{}, events: make(chan cdpMsg, 4096)}
	t.Cleanup(func() {
		toW.Close()
		if cmd.Process != nil {
			cmd.Process.Kill()
		}
		cmd.Wait()
	})
	go func() {
		r := bufio.NewReader(fromR)
		for {
			raw, err := r.ReadBytes(0)
			if err != nil {
				close(c.events)
				return
			}
			var m cdpMsg
			if json.Unmarshal(raw[:len(raw)-1], &m) != nil {
				continue
			}
			if m.ID != 0 {
				c.mu.Lock()
				ch := c.waiting[m.ID]
				delete(c.waiting, m.ID)
				c.mu.Unlock()
				if ch != nil {
					ch <- m
				}
				continue
			}
			select {
			case c.events <- m:
			default: // a flood of events must not block replies
			}
		}
	}()
	return c
}

func (c *cdp) call(ctx context.Context, method string, params any, out any) error {
	id := c.next.Add(1)
	ch := make(chan cdpMsg, 1)
	c.mu.Lock()
	c.waiting[id] = ch
	c.mu.Unlock()
	msg := map[string]any{"id": id, "method": method}
	if params != nil {
		msg["params"] = params
	}
	if c.session != "" && !strings.HasPrefix(method, "Target.") {
		msg["sessionId"] = c.session
	}
	b, _ := json.Marshal(msg)
	if _, err := c.w.Write(append(b, 0)); err != nil {
		return err
	}
	select {
	case m := <-ch:
		if m.Error != nil {
			return fmt.Errorf("%s: %s", method, m.Error.Message)
		}
		if out != nil {
			return json.Unmarshal(m.Result, out)
		}
		return nil
	case <-ctx.Done():
		return fmt.Errorf("%s: %w", method, ctx.Err())
	}
}

// loaded is what the test learns from one page load.
type loaded struct {
	Requests []string // every URL the page asked for
	Facts    pageFacts
	PNG      []byte
	PDF      map[string][]byte // by paper size
	// Overflow lists, per paper size, the elements wider than the page.
	Overflow map[string][]string
}

// overflowJS lists elements that stick out of the page or clip their
// content horizontally.
const overflowJS = `(() => {
  const right = document.documentElement.clientWidth + 0.5;
  const bad = [];
  for (const e of document.querySelectorAll('body *')) {
    const r = e.getBoundingClientRect();
    if (r.width === 0) continue;
    if (r.right > right || (e.scrollWidth > e.clientWidth + 1 && getComputedStyle(e).overflowX !== 'visible')) {
      bad.push(e.tagName + '.' + e.className + ' ' + (e.textContent || '').slice(0, 40));
    }
  }
  return JSON.stringify(bad.slice(0, 10));
})()`

type pageFacts struct {
	Scripts      int     `json:"scripts"`
	Handlers     int     `json:"handlers"`
	OuterLinks   int     `json:"outer_links"`
	CSP          string  `json:"csp"`
	ViewHeight   float64 `json:"view_height"`
	ParaTop      float64 `json:"para_top"`
	ParaBottom   float64 `json:"para_bottom"`
	ParaText     string  `json:"para_text"`
	QuoteBottoms []float64
	Quotes       []string `json:"quotes"`
	ScrollWidth  float64  `json:"scroll_width"`
	ClientWidth  float64  `json:"client_width"`
}

// factsJS measures the page. It runs through DevTools, which the page's
// CSP does not govern; the page itself can run no script.
const factsJS = `(() => {
  const r = s => document.querySelector(s).getBoundingClientRect();
  const qs = [...document.querySelectorAll('#verdict .para q')];
  return JSON.stringify({
    scripts: document.scripts.length,
    handlers: [...document.querySelectorAll('*')].filter(e => [...e.attributes].some(a => a.name.toLowerCase().startsWith('on'))).length,
    outer_links: [...document.querySelectorAll('[href],[src],[xlink\\:href]')].filter(e => !(e.getAttribute('href') || '').startsWith('#')).length,
    csp: (document.querySelector('meta[http-equiv="Content-Security-Policy"]') || {}).content || '',
    view_height: innerHeight,
    para_top: r('#verdict .para').top, para_bottom: r('#verdict .para').bottom,
    para_text: document.querySelector('#verdict .para').innerText,
    QuoteBottoms: qs.map(q => q.getBoundingClientRect().bottom),
    quotes: qs.map(q => q.innerText),
    scroll_width: document.documentElement.scrollWidth, client_width: document.documentElement.clientWidth,
  });
})()`

func load(t *testing.T, bin, path string) loaded {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	c := startChromium(t, ctx, bin)
	var targets struct {
		TargetInfos []struct {
			TargetID string `json:"targetId"`
			Type     string `json:"type"`
		} `json:"targetInfos"`
	}
	if err := c.call(ctx, "Target.getTargets", nil, &targets); err != nil {
		t.Fatal(err)
	}
	var page string
	for _, ti := range targets.TargetInfos {
		if ti.Type == "page" {
			page = ti.TargetID
		}
	}
	if page == "" {
		t.Fatal("chromium has no page target")
	}
	var att struct {
		SessionID string `json:"sessionId"`
	}
	if err := c.call(ctx, "Target.attachToTarget", map[string]any{"targetId": page, "flatten": true}, &att); err != nil {
		t.Fatal(err)
	}
	c.session = att.SessionID
	for _, m := range []struct {
		method string
		params any
	}{
		{"Network.enable", nil},
		{"Page.enable", nil},
		// The first screen of a laptop: 1280 x 800 CSS pixels.
		{"Emulation.setDeviceMetricsOverride", map[string]any{"width": 1280, "height": 800, "deviceScaleFactor": 1, "mobile": false}},
	} {
		if err := c.call(ctx, m.method, m.params, nil); err != nil {
			t.Fatal(err)
		}
	}
	url := "file://" + path
	if err := c.call(ctx, "Page.navigate", map[string]any{"url": url}, nil); err != nil {
		t.Fatal(err)
	}
	var out loaded
	for done := false; !done; {
		select {
		case m, ok := <-c.events:
			if !ok {
				t.Fatal("chromium closed the pipe")
			}
			switch m.Method {
			case "Network.requestWillBeSent":
				var p struct {
					Request struct {
						URL string `json:"url"`
					} `json:"request"`
				}
				json.Unmarshal(m.Params, &p)
				out.Requests = append(out.Requests, p.Request.URL)
			case "Page.loadEventFired":
				done = true
			}
		case <-ctx.Done():
			t.Fatal("the page did not load")
		}
	}
	var ev struct {
		Result struct {
			Value string `json:"value"`
		} `json:"result"`
		ExceptionDetails any `json:"exceptionDetails"`
	}
	if err := c.call(ctx, "Runtime.evaluate", map[string]any{"expression": factsJS, "returnByValue": true}, &ev); err != nil || ev.ExceptionDetails != nil {
		t.Fatalf("measuring the page: %v %v", err, ev.ExceptionDetails)
	}
	if err := json.Unmarshal([]byte(ev.Result.Value), &out.Facts); err != nil {
		t.Fatal(err)
	}
	var shot struct {
		Data string `json:"data"`
	}
	if err := c.call(ctx, "Page.captureScreenshot", map[string]any{"format": "png"}, &shot); err != nil {
		t.Fatal(err)
	}
	out.PNG, _ = base64.StdEncoding.DecodeString(shot.Data)
	// Print layout at each paper's text width: nothing may stick out of
	// the page (a clipped table loses its right-hand columns on paper).
	out.Overflow = map[string][]string{}
	for name, widthPx := range map[string]int{"A4": 695, "Letter": 718} {
		for _, m := range []struct {
			method string
			params any
		}{
			{"Emulation.setEmulatedMedia", map[string]any{"media": "print"}},
			{"Emulation.setDeviceMetricsOverride", map[string]any{"width": widthPx, "height": 1000, "deviceScaleFactor": 1, "mobile": false}},
		} {
			if err := c.call(ctx, m.method, m.params, nil); err != nil {
				t.Fatal(err)
			}
		}
		var ov struct {
			Result struct {
				Value string `json:"value"`
			} `json:"result"`
		}
		if err := c.call(ctx, "Runtime.evaluate", map[string]any{"expression": overflowJS, "returnByValue": true}, &ov); err != nil {
			t.Fatal(err)
		}
		var list []string
		json.Unmarshal([]byte(ov.Result.Value), &list)
		out.Overflow[name] = list
	}
	out.PDF = map[string][]byte{}
	for name, size := range map[string][2]float64{"A4": {8.27, 11.69}, "Letter": {8.5, 11}} {
		var pdf struct {
			Data string `json:"data"`
		}
		if err := c.call(ctx, "Page.printToPDF", map[string]any{"paperWidth": size[0], "paperHeight": size[1], "printBackground": true,
			"displayHeaderFooter": false, "preferCSSPageSize": false}, &pdf); err != nil {
			t.Fatal(err)
		}
		out.PDF[name], _ = base64.StdEncoding.DecodeString(pdf.Data)
	}
	// Requests made while printing count too.
	for {
		select {
		case m, ok := <-c.events:
			if ok && m.Method == "Network.requestWillBeSent" {
				var p struct {
					Request struct {
						URL string `json:"url"`
					} `json:"request"`
				}
				json.Unmarshal(m.Params, &p)
				out.Requests = append(out.Requests, p.Request.URL)
			}
			if ok {
				continue
			}
		default:
		}
		break
	}
	return out
}

func pdfText(t *testing.T, pdf []byte) string {
	t.Helper()
	if _, err := exec.LookPath("pdftotext"); err != nil {
		if os.Getenv("MEMSCOPE_BROWSER_TEST") != "" {
			t.Fatal("pdftotext (poppler-utils) is not installed")
		}
		t.Skip("pdftotext not installed (apt-get install poppler-utils)")
	}
	cmd := exec.Command("pdftotext", "-enc", "UTF-8", "-", "-")
	cmd.Stdin = bytes.NewReader(pdf)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("pdftotext: %v", err)
	}
	return string(out)
}

// runNamed reports whether -run names the test explicitly.
func runNamed(name string) bool {
	f := flag.Lookup("test.run")
	return f != nil && strings.Contains(f.Value.String(), name)
}

func TestBrowser(t *testing.T) {
	t.Parallel()
	// A browser start costs seconds on a loaded machine: the test runs when
	// asked for (.ci/run sets MEMSCOPE_BROWSER_TEST=1) or when -run names it.
	if os.Getenv("MEMSCOPE_BROWSER_TEST") == "" && !runNamed("TestBrowser") {
		t.Skip("set MEMSCOPE_BROWSER_TEST=1 (or -run TestBrowser) to render the reports in headless Chromium")
	}
	bin := chromium(t)
	// A trap server: any request to it means the page loaded something.
	var hits atomic.Int64
	trap := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	defer trap.Close()
	trapPayload := hostile + fmt.Sprintf(`<img src="%[1]s/img"><link rel=stylesheet href="%[1]s/css"><script src="%[1]s/js"></script>`+
		`<style>@import "%[1]s/imp"; body{background:url(%[1]s/bg)}</style><svg><image href="%[1]s/svg"/></svg><meta http-equiv=refresh content="0;url=%[1]s/go">`, trap.URL)

	// Every demo scenario (the attacked query, where the manifest names
	// one, must be on the first screen) and the hostile store.
	type browserCase struct {
		name  string
		build func(t *testing.T) (*Case, string) // the case and its attacked query text
	}
	var cases []browserCase
	for _, name := range scenarioNames {
		cases = append(cases, browserCase{name, func(t *testing.T) (*Case, string) {
			c, _, _ := buildCase(t, name, true)
			_, m := scenarioDir(t, name)
			if m.Attack == nil || m.Attack.Query == "" {
				return c, ""
			}
			for _, d := range c.Replay.Details {
				if string(d.ID) == m.Attack.Query {
					return c, string(d.Text)
				}
			}
			t.Fatalf("attacked query %s is not among the report's diverging queries", m.Attack.Query)
			return nil, ""
		}})
	}
	cases = append(cases, browserCase{"hostile", func(t *testing.T) (*Case, string) { return hostileCase(t, trapPayload), "" }})
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, query := tc.build(t)
			path := filepath.Join(t.TempDir(), "report.html")
			if err := Files(c, path, ""); err != nil {
				t.Fatal(err)
			}
			got := load(t, bin, path)
			// Nothing but the page itself was requested.
			if len(got.Requests) != 1 || got.Requests[0] != "file://"+path {
				t.Errorf("the page requested %q, want only itself", got.Requests)
			}
			f := got.Facts
			if f.Scripts != 0 || f.Handlers != 0 || f.OuterLinks != 0 {
				t.Errorf("active content in the DOM: %d scripts, %d event handlers, %d outside links", f.Scripts, f.Handlers, f.OuterLinks)
			}
			if !strings.Contains(f.CSP, "default-src 'none'") {
				t.Errorf("CSP %q", f.CSP)
			}
			if f.ScrollWidth > f.ClientWidth {
				t.Errorf("the page is wider than the window (%v > %v): something is clipped or overflows", f.ScrollWidth, f.ClientWidth)
			}
			// The verdict paragraph is on the first screen.
			if f.ParaTop < 0 || f.ParaBottom > f.ViewHeight || f.ParaText == "" {
				t.Errorf("verdict paragraph at %v..%v, first screen is %v high", f.ParaTop, f.ParaBottom, f.ViewHeight)
			}
			if query != "" {
				on := false
				for i, q := range f.Quotes {
					on = on || strings.Contains(q, query) && f.QuoteBottoms[i] <= f.ViewHeight
				}
				if !on {
					t.Errorf("the attacked query %q is not quoted on the first screen (quotes %q at %v)", query, f.Quotes, f.QuoteBottoms)
				}
			}
			if *shotDir != "" {
				if err := os.WriteFile(filepath.Join(*shotDir, "report-"+tc.name+".png"), got.PNG, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if len(got.PNG) < 1000 {
				t.Error("no screenshot")
			}
			for paper, list := range got.Overflow {
				if len(list) > 0 {
					t.Errorf("%s print layout: elements wider than the page: %q", paper, list)
				}
			}
			for paper, pdf := range got.PDF {
				text := pdfText(t, pdf)
				last := -1
				heads := []string{"Verdict", "Evidence", "Integrity findings", "Actions: what each defence would have said",
					"Selection replay: G and G_auth", "Lineage behind refused actions", "Glossary", "Appendix: every input file"}
				if c.Exposure != nil {
					heads = slices.Insert(heads, 6, "Exposure and the other papers' defences")
				}
				if c.Timeline != nil {
					heads = slices.Insert(heads, 6, "Timeline")
				}
				for _, h := range heads {
					i := strings.Index(text, h)
					if i < 0 || i < last {
						t.Errorf("%s PDF: section %q missing or out of order", paper, h)
					}
					last = max(last, i)
				}
				if pages := bytes.Count(pdf, []byte("/Type /Page\n")) + bytes.Count(pdf, []byte("/Type/Page")); pages < 2 {
					t.Logf("%s PDF: %d pages counted", paper, pages)
				}
			}
		})
	}
	t.Cleanup(func() {
		if n := hits.Load(); n != 0 {
			t.Errorf("the hostile page made %d request(s) to the trap server", n)
		}
	})
}
