package recorder

import (
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/mod/sumdb/note"

	"github.com/memscope/memscope/evidence"
	"github.com/memscope/memscope/evidence/record"
	"github.com/memscope/memscope/evidence/tlog/appender"
	"github.com/memscope/memscope/evidence/writer"
)

// Durability: a job runs in three steps. Its caller sequences it under
// the recorder's sequencing lock (sequence.go): the job's lookups, its
// records' ids, times and nonces, the item index's changes, and its place
// in the committer's queue, which is therefore the order of the records'
// times. The caller then signs the job's records outside the lock, in its
// own goroutine, concurrently with the other callers and with the
// committer. The one committer goroutine takes the queue in order, waits
// for each job's signatures, appends its leaves to the log buffer and
// inserts its rows into the snapshot's open transaction; after each group
// of jobs the snapshot is committed (one WAL append), and the group's
// sync runs off the committer (syncer.go) while the next group's jobs are
// inserted. With AckSequenced (the default) the jobs' callers are
// released once the sync has returned: their records are durable with
// their log index assigned, and the log integrates them right after, in
// the background. With AckIntegrated the
// callers wait until Tessera has also integrated their leaves (its POSIX
// driver syncs each bundle, tile and tree state it writes). The snapshot
// is always committed before the log, so after a crash the log can only
// be behind the snapshot, and Open re-appends the missing leaves from the
// rows. A crash before a job's group is committed loses the job, which
// was not acknowledged.

const (
	// maxGroup bounds how many jobs share one commit.
	maxGroup = 256
	// batchMaxAge is how long Tessera waits for more leaves before it
	// sequences a short batch. It must stay well above the time to hand
	// a chunk over (appender.go: about 10 ms, 60 ms under contention):
	// Tessera's age timer flushes from its own goroutine, so a timer that
	// fires while leaves are still being added splits the chunk, and the
	// two halves can reach the sequencer in either order. At 2 ms, the
	// value here until 2026-11-27, three of six sustained 100,000-call
	// runs stopped with "Tessera assigned index N to the leaf promised
	// index M" (recording stopped, the log unusable past that leaf). The
	// price is --ack integrated's latency: a group's short last batch
	// waits this long before it is sequenced.
	batchMaxAge = 100 * time.Millisecond
	// logLag is how many committed groups may wait for the log at once:
	// the flusher integrates all that are waiting in one Tessera flush,
	// and a committer that gets this far ahead of the log waits for it.
	// It holds more than integrateEvery's worth of groups at the highest
	// rate (one group per call, about 2,000 calls/s on a 2-core machine),
	// so the pace never holds the committer: with 64 it did, once a
	// pause had 64 groups waiting, and an acknowledgement waited for the
	// rest of the pause.
	logLag = 8192
	// walFoldBytes is the WAL size past which the committer folds it into
	// the snapshot file (after releasing the group, so off the
	// acknowledgement path).
	walFoldBytes = 8 << 20
	// foldCheckEvery is how often at most the committer reads the WAL's
	// size: a stat per commit was about 2 % of the gateway's CPU, and at
	// the highest rate the WAL grows well under 1 MiB in this time.
	foldCheckEvery = 20 * time.Millisecond
	// foldIdle is how long the committer waits without work before it
	// folds the WAL into the snapshot file and truncates it, so a store
	// between bursts of calls reads whole to an immutable reader
	// (memscope verify, inspect) as a rollback-journal store did.
	foldIdle = 150 * time.Millisecond
	// integrateEvery paces the log under AckSequenced: under a steady
	// load the flusher integrates once the oldest group waiting is this
	// old, every group committed meanwhile in one tessera flush (between
	// bursts it integrates sooner: integrateIdle). Each flush costs about seven syncs and their
	// kernel time whatever its size, and a group's WAL sync that falls
	// during one waits behind it on the same disk: the rarer the flushes,
	// the fewer acknowledgements wait (at 50 ms, tessera's flushes were
	// 10 % of the gateway's CPU in the 8-session latency run; at 500 ms,
	// under 5 %). The price is the log's lag behind the snapshot (what a
	// restart after a crash re-appends, what a live reader sees as not
	// yet logged). A barrier (flushNow, Close) does not wait for the pace.
	integrateEvery = 500 * time.Millisecond
	// integrateIdle: a committer that has committed nothing for this long
	// is between bursts (an agent's calls come between its model's turns),
	// and the log is integrated then, before integrateEvery, while no
	// acknowledgement waits; integrateGap spaces such idle integrations,
	// so calls a little further apart than integrateIdle do not each pay
	// for a flush.
	integrateIdle = 20 * time.Millisecond
	integrateGap  = 100 * time.Millisecond
)

