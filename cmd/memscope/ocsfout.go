package main

import (
	"io"
	"os"
	"time"

	"github.com/memscope/memscope/internal/present/finding"
	"github.com/memscope/memscope/internal/present/jsonout"
	"github.com/memscope/memscope/internal/present/ocsf"
)

// outputFormats are the values of --output-format. The flag is not
// --format because verify, replay and lineage already use --format for a
// native store's input format.
const (
	outputText = ""
	outputOCSF = "ocsf"
)

// writeOCSF writes findings as OCSF Detection Finding events, one JSON
// line each (docs/JSON.md).
func writeOCSF(w io.Writer, fs []finding.Finding, ctx ocsf.Context) error {
	if ctx.Time.IsZero() {
		ctx.Time = time.Now()
	}
	if ctx.Version == "" {
		ctx.Version = toolVersion()
	}
	for _, f := range fs {
		line, err := jsonout.MarshalLine(ocsf.From(f, ctx))
		if err != nil {
			return err
		}
		if _, err := w.Write(append(line, '\n')); err != nil {
			return err
		}
	}
	return nil
}

// writeOCSFFile writes findings as OCSF lines to a new file (never
// overwritten).
func writeOCSFFile(path string, fs []finding.Finding, source, log string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if err := writeOCSF(f, fs, ocsf.Context{Source: source, Extra: map[string]any{"log": log}}); err != nil {
		f.Close()
		os.Remove(path)
		return err
	}
	return f.Close()
}
