// Command memscope is a forensic inspector for the long-term memory of LLM
// agents: it verifies a memory store snapshot and its Merkle log, draws the
// lineage of memories, and replays the agent's graph selection on the full
// and the authenticated graph.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync/atomic"
	"time"

	"github.com/memscope/memscope/internal/present/sanitize"

	"k8s.io/klog/v2"
)

// exitUsage is the status for "memscope could not run" (bad usage,
// unreadable input); 1 is reserved for "ran and found errors".
const (
	exitOK       = 0
	exitFindings = 1
	exitUsage    = 2
	// exitInterrupted is the shell's status for a process ended by SIGINT.
	exitInterrupted = 130
)

// usageError marks errors that are the caller's to fix.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, a ...any) error { return usageError{fmt.Sprintf(format, a...)} }

type command struct {
	name, summary string
	run           func(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error)
}

var commands []command

func init() {
	commands = []command{
		{"inspect", "open the terminal inspector on a snapshot and its log", runInspect},
		{"verify", "check signatures, canonical encoding, log inclusion, checkpoints, tombstones, HMAC tags and gate events", runVerify},
		{"demo", "generate the seed scenarios (and inspect them)", runDemo},
		{"lineage", "derivation DAG, trust propagation at tau, laundering, gate audit; 'lineage sweep' for the tau x K table", runLineage},
		{"replay", "replay the agent's graph selection on G and G_auth; divergences, culprits, Lemma 1", runReplay},
		{"actions", "what each defence (none, IFC, MemLineage, AuthSelect, SMSR) says of every recorded action", runActions},
		{"timeline", "every event of a snapshot in log order (time where there is no log position)", runTimeline},
		{"diff", "compare two snapshots of one store: checkpoint consistency, rows added, removed and changed, selections then and now", runDiff},
		{"import", "turn CSV or JSONL graph exports into a snapshot and log", runImport},
		{"exposure", "selectors side by side, S_dom, S_adv by Monte Carlo over bounded no-source writes, harm vs writes, SMSR certificate", runExposure},
		{"certify", "SMSR's ablation certificate: delta for m, k, n, t and the smallest pool for a target", runCertify},
		{"help", "help on a command, a word the inspector shows (tau, IFC-BLIND...) or a finding code", runHelp},
		{"version", "print the version and build of memscope", runVersion},
		{"record", "MCP gateway that records an agent's memory reads, writes, sources and actions as signed evidence", runRecord},
		{"report", "write the incident report: one self-contained HTML file (and a JSON case file)", runReport},
		{"watch", "monitor logs continuously: checkpoints, witness quorum, consistency, new records, selection flips; one log or a fleet", runWatch},
		{"completion", "print a shell completion script: bash, zsh or fish", runCompletion},
	}
}