// Ack says when a recorded call's result is released to the agent.
type Ack string

const (
	// AckSequenced releases a result once its records are committed to
	// the snapshot (synced) with their log indices assigned; the log
	// integrates them asynchronously, and a restart after a crash
	// re-appends from the snapshot whatever the log lacks.
	AckSequenced Ack = "sequenced"
	// AckIntegrated also waits until the log has integrated the records'
	// leaves (Tessera's tiles and tree state synced).
	AckIntegrated Ack = "integrated"
)

// Principal is a principal the recorder signs as, with its channel.
type Principal struct {
	Name    string
	Channel string
}

// Options open a recorder store.
type Options struct {
	Dir string
	// Principals must be registered before recording starts (the source
	// servers' external:NAME and tool:NAME); registering a new one needs
	// the root key file.
	Principals []Principal
	// LogStorage is "" (the POSIX log in Dir/log) or a mysql:// URL.
	LogStorage string
	// Ack is AckSequenced when empty.
	Ack Ack
}

// Recorder writes records to a store, group-committed.
type Recorder struct {
	dir        string
	ack        Ack
	lock       *os.File // the store's flock (lock.go), held until Close
	st         *writer.Store
	log        *appender.Writer
	info       storeInfo
	registered map[string]bool
	loopDone   chan struct{}
	closeOnce  sync.Once
	errMu      sync.Mutex
	err        error // sticky: once a commit failed, nothing more is recorded
	// The log flusher's queue; flushedSeq is the last batch integrated.
	logq       chan *logBatch
	logWG      sync.WaitGroup
	flushedSeq atomic.Uint64
	urgent     chan struct{} // a barrier waits: integrate now
	// lastCommit is when the committer last committed a group (Unix
	// nanoseconds): the flusher integrates once it has been idle a while.
	lastCommit atomic.Int64
	// The syncs of committed groups (syncer.go): the last group committed
	// (the committer's), the syncs running, the groups not yet released,
	// and a signal to the committer when a sync returns.
	lastSync      *syncing
	syncWG        sync.WaitGroup
	syncsInFlight atomic.Int32
	syncDone      chan struct{}
	syncHook      func() error // tests only: replaces the WAL's sync
	// The committer's queue of sequenced jobs, in sequence order.
	qmu     sync.Mutex
	queue   []*job
	qclosed bool
	qwake   chan struct{}
	// Owned by the sequencer (seqMu, sequence.go).
	seqMu   sync.Mutex
	closed  bool
	ks      *keyring
	ix      *itemIndex // h_src -> live entry; entity -> member entries
	pending overlay    // what is sequenced but not yet committed
	rdb     *sql.DB    // the snapshot's committed state, read-only
	// Owned by the committer goroutine.
	leafBuf   [][]byte // leaves whose rows are not committed yet
	nextLeaf  uint64
	batchSeq  uint64
	unflushed map[record.ID]uint64 // entry -> batch whose leaf it is in
	foldCheck time.Time            // when foldWAL last read the WAL's size
	// For measurements (CommitTimes).
	commits commitTimes
}

// job is one Do: the records its function prepared, each signed by the
// caller and inserted by the committer.
type job struct {
	recs    []prepared
	signErr error
	signed  chan struct{} // closed once recs are signed
	err     error
	done    chan struct{}
	keys    overlayKeys // what the job added to the overlay
}

