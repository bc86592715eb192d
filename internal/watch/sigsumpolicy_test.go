package watch

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// policyVerdict is what a reader of a policy file concluded: whether it
// accepts the file, the witness and log keys it holds (sorted hex), and
// whether the quorum is met by each of the given sets of verified witness
// keys.
type policyVerdict struct {
	OK        bool     `json:"ok"`
	Witnesses []string `json:"witnesses"`
	Logs      []string `json:"logs"`
	Quorum    []bool   `json:"quorum"`
}

type policyCase struct {
	Policy  string     `json:"policy"`
	Subsets [][]string `json:"subsets"` // hex witness keys taken as verified
}

// memscopeVerdict is memscope's reading of c.
func memscopeVerdict(c policyCase) policyVerdict {
	p, err := parseSigsumPolicy(strings.NewReader(c.Policy))
	if err != nil {
		return policyVerdict{}
	}
	v := policyVerdict{OK: true, Witnesses: sortedHex(p.witnesses), Logs: sortedHex(p.logs)}
	for _, s := range c.Subsets {
		verified := map[[32]byte]bool{}
		for _, k := range s {
			b, _ := hex.DecodeString(k)
			verified[sha256.Sum256(b)] = true
		}
		v.Quorum = append(v.Quorum, p.quorum.met(verified))
	}
	return v
}

func sortedHex(m map[[32]byte][]byte) []string {
	out := []string{}
	for _, k := range m {
		out = append(out, hex.EncodeToString(k))
	}
	sort.Strings(out)
	return out
}

// sigsumOracle is a program, built against a sigsum-go checkout, that
// answers policyCase lines with sigsum-go's own policyVerdict lines.
const sigsumOracle = `package main

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"sort"
	"strings"

	"sigsum.org/sigsum-go/pkg/crypto"
	"sigsum.org/sigsum-go/pkg/policy"
)

type verified map[crypto.Hash]bool

func (v verified) ProcessWitness(kh crypto.Hash) any { return v[kh] }
func (v verified) ProcessGroup(k int, members []any) any {
	n := 0
	for _, m := range members {
		if m.(bool) {
			n++
		}
	}
	return n >= k
}

func keys(es []policy.Entity) []string {
	out := []string{}
	for _, e := range es {
		out = append(out, hex.EncodeToString(e.PublicKey[:]))
	}
	sort.Strings(out)
	return out
}

func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(nil, 1<<24)
	enc := json.NewEncoder(os.Stdout)
	for in.Scan() {
		var c struct {
			Policy  string     ` + "`json:\"policy\"`" + `
			Subsets [][]string ` + "`json:\"subsets\"`" + `
		}
		if err := json.Unmarshal(in.Bytes(), &c); err != nil {
			panic(err)
		}
		out := map[string]any{"ok": false}
		p, err := policy.ParseConfig(strings.NewReader(c.Policy))
		if err == nil {
			var q []bool
			for _, s := range c.Subsets {
				v := verified{}
				for _, k := range s {
					b, _ := hex.DecodeString(k)
					v[sha256.Sum256(b)] = true
				}
				q = append(q, p.ProcessQuorum(v).(bool))
			}
			out = map[string]any{"ok": true, "witnesses": keys(p.GetWitnesses()), "logs": keys(p.GetLogs()), "quorum": q}
		}
		enc.Encode(out)
	}
}
`

