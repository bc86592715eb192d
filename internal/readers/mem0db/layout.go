package mem0db

// Mem0's history database over its releases (mem0ai/mem0,
// mem0/memory/storage.py SQLiteManager and mem0/memory/main.py), told from
// the tables and columns present:
//
//	before 0.1.107  history(id, memory_id, old_memory, new_memory, new_value,
//	                event, created_at, updated_at, is_deleted): no actor_id or
//	                role (storage.py at v0.1.50)
//	0.1.107-1.x     _migrate_history_table drops new_value and adds actor_id,
//	                role (commit a40268dd5, 2025-06-11, v0.1.107)
//	2.x             adds messages(id, session_scope, role, content, name,
//	                created_at) (_create_messages_table, v2.0.0, 2026-04-16).
//	                add() writes ADD rows only; they go in through
//	                batch_add_history with old_memory, updated_at, actor_id and
//	                role NULL (main.py _add_to_vector_store, v2.0.0)
//
// Every version before commit 1aecfadf4 (2026-03-26, "fix: add timestamps
// for DELETE operations in history", first released in v1.0.8) wrote DELETE
// rows with created_at and updated_at NULL (main.py _delete_memory): such a
// row is upstream behaviour, reported as MEM0_DELETE_UNDATED (info).

import "github.com/memscope/memscope/internal/readers/storemodel"

const undatedDeleteWhy = "DELETE row with NULL created_at and updated_at: Mem0 wrote DELETE rows without times until upstream commit 1aecfadf4 (2026-03-26, first released in 1.0.8); upstream behaviour, placed by storage order"

// undatedDelete is a DELETE row as Mem0 before 1aecfadf4 wrote it.
func undatedDelete(v storemodel.Version) bool {
	return v.Event == "DELETE" && v.CreatedAt == "" && v.UpdatedAt == ""
}

// layoutOf names the Mem0 release range whose history schema this is.
func layoutOf(history, messages map[string]bool) string {
	switch {
	case messages["session_scope"]:
		return "Mem0 2.x (history with actor_id and role, messages table; add() writes ADD rows only)"
	case history["actor_id"] && history["role"]:
		return "Mem0 0.1.107-1.x (history with actor_id and role, no messages table)"
	}
	return "Mem0 before 0.1.107 (history without actor_id and role)"
}
