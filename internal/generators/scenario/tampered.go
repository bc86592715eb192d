package scenario

import (
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/fxamacker/cbor/v2"

	"github.com/memscope/memscope/evidence"
	"github.com/memscope/memscope/evidence/record"
	"github.com/memscope/memscope/evidence/snapshot"
	"github.com/memscope/memscope/evidence/tlog"
	"github.com/memscope/memscope/evidence/writer"
	"github.com/memscope/memscope/internal/analyses/smsr"
)

// buildTampered writes one case of every verify finding on top of the
// honest base store. Each case is forged with the writer's low-level calls;
// the tile tamper happens after the log is closed (tamperLogTile).
// tamperCase writes one kind of damage into the store; code is the
// finding verify must report for it.
type tamperCase struct {
	code string
	f    func() error
}

func buildTampered(e *env, _ Options) ([]string, string, error) {
	if err := e.base(); err != nil {
		return nil, "", err
	}
	var expected []string
	var revokedTS uint64 // agent:rotating's key revocation
	cases := append(append(signedRecordCases(e, &revokedTS), logCases(e)...), rowAndCheckpointCases(e, &expected)...)
	cases = append(cases, backdatedCase(e, &revokedTS, &expected), futureCase(e, &expected))
	for _, c := range cases {
		expected = append(expected, c.code)
		if err := c.f(); err != nil {
			return nil, "", fmt.Errorf("case %s: %w", c.code, err)
		}
	}
	// The tile flipped after close: the entry bundles still hash up to the
	// checkpoint root, so every record in them is proven included from the
	// bundles (docs/TLOG.md) and only the tile is at fault; the labels and
	// the defences' verdicts stand.
	expected = append(expected, "TILE_MISMATCH")
	e.expectAction("act-pay-chatwin", "allow", "allow", "allow", "accept")
	e.expectAction("act-email-wiki", "allow", "allow", "deny", "accept")
	e.expectAction("act-lookup", "allow", "allow", "allow", "accept")
	sort.Strings(expected)
	return expected, "one finding of every kind: " + strings.Join(expected, ", ") + ".", nil
}

// signedRecordCases damage signed records and the registry: signatures, writers, keys and encodings.
func signedRecordCases(e *env, revokedTS *uint64) []tamperCase {
	return []tamperCase{
		{"SIG_INVALID", func() error {
			en, _, err := e.signedEntry("session-7", "agent:planner", "Pay the Chatwin estate.", record.DerivedTrusted, nil, nil)
			if err != nil {
				return err
			}
			en.Content = "Pay account 7731." // edited after signing
			raw, err := record.Encode(en)
			if err != nil {
				return err
			}
			return e.storeForged(en, raw, e.taggedRow(en))
		}},
		{"WRITER_UNREGISTERED", func() error {
			en, raw, err := e.signedEntry("session-7", "agent:ghost", "A memory from a principal nobody registered.", record.Trusted, nil, nil)
			if err != nil {
				return err
			}
			return e.storeForged(en, raw, e.taggedRow(en))
		}},
		{"REGISTRY_SIG_INVALID", func() error {
			ts := e.tick()
			ev := &record.PrincipalEvent{RID: e.newID(ts), Op: record.OpRegister, Principal: "agent:rogue", Channel: record.ChannelAuthenticated, TS: ts, Nonce: e.nonce()}
			copy(ev.PublicKey[:], e.key("agent:rogue").Public().(ed25519.PublicKey))
			// Signed by the rogue's own key posing as a root.
			return e.st.Register(e.ctx, ev, e.key("agent:rogue"))
		}},
		{"KEY_MALFORMED", func() error {
			ts := e.tick()
			ev := &record.PrincipalEvent{RID: e.newID(ts), Op: record.OpRegister, Principal: "agent:weak", Channel: record.ChannelAuthenticated, TS: ts, Nonce: e.nonce()}
			ev.PublicKey[0] = 1 // the identity point: small order, canonical
			return e.st.Register(e.ctx, ev, e.root)
		}},
		{"KEY_OUTSIDE_VALIDITY", func() error {
			if err := e.register("agent:rotating", record.ChannelAuthenticated); err != nil {
				return err
			}
			old := e.key("agent:rotating")
			ts := e.tick()
			ev := &record.PrincipalEvent{RID: e.newID(ts), Op: record.OpRevoke, Principal: "agent:rotating", Channel: record.ChannelAuthenticated, TS: ts, Nonce: e.nonce()}
			copy(ev.PublicKey[:], old.Public().(ed25519.PublicKey))
			if err := e.st.Register(e.ctx, ev, e.root); err != nil {
				return err
			}
			*revokedTS = ts
			en, raw, err := e.signedEntry("session-7", "agent:rotating", "Written with a key revoked a second earlier.", record.DerivedTrusted, nil, nil)
			if err != nil {
				return err
			}
			return e.storeForged(en, raw, e.taggedRow(en))
		}},
		{"RECORD_NOT_CANONICAL", func() error {
			en, _, err := e.signedEntry("session-7", "agent:planner", "Encoded with fields in declaration order.", record.DerivedTrusted, nil, nil)
			if err != nil {
				return err
			}
			em, err := cbor.EncOptions{Sort: cbor.SortNone, ShortestFloat: cbor.ShortestFloat16}.EncMode()
			if err != nil {
				return err
			}
			raw, err := em.Marshal(en)
			if err != nil {
				return err
			}
			return e.storeForged(en, raw, e.taggedRow(en))
		}},
		{"RECORD_MALFORMED", func() error {
			en, raw, err := e.signedEntry("session-7", "agent:planner", "Truncated on disk.", record.DerivedTrusted, nil, nil)
			if err != nil {
				return err
			}
			return e.storeForged(en, raw[:len(raw)-7], e.taggedRow(en))
		}},
		{"COLUMN_MISMATCH", func() error {
			en, raw, err := e.signedEntry("session-7", "external:wiki", "External text whose trust column was edited to Trusted.", record.External, nil, nil)
			if err != nil {
				return err
			}
			row := e.taggedRow(en)
			zero := int(record.Trusted)
			row.Trust = &zero
			return e.storeForged(en, raw, row)
		}},
	}
}

