package mem0db

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/memscope/memscope/internal/evidencetest"
	"github.com/memscope/memscope/internal/present/finding"
	"github.com/memscope/memscope/internal/readers/storemodel"
)

// A history table given its own column named rowid (values the attacker
// chose, here the reverse of the write order) reads in the same order as
// the untouched store, with a finding naming the column; likewise when
// rowid, _rowid_ and oid are all shadowed (a table scan is rowid order).
func TestShadowedRowid(t *testing.T) {
	t.Parallel()
	orig := filepath.Join(fixtures, "history.db")
	base, err := Open(context.Background(), orig)
	if err != nil {
		t.Fatal(err)
	}
	for name, cols := range map[string][]string{"rowid": {"RowID"}, "all aliases": {"rowid", "_rowid_", "OID"}} {
		decl, vals := "", ""
		for _, c := range cols {
			decl += ", " + c + " INTEGER"
			vals += ", 1000 - h0._rowid_"
		}
		path := evidencetest.EditedSQLiteCopy(t, orig,
			"ALTER TABLE history RENAME TO h0",
			"CREATE TABLE history (id TEXT PRIMARY KEY, memory_id TEXT, old_memory TEXT, new_memory TEXT, event TEXT, created_at DATETIME, updated_at DATETIME, is_deleted INTEGER, actor_id TEXT, role TEXT"+decl+")",
			"INSERT INTO history SELECT h0.*"+vals+" FROM h0 ORDER BY h0._rowid_",
			"DROP TABLE h0")
		st, err := Open(context.Background(), path)
		if err != nil {
			t.Fatal(err)
		}
		ids := func(s *storemodel.Store) []string {
			var out []string
			for _, v := range s.Versions {
				out = append(out, v.ID)
			}
			return out
		}
		if !slices.Equal(ids(st), ids(base)) {
			t.Errorf("%s: order %v, the untouched store's %v", name, ids(st), ids(base))
		}
		_, fs := Chains(st)
		_, want := Chains(base)
		if len(fs) != len(want) {
			t.Errorf("%s: %d chain findings, the untouched store %d", name, len(fs), len(want))
		}
		flagged := false
		for _, is := range st.Issues {
			flagged = flagged || is.Code == finding.StoreParseDifferential && is.Subject == "table history"
		}
		if !flagged {
			t.Errorf("%s: no finding for the shadowing column: %+v", name, st.Issues)
		}
	}
}
