// Package smsrdb reads an SMSR memory store (tarun-ks/smsr) natively: the
// SQLite database agent/memory_store.py's MemoryStore writes, opened
// read-only and immutable. Its one table, from MemoryStore._init_db:
//
//	memories(id INTEGER PRIMARY KEY AUTOINCREMENT, content TEXT NOT NULL,
//	         session_id TEXT NOT NULL, timestamp REAL NOT NULL,
//	         hmac_tag TEXT, embedding BLOB NOT NULL)
//
// Tags are security/provenance.py HMACProvenance.sign: hex HMAC-SHA256 over
// f"{content}||{session_id}||{timestamp:.6f}". The agent (agent/agent.py
// respond) tags with one time.time() and MemoryStore._insert stores a
// second time.time() taken after embedding the text, so a genuine row's
// tag does not match its stored timestamp. CheckTags searches back from the
// stored time to tell that quirk from a changed row where it can.
package smsrdb

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"fmt"
	"math"
	"strconv"

	"github.com/memscope/memscope/internal/analyses/smsr"
	"github.com/memscope/memscope/internal/present/finding"
	"github.com/memscope/memscope/internal/readers/sqlitecols"
	"github.com/memscope/memscope/internal/readers/storefile"
	"github.com/memscope/memscope/internal/readers/storemodel"
	"github.com/memscope/memscope/loader"
)

// MaxContent bounds one row's content.
const MaxContent = 16 << 20

// maxSmallCell bounds a session id or a hex HMAC tag (64 characters upstream).
const maxSmallCell = 4 << 10

// Looks says whether path is an SQLite file with SMSR's memories table.
func Looks(path string) bool {
	return sqlitecols.Has(path, "memories", "content", "session_id", "timestamp", "hmac_tag", "embedding")
}

func openRO(path string) (*sql.DB, error) {
	dsn, err := loader.DSN(path)
	if err != nil {
		return nil, err
	}
	return sql.Open("sqlite", dsn)
}

// Open reads every memories row.
func Open(ctx context.Context, path string) (*storemodel.Store, error) {
	if !Looks(path) {
		return nil, fmt.Errorf("%s: not an SQLite database with SMSR's memories(content, session_id, timestamp, hmac_tag, embedding) table", path)
	}
	desc, err := storefile.Describe(ctx, path, "SMSR memories database (SQLite)")
	if err != nil {
		return nil, err
	}
	db, err := openRO(path)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	st := &storemodel.Store{Format: storemodel.SMSR, Root: path, Files: []storemodel.File{desc}}
	// Content, session and tag are capped in SQL: an oversized cell is
	// reported from its length and never fetched. Rows come ORDER BY id,
	// the order upstream indexes them in (agent/memory_store.py
	// _build_faiss_index, tarun-ks/smsr 2e46daa): the column, not SQLite's
	// rowid, so a table whose id is not the rowid alias reads as upstream
	// reads it.
	rows, err := db.QueryContext(ctx, fmt.Sprintf("SELECT id, typeof(content), length(CAST(content AS BLOB)), "+
		"CASE WHEN length(CAST(content AS BLOB)) <= %d THEN CAST(content AS BLOB) END, %s, typeof(timestamp), timestamp, %s, length(embedding) FROM memories ORDER BY id",
		MaxContent, sqlitecols.Capped("session_id", maxSmallCell), sqlitecols.Capped("hmac_tag", maxSmallCell)))
	if err != nil {
		return nil, fmt.Errorf("%s: memories: %w", path, err)
	}
	defer rows.Close()
	for rows.Next() {
		var m storemodel.Memory
		var ctype, tstype string
		var clen sql.NullInt64
		var content []byte
		session, tag := sqlitecols.Cell{Max: maxSmallCell}, sqlitecols.Cell{Max: maxSmallCell}
		var ts sql.NullFloat64
		var elen sql.NullInt64
		dest := append([]any{&m.ID, &ctype, &clen, &content}, session.Dest()...)
		dest = append(append(append(dest, &tstype, &ts), tag.Dest()...), &elen)
		if err := rows.Scan(dest...); err != nil {
			st.Issues = append(st.Issues, storemodel.Issue{Code: finding.StoreRecordMalformed, File: path, Subject: "memories row", Message: err.Error()})
			continue
		}
		subject := fmt.Sprintf("memories id %d", m.ID)
		bad := func(field, msg string) {
			st.Issues = append(st.Issues, storemodel.Issue{Code: finding.StoreRecordMalformed, File: path, Subject: subject + ", field " + field, Message: msg})
		}
		switch {
		case ctype != "text":
			bad("content", "is "+ctype+", want TEXT (NOT NULL)")
			continue
		case clen.Int64 > MaxContent:
			bad("content", fmt.Sprintf("%d bytes, limit %d", clen.Int64, MaxContent))
			continue
		case session.Over():
			bad("session_id", fmt.Sprintf("%d bytes, limit %d", session.Size.Int64, maxSmallCell))
			continue
		case tag.Over():
			bad("hmac_tag", fmt.Sprintf("%d bytes, limit %d", tag.Size.Int64, maxSmallCell))
			continue
		case !session.Value.Valid:
			bad("session_id", "is NULL (NOT NULL upstream)")
			continue
		case tstype != "real" && tstype != "integer" || !ts.Valid || math.IsNaN(ts.Float64) || math.IsInf(ts.Float64, 0):
			bad("timestamp", "is "+tstype+", want a finite REAL")
			continue
		}
		m.Content, m.Session, m.Timestamp = string(content), session.Value.String, ts.Float64
		m.Tag, m.TagNull = tag.Value.String, !tag.Value.Valid
		m.EmbedLen = int(elen.Int64)
		st.Memories = append(st.Memories, m)
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("%s: memories: %w", path, err)
	}
	return st, nil
}

