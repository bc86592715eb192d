package recorder

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"golang.org/x/mod/sumdb/note"

	"github.com/memscope/memscope/evidence"
	"github.com/memscope/memscope/evidence/record"
	"github.com/memscope/memscope/evidence/snapshot"
	"github.com/memscope/memscope/evidence/tlog/appender"
	"github.com/memscope/memscope/evidence/writer"
)

// Format limits (docs/FORMAT.md) the recorder keeps to.
const (
	maxContent = 512 << 10
	maxParents = 4096
	maxText    = 64 << 10
)

// Tx is what a job may record. It is only valid inside the job.
type Tx struct{ r *Recorder }

var ctxBG = context.Background()

func (t *Tx) signer(principal string) (writer.Signer, error) {
	if !t.r.registered[principal] {
		return writer.Signer{}, fmt.Errorf("record: principal %s is not registered", principal)
	}
	key, err := t.r.ks.key(principal)
	return writer.Signer{Principal: principal, Key: key, Nonce: newNonce()}, err
}

// EntryIn describes an entry to record.
type EntryIn struct {
	Writer  string
	Content string
	Trust   record.Trust
	Parents []record.ID
	Weights []float64
	Source  [32]byte // h_src
	Context [32]byte // h_ctx
	Session string
}

// Entry signs and stores an entry and returns its id. Content over the
// format's limit is replaced by a note naming its size and SHA-256 (which
// is h_src then), so the record says what the agent saw without holding
// it.
func (t *Tx) Entry(in EntryIn) (record.ID, error) {
	sg, err := t.signer(in.Writer)
	if err != nil {
		return record.ID{}, err
	}
	content := in.Content
	if len(content) > maxContent || !utf8.ValidString(content) {
		sum := sha256.Sum256([]byte(content))
		content = fmt.Sprintf("[memscope record: content of %d bytes not kept (over %d bytes or not UTF-8); SHA-256 %x]", len(in.Content), maxContent, sum)
	}
	if len(in.Parents) > maxParents {
		in.Parents, in.Weights = in.Parents[len(in.Parents)-maxParents:], in.Weights[len(in.Weights)-maxParents:]
	}
	ts := now()
	e := &record.Entry{EID: newID(ts), Content: content, Writer: in.Writer, Trust: in.Trust, Parents: in.Parents, Weights: in.Weights,
		HSrc: in.Source, HCtx: in.Context, TS: ts, Nonce: sg.Nonce}
	if err := t.r.st.AddEntry(ctxBG, e, sg.Key, writer.EntryOptions{SessionID: in.Session}); err != nil {
		return record.ID{}, err
	}
	t.r.unflushed[e.EID] = t.r.batchSeq + 1
	if err := t.r.ix.setItem(in.Source, e.EID); err != nil {
		return record.ID{}, t.indexFailed(err)
	}
	return e.EID, nil
}

// indexFailed stops recording: the group's rows, recorded against an
// index that may be wrong, are not committed.
func (t *Tx) indexFailed(err error) error {
	t.r.fail(fmt.Errorf("record: item index failed, recording stopped: %w", err))
	return err
}

// Item returns the live entry recorded for a memory item key.
func (t *Tx) Item(key [32]byte) (record.ID, bool) {
	id, ok, err := t.r.ix.item(key)
	if err != nil {
		t.indexFailed(err)
	}
	return id, ok
}

// itemKeyOf is the h_src a live entry was recorded under, from its
// signed record in the snapshot; ok is false for an entry that is not
// live (never recorded, or tombstoned: its row is gone).
func (t *Tx) itemKeyOf(id record.ID) (key [32]byte, ok bool, err error) {
	var raw []byte
	switch err := t.r.st.QueryRow("SELECT record FROM entries WHERE eid = ?", id.String()).Scan(&raw); {
	case errors.Is(err, sql.ErrNoRows):
		return key, false, nil
	case err != nil:
		return key, false, err
	}
	e, err := record.DecodeEntry(raw)
	if err != nil {
		return key, false, fmt.Errorf("record: entry %s in the snapshot: %w", id, err)
	}
	return e.HSrc, true, nil
}

// Write signs and stores a structural write.
func (t *Tx) Write(kind, src, dst, rel string, weight float64, principal string, sources []record.ID) (record.ID, error) {
	if len(sources) > 0 {
		if err := t.r.addMember(src, sources[0]); err != nil {
			return record.ID{}, t.indexFailed(err)
		}
		if kind == record.KindRelation {
			if err := t.r.addMember(dst, sources[0]); err != nil {
				return record.ID{}, t.indexFailed(err)
			}
		}
	}
	sg, err := t.signer(principal)
	if err != nil {
		return record.ID{}, err
	}
	if len(sources) > maxParents {
		sources = sources[len(sources)-maxParents:]
	}
	ts := now()
	w := &record.Write{Kind: kind, WID: newID(ts), Src: src, Dst: dst, Rel: rel, Weight: weight, Writer: principal, Sources: sources, TS: ts, Nonce: sg.Nonce}
	return w.WID, t.r.st.AddWrite(ctxBG, w, sg.Key)
}

