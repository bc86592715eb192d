package evidencetest

import (
	"crypto/ed25519"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memscope/memscope/evidence"
)

// Roots are the registry root keys a scenario's manifest pins, decoded;
// a key that is not a hex Ed25519 public key fails the test.
func Roots(t testing.TB, m *evidence.Manifest) []ed25519.PublicKey {
	t.Helper()
	var roots []ed25519.PublicKey
	for _, h := range m.Anchors.Trust {
		k, err := hex.DecodeString(h)
		if err != nil || len(k) != ed25519.PublicKeySize {
			t.Fatalf("%s: trust anchor %q is not an Ed25519 key", m.Name, h)
		}
		roots = append(roots, k)
	}
	return roots
}

// HMACKey is the SMSR tag key of the scenario in dir (its manifest m),
// nil when the scenario has none.
func HMACKey(t testing.TB, dir string, m *evidence.Manifest) []byte {
	t.Helper()
	if m.HMACKeyFile == "" {
		return nil
	}
	b, err := os.ReadFile(filepath.Join(dir, m.HMACKeyFile))
	if err != nil {
		t.Fatal(err)
	}
	k, err := hex.DecodeString(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatalf("%s: HMAC key: %v", m.HMACKeyFile, err)
	}
	return k
}
