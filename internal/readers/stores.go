// Package stores opens the agent-memory stores people actually have
// (HippoRAG 2, LightRAG, Mem0, SMSR, GraphRAG) natively and read-only:
// it detects a store's format from its contents, hands it to the one small
// reader of that format, and turns what the reader found into findings.
// The analyses (replay on G and G_auth, Mem0 lineage, SMSR tags) run on the
// in-memory model (package storemodel); nothing here writes.
package stores

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/memscope/memscope/internal/present/finding"
	"github.com/memscope/memscope/internal/present/sanitize"
	"github.com/memscope/memscope/internal/readers/graphrag"
	"github.com/memscope/memscope/internal/readers/hipporag"
	"github.com/memscope/memscope/internal/readers/lightrag"
	"github.com/memscope/memscope/internal/readers/mem0db"
	"github.com/memscope/memscope/internal/readers/smsrdb"
	"github.com/memscope/memscope/internal/readers/storemodel"
)

// ParseFormat checks a --format value.
func ParseFormat(s string) (storemodel.Format, error) {
	for _, f := range append(storemodel.Formats, newFormats...) {
		if string(f) == strings.ToLower(s) {
			return f, nil
		}
	}
	names := make([]string, len(storemodel.Formats))
	for i, f := range storemodel.Formats {
		names[i] = string(f)
	}
	return "", fmt.Errorf("unknown store format %q (known: %s)", s, strings.Join(names, ", "))
}

// Detect tells a native store's format from its contents. ok is false when
// path is none of them (a memscope snapshot, for instance).
func Detect(path string) (storemodel.Format, bool) {
	// Only files and directories are sniffed: opening a FIFO or a device
	// to look at it would block or never end.
	if st, err := os.Stat(path); err != nil || !(st.Mode().IsRegular() || st.IsDir()) {
		return "", false
	}
	if hipporag.Looks(path) {
		return storemodel.HippoRAG, true
	}
	if lightrag.Looks(path) {
		return storemodel.LightRAG, true
	}
	if graphrag.Looks(path) {
		return storemodel.GraphRAG, true
	}
	if smsrdb.Looks(path) {
		return storemodel.SMSR, true
	}
	if mem0db.Looks(path) {
		return storemodel.Mem0, true
	}
	return detectNew(path)
}

// Open reads a store of the given format ("" detects it).
func Open(ctx context.Context, path string, f storemodel.Format) (*storemodel.Store, error) {
	if f == "" {
		var ok bool
		if f, ok = Detect(path); !ok {
			return nil, fmt.Errorf("%s: not a store memscope can read natively (%s); name the format with --format", path, known())
		}
	}
	abs, err := filepath.Abs(path)
	if err == nil {
		path = abs
	}
	switch f {
	case storemodel.HippoRAG:
		return hipporag.Open(ctx, path)
	case storemodel.LightRAG:
		return lightrag.Open(ctx, path)
	case storemodel.GraphRAG:
		return graphrag.Open(ctx, path)
	case storemodel.SMSR:
		return smsrdb.Open(ctx, path)
	case storemodel.Mem0:
		return mem0db.Open(ctx, path)
	}
	if open, ok := openNew(f); ok {
		return open(ctx, path)
	}
	return nil, fmt.Errorf("%s: unknown store format %q", path, f)
}

func known() string {
	var names []string
	for _, f := range append(storemodel.Formats, newFormats...) {
		names = append(names, string(f))
	}
	return strings.Join(names, ", ")
}

// Findings turns what the reader found into findings, STORE_UNSIGNED first.
func Findings(st *storemodel.Store) []finding.Finding {
	out := []finding.Finding{finding.New(finding.StoreUnsigned, string(st.Format)+" store "+sanitize.Line(st.Root),
		storemodel.Unsigned+"; signatures, registry, log and checkpoints: not checked (the store has none)")}
	for _, is := range st.Issues {
		subject := is.Subject
		if is.File != "" {
			subject = filepath.Base(is.File) + ": " + subject
		}
		out = append(out, finding.New(is.Code, sanitize.Line(subject), sanitize.Line(is.Message)))
	}
	return out
}
