// Package qdrantlocal reads the vector store of Qdrant's local mode (the
// default vector store of Mem0 OSS) natively, read-only, without executing
// any pickle. It follows qdrant-client v1.18.0 (commit 326adefc):
//
//	qdrant_client/local/qdrant_local.py  QdrantLocal._load: meta.json's
//	    "collections" names every collection; each lives in
//	    <location>/collection/<name>/ (_collection_path)
//	qdrant_client/local/persistence.py   CollectionPersistence: storage.sqlite,
//	    points(id TEXT PRIMARY KEY, point BLOB); id = base64(pickle(point id))
//	    (encode_key), point = pickle(PointStruct) (persist); load() reads
//	    "SELECT point FROM points" in storage order and never looks at id
//	qdrant_client/local/local_collection.py  load_vectors: a later point
//	    with the same id takes the id (ids[point.id] = idx)
//
// Protocols 4 and 5 occur in real stores (the writer's Python default).
// Each point becomes a storemodel.VectorPoint; Mem0's payload keys (data,
// hash, created_at, updated_at, user_id, mem0/memory/main.py) are lifted,
// every key is kept as JSON.
package qdrantlocal

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/memscope/memscope/internal/present/finding"
	"github.com/memscope/memscope/internal/readers/sqlitecols"
	"github.com/memscope/memscope/internal/readers/storefile"
	"github.com/memscope/memscope/internal/readers/storemodel"
)

const (
	metaFile    = "meta.json"
	storageFile = "storage.sqlite"
	// MaxPoint bounds one pickled point: a 4096-dimension vector pickles
	// to about 37 KB, so 64 MiB is far above any real point.
	MaxPoint = 64 << 20
	maxMeta  = 16 << 20
)

// Locate returns the local-mode location (the directory holding meta.json
// and collection/) for path: the location itself, a collection directory
// or a storage.sqlite file.
func Locate(path string) (string, bool) {
	dir := path
	if st, err := os.Stat(path); err != nil {
		return "", false
	} else if !st.IsDir() {
		if filepath.Base(path) != storageFile {
			return "", false
		}
		dir = filepath.Dir(filepath.Dir(filepath.Dir(path)))
	}
	for i := 0; i < 3; i++ {
		if isLocation(dir) {
			return dir, true
		}
		dir = filepath.Dir(dir)
	}
	return "", false
}

// IsLocation says whether dir is a local-mode location (meta.json and
// collection/).
func IsLocation(dir string) bool { return isLocation(dir) }

// HasCollection says whether the location's meta.json names collection.
func HasCollection(dir, collection string) bool {
	names, ok := collections(dir)
	return ok && names[collection]
}

func collections(dir string) (map[string]bool, bool) {
	f, err := os.Open(filepath.Join(dir, metaFile))
	if err != nil {
		return nil, false
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxMeta))
	if err != nil {
		return nil, false
	}
	cols, err := metaCollections(b)
	if err != nil {
		return nil, false
	}
	out := map[string]bool{}
	for n := range cols {
		out[n] = true
	}
	return out, true
}

// TelemetryOnly says whether the location's meta.json names no collection
// but telemetry (Mem0 keeps its telemetry collection in a location of its
// own, ~/.mem0/migrations_qdrant: mem0/memory/main.py).
func TelemetryOnly(dir, telemetry string) bool {
	names, ok := collections(dir)
	if !ok || len(names) == 0 {
		return false
	}
	for n := range names {
		if n != telemetry {
			return false
		}
	}
	return true
}

func isLocation(dir string) bool {
	st, err := os.Stat(filepath.Join(dir, metaFile))
	if err != nil || !st.Mode().IsRegular() {
		return false
	}
	ct, err := os.Stat(filepath.Join(dir, "collection"))
	return err == nil && ct.IsDir()
}

// Looks says whether path is (inside) a Qdrant local-mode location.
func Looks(path string) bool {
	_, ok := Locate(path)
	return ok
}

// metaCollections is meta.json's "collections" object as
// QdrantLocal._load reads it (qdrant_client/local/qdrant_local.py:
// json.load, then meta["collections"]): by exact name, the last of a
// repeated name, as Go decodes into maps (not into struct fields, which
// match names case-insensitively and merge repeats). Absent or null is
// nil.
func metaCollections(b []byte) (map[string]json.RawMessage, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(b, &top); err != nil {
		return nil, err
	}
	var cols map[string]json.RawMessage
	if raw, ok := top["collections"]; ok {
		if err := json.Unmarshal(raw, &cols); err != nil {
			return nil, fmt.Errorf("collections: %v", err)
		}
	}
	return cols, nil
}

// Read reads every collection meta.json names into st.Vectors, in
// collection-name order and, within one, storage order.
func Read(ctx context.Context, location string, st *storemodel.Store) error {
	b, f, err := storefile.ReadAll(ctx, filepath.Join(location, metaFile), "Qdrant local meta.json", maxMeta)
	if err != nil {
		return err
	}
	st.Files = append(st.Files, f)
	cols, err := metaCollections(b)
	if err != nil {
		return fmt.Errorf("%s: not Qdrant local meta.json: %v", f.Path, err)
	}
	if cols == nil {
		return fmt.Errorf("%s: no \"collections\" object (QdrantLocal._load reads meta[\"collections\"])", f.Path)
	}
	names := make([]string, 0, len(cols))
	for n := range cols {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		// A name is a path component: one that climbs out of collection/
		// would make memscope read a file the store does not hold.
		if name == "" || name == "." || name == ".." || strings.ContainsAny(name, "/\\\x00") {
			st.Issues = append(st.Issues, storemodel.Issue{Code: finding.StoreRecordMalformed, File: f.Path, Subject: "collection " + name,
				Message: "collection name is not a single path component; not read"})
			continue
		}
		db := filepath.Join(location, "collection", name, storageFile)
		if _, err := os.Stat(db); err != nil {
			st.Notes = append(st.Notes, fmt.Sprintf("collection \"%s\": no %s (QdrantLocal would start it empty)", name, storageFile))
			continue
		}
		if err := readCollection(ctx, db, name, st); err != nil {
			return err
		}
	}
	return nil
}

