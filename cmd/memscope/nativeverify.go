package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"

	"github.com/memscope/memscope/internal/analyses/smsr"
	"github.com/memscope/memscope/internal/present/finding"
	stores "github.com/memscope/memscope/internal/readers"
	"github.com/memscope/memscope/internal/readers/smsrdb"
	"github.com/memscope/memscope/internal/readers/storemodel"
)

// certFlags are SMSR's certificate parameters (the SMSR paper's defaults,
// arXiv:2606.12703). verify and inspect take them as --smsr-m/-k/-n and,
// with memscope certify's names, --m/--k/--n.
type certFlags struct {
	m, k, n int
	set     bool // one of them was given
}

func (c *certFlags) register(fs *flag.FlagSet) {
	c.m, c.k, c.n = 20, 5, 5
	for _, p := range []struct {
		v    *int
		name string
		help string
	}{{&c.m, "m", "size of the verified pool each run draws from"}, {&c.k, "k", "memories each run keeps"}, {&c.n, "n", "number of runs (majority vote)"}} {
		v := certInt{v: p.v, set: &c.set}
		fs.Var(v, "smsr-"+p.name, "SMSR certificate: "+p.help+" (default "+strconv.Itoa(*p.v)+")")
		fs.Var(v, p.name, "same as --smsr-"+p.name+" (memscope certify's name)")
	}
}

// check refuses parameters SMSR's certificate is not defined for.
func (c certFlags) check() error {
	if _, err := smsr.Certify(c.m, c.k, c.n, 0); err != nil {
		return usagef("--smsr-m/k/n (--m/--k/--n): %v", err)
	}
	return nil
}

// forStore refuses certificate parameters for a store that has no SMSR
// certificate, and parameters it is not defined for.
func (c certFlags) forStore(st *storemodel.Store) error {
	if !c.set {
		return nil
	}
	if stores.ReaderOf(st).Holds&storemodel.HoldsTaggedRows == 0 {
		return usagef("--smsr-m/k/n (--m/--k/--n): %s stores have no SMSR certificate", st.Format)
	}
	return c.check()
}

// certInt is one certificate parameter that remembers it was given.
type certInt struct {
	v   *int
	set *bool
}

func (c certInt) String() string {
	if c.v == nil {
		return ""
	}
	return strconv.Itoa(*c.v)
}

func (c certInt) Set(s string) error {
	v, err := strconv.Atoi(s)
	if err != nil {
		return errors.New("want an integer")
	}
	*c.v, *c.set = v, true
	return nil
}

type jsonTags struct {
	Checked     bool      `json:"checked"`
	Why         string    `json:"why,omitempty"`
	Match       int       `json:"match_at_stored_time"`
	EarlierTime int       `json:"match_at_earlier_time"`
	NoMatch     int       `json:"no_match"`
	Missing     int       `json:"missing"`
	Malformed   int       `json:"malformed"`
	NotSearched int       `json:"not_searched"`
	Certificate *jsonCert `json:"certificate,omitempty"`
}

type jsonCert struct {
	M      int     `json:"m"`
	K      int     `json:"k"`
	N      int     `json:"n"`
	T      int     `json:"t"`
	PClean float64 `json:"p_clean"`
	Delta  float64 `json:"delta"`
	Note   string  `json:"note"`
}

type jsonNativeVerify struct {
	Store    jsonStore         `json:"store"`
	Findings []finding.Finding `json:"findings"`
	Tags     *jsonTags         `json:"hmac_tags,omitempty"`
	Result   string            `json:"result"`
}

func runNativeVerify(ctx context.Context, stdout io.Writer, path, format string, ef evidenceFlags, cert certFlags, asJSON bool) (int, error) {
	// --hmac-key belongs to SMSR stores; the other anchors do not apply.
	hmacKey := ef.hmacKey
	ef.hmacKey = ""
	st, err := openStore(ctx, path, format, ef)
	if err != nil {
		return exitUsage, err
	}
	if err := cert.forStore(st); err != nil {
		return exitUsage, err
	}
	fs := stores.Findings(st)
	var tags *jsonTags
	if stores.ReaderOf(st).Holds&storemodel.HoldsTaggedRows != 0 {
		tags = &jsonTags{}
		if hmacKey == "" {
			tags.Why = "no --hmac-key given: tags not checked"
		} else {
			an, err := (&anchorFlags{hmacKey: hmacKey}).resolve()
			if err != nil {
				return exitUsage, err
			}
			res, tf, err := smsrdb.CheckTags(ctx, st, an.HMAC, smsrdb.CheckOptions{})
			if err != nil {
				return exitUsage, err
			}
			tags.Checked = true
			fs = append(fs, tf...)
			for _, r := range res {
				switch r.Outcome {
				case smsrdb.TagMatches:
					tags.Match++
				case smsrdb.TagEarlierTime:
					tags.EarlierTime++
				case smsrdb.TagNoMatch:
					tags.NoMatch++
				case smsrdb.TagMissing:
					tags.Missing++
				case smsrdb.TagMalformed:
					tags.Malformed++
				case smsrdb.TagNotSearched:
					tags.NotSearched++
				}
			}
			note := "t counts rows whose tag is missing, malformed or matches at no searched time; rows that match at an earlier time (SMSR's quirk) count as genuine"
			fail := smsrdb.Failing(res)
			t := fail
			if t > cert.m {
				t = cert.m
				note += fmt.Sprintf("; %d rows fail, capped at m", fail)
			}
			c, err := smsr.Certify(cert.m, cert.k, cert.n, t)
			if err != nil {
				return exitUsage, usagef("--smsr-m/k/n: %v", err)
			}
			tags.Certificate = &jsonCert{M: c.M, K: c.K, N: c.N, T: c.T, PClean: c.PClean, Delta: c.Delta, Note: note}
		}
	} else if hmacKey != "" {
		return exitUsage, usagef("--hmac-key: %s stores carry no HMAC tags", st.Format)
	}
	errs, warns, _ := finding.Count(fs)
	result := fmt.Sprintf("%d error(s), %d warning(s); %s", errs, warns, storemodel.Unsigned)
	head := describeStore(st)
	if asJSON {
		if err := writeJSON(stdout, jsonNativeVerify{Store: head, Findings: fs, Tags: tags, Result: result}); err != nil {
			return exitUsage, err
		}
	} else {
		writeStoreHeader(stdout, head)
		if tags != nil {
			if !tags.Checked {
				fmt.Fprintf(stdout, "HMAC tags: %s\n\n", tags.Why)
			} else {
				fmt.Fprintf(stdout, "HMAC tags (key given by you): %d match at the stored time, %d at an earlier time (SMSR's quirk), %d match at no searched time, %d missing, %d malformed, %d not searched\n",
					tags.Match, tags.EarlierTime, tags.NoMatch, tags.Missing, tags.Malformed, tags.NotSearched)
				c := tags.Certificate
				fmt.Fprintf(stdout, "certificate: m=%d k=%d n=%d t=%d: p_clean %.4f, delta %.4f (%s)\n\n", c.M, c.K, c.N, c.T, c.PClean, c.Delta, c.Note)
			}
		}
		writeFindingList(stdout, fs)
		fmt.Fprintf(stdout, "result: %s\n", result)
	}
	if errs > 0 {
		return exitFindings, nil
	}
	return exitOK, nil
}