// prepared is one record of a job: sign runs in the caller's goroutine,
// insert (its leaf and row) in the committer, in log order.
type prepared struct {
	sign   func() error
	insert func() error
}

// Open resumes a store made by Init, repairing the log after a crash.
func Open(ctx context.Context, o Options) (*Recorder, error) {
	info, err := readInfo(o.Dir)
	if err != nil {
		return nil, err
	}
	skey, err := os.ReadFile(filepath.Join(o.Dir, KeysDir, "log.key"))
	if err != nil {
		return nil, fmt.Errorf("record: log key: %w", err)
	}
	signer, err := note.NewSigner(strings.TrimSpace(string(skey)))
	if err != nil {
		return nil, fmt.Errorf("record: log key: %w", err)
	}
	if (info.Log == "mysql") != (o.LogStorage != "") {
		return nil, fmt.Errorf("record: the store's log is %s; give --log-storage exactly when it is mysql", info.Log)
	}
	lock, err := lockStore(o.Dir)
	if err != nil {
		return nil, err
	}
	lw, err := openLog(ctx, o, signer)
	if err != nil {
		lock.Close()
		return nil, err
	}
	ack := o.Ack
	if ack == "" {
		ack = AckSequenced
	}
	if ack != AckSequenced && ack != AckIntegrated {
		lw.Close(context.WithoutCancel(ctx))
		lock.Close()
		return nil, fmt.Errorf("record: --ack %q: want %s or %s", ack, AckSequenced, AckIntegrated)
	}
	r := &Recorder{dir: o.Dir, ack: ack, lock: lock, log: lw, ks: &keyring{dir: o.Dir}, info: info, registered: map[string]bool{},
		qwake: make(chan struct{}, 1), loopDone: make(chan struct{}), unflushed: map[record.ID]uint64{}, logq: make(chan *logBatch, logLag), urgent: make(chan struct{}, 1),
		pending: newOverlay(), syncDone: make(chan struct{}, 1),
	}
	if r.ix, err = openIndex(); err != nil {
		lw.Close(context.WithoutCancel(ctx))
		lock.Close()
		return nil, err
	}
	go r.flusher(context.WithoutCancel(ctx))
	if err := r.resume(ctx, signer); err != nil {
		r.ix.close()
		lw.Close(context.WithoutCancel(ctx))
		lock.Close()
		return nil, err
	}
	if err := r.ensurePrincipals(ctx, o.Principals); err != nil {
		r.ix.close()
		r.st.Close(context.WithoutCancel(ctx))
		lock.Close()
		return nil, err
	}
	if r.rdb, err = openCommitted(o.Dir); err != nil {
		r.ix.close()
		r.st.Close(context.WithoutCancel(ctx))
		lock.Close()
		return nil, err
	}
	go r.loop(context.WithoutCancel(ctx))
	return r, nil
}

func (r *Recorder) resume(ctx context.Context, signer note.Signer) error {
	tree, err := r.log.Range()
	if err != nil {
		return err
	}
	r.nextLeaf = tree.End()
	opKey, err := r.ks.key(OperatorPrincipal)
	if err != nil {
		return err
	}
	r.st, err = writer.Resume(writer.Config{SnapshotPath: filepath.Join(r.dir, evidence.SnapshotFile), Log: logSink{r}, LogSigner: signer,
		Origin: r.info.Origin, Durable: true, DeferSync: true, Operator: &writer.Signer{Principal: OperatorPrincipal, Key: opKey, Nonce: newNonce()}},
		writer.ResumeState{LogSize: tree.End(), Tree: tree})
	if err != nil {
		return err
	}
	pending, err := r.st.PendingLeaves(tree.End())
	if err != nil {
		return err
	}
	for _, p := range pending {
		if err := r.st.ReappendLeaf(ctx, p); err != nil {
			return fmt.Errorf("record: repairing the log: %w", err)
		}
	}
	if len(pending) > 0 {
		if err := r.flushNow(ctx); err != nil {
			return fmt.Errorf("record: repairing the log: %w", err)
		}
		fmt.Fprintf(os.Stderr, "memscope record: re-appended %d leaves the snapshot held and the log did not (the log had not integrated them when the last run stopped)\n", len(pending))
	}
	return r.readIndex()
}

