// Package record defines memscope's signed evidence records: memory entries,
// structural writes, principal-registry events and tombstones. Each record is
// a CBOR map in Core Deterministic Encoding (RFC 8949 section 4.2.1); its
// Ed25519 signature covers the encoding of every field except "sig".
//
// The package is shared by the writer (which produces evidence) and the loader
// (which decodes it strictly); it holds no I/O.
package record

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
)

// FormatVersion is the value of every record's "v" field.
const FormatVersion = 1

// Record kinds, the value of the "kind" field.
const (
	KindEntry     = "entry"
	KindEdge      = "edge"     // a weighted graph edge between two nodes
	KindMerge     = "merge"    // a merge link (synonymy / same-entity) between two nodes
	KindRelation  = "relation" // a typed relation triple (src, rel, dst)
	KindPrincipal = "principal"
	KindTombstone = "tombstone"
)

// Trust labels of MemLineage; a larger value is less safe.
type Trust uint8

const (
	Trusted          Trust = 0
	DerivedTrusted   Trust = 1
	DerivedUntrusted Trust = 2
	External         Trust = 3
)

func (t Trust) String() string {
	switch t {
	case Trusted:
		return "Trusted"
	case DerivedTrusted:
		return "Derived-Trusted"
	case DerivedUntrusted:
		return "Derived-Untrusted"
	case External:
		return "External"
	}
	return fmt.Sprintf("Trust(%d)", uint8(t))
}

// Short is a fixed-width abbreviation for narrow columns and graph labels.
func (t Trust) Short() string {
	switch t {
	case Trusted:
		return "T"
	case DerivedTrusted:
		return "DT"
	case DerivedUntrusted:
		return "DU"
	case External:
		return "EXT"
	}
	return "?"
}

// Valid reports whether t is one of the four defined levels.
func (t Trust) Valid() bool { return t <= External }

// IsUntrusted reports whether the gate treats t as untrusted (t >= 2,
// MemLineage (arXiv:2605.14421) section 3.7).
func (t Trust) IsUntrusted() bool { return t >= DerivedUntrusted }

// ID is a 16-byte record identifier (UUIDv7 for entries and writes).
type ID [16]byte

// String gives the canonical 8-4-4-4-12 lowercase UUID text.
func (id ID) String() string {
	var b [36]byte
	hex.Encode(b[0:8], id[0:4])
	b[8] = '-'
	hex.Encode(b[9:13], id[4:6])
	b[13] = '-'
	hex.Encode(b[14:18], id[6:8])
	b[18] = '-'
	hex.Encode(b[19:23], id[8:10])
	b[23] = '-'
	hex.Encode(b[24:36], id[10:16])
	return string(b[:])
}

// IsV7 reports whether id carries the UUID version 7 and RFC 9562 variant bits.
func (id ID) IsV7() bool { return id[6]>>4 == 7 && id[8]>>6 == 2 }

// CanonicalID parses the canonical text of an id (lowercase hex, hyphens
// at 8, 13, 18 and 23: exactly what String gives), without allocating; ok
// is false for any other text, including other spellings ParseID accepts.
func CanonicalID(s string) (id ID, ok bool) {
	if len(s) != 36 || s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-' {
		return id, false
	}
	j := 0
	for i := 0; i < 36; {
		if i == 8 || i == 13 || i == 18 || i == 23 {
			i++
			continue
		}
		hi, ok1 := lowerHexDigit(s[i])
		lo, ok2 := lowerHexDigit(s[i+1])
		if !ok1 || !ok2 {
			return ID{}, false
		}
		id[j] = hi<<4 | lo
		j++
		i += 2
	}
	return id, true
}

func lowerHexDigit(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	}
	return 0, false
}

// ParseID accepts the canonical UUID text form (hyphens optional).
func ParseID(s string) (ID, error) {
	var id ID
	clean := make([]byte, 0, 32)
	for i := 0; i < len(s); i++ {
		if s[i] == '-' {
			continue
		}
		clean = append(clean, s[i])
	}
	if len(clean) != 32 {
		return id, fmt.Errorf("id %q: want 32 hex digits", s)
	}
	if _, err := hex.Decode(id[:], clean); err != nil {
		return id, fmt.Errorf("id %q: %v", s, err)
	}
	return id, nil
}

// KeyID names a public key inside records: the first 8 bytes of its SHA-256.
type KeyID [8]byte

