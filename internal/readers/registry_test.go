package stores

import (
	"context"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/memscope/memscope/internal/readers/lightrag"
	"github.com/memscope/memscope/internal/readers/refused"
	"github.com/memscope/memscope/internal/readers/storemodel"
	"github.com/memscope/memscope/internal/sharedtest"
)

func TestRegistryEntriesComplete(t *testing.T) {
	seen := map[storemodel.Format]bool{}
	for _, r := range Readers() {
		// refused.Reader holds nothing: opening a store of it is the refusal.
		if r.Format == "" || r.Name == "" || r.Looks == nil || r.Open == nil || r.Holds == 0 && r.Format != refused.Format {
			t.Errorf("reader %q is incomplete: %+v", r.Format, r)
		}
		if seen[r.Format] {
			t.Errorf("format %q registered twice", r.Format)
		}
		seen[r.Format] = true
		if ok, why := r.Supports(storemodel.CmdActions); ok || !strings.Contains(why, r.Name) {
			t.Errorf("%s: actions supported=%v, reason %q should name the format", r.Format, ok, why)
		}
	}
}

// Outside the readers themselves nothing names a format: the CLI, the
// inspector, the report and the analyses ask the registry what a store
// holds and supports. A switch on a format constant would be a second
// place to touch when a store is added.
func TestNoOneSwitchesOnTheFormat(t *testing.T) {
	root, err := sharedtest.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	consts := map[string]bool{"HippoRAG": true, "LightRAG": true, "Mem0": true, "SMSR": true, "GraphRAG": true}
	fset := token.NewFileSet()
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if d.IsDir() {
			if strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || rel == filepath.Join("internal", "readers") {
				return fs.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok {
				if x, ok := sel.X.(*ast.Ident); ok && x.Name == "storemodel" && consts[sel.Sel.Name] {
					t.Errorf("%s: names storemodel.%s; ask the registry (package stores) instead", fset.Position(sel.Pos()), sel.Sel.Name)
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// realStores are the real stores of registered formats: the case folder
// as a responder receives it, the store inside it that Resolve must find
// (GraphRAG's reader finds output/ itself, as upstream's CLI does from the
// project root),
// and the layout the reader must name.
var realStores = []struct {
	dir, store string
	format     storemodel.Format
	layout     string
}{
	{"hippo2-arunkumar-sample", "outputs/sample", storemodel.HippoRAG, ""},
	{"lightrag-gongcao-v2long", "dickens", storemodel.LightRAG, "LightRAG 1.0.x"},
	{"lightrag-lennyhub", "rag_storage", storemodel.LightRAG, "LightRAG 1.4+"},
	{"lightrag-stavidphan-1.2.1", "dickens_ollama", storemodel.LightRAG, "LightRAG 1.1-1.3"},
	{"lightrag-biboyqg-root", "", storemodel.LightRAG, "LightRAG 1.1-1.3"},
	{"nanographrag-jonchun", "dickens", lightrag.NanoFormat, "nano-graphrag"},
	{"graphrag-gy-artifacts", "", storemodel.GraphRAG, "GraphRAG 0.2.0-0.3.4"},
	{"graphrag-fernando-createfinal", "", storemodel.GraphRAG, "GraphRAG 0.5-1.x"},
	{"graphrag-michaelto20", "", storemodel.GraphRAG, "GraphRAG 2.x"},
	{"mem0-exim-20251102", "data/mem0_history.db", storemodel.Mem0, ""},
	{"mem0-exim-20251104", "data/mem0_history.db", storemodel.Mem0, ""},
	{"mem0-navis", "mem0_history.db", storemodel.Mem0, ""},
	{"mem0-slsl-messages", "mem0_history.db", storemodel.Mem0, ""},
	{"mem0-memagent", "mem0_history.db", storemodel.Mem0, ""},
	{"mem0-teacheragent", ".mem0/history.db", storemodel.Mem0, ""},
}

// Each real store of a registered format is found inside its case folder
// and detected as that format from its contents alone, and its reader
// names the layout it recognised.
func TestResolveRealStores(t *testing.T) {
	dir := sharedtest.RealStores(t)
	for _, c := range realStores {
		got, err := Resolve(filepath.Join(dir, c.dir))
		want := filepath.Join(dir, c.dir, c.store)
		if err != nil || got.Format != c.format || got.Path != want {
			t.Errorf("%s: resolved %+v (%v), want %s at %s", c.dir, got, err, c.format, want)
			continue
		}
		if c.layout == "" {
			continue
		}
		st, err := Open(context.Background(), filepath.Join(dir, c.dir), "")
		if err != nil {
			t.Errorf("%s: %v", c.dir, err)
			continue
		}
		if !strings.HasPrefix(st.Layout, c.layout) {
			t.Errorf("%s: layout %q, want %s", c.dir, st.Layout, c.layout)
		}
	}
}

// Two stores under one folder are not guessed between: the error names
// both.
func TestResolveAmbiguous(t *testing.T) {
	dir := sharedtest.RealStores(t)
	_, err := Resolve(dir)
	if err == nil || !strings.Contains(err.Error(), "stores; name one") {
		t.Fatalf("err %v", err)
	}
}

// LightRAG with a workspace writes working_dir/<workspace>/...: a working
// directory with one workspace opens it; with two, both are named.
func TestLightRAGWorkspaces(t *testing.T) {
	src := filepath.Join("..", "..", "testdata", "lightrag", "clean")
	work := t.TempDir()
	copyDir := func(ws string) {
		ents, err := os.ReadDir(src)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(work, ws), 0o755); err != nil {
			t.Fatal(err)
		}
		for _, e := range ents {
			b, err := os.ReadFile(filepath.Join(src, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(work, ws, e.Name()), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	copyDir("legal_docs")
	got, err := Resolve(work)
	if err != nil || got.Format != storemodel.LightRAG || got.Path != filepath.Join(work, "legal_docs") {
		t.Fatalf("one workspace: %+v %v", got, err)
	}
	copyDir("tech_docs")
	_, err = Resolve(work)
	if err == nil || !strings.Contains(err.Error(), "legal_docs") || !strings.Contains(err.Error(), "tech_docs") {
		t.Fatalf("two workspaces: %v", err)
	}
}

// The search below a named folder is bounded: a tree of thousands of
// directories is not walked (only searchDirs are examined), and a FIFO
// named like a store file is never opened.
func TestResolveIsBounded(t *testing.T) {
	root := t.TempDir()
	for i := 0; i < 40; i++ {
		for j := 0; j < 40; j++ {
			if err := os.MkdirAll(filepath.Join(root, fmt.Sprintf("d%02d", i), fmt.Sprintf("e%02d", j)), 0o755); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := syscall.Mkfifo(filepath.Join(root, "history.db"), 0o644); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { _, err := Resolve(root); done <- err }()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "no store memscope can read") {
			t.Fatalf("err %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Resolve did not return: it opened the FIFO or walked the whole tree")
	}
}
