package stores

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memscope/memscope/internal/readers/storemodel"
	"github.com/memscope/memscope/internal/sharedtest"
)

func TestRegistryEntriesComplete(t *testing.T) {
	seen := map[storemodel.Format]bool{}
	for _, r := range Readers() {
		if r.Format == "" || r.Name == "" || r.Looks == nil || r.Open == nil || r.Holds == 0 {
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

// realStores are the real stores of registered formats, at the directory
// or file upstream wrote (inside each case folder).
var realStores = []struct {
	path   string
	format storemodel.Format
}{
	{"hippo2-arunkumar-sample/outputs/sample", storemodel.HippoRAG},
	{"lightrag-gongcao-v2long/dickens", storemodel.LightRAG},
	{"lightrag-lennyhub/rag_storage", storemodel.LightRAG},
	{"lightrag-stavidphan-1.2.1/dickens_ollama", storemodel.LightRAG},
	{"lightrag-biboyqg-root", storemodel.LightRAG},
	{"nanographrag-jonchun/dickens", storemodel.LightRAG},
	{"graphrag-michaelto20/output", storemodel.GraphRAG},
	{"mem0-exim-20251102/data/mem0_history.db", storemodel.Mem0},
	{"mem0-exim-20251104/data/mem0_history.db", storemodel.Mem0},
	{"mem0-navis/mem0_history.db", storemodel.Mem0},
	{"mem0-slsl-messages/mem0_history.db", storemodel.Mem0},
	{"mem0-memagent/mem0_history.db", storemodel.Mem0},
	{"mem0-teacheragent/.mem0/history.db", storemodel.Mem0},
}

// Each real store of a registered format is detected as that format from
// its contents alone.
func TestDetectRealStores(t *testing.T) {
	dir := sharedtest.RealStores(t)
	for _, c := range realStores {
		got, ok := Detect(filepath.Join(dir, c.path))
		if !ok || got != c.format {
			t.Errorf("%s: detected %q (%v), want %q", c.path, got, ok, c.format)
		}
	}
}
