package tlog

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/mod/sumdb/note"
	"k8s.io/klog/v2"

	"github.com/memscope/memscope/evidence/tlog/appender"
)

func TestMain(m *testing.M) {
	// Tessera logs through klog to stderr; keep test output readable.
	klog.LogToStderr(false)
	klog.SetOutput(io.Discard)
	code := m.Run()
	for _, d := range benchCleanup {
		os.RemoveAll(d)
	}
	os.Exit(code)
}

const testOrigin = "memscope.test/log"

// testKey derives a fixed Ed25519 note key from seed, so tests are
// reproducible and two seeds give two different keys with the same name.
func testKey(t testing.TB, name string, seed byte) (note.Signer, note.Verifier) {
	t.Helper()
	priv := make([]byte, 32)
	for i := range priv {
		priv[i] = seed + byte(i)
	}
	// note's private key encoding: PRIVATE+KEY+<name>+<hash>+<base64(alg||seed)>
	// is easiest produced via GenerateKey with a deterministic reader.
	skey, vkey, err := note.GenerateKey(fixedReader(priv), name)
	if err != nil {
		t.Fatal(err)
	}
	s, err := note.NewSigner(skey)
	if err != nil {
		t.Fatal(err)
	}
	v, err := note.NewVerifier(vkey)
	if err != nil {
		t.Fatal(err)
	}
	return s, v
}

type fixedReader []byte

func (f fixedReader) Read(p []byte) (int, error) {
	n := copy(p, f)
	for i := n; i < len(p); i++ {
		p[i] = 0
	}
	return len(p), nil
}

// testLeaf is leaf i of a test log: ~80 bytes, distinct per index, with a
// varying length so bundle parsing sees more than one size.
func testLeaf(i uint64) []byte {
	h := sha256.Sum256(binary.BigEndian.AppendUint64(nil, i))
	leaf := append([]byte("leaf-"), h[:]...)
	leaf = append(leaf, h[:]...)
	leaf = append(leaf, h[:]...)
	return leaf[:60+int(h[0]%40)]
}

func testLeaves(n uint64) [][]byte {
	out := make([][]byte, n)
	for i := range out {
		out[i] = testLeaf(uint64(i))
	}
	return out
}

// writeLog writes leaves to a fresh log in a temp dir and returns the dir
// and the final checkpoint.
func writeLog(t testing.TB, signer note.Signer, leaves [][]byte) (string, []byte) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "log")
	cp := writeLogAt(t, dir, signer, leaves)
	return dir, cp
}

func writeLogAt(t testing.TB, dir string, signer note.Signer, leaves [][]byte) []byte {
	t.Helper()
	ctx := context.Background()
	w, err := appender.Create(ctx, dir, signer)
	if err != nil {
		t.Fatal(err)
	}
	idx, err := w.AppendAll(ctx, leaves)
	if err != nil {
		t.Fatal(err)
	}
	for i, got := range idx {
		if got != uint64(i) {
			t.Fatalf("AppendAll gave leaf %d index %d", i, got)
		}
	}
	cp, err := w.Close(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return cp
}

func diffDigests(a, b map[string]string) []string {
	var d []string
	for k, v := range a {
		if w, ok := b[k]; !ok {
			d = append(d, "only in first: "+k)
		} else if v != w {
			d = append(d, "differs: "+k)
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			d = append(d, "only in second: "+k)
		}
	}
	return d
}

func hasProblem(ps []Problem, resourcePrefix, whatContains string) bool {
	for _, p := range ps {
		if strings.HasPrefix(p.Resource, resourcePrefix) && strings.Contains(p.What, whatContains) {
			return true
		}
	}
	return false
}
