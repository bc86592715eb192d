package stores

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/memscope/memscope/internal/readers/storemodel"
)

// Found is a store located under the path a user named.
type Found struct {
	Path   string
	Format storemodel.Format
}

// Bounds of the search below a named directory: responders hand over the
// folder a store came in (a repository checkout, a LightRAG working
// directory whose files sit in a per-workspace subdirectory, a Mem0
// project with data/history.db), so the registry looks a few levels down,
// but never walks an arbitrary tree.
const (
	searchDepth   = 3
	searchEntries = 512 // entries read per directory
	searchDirs    = 64  // directories examined in all
)

// Resolve finds the store at path: path itself when a reader recognises
// it, otherwise the one store below it (searchDepth levels, bounded). Two
// or more stores below path are an error naming each, so the user picks.
func Resolve(path string) (Found, error) {
	if f, ok := detectHere(path); ok {
		return Found{Path: path, Format: f}, nil
	}
	st, err := os.Stat(path)
	if err != nil {
		return Found{}, err
	}
	if !st.IsDir() {
		return Found{}, fmt.Errorf("%s: not a store memscope can read natively (%s); name the format with --format", path, strings.Join(Formats(), ", "))
	}
	var found []Found
	budget := searchDirs
	search(path, 1, &budget, &found)
	switch len(found) {
	case 0:
		return Found{}, fmt.Errorf("%s: no store memscope can read natively here or %d levels below (%s); name the store's own directory or file", path, searchDepth, strings.Join(Formats(), ", "))
	case 1:
		return found[0], nil
	}
	var names []string
	for _, f := range found {
		names = append(names, fmt.Sprintf("%s (%s)", f.Path, f.Format))
	}
	return Found{}, fmt.Errorf("%s holds %d stores; name one: %s", path, len(found), strings.Join(names, ", "))
}

// detectHere asks every reader, in registry order, about path itself.
func detectHere(path string) (storemodel.Format, bool) {
	// Only files and directories are sniffed: opening a FIFO or a device
	// to look at it would block or never end.
	if st, err := os.Stat(path); err != nil || !(st.Mode().IsRegular() || st.IsDir()) {
		return "", false
	}
	for _, r := range registry {
		if r.Looks(path) {
			return r.Format, true
		}
	}
	return "", false
}

// search looks for stores in dir's children. A directory a reader
// recognises is not searched further (its own subfolders belong to it).
func search(dir string, depth int, budget *int, found *[]Found) {
	if depth > searchDepth || *budget <= 0 {
		return
	}
	*budget--
	f, err := os.Open(dir)
	if err != nil {
		return
	}
	ents, _ := f.ReadDir(searchEntries)
	f.Close()
	var sub []string
	for _, e := range ents {
		name := e.Name()
		p := filepath.Join(dir, name)
		switch {
		case name == ".git" || name == "node_modules" || name == "__pycache__":
		case e.IsDir():
			if fm, ok := detectHere(p); ok {
				*found = append(*found, Found{Path: p, Format: fm})
			} else {
				sub = append(sub, p)
			}
		case e.Type().IsRegular() && storeFileName(name):
			if fm, ok := detectHere(p); ok {
				*found = append(*found, Found{Path: p, Format: fm})
			}
		}
	}
	for _, p := range sub {
		search(p, depth+1, budget, found)
	}
}

// storeFileName says whether a file may be a single-file store (SQLite:
// Mem0's history.db, SMSR's database; the MCP memory server's .jsonl; a
// Letta agent file .af); only these are sniffed below the named path, so a
// search never opens every file of a tree.
func storeFileName(name string) bool {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".db", ".sqlite", ".sqlite3", ".jsonl", ".af":
		return true
	}
	return false
}
