// Package smsr holds the two checks memscope takes from SMSR (SMSR, arXiv:2606.12703):
// per-memory HMAC-SHA256 tags and the randomized-ablation certificate.
package smsr

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"sync"
)

// TagMessage builds the bytes SMSR tags: content || "||" || session_id ||
// "||" || timestamp. SMSR formats its REAL timestamp (float seconds) with
// Python's "%.6f", which rounds; FormatTimestamp reproduces that.
func TagMessage(content, sessionID string, tsNanos int64) []byte {
	msg := make([]byte, 0, len(content)+len(sessionID)+24)
	msg = append(msg, content...)
	msg = append(msg, "||"...)
	msg = append(msg, sessionID...)
	msg = append(msg, "||"...)
	return append(msg, FormatTimestamp(tsNanos)...)
}

// FormatTimestamp renders nanoseconds since the epoch as SMSR's timestamp
// text: the float seconds ns / 1e9 (as Python computes it: the integer
// rounded to a double, then one IEEE division) formatted like Python's
// "%.6f" (round to nearest on the exact binary value), e.g.
// 1700000000123456789 -> "1700000000.123457". Truncating to microseconds
// would give .123456 and disagree with about half of SMSR's tags.
func FormatTimestamp(tsNanos int64) string {
	return FormatSeconds(float64(tsNanos) / 1e9)
}

// FormatSeconds formats a REAL timestamp in seconds as Python's "%.6f" does:
// Go's 'f' formatting rounds the exact binary value correctly, as CPython's
// does, so the two agree on every finite double.
func FormatSeconds(sec float64) string {
	return strconv.FormatFloat(sec, 'f', 6, 64)
}

// Tag returns the hex-encoded HMAC-SHA256 tag of a memory.
func Tag(key []byte, content, sessionID string, tsNanos int64) string {
	m := hmac.New(sha256.New, key)
	m.Write(TagMessage(content, sessionID, tsNanos))
	return hex.EncodeToString(m.Sum(nil))
}

// TagStatus is the outcome of checking one memory's tag.
type TagStatus int

const (
	TagValid TagStatus = iota
	TagMissing
	TagMalformed
	TagWrong
)

func (s TagStatus) String() string {
	return [...]string{"valid", "missing", "malformed", "wrong"}[s]
}

// CheckTag compares a stored hex tag with the expected one in constant time.
func CheckTag(key []byte, stored, content, sessionID string, tsNanos int64) TagStatus {
	if stored == "" {
		return TagMissing
	}
	got, err := hex.DecodeString(stored)
	if err != nil || len(got) != sha256.Size {
		return TagMalformed
	}
	m := hmac.New(sha256.New, key)
	m.Write(TagMessage(content, sessionID, tsNanos))
	if !hmac.Equal(got, m.Sum(nil)) {
		return TagWrong
	}
	return TagValid
}

// Certificate is SMSR's randomized-ablation bound: each of N runs keeps K of
// the top-M verified memories uniformly without replacement, T of the M are
// adversarial, and Delta bounds the chance that a majority of runs see at
// least one adversarial memory.
type Certificate struct {
	M, K, N, T int
	PClean     float64 // C(M-T, K) / C(M, K)
	Q          float64 // 1 - PClean: one run is contaminated
	Delta      float64 // P[Binomial(N, Q) >= ceil(N/2)]
}

// MaxRuns bounds the run count n of a certificate.
const MaxRuns = 1000