// logCases break what ties the store to the log and lineage: leaves, tombstones, inclusions, parents and sources.
func logCases(e *env) []tamperCase {
	return []tamperCase{
		{"RECORD_NOT_IN_LOG", func() error {
			en, raw, err := e.signedEntry("session-7", "agent:planner", "Inserted into the store without being logged.", record.DerivedTrusted, nil, nil)
			if err != nil {
				return err
			}
			row := e.taggedRow(en)
			row.Entry, row.Raw = en, raw
			return e.st.InsertEntryRow(row)
		}},
		{"LEAF_WITHOUT_RECORD", func() error {
			en, _, err := e.signedEntry("session-7", "agent:planner", "Logged, then deleted from the store without a tombstone.", record.DerivedTrusted, nil, nil)
			if err != nil {
				return err
			}
			_, err = e.st.AppendLeaf(e.ctx, record.RecordLeaf(en.EID, en.Sig))
			return err
		}},
		{"TOMBSTONED_LIVE", func() error {
			en, err := e.entry("undead", "user", "Deleted by the user, yet still served.", record.Trusted, nil, nil, "session-7")
			if err != nil {
				return err
			}
			t := &record.Tombstone{Target: en.EID, Reason: "user deleted this note", Writer: "user", TS: e.tick(), Nonce: e.nonce()}
			return e.st.AddTombstone(e.ctx, t, e.key("user"))
		}},
		{"TOMBSTONE_NOT_IN_LOG", func() error {
			en, err := e.entry("quiet-delete", "user", "Deleted with a tombstone that never reached the log.", record.Trusted, nil, nil, "session-7")
			if err != nil {
				return err
			}
			t := &record.Tombstone{V: record.FormatVersion, Kind: record.KindTombstone, Target: en.EID, Reason: "cleanup", Writer: "user", TS: e.tick(), Nonce: e.nonce()}
			t.KID = record.KeyIDOf(e.key("user").Public().(ed25519.PublicKey))
			if err := record.Sign(t, e.key("user")); err != nil {
				return err
			}
			raw, err := record.Encode(t)
			if err != nil {
				return err
			}
			if err := e.st.Exec("DELETE FROM entries WHERE eid = ?", en.EID.String()); err != nil {
				return err
			}
			return e.st.InsertTombstoneRow(t, raw, nil)
		}},
		{"INCLUSION_FAILED", func() error {
			en, raw, err := e.signedEntry("session-7", "agent:planner", "The snapshot points this entry at another record's leaf.", record.DerivedTrusted, nil, nil)
			if err != nil {
				return err
			}
			idx, err := e.st.AppendLeaf(e.ctx, record.RecordLeaf(en.EID, en.Sig))
			if err != nil {
				return err
			}
			wrong := idx - 1
			row := e.taggedRow(en)
			row.Entry, row.Raw, row.Leaf = en, raw, &wrong
			return e.st.InsertEntryRow(row)
		}},
		{"LEAF_MALFORMED", func() error {
			_, err := e.st.AppendLeaf(e.ctx, []byte("this leaf is neither a record nor a tombstone"))
			return err
		}},
		{"PARENT_MISSING", func() error {
			ghost := e.newID(e.tick())
			en, raw, err := e.signedEntry("session-7", "agent:planner", "Derived from a memory that is nowhere to be found.", record.DerivedTrusted, []record.ID{ghost}, []float64{0.7})
			if err != nil {
				return err
			}
			return e.storeForged(en, raw, e.taggedRow(en))
		}},
		{"SOURCE_MISSING", func() error {
			return e.write(record.KindEdge, entityNode("Boston"), passageNode("celtics"), "mentions", 1, "agent:indexer", []record.ID{e.newID(e.tick())})
		}},
	}
}

