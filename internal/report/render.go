package report

import (
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"fmt"
	"html/template"
	"io"
	"strings"

	"github.com/memscope/memscope/internal/present/idform"
	"github.com/memscope/memscope/internal/present/jsonout"
	"github.com/memscope/memscope/internal/present/sanitize"
)

//go:embed report.css
var css string

//go:embed report.html.tmpl
var pageText string

// CSP is the page's Content-Security-Policy: nothing may load (no script,
// font, image, frame or connection), and the only style allowed is the
// report's own stylesheet, pinned by its hash, so even an injected style
// attribute would not apply.
var CSP = func() string {
	sum := sha256.Sum256([]byte(css))
	return "default-src 'none'; style-src 'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'; img-src 'none'; font-src 'none'; base-uri 'none'; form-action 'none'"
}()

type piece struct {
	Esc  bool
	Text string
}

var page = template.Must(template.New("report").Funcs(template.FuncMap{
	"pieces": func(t Text) []piece {
		ps := t.Pieces()
		out := make([]piece, len(ps))
		for i, p := range ps {
			out[i] = piece{Esc: p.Kind == sanitize.Escape, Text: p.Text}
		}
		return out
	},
	"suspicious": func(t Text) string { return t.Suspicious() },
	"idClass":    idClass,
	"decisionClass": func(d string) string {
		switch d {
		case "allow", "accept":
			return "good"
		case "not checked", "":
			return "muted"
		}
		return "bad"
	},
	"cut":   func(t Text, n int) Text { return Text(cutRunes(string(t), n)) },
	"plain": func(t Text) string { return sanitize.Line(string(t)) },
	"f2":    func(x float64) string { return fmt.Sprintf("%.2f", x) },
	"f4":    func(x float64) string { return fmt.Sprintf("%.4f", x) },
	"add":   func(a, b int) int { return a + b },
	"mul":   func(a, b int) int { return a * b },
	"pct":   func(x float64) string { return fmt.Sprintf("%.0f%%", 100*x) },
	"sub":   func(a, b int) int { return a - b },
	"upper": strings.ToUpper,
	"short": func(h string) string { return idform.Head(h, 16) },
	"levelText": func(l Level) string {
		switch l {
		case LevelCompromise:
			return "▲ COMPROMISE INDICATED"
		case LevelNotChecked:
			return "■ NOT CHECKED"
		}
		return "● NO FINDING"
	},
}).Parse(pageText))

// longToken is the longest run without a break opportunity that a cell
// may keep whole; a longer one (a hash, a hostile id) may break anywhere,
// so no table grows wider than the page.
const longToken = 28

// shortID is the length up to which an identifier is never broken.
const shortID = 16

// idClass styles an identifier cell: whole words normally, breakable
// anywhere when it holds a long unbroken run.
func idClass(t Text) string {
	if len(t) <= shortID && !strings.ContainsAny(string(t), " \t") {
		return "id nw"
	}
	run := 0
	for _, r := range string(t) {
		if r == '-' || r == ' ' || r == '/' || r == ':' || r == '_' || r == '.' {
			run = 0
			continue
		}
		if run++; run > longToken {
			return "id brk"
		}
	}
	return "id"
}

// inputRow is one line of the evidence table: a file, or a directory
// summarised (its files are listed in the appendix).
type inputRow struct {
	Role   string
	Path   Text
	Files  int
	Bytes  int64
	SHA256 string
	Note   string
}

type view struct {
	C           *Case
	CSS         template.CSS
	CSP         string
	InputRows   []inputRow
	GlossaryNum string
	ExposureNum string
}

// WriteHTML renders the case as one self-contained page.
func WriteHTML(w io.Writer, c *Case) error {
	// Sections after lineage (6) are numbered by which are present.
	next := 7
	if c.Timeline != nil {
		next++
	}
	v := view{C: c, CSS: template.CSS(css), CSP: CSP}
	if c.Exposure != nil {
		v.ExposureNum = fmt.Sprint(next)
		next++
	}
	v.GlossaryNum = fmt.Sprint(next)
	for _, f := range c.Evidence.Inputs {
		if f.Under != "" {
			if n := len(v.InputRows); n > 0 && v.InputRows[n-1].Path == f.Under && v.InputRows[n-1].Role == f.Role {
				v.InputRows[n-1].Files++
				v.InputRows[n-1].Bytes += f.Size
				continue
			}
			v.InputRows = append(v.InputRows, inputRow{Role: f.Role, Path: f.Under, Files: 1, Bytes: f.Size, Note: "directory: one SHA-256 per file in the appendix"})
			continue
		}
		v.InputRows = append(v.InputRows, inputRow{Role: f.Role, Path: f.Path, Files: 1, Bytes: f.Size, SHA256: f.SHA256, Note: f.Note})
	}
	var buf bytes.Buffer
	if err := page.Execute(&buf, v); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	_, err := w.Write(buf.Bytes())
	return err
}

// WriteJSON writes the case file with memscope's one JSON encoder (package
// jsonout), as the CLI writes its answers: indented, keys sorted, every
// string sanitised, <, > and & escaped.
func WriteJSON(w io.Writer, c *Case) error {
	b, err := jsonout.Marshal(c)
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	_, err = w.Write(b)
	return err
}
