package verify_test

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/memscope/memscope/finding"
	"github.com/memscope/memscope/verify"
)

// columnExempt lists the only columns a change to which verify cannot see,
// with why that is acceptable. docs/FORMAT.md ("What verify covers") says
// the same. Every other column of every table is mutated below.
var columnExempt = map[string]string{
	"meta.key":            "meta holds the store's unsigned claims (description, hints for unanchored runs, import accounts); outputs show them as claims and verify checks the ones evidence can contradict (format, log_origin against the checkpoint); nothing signs them",
	"meta.value":          "as meta.key",
	"checkpoints.seen_at": "the store's own clock reading when it saw a checkpoint: an unsigned claim; verify bounds it from below (TIME_AFTER_CHECKPOINT) and in row order (ROW_ORDER) but nothing signs it",
}

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
// (every table has two rows or more), or smsr for the HMAC tag (verified
// with its key).
func mutationScenario(table, col string) string {
	if table+"."+col == "entries.hmac_tag" {
		return "smsr"
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
// at least one new error finding. Tables and columns come from the schema.
func TestMutateEveryColumn(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"tombstone", "smsr"} {
		if f := signedFindings(baseline(t, name)); len(f) != 0 && name == "tombstone" {
			t.Fatalf("%s is not a clean signed store: %+v", name, f)
		}
		for _, c := range baseline(t, name).Coverage {
			if c.Status != verify.StatusSigned && c.Status != verify.StatusEmpty {
				t.Fatalf("%s: table %s is %s, not signed", name, c.Table, c.Status)
			}
		}
	}
	db, err := sql.Open("sqlite", "file:"+pristine(t, "tombstone")+"/snapshot.db?mode=ro&immutable=1")
	if err != nil {
		t.Fatal(err)
	}
	tables := schemaColumns(t, db)
	db.Close()
	seen := map[string]bool{}
	for table, cols := range tables {
		for _, col := range cols {
			key := table + "." + col
			seen[key] = true
			if why, ok := columnExempt[key]; ok {
				t.Logf("%s not mutated: %s", key, why)
				continue
			}
			t.Run(key, func(t *testing.T) {
				t.Parallel()
				name := mutationScenario(table, col)
				dir := mutableCopy(t, name)
				var did string
				withDB(t, dir, func(db *sql.DB) { did = mutateColumn(t, db, table, col) })
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
			})
		}
	}
	for key := range columnExempt {
		if !seen[key] {
			t.Errorf("exempt column %s is not in the schema", key)
		}
	}
}
