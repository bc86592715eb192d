package verify_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/memscope/memscope/evidence"
	"github.com/memscope/memscope/internal/present/finding"
	"github.com/memscope/memscope/verify"
)

// schemaColumns lists every table of a snapshot and its columns, from the
// schema itself (PRAGMA table_info), so a column added to the format is
// mutated without anyone remembering to add it here.
func schemaColumns(t *testing.T, db *sql.DB) map[string][]string {
	t.Helper()
	rows, err := db.Query("SELECT m.name, p.name FROM sqlite_schema AS m JOIN pragma_table_info(m.name) AS p WHERE m.type = 'table' ORDER BY m.name, p.cid")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string][]string{}
	for rows.Next() {
		var table, col string
		if err := rows.Scan(&table, &col); err != nil {
			t.Fatal(err)
		}
		out[table] = append(out[table], col)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// mutationScenario is the signed store a column is mutated in: tombstone
// (every table has two rows or more), smsr for the HMAC tag (verified with
// its key), or mwp for the vector index (the only scenario that keeps one).
func mutationScenario(table, col string) string {
	switch {
	case table+"."+col == "entries.hmac_tag":
		return "smsr"
	case table == "vectors":
		return "mwp"
	}
	return "tombstone"
}

// mutateJSON changes the first leaf value of a JSON document (a number
// doubled plus one, a string's last character changed, a bool negated), or
// adds an element to an empty container: the row still parses, and says
// something else.
func mutateJSON(v any) (any, bool) {
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if nv, ok := mutateJSON(x[k]); ok {
				x[k] = nv
				return x, true
			}
		}
		x["mutated"] = "1"
		return x, true
	case []any:
		for i := range x {
			if nv, ok := mutateJSON(x[i]); ok {
				x[i] = nv
				return x, true
			}
		}
		return append(x, "019cadc6-0000-7000-8000-000000000000"), true
	case float64:
		return x*2 + 1, true
	case string:
		return mutateText(x), true
	case bool:
		return !x, true
	}
	return v, false
}

// mutateText changes a text value: the last hex digit of an id or tag
// flips (it stays well formed), other text gains a character.
func mutateText(s string) string {
	if s == "" {
		return "x"
	}
	last := s[len(s)-1]
	if strings.ContainsRune("0123456789abcdef", rune(last)) && len(s) >= 16 {
		flip := byte('0')
		if last == '0' {
			flip = '1'
		}
		return s[:len(s)-1] + string(flip)
	}
	return s + "x"
}

// mutateColumn changes one column of one row (the first by seq whose value
// is not NULL, else the first) and says what it did. seq itself is an order
// only, so its mutation moves the first row after the last.
func mutateColumn(t *testing.T, db *sql.DB, table, col string) string {
	t.Helper()
	if col == "seq" {
		exec(t, db, fmt.Sprintf("UPDATE %[1]s SET seq = (SELECT max(seq) + 1 FROM %[1]s) WHERE seq = (SELECT min(seq) FROM %[1]s)", table))
		return "first row moved after the last"
	}
	var seq int64
	var val any
	err := db.QueryRow(fmt.Sprintf("SELECT seq, %[2]s FROM %[1]s ORDER BY %[2]s IS NULL, seq LIMIT 1", table, col)).Scan(&seq, &val)
	if err != nil {
		t.Fatalf("%s.%s: %v", table, col, err)
	}
	var nv any
	switch x := val.(type) {
	case int64:
		nv = x ^ 1
	case float64:
		nv = x*2 + 1
	case []byte: // a BLOB (modernc returns TEXT as string)
		b := append([]byte(nil), x...)
		b[len(b)/2] ^= 0x01
		nv = b
	case string:
		var doc any
		if json.Unmarshal([]byte(x), &doc) == nil && (strings.HasPrefix(x, "{") || strings.HasPrefix(x, "[")) {
			m, _ := mutateJSON(doc)
			b, err := json.Marshal(m)
			if err != nil {
				t.Fatal(err)
			}
			nv = string(b)
		} else {
			nv = mutateText(x)
		}
	case nil:
		nv = "019cadc6-0000-7000-8000-000000000000"
	default:
		t.Fatalf("%s.%s: value of type %T", table, col, val)
	}
	exec(t, db, fmt.Sprintf("UPDATE %s SET %s = ? WHERE seq = ?", table, col), nv, seq)
	return fmt.Sprintf("seq %d: %v -> %v", seq, short(val), short(nv))
}

func short(v any) string {
	s := fmt.Sprint(v)
	if b, ok := v.([]byte); ok {
		s = fmt.Sprintf("%d-byte blob", len(b))
	}
	if len(s) > 60 {
		s = s[:60] + "..."
	}
	return s
}

// newFindings are the findings of rep that the pristine store's report
// does not have (by code and subject).
func newFindings(t *testing.T, name string, rep *verify.Report) []finding.Finding {
	base := map[codeSubject]bool{}
	for _, f := range baseline(t, name).Findings {
		base[codeSubject{string(f.Code), f.Subject}] = true
	}
	var out []finding.Finding
	for _, f := range rep.Findings {
		if !base[codeSubject{string(f.Code), f.Subject}] {
			out = append(out, f)
		}
	}
	return out
}