func readCollection(ctx context.Context, path, name string, st *storemodel.Store) error {
	if !sqlitecols.Has(path, "points", "id", "point") {
		return fmt.Errorf("%s: no points(id, point) table (qdrant_client/local/persistence.py)", path)
	}
	db, err := sqlitecols.OpenDescribed(ctx, path, "Qdrant local collection "+name+" (SQLite)", st)
	if err != nil {
		return err
	}
	defer db.Close()
	byID := map[string]int{}
	return sqlitecols.EachRow(ctx, db, path, "SELECT rowid, "+sqlitecols.Capped("id", 4096)+", octet_length(point), CASE WHEN octet_length(point) <= ? THEN point END FROM points ORDER BY rowid", []any{MaxPoint}, func(rows *sql.Rows) error {
		var row int64
		key := sqlitecols.Cell{Max: 4096}
		var size sql.NullInt64
		var blob []byte
		if err := rows.Scan(append(append([]any{&row}, key.Dest()...), &size, &blob)...); err != nil {
			return fmt.Errorf("%s: %v", path, err)
		}
		issue := func(code finding.Code, msg string) {
			st.Issues = append(st.Issues, storemodel.Issue{Code: code, File: path, Subject: fmt.Sprintf("points row %d", row), Message: msg})
		}
		if size.Int64 > MaxPoint {
			issue(finding.StoreRecordMalformed, fmt.Sprintf("field point: %d bytes, over the %d-byte limit; not read", size.Int64, MaxPoint))
			return nil
		}
		p, err := DecodePoint(blob)
		if err != nil {
			issue(finding.StoreRecordMalformed, "field point: "+err.Error())
			return nil
		}
		if k, err := DecodeKey(key.Value.String); key.Over() || err != nil || k != p.ID {
			why := "it decodes to another id"
			if key.Over() || err != nil {
				why = "it does not decode"
			}
			issue(finding.VectorKeyMismatch, fmt.Sprintf("field id: %s (persist writes encode_key(point.id)); qdrant-client loads the point by its pickled id \"%s\"", why, p.ID))
		}
		if prev, dup := byID[p.ID]; dup {
			issue(finding.VectorKeyMismatch, fmt.Sprintf("point id \"%s\" is also row %d's: qdrant-client keeps both vectors and resolves the id to this later one", p.ID, st.Vectors[prev].Row))
		}
		byID[p.ID] = len(st.Vectors)
		st.Vectors = append(st.Vectors, toVector(p, name, row))
		return nil
	})
}

// toVector lifts Mem0's payload keys (mem0/memory/main.py: data, hash,
// created_at, updated_at, user_id).
func toVector(p *Point, collection string, row int64) storemodel.VectorPoint {
	v := storemodel.VectorPoint{ID: p.ID, Collection: collection, Dims: p.Dims, Row: row}
	for _, kv := range p.Payload {
		v.Payload = append(v.Payload, storemodel.PayloadValue{Key: kv.Key, Value: JSON(kv.Value)})
		if s, isStr := kv.Value.(string); isStr {
			v.SetMem0Field(kv.Key, s)
		}
	}
	return v
}

// AnyPointHas says whether the first point of some collection of the
// location carries every one of keys in its payload (one row decoded per
// collection: enough to tell whose points these are).
func AnyPointHas(ctx context.Context, location string, keys ...string) bool {
	b, _, err := storefile.ReadAll(ctx, filepath.Join(location, metaFile), "Qdrant local meta.json", maxMeta)
	if err != nil {
		return false
	}
	cols, err := metaCollections(b)
	if err != nil {
		return false
	}
	for name := range cols {
		if name == "" || name == "." || name == ".." || strings.ContainsAny(name, "/\\\x00") {
			continue
		}
		if p := firstPoint(ctx, filepath.Join(location, "collection", name, storageFile)); p != nil && hasKeys(p.Payload, keys) {
			return true
		}
	}
	return false
}

func firstPoint(ctx context.Context, path string) *Point {
	if !sqlitecols.Has(path, "points", "id", "point") {
		return nil
	}
	db, err := sqlitecols.Open(path)
	if err != nil {
		return nil
	}
	defer db.Close()
	var blob []byte
	if db.QueryRowContext(ctx, "SELECT point FROM points WHERE octet_length(point) <= ? ORDER BY rowid LIMIT 1", MaxPoint).Scan(&blob) != nil {
		return nil
	}
	p, err := DecodePoint(blob)
	if err != nil {
		return nil
	}
	return p
}

func hasKeys(kvs []KV, keys []string) bool {
	for _, k := range keys {
		found := false
		for _, kv := range kvs {
			found = found || kv.Key == k
		}
		if !found {
			return false
		}
	}
	return true
}
