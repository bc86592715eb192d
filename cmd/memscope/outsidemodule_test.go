package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// agentProgram is a program outside the module, as an agent runtime would
// be: it imports only the public evidence packages and writes a store, its
// log, the log's verifier key and the registry root.
const agentProgram = `package main

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"

	"golang.org/x/mod/sumdb/note"

	"github.com/memscope/memscope/evidence/record"
	"github.com/memscope/memscope/evidence/tlog"
	"github.com/memscope/memscope/evidence/tlog/appender"
	"github.com/memscope/memscope/evidence/writer"
)

func main() {
	if err := write(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func write(dir string) error {
	ctx := context.Background()
	skey, vkey, err := note.GenerateKey(rand.Reader, "example.com/agent/log")
	if err != nil {
		return err
	}
	signer, err := note.NewSigner(skey)
	if err != nil {
		return err
	}
	lg, err := appender.Create(ctx, filepath.Join(dir, "log"), signer)
	if err != nil {
		return err
	}
	rootPub, root, _ := ed25519.GenerateKey(rand.Reader)
	_, agent, _ := ed25519.GenerateKey(rand.Reader)
	st, err := writer.Create(writer.Config{SnapshotPath: filepath.Join(dir, "snapshot.db"), Log: lg, LogSigner: signer,
		Origin: signer.Name(), LogVerifier: vkey, RootKeys: []ed25519.PublicKey{rootPub}})
	if err != nil {
		return err
	}
	id := func(b byte) record.ID {
		var id record.ID
		id[0], id[6], id[8] = b, 0x70, 0x80
		return id
	}
	ev := &record.PrincipalEvent{RID: id(1), Op: record.OpRegister, Principal: "agent:planner", Channel: record.ChannelAuthenticated, TS: 10}
	copy(ev.PublicKey[:], agent.Public().(ed25519.PublicKey))
	if err := st.Register(ctx, ev, root); err != nil {
		return err
	}
	for i := byte(0); i < 3; i++ {
		e := &record.Entry{EID: id(10 + i), Writer: "agent:planner", Trust: record.Trusted, Content: fmt.Sprintf("memory %d", i), TS: 20 + uint64(i)}
		if err := st.AddEntry(ctx, e, agent, writer.EntryOptions{SessionID: "s1"}); err != nil {
			return err
		}
	}
	cp, err := st.Checkpoint(40)
	if err != nil {
		return err
	}
	if _, err := tlog.ParseCheckpoint(cp); err != nil {
		return err
	}
	if _, err := st.Close(ctx); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "log.vkey"), []byte(vkey+"\n"), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "trust.keys"), []byte(hex.EncodeToString(rootPub)+"\n"), 0o644)
}
`

// A program outside the module (its own go.mod, a replace to this
// checkout) imports evidence/record, evidence/writer, evidence/tlog and
// evidence/tlog/appender, writes a store, and memscope verify passes it
// against the anchors the program wrote. It builds offline from the module
// cache (GOPROXY=off), so it runs wherever this module builds.
func TestOutsideModuleWritesVerifiableStore(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go is not on PATH")
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	gomod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	goLine := regexp.MustCompile(`(?m)^go \S+$`).Find(gomod)
	mod := t.TempDir()
	files := map[string]string{
		"go.mod":  "module example.com/agent\n\n" + string(goLine) + "\n\nrequire github.com/memscope/memscope v0.0.0-00010101000000-000000000000\n\nreplace github.com/memscope/memscope => " + root + "\n",
		"main.go": agentProgram,
	}
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	files["go.sum"] = string(sum)
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(mod, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := t.TempDir()
	cmd := exec.Command(goBin, "run", ".", out)
	cmd.Dir = mod
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOSUMDB=off", "GOWORK=off", "GOTOOLCHAIN=local")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go run of the outside program: %v\n%s", err, b)
	}
	code, stdout, stderr := runArgs("verify", filepath.Join(out, "snapshot.db"), "--log", filepath.Join(out, "log"),
		"--log-key", filepath.Join(out, "log.vkey"), "--trust", filepath.Join(out, "trust.keys"), "--json")
	if code != exitOK || !strings.Contains(stdout, `"entries": 3`) {
		t.Fatalf("verify of the outside program's store: exit %d\n%s\n%s", code, stdout, stderr)
	}
}
