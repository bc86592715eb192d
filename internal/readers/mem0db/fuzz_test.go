package mem0db

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/memscope/memscope/internal/evidencetest"
)

// FuzzOpen: any bytes as history.db open or fail with an error, never a
// panic; rows that open come in strictly increasing storage order.
func FuzzOpen(f *testing.F) {
	orig := filepath.Join(fixtures, "history.db")
	b, err := os.ReadFile(orig)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	shadow := evidencetest.EditedSQLiteCopy(f, orig,
		"ALTER TABLE history RENAME TO h0",
		"CREATE TABLE history (id TEXT PRIMARY KEY, memory_id TEXT, old_memory TEXT, new_memory TEXT, event TEXT, created_at DATETIME, updated_at DATETIME, is_deleted INTEGER, actor_id TEXT, role TEXT, rowid INTEGER, oid INTEGER, _rowid_ INTEGER)",
		"INSERT INTO history SELECT h0.*, 1, 2, 3 FROM h0",
		"DROP TABLE h0")
	if b, err = os.ReadFile(shadow); err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	f.Fuzz(func(t *testing.T, b []byte) {
		p := filepath.Join(t.TempDir(), "history.db")
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		st, err := Open(context.Background(), p)
		if err != nil {
			return
		}
		for i := 1; i < len(st.Versions); i++ {
			if st.Versions[i].Row <= st.Versions[i-1].Row {
				t.Fatalf("row %d after row %d", st.Versions[i].Row, st.Versions[i-1].Row)
			}
		}
	})
}