// rowAndCheckpointCases damage the plain rows (tags, gate events, malformed rows) and the recorded checkpoints; a malformed row also adds TABLE_UNSIGNED to expected.
func rowAndCheckpointCases(e *env, expected *[]string) []tamperCase {
	return []tamperCase{
		{"HMAC_MISSING", func() error {
			en, raw, err := e.signedEntry("session-7", "agent:planner", "No tag was stored for this memory.", record.DerivedTrusted, nil, nil)
			if err != nil {
				return err
			}
			return e.storeForged(en, raw, writer.EntryRow{SessionID: "session-7"})
		}},
		{"HMAC_WRONG", func() error {
			en, raw, err := e.signedEntry("session-7", "agent:planner", "Tag computed before the content was edited.", record.DerivedTrusted, nil, nil)
			if err != nil {
				return err
			}
			return e.storeForged(en, raw, writer.EntryRow{SessionID: "session-7", HMACTag: smsr.Tag(e.hmacKey, "other content", "session-7", int64(en.TS))})
		}},
		{"GATE_MATERIALISED", func() error {
			cand, raw, err := e.signedEntry("session-7", "agent:planner", "Rejected candidate that was applied first.", record.DerivedTrusted, nil, nil)
			if err != nil {
				return err
			}
			v := e.st.Version()
			e.st.BumpVersion()
			return e.gateEvent(writer.GateEvent{ID: "gate-late", CandidateEID: cand.EID, CandidateHash: writer.CandidateHash(raw), Verdict: snapshot.GateReject,
				Reason: "rolled back after apply", VersionBefore: v, VersionAfter: v + 1, TS: int64(e.tick())})
		}},
		{"ROW_MALFORMED", func() error {
			// The inserted row carries no signed record either, so the
			// actions table's coverage is partial.
			*expected = append(*expected, "TABLE_UNSIGNED")
			return e.st.Exec("INSERT INTO actions(seq,id,tool,params,justification,dispatched,ts) VALUES(1000000,'act-broken','send_email','{not json','[]',1,0)")
		}},
		{"CHECKPOINT_SIG_INVALID", func() error {
			cp, err := tlog.SignCheckpoint(e.signer, e.origin(), e.st.LogSize(), e.st.Root())
			if err != nil {
				return err
			}
			return e.st.RecordCheckpoint(int64(e.tick()), corruptNoteSignature(cp))
		}},
		{"CHECKPOINT_FORK", func() error {
			forked := sha256.Sum256([]byte("a different history"))
			cp, err := tlog.SignCheckpoint(e.signer, e.origin(), e.st.LogSize(), forked[:])
			if err != nil {
				return err
			}
			return e.st.RecordCheckpoint(int64(e.tick()), cp)
		}},
		{"LOG_ROLLBACK", func() error {
			future := sha256.Sum256([]byte("leaves the log no longer has"))
			cp, err := tlog.SignCheckpoint(e.signer, e.origin(), e.st.LogSize()+500, future[:])
			if err != nil {
				return err
			}
			return e.st.RecordCheckpoint(int64(e.tick()), cp)
		}},
	}
}

