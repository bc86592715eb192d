package tlog

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	f_log "github.com/transparency-dev/formats/log"
	"golang.org/x/mod/sumdb/note"
)

// HashSize is the size of every RFC 6962 hash in the log (SHA-256).
const HashSize = 32

// SigStatus says what the signatures on a checkpoint prove.
type SigStatus int

const (
	// Unanchored: well-formed signatures, none by a key the caller supplied
	// (including the case where no verifier was supplied at all).
	Unanchored SigStatus = iota
	// Verified: at least one signature verified with a supplied key.
	Verified
	// SigInvalid: a signature claims a supplied key (same name and key
	// hash) but does not verify over the checkpoint text.
	SigInvalid
)

func (s SigStatus) String() string {
	switch s {
	case Verified:
		return "verified"
	case SigInvalid:
		return "signature invalid"
	default:
		return "unanchored"
	}
}

// Signature is one signature line of the note.
type Signature struct {
	KeyName string
	KeyHash uint32
}

// Checkpoint is a parsed C2SP tlog-checkpoint signed note.
type Checkpoint struct {
	Origin     string
	Size       uint64
	Root       []byte   // 32 bytes
	Extensions []string // extension lines, in order, without newlines
	Signatures []Signature
	Status     SigStatus
	// VerifiedBy names the supplied keys whose signatures verified.
	VerifiedBy []string
	// OriginMatchesKey is true when a verifying key's name equals Origin,
	// as tlog-checkpoint expects for the log's own key.
	OriginMatchesKey bool
	// Text is the signed body ("origin\nsize\nroot\n[extensions]").
	Text string
}

// maxCheckpointSize bounds the input; real checkpoints are a few hundred bytes.
const maxCheckpointSize = 1 << 16

// ParseCheckpoint parses raw strictly as a C2SP signed checkpoint and checks
// its signatures against verifiers. A bad signature by a supplied key is not
// an error: it is reported as Status SigInvalid so callers can show it. Errors
// are for malformed input and name the offending line.
func ParseCheckpoint(raw []byte, verifiers ...note.Verifier) (Checkpoint, error) {
	var cp Checkpoint
	if len(raw) > maxCheckpointSize {
		return cp, fmt.Errorf("checkpoint: %d bytes, over the %d-byte limit", len(raw), maxCheckpointSize)
	}
	if !utf8.Valid(raw) {
		return cp, errors.New("checkpoint: not valid UTF-8")
	}
	if i := bytes.IndexFunc(raw, func(r rune) bool { return r < 0x20 && r != '\n' }); i >= 0 {
		return cp, fmt.Errorf("checkpoint: control character %q at byte %d (line %d)", raw[i], i, bytes.Count(raw[:i], []byte("\n"))+1)
	}
	split := bytes.LastIndex(raw, []byte("\n\n"))
	if split < 0 {
		return cp, errors.New("checkpoint: no blank line separating the body from the signature block")
	}
	body, sigBlock := raw[:split+1], raw[split+2:]
	bodyLines := strings.Split(strings.TrimSuffix(string(body), "\n"), "\n")
	if err := parseBody(&cp, bodyLines); err != nil {
		return Checkpoint{}, err
	}
	cp.Text = string(body)
	firstSigLine := len(bodyLines) + 2
	if err := parseSigLines(&cp, sigBlock, firstSigLine); err != nil {
		return Checkpoint{}, err
	}
	if err := checkSignatures(&cp, raw, verifiers); err != nil {
		return Checkpoint{}, err
	}
	return cp, nil
}

func parseBody(cp *Checkpoint, lines []string) error {
	if len(lines) < 3 {
		return fmt.Errorf("checkpoint: body has %d lines, need origin, size and root hash", len(lines))
	}
	if lines[0] == "" {
		return errors.New("checkpoint line 1 (origin): empty")
	}
	cp.Origin = lines[0]
	s := lines[1]
	if s == "" {
		return errors.New("checkpoint line 2 (size): empty")
	}
	if len(s) > 1 && s[0] == '0' {
		return fmt.Errorf("checkpoint line 2 (size): %q has a leading zero", s)
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return fmt.Errorf("checkpoint line 2 (size): %q is not a decimal number (byte %d)", s, i)
		}
	}
	size, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return fmt.Errorf("checkpoint line 2 (size): %q does not fit in 64 bits", s)
	}
	cp.Size = size
	root, err := base64.StdEncoding.Strict().DecodeString(lines[2])
	if err != nil {
		return fmt.Errorf("checkpoint line 3 (root hash): bad base64: %v", err)
	}
	if len(root) != HashSize {
		return fmt.Errorf("checkpoint line 3 (root hash): %d bytes, want %d", len(root), HashSize)
	}
	cp.Root = root
	for i, ext := range lines[3:] {
		if ext == "" {
			return fmt.Errorf("checkpoint line %d (extension): empty", i+4)
		}
		cp.Extensions = append(cp.Extensions, ext)
	}
	return nil
}

