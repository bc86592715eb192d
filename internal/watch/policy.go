package watch

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/memscope/memscope/evidence"
	tdnote "github.com/transparency-dev/formats/note"
)

// maxPolicySize bounds a witness policy file; real ones are a few lines.
const maxPolicySize = 1 << 20

// Policy is a witness quorum policy in the format sigsum's tools read
// (sigsum-go pkg/policy, config.go: `log`, `witness NAME HEXKEY [URL]`,
// `group NAME K|any|all MEMBER...`, `quorum NAME`), read by its rules
// (sigsumpolicy.go), so a file sigsum-verify accepts is read the same way
// here; memscope adds only the C2SP cosignature/v1 check of each witness
// against a memscope checkpoint.
type Policy struct {
	p         *parsedPolicy
	witnesses []witnessKey
}

type witnessKey struct {
	key  ed25519.PublicKey
	hash [32]byte // sigsum's key hash: SHA-256 of the key, what the quorum tree names
}

// ReadPolicy reads and parses a witness policy file.
func ReadPolicy(path string) (*Policy, error) {
	// Regular files only: a FIFO named as the policy would block the open.
	f, err := evidence.OpenRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	raw, err := io.ReadAll(io.LimitReader(f, maxPolicySize+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(raw) > maxPolicySize {
		return nil, fmt.Errorf("%s: over %d bytes: not a witness policy", path, maxPolicySize)
	}
	p, err := ParsePolicy(raw)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return p, nil
}

// ParsePolicy parses a witness policy from its bytes.
func ParsePolicy(raw []byte) (*Policy, error) {
	p, err := parseSigsumPolicy(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("witness policy: %w", err)
	}
	out := &Policy{p: p}
	for h, k := range p.witnesses {
		out.witnesses = append(out.witnesses, witnessKey{key: ed25519.PublicKey(k), hash: h})
	}
	// Sorted, so every round reports witnesses in one order.
	sort.Slice(out.witnesses, func(i, j int) bool { return bytes.Compare(out.witnesses[i].key, out.witnesses[j].key) < 0 })
	return out, nil
}

// Witnesses is the number of witness keys the policy names.
func (p *Policy) Witnesses() int { return len(p.witnesses) }

// CosignatureCheck is what a checkpoint's cosignatures prove under a policy.
type CosignatureCheck struct {
	// Verified names (by the name on the signature line) the policy
	// witnesses whose cosignature/v1 verified over this checkpoint.
	Verified []string `json:"verified"`
	// Mismatched names the lines that claim a policy witness's key (name
	// and key hash agree) but do not verify over this checkpoint: a
	// cosignature of another checkpoint body pasted here, or garbage.
	Mismatched []string `json:"mismatched,omitempty"`
	// QuorumMet is the policy's quorum evaluated on Verified.
	QuorumMet bool `json:"quorum_met"`
}

// sigLine is one signature line of a signed note.
type sigLine struct {
	name string
	hash uint32
	sig  []byte
}

// CheckCosignatures checks every signature line of the signed note raw
// against the policy's witnesses (C2SP tlog-cosignature: the key hash is
// the first four bytes of SHA-256(name || "\n" || 0x04 || key), the
// signature is an 8-byte timestamp and an Ed25519 signature over
// "cosignature/v1\ntime T\n" and the note body), and evaluates the quorum.
func (p *Policy) CheckCosignatures(raw []byte) (CosignatureCheck, error) {
	body, lines, err := splitNote(raw)
	if err != nil {
		return CosignatureCheck{}, err
	}
	verified := map[[32]byte]bool{}
	var out CosignatureCheck
	for _, l := range lines {
		for _, w := range p.witnesses {
			if cosigKeyHash(l.name, w.key) != l.hash {
				continue
			}
			v, err := tdnote.NewVerifierForCosignatureV1(cosigVKey(l.name, w.key))
			if err != nil {
				continue // a name the note format cannot carry
			}
			if v.Verify([]byte(body), l.sig) {
				if !verified[w.hash] {
					out.Verified = append(out.Verified, l.name)
				}
				verified[w.hash] = true
			} else {
				out.Mismatched = append(out.Mismatched, l.name)
			}
		}
	}
	out.QuorumMet = p.p.quorum.met(verified)
	return out, nil
}

func cosigKeyHash(name string, key ed25519.PublicKey) uint32 {
	h := sha256.New()
	h.Write([]byte(name))
	h.Write([]byte("\n"))
	h.Write([]byte{0x04})
	h.Write(key)
	return binary.BigEndian.Uint32(h.Sum(nil))
}

func cosigVKey(name string, key ed25519.PublicKey) string {
	enc := base64.StdEncoding.EncodeToString(append([]byte{0x04}, key...))
	return fmt.Sprintf("%s+%08x+%s", name, cosigKeyHash(name, key), enc)
}

// splitNote splits a signed note (golang.org/x/mod/sumdb/note's format)
// into its body and signature lines. Malformed lines are skipped: the log's
// own signature check (tlog.ParseCheckpoint) has already refused a
// malformed checkpoint before this runs.
func splitNote(raw []byte) (string, []sigLine, error) {
	s := string(raw)
	i := strings.LastIndex(s, "\n\n")
	if i < 0 {
		return "", nil, fmt.Errorf("checkpoint: no blank line before the signatures")
	}
	body := s[:i+1]
	var out []sigLine
	for _, line := range strings.Split(strings.TrimSuffix(s[i+2:], "\n"), "\n") {
		rest, ok := strings.CutPrefix(line, "\u2014 ")
		if !ok {
			continue
		}
		name, b64, ok := strings.Cut(rest, " ")
		if !ok {
			continue
		}
		sig, err := base64.StdEncoding.DecodeString(b64)
		if err != nil || len(sig) < 5 {
			continue
		}
		out = append(out, sigLine{name: name, hash: binary.BigEndian.Uint32(sig[:4]), sig: sig[4:]})
	}
	return body, out, nil
}
