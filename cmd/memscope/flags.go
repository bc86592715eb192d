package main

import (
	"crypto/ed25519"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/mod/sumdb/note"

	"github.com/memscope/memscope/evidence"
	"github.com/memscope/memscope/evidence/tlog"
	"github.com/memscope/memscope/internal/assemble"
	"github.com/memscope/memscope/lineage"
	"github.com/memscope/memscope/verify"
)

// parseInterleaved parses flags that may come before or after positional
// arguments (memscope verify SNAPSHOT --log DIR), returning the positionals.
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			if len(pos) > 0 && isNativeStore(pos[0]) {
				// A native store has no log, and its --k is SMSR's:
				// the command's own checks say so; only the bound
				// every k shares is checked here.
				return pos, checkKBound(fs)
			}
			return pos, checkInputFlags(fs)
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

func newFlagSet(name, usage string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: %s\n\nflags:\n", usage)
		printFlags(stderr, fs)
	}
	watchFlagSet(fs)
	return fs
}

// anchorFlags are the trust anchors every evidence command accepts.
type anchorFlags struct {
	logKey, trust, anchors, hmacKey string
	allowRedirects                  bool
	logDeadline                     time.Duration
}

func (a *anchorFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&a.logKey, "log-key", "", "the log's note verifier key, or a file containing it (pins the log)")
	fs.StringVar(&a.trust, "trust", "", "registry root public keys (hex, comma-separated), or a file with one per line (pins the registry)")
	fs.StringVar(&a.anchors, "anchors", "", "a pinned anchors file: JSON with log_key and trust, kept outside the evidence (one inside it is reported as such)")
	fs.StringVar(&a.hmacKey, "hmac-key", "", "file holding the SMSR HMAC key (hex, or raw bytes)")
	fs.BoolVar(&a.allowRedirects, "allow-cross-origin-redirects", false, "let an http(s) log redirect to another scheme, host or port (refused by default)")
	fs.DurationVar(&a.logDeadline, "log-deadline", defaultLogDeadline, "the longest the command may spend reading an http(s) log, from its start (0: no limit); past it the command refuses to conclude")
}

// defaultLogDeadline bounds a command's reads of an http(s) log: a few
// minutes verify a large log over a decent link; a hostile server that
// answers each request just inside the per-request limits is cut off.
const defaultLogDeadline = 5 * time.Minute

// Limits of the files the anchor and policy flags name: a key is under
// 100 bytes, an anchors file (a scenario.json works) a few kilobytes.
const (
	maxKeyFile     = 64 << 10
	maxAnchorsFile = 16 << 20
	// maxQueriesFile bounds a --queries file (a few hundred bytes a query).
	maxQueriesFile = 256 << 20
)

// resolved anchors.
type anchors struct {
	LogKey string
	Roots  []ed25519.PublicKey
	HMAC   []byte
	Log    tlog.Options // read limits and permissions for the log
	// files the log key and the trust roots were read from ("": given
	// on the command line), and those of them inside the evidence.
	logKeyFile, trustFile string
	Sources               verify.AnchorSources
}

func (a *anchorFlags) resolve() (anchors, error) {
	var out anchors
	out.Log.AllowCrossOriginRedirects = a.allowRedirects
	if a.logDeadline > 0 {
		out.Log.Deadline = time.Now().Add(a.logDeadline)
	}
	logKey, trust := a.logKey, a.trust
	if a.anchors != "" {
		b, err := evidence.ReadFile(a.anchors, maxAnchorsFile)
		if err != nil {
			return out, usagef("--anchors: %v", err)
		}
		var file struct {
			LogKey  string   `json:"log_key"`
			Trust   []string `json:"trust"`
			Anchors *struct {
				LogKey string   `json:"log_key"`
				Trust  []string `json:"trust"`
			} `json:"anchors"`
		}
		if err := json.Unmarshal(b, &file); err != nil {
			return out, usagef("--anchors %s: %v", a.anchors, err)
		}
		if file.Anchors != nil {
			file.LogKey, file.Trust = file.Anchors.LogKey, file.Anchors.Trust
		}
		if logKey == "" && file.LogKey != "" {
			logKey, out.logKeyFile = file.LogKey, a.anchors
		}
		if trust == "" && len(file.Trust) > 0 {
			trust, out.trustFile = strings.Join(file.Trust, ","), a.anchors
		}
	}
	if logKey != "" {
		key := strings.TrimSpace(logKey)
		if _, err := note.NewVerifier(key); err != nil {
			b, ferr := evidence.ReadFile(logKey, maxKeyFile)
			if ferr != nil {
				return out, usagef("--log-key: neither a note verifier key (%v) nor a readable file (%v)", err, ferr)
			}
			key = strings.TrimSpace(string(b))
			if _, err := note.NewVerifier(key); err != nil {
				return out, usagef("--log-key %s: the file does not hold a note verifier key: %v", logKey, err)
			}
			out.logKeyFile = logKey
		}
		out.LogKey = key
	}
	if trust != "" {
		text := trust
		// A name that exists is a file of keys (read bounded); anything
		// else is the keys themselves.
		if _, err := os.Stat(trust); err == nil {
			b, err := evidence.ReadFile(trust, maxAnchorsFile)
			if err != nil {
				return out, usagef("--trust: %v", err)
			}
			text, out.trustFile = string(b), trust
		}
		for _, f := range strings.FieldsFunc(text, func(r rune) bool { return r == ',' || r == '\n' || r == ' ' || r == '\r' || r == '\t' }) {
			k, err := hex.DecodeString(f)
			if err != nil || len(k) != ed25519.PublicKeySize {
				if out.trustFile != "" {
					return out, usagef("--trust %s: the file holds %q, which is not a 64-hex-digit Ed25519 public key", trust, short(f))
				}
				return out, usagef("--trust: %q is not a 64-hex-digit Ed25519 public key (and %q is not a readable file)", short(f), short(trust))
			}
			out.Roots = append(out.Roots, ed25519.PublicKey(k))
		}
	}
	if a.hmacKey != "" {
		b, err := evidence.ReadFile(a.hmacKey, maxKeyFile)
		if err != nil {
			return out, usagef("--hmac-key: %v", err)
		}
		t := strings.TrimSpace(string(b))
		if k, err := hex.DecodeString(t); err == nil && len(k) > 0 {
			out.HMAC = k
		} else {
			out.HMAC = b
		}
	}
	return out, nil
}