// Certify computes the certificate for the given parameters.
func Certify(m, k, n, t int) (Certificate, error) {
	if m <= 0 || k <= 0 || n <= 0 || t < 0 || k > m || t > m {
		return Certificate{}, fmt.Errorf("smsr: need 0 < k <= m, n > 0, 0 <= t <= m (got m=%d k=%d n=%d t=%d)", m, k, n, t)
	}
	if n > MaxRuns {
		// C(n, n/2) overflows a float64 past n = 1029.
		return Certificate{}, fmt.Errorf("smsr: n=%d runs; at most %d", n, MaxRuns)
	}
	// C(m-t,k)/C(m,k) as the product of (m-t-i)/(m-i), i < k: k float
	// steps (relative error about k ulps) where the two exact binomials of
	// a large pool would take minutes.
	pClean := 0.0
	if m-t >= k {
		pClean = 1
		for i := 0; i < k && pClean > 0; i++ {
			pClean *= float64(m-t-i) / float64(m-i)
		}
	}
	q := 1 - pClean
	need := (n + 1) / 2
	delta := 0.0
	row := binomialRow(n)
	for i := need; i <= n; i++ {
		delta += row[i] * math.Pow(q, float64(i)) * math.Pow(1-q, float64(n-i))
	}
	return Certificate{M: m, K: k, N: n, T: t, PClean: pClean, Q: q, Delta: delta}, nil
}

// binomialRows caches C(n, i) for i = 0..n as float64 per n: the curves
// and the smallest-pool search call Certify thousands of times with one n,
// and exact big binomials per call made a search over large pools take
// minutes.
var binomialRows sync.Map // int -> []float64

func binomialRow(n int) []float64 {
	if r, ok := binomialRows.Load(n); ok {
		return r.([]float64)
	}
	row := make([]float64, n+1)
	for i := range row {
		row[i], _ = new(big.Float).SetInt(new(big.Int).Binomial(int64(n), int64(i))).Float64()
	}
	binomialRows.Store(n, row)
	return row
}

// SmallestPool returns the smallest M >= k whose certificate has Delta <=
// target, searching up to maxM. The comparison is exact (AtMost): target
// is a rational (1/10 is one tenth, not the float nearest it).
func SmallestPool(k, n, t int, target *big.Rat, maxM int) (int, error) {
	for m := k; m <= maxM; m++ {
		if m < t {
			continue
		}
		c, err := Certify(m, k, n, t)
		if err != nil {
			return 0, err
		}
		if c.AtMost(target) {
			return m, nil
		}
	}
	return 0, errors.New("smsr: no pool size up to the limit meets the target")
}

// tieMargin is how close (relative) the float delta must be to a target
// before the exact rational decides: the float is within a few hundred
// ulps of the true value, far inside this margin.
const tieMargin = 1e-9

// AtMost reports whether the certificate's delta is at most target,
// exactly: the float delta decides when it is clearly on one side, and the
// rational delta (DeltaRat) when it is within tieMargin of target, where
// rounding could decide the wrong way (m=50, k=5, n=1, t=1 has delta
// exactly 1/10, which the float product gives as 0.10000000000000009).
func (c Certificate) AtMost(target *big.Rat) bool {
	tf, _ := target.Float64()
	if math.Abs(c.Delta-tf) > tieMargin*max(math.Abs(tf), 1e-300) {
		return c.Delta < tf
	}
	return DeltaRat(c.M, c.K, c.N, c.T).Cmp(target) <= 0
}

// DeltaRat is the certificate's delta as an exact rational, for the
// parameters Certify accepts: p_clean = prod (m-t-i)/(m-i) over i < k,
// q = 1 - p_clean, delta = sum over i >= ceil(n/2) of C(n,i) q^i (1-q)^(n-i).
func DeltaRat(m, k, n, t int) *big.Rat {
	pClean := new(big.Rat)
	if m-t >= k {
		pClean.SetInt64(1)
		for i := 0; i < k; i++ {
			pClean.Mul(pClean, big.NewRat(int64(m-t-i), int64(m-i)))
		}
	}
	q := new(big.Rat).Sub(big.NewRat(1, 1), pClean)
	delta := new(big.Rat)
	for i := (n + 1) / 2; i <= n; i++ {
		term := new(big.Rat).SetInt(new(big.Int).Binomial(int64(n), int64(i)))
		term.Mul(term, ratPow(q, i))
		term.Mul(term, ratPow(pClean, n-i))
		delta.Add(delta, term)
	}
	return delta
}

