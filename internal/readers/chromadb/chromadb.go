// Package chromadb reads a Chroma 1.x persist directory (chroma.sqlite3;
// the vector store Mem0 OSS writes with provider "chroma") natively and
// read-only, as Chroma itself answers collection.get(), following
// chroma-core/chroma at commit 93652ec0 (2026-08-22):
//
//	rust/segment/src/sqlite_metadata.rs  SqliteMetadataReader::get: the
//	    records of a collection are the embeddings rows of its METADATA
//	    segment, in embeddings.id order; each metadata key is one
//	    embedding_metadata row whose value is the first non-NULL of
//	    string_value, int_value, float_value, bool_value; array values
//	    come from embedding_metadata_array (metadb migration 6)
//	chromadb/db/mixins/embeddings_queue.py  embeddings_queue rows: operation
//	    0 ADD, 1 UPDATE, 2 UPSERT, 3 DELETE; vector = little-endian float32
//	    (encoding FLOAT32); topic ends with the collection id
//
// The HNSW segment files are not read: they lag the SQLite tables (a real
// store's data_level0.bin still held 14 of its 20 embeddings), and the
// queue keeps each vector.
package chromadb

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/memscope/memscope/internal/present/finding"
	"github.com/memscope/memscope/internal/readers/sqlitecols"
	"github.com/memscope/memscope/internal/readers/storemodel"
)

// DBFile is Chroma's SQLite file in a persist directory.
const DBFile = "chroma.sqlite3"

// maxValue bounds one metadata value read into memory.
const maxValue = 16 << 20

// Locate returns the chroma.sqlite3 of path (the file or its directory).
func Locate(path string) (string, bool) {
	db := path
	if st, err := os.Stat(path); err != nil {
		return "", false
	} else if st.IsDir() {
		db = filepath.Join(path, DBFile)
	}
	if !sqlitecols.Has(db, "embeddings", "id", "segment_id", "embedding_id") ||
		!sqlitecols.Has(db, "embedding_metadata", "id", "key", "string_value", "int_value", "float_value") ||
		!sqlitecols.Has(db, "segments", "id", "scope", "collection") {
		return "", false
	}
	return db, true
}

// Looks says whether path is a Chroma persist directory or its SQLite file.
func Looks(path string) bool {
	_, ok := Locate(path)
	return ok
}

type collection struct{ id, name, segment string }

// Read reads every collection's records into st.Vectors, in collection
// name order and, within one, embeddings.id order.
func Read(ctx context.Context, path string, st *storemodel.Store) error {
	db, err := sqlitecols.OpenDescribed(ctx, path, "Chroma database (SQLite)", st)
	if err != nil {
		return err
	}
	defer db.Close()
	cols, err := collections(ctx, db)
	if err != nil {
		return fmt.Errorf("%s: %v", path, err)
	}
	hasArray, _ := sqlitecols.Columns(ctx, db, "embedding_metadata_array")
	hasQueue, _ := sqlitecols.Columns(ctx, db, "embeddings_queue")
	hasBool, _ := sqlitecols.Columns(ctx, db, "embedding_metadata")
	for _, c := range cols {
		dims := map[string]int{}
		if hasQueue["vector"] {
			if dims, err = queueDims(ctx, db, path, c, st); err != nil {
				return err
			}
		}
		if err := readRecords(ctx, db, path, c, hasBool["bool_value"], dims, st); err != nil {
			return err
		}
		if hasArray["key"] {
			if err := readArrays(ctx, db, path, c, st); err != nil {
				return err
			}
		}
	}
	return nil
}

