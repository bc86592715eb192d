package recorder_test

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/memscope/memscope/evidence/record"
	"github.com/memscope/memscope/internal/recorder"
)

// TestMeasureRecord is the measurement behind docs/PERFORMANCE.md's
// memscope record rows; it runs only with MEMSCOPE_RECORD_PERF=1 and
// asserts nothing about time (figures are logged, as ratios and
// differences inside one run):
//
//	MEMSCOPE_RECORD_PERF=1 go test ./internal/recorder -run TestMeasureRecord -v -timeout 40m
//
// Every figure is taken for both acknowledgement modes (--ack sequenced,
// the default, and --ack integrated). MEMSCOPE_RECORD_CALLS sets the calls
// of the sustained run with --ack sequenced (default 100000; the
// integrated run makes a fifth of them); MEMSCOPE_RECORD_GATEWAY_PROFILE=DIR
// writes the gateway's CPU profile of each sustained run there;
// MEMSCOPE_RECORD_SUSTAINED_ONLY=1 skips the latency runs and
// MEMSCOPE_RECORD_LATENCY_ONLY=1 the sustained runs;
// MEMSCOPE_RECORD_SESSIONS and MEMSCOPE_RECORD_ACK run one session count
// and one mode; MEMSCOPE_RECORD_MODE=listen (the figure: memscope record
// --listen, its own process) or inprocess (the commit breakdown) runs one
// of the two gateways; MEMSCOPE_RECORD_LATENCY_BLOCKS sets the latency runs' blocks each way
// (default 6, of 50 calls per session); MEMSCOPE_RECORD_THINK (a Go
// duration, default none) pauses each session before each timed call.
// A setting that is not one of these values stops the run before it
// measures anything.
func TestMeasureRecord(t *testing.T) {
	if os.Getenv("MEMSCOPE_RECORD_PERF") != "1" {
		t.Skip("measurement: set MEMSCOPE_RECORD_PERF=1")
	}
	think := thinkTime(t)
	sessionCounts := []int{1, 8}
	if n := envCount(t, "MEMSCOPE_RECORD_SESSIONS", 0); n > 0 {
		sessionCounts = []int{n}
	}
	acks := []recorder.Ack{recorder.AckSequenced, recorder.AckIntegrated}
	switch a := os.Getenv("MEMSCOPE_RECORD_ACK"); a {
	case "":
	case string(recorder.AckSequenced), string(recorder.AckIntegrated):
		acks = []recorder.Ack{recorder.Ack(a)}
	default:
		t.Fatalf("MEMSCOPE_RECORD_ACK=%q: want %s or %s", a, recorder.AckSequenced, recorder.AckIntegrated)
	}
	if os.Getenv("MEMSCOPE_RECORD_SUSTAINED_ONLY") == "1" {
		sessionCounts = nil
	}
	blocks := envCount(t, "MEMSCOPE_RECORD_LATENCY_BLOCKS", 6)
	mode := os.Getenv("MEMSCOPE_RECORD_MODE")
	if mode != "" && mode != "listen" && mode != "inprocess" {
		t.Fatalf("MEMSCOPE_RECORD_MODE=%q: want listen or inprocess", mode)
	}
	calls := envCount(t, "MEMSCOPE_RECORD_CALLS", 100000)
	// Every setting is read above, so a typo stops the run before it
	// measures anything.
	memscope, _, _ := bins(t)
	notes := filepath.Join(filepath.Dir(memscope), "notes")
	sync := fsyncFloor(t, t.TempDir())
	t.Logf("fsync floor: one 4 KiB write+fsync on this disk: median %v p90 %v p99 %v", q(sync, 0.5), q(sync, 0.9), q(sync, 0.99))
	for _, ack := range []recorder.Ack{recorder.AckSequenced, recorder.AckIntegrated} {
		d := commitFloor(t, ack)
		t.Logf("durable commit floor, --ack %s: one-entry Recorder.Do: median %v p90 %v p99 %v", ack, q(d, 0.5), q(d, 0.9), q(d, 0.99))
	}
	for _, sessions := range sessionCounts {
		for _, ack := range acks {
			if mode == "" || mode == "listen" {
				// The figure: the gateway as deployed, its own process.
				side := processGateway(t, memscope, notes, ack, sessions)
				lr := latency(t, side, notes, blocks, 50, think)
				side.close()
				t.Logf("--ack %s, %d session(s)%s, memscope record --listen: direct median %v p99 %v; gateway median %v p99 %v; added median %v p99 %v; CPU per call direct %v (clients), gateway %v (clients and the gateway process: added %v); the machine direct %v, gateway %v; load average %s",
					ack, sessions, thinkNote(think), q(lr.direct, 0.5), q(lr.direct, 0.99), q(lr.gw, 0.5), q(lr.gw, 0.99), q(lr.gw, 0.5)-q(lr.direct, 0.5), q(lr.gw, 0.99)-q(lr.direct, 0.99),
					lr.directCPU, lr.gwCPU, lr.gwCPU-lr.directCPU, lr.directMachine, lr.gwMachine, lr.load)
			}
			if mode != "" && mode != "inprocess" {
				continue
			}
			// The breakdown: the gateway in this process, whose commits
			// and syncs can be timed (its garbage shares the clients' heap).
			side := inProcessGateway(t, notes, ack, sessions)
			lr := latency(t, side, notes, blocks, 50, think)
			side.close()
			t.Logf("--ack %s, %d session(s)%s, in-process gateway: direct median %v p99 %v; gateway median %v p99 %v; added median %v p99 %v; test-process CPU per call direct %v, gateway %v (added %v: the in-process gateway); load average %s; the gateway's snapshot commits (WAL append + sync) meanwhile: %d for %d calls, median %v p90 %v p99 %v; their WAL syncs (fdatasync) alone: median %v p90 %v p99 %v",
				ack, sessions, thinkNote(think), q(lr.direct, 0.5), q(lr.direct, 0.99), q(lr.gw, 0.5), q(lr.gw, 0.99), q(lr.gw, 0.5)-q(lr.direct, 0.5), q(lr.gw, 0.99)-q(lr.direct, 0.99),
				lr.directCPU, lr.gwCPU, lr.gwCPU-lr.directCPU, lr.load, len(lr.commits), lr.commitJobs, q(lr.commits, 0.5), q(lr.commits, 0.9), q(lr.commits, 0.99), q(lr.syncs, 0.5), q(lr.syncs, 0.9), q(lr.syncs, 0.99))
		}
	}
	if os.Getenv("MEMSCOPE_RECORD_LATENCY_ONLY") == "1" {
		return
	}
	for _, ack := range acks {
		n := calls
		if ack == recorder.AckIntegrated {
			n = max(1000, calls/5)
		}
		rep := sustained(t, memscope, notes, ack, n)
		t.Logf("sustained, --ack %s: %d recorded writes in one session with %d calls in flight: %.0f writes/s over %v wall; CPU per call: gateway %v, gateway and its upstream %v, client %v; gateway RSS %s",
			ack, n, inFlight, rep.rate, rep.wall, rep.gateway/time.Duration(n), rep.withUpstream/time.Duration(n), rep.client/time.Duration(n), rep.rss)
	}
}