func parseSigLines(cp *Checkpoint, block []byte, firstLine int) error {
	if len(block) == 0 {
		return fmt.Errorf("checkpoint line %d: no signature lines", firstLine)
	}
	if block[len(block)-1] != '\n' {
		return errors.New("checkpoint: last signature line does not end with a newline")
	}
	lines := strings.Split(strings.TrimSuffix(string(block), "\n"), "\n")
	if len(lines) > 100 {
		return fmt.Errorf("checkpoint: %d signature lines, over the limit of 100", len(lines))
	}
	for i, line := range lines {
		n := firstLine + i
		rest, ok := strings.CutPrefix(line, "\u2014 ")
		if !ok {
			return fmt.Errorf("checkpoint line %d: signature line does not start with an em dash and a space", n)
		}
		name, b64, ok := strings.Cut(rest, " ")
		if !ok || name == "" || strings.ContainsAny(name, "+") {
			return fmt.Errorf("checkpoint line %d: signature line needs \"<key name> <base64>\" with a valid key name", n)
		}
		sig, err := base64.StdEncoding.Strict().DecodeString(b64)
		if err != nil {
			return fmt.Errorf("checkpoint line %d: signature by %q: bad base64: %v", n, name, err)
		}
		if len(sig) < 5 {
			return fmt.Errorf("checkpoint line %d: signature by %q: %d bytes, too short for key hash and signature", n, name, len(sig))
		}
		cp.Signatures = append(cp.Signatures, Signature{
			KeyName: name,
			KeyHash: uint32(sig[0])<<24 | uint32(sig[1])<<16 | uint32(sig[2])<<8 | uint32(sig[3]),
		})
	}
	return nil
}

// checkSignatures delegates the cryptography to note.Open and maps its
// outcome to a status.
func checkSignatures(cp *Checkpoint, raw []byte, verifiers []note.Verifier) error {
	n, err := note.Open(raw, note.VerifierList(verifiers...))
	var unverified *note.UnverifiedNoteError
	var invalid *note.InvalidSignatureError
	switch {
	case err == nil:
		cp.Status = Verified
		for _, s := range n.Sigs {
			cp.VerifiedBy = append(cp.VerifiedBy, s.Name)
			if s.Name == cp.Origin {
				cp.OriginMatchesKey = true
			}
		}
	case errors.As(err, &unverified):
		cp.Status = Unanchored
	case errors.As(err, &invalid):
		cp.Status = SigInvalid
	default:
		// Our own parse accepted what note rejected (e.g. two supplied keys
		// with the same name and hash): report, do not guess.
		return fmt.Errorf("checkpoint: signature block: %v", err)
	}
	return nil
}

// SignCheckpoint produces a C2SP checkpoint for a tree of size leaves with
// the given root, signed by signer. Same inputs give the same bytes (Ed25519
// is deterministic), and the format is exactly what Tessera publishes.
func SignCheckpoint(signer note.Signer, origin string, size uint64, root []byte) ([]byte, error) {
	if signer == nil {
		return nil, errors.New("SignCheckpoint: nil signer")
	}
	if len(root) != HashSize {
		return nil, fmt.Errorf("SignCheckpoint: root is %d bytes, want %d", len(root), HashSize)
	}
	if origin == "" || strings.ContainsAny(origin, "\n") {
		return nil, fmt.Errorf("SignCheckpoint: origin %q must be one non-empty line", origin)
	}
	text := f_log.Checkpoint{Origin: origin, Size: size, Hash: root}.Marshal()
	signed, err := note.Sign(&note.Note{Text: string(text)}, signer)
	if err != nil {
		return nil, fmt.Errorf("SignCheckpoint: %w", err)
	}
	return signed, nil
}
