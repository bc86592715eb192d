package record

import "fmt"

// KindImportNote is the kind of an import note: what an import kept about
// one structural write that the write record has no field for. Notes are
// logged under a kind-tagged leaf like the event records.
const KindImportNote = "importnote"

// MaxInputIDBytes bounds an import note's input id (the importer keeps
// edge ids up to 256 bytes; the bound leaves room).
const MaxInputIDBytes = 1024

// Declared provenance labels an import note may carry (the values of
// snapshot.LabelAuthenticated and LabelUnauthenticated; "" for none).
const (
	declaredAuthenticated   = "authenticated"
	declaredUnauthenticated = "unauthenticated"
)

// ImportNote is signed by the writer of the write it is about, with the
// key that signed the write, at the write's time: Name is the write's id
// (canonical UUID text), InputID the id the import's input gave the write
// ("" for none) and Declared the provenance label the input declared for
// it ("" for none). Both are claims of the input; the signature shows the
// note is unchanged since the import, and the log shows none was removed.
// They used to live in the snapshot's meta table (import_ids,
// declared_labels), whose 64 KiB value limit dropped them on large imports.
type ImportNote struct {
	V        uint     `cbor:"v"`
	Kind     string   `cbor:"kind"`
	Name     string   `cbor:"name"`
	InputID  string   `cbor:"input_id"`
	Declared string   `cbor:"declared"`
	Writer   string   `cbor:"writer"`
	KID      KeyID    `cbor:"kid"`
	TS       uint64   `cbor:"ts"`
	Nonce    [16]byte `cbor:"nonce"`
	Sig      []byte   `cbor:"sig"`
}

// DecodeImportNote decodes and validates an import note.
func DecodeImportNote(raw []byte) (*ImportNote, error) {
	var n ImportNote
	if err := decodeEvent(KindImportNote, raw, &n); err != nil {
		return nil, err
	}
	if err := checkEventHead(KindImportNote, n.V, n.Kind, n.Name, n.Writer, n.Sig); err != nil {
		return nil, err
	}
	if _, ok := CanonicalID(n.Name); !ok {
		return nil, &FieldError{Kind: KindImportNote, ID: n.Name, Field: "name", Reason: "want the write's id as canonical UUID text"}
	}
	if err := checkText(KindImportNote, n.Name, "input_id", n.InputID, MaxInputIDBytes); err != nil {
		return nil, err
	}
	switch n.Declared {
	case "", declaredAuthenticated, declaredUnauthenticated:
	default:
		return nil, &FieldError{Kind: KindImportNote, ID: n.Name, Field: "declared", Reason: fmt.Sprintf("%q is not %s, %s or empty", n.Declared, declaredAuthenticated, declaredUnauthenticated)}
	}
	if n.InputID == "" && n.Declared == "" {
		return nil, &FieldError{Kind: KindImportNote, ID: n.Name, Field: "", Reason: "the note says nothing (no input_id, no declared label)"}
	}
	return &n, nil
}