// DecimalRat is the rational a float64 target was written as: its shortest
// decimal form (0.1 is 1/10, not the binary float nearest it).
func DecimalRat(x float64) *big.Rat {
	r, ok := new(big.Rat).SetString(strconv.FormatFloat(x, 'g', -1, 64))
	if !ok { // NaN or an infinity: no delta is at most it but a zero one
		return new(big.Rat)
	}
	return r
}

func ratPow(x *big.Rat, e int) *big.Rat {
	num := new(big.Int).Exp(x.Num(), big.NewInt(int64(e)), nil)
	den := new(big.Int).Exp(x.Denom(), big.NewInt(int64(e)), nil)
	return new(big.Rat).SetFrac(num, den)
}

// Point is one point of a certificate curve.
type Point struct {
	X     int     // the parameter varied (t or m)
	Delta float64 // the certificate's delta there
}

// CurveT is delta against the number of adversarial memories t = 0..maxT for
// a fixed pool (SMSR, arXiv:2606.12703, Figure 3, left). Points where t > m stop the curve.
func CurveT(m, k, n, maxT int) ([]Point, error) {
	return curveTStep(m, k, n, maxT, 1)
}

// curveTStep is CurveT at every step-th t, always ending at min(maxT, m).
func curveTStep(m, k, n, maxT, step int) ([]Point, error) {
	maxT = min(maxT, m)
	var out []Point
	for t := 0; t <= maxT; {
		c, err := Certify(m, k, n, t)
		if err != nil {
			return nil, err
		}
		out = append(out, Point{X: t, Delta: c.Delta})
		if t == maxT {
			break
		}
		t = min(t+max(step, 1), maxT)
	}
	return out, nil
}

// CurveM is delta against the pool size m = max(k, t)..maxM for a fixed t
// (SMSR, arXiv:2606.12703, Figure 3, right).
func CurveM(k, n, t, maxM int) ([]Point, error) {
	return curveMStep(k, n, t, maxM, 1)
}

// curveMStep is CurveM at every step-th m, always ending at maxM.
func curveMStep(k, n, t, maxM, step int) ([]Point, error) {
	var out []Point
	for m := max(k, t); m <= maxM; {
		c, err := Certify(m, k, n, t)
		if err != nil {
			return nil, err
		}
		out = append(out, Point{X: m, Delta: c.Delta})
		if m == maxM {
			break
		}
		m = min(m+step, maxM)
	}
	return out, nil
}

// summaryPoints bounds each curve of a Summary: a store of 100k entries
// would otherwise carry 200k points per curve into every output.
const summaryPoints = 200

// Summary is the certificate for one pool with its Figure 3 curves for
// n = 5 and n = 7 runs.
type Summary struct {
	Certificate
	// VsT[n] is delta against t = 0..max(2t, 10) (capped at m) for n runs;
	// VsM[n] is delta against m = k..max(2m, m+20) at the pool's t. Each
	// has at most about 200 points, evenly stepped, ending at its maximum.
	VsT, VsM map[int][]Point
}

// CurveRuns are the run counts the curves are drawn for (Figure 3).
var CurveRuns = []int{5, 7}

// Summarise certifies a pool of m memories of which t failed verification
// or their tags (treated as adversarial), k kept per run, n runs.
func Summarise(m, k, n, t int) (Summary, error) {
	if k > m {
		k = m // a pool smaller than k: every run keeps the whole pool
	}
	c, err := Certify(m, k, n, t)
	if err != nil {
		return Summary{}, err
	}
	s := Summary{Certificate: c, VsT: map[int][]Point{}, VsM: map[int][]Point{}}
	for _, runs := range CurveRuns {
		maxT := min(m, max(2*t, 10))
		if s.VsT[runs], err = curveTStep(m, k, runs, maxT, (maxT+summaryPoints-1)/summaryPoints); err != nil {
			return Summary{}, err
		}
		lo, hi := max(k, t), max(2*m, m+20)
		if s.VsM[runs], err = curveMStep(k, runs, t, hi, max(1, (hi-lo+summaryPoints-1)/summaryPoints)); err != nil {
			return Summary{}, err
		}
	}
	return s, nil
}
