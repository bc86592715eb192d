// Package mem0vec opens a Mem0 OSS store as a responder finds it: a
// directory holding Mem0's vector store (Qdrant local mode, the default,
// or Chroma) and, when it was kept, the history database beside it, and
// reconciles the two. Mem0 (mem0ai/mem0 mem0/memory/main.py at commit
// 8d5b7865, 2026-08-22) writes both on every change: _create_memory
// inserts the vector with payload data = text and hash = md5(text) then
// adds an ADD history row; _update_memory rewrites data and hash then adds
// UPDATE; _delete_memory deletes the vector then adds DELETE. So each
// memory retrievable from the vector store has a history chain whose last
// version is its text, and no deleted memory is retrievable.
package mem0vec

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/memscope/memscope/internal/present/finding"
	"github.com/memscope/memscope/internal/readers/chromadb"
	"github.com/memscope/memscope/internal/readers/mem0db"
	"github.com/memscope/memscope/internal/readers/qdrantlocal"
	"github.com/memscope/memscope/internal/readers/storemodel"
)

// Format is the --format name of a Mem0 directory with its vector store.
const Format storemodel.Format = "mem0-vectors"

// Telemetry is the collection Mem0 keeps its own telemetry in
// (main.py: telemetry collection_name "mem0migrations"): not memories.
const Telemetry = "mem0migrations"

// maxEntries bounds how many directory entries are looked at per level,
// so a huge directory cannot make detection slow.
const maxEntries = 256

// Layout is what was found in a directory.
type Layout struct {
	Kind    string // "qdrant-local" or "chroma"
	Vector  string // the Qdrant location or chroma.sqlite3
	History string // the history database, "" when none
}

// Locate finds one vector store and at most one history database for
// path: the vector store is path itself or one of its subdirectories (a
// Qdrant local location other than Mem0's telemetry store, or a directory
// with chroma.sqlite3), the history an SQLite file with Mem0's history
// table in path or one of its subdirectories. Deeper layouts are found by
// the registry's search, which asks again one level down. found with a
// non-nil error: more than one of either, named so the user can choose.
func Locate(path string) (l Layout, found bool, err error) {
	st, err := os.Stat(path)
	if err != nil || !st.IsDir() {
		return Layout{}, false, nil
	}
	var vec []Layout
	var hist []string
	visit := func(dir string) {
		switch {
		case qdrantlocal.IsLocation(dir) && !qdrantlocal.TelemetryOnly(dir, Telemetry):
			vec = append(vec, Layout{Kind: "qdrant-local", Vector: dir})
		case regular(filepath.Join(dir, chromadb.DBFile)):
			if db, ok := chromadb.Locate(dir); ok {
				vec = append(vec, Layout{Kind: "chroma", Vector: db})
			}
		}
		for _, f := range entries(dir) {
			if !f.IsDir() && sqliteName(f.Name()) && f.Name() != chromadb.DBFile && mem0db.Looks(filepath.Join(dir, f.Name())) {
				hist = append(hist, filepath.Join(dir, f.Name()))
			}
		}
	}
	visit(path)
	for _, e := range entries(path) {
		if e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
			visit(filepath.Join(path, e.Name()))
		}
	}
	if len(vec) == 0 {
		return Layout{}, false, nil
	}
	if len(vec) > 1 || len(hist) > 1 {
		var names []string
		for _, v := range vec {
			names = append(names, v.Vector)
		}
		names = append(names, hist...)
		return Layout{}, true, fmt.Errorf("%s holds %d Mem0 vector stores and %d history databases (%s); name the directory of one", path, len(vec), len(hist), strings.Join(names, ", "))
	}
	l = vec[0]
	if len(hist) == 1 {
		l.History = hist[0]
	}
	if l.History == "" && !mem0Shaped(l) {
		// A vector store some other application wrote: not claimed.
		return Layout{}, false, nil
	}
	return l, true, nil
}

// mem0Shaped: without a history database beside it, a vector store is
// Mem0's when its points carry Mem0's payload (data and hash, main.py
// _create_memory), for Qdrant when a collection has Mem0's default name
// "mem0" (mem0/configs/vector_stores/qdrant.py), or, for Chroma, when Mem0's telemetry collection sits
// in the same database.
func mem0Shaped(l Layout) bool {
	ctx := context.Background()
	if l.Kind == "chroma" {
		return chromadb.HasCollectionOrKeys(ctx, l.Vector, Telemetry, "data", "hash")
	}
	return qdrantlocal.HasCollection(l.Vector, "mem0") || qdrantlocal.AnyPointHas(ctx, l.Vector, "data", "hash")
}

