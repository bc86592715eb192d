package recorder

import (
	"context"
	"crypto/sha256"
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

// Tx is what a job may record. It is only valid inside the job's
// function, which runs under the sequencing lock (sequence.go): each
// method looks up what it needs, gives its record its id, time and nonce
// and queues it; the record is signed when the function has returned and
// stored by the committer.
type Tx struct {
	r *Recorder
	j *job
}

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
	sess := in.Session
	e := &record.Entry{EID: newID(ts), Content: content, Writer: in.Writer, Trust: in.Trust, Parents: in.Parents, Weights: in.Weights,
		HSrc: in.Source, HCtx: in.Context, TS: ts, Nonce: sg.Nonce, Session: &sess}
	r := t.r
	prepare(t, func() ([]byte, error) { return writer.SignEntry(e, sg.Key) }, func(raw []byte) error {
		if err := r.st.AddSignedEntry(ctxBG, e, raw, writer.EntryOptions{SessionID: in.Session}); err != nil {
			return err
		}
		r.unflushed[e.EID] = r.batchSeq + 1
		return nil
	})
	r.pending.entries[e.EID] = entryFacts{hsrc: in.Source, trust: in.Trust, writer: in.Writer, parents: in.Parents, weights: in.Weights}
	t.j.keys.entries = append(t.j.keys.entries, e.EID)
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
	prepare(t, func() ([]byte, error) { return writer.SignWrite(w, sg.Key) },
		func(raw []byte) error { return t.r.st.AddSignedWrite(ctxBG, w, raw) })
	return w.WID, nil
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
		if live, err := t.isLive(id); err == nil && live {
			out = append(out, id)
		}
	}
	return out
}

// DeleteID tombstones a live entry (a no-op for one already deleted).
// The tombstone carries what lineage needs of the entry (writer, trust,
// parents, weights), as writer.Store.Delete fills it, so the entries
// derived from it keep their ancestor.
func (t *Tx) DeleteID(id record.ID, reason, principal string) error {
	f, ok, err := t.liveEntry(id)
	if err != nil || !ok {
		return err
	}
	sg, err := t.signer(principal)
	if err != nil {
		return err
	}
	ts := now()
	tr := f.trust
	tb := &record.Tombstone{Target: id, Reason: clip(reason, 4096), Writer: principal, TS: ts, Nonce: sg.Nonce,
		EntryWriter: f.writer, EntryTrust: &tr, EntryParents: f.parents, EntryWeights: f.weights}
	r := t.r
	prepare(t, func() ([]byte, error) { return writer.SignTombstone(tb, sg.Key) }, func(raw []byte) error {
		// A target whose leaf is not yet in the log is flushed first: the
		// tombstone removes its row, and a row-less leaf could not be
		// re-appended after a crash.
		if seq, ok := r.unflushed[id]; ok && seq > r.flushedSeq.Load() {
			if err := r.flushNow(ctxBG); err != nil {
				return err
			}
		}
		if err := r.st.AddSignedTombstone(ctxBG, tb, raw); err != nil {
			return err
		}
		return r.st.RemoveEntryRow(id)
	})
	r.pending.deleted[id] = true
	t.j.keys.deleted = append(t.j.keys.deleted, id)
	if err := t.r.ix.dropItem(f.hsrc); err != nil {
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
	if kind == snapshot.NodeEntity {
		t.r.pending.nodes[id] = true
		t.j.keys.nodes = append(t.j.keys.nodes, id)
	}
	t.event(func() (*writer.SignedEvent, error) { return writer.SignNode(n, sg) })
	return nil
}

// event prepares an event record (node, query, action): signed by sign
// after sequencing, added by the committer.
func (t *Tx) event(sign func() (*writer.SignedEvent, error)) {
	prepare(t, sign, func(ev *writer.SignedEvent) error { return t.r.st.AddSignedEvent(ctxBG, ev) })
}

// Trust is an entry's recorded trust, read from the snapshot (the
// recorder keeps no per-entry state it can read back, so its memory stays
// flat) or from a job not yet committed; an entry not found reads as
// External.
func (t *Tx) Trust(id record.ID) record.Trust {
	tr, ok := t.entryTrust(id)
	if !ok || tr > record.External {
		return record.External
	}
	return tr
}

// Query prepares a query record.
func (t *Tx) Query(q writer.Query, principal string) error {
	sg, err := t.signer(principal)
	if err != nil {
		return err
	}
	if q.K < 0 {
		return fmt.Errorf("record: query %s: k %d is negative", q.ID, q.K)
	}
	q.Text = clip(q.Text, maxText)
	q.TS = int64(now())
	t.event(func() (*writer.SignedEvent, error) { return writer.SignQuery(q, sg) })
	return nil
}

// Action prepares an action record.
func (t *Tx) Action(a writer.Action, principal string) error {
	sg, err := t.signer(principal)
	if err != nil {
		return err
	}
	a.TS = int64(now())
	t.event(func() (*writer.SignedEvent, error) { return writer.SignAction(a, sg) })
	return nil
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
