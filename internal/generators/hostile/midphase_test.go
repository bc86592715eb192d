package hostile

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/memscope/memscope/internal/present/sanitize"
)

// TestInterruptMidPhase sends Ctrl-C while replay's and exposure's
// computation is under way, not before or after it: the command runs with
// MEMSCOPE_PHASES=1, which makes it say on stderr when each long
// computation starts and ends, and SIGINT follows the start line (at once,
// and a third of the way through the phase as an uninterrupted run takes
// it). The store is an import of a 10,000-node graph with no-source
// writes into passages, so every query runs a culprit search. Each run must end within interruptGrace of
// the signal with status 130, one clean "interrupted" line that is not the
// watchdog's forced one (the computation itself stopped), no end line for
// the phase (it was cut short), no raw control byte, and the evidence
// byte for byte as it was. Only with MEMSCOPE_HOSTILE=1 (.ci/run): the
// import takes seconds.
func TestInterruptMidPhase(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("signals: linux only")
	}
	if testing.Short() || os.Getenv("MEMSCOPE_HOSTILE") != "1" {
		t.Skip("imports a 40,000-write store: MEMSCOPE_HOSTILE=1 runs it")
	}
	bin := buildBinary(t)
	dir := t.TempDir()
	nodes, edges, queries := writeBigImport(t, dir)
	store := filepath.Join(dir, "store")
	imp := exec.Command(bin, "import", "--nodes", nodes, "--edges", edges, "--queries", queries, "--out", store)
	if out, err := imp.CombinedOutput(); err != nil {
		t.Fatalf("import: %v\n%s", err, clipOut(out))
	}
	s, l, anchors := filepath.Join(store, "snapshot.db"), filepath.Join(store, "log"), filepath.Join(store, "scenario.json")
	before := digest(t, store)
	cases := []struct {
		name, phase string
		args        []string
	}{
		{"replay", "replay", []string{"replay", s, "--log", l, "--anchors", anchors}},
		{"replay --json", "replay", []string{"replay", s, "--log", l, "--anchors", anchors, "--json"}},
		{"exposure", "exposure", []string{"exposure", s, "--log", l, "--anchors", anchors}},
	}
	for _, c := range cases {
		// "In" is a third of the way through the phase as an
		// uninterrupted run takes it: replay's culprit search got fast
		// enough that a fixed 300 ms fell after the phase's end.
		in := phaseLength(t, bin, store, c.phase, c.args) / 3
		for _, delay := range []time.Duration{0, in} {
			what := c.name + ", SIGINT " + delay.String() + " into its " + c.phase + " phase"
			r := interruptInPhase(t, bin, store, c.phase, delay, c.args)
			if r.took > interruptGrace {
				// One retry: a scheduling stall on the shared machine can
				// delay one exit; a computation that ignores the signal is
				// slow both times.
				t.Logf("%s: %v after SIGINT; once more", what, r.took)
				r = interruptInPhase(t, bin, store, c.phase, delay, c.args)
			}
			t.Logf("%s: exit %d, %v after SIGINT", what, r.code, r.took.Round(time.Millisecond))
			ended := "phase " + c.phase + " ended"
			switch {
			case bytes.Contains(r.stderr, []byte(ended)):
				t.Errorf("%s: the phase ended before the signal; the store is too small to test this\nstderr: %s", what, clipOut(r.stderr))
				continue
			case r.took > interruptGrace:
				t.Errorf("%s: ended %v after SIGINT (limit %v)", what, r.took, interruptGrace)
			}
			if r.code != 130 {
				t.Errorf("%s: exit %d, want 130\nstderr: %s", what, r.code, clipOut(r.stderr))
			}
			if n := bytes.Count(r.stderr, []byte("interrupted")); n != 1 || bytes.Contains(r.stderr, []byte("context canceled")) {
				t.Errorf("%s: stderr is not one clean interrupted line:\n%s", what, clipOut(r.stderr))
			}
			if bytes.Contains(r.stderr, []byte("stopped by force")) {
				t.Errorf("%s: the watchdog ended the process; the computation did not stop on its own:\n%s", what, clipOut(r.stderr))
			}
			for _, bad := range []string{"panic:", "fatal error:", "goroutine "} {
				if bytes.Contains(r.stderr, []byte(bad)) {
					t.Errorf("%s: %s on stderr", what, bad)
				}
			}
			if line, ok := rawControl(r.stdout); ok {
				t.Errorf("%s: raw control on stdout: %s", what, line)
			}
		}
	}
	checkUnchanged(t, store, before)
}