func mainUsage(w io.Writer) {
	fmt.Fprintln(w, "usage: memscope COMMAND [arguments]")
	fmt.Fprintln(w, "\ncommands:")
	for _, c := range commands {
		fmt.Fprintf(w, "  %-8s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "\nRun 'memscope help COMMAND' (or 'memscope COMMAND -h') for a command's flags,")
	fmt.Fprintln(w, "'memscope help TERM' for a word the inspector shows, 'memscope help CODE' for a finding code.")
}

func main() {
	// Tessera logs its lifecycle through klog; a forensic report on stdout
	// and clean errors on stderr matter more than its chatter.
	klog.LogToStderr(false)
	klog.SetOutput(io.Discard)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	finished := make(chan struct{})
	go interruptWatchdog(ctx, finished, os.Args[1:])
	stopProfiles := startProfiles()
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stopProfiles()
	close(finished)
	stop()
	os.Exit(code)
}

// interruptGrace is how long a command has, after Ctrl-C, to stop on its
// own before the watchdog ends the process. Every read and every long
// computation takes the context (replay's solves per sweep, the exposure
// draws, Leiden, EquiMem, the timeline questions), so a command normally
// stops well within it and says "interrupted" from run. The watchdog is
// the last resort for work the context does not reach (a single SQLite
// statement, a sort, the end of a large load): the responder never waits
// past one second, and its line says the stop was forced, so a test (and
// a reader) can tell the two apart (hostile/interrupt_test.go asserts the
// clean one). Evidence is only ever open read-only, and output files are
// written whole after the analysis, so ending here changes nothing.
const interruptGrace = 700 * time.Millisecond

// terminalUI is set while the inspector runs (see onTerminal).
var terminalUI atomic.Bool

// onTerminal runs a terminal UI with the watchdog held off.
func onTerminal(run func() error) error {
	terminalUI.Store(true)
	defer terminalUI.Store(false)
	return run()
}

func interruptWatchdog(ctx context.Context, finished <-chan struct{}, args []string) {
	select {
	case <-finished:
		return
	case <-ctx.Done():
	}
	timer := time.After(interruptGrace)
	for {
		select {
		case <-finished:
			return
		case <-timer:
		}
		if !terminalUI.Load() {
			break
		}
		// The inspector owns the terminal (raw mode, alternate screen):
		// it quits on the signal itself and restores the terminal first.
		timer = time.After(100 * time.Millisecond)
	}
	name := "memscope"
	if len(args) > 0 {
		name += " " + sanitize.Line(args[0])
	}
	fmt.Fprintf(os.Stderr, "\n%s: interrupted (stopped by force: it did not stop on its own within %v); the output above (if any) is incomplete, and no evidence was changed\n", name, interruptGrace)
	os.Exit(exitInterrupted)
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	// stderr carries errors and warnings that quote evidence (file names,
	// ids, tool names): every line is sanitised.
	errW := &termWriter{w: stderr}
	defer errW.Flush()
	stderr = errW
	clipColumns = isTerminal(stdout)
	if len(args) > 0 && !rawStdout[args[0]] {
		outW := &termWriter{w: stdout}
		defer outW.Flush()
		stdout = outW
	}
	if len(args) == 0 {
		mainUsage(stderr)
		return exitUsage
	}
	if args[0] == "-h" || args[0] == "--help" || args[0] == "-help" {
		mainUsage(stdout)
		return exitOK
	}
	if args[0] == "--version" {
		args[0] = "version"
	}
	for _, c := range commands {
		if c.name == args[0] {
			// Asked-for help goes to stdout with exit 0; only a mistake
			// gets usage on stderr.
			if wantsHelp(args[1:]) {
				c.run(ctx, []string{"-h"}, stdout, stdout)
				return exitOK
			}
			code, err := c.run(ctx, args[1:], stdout, stderr)
			if ctx.Err() != nil && (err != nil || code != exitOK) {
				// Ctrl-C: one clean line, not the context error of whichever
				// read was under way; whatever was printed is partial.
				fmt.Fprintf(stderr, "memscope %s: interrupted; the output above (if any) is incomplete, and no evidence was changed\n", c.name)
				return exitInterrupted
			}
			if err != nil {
				msg := sanitize.Line(err.Error())
				var ue usageError
				if errors.As(err, &ue) {
					msg = usageLines(msg)
				}
				// A package that names itself as the command does
				// ("report: ...", "record: ...") is not named twice.
				msg = strings.TrimPrefix(msg, c.name+": ")
				fmt.Fprintf(stderr, "memscope %s: %s\n", c.name, msg)
				if errors.As(err, &ue) || code == exitOK {
					return exitUsage
				}
			}
			return code
		}
	}
	fmt.Fprintf(stderr, "memscope: unknown command %q\n", args[0])
	mainUsage(stderr)
	return exitUsage
}

// wantsHelp reports a -h/--help flag before any "--".
func wantsHelp(args []string) bool {
	for _, a := range args {
		switch a {
		case "--":
			return false
		case "-h", "-help", "--help":
			return true
		}
	}
	return false
}
