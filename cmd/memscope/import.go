package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/memscope/memscope/importer"
	"github.com/memscope/memscope/sanitize"
)

const importUsage = "memscope import --nodes FILE --edges FILE [--queries FILE] --out DIR [--format csv|jsonl] [--seed N] [--writer PRINCIPAL]"

func runImport(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	fs := newFlagSet("import", importUsage, stderr)
	nodes := fs.String("nodes", "", "nodes file: id, kind (passage|entity), text[, writer, trust] (see docs/IMPORT.md)")
	edges := fs.String("edges", "", "edges file: src, dst, weight, sources[, id, kind, rel, writer, declared]")
	queries := fs.String("queries", "", "optional queries file: id, text, reset[, k, dense, selected]")
	out := fs.String("out", "", "new directory for snapshot.db, log/, log.vkey, trust.keys and scenario.json")
	format := fs.String("format", "", "csv or jsonl for every input (default: by file extension)")
	seed := fs.Uint64("seed", 1, "key and id seed: the same input and seed give the same bytes")
	defWriter := fs.String("writer", importer.DefaultWriter, "principal that signs rows naming no writer")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return exitUsage, nil
	}
	if len(pos) > 0 {
		return exitUsage, usagef("unexpected argument %q; usage: %s", pos[0], importUsage)
	}
	for _, req := range []struct{ name, val string }{{"--nodes", *nodes}, {"--edges", *edges}, {"--out", *out}} {
		if req.val == "" {
			return exitUsage, usagef("%s is required; usage: %s", req.name, importUsage)
		}
	}
	opt := importer.Options{Nodes: *nodes, Edges: *edges, Queries: *queries, Out: *out, Seed: *seed, DefaultWriter: *defWriter}
	if *format != "" {
		f, err := importer.ParseFormat(*format)
		if err != nil {
			return exitUsage, usagef("--format: %v", err)
		}
		opt.Format = f
	}
	man, err := importer.Import(ctx, opt)
	if err != nil {
		var ie *importer.InputError
		if errors.As(err, &ie) {
			// Input text reaches the terminal only through the sanitiser.
			return exitUsage, errors.New(sanitize.Line(err.Error()))
		}
		return exitUsage, err
	}
	in := man.Import
	fmt.Fprintf(stdout, "imported into %s\n", sanitize.Line(*out))
	fmt.Fprintf(stdout, "  entries %d (passages), entity nodes %d, structural writes %d (%d no-source), queries %d\n",
		in.Entries, in.Entities, in.Writes, in.NoSource, in.Queries)
	fmt.Fprintf(stdout, "  declared labels: %d authenticated, %d unauthenticated (declared by the input, not verified)\n",
		in.Declared[importer.LabelAuthenticated], in.Declared[importer.LabelUnauthenticated])
	fmt.Fprintln(stdout, "  principals (signed by the importer on their behalf):")
	for _, p := range in.Principals {
		fmt.Fprintf(stdout, "    %-24s %-15s %s\n", sanitize.Line(p.Name), p.Channel, sanitize.Line(p.Why))
	}
	for _, w := range in.Warnings {
		fmt.Fprintf(stderr, "memscope import: warning: %s\n", sanitize.Line(w))
	}
	args2 := make([]string, len(man.VerifyArgs))
	for i, a := range man.VerifyArgs {
		if !strings.HasPrefix(a, "--") {
			a = filepath.Join(*out, a)
		}
		args2[i] = a
	}
	fmt.Fprintf(stdout, "\nverify with:\n  memscope verify %s\n", sanitize.Line(strings.Join(args2, " ")))
	return exitOK, nil
}