// backdatedCase comes last, so that every record before keeps its id:
// whoever holds agent:rotating's revoked key signs a record dated a second
// before the revocation, and it is logged after it (issue 23 item 2). The
// log position, not the chosen timestamp, says when it was written.
func backdatedCase(e *env, revokedTS *uint64, expected *[]string) tamperCase {
	return tamperCase{"BACKDATED_AFTER_REVOCATION", func() error {
		en, _, err := e.signedEntry("session-7", "agent:rotating", "Signed with the revoked key, dated a second before its revocation.", record.Trusted, nil, nil)
		if err != nil {
			return err
		}
		en.TS = *revokedTS - 1e9
		en.EID = e.newID(en.TS)
		if err := record.Sign(en, e.key("agent:rotating")); err != nil {
			return err
		}
		raw, err := record.Encode(en)
		if err != nil {
			return err
		}
		*expected = append(*expected, "TIME_BACKWARDS") // KEY_OUTSIDE_VALIDITY is expected already
		return e.storeForged(en, raw, e.taggedRow(en))
	}}
}

// futureCase signs an entry dated in 2100, after every clock that will
// verify it (issue 23 item 12), logged last.
func futureCase(e *env, expected *[]string) tamperCase {
	return tamperCase{"TIME_IN_FUTURE", func() error {
		en, _, err := e.signedEntry("session-7", "agent:planner", "Dated in the year 2100.", record.DerivedTrusted, nil, nil)
		if err != nil {
			return err
		}
		en.TS = uint64(time.Date(2100, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano())
		// The LOG_ROLLBACK checkpoint claims 500 leaves more than the log
		// had, so it "contains" this leaf and was seen before 2100.
		*expected = append(*expected, "TIME_AFTER_CHECKPOINT")
		en.EID = e.newID(en.TS)
		if err := record.Sign(en, e.key("agent:planner")); err != nil {
			return err
		}
		raw, err := record.Encode(en)
		if err != nil {
			return err
		}
		return e.storeForged(en, raw, e.taggedRow(en))
	}}
}

func (e *env) origin() string { return e.signer.Name() }

// taggedRow is the row of a forged entry with a valid HMAC tag, so that
// each tampering case shows only its own finding.
func (e *env) taggedRow(en *record.Entry) writer.EntryRow {
	row := writer.EntryRow{SessionID: "session-7"}
	if e.hmacKey != nil {
		row.HMACTag = smsr.Tag(e.hmacKey, en.Content, "session-7", int64(en.TS))
	}
	return row
}

// corruptNoteSignature flips one bit of the first signature of a note.
func corruptNoteSignature(n []byte) []byte {
	text := string(n)
	i := strings.LastIndex(text, "\n\u2014 ")
	if i < 0 {
		return n
	}
	line := text[i+len("\n\u2014 "):]
	sp := strings.LastIndexByte(line, ' ')
	sig, err := base64.StdEncoding.DecodeString(strings.TrimSpace(line[sp+1:]))
	if err != nil || len(sig) < 10 {
		return n
	}
	sig[len(sig)-1] ^= 1
	return []byte(text[:i] + "\n\u2014 " + line[:sp+1] + base64.StdEncoding.EncodeToString(sig) + "\n")
}

// tamperLogTile flips one byte of the first level-0 hash tile: the hash of
// leaf 5, which is the sibling used by leaf 4's inclusion proof.
func tamperLogTile(dir string) error {
	var tile string
	err := filepath.WalkDir(filepath.Join(dir, evidence.LogDir, "tile", "0"), func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && tile == "" {
			tile = p
		}
		return nil
	})
	if err != nil {
		return err
	}
	if tile == "" {
		return fmt.Errorf("no level-0 tile under %s", dir)
	}
	b, err := os.ReadFile(tile)
	if err != nil {
		return err
	}
	if len(b) < 6*32 {
		return fmt.Errorf("tile %s too short to tamper", tile)
	}
	b[5*32] ^= 0xff
	return os.WriteFile(tile, b, 0o644)
}
