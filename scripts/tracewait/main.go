// Command tracewait reads a Go execution trace (MEMSCOPE_TRACE=FILE
// memscope inspect ...) and says, per kind of goroutine, how long its
// goroutines waited runnable for a P after each wake-up, and how long they
// ran: the inspector's interface goroutines (Bubble Tea's event loop, its
// renderer ticker and its two input goroutines) against the background
// load, verification and the collector. With -long MS it also lists every
// state an interface goroutine stayed in for more than MS milliseconds,
// with the stack it entered that state from (a mark assist, a mutex).
//
// It is its own module (golang.org/x/exp/trace is not a dependency of
// memscope):
//
//	cd scripts/tracewait && go run . -long 50 /tmp/inspect.trace
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"golang.org/x/exp/trace"
)

// classes name goroutines by the first frame, nearest the leaf, that
// matches; the first stack seen of a goroutine is its creation stack.
var classes = []struct{ name, sub string }{
	{"ui: event loop", "bubbletea/v2.(*Program).eventLoop"},
	{"ui: renderer ticker", "bubbletea/v2.(*Program).startRenderer"},
	{"ui: input read", "(*TerminalReader).sendBytes"},
	{"ui: input read", "(*TerminalReader).StreamEvents.func1"},
	{"ui: input loop", "(*TerminalReader).StreamEvents"},
	{"ui: input loop", "bubbletea/v2.(*Program).readLoop"},
	{"load", "(*Session).load"},
	{"verify", "memscope/verify."},
	{"gc", "runtime.gcBgMarkWorker"},
}

type gstate struct {
	class     string
	readyAt   trace.Time
	runAt     trace.Time
	running   bool
	runnable  bool
	waits     []float64
	runTotal  float64
	lastT     trace.Time
	lastStack trace.Stack
}

func classify(s trace.Stack) string {
	for f := range s.Frames() {
		for _, c := range classes {
			if strings.Contains(f.Func, c.sub) {
				return c.name
			}
		}
	}
	return ""
}

func main() {
	long := flag.Float64("long", 0, "list interface goroutine states longer than this many ms")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: tracewait [-long MS] TRACE")
		os.Exit(2)
	}
	f, err := os.Open(flag.Arg(0))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer f.Close()
	r, err := trace.NewReader(f)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	gs, first, last := readStates(r, *long)
	summarise(gs, first, last)
}

// readStates follows every goroutine's state transitions through the
// trace, printing the interface goroutines' states longer than long ms as
// it goes, and returns each goroutine's totals with the trace's span.
func readStates(r *trace.Reader, long float64) (gs map[trace.GoID]*gstate, first, last trace.Time) {
	gs = map[trace.GoID]*gstate{}
	for {
		ev, err := r.ReadEvent()
		if err == io.EOF {
			break
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "trace:", err)
			break
		}
		if first == 0 {
			first = ev.Time()
		}
		last = ev.Time()
		if ev.Kind() != trace.EventStateTransition {
			continue
		}
		st := ev.StateTransition()
		if st.Resource.Kind != trace.ResourceGoroutine {
			continue
		}
		id := st.Resource.Goroutine()
		g := gs[id]
		if g == nil {
			g = &gstate{}
			gs[id] = g
		}
		if g.class == "" {
			g.class = classify(st.Stack)
		}
		from, to := st.Goroutine()
		t := ev.Time()
		if long > 0 && strings.HasPrefix(g.class, "ui") {
			if g.lastT != 0 && float64(t-g.lastT)/1e6 > long {
				fmt.Printf("%8.3fs %-20s %-9s %7.1f ms -> %s;", float64(g.lastT-first)/1e9, g.class, from, float64(t-g.lastT)/1e6, to)
				n := 0
				for fr := range g.lastStack.Frames() {
					if n < 5 {
						fmt.Printf(" %s", fr.Func)
					}
					n++
				}
				fmt.Println()
			}
			g.lastT, g.lastStack = t, st.Stack
		}
		if to == trace.GoRunnable && from != trace.GoRunnable {
			g.readyAt, g.runnable = t, true
		}
		if to == trace.GoRunning {
			if g.runnable && from == trace.GoRunnable {
				g.waits = append(g.waits, float64(t-g.readyAt)/1e6)
			}
			g.runnable = false
			g.running, g.runAt = true, t
		}
		if from == trace.GoRunning && to != trace.GoRunning {
			if g.running {
				g.runTotal += float64(t-g.runAt) / 1e6
			}
			g.running = false
		}
	}
	return gs, first, last
}

// summarise prints, per kind of goroutine, how often its goroutines woke,
// how long they waited for a P and how long they ran.
func summarise(gs map[trace.GoID]*gstate, first, last trace.Time) {
	type agg struct {
		waits []float64
		run   float64
		n     int
	}
	by := map[string]*agg{}
	for _, g := range gs {
		c := g.class
		if c == "" {
			c = "other"
		}
		a := by[c]
		if a == nil {
			a = &agg{}
			by[c] = a
		}
		a.waits = append(a.waits, g.waits...)
		a.run += g.runTotal
		a.n++
	}
	fmt.Printf("trace span %.1f s\n", float64(last-first)/1e9)
	names := make([]string, 0, len(by))
	for k := range by {
		names = append(names, k)
	}
	sort.Strings(names)
	fmt.Printf("%-20s %6s %7s %10s %10s %10s %10s %9s\n", "goroutines", "count", "wakes", "wait med", "wait p90", "wait max", "wait mean", "ran s")
	for _, k := range names {
		a := by[k]
		w := a.waits
		sort.Float64s(w)
		q := func(p float64) float64 {
			if len(w) == 0 {
				return 0
			}
			return w[int(p*float64(len(w)-1))]
		}
		sum := 0.0
		for _, x := range w {
			sum += x
		}
		mean := 0.0
		if len(w) > 0 {
			mean = sum / float64(len(w))
		}
		fmt.Printf("%-20s %6d %7d %7.2f ms %7.2f ms %7.2f ms %7.2f ms %9.2f\n", k, a.n, len(w), q(0.5), q(0.9), q(1), mean, a.run/1000)
	}
}
