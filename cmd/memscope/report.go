package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/memscope/memscope/internal/report"
	"github.com/memscope/memscope/replay"
)

const reportUsage = "memscope report SNAPSHOT --log DIR|URL [anchors] [--tau T] [--fail-closed] [--gate-policy FILE] [--label-policy NAME] [--k N] [--damping D] [--title TEXT] [--date RFC3339|none] --out FILE.html [--json FILE]\n       memscope report STORE [--queries FILE | --query-embeddings FILE] [--title TEXT] [--date RFC3339|none] --out FILE.html"

func runReport(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	fs := newFlagSet("report", reportUsage, stderr)
	var ef evidenceFlags
	ef.register(fs)
	var lf lineageFlags
	lf.register(fs, "gate-policy")
	labelPolicy := fs.String("label-policy", "", "replay edge label policy: "+strings.Join(replay.PolicyNames(), ", "))
	k := fs.Int("k", 0, "top-k (default: each query's recorded k, else 5)")
	damping := fs.Float64("damping", 0.5, "PPR damping")
	title := fs.String("title", "", "the report's title (default: the snapshot path)")
	date := fs.String("date", "", "generation time printed in the report: RFC 3339, or none (default: $SOURCE_DATE_EPOCH, else now)")
	out := fs.String("out", "", "write the HTML report to this new file (required; never overwritten)")
	jsonOut := fs.String("json", "", "also write the JSON case file to this new file")
	ocsfOut := fs.String("ocsf", "", "also write every finding of the case as OCSF Detection Findings (JSON lines) to this new file")
	var nq nativeQueries
	nq.register(fs)
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return exitUsage, nil
	}
	if len(pos) != 1 {
		return exitUsage, usagef("want exactly one SNAPSHOT or STORE; usage: %s", reportUsage)
	}
	if *out == "" {
		return exitUsage, usagef("--out FILE.html is required; usage: %s", reportUsage)
	}
	native, err := nativeOrSnapshot("report", pos[0])
	if err != nil {
		return exitUsage, err
	}
	if native {
		if *jsonOut != "" {
			return exitUsage, usagef("--json: the case file is written for memscope's own evidence; a native store's report is the HTML page (its data: verify --json, timeline --json)")
		}
		now, err := reportDate(*date)
		if err != nil {
			return exitUsage, err
		}
		return runNativeReport(ctx, stdout, pos[0], *out, *title, now, nq, ef, args)
	}
	if ef.log == "" {
		return exitUsage, usagef("--log is required; usage: %s", reportUsage)
	}
	if *out == *jsonOut || *ocsfOut != "" && (*ocsfOut == *out || *ocsfOut == *jsonOut) {
		return exitUsage, usagef("--out, --json and --ocsf must name different files")
	}
	opts, err := lf.options()
	if err != nil {
		return exitUsage, err
	}
	now, err := reportDate(*date)
	if err != nil {
		return exitUsage, err
	}
	if *title == "" {
		*title = defaultTitle(pos[0])
	}
	opts.K, opts.Damping, opts.ReplayPolicy, opts.Title = *k, *damping, *labelPolicy, *title
	s, err := ef.open(ctx, pos[0], opts)
	if err != nil {
		return exitUsage, err
	}
	defer s.Close()
	inputs := []report.Input{{Role: "snapshot", Path: pos[0]}, {Role: "log", Path: ef.log}}
	for _, in := range []report.Input{{Role: "anchors", Path: ef.anchors}, {Role: "log-key", Path: ef.logKey}, {Role: "trust", Path: ef.trust},
		{Role: "hmac-key", Path: ef.hmacKey}, {Role: "gate-policy", Path: lf.gatePolicy}} {
		if in.Path == "" {
			continue
		}
		// --log-key and --trust take a key or a file: hash only files.
		if st, err := os.Stat(in.Path); err == nil && st.Mode().IsRegular() {
			inputs = append(inputs, in)
		}
	}
	c, err := report.Build(ctx, s, report.Options{Inputs: inputs, Command: append([]string{"memscope", "report"}, args...),
		Version: toolVersion(), Now: now, GatePolicyName: lf.gatePolicy})
	if err != nil {
		return exitUsage, err
	}
	if err := report.Files(c, *out, *jsonOut); err != nil {
		return exitUsage, err
	}
	if *ocsfOut != "" {
		if err := writeOCSFFile(*ocsfOut, c.Findings, pos[0], ef.log); err != nil {
			return exitUsage, err
		}
		fmt.Fprintf(stdout, "%s: %d findings as OCSF Detection Findings\n", *ocsfOut, len(c.Findings))
	}
	fmt.Fprintf(stdout, "%s: %s\n", *out, c.Verdict.Headline)
	if *jsonOut != "" {
		fmt.Fprintf(stdout, "%s: JSON case file\n", *jsonOut)
	}
	// The report's verdict is "compromise indicated" exactly when a
	// section holds an error: the same exit 1 as the commands it runs.
	if c.Verdict.Level == report.LevelCompromise {
		return exitFindings, nil
	}
	return exitOK, nil
}

// defaultTitle names the store by its directory and file name
// ("structural-write/snapshot.db"), which is what a responder calls it.
func defaultTitle(snapshot string) string {
	abs, err := filepath.Abs(snapshot)
	if err != nil {
		return "Memory store " + snapshot
	}
	return "Memory store " + filepath.Join(filepath.Base(filepath.Dir(abs)), filepath.Base(abs))
}

// reportDate picks the generation time: the flag, else SOURCE_DATE_EPOCH
// (the reproducible-builds convention), else the clock.
func reportDate(flagValue string) (time.Time, error) {
	switch {
	case flagValue == "none":
		return time.Time{}, nil
	case flagValue != "":
		t, err := time.Parse(time.RFC3339, flagValue)
		if err != nil {
			return time.Time{}, usagef("--date %q: want RFC 3339 (2026-03-02T09:00:00Z) or none", flagValue)
		}
		return t, nil
	}
	if e := os.Getenv("SOURCE_DATE_EPOCH"); e != "" {
		sec, err := strconv.ParseInt(e, 10, 64)
		if err != nil {
			return time.Time{}, usagef("SOURCE_DATE_EPOCH %q is not a number of seconds", e)
		}
		return time.Unix(sec, 0).UTC(), nil
	}
	return time.Now().UTC().Truncate(time.Second), nil
}

// build is what the binary knows of its own build.
type build struct {
	version, revision, goVersion string
	modified                     bool
}

// readBuild reads the module version ("(devel)" for a checkout build), the
// VCS revision and whether the tree was modified.
func readBuild() (build, bool) {
	b := build{version: "(devel)"}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		if version != "" {
			b.version = version
		}
		return b, version != ""
	}
	if bi.Main.Version != "" {
		b.version = bi.Main.Version
	}
	if version != "" {
		b.version = version // -ldflags -X main.version: the documented build
	}
	b.goVersion = bi.GoVersion
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			b.revision = s.Value
		case "vcs.modified":
			b.modified = s.Value == "true"
		}
	}
	return b, true
}

// toolVersion names this build for the report: the module version, and
// the VCS revision when the binary was built from a checkout.
func toolVersion() string {
	b, _ := readBuild()
	v := b.version
	if rev := b.revision; rev != "" {
		if len(rev) > 12 {
			rev = rev[:12]
		}
		if b.modified {
			rev += "+modified"
		}
		v += " (" + rev + ")"
	}
	return v
}
