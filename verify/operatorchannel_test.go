package verify_test

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"path/filepath"
	"testing"

	"golang.org/x/mod/sumdb/note"

	"github.com/memscope/memscope/evidence/record"
	"github.com/memscope/memscope/evidence/tlog/appender"
	"github.com/memscope/memscope/evidence/writer"
	"github.com/memscope/memscope/internal/present/finding"
	"github.com/memscope/memscope/verify"
)

// An operator record logged while its signer was on the unauthenticated
// channel has no authority over the store, even when the signer is later
// re-registered on the authenticated channel with the same key: the
// channel at the record's log position decides, as for every write
// (issue 23 item 3's rule, applied to operator rows). The meta value
// signed after the promotion has authority.
func TestOperatorChannelAtLogPosition(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	skey, vkey, err := note.GenerateKey(rand.Reader, "example.com/promoted-operator")
	if err != nil {
		t.Fatal(err)
	}
	signer, err := note.NewSigner(skey)
	if err != nil {
		t.Fatal(err)
	}
	lg, err := appender.Create(ctx, filepath.Join(dir, "log"), signer)
	if err != nil {
		t.Fatal(err)
	}
	rootPub, root, _ := ed25519.GenerateKey(rand.Reader)
	opPub, opKey, _ := ed25519.GenerateKey(rand.Reader)
	st, err := writer.Create(writer.Config{SnapshotPath: filepath.Join(dir, "snapshot.db"), Log: lg, LogSigner: signer,
		Origin: signer.Name(), LogVerifier: vkey, RootKeys: []ed25519.PublicKey{rootPub},
		Operator: &writer.Signer{Principal: "agent:operator", Key: opKey}})
	if err != nil {
		t.Fatal(err)
	}
	id := func(b byte) record.ID {
		var id record.ID
		id[0], id[6], id[8] = b, 0x70, 0x80
		return id
	}
	register := func(rid byte, channel string, ts uint64) {
		t.Helper()
		ev := &record.PrincipalEvent{RID: id(rid), Op: record.OpRegister, Principal: "agent:operator", Channel: channel, TS: ts}
		copy(ev.PublicKey[:], opPub)
		if err := st.Register(ctx, ev, root); err != nil {
			t.Fatal(err)
		}
	}
	register(1, record.ChannelUnauthenticated, 10)
	if err := st.SetMeta("early", "signed before the promotion"); err != nil {
		t.Fatal(err)
	}
	// A copy signs and logs the operator rows written so far.
	if err := st.SnapshotTo(filepath.Join(dir, "copy.db")); err != nil {
		t.Fatal(err)
	}
	register(2, record.ChannelAuthenticated, 20)
	if err := st.SetMeta("late", "signed after the promotion"); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Close(ctx); err != nil {
		t.Fatal(err)
	}
	rep, err := verify.Run(ctx, verify.Options{Snapshot: filepath.Join(dir, "snapshot.db"), Log: filepath.Join(dir, "log"),
		LogKey: vkey, TrustRoots: []ed25519.PublicKey{rootPub}})
	if err != nil {
		t.Fatal(err)
	}
	noAuthority := map[string]bool{}
	for _, f := range rep.Findings {
		if f.Code == finding.OperatorNoAuthority {
			noAuthority[f.Subject] = true
		} else if f.Severity == finding.SevError {
			t.Errorf("unexpected error finding: %+v", f)
		}
	}
	if !noAuthority["config early"] {
		t.Errorf("the meta value logged before the promotion has authority: %+v", rep.Findings)
	}
	if noAuthority["config late"] {
		t.Error("the meta value logged after the promotion has no authority")
	}
	if _, ok := rep.ConfigValue("early"); ok {
		t.Error("a value without authority is in the verified configuration")
	}
}
