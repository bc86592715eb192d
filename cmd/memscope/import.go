package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/memscope/memscope/evidence"
	"github.com/memscope/memscope/internal/generators/graphfile"
	"github.com/memscope/memscope/internal/generators/importer"
	"github.com/memscope/memscope/internal/generators/storeimport"
	"github.com/memscope/memscope/internal/present/sanitize"
	stores "github.com/memscope/memscope/internal/readers"
	"github.com/memscope/memscope/internal/readers/storemodel"
)

const importUsage = "memscope import --nodes FILE --edges FILE [--queries FILE] --out DIR [--format csv|jsonl] [--seed N] [--writer PRINCIPAL]\n       memscope import --from hipporag|lightrag|graphrag PATH [--queries FILE] --out DIR [--seed N]"

func runImport(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	fs := newFlagSet("import", importUsage, stderr)
	nodes := fs.String("nodes", "", "nodes file: id, kind (passage|entity), text[, writer, trust] (see docs/IMPORT.md)")
	edges := fs.String("edges", "", "edges file: src, dst, weight, sources[, id, kind, rel, writer, declared]")
	queries := fs.String("queries", "", "optional queries file: id, text, reset[, k, dense, selected]")
	out := fs.String("out", "", "new directory for snapshot.db, log/, log.vkey, trust.keys and scenario.json")
	format := fs.String("format", "", "csv or jsonl for every input (default: by file extension)")
	seed := fs.Uint64("seed", 1, "key and id seed: the same input and seed give the same bytes")
	defWriter := fs.String("writer", importer.DefaultWriter, "principal that signs rows naming no writer")
	from := fs.String("from", "", "import a native store of this format from PATH: "+storeFormats())
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return exitUsage, nil
	}
	if *from != "" {
		if len(pos) != 1 || *out == "" || *nodes != "" || *edges != "" {
			return exitUsage, usagef("--from takes one store PATH and --out, not --nodes/--edges; usage: %s", importUsage)
		}
		man, err := importStore(ctx, *from, pos[0], *queries, *out, *seed)
		if err != nil {
			return exitUsage, err
		}
		return exitOK, printImport(stdout, stderr, man, *out)
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
		f, err := graphfile.ParseFormat(*format)
		if err != nil {
			return exitUsage, usagef("--format: %v", err)
		}
		opt.Format = f
	}
	man, err := importer.Import(ctx, opt)
	if err != nil {
		var ie *graphfile.InputError
		if errors.As(err, &ie) {
			// Input text reaches the terminal only through the sanitiser.
			return exitUsage, errors.New(sanitize.Line(err.Error()))
		}
		return exitUsage, err
	}
	return exitOK, printImport(stdout, stderr, man, *out)
}

// printImport reports an import and how to verify it.
func printImport(stdout, stderr io.Writer, man *importer.Manifest, out string) error {
	in := man.Import
	fmt.Fprintf(stdout, "imported into %s\n", sanitize.Line(out))
	fmt.Fprintf(stdout, "  entries %d (passages), entity nodes %d, structural writes %d (%d no-source), queries %d\n",
		in.Entries, in.Entities, in.Writes, in.NoSource, in.Queries)
	fmt.Fprintf(stdout, "  declared labels: %d authenticated, %d unauthenticated (declared by the input, not verified)\n",
		in.Declared[graphfile.LabelAuthenticated], in.Declared[graphfile.LabelUnauthenticated])
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
			a = filepath.Join(out, a)
		}
		args2[i] = a
	}
	fmt.Fprintf(stdout, "\nverify with:\n  memscope verify %s\n", sanitize.Line(strings.Join(args2, " ")))
	return nil
}

// importStore keeps a signed copy of a native store: the importer signs
// every record itself, with the store's own provenance as declared labels.
func importStore(ctx context.Context, format, path, queries, out string, seed uint64) (*importer.Manifest, error) {
	f, err := stores.ParseFormat(format)
	if err != nil {
		return nil, usagef("--from: %v", err)
	}
	st, err := stores.Open(ctx, path, f)
	if err != nil {
		return nil, err
	}
	if ok, why := stores.Supports(st, storemodel.CmdImport); !ok {
		return nil, usagef("%s", why)
	}
	g, ids, err := storeimport.Graph(st)
	if err != nil {
		return nil, usagef("%v", err)
	}
	var inputs []importer.InputFile
	for _, sf := range st.Files {
		inputs = append(inputs, importer.InputFile{Role: sf.Role, Name: filepath.Base(sf.Path), Format: graphfile.Format(st.Format), SHA256: sf.SHA256})
	}
	if queries != "" {
		qf, err := graphfile.DetectFormat(queries, "")
		if err != nil {
			return nil, usagef("--queries: %v", err)
		}
		in, err := evidence.OpenFile(queries, maxQueriesFile)
		if err != nil {
			return nil, usagef("--queries: %v", err)
		}
		raw, err := graphfile.ReadQueries(queries, io.LimitReader(in, maxQueriesFile), qf)
		in.Close()
		if err != nil {
			return nil, errors.New(sanitize.Line(err.Error()))
		}
		g.Queries, g.QueriesFile = storeimport.Queries(raw, ids), queries
		inputs = append(inputs, importer.InputFile{Role: "queries", Name: filepath.Base(queries), Format: qf, Rows: len(raw)})
	}
	man, err := importer.Write(ctx, g, inputs, importer.Options{Out: out, Seed: seed, DefaultWriter: storeimport.Writer(st.Format)})
	if err != nil {
		return nil, errors.New(sanitize.Line(err.Error()))
	}
	return man, nil
}
