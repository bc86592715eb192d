package main

import (
	"bytes"
	"io"
	"os"

	"github.com/charmbracelet/x/term"

	"github.com/memscope/memscope/internal/present/sanitize"
)

// termWriter is the last line of defence between evidence and a terminal:
// every line written through it passes sanitize.SafeBlock, so an escape
// sequence, bidi control or invisible rune that some output path forgot to
// sanitise still reaches the terminal only as visible notation. Output that
// was already sanitised passes unchanged (sanitize leaves clean text as
// is). Lines are buffered so a rune split across writes is seen whole.
type termWriter struct {
	w   io.Writer
	buf []byte
}

// maxPendingLine flushes an endless line in pieces rather than holding it.
const maxPendingLine = 1 << 20

func (t *termWriter) Write(p []byte) (int, error) {
	t.buf = append(t.buf, p...)
	for {
		i := bytes.IndexByte(t.buf, '\n')
		if i < 0 {
			break
		}
		if _, err := io.WriteString(t.w, sanitize.SafeBlock(string(t.buf[:i]), sanitize.DefaultTabWidth)+"\n"); err != nil {
			return 0, err
		}
		t.buf = t.buf[i+1:]
	}
	if len(t.buf) > maxPendingLine {
		if err := t.Flush(); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}

// Flush writes a final line without its newline.
func (t *termWriter) Flush() error {
	if len(t.buf) == 0 {
		return nil
	}
	_, err := io.WriteString(t.w, sanitize.SafeBlock(string(t.buf), sanitize.DefaultTabWidth))
	t.buf = t.buf[:0]
	return err
}

// rawStdout lists the commands whose stdout is not text lines: the
// terminal inspector draws with escape sequences of its own; record's
// stdout is the agent's JSON-RPC channel, forwarded byte for byte.
var rawStdout = map[string]bool{"inspect": true, "demo": true, "report": true, "record": true, "watch": true}

// clipColumns says stdout is a terminal, where table cells are cut to
// their column (clip); run sets it for each command.
var clipColumns bool

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(f.Fd())
}
