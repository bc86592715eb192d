package watch

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/memscope/memscope/evidence/record"
	"github.com/memscope/memscope/evidence/tlog/appender"
	"github.com/memscope/memscope/internal/present/finding"
	tdnote "github.com/transparency-dev/formats/note"
	"golang.org/x/mod/sumdb/note"
)

// logKey is one log's signing and verifier keys.
type logKey struct {
	signer note.Signer
	vkey   string
}

func newLogKey(t *testing.T, origin string) logKey {
	t.Helper()
	skey, vkey, err := note.GenerateKey(rand.Reader, origin)
	if err != nil {
		t.Fatal(err)
	}
	s, err := note.NewSigner(skey)
	if err != nil {
		t.Fatal(err)
	}
	return logKey{signer: s, vkey: vkey}
}

// recordLeaves makes n record-shaped leaves (a UUIDv7 and 64 signature
// bytes); seed makes two calls with the same seed return the same leaves.
func recordLeaves(seed byte, n int) [][]byte {
	out := make([][]byte, n)
	for i := range out {
		leaf := make([]byte, record.RecordLeafSize)
		leaf[0], leaf[1], leaf[2] = 0x01, 0x9c, byte(i>>8)
		leaf[3] = byte(i)
		leaf[6] = 0x70 // version 7
		leaf[8] = 0x80 // variant 10
		leaf[15] = seed
		for k := 16; k < len(leaf); k++ {
			leaf[k] = seed ^ byte(k+i)
		}
		out[i] = leaf
	}
	return out
}

// writeLog writes a fresh tessera log of leaves into dir.
func writeLog(t *testing.T, dir string, k logKey, leaves [][]byte) {
	t.Helper()
	writeLogB(t, dir, k, leaves)
}

func writeLogB(t testing.TB, dir string, k logKey, leaves [][]byte) {
	t.Helper()
	ctx := context.Background()
	w, err := appender.Create(ctx, dir, k.signer)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.AppendAll(ctx, leaves); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Close(ctx); err != nil {
		t.Fatal(err)
	}
}

// server serves one of several log directories over loopback HTTP; the
// test switches which, as a log server that changes its story would.
type server struct {
	dir atomic.Pointer[string]
	srv *httptest.Server
}

func newServer(t *testing.T, dir string) *server {
	s := &server{}
	s.dir.Store(&dir)
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.FileServer(http.Dir(*s.dir.Load())).ServeHTTP(w, r)
	}))
	t.Cleanup(s.srv.Close)
	return s
}

func (s *server) serve(dir string) { s.dir.Store(&dir) }

func codes(evs []Event) []string {
	var out []string
	for _, e := range evs {
		out = append(out, string(e.Code))
	}
	return out
}

func round(t *testing.T, tg Target, state string) []Event {
	t.Helper()
	evs, err := RunOnce(context.Background(), tg, state, time.Now(), func(Event) error { return nil })
	if err != nil {
		t.Fatalf("round: %v", err)
	}
	return evs
}

func wantCodes(t *testing.T, what string, evs []Event, want ...string) {
	t.Helper()
	if got := strings.Join(codes(evs), ","); got != strings.Join(want, ",") {
		t.Fatalf("%s: events %s, want %s", what, got, strings.Join(want, ","))
	}
}

// TestRoundsAdvanceForkRollback drives rounds against a real tessera log
// served over loopback: first use, an advance with a checked consistency
// proof and every new leaf proved, an idle round, a fork (another log
// with the same key and origin signing another root at the same size),
// reported once, and a rollback.
func TestRoundsAdvanceForkRollback(t *testing.T) {
	base := t.TempDir()
	k := newLogKey(t, "example.com/watch-test")
	a, b, fork := filepath.Join(base, "a"), filepath.Join(base, "b"), filepath.Join(base, "fork")
	writeLog(t, a, k, recordLeaves(1, 300))
	writeLog(t, b, k, append(recordLeaves(1, 300), recordLeaves(2, 700)...))
	writeLog(t, fork, k, append(recordLeaves(1, 300), recordLeaves(3, 700)...))
	srv := newServer(t, a)
	state := filepath.Join(base, "state.json")
	tg := Target{Log: srv.srv.URL, LogKey: k.vkey}

	wantCodes(t, "first round", round(t, tg, state), string(finding.WatchStateNew))
	srv.serve(b)
	evs := round(t, tg, state)
	wantCodes(t, "advance", evs, string(finding.WatchCheckpointAdvanced))
	if evs[0].PrevSize != 300 || evs[0].Size != 1000 || !strings.Contains(evs[0].Message, "700 new leaves (700 records") {
		t.Fatalf("advance event: %+v", evs[0])
	}
	wantCodes(t, "idle", round(t, tg, state))
	srv.serve(fork)
	evs = round(t, tg, state)
	wantCodes(t, "fork", evs, string(finding.CheckpointFork))
	if evs[0].Severity != finding.SevError {
		t.Fatalf("fork is %s", evs[0].Severity)
	}
	wantCodes(t, "fork again: reported once", round(t, tg, state))
	st, err := LoadState(state)
	if err != nil || st.Size != 1000 {
		t.Fatalf("state after fork: size %d, %v (the fork must not advance it)", st.Size, err)
	}
	srv.serve(a)
	wantCodes(t, "rollback", round(t, tg, state), string(finding.WatchRollback))
	srv.serve(b)
	wantCodes(t, "back to the verified view", round(t, tg, state))
}