func regular(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

func sqliteName(n string) bool {
	switch strings.ToLower(filepath.Ext(n)) {
	case ".db", ".sqlite", ".sqlite3":
		return true
	}
	return false
}

// entries lists at most maxEntries entries of dir, sorted.
func entries(dir string) []os.DirEntry {
	f, err := os.Open(dir)
	if err != nil {
		return nil
	}
	ents, _ := f.ReadDir(maxEntries)
	f.Close()
	sort.Slice(ents, func(i, j int) bool { return ents[i].Name() < ents[j].Name() })
	return ents
}

// Looks says whether path is a directory holding a Mem0 vector store.
// An ambiguous directory is not claimed: the registry's search then
// finds and names each store below it.
func Looks(path string) bool {
	_, ok, err := Locate(path)
	return ok && err == nil
}

// Open reads the history (when present) with mem0db and the vector store.
func Open(ctx context.Context, path string) (*storemodel.Store, error) {
	l, ok, err := Locate(path)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("%s: no Mem0 vector store (Qdrant local meta.json + collection/, or Chroma's chroma.sqlite3) in it or two levels below", path)
	}
	st := &storemodel.Store{Format: Format}
	if l.History != "" {
		if st, err = mem0db.Open(ctx, l.History); err != nil {
			return nil, err
		}
		st.Format = Format
	}
	st.Root = path
	st.VectorStore = &storemodel.VectorStore{Kind: l.Kind, Path: l.Vector, History: l.History}
	if l.Kind == "chroma" {
		err = chromadb.Read(ctx, l.Vector, st)
	} else {
		err = qdrantlocal.Read(ctx, l.Vector, st)
	}
	if err != nil {
		return nil, err
	}
	if l.History == "" {
		st.Notes = append(st.Notes, "no Mem0 history database beside the vector store: history and vectors not reconciled")
	}
	return st, nil
}

// Hash is Mem0's memory hash: hashlib.md5(data.encode()).hexdigest().
func Hash(text string) string {
	sum := md5.Sum([]byte(text))
	return hex.EncodeToString(sum[:])
}

// State is one memory's vector-store state beside its history chain.
type State struct {
	MemoryID string
	Chain    *mem0db.Chain // nil: history never wrote it
	Vector   *storemodel.VectorPoint
	// Findings about this memory (reconciliation and hash).
	Findings []finding.Finding
}

// Reconcile pairs every memory of the history with its vector point, in
// history order and then vector-store order, and says what disagrees.
// Telemetry points are left out. With no history database, only the
// hashes are checked and one finding says the rest was not.
func Reconcile(st *storemodel.Store) ([]State, []finding.Finding) {
	if st.VectorStore == nil {
		return nil, nil
	}
	chains, _ := mem0db.Chains(st)
	byID := map[string]int{}
	var out []State
	for i := range chains {
		byID[chains[i].MemoryID] = len(out)
		out = append(out, State{MemoryID: chains[i].MemoryID, Chain: &chains[i]})
	}
	for i := range st.Vectors {
		v := &st.Vectors[i]
		if v.Collection == Telemetry {
			continue
		}
		if j, ok := byID[v.ID]; ok && out[j].Vector == nil {
			out[j].Vector = v
			continue
		}
		byID[v.ID] = len(out)
		out = append(out, State{MemoryID: v.ID, Vector: v})
	}
	history := st.VectorStore.History != ""
	var fs []finding.Finding
	if !history {
		fs = append(fs, finding.New(finding.Mem0ReconcileNotChecked, "vector store "+st.VectorStore.Path,
			"no Mem0 history database beside it: which memories history added, updated or deleted is not checked; stored hashes are"))
	}
	for i := range out {
		out[i].Findings = judge(&out[i], history)
		fs = append(fs, out[i].Findings...)
	}
	return out, fs
}

func judge(s *State, history bool) []finding.Finding {
	// Raw, and quoted with plain quotes rather than %q, whose Go escapes
	// the output's sanitiser would escape again: every output sanitises a
	// finding once (docs/SANITIZE.md).
	subject := "memory " + s.MemoryID
	var fs []finding.Finding
	add := func(code finding.Code, msg string) { fs = append(fs, finding.New(code, subject, msg)) }
	v := s.Vector
	if v != nil {
		switch {
		case !v.HasText && !v.HasHash:
			// Not a point Mem0 wrote (neither of its payload keys): no
			// hash to check; history still says whether Mem0 knows it.
		case !v.HasText:
			add(finding.Mem0VectorHashMismatch, fmt.Sprintf("%s point has a hash but no payload data (Mem0 writes both): nothing to check the hash against", v.Collection))
		case !v.HasHash:
			add(finding.Mem0VectorHashMismatch, "no stored hash (Mem0 writes md5 of the text beside it)")
		case Hash(v.Text) != v.Hash:
			add(finding.Mem0VectorHashMismatch, fmt.Sprintf("stored hash %s, md5 of the stored text %s", v.Hash, Hash(v.Text)))
		}
	}
	if !history {
		return fs
	}
	c := s.Chain
	switch {
	case c == nil && v != nil:
		add(finding.Mem0VectorNotInHistory, fmt.Sprintf("retrievable from collection %s (text \"%s\") but the history never added it", v.Collection, clip(v.Text)))
	case c != nil && v == nil && !c.Deleted:
		add(finding.Mem0MemoryNotInVector, fmt.Sprintf("history's last event is %s but the vector store holds no point of this id", c.Versions[len(c.Versions)-1].Event))
	case c != nil && v != nil && c.Deleted:
		add(finding.Mem0DeletedRetrievable, fmt.Sprintf("history deleted it, yet collection %s still returns it (text \"%s\")", v.Collection, clip(v.Text)))
	case c != nil && v != nil:
		last := c.Versions[len(c.Versions)-1]
		if v.HasText && last.New != v.Text {
			add(finding.Mem0VectorTextDiffers, fmt.Sprintf("vector store text \"%s\", last history version (%s, row %s) \"%s\"", clip(v.Text), last.Event, last.ID, clip(last.New)))
		}
	}
	return fs
}

func clip(s string) string { return finding.Clip(s, 120) }