func collections(ctx context.Context, db *sql.DB) ([]collection, error) {
	rows, err := db.QueryContext(ctx, `SELECT c.id, c.name, s.id FROM collections c JOIN segments s ON s.collection = c.id AND s.scope = 'METADATA' ORDER BY c.name, s.id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []collection
	for rows.Next() {
		var c collection
		if err := rows.Scan(&c.id, &c.name, &c.segment); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// queueDims is each id's vector length from its last queue row that
// carries one (ADD, UPDATE, UPSERT), for the collection's topic.
func queueDims(ctx context.Context, db *sql.DB, path string, c collection, st *storemodel.Store) (map[string]int, error) {
	out := map[string]int{}
	err := sqlitecols.EachRow(ctx, db, path+": embeddings_queue", `SELECT seq_id, id, octet_length(vector), encoding FROM embeddings_queue
		WHERE (topic = ? OR topic LIKE ?) AND vector IS NOT NULL AND operation IN (0, 1, 2) ORDER BY seq_id`, []any{c.id, "%/" + c.id}, func(rows *sql.Rows) error {
		var seq int64
		var id string
		var n sql.NullInt64
		var enc sql.NullString
		if err := rows.Scan(&seq, &id, &n, &enc); err != nil {
			return fmt.Errorf("%s: embeddings_queue: %v", path, err)
		}
		if enc.String != "FLOAT32" || n.Int64%4 != 0 {
			st.Issues = append(st.Issues, storemodel.Issue{Code: finding.StoreRecordMalformed, File: path, Subject: fmt.Sprintf("embeddings_queue seq_id %d", seq),
				Message: fmt.Sprintf("field vector: %d bytes with encoding \"%s\", not whole little-endian float32s", n.Int64, enc.String)})
			return nil
		}
		out[id] = int(n.Int64 / 4)
		return nil
	})
	return out, err
}

func readRecords(ctx context.Context, db *sql.DB, path string, c collection, hasBool bool, dims map[string]int, st *storemodel.Store) error {
	boolCol := "NULL"
	if hasBool {
		boolCol = "m.bool_value"
	}
	at := map[int64]int{}
	return sqlitecols.EachRow(ctx, db, path+": embeddings", `SELECT e.id, e.embedding_id, m.key, `+sqlitecols.Capped("m.string_value", maxValue)+`, typeof(m.string_value), m.int_value, m.float_value, `+boolCol+`
		FROM embeddings e LEFT JOIN embedding_metadata m ON m.id = e.id WHERE e.segment_id = ? ORDER BY e.id, m.rowid`, []any{c.segment}, func(rows *sql.Rows) error {
		var id int64
		var eid string
		var key sql.NullString
		str := sqlitecols.Cell{Max: maxValue}
		var strType string
		var iv sql.NullInt64
		var fv sql.NullFloat64
		var bv sql.NullBool
		if err := rows.Scan(append(append([]any{&id, &eid, &key}, str.Dest()...), &strType, &iv, &fv, &bv)...); err != nil {
			return fmt.Errorf("%s: embeddings row: %v", path, err)
		}
		i, seen := at[id]
		if !seen {
			i = len(st.Vectors)
			at[id] = i
			st.Vectors = append(st.Vectors, storemodel.VectorPoint{ID: eid, Collection: c.name, Dims: dims[eid], Row: id})
		}
		if !key.Valid {
			return nil
		}
		if str.Over() {
			st.Issues = append(st.Issues, storemodel.Issue{Code: finding.StoreRecordMalformed, File: path, Subject: fmt.Sprintf("embedding_metadata id %d key \"%s\"", id, key.String),
				Message: fmt.Sprintf("field string_value: %d bytes, over the %d-byte limit; not read", str.Size.Int64, maxValue)})
			return nil
		}
		if v, ok := value(str, strType, iv, fv, bv); ok {
			setKey(&st.Vectors[i], key.String, v, str.Value.Valid && strType == "text")
		}
		return nil
	})
}

// value is the first non-NULL of the four value columns, as JSON.
func value(str sqlitecols.Cell, strType string, iv sql.NullInt64, fv sql.NullFloat64, bv sql.NullBool) (string, bool) {
	switch {
	case str.Value.Valid && strType == "text":
		return strconv.Quote(str.Value.String), true
	case iv.Valid:
		return strconv.FormatInt(iv.Int64, 10), true
	case fv.Valid:
		return strconv.FormatFloat(fv.Float64, 'g', -1, 64), true
	case bv.Valid:
		return strconv.FormatBool(bv.Bool), true
	}
	return "", false
}

// setKey stores one metadata key: embedding_metadata's primary key is
// (id, key), so a key occurs once per record.
func setKey(v *storemodel.VectorPoint, key, jsonValue string, isText bool) {
	v.Payload = append(v.Payload, storemodel.PayloadValue{Key: key, Value: jsonValue})
	if !isText {
		return
	}
	if s, err := strconv.Unquote(jsonValue); err == nil {
		v.SetMem0Field(key, s)
	}
}

// readArrays merges array metadata (one row per element) into the
// collection's records, as accumulate_array_value does.
func readArrays(ctx context.Context, db *sql.DB, path string, c collection, st *storemodel.Store) error {
	byRow := map[int64]int{}
	for i, v := range st.Vectors {
		if v.Collection == c.name {
			byRow[v.Row] = i
		}
	}
	arrays := map[int]map[string][]string{}
	var order []struct {
		i   int
		key string
	}
	err := sqlitecols.EachRow(ctx, db, path+": embedding_metadata_array", `SELECT a.id, a.key, `+sqlitecols.Capped("a.string_value", maxValue)+`, typeof(a.string_value), a.int_value, a.float_value, a.bool_value
		FROM embedding_metadata_array a JOIN embeddings e ON e.id = a.id WHERE e.segment_id = ? ORDER BY a.rowid`, []any{c.segment}, func(rows *sql.Rows) error {
		var id int64
		var key string
		str := sqlitecols.Cell{Max: maxValue}
		var strType string
		var iv sql.NullInt64
		var fv sql.NullFloat64
		var bv sql.NullBool
		if err := rows.Scan(append(append([]any{&id, &key}, str.Dest()...), &strType, &iv, &fv, &bv)...); err != nil {
			return fmt.Errorf("%s: embedding_metadata_array: %v", path, err)
		}
		i, ok := byRow[id]
		v, has := value(str, strType, iv, fv, bv)
		if !ok || !has {
			return nil
		}
		if arrays[i] == nil {
			arrays[i] = map[string][]string{}
		}
		if arrays[i][key] == nil {
			order = append(order, struct {
				i   int
				key string
			}{i, key})
		}
		arrays[i][key] = append(arrays[i][key], v)
		return nil
	})
	if err != nil {
		return err
	}
	for _, o := range order {
		st.Vectors[o.i].Payload = append(st.Vectors[o.i].Payload, storemodel.PayloadValue{Key: o.key, Value: "[" + strings.Join(arrays[o.i][o.key], ", ") + "]"})
	}
	return nil
}

// HasCollectionOrKeys says whether the database holds a collection of
// that name, or a record carrying every one of keys as metadata (one
// indexed lookup per key).
func HasCollectionOrKeys(ctx context.Context, path, collection string, keys ...string) bool {
	db, err := sqlitecols.Open(path)
	if err != nil {
		return false
	}
	defer db.Close()
	var n int
	if db.QueryRowContext(ctx, "SELECT COUNT(*) FROM collections WHERE name = ?", collection).Scan(&n) == nil && n > 0 {
		return true
	}
	for _, k := range keys {
		if db.QueryRowContext(ctx, "SELECT 1 FROM embedding_metadata WHERE key = ? LIMIT 1", k).Scan(&n) != nil {
			return false
		}
	}
	return len(keys) > 0
}