// TestPolicyAgainstSigsumGo reads generated policy files, valid and
// broken in the ways real files are (comments, tabs, CRLF, control bytes,
// long lines, bad keys and thresholds, names reused, "none"), with
// memscope and with sigsum-go itself, and compares their verdicts: the
// same files accepted, the same keys, the same quorum on random sets of
// verified witnesses. sigsum-go is no longer served by the Go module
// proxy, so this runs where MEMSCOPE_SIGSUM_GO names a checkout of it
// (git clone https://git.glasklar.is/sigsum/core/sigsum-go).
func TestPolicyAgainstSigsumGo(t *testing.T) {
	src := os.Getenv("MEMSCOPE_SIGSUM_GO")
	if src == "" {
		t.Skip("MEMSCOPE_SIGSUM_GO (a sigsum-go checkout) not set")
	}
	dir := t.TempDir()
	abs, err := filepath.Abs(src)
	if err != nil {
		t.Fatal(err)
	}
	mod := "module oracle\n\ngo 1.25\n\nrequire sigsum.org/sigsum-go v0.0.0\n\nreplace sigsum.org/sigsum-go => " + abs + "\n"
	for name, body := range map[string]string{"go.mod": mod, "main.go": sigsumOracle} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"mod", "tidy"}, {"build", "-o", "oracle", "."}} {
		cmd := exec.Command("go", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go %v: %v\n%s", args, err, out)
		}
	}
	rng := rand.New(rand.NewPCG(1, uint64(len(abs))))
	var cases []policyCase
	var in bytes.Buffer
	for range 4000 {
		c := randomPolicyCase(rng)
		cases = append(cases, c)
		b, _ := json.Marshal(c)
		in.Write(append(b, '\n'))
	}
	cmd := exec.Command(filepath.Join(dir, "oracle"))
	cmd.Stdin = &in
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	accepted := 0
	for i := 0; sc.Scan(); i++ {
		var want policyVerdict
		if err := json.Unmarshal(sc.Bytes(), &want); err != nil {
			t.Fatal(err)
		}
		got := memscopeVerdict(cases[i])
		if want.OK {
			accepted++
		}
		if g, w := fmt.Sprint(got), fmt.Sprint(want); g != w {
			t.Errorf("policy %q:\nmemscope  %s\nsigsum-go %s", cases[i].Policy, g, w)
		}
	}
	t.Logf("%d generated policies, %d accepted by sigsum-go; memscope agreed on every one", len(cases), accepted)
	if accepted < len(cases)/5 || accepted > len(cases)*4/5 {
		t.Errorf("%d of %d accepted: the generator should exercise both verdicts", accepted, len(cases))
	}
}

