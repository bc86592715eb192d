package verify

import (
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/memscope/memscope/evidence/record"
	"github.com/memscope/memscope/evidence/snapshot"
	"github.com/memscope/memscope/internal/present/finding"
	"github.com/memscope/memscope/loader"
)

func (v *verifier) registry(ctx context.Context) error {
	roots := v.registryRoots()
	// Registry events apply in log order, never in the snapshot's unsigned
	// row order: moving a revoke row before its register row must not make
	// the revocation vanish. Events whose leaf is not in the log (already a
	// finding) follow, by signed timestamp.
	var events []*loader.PrincipalRow
	order := v.newRowOrder("principals")
	err := v.snap.EachPrincipal(ctx, func(r *loader.PrincipalRow) error {
		order.next(r.Seq, r.LeafIndex)
		events = append(events, r)
		return nil
	})
	if err != nil {
		return err
	}
	v.applyRegistry(events, roots)
	return nil
}

// applyRegistry checks the registry events and applies them to the key
// table in log order (see registry).
func (v *verifier) applyRegistry(events []*loader.PrincipalRow, roots map[[32]byte]bool) {
	v.sortByLog(events)
	checked := map[[32]byte]error{}
	for _, r := range events {
		v.registryEvent(r, roots, checked)
	}
}

// registryRoots are the keys registry events must be signed by: the
// user's trust roots, else (reported) the roots the snapshot names.
func (v *verifier) registryRoots() map[[32]byte]bool {
	roots := map[[32]byte]bool{}
	for _, k := range v.opts.TrustRoots {
		var r [32]byte
		copy(r[:], k)
		roots[r] = true
	}
	if len(roots) == 0 {
		for _, h := range strings.Split(v.snap.Meta[snapshot.MetaRootKeys], ",") {
			b, err := hex.DecodeString(strings.TrimSpace(h))
			if err == nil && len(b) == 32 {
				var r [32]byte
				copy(r[:], b)
				roots[r] = true
			}
		}
		v.add(phaseRegistry, 0, finding.RegistryRootUnanchored, "registry", "no --trust root keys given: registry events were checked against roots named in the snapshot itself")
	}
	return roots
}

// registryEvent checks one registry event and applies it to the key table.
func (v *verifier) registryEvent(r *loader.PrincipalRow, roots map[[32]byte]bool, checked map[[32]byte]error) {
	v.rep.Principals++
	v.rep.Records++
	subj := "principal " + r.RID
	if r.DecodeErr != nil {
		v.claimLeaf(r.RID)
		v.recordFinding(phaseRegistry, r.Seq, subj, r.DecodeErr)
		return
	}
	ev := r.Event
	v.inFuture(ev.TS, func(c finding.Code, m string) { v.add(phaseRegistry, r.Seq, c, subj, m) })
	v.addFact(fact{id: ev.RID, subject: subj, writer: fmt.Sprintf("registry root %x", ev.Root[:8]), ts: ev.TS})
	if r.Principal != ev.Principal || r.Op != ev.Op || r.Channel != ev.Channel || r.TS != int64(ev.TS) || r.RID != ev.RID.String() {
		v.add(phaseRegistry, r.Seq, finding.ColumnMismatch, subj, "decoded columns (rid, op, principal, channel, ts) disagree with the signed registry event")
	}
	v.inLog(phaseRegistry, r.Seq, ev.RID, subj, record.RecordLeaf(ev.RID, ev.Sig), r.LeafIndex)
	bad := false
	if !roots[ev.Root] {
		v.add(phaseRegistry, r.Seq, finding.RegistrySigInvalid, subj, fmt.Sprintf("signed by %x…, which is not a registry root", ev.Root[:8]))
		bad = true
	} else if ok, _ := record.VerifySignature(ev, ev.Root[:]); !ok {
		v.add(phaseRegistry, r.Seq, finding.RegistrySigInvalid, subj, "the root signature does not verify")
		bad = true
	}
	err, seen := checked[ev.PublicKey]
	if !seen {
		err = CheckPublicKey(ev.PublicKey[:])
		checked[ev.PublicKey] = err
		if err != nil {
			v.add(phaseRegistry, r.Seq, finding.KeyMalformed, subj, fmt.Sprintf("key of %s: %v", ev.Principal, err))
		}
	}
	if err != nil {
		bad = true
	}
	kid := record.KeyIDOf(ev.PublicKey[:])
	switch ev.Op {
	case record.OpRegister:
		if bad {
			return
		}
		k := &key{principal: ev.Principal, pub: ed25519.PublicKey(append([]byte{}, ev.PublicKey[:]...)), channel: ev.Channel, from: ev.TS, revokedAt: NoPosition}
		k.ed, _ = newEdKey(k.pub)
		v.keys[kid] = append(v.keys[kid], k)
		v.rep.Channels[ev.Principal] = ev.Channel
		v.rep.Registrations = append(v.rep.Registrations, Registration{Principal: ev.Principal, Key: kid, Op: ev.Op, Channel: ev.Channel, Pos: v.logPos(ev.RID)})
	case record.OpRevoke:
		if bad {
			return
		}
		v.rep.Registrations = append(v.rep.Registrations, Registration{Principal: ev.Principal, Key: kid, Op: ev.Op, Pos: v.logPos(ev.RID)})
		pos := v.logPos(ev.RID)
		for _, k := range v.keys[kid] {
			if k.principal != ev.Principal {
				continue
			}
			if k.until == 0 || ev.TS < k.until {
				k.until = ev.TS
			}
			k.revokedAt = min(k.revokedAt, pos)
		}
	}
}