func q(d []time.Duration, p float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[min(len(s)-1, int(p*float64(len(s))))]
}

func fsyncFloor(t *testing.T, dir string) []time.Duration {
	f, err := os.Create(filepath.Join(dir, "sync"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 4096)
	var d []time.Duration
	for i := 0; i < 500; i++ {
		start := time.Now()
		if _, err := f.WriteAt(buf, int64(i)*4096); err != nil {
			t.Fatal(err)
		}
		if err := f.Sync(); err != nil {
			t.Fatal(err)
		}
		d = append(d, time.Since(start))
	}
	return d
}

func commitFloor(t *testing.T, ack recorder.Ack) []time.Duration {
	ctx := context.Background()
	rec, _ := openRecorderAck(t, ack)
	defer rec.Close(ctx)
	var d []time.Duration
	for i := 0; i < 200; i++ {
		start := time.Now()
		err := rec.Do(ctx, func(tx *recorder.Tx) error {
			_, err := tx.Entry(recorder.EntryIn{Writer: recorder.DefaultAgent, Content: "x" + strconv.Itoa(i), Trust: record.Trusted})
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		d = append(d, time.Since(start))
	}
	return d
}

func notesConfig(notes string) *recorder.Config {
	return &recorder.Config{Servers: []recorder.ServerConfig{{Name: "notes", Command: []string{notes}, Role: recorder.RoleMemory,
		Mapping: &recorder.Mapping{Writes: []recorder.WriteTool{{Tool: "remember", Content: "text", ID: "id"}}}}}}
}

// writeNotesConfig writes notesConfig's JSON form into dir.
func writeNotesConfig(t *testing.T, dir, notes string) string {
	cfg := filepath.Join(dir, "notes.json")
	if err := os.WriteFile(cfg, []byte(fmt.Sprintf(`{"servers":[{"name":"notes","command":[%q],"role":"memory","mapping":{"writes":[{"tool":"remember","content":"text","id":"id"}]}}]}`, notes)), 0o644); err != nil {
		t.Fatal(err)
	}
	return cfg
}

// latencyReport is what one latency run measured: each call's wall time
// each way, the CPU time per call each way (this process's clients, plus
// on the gateway side the gateway: in this process, or its own process's
// CPU time; the upstreams are other processes either way) and the load
// average before and after.
type latencyReport struct {
	direct, gw       []time.Duration
	directCPU, gwCPU time.Duration
	load             string
	// In-process only: the recorder's snapshot commits during the gateway
	// blocks (from the commit's start to its WAL sync's return), their
	// syncs alone, and the calls they committed.
	commits, syncs []time.Duration
	commitJobs     int
	// The whole machine during each side's blocks (/proc/stat): CPU
	// busy per call (every process: clients, gateway, upstreams, the
	// kernel), the share of CPU time idle, and the share stolen by the
	// hypervisor.
	directMachine, gwMachine machineShare
}

// machineShare is the machine's CPU time over some blocks of calls.
type machineShare struct {
	busy, idle, steal time.Duration
	calls             int
}

func (m machineShare) String() string {
	total := m.busy + m.idle + m.steal
	if m.calls == 0 || total == 0 {
		return "?"
	}
	return fmt.Sprintf("%v busy a call, %.0f%% idle, %.1f%% stolen", (m.busy / time.Duration(m.calls)).Round(time.Microsecond),
		100*float64(m.idle)/float64(total), 100*float64(m.steal)/float64(total))
}

// machineCPU reads /proc/stat's cpu line: busy (user, nice, system, irq,
// softirq), idle (idle, iowait) and steal, in clock ticks of 10 ms.
func machineCPU() (busy, idle, steal time.Duration) {
	b, _ := os.ReadFile("/proc/stat")
	line, _, _ := strings.Cut(string(b), "\n")
	f := strings.Fields(line)
	if len(f) < 9 || f[0] != "cpu" {
		return 0, 0, 0
	}
	n := func(i int) time.Duration {
		v, _ := strconv.ParseInt(f[i], 10, 64)
		return time.Duration(v) * 10 * time.Millisecond
	}
	return n(1) + n(2) + n(3) + n(6) + n(7), n(4) + n(5), n(8)
}

// add counts the machine's CPU time since (b0, i0, s0) against calls.
func (m *machineShare) add(b0, i0, s0 time.Duration, calls int) {
	b1, i1, s1 := machineCPU()
	m.busy, m.idle, m.steal, m.calls = m.busy+b1-b0, m.idle+i1-i0, m.steal+s1-s0, m.calls+calls
}

// loadAvg is /proc/loadavg's one-minute figure.
func loadAvg() string {
	b, _ := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(b)); len(f) > 0 {
		return f[0]
	}
	return "?"
}

// gatewaySide is the gateway a latency run measures: the agent sessions
// connected to it and, in process mode, its process (whose CPU time is
// read) or, in-process, its recorder (whose commit times are read).
type gatewaySide struct {
	sessions []*mcp.ClientSession
	pid      int
	rec      *recorder.Recorder
	close    func()
}

// inProcessGateway runs the gateway in this process (sessions sharing
// one recorder and one upstream), so the recorder's commit times can be
// read; its allocations share this process's heap with the clients'.
func inProcessGateway(t *testing.T, notes string, ack recorder.Ack, sessions int) *gatewaySide {
	ctx := context.Background()
	rec, _ := openRecorderAck(t, ack)
	g, err := recorder.NewGateway(ctx, rec, notesConfig(notes), recorder.DefaultAgent)
	if err != nil {
		t.Fatal(err)
	}
	side := &gatewaySide{rec: rec}
	for i := 0; i < sessions; i++ {
		cr, sw := io.Pipe()
		sr, cw := io.Pipe()
		go g.Serve(ctx, sr, sw)
		side.sessions = append(side.sessions, connectIO(t, cr, cw))
	}
	side.close = func() {
		closeAll(side.sessions)
		g.Close()
		rec.Close(ctx)
	}
	return side
}

// processGateway runs the gateway as a user deploys it for several
// agents: one memscope record process serving every session on a Unix
// socket (--listen), all sharing its recorder and one upstream.
func processGateway(t *testing.T, memscope, notes string, ack recorder.Ack, sessions int) *gatewaySide {
	dir := filepath.Join(t.TempDir(), "store")
	if out, err := exec.Command(memscope, "record", "init", dir).CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	sock := filepath.Join(filepath.Dir(dir), "gw.sock")
	cmd := exec.Command(memscope, "record", "--store", dir, "--config", writeNotesConfig(t, filepath.Dir(dir), notes), "--ack", string(ack), "--listen", sock)
	cmd.Stderr = os.Stderr
	if pd := os.Getenv("MEMSCOPE_RECORD_GATEWAY_PROFILE"); pd != "" {
		cmd.Env = append(os.Environ(), "MEMSCOPE_CPUPROFILE="+filepath.Join(pd, fmt.Sprintf("gateway-listen-%s-%d.pprof", ack, sessions)))
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	side := &gatewaySide{pid: cmd.Process.Pid}
	side.close = func() {
		closeAll(side.sessions)
		cmd.Process.Signal(syscall.SIGINT)
		cmd.Wait()
	}
	waitForSocket(t, sock)
	for i := 0; i < sessions; i++ {
		c, err := net.Dial("unix", sock)
		if err != nil {
			side.close()
			t.Fatal(err)
		}
		side.sessions = append(side.sessions, connectIO(t, c, c))
	}
	return side
}

func connectIO(t *testing.T, r io.ReadCloser, w io.WriteCloser) *mcp.ClientSession {
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(context.Background(), &mcp.IOTransport{Reader: r, Writer: w}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

func closeAll(css []*mcp.ClientSession) {
	for _, cs := range css {
		cs.Close()
	}
}

// latency times remember calls, direct to the notes server (one process
// per session) and through the gateway, alternating blocks so both see
// the same machine.
func latency(t *testing.T, side *gatewaySide, notes string, blocks, perBlock int, think time.Duration) latencyReport {
	var direct, gw []time.Duration
	var directCPU, gwCPU time.Duration
	load := loadAvg()
	ctx := context.Background()
	var viaDirect []*mcp.ClientSession
	for range side.sessions {
		d, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: exec.Command(notes)}, nil)
		if err != nil {
			t.Fatal(err)
		}
		viaDirect = append(viaDirect, d)
	}
	defer closeAll(viaDirect)
	cpu := func() time.Duration {
		if side.pid != 0 {
			return selfCPU() + cpuOf(side.pid)
		}
		return selfCPU()
	}
	var commits, syncs []time.Duration
	commitJobs := 0
	var directMachine, gwMachine machineShare
	for b := 0; b < blocks; b++ {
		// A pause before each block, longer than the recorder's idle
		// work (its WAL fold after 150 ms idle, a log integration), so
		// what one side's block left to do is done before the next
		// block, not charged to it.
		time.Sleep(blockPause)
		c0 := cpu()
		b0, i0, s0 := machineCPU()
		timeCalls(t, viaDirect, perBlock, think, &direct)
		directMachine.add(b0, i0, s0, perBlock*len(viaDirect))
		time.Sleep(blockPause)
		c1 := cpu()
		if side.rec != nil {
			side.rec.CommitTimes() // what the direct block's pause committed is not this block's
		}
		b0, i0, s0 = machineCPU()
		timeCalls(t, side.sessions, perBlock, think, &gw)
		gwMachine.add(b0, i0, s0, perBlock*len(side.sessions))
		directCPU += c1 - c0
		gwCPU += cpu() - c1
		if side.rec != nil {
			ct, st, jobs := side.rec.CommitTimes()
			if want := len(side.sessions) * perBlock; jobs != want {
				t.Errorf("block %d: %d calls committed through the gateway, want %d", b, jobs, want)
			}
			commits, syncs, commitJobs = append(commits, ct...), append(syncs, st...), commitJobs+jobs
		}
	}
	return latencyReport{direct: direct, gw: gw, directCPU: directCPU / time.Duration(max(1, len(direct))), gwCPU: gwCPU / time.Duration(max(1, len(gw))),
		load: load + " before, " + loadAvg() + " after", commits: commits, syncs: syncs, commitJobs: commitJobs, directMachine: directMachine, gwMachine: gwMachine}
}

// blockPause separates the latency run's blocks.
const blockPause = 400 * time.Millisecond

// thinkTime is the pause before each timed call (MEMSCOPE_RECORD_THINK, a
// Go duration; default none). With none, the sessions are a closed loop
// that keeps every call in flight on the two cores the clients, the
// upstream and the gateway share: a saturation figure. A real agent waits
// for its model between tool calls (seconds), so a few milliseconds of
// think time give the added latency of concurrent sessions that do not
// saturate the machine. Direct and gateway blocks pause alike. A value
// that is not a duration stops the measurement rather than quietly
// running a closed loop.
func thinkTime(t *testing.T) time.Duration {
	v := os.Getenv("MEMSCOPE_RECORD_THINK")
	if v == "" {
		return 0
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 {
		t.Fatalf("MEMSCOPE_RECORD_THINK=%q: want a duration such as 5ms", v)
	}
	return d
}

// thinkNote says in each latency line which of the two loads it measured.
func thinkNote(think time.Duration) string {
	if think == 0 {
		return " (closed loop, no think time)"
	}
	return fmt.Sprintf(" (think time %v +- %v before each call)", think, think/2)
}

// timeCalls makes perBlock remember calls on each session at once, each
// after a pause around think, and appends each call's wall time to out.
func timeCalls(t *testing.T, css []*mcp.ClientSession, perBlock int, think time.Duration, out *[]time.Duration) {
	ctx := context.Background()
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, cs := range css {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < perBlock; i++ {
				if think > 0 {
					// Uniform in [think/2, 3*think/2): sessions drift apart as
					// agents waiting on their models do.
					time.Sleep(think/2 + rand.N(think))
				}
				start := time.Now()
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "remember", Arguments: map[string]any{"text": "note " + strconv.Itoa(i)}})
				if err == nil && res.IsError {
					err = fmt.Errorf("remember: a tool error, not recorded: %v", res.Content)
				}
				if err != nil {
					t.Error(err)
					return
				}
				el := time.Since(start)
				mu.Lock()
				*out = append(*out, el)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
}

// inFlight is how many calls the sustained run keeps in flight.
const inFlight = 64

// sustainedReport is what one sustained run measured.
type sustainedReport struct {
	rate float64
	wall time.Duration
	// CPU time (user+system): the gateway while it ran; the gateway with
	// the upstream it started and waited for (from wait4's rusage); this
	// test process, the client.
	gateway, withUpstream, client time.Duration
	rss                           string
}

// sustained drives the memscope binary (one stdio session, inFlight calls
// in flight) through calls recorded writes, takes its resident memory at
// 1k, 10k and 100k calls (and every 2 s), and its CPU time.
func sustained(t *testing.T, memscope, notes string, ack recorder.Ack, calls int) sustainedReport {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "store")
	if out, err := exec.Command(memscope, "record", "init", dir).CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	cmd := exec.Command(memscope, "record", "--store", dir, "--config", writeNotesConfig(t, filepath.Dir(dir), notes), "--ack", string(ack))
	if pd := os.Getenv("MEMSCOPE_RECORD_GATEWAY_PROFILE"); pd != "" {
		cmd.Env = append(os.Environ(), "MEMSCOPE_CPUPROFILE="+filepath.Join(pd, "gateway-"+string(ack)+".pprof"))
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var next atomic.Int64
	var mu sync.Mutex
	var samples, marks []string
	stop := make(chan struct{})
	go func() {
		tick := time.NewTicker(2 * time.Second)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				r := rssOf(cmd.Process.Pid)
				mu.Lock()
				samples = append(samples, fmt.Sprintf("%d:%dMiB", next.Load(), r>>20))
				mu.Unlock()
			}
		}
	}()
	start, clientStart := time.Now(), selfCPU()
	var wg sync.WaitGroup
	for w := 0; w < inFlight; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := next.Add(1)
				if i > int64(calls) {
					return
				}
				if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "remember", Arguments: map[string]any{"text": "sustained note " + strconv.FormatInt(i, 10)}}); err != nil {
					t.Error(err)
					return
				}
				if i == 1000 || i == 10000 || i == 100000 || i == int64(calls) {
					r := rssOf(cmd.Process.Pid)
					mu.Lock()
					marks = append(marks, fmt.Sprintf("%d calls: %.1f MiB", i, float64(r)/(1<<20)))
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	el := time.Since(start)
	close(stop)
	client := selfCPU() - clientStart
	cpu := cpuOf(cmd.Process.Pid)
	final := rssOf(cmd.Process.Pid)
	cs.Close()
	var withUpstream time.Duration
	if ps := cmd.ProcessState; ps != nil {
		withUpstream = ps.UserTime() + ps.SystemTime()
	}
	mu.Lock()
	defer mu.Unlock()
	sort.Strings(marks)
	return sustainedReport{rate: float64(calls) / el.Seconds(), wall: el, gateway: cpu, withUpstream: withUpstream, client: client,
		rss: fmt.Sprintf("%s; final %d MiB; samples %s", strings.Join(marks, ", "), final>>20, strings.Join(samples, " "))}
}

// selfCPU is this process's user+system CPU time.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// cpuOf is a live process's user+system CPU time (/proc/PID/stat fields
// 14 and 15, in clock ticks of 1/100 s on Linux).
func cpuOf(pid int) time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// The command name (field 2) may hold spaces: count from its ')'.
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	if len(f) < 13 {
		return 0
	}
	u, _ := strconv.ParseInt(f[11], 10, 64)
	s, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(u+s) * 10 * time.Millisecond
}