// Delete tombstones the entry recorded for a memory item. A target whose
// leaf is not yet in the log is flushed first: the tombstone removes its
// row, and a row-less leaf could not be re-appended after a crash.
func (t *Tx) Delete(key [32]byte, reason, principal string) (bool, error) {
	id, ok, err := t.r.ix.item(key)
	if err != nil {
		return false, t.indexFailed(err)
	}
	if !ok {
		return false, nil
	}
	return true, t.DeleteID(id, reason, principal)
}

// Members are the live entries a delete of the entity node removes.
func (t *Tx) Members(entity string) []record.ID {
	ids, err := t.r.ix.members(entity)
	if err != nil {
		t.indexFailed(err)
		return nil
	}
	var out []record.ID
	for _, id := range ids {
		var one int
		if t.r.st.QueryRow("SELECT 1 FROM entries WHERE eid = ?", id.String()).Scan(&one) == nil {
			out = append(out, id)
		}
	}
	return out
}

// DeleteID tombstones a live entry (a no-op for one already deleted).
func (t *Tx) DeleteID(id record.ID, reason, principal string) error {
	key, ok, err := t.itemKeyOf(id)
	if err != nil || !ok {
		return err
	}
	sg, err := t.signer(principal)
	if err != nil {
		return err
	}
	if seq, ok := t.r.unflushed[id]; ok && seq > t.r.flushedSeq.Load() {
		if err := t.r.flushNow(ctxBG); err != nil {
			return err
		}
	}
	ts := now()
	tb := &record.Tombstone{Target: id, Reason: clip(reason, 4096), Writer: principal, TS: ts, Nonce: sg.Nonce}
	if err := t.r.st.Delete(ctxBG, tb, sg.Key); err != nil {
		return err
	}
	if err := t.r.ix.dropItem(key); err != nil {
		return t.indexFailed(err)
	}
	return nil
}

// Node declares a graph vertex once. An entity node may be declared
// again by a later call (it is looked up in the snapshot); a passage node
// is new by construction.
func (t *Tx) Node(id, kind, label string, eid *record.ID, principal string) error {
	if kind == snapshot.NodeEntity {
		if ok, err := t.hasNode(id); ok || err != nil {
			return err
		}
	}
	sg, err := t.signer(principal)
	if err != nil {
		return err
	}
	n := writer.Node{ID: id, Kind: kind, Label: clip(label, maxText), EID: eid, TS: int64(now())}
	return t.r.st.DeclareNode(ctxBG, n, sg)
}

// hasNode says whether the snapshot declares node id (its id column is
// unique, so indexed).
func (t *Tx) hasNode(id string) (bool, error) {
	var one int
	switch err := t.r.st.QueryRow("SELECT 1 FROM nodes WHERE id = ?", id).Scan(&one); {
	case err == nil:
		return true, nil
	case errors.Is(err, sql.ErrNoRows):
		return false, nil
	default:
		return false, err
	}
}

// Trust is an entry's recorded trust, read from the snapshot (the
// recorder keeps no per-entry state it can read back, so its memory stays
// flat); an entry not found reads as External.
func (t *Tx) Trust(id record.ID) record.Trust {
	var tr int
	if err := t.r.st.QueryRow("SELECT trust FROM entries WHERE eid = ?", id.String()).Scan(&tr); err != nil || tr < 0 || tr > int(record.External) {
		return record.External
	}
	return record.Trust(tr)
}

// Query signs and stores a query record.
func (t *Tx) Query(q writer.Query, principal string) error {
	sg, err := t.signer(principal)
	if err != nil {
		return err
	}
	q.Text = clip(q.Text, maxText)
	q.TS = int64(now())
	return t.r.st.RecordQuery(ctxBG, q, sg)
}

// Action signs and stores an action record.
func (t *Tx) Action(a writer.Action, principal string) error {
	sg, err := t.signer(principal)
	if err != nil {
		return err
	}
	a.TS = int64(now())
	return t.r.st.RecordAction(ctxBG, a, sg)
}

// clip cuts s to at most n bytes on a rune boundary.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	s = s[:n]
	for len(s) > 0 && !utf8.ValidString(s) {
		s = s[:len(s)-1]
	}
	return s
}

// openLog opens the store's log: the POSIX directory, or a MySQL database.
func openLog(ctx context.Context, o Options, signer note.Signer) (*appender.Writer, error) {
	if o.LogStorage == "" {
		return appender.Open(ctx, filepath.Join(o.Dir, evidence.LogDir), signer, appender.Options{BatchMaxAge: batchMaxAge})
	}
	if strings.HasPrefix(o.LogStorage, "mysql://") {
		return openMySQL(ctx, o.LogStorage, signer)
	}
	return nil, fmt.Errorf("record: --log-storage %q: want mysql://USER:PASSWORD@tcp(HOST:PORT)/DB", o.LogStorage)
}

// passageNode is the node id of the passage showing entry id.
func passageNode(id record.ID) string { return "passage:" + id.String() }
