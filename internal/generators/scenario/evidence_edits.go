package scenario

import (
	"encoding/json"

	"github.com/memscope/memscope/evidence/record"
	"github.com/memscope/memscope/evidence/writer"
)

// The scenarios in this file edit signed evidence of what the agent did
// (its queries and actions) after the fact: verify sees each edit because
// the rows are signed records in the log.

const tamperedResetDesc = "After the agent ran q-born-first, its queries row was edited: the reset mass of entity:karen-joy-fowler was multiplied by 5 (the signed query record still holds the original). Verify reports the row against the record (COLUMN_MISMATCH); replay of q-born-first on the edited row no longer gives the selection the agent recorded. Queries diverging between G and G_auth: none."

// buildTamperedReset edits one query's reset vector in the table only.
func buildTamperedReset(e *env, _ Options) ([]string, string, error) {
	if err := e.base(); err != nil {
		return nil, "", err
	}
	q := queries[0] // q-born-first
	reset, _ := resetOf(q)
	reset["entity:karen-joy-fowler"] *= 5
	b, err := json.Marshal(reset)
	if err != nil {
		return nil, "", err
	}
	if err := e.st.Exec("UPDATE queries SET reset = ? WHERE id = ?", string(b), q.id); err != nil {
		return nil, "", err
	}
	return []string{"COLUMN_MISMATCH"}, "verify: the q-born-first row's reset column disagrees with its signed query record (COLUMN_MISMATCH); replay --query q-born-first shows the edited reset vector no longer reproduces the recorded selection.", nil
}

const hiddenActionDesc = "The agent dispatched two more transfers after the born-first query, both signed and logged. Afterwards act-wire-hidden's row was deleted from the actions table and act-pay-stripped's signed record was removed from its row. Verify finds the action leaf the store no longer holds (LEAF_WITHOUT_RECORD) and the row without a record in a store that signs its actions (ROW_UNSIGNED). Queries diverging between G and G_auth: none."

// buildHiddenAction hides one logged action and strips another's record.
func buildHiddenAction(e *env, _ Options) ([]string, string, error) {
	if err := e.base(); err != nil {
		return nil, "", err
	}
	for _, id := range []string{"act-wire-hidden", "act-pay-stripped"} {
		if err := e.action(writer.Action{ID: id, Tool: "transfer_funds", Params: map[string]string{"recipient": "account 7731", "amount": "1000"},
			Justification: []record.ID{e.id("note-prize")}, Dispatched: true, TS: int64(e.tick()), Query: "q-born-first",
			Sources: map[string]writer.ParamSources{"amount": {From: e.ids("note-prize")}}}); err != nil {
			return nil, "", err
		}
	}
	// The stripped row still reads (as an unsigned claim): its recipient
	// has no recorded source, so MemLineage refuses it; the hidden one has
	// no row and so no verdict.
	e.expectAction("act-pay-stripped", "allow", "allow", "deny", "accept")
	if err := e.st.Exec("DELETE FROM actions WHERE id = 'act-wire-hidden'"); err != nil {
		return nil, "", err
	}
	if err := e.st.Exec("UPDATE actions SET record = NULL, leaf_index = NULL WHERE id = 'act-pay-stripped'"); err != nil {
		return nil, "", err
	}
	if _, err := e.st.Checkpoint(int64(e.tick())); err != nil {
		return nil, "", err
	}
	return []string{"LEAF_WITHOUT_RECORD", "ROW_UNSIGNED", "TABLE_UNSIGNED"}, "verify: an action leaf with no row in the actions table (act-wire-hidden, LEAF_WITHOUT_RECORD) and act-pay-stripped's row without its signed record (ROW_UNSIGNED; the actions table is partly unsigned, TABLE_UNSIGNED); its leaf is orphaned too.", nil
}