// readIndex rebuilds, from the snapshot, what the recorder must know of
// earlier runs: registered principals and the item index.
func (r *Recorder) readIndex() error {
	db, err := sql.Open("sqlite", "file:"+filepath.Join(r.dir, evidence.SnapshotFile)+"?mode=ro")
	if err != nil {
		return err
	}
	defer db.Close()
	rows, err := db.Query("SELECT principal, op FROM principals ORDER BY seq")
	if err != nil {
		return err
	}
	for rows.Next() {
		var p, op string
		if err := rows.Scan(&p, &op); err != nil {
			rows.Close()
			return err
		}
		r.registered[p] = op == record.OpRegister
	}
	rows.Close()
	if rows, err = db.Query("SELECT record FROM entries"); err != nil {
		return err
	}
	for rows.Next() {
		var raw []byte
		if err := rows.Scan(&raw); err != nil {
			rows.Close()
			return err
		}
		if e, err := record.DecodeEntry(raw); err == nil {
			if err := r.ix.setItem(e.HSrc, e.EID); err != nil {
				rows.Close()
				return err
			}
		}
	}
	rows.Close()
	if err := r.readMembers(db); err != nil {
		return err
	}
	return r.ix.commit()
}

// readMembers rebuilds which entries belong to which entity from the
// structural writes: an entity's passages hang off it by "has" edges
// sourced by their entry, and a relation's first source is its entry.
func (r *Recorder) readMembers(db *sql.DB) error {
	rows, err := db.Query("SELECT record FROM writes ORDER BY seq")
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var raw []byte
		if err := rows.Scan(&raw); err != nil {
			return err
		}
		w, err := record.DecodeWrite(raw)
		if err != nil || len(w.Sources) == 0 {
			continue
		}
		if err := r.addMember(w.Src, w.Sources[0]); err != nil {
			return err
		}
		if w.Kind == record.KindRelation {
			if err := r.addMember(w.Dst, w.Sources[0]); err != nil {
				return err
			}
		}
	}
	return rows.Err()
}

func (r *Recorder) addMember(entity string, id record.ID) error {
	if strings.HasPrefix(entity, "entity:") {
		return r.ix.addMember(entity, id)
	}
	return nil
}

// ensurePrincipals registers the principals recording needs that the
// store does not have yet, signed by the registry root.
func (r *Recorder) ensurePrincipals(ctx context.Context, ps []Principal) error {
	var root ed25519.PrivateKey
	for _, p := range ps {
		if r.registered[p.Name] {
			continue
		}
		if !validPrincipal(p.Name) {
			return fmt.Errorf("record: principal %q is not a valid name (user, or agent:, tool: or external: and a name; printable ASCII, no spaces, at most 128 bytes)", p.Name)
		}
		if root == nil {
			b, err := os.ReadFile(filepath.Join(r.dir, RootKeyFile))
			if err != nil {
				return fmt.Errorf("record: %s must be registered and the registry root key (%s) is not here: %w", p.Name, RootKeyFile, err)
			}
			seed, err := hex.DecodeString(strings.TrimSpace(string(b)))
			if err != nil || len(seed) != ed25519.SeedSize {
				return fmt.Errorf("record: %s: not a hex Ed25519 seed", RootKeyFile)
			}
			root = ed25519.NewKeyFromSeed(seed)
		}
		if err := registerPrincipal(ctx, r.st, r.ks, root, p.Name, p.Channel); err != nil {
			return err
		}
		r.registered[p.Name] = true
	}
	return r.flushNow(ctx)
}

// Agents lists the store's agent principals.
func (r *Recorder) Agents() []string { return append([]string(nil), r.info.Agents...) }