func short(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}

// readGatePolicy reads the gate policy file named by flag (nil when path is
// empty: the default policy).
func readGatePolicy(flag, path string) (*lineage.Policy, error) {
	if path == "" {
		return nil, nil
	}
	b, err := evidence.ReadFile(path, lineage.MaxPolicyBytes)
	if err != nil {
		return nil, usagef("%s: %v", flag, err)
	}
	p, err := lineage.ParsePolicy(b)
	if err != nil {
		return nil, usagef("%s %s: %v", flag, path, err)
	}
	return p, nil
}

// lineageFlags are MemLineage's labelling flags, shared by lineage,
// actions and report so that they mean the same in each.
type lineageFlags struct {
	tau        float64
	failClosed bool
	gatePolicy string
	policyFlag string // "--policy" or "--gate-policy", for error messages
}

// register adds --tau, --fail-closed and the gate policy flag, named
// policyFlag without its dashes.
func (lf *lineageFlags) register(fs *flag.FlagSet, policyFlag string) {
	lf.policyFlag = "--" + policyFlag
	fs.Float64Var(&lf.tau, "tau", 0, "declassification threshold: an edge is strong when its weight is strictly greater")
	fs.BoolVar(&lf.failClosed, "fail-closed", false, "an entry with parents but no strong parent is Derived-Untrusted (default: Trusted, as in the paper)")
	fs.StringVar(&lf.gatePolicy, policyFlag, "", "gate policy file (JSON, see docs/LINEAGE.md); default: the built-in policy")
}

// options checks the flags and returns them as inspect options.
func (lf *lineageFlags) options() (assemble.Options, error) {
	if lf.tau < 0 || lf.tau > 1 {
		return assemble.Options{}, usagef("--tau %v is outside [0, 1]", lf.tau)
	}
	opts := assemble.Options{Tau: lf.tau, FailClosed: lf.failClosed}
	var err error
	opts.GatePolicy, err = readGatePolicy(lf.policyFlag, lf.gatePolicy)
	return opts, err
}

// resolveFor is resolve for commands that read the given evidence (snapshot
// files, a log directory or URL): an anchor read from a file inside the
// evidence tree is one the evidence could have supplied, and is reported as
// such (verify.AnchorSources), never as plainly pinned.
func (a *anchorFlags) resolveFor(evidencePaths ...string) (anchors, error) {
	out, err := a.resolve()
	if err != nil {
		return out, err
	}
	if insideEvidence(out.logKeyFile, evidencePaths) {
		out.Sources.LogKey = out.logKeyFile
	}
	if insideEvidence(out.trustFile, evidencePaths) {
		out.Sources.Trust = out.trustFile
	}
	return out, nil
}

// insideEvidence says whether file lies in the directory of an evidence
// file or inside an evidence directory (the snapshot's directory holds its
// log and whatever else its writer left; symlinks resolved).
func insideEvidence(file string, evidencePaths []string) bool {
	if file == "" {
		return false
	}
	real, err := filepath.EvalSymlinks(file)
	if err != nil {
		return false
	}
	real, _ = filepath.Abs(real)
	for _, p := range evidencePaths {
		if p == "" || strings.Contains(p, "://") {
			continue
		}
		rp, err := filepath.EvalSymlinks(p)
		if err != nil {
			continue
		}
		rp, _ = filepath.Abs(rp)
		if st, err := os.Stat(rp); err == nil && !st.IsDir() {
			rp = filepath.Dir(rp)
		}
		if real == rp || strings.HasPrefix(real, rp+string(filepath.Separator)) {
			return true
		}
	}
	return false
}