// randomPolicyCase writes a policy file the way people write them, with
// the mistakes they make, and sets of witnesses to try its quorum on.
func randomPolicyCase(rng *rand.Rand) policyCase {
	var keys []string
	for range 5 {
		var k [32]byte
		for i := range k {
			k[i] = byte(rng.Uint32())
		}
		keys = append(keys, hex.EncodeToString(k[:]))
	}
	names := []string{"A", "B", "C", "D", "G", "H", "none", "w-1"}
	pick := func(s []string) string { return s[rng.IntN(len(s))] }
	key := func(own int) string {
		k := keys[own]
		if rng.IntN(30) == 0 {
			k = pick(keys)
		}
		switch rng.IntN(200) {
		case 0:
			return strings.ToUpper(k)
		case 1:
			return k[:62]
		case 2:
			return k + "00"
		case 3:
			return "zz" + k[2:]
		}
		return k
	}
	var lines []string
	witnesses := 2 + rng.IntN(3)
	for w := range witnesses {
		l := "witness " + names[w] + " " + key(w)
		if rng.IntN(3) == 0 {
			l += " https://w" + names[w] + ".example/"
		}
		lines = append(lines, l)
	}
	if rng.IntN(2) == 0 {
		lines = append(lines, "log "+key(4))
	}
	for g, members := range [][]string{names[:witnesses], {"G"}} {
		if g == 1 && rng.IntN(2) == 0 {
			break
		}
		// Some of the defined names (a reused or undefined one sometimes).
		rng.Shuffle(len(members), func(i, j int) { members[i], members[j] = members[j], members[i] })
		members = members[:1+rng.IntN(len(members))]
		if g == 1 && rng.IntN(2) == 0 {
			members = append(members, names[witnesses-1])
		}
		if rng.IntN(6) == 0 {
			members = append(members, pick(names))
		}
		threshold := pick([]string{"any", "all", "1", strconv.Itoa(len(members))})
		if rng.IntN(5) == 0 {
			threshold = pick([]string{"3", "0", "-1", "+1", "02", "x", "ALL", "1.0"})
		}
		name := []string{"G", "H"}[g]
		if rng.IntN(12) == 0 {
			name = pick(names)
		}
		lines = append(lines, "group "+name+" "+threshold+" "+strings.Join(members, " "))
	}
	quorums := 1
	if rng.IntN(10) == 0 {
		quorums = rng.IntN(3)
	}
	for range quorums {
		q := "G"
		if rng.IntN(5) == 0 {
			q = pick([]string{"H", "A", "B", "none", "Z"})
		}
		lines = append(lines, "quorum "+q)
	}
	lines = append(lines, "# a comment", "", "\t ", "  #quorum G")
	rng.Shuffle(len(lines), func(i, j int) {
		if rng.IntN(40) == 0 { // mostly in the order written
			lines[i], lines[j] = lines[j], lines[i]
		}
	})
	for i, l := range lines {
		switch rng.IntN(150) {
		case 0:
			lines[i] = strings.Replace(l, " ", "\t", -1)
		case 1:
			lines[i] = l + "\r"
		case 2:
			lines[i] = strings.Replace(l, " ", " \x01", 1)
		case 3:
			lines[i] = l + " # trailing comment"
		case 4:
			lines[i] = strings.Replace(l, "A", "A\xff", 1)
		case 5:
			lines[i] = strings.Replace(l, " ", "\r", 1)
		case 6:
			lines[i] = "Witness" + strings.TrimPrefix(l, "witness")
		case 7:
			if rng.IntN(5) == 0 {
				lines[i] = l + strings.Repeat(" ", 70_000)
			}
		case 8:
			lines[i] = l + "\x7f"
		}
	}
	text := strings.Join(lines, "\n")
	if rng.IntN(2) == 0 {
		text += "\n"
	}
	var subsets [][]string
	for range 4 {
		s := []string{}
		for _, k := range keys[:4] {
			if rng.IntN(2) == 0 {
				s = append(s, k)
			}
		}
		subsets = append(subsets, s)
	}
	return policyCase{Policy: text, Subsets: subsets}
}

// FuzzParsePolicy: any bytes as a policy file are refused with an error
// or read into a policy whose quorum can be evaluated; never a panic. The
// seeds are generated files of TestPolicyAgainstSigsumGo's kinds.
func FuzzParsePolicy(f *testing.F) {
	rng := rand.New(rand.NewPCG(7, 7))
	for range 40 {
		f.Add([]byte(randomPolicyCase(rng).Policy))
	}
	f.Add([]byte("quorum none\n"))
	f.Add([]byte("group none all none\nquorum none"))
	f.Fuzz(func(t *testing.T, raw []byte) {
		p, err := ParsePolicy(raw)
		if err != nil {
			return
		}
		all := map[[32]byte]bool{}
		for _, w := range p.witnesses {
			all[w.hash] = true
		}
		// Every witness verified meets any quorum a file can state (k
		// never exceeds a group's members); none verified meets only
		// an empty one.
		if !p.p.quorum.met(all) {
			t.Errorf("%q: every witness verified, quorum not met", raw)
		}
		if empty := p.p.quorum.witness == nil && p.p.quorum.k == 0; p.p.quorum.met(nil) != empty {
			t.Errorf("%q: no witness verified, quorum met %v", raw, !empty)
		}
	})
}

// TestReadPolicyNamesTheFileAndLine: a policy that does not parse is
// refused with the file and the line.
func TestReadPolicyNamesTheFileAndLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "witnesses.policy")
	if err := os.WriteFile(path, []byte("# ours\nwitness A "+strings.Repeat("ab", 32)+"\ngroup G 3 A\nquorum G\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := ReadPolicy(path)
	if err == nil || !strings.Contains(err.Error(), path+": witness policy: line 3: ") {
		t.Errorf("ReadPolicy: %v; want the file and line 3", err)
	}
}