// Registered says whether principal may sign.
func (r *Recorder) Registered(principal string) bool { return r.registered[principal] }

// Do runs fn, which prepares records (Tx), and returns once they are
// durable in the snapshot (AckSequenced) or also in the log
// (AckIntegrated), or fn or the commit failed. fn runs in the caller's
// goroutine under the sequencing lock; the records are signed after it,
// outside the lock; the committer inserts and commits them.
func (r *Recorder) Do(ctx context.Context, fn func(*Tx) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	j := &job{signed: make(chan struct{}), done: make(chan struct{})}
	if err := r.sequence(j, fn); err != nil {
		return err
	}
	// Sequenced: the job is the committer's now, whatever ctx says.
	for _, p := range j.recs {
		if err := p.sign(); err != nil {
			j.signErr = err
			break
		}
	}
	close(j.signed)
	<-j.done
	return j.err
}

// loop is the committer. It inserts each job as soon as it is queued;
// it commits the jobs inserted so far once fewer than maxSyncsInFlight
// groups are syncing (syncer.go), so while a group syncs the jobs that
// arrive are inserted and wait in the open transaction, and commit as
// one group when the sync returns.
func (r *Recorder) loop(ctx context.Context) {
	defer close(r.loopDone)
	idle := time.NewTimer(foldIdle)
	defer idle.Stop()
	dirty := false
	var open []*job // inserted, not yet committed
	for {
		group, closed := r.take(maxGroup - len(open))
		for _, j := range group {
			r.insert(j)
		}
		open = append(open, group...)
		if len(open) > 0 && r.syncsInFlight.Load() < maxSyncsInFlight {
			r.commit(ctx, open)
			open, dirty = nil, true
			idle.Reset(foldIdle)
			continue
		}
		if len(group) > 0 {
			continue // the queue may hold more
		}
		if closed && len(open) == 0 {
			// Close goes on to fold the WAL away: every group must be
			// synced and released first.
			r.awaitSynced()
			return
		}
		select {
		case <-r.qwake:
		case <-r.syncDone:
		case <-idle.C:
			if dirty && len(open) == 0 && r.failed() == nil {
				if err := r.st.FoldWAL(true); err != nil {
					r.fail(fmt.Errorf("record: snapshot checkpoint failed, recording stopped: %w", err))
				}
				dirty = false
			}
		}
	}
}

// insert waits for a job's signatures and adds its records in order. An
// insert error fails the job (its remaining records are not added), as a
// failed write did when the committer also signed; a signing error stops
// recording, since later jobs were sequenced against the job's records.
func (r *Recorder) insert(j *job) {
	<-j.signed
	if j.signErr != nil {
		r.fail(fmt.Errorf("record: signing failed, recording stopped: %w", j.signErr))
	}
	if err := r.failed(); err != nil {
		if j.err == nil {
			j.err = err
		}
		return
	}
	for _, p := range j.recs {
		if err := p.insert(); err != nil {
			if j.err == nil {
				j.err = err
			}
			return
		}
	}
}

// commit appends the group's rows to the snapshot's WAL and starts their
// sync (syncer.go), which releases the group (AckSequenced) or hands it
// with its leaves to the log flusher, which releases it once they are
// integrated (AckIntegrated). The next group is applied and committed
// while this one syncs and the log integrates it: the snapshot stays
// ahead of the log, never behind.
func (r *Recorder) commit(ctx context.Context, group []*job) {
	start := time.Now()
	r.lastCommit.Store(start.UnixNano())
	if err := r.failed(); err == nil {
		if err := r.st.Commit(); err != nil {
			r.fail(fmt.Errorf("record: snapshot commit failed, recording stopped: %w", err))
		}
	}
	// The overlay's cleanup and the item index's commit (committed) wait
	// for the sequencing lock, which the other sessions' calls hold in
	// turn; the rows are in the snapshot's committed state already, so
	// lookups find them there, synced or not.
	if err := r.failed(); err != nil {
		r.leafBuf = nil // their rows were not committed: never log them
		release(group, err)
		r.committed(group)
		return
	}
	r.startSync(&syncing{jobs: group, batch: r.cutBatch(), start: start})
	r.committed(group)
	r.foldWAL()
}