func rssOf(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10
		}
	}
	return 0
}

// TestMeasureVerifyRecorded compares memscope verify's CPU time per record
// on a recorded store (MEMSCOPE_RECORD_VERIFY_CALLS remember-shaped writes
// through the recorder: an entry, its passage node) with a generated one
// (memscope demo --scenario clean --entries N), in the same run:
//
//	MEMSCOPE_RECORD_PERF=1 go test ./internal/recorder -run TestMeasureVerifyRecorded -v
func TestMeasureVerifyRecorded(t *testing.T) {
	if os.Getenv("MEMSCOPE_RECORD_PERF") != "1" {
		t.Skip("measurement: set MEMSCOPE_RECORD_PERF=1")
	}
	memscope, _, _ := bins(t)
	n := envCount(t, "MEMSCOPE_RECORD_VERIFY_CALLS", 20000)
	ctx := context.Background()
	rec, dir := openRecorder(t)
	var wg sync.WaitGroup
	for w := 0; w < 64; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < n; i += 64 {
				err := rec.Do(ctx, func(tx *recorder.Tx) error {
					id, err := tx.Entry(recorder.EntryIn{Writer: recorder.DefaultAgent, Content: "note " + strconv.Itoa(i), Trust: record.Trusted, Session: "bench"})
					if err != nil {
						return err
					}
					return tx.Node("passage:"+id.String(), "passage", "note "+strconv.Itoa(i), &id, recorder.DefaultAgent)
				})
				if err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if err := rec.Close(ctx); err != nil {
		t.Fatal(err)
	}
	gen := filepath.Join(t.TempDir(), "gen")
	if out, err := exec.Command(memscope, "demo", "--out", gen, "--scenario", "clean", "--entries", strconv.Itoa(n)).CombinedOutput(); err != nil {
		t.Fatalf("demo: %v\n%s", err, out)
	}
	cpu := func(args ...string) (time.Duration, string) {
		cmd := exec.Command(memscope, args...)
		out, _ := cmd.Output()
		return cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime(), string(out)
	}
	// Per signed record in the log (every leaf is one signature to check):
	// verify's "records" line leaves out node declarations and the
	// store's own rows.
	recorded := func(out string) int {
		_, rest, _ := strings.Cut(out, "(tree size ")
		v, _ := strconv.Atoi(strings.TrimRight(strings.Fields(rest + " x")[0], ","))
		return v
	}
	for round := 0; round < 2; round++ {
		rc, rout := cpu(append([]string{"verify", filepath.Join(dir, "snapshot.db")}, anchors(dir)...)...)
		gc, gout := cpu("verify", filepath.Join(gen, "clean", "snapshot.db"), "--log", filepath.Join(gen, "clean", "log"), "--anchors", filepath.Join(gen, "clean", "scenario.json"))
		rn, gn := recorded(rout), recorded(gout)
		if rn == 0 || gn == 0 {
			t.Fatalf("could not read the record counts:\n%s\n%s", rout, gout)
		}
		rp, gp := rc/time.Duration(rn), gc/time.Duration(gn)
		t.Logf("verify CPU per log leaf: recorded store %v (%d leaves, %v), generated %v (%d leaves, %v): ratio %.2f", rp, rn, rc, gp, gn, gc, float64(rp)/float64(gp))
	}
}