// checkSigner verifies a signed record against the registry and returns the
// finding code and message, or "" when it verifies. raw is the record's
// canonical encoding (already checked) and sig its signature: the signed
// bytes are cut from raw rather than re-encoded.
// pos is the record's log position (NoPosition when not known).
func (v *verifier) checkSigner(raw, sig []byte, writer string, kid record.KeyID, ts, pos uint64) (finding.Code, string) {
	return v.checkSignerWith(raw, sig, writer, kid, ts, pos, sigUnchecked)
}

// sigAnswer is a signature's answer computed ahead (by verifyBatch), or
// sigUnchecked.
type sigAnswer uint8

const (
	sigUnchecked sigAnswer = iota
	sigGood
	sigBad
)

// signerKey is the registered key checkSigner verifies with: the first of
// kid's keys registered to writer, or nil.
func (v *verifier) signerKey(writer string, kid record.KeyID) *key {
	for _, k := range v.keys[kid] {
		if k.principal == writer {
			return k
		}
	}
	return nil
}

// sigJob prepares the signature checkSigner would verify for verifyBatch;
// false when checkSigner would not reach edKey.verify (no key, no decoded
// point, no signing bytes), which then answers itself.
func (v *verifier) sigJob(raw, sig []byte, writer string, kid record.KeyID) (sigJob, bool) {
	k := v.signerKey(writer, kid)
	if k == nil || k.ed == nil {
		return sigJob{}, false
	}
	msg, err := record.SigningBytesOf(raw, sig)
	if err != nil {
		return sigJob{}, false
	}
	return sigJob{k: k.ed, msg: msg, sig: sig}, true
}

// checkSignerWith is checkSigner using pre, the signature's answer when
// it was computed ahead for the same key and bytes (sigJob).
func (v *verifier) checkSignerWith(raw, sig []byte, writer string, kid record.KeyID, ts, pos uint64, pre sigAnswer) (finding.Code, string) {
	match := v.signerKey(writer, kid)
	if match == nil {
		return finding.WriterUnregistered, fmt.Sprintf("writer %s with key %s is not in the principal registry", writer, kid)
	}
	switch pre {
	case sigBad:
		return finding.SigInvalid, fmt.Sprintf("signature does not verify under %s's key %s", writer, kid)
	case sigUnchecked:
		msg, err := record.SigningBytesOf(raw, sig)
		if err != nil || !match.verify(msg, sig) {
			return finding.SigInvalid, fmt.Sprintf("signature does not verify under %s's key %s", writer, kid)
		}
	}
	if ts < match.from || (match.until != 0 && ts >= match.until) {
		return finding.KeyOutsideValidity, fmt.Sprintf("signed at ts %d with %s's key %s, valid from %d%s", ts, writer, kid, match.from, untilText(match.until))
	}
	if pos != NoPosition && match.revokedAt != NoPosition && pos > match.revokedAt {
		return finding.KeyOutsideValidity, fmt.Sprintf("logged at leaf %d, after the revocation of %s's key %s at leaf %d (its signed ts %d claims an earlier time; the log position decides)", pos, writer, kid, match.revokedAt, ts)
	}
	return "", ""
}

// backdated says why a record that checkSigner found outside its key's
// validity was also backdated: logged after the key's revocation with a
// signed time before it, a time someone holding the revoked key chose.
// "" when it was not.
func (v *verifier) backdated(writer string, kid record.KeyID, ts, pos uint64) string {
	k := v.signerKey(writer, kid)
	if k == nil || pos == NoPosition || k.revokedAt == NoPosition || pos <= k.revokedAt || k.until == 0 || ts >= k.until {
		return ""
	}
	return fmt.Sprintf("logged at leaf %d, after %s's key %s was revoked at leaf %d (ts %d), but signed with ts %d: the timestamp was set back to before the revocation", pos, writer, kid, k.revokedAt, k.until, ts)
}

// signerFindings reports checkSigner's verdict on one record (and
// BACKDATED_AFTER_REVOCATION beside a KEY_OUTSIDE_VALIDITY it explains);
// flag adds one finding. It returns the signer's code.
func (v *verifier) signerFindings(code finding.Code, msg, writer string, kid record.KeyID, ts, pos uint64, flag func(finding.Code, string)) finding.Code {
	if code == "" {
		return ""
	}
	flag(code, msg)
	if code == finding.KeyOutsideValidity {
		if why := v.backdated(writer, kid, ts, pos); why != "" {
			flag(finding.SignedBeforeRevoked, why)
		}
	}
	return code
}

func (k *key) verify(msg, sig []byte) bool {
	if k.ed != nil {
		return k.ed.verify(msg, sig)
	}
	return ed25519.Verify(k.pub, msg, sig)
}

func untilText(u uint64) string {
	if u == 0 {
		return ""
	}
	return fmt.Sprintf(" until %d", u)
}
