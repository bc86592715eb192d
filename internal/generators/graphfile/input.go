// Package graphfile reads the documented CSV and JSONL graph files (nodes,
// edges, queries; docs/IMPORT.md): the importer reads its input with it, and
// the native-store commands read --queries with it. It only parses and
// checks; it writes nothing, so the read path can use it without linking
// the importer's write path.
package graphfile

import (
	"fmt"
	"path/filepath"
	"strings"
)

// Format is an input file format.
type Format string

const (
	CSV   Format = "csv"
	JSONL Format = "jsonl"
)

// ParseFormat accepts "csv" or "jsonl" (any case).
func ParseFormat(s string) (Format, error) {
	switch strings.ToLower(s) {
	case "csv":
		return CSV, nil
	case "jsonl", "ndjson":
		return JSONL, nil
	}
	return "", fmt.Errorf("format %q: want csv or jsonl", s)
}

// DetectFormat picks a file's format: the override when given, else the
// file extension (.csv, .jsonl, .ndjson; a trailing .txt is not guessed).
func DetectFormat(path string, override Format) (Format, error) {
	if override != "" {
		return ParseFormat(string(override))
	}
	switch strings.ToLower(filepath.Ext(path)) {
	case ".csv":
		return CSV, nil
	case ".jsonl", ".ndjson":
		return JSONL, nil
	}
	return "", fmt.Errorf("%s: cannot tell the format from the extension (want .csv or .jsonl); pass --format", path)
}

// InputError names where an input file is wrong: the file, the 1-based line
// (0 when the problem is the file as a whole) and the field.
type InputError struct {
	File  string
	Line  int
	Field string
	Err   error
}

func (e *InputError) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, " line %d", e.Line)
	}
	if e.Field != "" {
		b.WriteString(", field ")
		b.WriteString(e.Field)
	}
	b.WriteString(": ")
	b.WriteString(e.Err.Error())
	return b.String()
}

func (e *InputError) Unwrap() error { return e.Err }

// loc is a position in an input file, used to build InputErrors.
type loc struct {
	file string
	line int
}

func (l loc) errf(field, format string, a ...any) error {
	return &InputError{File: l.file, Line: l.line, Field: field, Err: fmt.Errorf(format, a...)}
}
