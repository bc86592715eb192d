// Package recorder is memscope's live recorder: an MCP gateway between an
// agent and its MCP servers that writes what the agent read, wrote, saw
// and did as signed memscope evidence (snapshot + tessera log), durable
// before each tool result is released. It is write path: the read path
// (verify, assemble, tui) never links it.
package recorder

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"golang.org/x/mod/sumdb/note"

	"github.com/memscope/memscope/evidence"
	"github.com/memscope/memscope/evidence/record"
	"github.com/memscope/memscope/evidence/tlog/appender"
	"github.com/memscope/memscope/evidence/writer"
)

// Files of a recorder store directory besides the evidence files
// (evidence.SnapshotFile, evidence.LogDir, evidence.LogKeyFile,
// evidence.TrustFile).
const (
	// RootKeyFile holds the registry root's private key, alone, so the
	// operator can move it offline once every principal is registered.
	RootKeyFile = "root.key"
	// KeysDir holds the log's note key and each principal's private key.
	KeysDir = "keys"
	// StoreFile says which principals the store has and its log origin.
	StoreFile = "recorder.json"
	// OperatorPrincipal signs the store's own rows (meta).
	OperatorPrincipal = "tool:memscope-record"
	// DefaultAgent is registered when init names no agent.
	DefaultAgent = "agent:default"
)

// storeInfo is recorder.json.
type storeInfo struct {
	Origin string   `json:"origin"`
	Agents []string `json:"agents"`
	// Log is "posix" (DIR/log) or "mysql" (given by --log-storage on
	// every run; its password is not stored here).
	Log string `json:"log"`
}

// InitResult says what Init made.
type InitResult struct {
	Dir       string
	Agents    []string
	VerifyCmd string
}

// Init creates a recorder store in dir (absent or empty): snapshot and
// POSIX log, log key, registry root key, the agent principals (DefaultAgent
// when none) and the operator, log.vkey and trust.keys.
func Init(ctx context.Context, dir string, agents []string, logStorage string) (*InitResult, error) {
	if ents, err := os.ReadDir(dir); err == nil && len(ents) > 0 {
		return nil, fmt.Errorf("record init: %s is not empty; a store is only ever created fresh", dir)
	}
	if len(agents) == 0 {
		agents = []string{DefaultAgent}
	}
	for _, a := range agents {
		if !strings.HasPrefix(a, "agent:") || !validPrincipal(a) {
			return nil, fmt.Errorf("record init: principal %q: want agent:NAME (printable ASCII, no spaces, at most 128 bytes)", a)
		}
	}
	if err := os.MkdirAll(filepath.Join(dir, KeysDir), 0o700); err != nil {
		return nil, err
	}
	var suffix [6]byte
	if _, err := rand.Read(suffix[:]); err != nil {
		return nil, err
	}
	origin := "memscope-record/" + hex.EncodeToString(suffix[:])
	skey, vkey, err := note.GenerateKey(rand.Reader, origin)
	if err != nil {
		return nil, err
	}
	_, root, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, err
	}
	files := map[string]string{
		filepath.Join(KeysDir, "log.key"): skey + "\n",
		RootKeyFile:                       hex.EncodeToString(root.Seed()) + "\n",
		evidence.LogKeyFile:               vkey + "\n",
		evidence.TrustFile:                hex.EncodeToString(root.Public().(ed25519.PublicKey)) + "\n",
	}
	for name, body := range files {
		mode := os.FileMode(0o644)
		if strings.HasSuffix(name, ".key") {
			mode = 0o600
		}
		if err := writeNew(filepath.Join(dir, name), []byte(body), mode); err != nil {
			return nil, err
		}
	}
	info := storeInfo{Origin: origin, Agents: agents, Log: "posix"}
	if logStorage != "" {
		info.Log = "mysql"
	}
	b, _ := json.MarshalIndent(info, "", "  ")
	if err := writeNew(filepath.Join(dir, StoreFile), append(b, '\n'), 0o644); err != nil {
		return nil, err
	}
	signer, err := note.NewSigner(skey)
	if err != nil {
		return nil, err
	}
	var lw *appender.Writer
	if logStorage == "" {
		lw, err = appender.Create(ctx, filepath.Join(dir, evidence.LogDir), signer)
	} else {
		lw, err = openLog(ctx, Options{Dir: dir, LogStorage: logStorage}, signer)
		if err == nil && lw.Size() != 0 {
			lw.Close(ctx)
			err = fmt.Errorf("record init: the log at --log-storage already holds %d leaves; a store's log starts empty", lw.Size())
		}
	}
	if err != nil {
		return nil, err
	}
	ks := &keyring{dir: dir}
	opKey, err := ks.key(OperatorPrincipal)
	if err != nil {
		return nil, err
	}
	st, err := writer.Create(writer.Config{
		SnapshotPath: filepath.Join(dir, evidence.SnapshotFile), Log: lw, LogSigner: signer, Origin: origin, LogVerifier: vkey,
		RootKeys: []ed25519.PublicKey{root.Public().(ed25519.PublicKey)}, Description: "recorded by memscope record",
		Durable: true, Operator: &writer.Signer{Principal: OperatorPrincipal, Key: opKey, Nonce: newNonce()},
	})
	if err != nil {
		return nil, err
	}
	for _, p := range append([]string{OperatorPrincipal}, agents...) {
		if err := registerPrincipal(ctx, st, ks, root, p, record.ChannelAuthenticated); err != nil {
			return nil, err
		}
	}
	if _, err := st.Close(ctx); err != nil {
		return nil, err
	}
	abs, _ := filepath.Abs(dir)
	res := &InitResult{Dir: abs, Agents: agents, VerifyCmd: VerifyCommand(abs)}
	if logStorage != "" {
		res.VerifyCmd = strings.Replace(res.VerifyCmd, "--log "+shellQuote(filepath.Join(abs, evidence.LogDir)), "--log URL-SERVING-THE-MYSQL-LOG", 1)
	}
	return res, nil
}

