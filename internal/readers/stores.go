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
	"path/filepath"
	"strings"

	"github.com/memscope/memscope/internal/present/finding"
	"github.com/memscope/memscope/internal/readers/graphrag"
	"github.com/memscope/memscope/internal/readers/hipporag"
	"github.com/memscope/memscope/internal/readers/lightrag"
	"github.com/memscope/memscope/internal/readers/llamaindex"
	"github.com/memscope/memscope/internal/readers/mcpmem"
	"github.com/memscope/memscope/internal/readers/mem0db"
	"github.com/memscope/memscope/internal/readers/mem0vec"
	"github.com/memscope/memscope/internal/readers/refused"
	"github.com/memscope/memscope/internal/readers/smsrdb"
	"github.com/memscope/memscope/internal/readers/storemodel"
)

// registry lists every store format memscope reads, in the order
// detection tries them (a HippoRAG 2 save directory also holds parquet
// files, so it goes before GraphRAG; an SMSR file before Mem0's). Adding a
// format is its own folder plus one line here.
var registry = []storemodel.Reader{
	hipporag.Reader,
	lightrag.NanoReader,
	lightrag.Reader,
	graphrag.Reader,
	smsrdb.Reader,
	mem0db.Reader,
	mem0vec.Reader,
	llamaindex.Reader,
	mcpmem.Reader,
	refused.Reader,
}

// Readers returns the registered formats in detection order.
func Readers() []storemodel.Reader { return append([]storemodel.Reader(nil), registry...) }

// Formats names every format memscope reads, in detection order: the ones
// --format and --from accept (not the recognised-but-unread ones, which
// detection alone names).
func Formats() []string {
	var names []string
	for _, r := range registry {
		if r.Format != refused.Format {
			names = append(names, string(r.Format))
		}
	}
	return names
}

// Lookup returns the registered reader of format f.
func Lookup(f storemodel.Format) (storemodel.Reader, bool) {
	for _, r := range registry {
		if r.Format == f {
			return r, true
		}
	}
	return storemodel.Reader{}, false
}

// ReaderOf returns the reader that opened st. Every store comes from a
// registered reader, so a miss is a programming error; it is answered
// with a reader that holds nothing and supports only verify.
func ReaderOf(st *storemodel.Store) storemodel.Reader {
	if r, ok := Lookup(st.Format); ok {
		return r
	}
	return storemodel.Reader{Format: st.Format, Name: string(st.Format)}
}

// Supports says whether st's format supports command c, and why not.
func Supports(st *storemodel.Store, c storemodel.Command) (bool, string) {
	return ReaderOf(st).Supports(c)
}

// ParseFormat checks a --format value.
func ParseFormat(s string) (storemodel.Format, error) {
	if r, ok := Lookup(storemodel.Format(strings.ToLower(s))); ok && r.Format != refused.Format {
		return r.Format, nil
	}
	return "", fmt.Errorf("unknown store format %q (known: %s)", s, strings.Join(Formats(), ", "))
}

// Detect tells a native store's format from its contents: the store at
// path or the one store below it (Resolve). ok is false when there is
// none (a memscope snapshot, for instance).
func Detect(path string) (storemodel.Format, bool) {
	f, err := Resolve(path)
	return f.Format, err == nil
}

// Open reads a store of the given format ("" detects it, also below path:
// Resolve).
func Open(ctx context.Context, path string, f storemodel.Format) (*storemodel.Store, error) {
	if f == "" {
		found, err := Resolve(path)
		if err != nil {
			return nil, err
		}
		path, f = found.Path, found.Format
	}
	r, ok := Lookup(f)
	if !ok {
		return nil, fmt.Errorf("%s: unknown store format %q", path, f)
	}
	// A named format with the folder the store came in: the one store of
	// that format below it.
	if !r.Looks(path) {
		if found, err := Resolve(path); err == nil && found.Format == f {
			path = found.Path
		}
	}
	abs, err := filepath.Abs(path)
	if err == nil {
		path = abs
	}
	st, err := r.Open(ctx, path)
	if st == nil && err == nil {
		// A reader's contract is a store or an error; every command
		// dereferences the store.
		err = fmt.Errorf("%s: the %s reader returned no store", path, f)
	}
	return st, err
}

// Findings turns what the reader found into findings, STORE_UNSIGNED
// first, then the format's own analyses (Reader.Findings) and the text
// scan: the CLI, the JSON, the inspector and the report all start from
// this one list, so they count the same.
func Findings(st *storemodel.Store) []finding.Finding {
	// Raw: every output sanitises a finding once (docs/SANITIZE.md).
	out := []finding.Finding{finding.New(finding.StoreUnsigned, string(st.Format)+" store "+st.Root,
		storemodel.Unsigned+"; signatures, registry, log and checkpoints: not checked (the store has none)")}
	for _, is := range st.Issues {
		out = append(out, is.Finding())
	}
	if r := ReaderOf(st); r.Findings != nil {
		out = append(out, r.Findings(st)...)
	}
	// Text a terminal would act on is shown escaped everywhere; here it is
	// also a finding, in the one list every output shows.
	return append(out, TextFindings(st)...)
}
