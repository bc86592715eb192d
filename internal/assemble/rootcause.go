package assemble

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/memscope/memscope/internal/present/finding"
)

// FindingGroup is a set of findings with one root cause: a finding that
// explains the others (one altered log tile fails the inclusion proof of
// every leaf under it), a wrong anchor, or else one finding code.
type FindingGroup struct {
	Code     finding.Code     `json:"code"` // the root finding's code
	Severity finding.Severity `json:"severity"`
	// Headline says the cause in a sentence.
	Headline string `json:"headline"`
	// Cause is the finding that explains the rest, when there is one.
	Cause    *finding.Finding  `json:"cause,omitempty"`
	Findings []finding.Finding `json:"findings"` // every member, cause first
}

// GroupFindings folds findings under their root causes, errors first. The
// rules are deliberately few and exact:
//
//   - a TILE_MISMATCH explains the INCLUSION_FAILED findings of the leaves
//     that tile covers;
//   - when every registry event fails REGISTRY_SIG_INVALID (principals is
//     their count), the supplied registry root is the likely cause, and the
//     WRITER_UNREGISTERED findings that follow from it join the group;
//   - everything else is grouped by code.
func GroupFindings(fs []finding.Finding, principals int) []FindingGroup {
	used := make([]bool, len(fs))
	var groups []FindingGroup

	for i, f := range fs {
		if f.Code != finding.TileMismatch {
			continue
		}
		lo, hi, ok := tileLeaves(f.Subject)
		if !ok {
			continue
		}
		cause := fs[i]
		g := FindingGroup{Code: f.Code, Severity: f.Severity, Cause: &cause, Findings: []finding.Finding{f}}
		used[i] = true
		for j, m := range fs {
			if used[j] || m.Code != finding.InclusionFailed {
				continue
			}
			if leaf, ok := messageLeaf(m.Message); ok && leaf >= lo && leaf < hi {
				g.Findings = append(g.Findings, m)
				used[j] = true
			}
		}
		g.Headline = fmt.Sprintf("The log tile %s was altered: it no longer matches the entries it covers (leaves %d to %d), so %d inclusion proof(s) through it fail.",
			f.Subject, lo, hi-1, len(g.Findings)-1)
		groups = append(groups, g)
	}

	regFail := 0
	for _, f := range fs {
		if f.Code == finding.RegistrySigInvalid {
			regFail++
		}
	}
	if principals > 0 && regFail == principals {
		g := FindingGroup{Code: finding.RegistrySigInvalid, Severity: finding.SevError}
		for j, m := range fs {
			if !used[j] && (m.Code == finding.RegistrySigInvalid || m.Code == finding.WriterUnregistered) {
				g.Findings = append(g.Findings, m)
				used[j] = true
			}
		}
		g.Headline = fmt.Sprintf("None of the %d registry events is signed by the registry root that was supplied: the root key given is probably not this store's (or the whole registry was replaced). Every writer then counts as unregistered (%d finding(s)).",
			principals, len(g.Findings))
		groups = append(groups, g)
	}

	byCode := map[finding.Code]int{}
	for j, f := range fs {
		if used[j] {
			continue
		}
		k, ok := byCode[f.Code]
		if !ok {
			k = len(groups)
			byCode[f.Code] = k
			head := string(f.Code)
			if c, ok := finding.Lookup(f.Code); ok {
				head = strings.ToUpper(c.Meaning[:1]) + c.Meaning[1:] + "."
			}
			groups = append(groups, FindingGroup{Code: f.Code, Severity: f.Severity, Headline: head})
		}
		groups[k].Findings = append(groups[k].Findings, f)
		if f.Severity.Rank() < groups[k].Severity.Rank() {
			groups[k].Severity = f.Severity
		}
	}
	sort.SliceStable(groups, func(a, b int) bool {
		ga, gb := groups[a], groups[b]
		if ga.Severity.Rank() != gb.Severity.Rank() {
			return ga.Severity.Rank() < gb.Severity.Rank()
		}
		if (ga.Cause != nil) != (gb.Cause != nil) {
			return ga.Cause != nil
		}
		if len(ga.Findings) != len(gb.Findings) {
			return len(ga.Findings) > len(gb.Findings)
		}
		return ga.Code < gb.Code
	})
	return groups
}

// tileLeaves returns the leaf range [lo, hi) a tlog-tiles hash tile covers,
// from its path "tile/L/N[.p/W]" (N in the x001/234 form for big indexes).
func tileLeaves(path string) (lo, hi int64, ok bool) {
	rest, found := strings.CutPrefix(path, "tile/")
	if !found {
		return 0, 0, false
	}
	levelText, idx, found := strings.Cut(rest, "/")
	if !found || levelText == "entries" {
		return 0, 0, false
	}
	level, err := strconv.Atoi(levelText)
	if err != nil || level < 0 || level > 6 {
		return 0, 0, false
	}
	width := int64(256)
	if p, w, found := strings.Cut(idx, ".p/"); found {
		idx = p
		if width, err = strconv.ParseInt(w, 10, 64); err != nil || width < 1 || width > 256 {
			return 0, 0, false
		}
	}
	var n int64
	for _, part := range strings.Split(idx, "/") {
		part = strings.TrimPrefix(part, "x")
		d, err := strconv.ParseInt(part, 10, 64)
		if err != nil || len(part) != 3 {
			return 0, 0, false
		}
		n = n*1000 + d
	}
	span := int64(1)
	for i := 0; i <= level; i++ {
		span *= 256
	}
	lo = n * span
	hi = lo + width*(span/256)
	return lo, hi, true
}

// messageLeaf reads the leaf index an INCLUSION_FAILED message starts with
// ("leaf 12: ...").
func messageLeaf(msg string) (int64, bool) {
	rest, ok := strings.CutPrefix(msg, "leaf ")
	if !ok {
		return 0, false
	}
	num, _, ok := strings.Cut(rest, ":")
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseInt(num, 10, 64)
	return n, err == nil
}