// Tag check outcomes.
const (
	TagMatches     = "matches"      // at the stored timestamp
	TagEarlierTime = "earlier time" // at a time before the stored one (SMSR's quirk)
	TagNoMatch     = "no match"
	TagMissing     = "missing"
	TagMalformed   = "malformed"
	TagNotSearched = "not searched" // the search budget ran out
)

// TagResult is the check of one row.
type TagResult struct {
	ID      int64
	Outcome string
	// Offset is how long before the stored timestamp the tag matched
	// (TagEarlierTime), in microseconds.
	Offset int64
}

// CheckOptions bound the search for SMSR's tagging time.
type CheckOptions struct {
	// Window is how far back from the stored timestamp to search, in
	// microseconds (default 2 s: MemoryStore._insert embeds the text with a
	// sentence-transformer between the two time.time() calls).
	Window int64
	// Budget caps the HMACs computed over the whole store (default 50M,
	// about a minute on one core).
	Budget int64
}

// CheckTags checks every row's tag under key.
func CheckTags(ctx context.Context, st *storemodel.Store, key []byte, o CheckOptions) ([]TagResult, []finding.Finding, error) {
	if o.Window <= 0 {
		o.Window = 2_000_000
	}
	if o.Budget <= 0 {
		o.Budget = 50_000_000
	}
	var out []TagResult
	var fs []finding.Finding
	mac := hmac.New(sha256.New, key)
	want := make([]byte, sha256.Size)
	for _, m := range st.Memories {
		subject := fmt.Sprintf("memories id %d", m.ID)
		r := TagResult{ID: m.ID}
		switch {
		case m.TagNull || m.Tag == "":
			r.Outcome = TagMissing
			fs = append(fs, finding.New(finding.HMACMissing, subject, "hmac_tag is NULL: written through MemoryStore.inject (SMSR's untrusted path) or stripped; SMSR's verified retrieval leaves it out"))
		default:
			got, err := hex.DecodeString(m.Tag)
			if err != nil || len(got) != sha256.Size {
				r.Outcome = TagMalformed
				fs = append(fs, finding.New(finding.HMACWrong, subject, "hmac_tag is not 64 hex digits"))
				break
			}
			copy(want, got)
			stored := smsr.FormatSeconds(m.Timestamp)
			prefix := []byte(m.Content + "||" + m.Session + "||")
			try := func(ts string) bool {
				mac.Reset()
				mac.Write(prefix)
				mac.Write([]byte(ts))
				return hmac.Equal(mac.Sum(nil), want)
			}
			if try(stored) {
				r.Outcome = TagMatches
				break
			}
			micro, ok := micros(stored)
			if !ok {
				r.Outcome = TagNoMatch
				fs = append(fs, finding.New(finding.HMACWrong, subject, "the tag does not match at the stored timestamp, which is out of range for a search"))
				break
			}
			r.Outcome = TagNoMatch
			var k int64
			for k = 1; k <= o.Window; k++ {
				if o.Budget <= 0 {
					r.Outcome = TagNotSearched
					break
				}
				o.Budget--
				if k%65536 == 0 {
					if err := ctx.Err(); err != nil {
						return nil, nil, err
					}
				}
				if try(formatMicros(micro - k)) {
					r.Outcome, r.Offset = TagEarlierTime, k
					break
				}
			}
			switch r.Outcome {
			case TagEarlierTime:
				fs = append(fs, finding.New(finding.SMSRTagAtOtherTime, subject, fmt.Sprintf("the tag matches content, session and the time %s, %.6f s before the stored %s: SMSR's second time.time(), not tampering", formatMicros(micro-r.Offset), float64(r.Offset)/1e6, stored)))
			case TagNotSearched:
				fs = append(fs, finding.New(finding.SMSRTagUndecidable, subject, "the tag does not match at the stored timestamp and the search budget ran out before this row: changed row or SMSR's timing quirk, undecided"))
			default:
				fs = append(fs, finding.New(finding.HMACWrong, subject, fmt.Sprintf("the tag matches at no time from the stored %s back %.3f s: content, session or timestamp differs from what was tagged (or SMSR tagged it longer before storing it, which the store alone cannot rule out)", stored, float64(o.Window)/1e6)))
			}
		}
		out = append(out, r)
	}
	return out, fs, nil
}

// micros parses a "%.6f" timestamp into microseconds.
func micros(s string) (int64, bool) {
	i := len(s) - 7
	if i < 1 || s[i] != '.' {
		return 0, false
	}
	whole, err1 := strconv.ParseInt(s[:i], 10, 64)
	frac, err2 := strconv.ParseInt(s[i+1:], 10, 64)
	if err1 != nil || err2 != nil || whole < 0 || whole > math.MaxInt64/1_000_000-1 {
		return 0, false
	}
	return whole*1_000_000 + frac, true
}

func formatMicros(us int64) string {
	frac := strconv.FormatInt(us%1_000_000, 10)
	for len(frac) < 6 {
		frac = "0" + frac
	}
	return strconv.FormatInt(us/1_000_000, 10) + "." + frac
}

// Failing counts the rows that count against SMSR's certificate: tags
// missing, malformed or matching at no searched time. Rows matching at an
// earlier time (SMSR's own quirk) are genuine; rows not searched are not
// counted (undecided).
func Failing(res []TagResult) int {
	n := 0
	for _, r := range res {
		switch r.Outcome {
		case TagNoMatch, TagMissing, TagMalformed:
			n++
		}
	}
	return n
}