// drain appends to got what ch holds at this moment, up to max in all,
// without waiting.
func drain[T any](ch <-chan T, got []T, max int) []T {
	for len(got) < max {
		select {
		case v, ok := <-ch:
			if !ok {
				return got
			}
			got = append(got, v)
		default:
			return got
		}
	}
	return got
}

// release hands each job its fate: its own error, else err.
func release(jobs []*job, err error) {
	for _, j := range jobs {
		if err != nil && j.err == nil {
			j.err = err
		}
		close(j.done)
	}
}

// foldWAL folds the snapshot's WAL into its file once it is large, so it
// stays bounded; a failure stops recording like a failed commit.
func (r *Recorder) foldWAL() {
	now := time.Now()
	if now.Sub(r.foldCheck) < foldCheckEvery {
		return
	}
	r.foldCheck = now
	st, err := os.Stat(filepath.Join(r.dir, evidence.SnapshotFile) + "-wal")
	if err != nil || st.Size() < walFoldBytes {
		return
	}
	if err := r.st.FoldWAL(false); err != nil {
		r.fail(fmt.Errorf("record: snapshot checkpoint failed, recording stopped: %w", err))
	}
}

// cutBatch takes the leaves buffered so far, whose rows are committed,
// as the next batch for the flusher.
func (r *Recorder) cutBatch() *logBatch {
	r.batchSeq++
	b := &logBatch{leaves: r.leafBuf, first: r.nextLeaf - uint64(len(r.leafBuf)), seq: r.batchSeq, cut: time.Now()}
	r.leafBuf = nil
	if len(r.unflushed) > 4096 {
		done := r.flushedSeq.Load()
		for id, seq := range r.unflushed {
			if seq <= done {
				delete(r.unflushed, id)
			}
		}
	}
	return b
}

// sendBatch hands a batch whose rows are synced to the flusher.
func (r *Recorder) sendBatch(b *logBatch) {
	r.logWG.Add(1)
	r.logq <- b
}

// logBatch is one group's leaves on their way to the log.
type logBatch struct {
	leaves [][]byte
	first  uint64
	jobs   []*job
	seq    uint64
	cut    time.Time // when its group was committed
}

// flusher integrates batches in order, every batch waiting at the time
// in one Tessera flush, and releases their jobs.
func (r *Recorder) flusher(ctx context.Context) {
	var last time.Time
	for b := range r.logq {
		if r.ack == AckSequenced {
			r.awaitIntegration(b.cut, last)
		}
		last = time.Now()
		batches := drain(r.logq, []*logBatch{b}, logLag+1)
		err := r.integrate(ctx, batches)
		for _, b := range batches {
			if err == nil {
				r.flushedSeq.Store(b.seq)
			}
			release(b.jobs, err)
			r.logWG.Done()
		}
	}
}

// awaitIntegration paces the log under AckSequenced: it returns when the
// oldest batch waiting (cut at oldest) is integrateEvery old, when the
// committer has been idle integrateIdle and the last integration (at
// last) is integrateGap old, or when a barrier asks. Under a steady load
// the log integrates every integrateEvery; between bursts it catches up
// at once, off the acknowledgement path.
func (r *Recorder) awaitIntegration(oldest, last time.Time) {
	deadline := oldest.Add(integrateEvery)
	for {
		now := time.Now()
		if !now.Before(deadline) {
			return
		}
		wait := deadline.Sub(now)
		if gap := last.Add(integrateGap).Sub(now); gap > 0 {
			wait = min(wait, gap)
		} else {
			idle := now.Sub(time.Unix(0, r.lastCommit.Load()))
			if idle >= integrateIdle {
				return
			}
			wait = min(wait, integrateIdle-idle)
		}
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-r.urgent:
			t.Stop()
			return
		}
	}
}