// phaseCommand is bin with args in dir, saying on stderr when each long
// computation starts and ends.
func phaseCommand(bin, dir string, args []string) *exec.Cmd {
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "TERM=dumb", "MEMSCOPE_PHASES=1")
	return cmd
}

// phaseLength runs bin to the end with phase lines on and returns how
// long the named phase took by its own end line; a phase too short to
// land a signal inside it fails the test.
func phaseLength(t *testing.T, bin, dir, phase string, args []string) time.Duration {
	t.Helper()
	cmd := phaseCommand(bin, dir, args)
	var se bytes.Buffer
	cmd.Stderr = &se
	if err := cmd.Run(); err != nil {
		if _, ok := err.(*exec.ExitError); !ok {
			t.Fatalf("%s: %v", phase, err)
		}
	}
	_, after, ok := strings.Cut(se.String(), "phase "+phase+" ended after ")
	if !ok {
		t.Fatalf("%s: no end line for the phase\nstderr: %s", phase, clipOut(se.Bytes()))
	}
	d, err := time.ParseDuration(strings.Fields(after)[0])
	if err != nil {
		t.Fatalf("%s: end line: %v", phase, err)
	}
	if d < 30*time.Millisecond {
		t.Fatalf("%s phase took %v uninterrupted: too short to interrupt inside it; the store is too small", phase, d)
	}
	return d
}

// interruptInPhase runs bin with phase lines on, sends SIGINT delay after
// the line saying the named phase started, and measures how long the
// process takes to end after the signal.
func interruptInPhase(t *testing.T, bin, dir, phase string, delay time.Duration, args []string) result {
	t.Helper()
	cmd := phaseCommand(bin, dir, args)
	var so bytes.Buffer
	cmd.Stdout = &so
	pipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var se bytes.Buffer
	started := make(chan struct{})
	read := make(chan struct{})
	go func() {
		defer close(read)
		sc := bufio.NewScanner(pipe)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		once := sync.Once{}
		for sc.Scan() {
			mu.Lock()
			se.Write(sc.Bytes())
			se.WriteByte('\n')
			mu.Unlock()
			if strings.Contains(sc.Text(), "phase "+phase+" started") {
				once.Do(func() { close(started) })
			}
		}
	}()
	done := make(chan error, 1)
	go func() {
		<-read // every stderr byte is read before Wait closes the pipe
		done <- cmd.Wait()
	}()
	var r result
	finish := func(err error) result {
		mu.Lock()
		r.stdout, r.stderr = so.Bytes(), append([]byte(nil), se.Bytes()...)
		mu.Unlock()
		if ee, ok := err.(*exec.ExitError); ok {
			r.code = ee.ExitCode()
		}
		return r
	}
	select {
	case err := <-done:
		r = finish(err)
		t.Fatalf("memscope %s: ended (exit %d) without starting its %s phase\nstderr: %s", sanitize.Line(args[0]), r.code, phase, clipOut(r.stderr))
	case <-started:
	case <-time.After(cmdTimeout):
		cmd.Process.Kill()
		<-done
		t.Fatalf("memscope %s: no %s phase within %v", sanitize.Line(args[0]), phase, cmdTimeout)
	}
	time.Sleep(delay)
	sent := time.Now()
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		return finish(<-done)
	}
	select {
	case err := <-done:
		r.took = time.Since(sent)
		return finish(err)
	case <-time.After(cmdTimeout):
		cmd.Process.Kill()
		<-done
		t.Fatalf("memscope %s: still running %v after SIGINT", sanitize.Line(strings.Join(args, " ")), cmdTimeout)
	}
	return r
}
