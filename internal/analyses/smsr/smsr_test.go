package smsr

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"math/big"
	"os/exec"
	"strings"
	"testing"
)

// The brief's check values: m=20, k=5, n=5, t=1 gives delta 0.1035, and 21 is
// the smallest pool with delta <= 0.10 at t=1.
func TestCertificateCheckValues(t *testing.T) {
	t.Parallel()
	c, err := Certify(20, 5, 5, 1)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(c.PClean-0.75) > 1e-12 {
		t.Errorf("p_clean = %v, want 15/20 = 0.75", c.PClean)
	}
	if math.Abs(c.Delta-0.1035) > 5e-5 {
		t.Errorf("delta = %.6f, want 0.1035", c.Delta)
	}
	m, err := SmallestPool(5, 5, 1, big.NewRat(1, 10), 100)
	if err != nil || m != 21 {
		t.Errorf("smallest pool = %d (%v), want 21", m, err)
	}
}

// m=50, k=5, n=1, t=1: p_clean = 45/50 exactly, so delta = q = 1/10, which
// meets a target of 1/10; the float product says 0.10000000000000009 and
// made the smallest pool 51 (issue 23, item 12).
func TestSmallestPoolComparesExactly(t *testing.T) {
	t.Parallel()
	if d := DeltaRat(50, 5, 1, 1); d.Cmp(big.NewRat(1, 10)) != 0 {
		t.Fatalf("exact delta %s, want 1/10", d)
	}
	c, err := Certify(50, 5, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	if !c.AtMost(big.NewRat(1, 10)) {
		t.Errorf("delta %v is not at most 1/10", c.Delta)
	}
	if c.AtMost(big.NewRat(99999, 1000000)) {
		t.Errorf("delta %v is at most 0.099999", c.Delta)
	}
	m, err := SmallestPool(5, 1, 1, big.NewRat(1, 10), 100)
	if err != nil || m != 50 {
		t.Errorf("smallest pool = %d (%v), want 50", m, err)
	}
	// Far from a tie the float decides, as before: the paper's check value.
	if c, _ := Certify(20, 5, 5, 1); c.AtMost(big.NewRat(1, 10)) || !c.AtMost(big.NewRat(11, 100)) {
		t.Errorf("m=20 delta %v against 0.10 and 0.11", c.Delta)
	}
	// The exact delta agrees with the float one away from ties.
	for _, p := range [][4]int{{20, 5, 5, 1}, {100, 5, 7, 3}, {30, 10, 3, 2}} {
		c, _ := Certify(p[0], p[1], p[2], p[3])
		exact, _ := DeltaRat(p[0], p[1], p[2], p[3]).Float64()
		if math.Abs(exact-c.Delta) > 1e-12 {
			t.Errorf("%v: exact %v, float %v", p, exact, c.Delta)
		}
	}
}

// The expected texts are Python's: python3 -c 'print("%.6f" % (ns/1e9))'.
// On each the microsecond truncation memscope used before gives another
// answer (.123456, .000000, 0.999999), so a tag made by SMSR would fail.
func TestFormatTimestampRoundsAsPython(t *testing.T) {
	t.Parallel()
	cases := []struct {
		ns        int64
		python    string
		truncated string
	}{
		{1700000000123456789, "1700000000.123457", "1700000000.123456"},
		{1700000000000000999, "1700000000.000001", "1700000000.000000"},
		{1700000000999999600, "1700000001.000000", "1700000000.999999"},
		{1700000000123456500, "1700000000.123456", ""},
		{1700000000123456000, "1700000000.123456", ""},
	}
	for _, c := range cases {
		got := FormatTimestamp(c.ns)
		if got != c.python {
			t.Errorf("FormatTimestamp(%d) = %s, Python gives %s", c.ns, got, c.python)
		}
		if c.truncated != "" && got == c.truncated {
			t.Errorf("FormatTimestamp(%d) truncated", c.ns)
		}
	}
}

// When python3 is installed, compare with it on many timestamps, including
// ones a microsecond boundary splits.
func TestFormatTimestampAgainstPython(t *testing.T) {
	t.Parallel()
	py, err := exec.LookPath("python3")
	if err != nil || testing.Short() {
		t.Skip("python3 not installed or -short")
	}
	var ns []int64
	x := uint64(0x9e3779b97f4a7c15)
	for i := 0; i < 2000; i++ {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		ns = append(ns, 1_600_000_000_000_000_000+int64(x%200_000_000_000_000_000))
		ns = append(ns, 1_700_000_000_000_000_000+int64(i)*1000+499+int64(i%3))
	}
	var in strings.Builder
	for _, v := range ns {
		fmt.Fprintln(&in, v)
	}
	cmd := exec.Command(py, "-c", "import sys\nfor l in sys.stdin: print('%.6f' % (int(l)/1e9))")
	cmd.Stdin = strings.NewReader(in.String())
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != len(ns) {
		t.Fatalf("python printed %d lines for %d values", len(lines), len(ns))
	}
	for i, v := range ns {
		if got := FormatTimestamp(v); got != lines[i] {
			t.Fatalf("FormatTimestamp(%d) = %s, Python gives %s", v, got, lines[i])
		}
	}
}

func TestCertifyRejectsBadParameters(t *testing.T) {
	t.Parallel()
	for _, p := range [][4]int{{0, 1, 1, 0}, {5, 6, 1, 0}, {5, 1, 0, 0}, {5, 1, 1, -1}, {5, 1, 1, 6}} {
		if _, err := Certify(p[0], p[1], p[2], p[3]); err == nil {
			t.Errorf("Certify%v: want error", p)
		}
	}
}

func TestTagMatchesSMSRLayout(t *testing.T) {
	t.Parallel()
	key := []byte("k")
	ts := int64(1700000000123456789)
	if got := FormatTimestamp(ts); got != "1700000000.123457" {
		t.Fatalf("FormatTimestamp = %q", got)
	}
	m := hmac.New(sha256.New, key)
	m.Write([]byte("hello||sess-1||1700000000.123457"))
	want := hex.EncodeToString(m.Sum(nil))
	if got := Tag(key, "hello", "sess-1", ts); got != want {
		t.Fatalf("Tag = %s, want %s", got, want)
	}
	cases := map[string]TagStatus{want: TagValid, "": TagMissing, "zz": TagMalformed, want[:10]: TagMalformed}
	wrong := []byte(want)
	if wrong[0] == '0' {
		wrong[0] = '1'
	} else {
		wrong[0] = '0'
	}
	cases[string(wrong)] = TagWrong
	for stored, status := range cases {
		if got := CheckTag(key, stored, "hello", "sess-1", ts); got != status {
			t.Errorf("CheckTag(%q) = %v, want %v", stored, got, status)
		}
	}
	if CheckTag([]byte("other"), want, "hello", "sess-1", ts) != TagWrong {
		t.Error("a tag checked with another key must be wrong")
	}
}

// Delta grows with the number of adversarial memories and shrinks with the
// pool; more runs (n = 7) certify more at small t, as in Figure 3.
func TestCurvesAreMonotone(t *testing.T) {
	t.Parallel()
	for _, n := range []int{5, 7} {
		ct, err := CurveT(20, 5, n, 8)
		if err != nil {
			t.Fatal(err)
		}
		if len(ct) != 9 || ct[0].Delta != 0 {
			t.Fatalf("n=%d: CurveT = %v, want 9 points starting at delta 0", n, ct)
		}
		for i := 1; i < len(ct); i++ {
			if !(ct[i].Delta > ct[i-1].Delta) {
				t.Errorf("n=%d: delta(t=%d)=%v not above delta(t=%d)=%v", n, ct[i].X, ct[i].Delta, ct[i-1].X, ct[i-1].Delta)
			}
		}
		cm, err := CurveM(5, n, 1, 40)
		if err != nil {
			t.Fatal(err)
		}
		for i := 1; i < len(cm); i++ {
			if !(cm[i].Delta < cm[i-1].Delta) {
				t.Errorf("n=%d: delta(m=%d) not below delta(m=%d)", n, cm[i].X, cm[i-1].X)
			}
		}
	}
	c5, _ := Certify(20, 5, 5, 1)
	c7, _ := Certify(20, 5, 7, 1)
	if !(c7.Delta < c5.Delta) {
		t.Errorf("n=7 delta %v should be below n=5 delta %v at t=1", c7.Delta, c5.Delta)
	}
	if pts, _ := CurveT(3, 3, 5, 10); len(pts) != 4 {
		t.Errorf("CurveT stops at t = m: got %d points, want 4", len(pts))
	}
}

func TestSummarise(t *testing.T) {
	t.Parallel()
	s, err := Summarise(20, 5, 5, 1)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(s.Delta-0.1035) > 5e-5 || len(s.VsT[5]) != 11 || len(s.VsT[7]) != 11 || s.VsM[5][0].X != 5 || s.VsM[7][len(s.VsM[7])-1].X != 40 {
		t.Errorf("summary %+v", s)
	}
	if s.VsT[7][1].Delta >= s.VsT[5][1].Delta {
		t.Error("n=7 should certify better than n=5 at t=1")
	}
	if small, err := Summarise(3, 5, 5, 1); err != nil || small.K != 3 || small.Delta != 1 {
		t.Errorf("pool of 3 with k=5: %+v %v (every run keeps the adversarial memory)", small, err)
	}
}

// A large pool's summary curves stay small and still end at their maxima;
// a small pool's are every point.
func TestSummaryCurvesBounded(t *testing.T) {
	t.Parallel()
	big, err := Summarise(100000, 5, 5, 30000)
	if err != nil {
		t.Fatal(err)
	}
	small, err := Summarise(20, 5, 5, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range CurveRuns {
		for name, c := range map[string][]Point{"VsT": big.VsT[n], "VsM": big.VsM[n]} {
			if len(c) > 2*summaryPoints || len(c) < summaryPoints/2 {
				t.Errorf("%s n=%d: %d points", name, n, len(c))
			}
		}
		if last := big.VsM[n][len(big.VsM[n])-1].X; last != 200000 {
			t.Errorf("VsM ends at %d, want 200000", last)
		}
		if last := big.VsT[n][len(big.VsT[n])-1].X; last != 60000 {
			t.Errorf("VsT ends at %d, want 60000", last)
		}
		full, _ := CurveM(5, n, 1, 40)
		if len(small.VsM[n]) != len(full) || small.VsM[n][0] != full[0] || small.VsM[n][len(full)-1] != full[len(full)-1] {
			t.Errorf("small pool's VsM is not every point: %d vs %d", len(small.VsM[n]), len(full))
		}
	}
}