// integrate appends the batches' leaves (consecutive by construction)
// and waits until the log holds them.
func (r *Recorder) integrate(ctx context.Context, batches []*logBatch) error {
	if err := r.failed(); err != nil {
		return err
	}
	var leaves [][]byte
	for _, b := range batches {
		leaves = append(leaves, b.leaves...)
	}
	if len(leaves) == 0 {
		return nil
	}
	idx, err := r.log.AppendAll(ctx, leaves)
	if err == nil && idx[0] != batches[0].first {
		err = fmt.Errorf("log assigned index %d to leaf %d", idx[0], batches[0].first)
	}
	if err == nil {
		err = r.log.Flush(ctx)
	}
	if err != nil {
		err = fmt.Errorf("record: log integration failed, recording stopped: %w", err)
		r.fail(err)
	}
	return err
}

// flushNow commits the snapshot and waits until the log holds every leaf
// appended so far (a barrier, used outside the group rhythm).
func (r *Recorder) flushNow(ctx context.Context) error {
	r.commit(ctx, nil)
	r.awaitSynced()
	r.awaitLog()
	return r.failed()
}

// awaitLog waits until the flusher has integrated every batch handed
// over, without the pace.
func (r *Recorder) awaitLog() {
	select {
	case r.urgent <- struct{}{}:
	default:
	}
	r.logWG.Wait()
	select { // a signal left over must not cut the next pause short
	case <-r.urgent:
	default:
	}
}

func (r *Recorder) failed() error {
	r.errMu.Lock()
	defer r.errMu.Unlock()
	return r.err
}

func (r *Recorder) fail(err error) {
	r.errMu.Lock()
	defer r.errMu.Unlock()
	if r.err == nil {
		r.err = err
	}
}

// Close stops recording, signs the store's own rows and closes the log.
func (r *Recorder) Close(ctx context.Context) error {
	var err error
	r.closeOnce.Do(func() {
		r.seqMu.Lock()
		r.closed = true // no job is sequenced from now on
		r.seqMu.Unlock()
		r.qmu.Lock()
		r.qclosed = true
		r.qmu.Unlock()
		r.wake()
		<-r.loopDone
		// The snapshot leaves WAL mode on close only with no other
		// connection open.
		r.rdb.Close()
		_, err = r.st.Close(ctx)
		r.ix.close()
		r.lock.Close() // releases the flock
	})
	return err
}

// logSink numbers the writer's leaves and buffers them until their rows
// are committed (commit hands them to the flusher).
type logSink struct{ r *Recorder }

func (s logSink) Append(_ context.Context, leaf []byte) (uint64, error) {
	if err := s.r.failed(); err != nil {
		return 0, err
	}
	s.r.leafBuf = append(s.r.leafBuf, leaf)
	s.r.nextLeaf++
	return s.r.nextLeaf - 1, nil
}

// Close runs after the writer committed the snapshot for the last time:
// the remaining leaves go to the log, then the log closes.
func (s logSink) Close(ctx context.Context) ([]byte, error) {
	s.r.awaitSynced()
	if err := s.r.failed(); err == nil {
		s.r.sendBatch(s.r.cutBatch())
	}
	s.r.awaitLog()
	if err := s.r.failed(); err != nil {
		close(s.r.logq)
		s.r.log.Close(ctx)
		return nil, err
	}
	close(s.r.logq)
	return s.r.log.Close(ctx)
}

// itemKey is an entry's h_src for a memory item: the SHA-256 of the
// server, the item kind and the item's identity (entity name; entity and
// observation text; relation triple), so a later delete of the item finds
// its entry, across restarts, from the signed record alone.
func itemKey(server, kind string, parts ...string) [32]byte {
	h := sha256.New()
	h.Write([]byte("memscope-record/item\x00" + server + "\x00" + kind))
	for _, p := range parts {
		h.Write([]byte{0})
		h.Write([]byte(p))
	}
	var k [32]byte
	copy(k[:], h.Sum(nil))
	return k
}
