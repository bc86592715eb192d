package mem0db

import (
	"context"
	"database/sql"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memscope/memscope/internal/present/finding"
)

// Each schema Mem0 has written, as mem0/memory/storage.py created it
// (SQLiteManager._create_history_table at v0.1.50, at v0.1.107 after
// _migrate_history_table, and v2.0.0's _create_messages_table), opens with
// its layout named; a pre-1aecfadf4 DELETE row without times is info.
func TestMem0Schemas(t *testing.T) {
	schemas := []struct{ ddl, layout string }{
		{`CREATE TABLE history (id TEXT PRIMARY KEY, memory_id TEXT, old_memory TEXT, new_memory TEXT, new_value TEXT, event TEXT, created_at DATETIME, updated_at DATETIME, is_deleted INTEGER)`, "Mem0 before 0.1.107"},
		{`CREATE TABLE history (id TEXT PRIMARY KEY, memory_id TEXT, old_memory TEXT, new_memory TEXT, event TEXT, created_at DATETIME, updated_at DATETIME, is_deleted INTEGER, actor_id TEXT, role TEXT)`, "Mem0 0.1.107-1.x"},
		{`CREATE TABLE history (id TEXT PRIMARY KEY, memory_id TEXT, old_memory TEXT, new_memory TEXT, event TEXT, created_at DATETIME, updated_at DATETIME, is_deleted INTEGER, actor_id TEXT, role TEXT);
		  CREATE TABLE messages (id TEXT PRIMARY KEY, session_scope TEXT, role TEXT, content TEXT, name TEXT, created_at DATETIME)`, "Mem0 2.x"},
	}
	for _, s := range schemas {
		p := filepath.Join(t.TempDir(), "history.db")
		db, err := sql.Open("sqlite", p)
		if err != nil {
			t.Fatal(err)
		}
		stmts := []string{s.ddl,
			// add(): an ADD as batch_add_history writes it in 2.x (old_memory,
			// updated_at NULL), then _delete_memory's row before 1aecfadf4.
			`INSERT INTO history (id, memory_id, old_memory, new_memory, event, created_at, updated_at, is_deleted) VALUES ('h1', 'm1', NULL, 'likes tea', 'ADD', '2025-05-01T10:00:00.000000-07:00', NULL, 0)`,
			`INSERT INTO history (id, memory_id, old_memory, new_memory, event, created_at, updated_at, is_deleted) VALUES ('h2', 'm1', 'likes tea', NULL, 'DELETE', NULL, NULL, 1)`}
		for _, q := range stmts {
			if _, err := db.Exec(q); err != nil {
				t.Fatal(err)
			}
		}
		db.Close()
		st, err := Open(context.Background(), p)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(st.Layout, s.layout) || len(st.Versions) != 2 {
			t.Errorf("layout %q, %d rows; want %s and 2", st.Layout, len(st.Versions), s.layout)
		}
		fs := storeFindings(st)
		undated := 0
		for _, f := range fs {
			if f.Severity == finding.SevError {
				t.Errorf("%s: error %s %s", s.layout, f.Code, f.Message)
			}
			if f.Code == finding.Mem0DeleteUndated {
				undated++
			}
		}
		if undated != 1 {
			t.Errorf("%s: %d MEM0_DELETE_UNDATED, want 1: %v", s.layout, undated, fs)
		}
	}
}