// TestMutateEveryColumn is issue 9's done-when: on a signed generated
// store, changing any column of any table (one at a time, in a copy) gives
// at least one new error finding. Tables and columns come from the schema
// (of tombstone, and of mwp for the optional vector table); no column is
// exempt. meta has no seq, so every one of its rows is mutated.
func TestMutateEveryColumn(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"tombstone", "smsr", "mwp"} {
		if f := signedFindings(baseline(t, name)); len(f) != 0 && name == "tombstone" {
			t.Fatalf("%s is not a clean signed store: %+v", name, f)
		}
		for _, c := range baseline(t, name).Coverage {
			if c.Status != verify.StatusSigned && c.Status != verify.StatusEmpty {
				t.Fatalf("%s: table %s is %s, not signed", name, c.Table, c.Status)
			}
		}
	}
	tables := map[string][]string{}
	for _, name := range []string{"tombstone", "mwp"} {
		db, err := sql.Open("sqlite", "file:"+pristine(t, name)+"/snapshot.db?mode=ro&immutable=1")
		if err != nil {
			t.Fatal(err)
		}
		for table, cols := range schemaColumns(t, db) {
			tables[table] = cols
		}
		db.Close()
	}
	if _, ok := tables["vectors"]; !ok {
		t.Fatal("the mwp scenario has no vector table")
	}
	for table, cols := range tables {
		for _, col := range cols {
			key := table + "." + col
			if table == "meta" {
				mutateMeta(t, col)
				continue
			}
			t.Run(key, func(t *testing.T) {
				t.Parallel()
				name := mutationScenario(table, col)
				dir := mutableCopy(t, name)
				var did string
				withDB(t, dir, func(db *sql.DB) { did = mutateColumn(t, db, table, col) })
				requireNewError(t, name, dir, key, did)
			})
		}
	}
}

// requireNewError runs verify on a mutated copy and requires a new
// error-severity finding.
func requireNewError(t *testing.T, name, dir, key, did string) {
	t.Helper()
	var errs []string
	for _, f := range newFindings(t, name, runScenario(t, dir)) {
		if f.Severity == finding.SevError {
			errs = append(errs, string(f.Code)+" "+f.Subject)
		}
	}
	if len(errs) == 0 {
		t.Fatalf("%s (%s): verify found nothing new", key, did)
	}
	t.Logf("%s (%s): %s", key, did, strings.Join(errs, "; "))
}

// mutateMeta changes column col of every meta row of tombstone, one row at
// a time. Changing the format key or value makes the store unreadable as a
// memscope snapshot: verify refuses it with an error naming meta, which is
// caught too.
func mutateMeta(t *testing.T, col string) {
	for _, key := range metaKeys(t) {
		t.Run("meta."+col+"/"+key, func(t *testing.T) {
			t.Parallel()
			dir := mutableCopy(t, "tombstone")
			var did string
			withDB(t, dir, func(db *sql.DB) {
				var val any
				if err := db.QueryRow("SELECT "+col+" FROM meta WHERE key = ?", key).Scan(&val); err != nil {
					t.Fatal(err)
				}
				var nv any
				switch x := val.(type) {
				case int64:
					nv = x ^ 1
				case []byte:
					b := append([]byte(nil), x...)
					b[len(b)/2] ^= 0x01
					nv = b
				case string:
					nv = mutateText(x)
				default:
					t.Fatalf("meta.%s of %s: value of type %T", col, key, val)
				}
				exec(t, db, "UPDATE meta SET "+col+" = ? WHERE key = ?", nv, key)
				did = fmt.Sprintf("key %s: %v -> %v", key, short(val), short(nv))
			})
			if key == "format" && (col == "key" || col == "value") {
				m, err := evidence.ReadManifest(dir)
				if err != nil {
					t.Fatal(err)
				}
				_, err = verify.Run(context.Background(), verify.Options{Snapshot: filepath.Join(dir, m.Snapshot), Log: filepath.Join(dir, m.Log)})
				if err == nil || !strings.Contains(err.Error(), "meta") {
					t.Fatalf("meta.%s of format (%s): verify ran (%v)", col, did, err)
				}
				return
			}
			requireNewError(t, "tombstone", dir, "meta."+col, did)
		})
	}
}

// metaKeys lists every meta key of the pristine tombstone store.
func metaKeys(t *testing.T) []string {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(pristine(t, "tombstone"), evidence.SnapshotFile)+"?mode=ro&immutable=1")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query("SELECT key FROM meta ORDER BY key")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var k string
		if err := rows.Scan(&k); err != nil {
			t.Fatal(err)
		}
		out = append(out, k)
	}
	if len(out) < 5 {
		t.Fatalf("meta holds only %v", out)
	}
	return out
}
