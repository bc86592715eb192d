package writer

import (
	"context"
	"crypto/ed25519"

	"github.com/memscope/memscope/evidence/record"
	"github.com/memscope/memscope/internal/analyses/smsr"
)

// EntryOptions carries the per-entry values that are not part of the signed
// record.
type EntryOptions struct {
	SessionID string
	// NoTag leaves the HMAC tag empty even when the store has an HMAC key.
	NoTag bool
}

// AddEntry signs an entry with the writer principal's key, appends its leaf
// and stores it. The entry's V, Kind and KID are filled in.
func (s *Store) AddEntry(ctx context.Context, e *record.Entry, key ed25519.PrivateKey, opt EntryOptions) error {
	sess := opt.SessionID
	e.Session = &sess
	raw, err := SignEntry(e, key)
	if err != nil {
		return err
	}
	return s.AddSignedEntry(ctx, e, raw, opt)
}

// SignEntry fills in an entry's V, Kind, KID and signature with the writer
// principal's key and returns its encoding. It touches no store, so a bulk
// writer can sign on every core and add the entries in order with
// AddSignedEntry; the result is the same as AddEntry's.
func SignEntry(e *record.Entry, key ed25519.PrivateKey) ([]byte, error) {
	e.V, e.Kind = record.FormatVersion, record.KindEntry
	if e.Parents == nil {
		e.Parents = []record.ID{}
	}
	if e.Weights == nil {
		e.Weights = []float64{}
	}
	// The session is signed with the entry ("" for none), so that the
	// session_id column is evidence rather than a claim: the caller sets
	// e.Session to the session AddSignedEntry will store.
	if e.Session == nil {
		none := ""
		e.Session = &none
	}
	return signRecord(e, key, func(k record.KeyID) { e.KID = k })
}

// AddSignedEntry appends the leaf of an entry SignEntry prepared (raw is
// what it returned) and stores the entry.
func (s *Store) AddSignedEntry(ctx context.Context, e *record.Entry, raw []byte, opt EntryOptions) error {
	idx, err := s.AppendLeaf(ctx, record.RecordLeaf(e.EID, e.Sig))
	if err != nil {
		return err
	}
	tag := ""
	if s.cfg.HMACKey != nil && !opt.NoTag {
		tag = smsr.Tag(s.cfg.HMACKey, e.Content, opt.SessionID, int64(e.TS))
	}
	s.version++
	s.saw(e.TS)
	return s.InsertEntryRow(EntryRow{Entry: e, Raw: raw, SessionID: opt.SessionID, HMACTag: tag, Leaf: &idx})
}

// EntryRow is one row of the entries table. The decoded columns normally
// come from Entry; the scenario generator overrides them to forge evidence.
type EntryRow struct {
	Entry     *record.Entry
	Raw       []byte
	SessionID string
	HMACTag   string
	Leaf      *uint64
	// Column overrides (nil: take the value from Entry).
	Writer  *string
	Trust   *int
	Content *string
}

// InsertEntryRow stores an entries row as given (low level).
func (s *Store) InsertEntryRow(r EntryRow) error {
	writer, trust, content := r.Entry.Writer, int(r.Entry.Trust), r.Entry.Content
	if r.Writer != nil {
		writer = *r.Writer
	}
	if r.Trust != nil {
		trust = *r.Trust
	}
	if r.Content != nil {
		content = *r.Content
	}
	return s.exec("entries", s.nextSeq("entries"), r.Entry.EID.String(), writer, trust, int64(r.Entry.TS), content,
		nullString(r.SessionID), nullString(r.HMACTag), nullIndex(r.Leaf), r.Raw)
}
