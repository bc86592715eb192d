package main

import (
	"io"
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
