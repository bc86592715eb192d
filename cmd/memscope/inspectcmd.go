package main

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"runtime"

	"github.com/charmbracelet/x/term"

	"github.com/memscope/memscope/evidence"
	"github.com/memscope/memscope/internal/assemble"
	"github.com/memscope/memscope/tui"
	"github.com/memscope/memscope/tui/tuisource"
)

const inspectUsage = "memscope inspect SNAPSHOT --log DIR|URL [--log-key VKEY] [--trust KEYS] [--anchors FILE] [--hmac-key FILE] [--plain] [--keys FILE]\n       memscope inspect STORE [--format FORMAT] [--queries FILE | --query-embeddings FILE] [--hmac-key FILE [--smsr-m 20 --smsr-k 5 --smsr-n 5]] [--plain] [--keys FILE]"

func runInspect(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	fs := newFlagSet("inspect", inspectUsage, stderr)
	var ef evidenceFlags
	ef.register(fs)
	plain := fs.Bool("plain", false, "accessible mode: no box borders, ASCII markers and spinner")
	keys := fs.String("keys", "", "key map file (default: "+tui.DefaultKeyMapPath()+" when it exists)")
	format := fs.String("format", "", "open a native store of this format: "+storeFormats()+" (default: detected from the contents)")
	var nq nativeQueries
	nq.register(fs)
	var cert certFlags
	cert.register(fs)
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return exitUsage, nil
	}
	if len(pos) != 1 {
		return exitUsage, usagef("want exactly one SNAPSHOT or STORE; usage: %s", inspectUsage)
	}
	native, err := storeOrSnapshot("inspect", *format, pos[0])
	if err != nil {
		return exitUsage, err
	}
	if native {
		return runInspectNative(ctx, pos[0], *format, nq, ef, cert, *plain, *keys)
	}
	if cert.set {
		return exitUsage, usagef("--smsr-m/k/n (--m/--k/--n) are for SMSR stores; memscope exposure shows a snapshot's certificate")
	}
	if nq.given() {
		return exitUsage, usagef("--queries and --query-embeddings are for native stores; a snapshot records its own queries")
	}
	if ef.log == "" {
		return exitUsage, usagef("--log is required; usage: %s", inspectUsage)
	}
	opts, err := tuiOptions(*plain, *keys)
	if err != nil {
		return exitUsage, err
	}
	src, err := openInspector(ctx, &ef, pos[0], *plain, backgroundWorkers())
	if err != nil {
		// On a terminal the error gets the inspector's error screen, with
		// what to do; piped, it is a plain message on stderr.
		if term.IsTerminal(os.Stdout.Fd()) {
			_ = onTerminal(func() error { return tui.RunError("memscope inspect", err, inspectHint, opts) })
		}
		return exitUsage, err
	}
	defer src.Close()
	defer interfaceP(src.EntryTotal())()
	if err := onTerminal(func() error { return tui.Run(src, opts) }); err != nil {
		return exitUsage, err
	}
	return exitOK, nil
}

// backgroundWorkers is how many Ps loading, verification's signature
// workers and replay use: the cores found (0, GOMAXPROCS, when the user
// set GOMAXPROCS), whether or not interfaceP adds one for the interface.
func backgroundWorkers() int {
	if os.Getenv("GOMAXPROCS") != "" {
		return 0
	}
	return runtime.GOMAXPROCS(0)
}

// spareInterfacePEntries: a store with more entries than this gets a P
// for the interface while it loads (interfaceP).
const spareInterfacePEntries = 4_000_000

// interfaceP keeps a P for the interface on a store of more than
// spareInterfacePEntries entries. There, loading, verification's
// signature workers and the collector's cycles over the rows can hold
// every P, and Bubble Tea's input loop and renderer then wait for one on
// each key (at 10M entries a median 31-48 ms a key, against 20-28 ms with
// a spare P: docs/performance-history.md, "Scrolling, whole program"). On
// a smaller store the keys did not wait (1M: 8.9-11.5 ms without it), and
// a third P on two cores only adds contention: the inspector took about
// 10 % more CPU and wall time to "verified" with it at 1M (four
// alternated runs, docs/performance-history.md). GOMAXPROCS grows by one
// and the background work keeps the old count (backgroundWorkers); the
// returned func restores it. A GOMAXPROCS the user set is left alone.
func interfaceP(entries int) (restore func()) {
	if os.Getenv("GOMAXPROCS") != "" || entries <= spareInterfacePEntries {
		return func() {}
	}
	n := runtime.GOMAXPROCS(0)
	runtime.GOMAXPROCS(n + 1)
	return func() { runtime.GOMAXPROCS(n) }
}

const inspectHint = "Check that SNAPSHOT is a memscope snapshot (docs/FORMAT.md), that --log names its tlog-tiles directory or URL, and that --log-key and --trust hold the keys you were given (a note verifier key; 64-hex-digit Ed25519 keys or a file of them). memscope inspect -h lists the flags."

func openInspector(ctx context.Context, ef *evidenceFlags, snapshot string, plain bool, workers int) (*tuisource.Source, error) {
	an, err := ef.resolveFor(snapshot, ef.log)
	if err != nil {
		return nil, err
	}
	return tuisource.New(ctx, assemble.Options{Snapshot: snapshot, Log: ef.log, LogKey: an.LogKey, TrustRoots: an.Roots, HMACKey: an.HMAC, LogOptions: an.Log, Workers: workers, AnchorSources: an.Sources}, plain)
}

func tuiOptions(plain bool, keysPath string) (tui.Options, error) {
	opts := tui.Options{Plain: plain}
	path := keysPath
	if path == "" {
		if p := tui.DefaultKeyMapPath(); p != "" {
			if _, err := os.Stat(p); err == nil {
				path = p
			}
		}
	}
	if path != "" {
		km, err := tui.LoadKeyMap(path)
		if err != nil {
			return opts, usagef("%v", err) // LoadKeyMap names the file
		}
		opts.Keys = &km
	}
	return opts, nil
}

// runDemoPicker opens the inspector's scenario picker over generated scenarios.
func runDemoPicker(ctx context.Context, dir string, mans []*evidence.Manifest, plain, present bool) error {
	opts, err := tuiOptions(plain, "")
	if err != nil {
		return err
	}
	opts.Present = present
	var list []tui.Scenario
	byName := map[string]*evidence.Manifest{}
	for _, m := range mans {
		list = append(list, tui.Scenario{Name: m.Name, Description: m.Description, Expect: m.Expect, Dir: filepath.Join(dir, m.Name)})
		byName[m.Name] = m
	}
	open := func(name string) (tui.Source, error) {
		m := byName[name]
		sdir := filepath.Join(dir, name)
		vo, err := verifyOptionsFor(sdir, m)
		if err != nil {
			return nil, err
		}
		return tuisource.New(ctx, assemble.Options{Snapshot: vo.Snapshot, Log: vo.Log, LogKey: vo.LogKey, TrustRoots: vo.TrustRoots, HMACKey: vo.HMACKey, Title: name}, plain)
	}
	return onTerminal(func() error { return tui.RunPicker(list, open, opts) })
}