// VerifyCommand is the one memscope verify command that checks the store.
func VerifyCommand(dir string) string {
	j := func(n string) string { return shellQuote(filepath.Join(dir, n)) }
	return fmt.Sprintf("memscope verify %s --log %s --log-key %s --trust %s", j(evidence.SnapshotFile), j(evidence.LogDir), j(evidence.LogKeyFile), j(evidence.TrustFile))
}

func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r == '/' || r == '.' || r == '-' || r == '_' || r == ':' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func writeNew(path string, body []byte, mode os.FileMode) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return err
	}
	if _, err := f.Write(body); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// validName is the format's rule for writers and principals: printable
// ASCII without spaces, at most 128 bytes.
// validPrincipal is validName for a principal the analyses read as a
// writer: user, or agent:, tool: or external: followed by a name. The
// analyses refuse a writer named "agent:" alone (lineage.ParseWriter),
// so every record of a store made with one would be unreadable as a
// writer.
func validPrincipal(s string) bool {
	if !validName(s) {
		return false
	}
	if s == "user" {
		return true
	}
	class, name, ok := strings.Cut(s, ":")
	return ok && name != "" && (class == "agent" || class == "tool" || class == "external")
}

func validName(s string) bool {
	if s == "" || len(s) > 128 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] <= ' ' || s[i] > '~' {
			return false
		}
	}
	return true
}

// keyring holds the store's principal keys, one file each under keys/.
type keyring struct {
	dir  string
	keys map[string]ed25519.PrivateKey
}

func keyFile(dir, principal string) string {
	return filepath.Join(dir, KeysDir, hex.EncodeToString([]byte(principal))+".key")
}

// key returns principal's key, creating it on first use.
func (k *keyring) key(principal string) (ed25519.PrivateKey, error) {
	if key, ok := k.keys[principal]; ok {
		return key, nil
	}
	if k.keys == nil {
		k.keys = map[string]ed25519.PrivateKey{}
	}
	path := keyFile(k.dir, principal)
	if b, err := os.ReadFile(path); err == nil {
		seed, err := hex.DecodeString(strings.TrimSpace(string(b)))
		if err != nil || len(seed) != ed25519.SeedSize {
			return nil, fmt.Errorf("record: %s: not a hex Ed25519 seed", path)
		}
		k.keys[principal] = ed25519.NewKeyFromSeed(seed)
		return k.keys[principal], nil
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	_, key, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, err
	}
	if err := writeNew(path, []byte(hex.EncodeToString(key.Seed())+"\n"), 0o600); err != nil {
		return nil, err
	}
	k.keys[principal] = key
	return key, nil
}

func registerPrincipal(ctx context.Context, st *writer.Store, ks *keyring, root ed25519.PrivateKey, principal, channel string) error {
	key, err := ks.key(principal)
	if err != nil {
		return err
	}
	ts := now()
	ev := &record.PrincipalEvent{RID: newID(ts), Op: record.OpRegister, Principal: principal, Channel: channel, TS: ts, Nonce: newNonce()}
	copy(ev.PublicKey[:], key.Public().(ed25519.PublicKey))
	return st.Register(ctx, ev, root)
}

// lastTS keeps record times strictly increasing within the process, so
// log order and time order agree even when the clock stands still.
var (
	clockMu sync.Mutex
	lastTS  uint64
)

func now() uint64 {
	clockMu.Lock()
	defer clockMu.Unlock()
	t := uint64(time.Now().UnixNano())
	if t <= lastTS {
		t = lastTS + 1
	}
	lastTS = t
	return t
}

// newID makes a UUIDv7 (RFC 9562) for time ts with random bits.
func newID(ts uint64) record.ID {
	var id record.ID
	ms := ts / 1e6
	for i := 0; i < 6; i++ {
		id[i] = byte(ms >> (40 - 8*i))
	}
	if _, err := rand.Read(id[6:]); err != nil {
		panic(err)
	}
	id[6] = 0x70 | id[6]&0x0f
	id[8] = 0x80 | id[8]&0x3f
	return id
}

func newNonce() [16]byte {
	var n [16]byte
	if _, err := rand.Read(n[:]); err != nil {
		panic(err)
	}
	return n
}

func readInfo(dir string) (storeInfo, error) {
	var info storeInfo
	b, err := os.ReadFile(filepath.Join(dir, StoreFile))
	if err != nil {
		return info, fmt.Errorf("record: %s is not a recorder store (memscope record init DIR makes one): %w", dir, err)
	}
	if err := json.Unmarshal(b, &info); err != nil {
		return info, fmt.Errorf("record: %s: %w", filepath.Join(dir, StoreFile), err)
	}
	sort.Strings(info.Agents)
	return info, nil
}
