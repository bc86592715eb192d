package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"math/big"

	"github.com/memscope/memscope/internal/analyses/smsr"
	"github.com/memscope/memscope/internal/present/jsonout"
)

const certifyUsage = "memscope certify [--m 20] [--k 5] [--n 5] [--t 1] [--target DELTA] [--json]"

// certifyMaxM bounds the smallest-pool search so a target no pool can meet
// (delta <= 0 at t > 0) answers quickly instead of searching forever.
const certifyMaxM = 100000

// certifyMaxParam bounds --m (SMSR's pools are tens): the curves draw a
// line per pool size. --n is bounded by smsr.MaxRuns.
const certifyMaxParam = 1000

type jsonCertify struct {
	M          int                 `json:"m"`
	K          int                 `json:"k"`
	N          int                 `json:"n"`
	T          int                 `json:"t"`
	PClean     float64             `json:"p_clean"`
	Q          float64             `json:"q"`
	Delta      float64             `json:"delta"`
	Target     *float64            `json:"target,omitempty"`
	SmallestM  *int                `json:"smallest_m,omitempty"`
	DeltaVsT   []jsonout.SMSRPoint `json:"delta_vs_t"`
	DeltaVsM   []jsonout.SMSRPoint `json:"delta_vs_m"`
	Assumption string              `json:"assumption"`
}

const certifyAssumption = "each of n runs keeps k of the top-m verified memories uniformly without replacement; t of the m are adversarial; delta bounds the chance that a majority of runs see one (SMSR)"

// runCertify is SMSR's certificate as a calculator: no evidence is read.
func runCertify(_ context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	fs := newFlagSet("certify", certifyUsage, stderr)
	m := fs.Int("m", 20, "pool size: the top-m verified memories each run samples from")
	k := fs.Int("k", 5, "memories each run keeps")
	n := fs.Int("n", 5, "number of runs (majority vote)")
	t := fs.Int("t", 1, "adversarial memories in the pool")
	target := fs.String("target", "", "also report the smallest pool m with delta <= this target (a decimal such as 0.1 or a fraction such as 1/10, compared exactly)")
	asJSON := fs.Bool("json", false, "print JSON")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return exitUsage, nil
	}
	if len(pos) != 0 {
		return exitUsage, usagef("certify takes no positional arguments; usage: %s", certifyUsage)
	}
	// Exact binomials grow with m and n, and the curves have a point per
	// pool size: past these bounds the calculator would run for hours.
	if *m > certifyMaxParam {
		return exitUsage, usagef("--m %d: at most %d", *m, certifyMaxParam)
	}
	c, err := smsr.Certify(*m, *k, *n, *t)
	if err != nil {
		return exitUsage, usagef("%v", err)
	}
	out := jsonCertify{M: c.M, K: c.K, N: c.N, T: c.T, PClean: c.PClean, Q: c.Q, Delta: c.Delta, Assumption: certifyAssumption}
	if *target != "" {
		// The target is read as the exact rational it spells: 0.1 is one
		// tenth, so a delta of exactly 1/10 meets it.
		tr, ok := new(big.Rat).SetString(*target)
		if !ok || tr.Sign() < 0 || tr.Cmp(big.NewRat(1, 1)) > 0 || len(*target) > 64 {
			return exitUsage, usagef("--target %q: want a probability in [0, 1]", *target)
		}
		tg, _ := tr.Float64()
		out.Target = &tg
		if sm, err := smsr.SmallestPool(*k, *n, *t, tr, certifyMaxM); err == nil {
			out.SmallestM = &sm
		}
	}
	vsT, err := smsr.CurveT(*m, *k, *n, min(*m, max(2*(*t), 10)))
	if err != nil {
		return exitUsage, err
	}
	vsM, err := smsr.CurveM(*k, *n, *t, max(*m, 2*(*k)+20))
	if err != nil {
		return exitUsage, err
	}
	out.DeltaVsT, out.DeltaVsM = jsonout.SMSRPoints(vsT), jsonout.SMSRPoints(vsM)
	if *asJSON {
		return exitOK, writeJSON(stdout, out)
	}
	fmt.Fprintf(stdout, "SMSR certificate  m=%d k=%d n=%d t=%d\n", c.M, c.K, c.N, c.T)
	fmt.Fprintf(stdout, "  p_clean = C(m-t,k)/C(m,k) = %.4f   q = %.4f\n", c.PClean, c.Q)
	fmt.Fprintf(stdout, "  delta   = P[Binomial(n,q) >= ceil(n/2)] = %.4f\n", c.Delta)
	if out.Target != nil {
		if out.SmallestM != nil {
			fmt.Fprintf(stdout, "  smallest m with delta <= %g: %d\n", *out.Target, *out.SmallestM)
		} else {
			fmt.Fprintf(stdout, "  no pool up to m=%d reaches delta <= %g\n", certifyMaxM, *out.Target)
		}
	}
	fmt.Fprintf(stdout, "\ndelta against t (m=%d):\n", c.M)
	writeBars(stdout, vsT, "t")
	fmt.Fprintf(stdout, "\ndelta against m (t=%d):\n", c.T)
	writeBars(stdout, vsM, "m")
	fmt.Fprintf(stdout, "\nassumption: %s\n", certifyAssumption)
	return exitOK, nil
}

// writeBars draws a curve as one bar per point (delta in [0, 1]).
func writeBars(w io.Writer, ps []smsr.Point, label string) {
	const width = 40
	for _, p := range ps {
		n := int(math.Round(p.Delta * width))
		bar := make([]byte, n)
		for i := range bar {
			bar[i] = '#'
		}
		fmt.Fprintf(w, "  %s=%-4d %.4f |%-*s|\n", label, p.X, p.Delta, width, bar)
	}
}