// TestForgedCheckpointIsNotTrusted: a checkpoint signed by another key is
// an error and does not move the state.
func TestForgedCheckpointIsNotTrusted(t *testing.T) {
	base := t.TempDir()
	k := newLogKey(t, "example.com/watch-test")
	other := newLogKey(t, "example.com/watch-test")
	a, b := filepath.Join(base, "a"), filepath.Join(base, "b")
	writeLog(t, a, k, recordLeaves(1, 10))
	writeLog(t, b, other, recordLeaves(1, 20))
	srv := newServer(t, a)
	state := filepath.Join(base, "state.json")
	tg := Target{Log: srv.srv.URL, LogKey: k.vkey}
	round(t, tg, state)
	srv.serve(b)
	wantCodes(t, "forged", round(t, tg, state), string(finding.CheckpointSigInvalid))
	if st, _ := LoadState(state); st.Size != 10 {
		t.Fatalf("state moved to %d on a forged checkpoint", st.Size)
	}
}

// witness is one witness's keys for cosignature/v1.
type witness struct {
	name   string
	pub    ed25519.PublicKey
	signer note.Signer
}

func newWitness(t *testing.T, name string) witness {
	t.Helper()
	skey, vkey, err := note.GenerateKey(rand.Reader, name)
	if err != nil {
		t.Fatal(err)
	}
	s, err := tdnote.NewSignerForCosignatureV1(skey)
	if err != nil {
		t.Fatal(err)
	}
	// The public key (sigsum's policy names it in hex): the vkey's
	// algorithm byte 0x01 and 32 key bytes.
	raw, err := decodeB64(strings.SplitN(vkey, "+", 3)[2])
	if err != nil || len(raw) != 33 {
		t.Fatalf("vkey %q", vkey)
	}
	return witness{name: name, pub: ed25519.PublicKey(raw[1:]), signer: s}
}