// KeyIDOf computes the KeyID of an Ed25519 public key.
func KeyIDOf(pub []byte) KeyID {
	sum := sha256.Sum256(pub)
	var k KeyID
	copy(k[:], sum[:8])
	return k
}

func (k KeyID) String() string { return hex.EncodeToString(k[:]) }

// Entry is a MemLineage ProvEntry (MemLineage, arXiv:2605.14421, section 3.2).
type Entry struct {
	V       uint      `cbor:"v"`
	Kind    string    `cbor:"kind"`
	EID     ID        `cbor:"eid"`
	Content string    `cbor:"content"`
	Writer  string    `cbor:"writer"`
	KID     KeyID     `cbor:"kid"`
	HSrc    [32]byte  `cbor:"h_src"`
	HCtx    [32]byte  `cbor:"h_ctx"`
	Trust   Trust     `cbor:"trust"`
	Parents []ID      `cbor:"parents"`
	Weights []float64 `cbor:"weights"`
	TS      uint64    `cbor:"ts"`
	Nonce   [16]byte  `cbor:"nonce"`
	// Session is the session the entry was written in, signed with it
	// ("" for none). Absent (nil) in records written before sessions were
	// signed: their session_id column is then an unsigned claim.
	Session *string `cbor:"session,omitempty"`
	Sig     []byte  `cbor:"sig"`
}

// Write is a structural write to the graph memory: an edge, a merge link or a
// relation. Sources lists the entries whose content justified the write; an
// empty list is a no-source write, unauthenticated by construction.
type Write struct {
	V       uint     `cbor:"v"`
	Kind    string   `cbor:"kind"`
	WID     ID       `cbor:"wid"`
	Src     string   `cbor:"src"`
	Dst     string   `cbor:"dst"`
	Rel     string   `cbor:"rel"`
	Weight  float64  `cbor:"weight"`
	Writer  string   `cbor:"writer"`
	KID     KeyID    `cbor:"kid"`
	Sources []ID     `cbor:"sources"`
	TS      uint64   `cbor:"ts"`
	Nonce   [16]byte `cbor:"nonce"`
	Sig     []byte   `cbor:"sig"`
}

// Principal-registry operations.
const (
	OpRegister = "register"
	OpRevoke   = "revoke"
)

// Principal channels: whether the principal's writes arrive over an
// authenticated channel (AuthSelect's write-provenance label input).
const (
	ChannelAuthenticated   = "authenticated"
	ChannelUnauthenticated = "unauthenticated"
)

// PrincipalEvent registers or revokes one key of a principal. It is signed by
// a registry root key named in Root; a key is valid from its register event's
// TS until a revoke event's TS (rotation is register-new then revoke-old).
type PrincipalEvent struct {
	V         uint     `cbor:"v"`
	Kind      string   `cbor:"kind"`
	RID       ID       `cbor:"rid"`
	Op        string   `cbor:"op"`
	Principal string   `cbor:"principal"`
	PublicKey [32]byte `cbor:"pubkey"`
	Channel   string   `cbor:"channel"`
	Root      [32]byte `cbor:"root"`
	TS        uint64   `cbor:"ts"`
	Nonce     [16]byte `cbor:"nonce"`
	Sig       []byte   `cbor:"sig"`
}

// Tombstone records a lawful deletion of an entry. Its log leaf is "ts:"
// followed by the tombstone's full encoding, so the log names the entry and
// the reason while the deleted entry's own leaf stays provable.
type Tombstone struct {
	V      uint   `cbor:"v"`
	Kind   string `cbor:"kind"`
	Target ID     `cbor:"target"`
	Reason string `cbor:"reason"`
	// What lineage needs of the deleted entry, signed with the deletion so
	// its descendants keep a vouched-for ancestor: its writer and recorded
	// trust, and its parents with their weights. Optional (absent in older
	// tombstones); when present, writer and trust come together.
	EntryWriter  string    `cbor:"entry_writer,omitempty"`
	EntryTrust   *Trust    `cbor:"entry_trust,omitempty"`
	EntryParents []ID      `cbor:"entry_parents,omitempty"`
	EntryWeights []float64 `cbor:"entry_weights,omitempty"`
	Writer       string    `cbor:"writer"`
	KID          KeyID     `cbor:"kid"`
	TS           uint64    `cbor:"ts"`
	Nonce        [16]byte  `cbor:"nonce"`
	Sig          []byte    `cbor:"sig"`
}
