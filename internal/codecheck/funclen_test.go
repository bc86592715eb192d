// Package codecheck holds tests that check the code itself rather than
// what it does: rules CI enforces on every package of the module.
package codecheck

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// maxFuncLines is the longest a non-test function may be, signature and
// closing brace included.
const maxFuncLines = 120

// temporaryAllowance lists functions ("path name") allowed over
// maxFuncLines while a branch splits them; none today. An entry whose
// function is short again fails the test, so the list cannot go stale.
var temporaryAllowance = map[string]bool{}

// TestNoLongFunctions parses every non-test, non-generated Go file of the
// module (not nested modules such as scripts/tracewait, nor testdata) and
// fails on any function longer than maxFuncLines.
func TestNoLongFunctions(t *testing.T) {
	root := moduleRoot(t)
	fset := token.NewFileSet()
	seen := map[string]bool{}
	files := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if path != root && (name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || hasGoMod(path)) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		if ast.IsGenerated(f) {
			return nil
		}
		files++
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		for _, decl := range f.Decls {
			fd, ok := decl.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			lines := fset.Position(fd.End()).Line - fset.Position(fd.Pos()).Line + 1
			key := rel + " " + fd.Name.Name
			if lines <= maxFuncLines {
				continue
			}
			if temporaryAllowance[key] {
				seen[key] = true
				continue
			}
			t.Errorf("%s:%d: %s is %d lines; split it (at most %d outside tests and generated code)", rel, fset.Position(fd.Pos()).Line, fd.Name.Name, lines, maxFuncLines)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 100 {
		t.Fatalf("parsed only %d files under %s: the walk is not seeing the module", files, root)
	}
	for key := range temporaryAllowance {
		if !seen[key] {
			t.Errorf("temporary allowance %q is no longer needed (the function is short or gone): remove it", key)
		}
	}
}

// moduleRoot is the directory of the go.mod above this package.
func moduleRoot(t *testing.T) string {
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test's directory")
		}
		dir = parent
	}
}

func hasGoMod(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, "go.mod"))
	return err == nil
}