// cosign adds the witnesses' cosignature lines to dir's checkpoint.
func cosign(t *testing.T, dir string, k logKey, ws ...witness) {
	t.Helper()
	path := filepath.Join(dir, "checkpoint")
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	v, err := note.NewVerifier(k.vkey)
	if err != nil {
		t.Fatal(err)
	}
	n, err := note.Open(raw, note.VerifierList(v))
	if err != nil {
		t.Fatal(err)
	}
	var signers []note.Signer
	for _, w := range ws {
		signers = append(signers, w.signer)
	}
	out, err := note.Sign(n, signers...)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, out, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestWitnessQuorum: three witnesses, quorum two; cosignatures added and
// removed between rounds; a cosignature of another checkpoint pasted in.
func TestWitnessQuorum(t *testing.T) {
	base := t.TempDir()
	k := newLogKey(t, "example.com/watch-test")
	w1, w2, w3 := newWitness(t, "w1.example"), newWitness(t, "w2.example"), newWitness(t, "w3.example")
	policyText := fmt.Sprintf("witness A %x\nwitness B %x\nwitness C %x\ngroup G 2 A B C\nquorum G\n", []byte(w1.pub), []byte(w2.pub), []byte(w3.pub))
	pol, err := ParsePolicy([]byte(policyText))
	if err != nil {
		t.Fatal(err)
	}
	dirs := map[string]string{}
	for _, name := range []string{"two", "one", "again", "pasted", "other"} {
		dirs[name] = filepath.Join(base, name)
	}
	writeLog(t, dirs["two"], k, recordLeaves(1, 10))
	writeLog(t, dirs["one"], k, recordLeaves(1, 20))
	writeLog(t, dirs["again"], k, recordLeaves(1, 30))
	writeLog(t, dirs["pasted"], k, recordLeaves(1, 40))
	writeLog(t, dirs["other"], k, recordLeaves(9, 40))
	cosign(t, dirs["two"], k, w1, w2)
	cosign(t, dirs["one"], k, w3)
	cosign(t, dirs["again"], k, w2, w3)
	cosign(t, dirs["other"], k, w1, w2)
	// "pasted" carries w1 and w2's cosignatures of the other 40-leaf root.
	pasted, _ := os.ReadFile(filepath.Join(dirs["pasted"], "checkpoint"))
	other, _ := os.ReadFile(filepath.Join(dirs["other"], "checkpoint"))
	sigs := string(other[strings.Index(string(other), "\n\n")+2:])
	lines := strings.SplitAfter(sigs, "\n")
	os.WriteFile(filepath.Join(dirs["pasted"], "checkpoint"), append(pasted, []byte(lines[1]+lines[2])...), 0o644)

	srv := newServer(t, dirs["two"])
	state := filepath.Join(base, "state.json")
	tg := Target{Log: srv.srv.URL, LogKey: k.vkey, Policy: pol}
	wantCodes(t, "two of three", round(t, tg, state), string(finding.WatchStateNew))
	srv.serve(dirs["one"])
	wantCodes(t, "one of three", round(t, tg, state), string(finding.WitnessQuorumLost), string(finding.WatchCheckpointAdvanced))
	srv.serve(dirs["again"])
	wantCodes(t, "regained", round(t, tg, state), string(finding.WitnessQuorumMet), string(finding.WatchCheckpointAdvanced))
	srv.serve(dirs["pasted"])
	wantCodes(t, "pasted", round(t, tg, state), string(finding.WitnessCosignatureMismatch), string(finding.WitnessCosignatureMismatch), string(finding.WitnessQuorumLost), string(finding.WatchCheckpointAdvanced))
}

// TestPolicyQuorumAgainstSigsumSemantics: the policy file is read by
// sigsum-go's rules (sigsumpolicy.go); "any", "all" and nested groups are
// its meanings. TestPolicyAgainstSigsumGo compares with sigsum-go itself.
func TestPolicyQuorumAgainstSigsumSemantics(t *testing.T) {
	keys := make([]string, 3)
	for i := range keys {
		pub, _, _ := ed25519.GenerateKey(rand.Reader)
		keys[i] = hex.EncodeToString(pub)
	}
	for _, c := range []struct {
		policy string
		ok     bool
	}{
		{"witness A " + keys[0] + "\nquorum A\n", true},
		{"witness A " + keys[0] + "\ngroup G 4 A\nquorum G\n", false},
		{"witness A " + keys[0] + "\nwitness B " + keys[1] + "\ngroup G any A B\nquorum G\n", true},
		// sigsum refuses a witness that is a member of two groups.
		{"witness A " + keys[0] + "\nwitness B " + keys[1] + "\ngroup G any A B\ngroup H all G A\nquorum H\n", false},
		{"witness A " + keys[0] + "\nwitness B " + keys[1] + "\nwitness C " + keys[2] + "\ngroup G any A B\ngroup H all G C\nquorum H\n", true},
		{"quorum X\n", false},
		{"quorum none\n", true},
		// "none" is predefined: not redefined, never a member.
		{"witness none " + keys[0] + "\nquorum none\n", false},
		{"witness A " + keys[0] + "\ngroup G all A none\nquorum G\n", false},
		// CRLF line ends, tabs and comments; a "#" later in a line is a field.
		{"# policy\r\nwitness\tA " + keys[0] + "\r\nquorum A\r\n", true},
		{"witness A " + keys[0] + " https://a.example/ # a comment\nquorum A\n", false},
		{"witness A " + strings.ToUpper(keys[0]) + "\nquorum A\n", true},
		{"witness A " + keys[0] + "\nwitness B " + keys[0] + "\nquorum A\n", false},
		{"witness A " + keys[0] + "\x7f\nquorum A\n", false},
		{"witness A " + keys[0] + "\ngroup G +1 A\nquorum G\n", true},
		{"witness A " + keys[0] + "\nquorum A\nquorum A\n", false},
		{"witness A " + keys[0] + "\n", false},
	} {
		_, err := ParsePolicy([]byte(c.policy))
		if (err == nil) != c.ok {
			t.Errorf("%q: err %v, want ok=%v", c.policy, err, c.ok)
		}
	}
}

func decodeB64(s string) ([]byte, error) { return base64Std.DecodeString(s) }

var base64Std = base64.StdEncoding
