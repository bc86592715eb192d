package watch

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/memscope/memscope/internal/present/finding"
)

// TestHelperWatchProcess is the child of TestKillNineMidRound: it runs
// rounds back to back and prints each event as a JSON line, until killed.
func TestHelperWatchProcess(t *testing.T) {
	if os.Getenv("MEMSCOPE_WATCH_CHILD") == "" {
		t.Skip("helper process for TestKillNineMidRound")
	}
	tg := Target{Log: os.Getenv("MEMSCOPE_WATCH_LOG"), LogKey: os.Getenv("MEMSCOPE_WATCH_KEY")}
	state := os.Getenv("MEMSCOPE_WATCH_STATE")
	for {
		_, err := RunOnce(context.Background(), tg, state, time.Now(), func(e Event) error {
			b, err := json.Marshal(e)
			if err != nil {
				return err
			}
			_, err = os.Stdout.Write(append(b, '\n'))
			return err
		})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(3)
		}
	}
}

// TestKillNineMidRound: a monitor killed with SIGKILL at random moments,
// while the log grows, loses no event: every advance of the log is
// reported, the state ends at the last checkpoint, and an event seen
// twice (the instant between printing it and recording that) has the
// same id both times.
func TestKillNineMidRound(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	base := t.TempDir()
	k := newLogKey(t, "example.com/kill")
	var dirs []string
	for i := 1; i <= 5; i++ {
		d := filepath.Join(base, fmt.Sprintf("l%d", i))
		var leaves [][]byte
		for j := 1; j <= i; j++ {
			leaves = append(leaves, recordLeaves(byte(j), 40)...)
		}
		writeLog(t, d, k, leaves)
		dirs = append(dirs, d)
	}
	live := filepath.Join(base, "live")
	state := filepath.Join(base, "state.json")
	var mu sync.Mutex
	var lines []string
	start := func() *exec.Cmd {
		cmd := exec.Command(os.Args[0], "-test.run=^TestHelperWatchProcess$")
		cmd.Env = append(os.Environ(), "MEMSCOPE_WATCH_CHILD=1", "MEMSCOPE_WATCH_LOG="+live, "MEMSCOPE_WATCH_KEY="+k.vkey, "MEMSCOPE_WATCH_STATE="+state)
		out, _ := cmd.StdoutPipe()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		go func() {
			sc := bufio.NewScanner(out)
			for sc.Scan() {
				if len(sc.Bytes()) > 0 && sc.Bytes()[0] == '{' {
					mu.Lock()
					lines = append(lines, sc.Text())
					mu.Unlock()
				}
			}
		}()
		return cmd
	}
	rng := rand.New(rand.NewPCG(1, 2))
	kills := 0
	for _, d := range dirs {
		// The live log is replaced by a longer one (a symlink swap is atomic).
		tmp := live + ".new"
		os.Remove(tmp)
		if err := os.Symlink(d, tmp); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, live); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 5; i++ {
			cmd := start()
			time.Sleep(time.Duration(30_000+rng.IntN(250_000)) * time.Microsecond)
			cmd.Process.Signal(syscall.SIGKILL)
			cmd.Wait()
			kills++
		}
		// Then a run until the state holds this log's size, killed too.
		cmd := start()
		want := uint64(40 * (indexOf(dirs, d) + 1))
		deadline := time.Now().Add(30 * time.Second)
		for {
			if st, err := LoadState(state); err == nil && st.Size == want && len(st.Pending) == 0 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the monitor did not reach size %d", want)
			}
			time.Sleep(5 * time.Millisecond)
		}
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
		kills++
	}

	mu.Lock()
	defer mu.Unlock()
	byID := map[string]Event{}
	seen := map[string]int{}
	for _, l := range lines {
		var e Event
		if err := json.Unmarshal([]byte(l), &e); err != nil {
			t.Fatalf("a line that is not an event: %q", l)
		}
		if prev, ok := byID[e.ID]; ok && (prev.Code != e.Code || prev.Size != e.Size || prev.PrevSize != e.PrevSize) {
			t.Fatalf("id %s names two events: %+v and %+v", e.ID, prev, e)
		}
		byID[e.ID] = e
		seen[e.ID]++
	}
	var steps [][2]uint64
	for _, e := range byID {
		switch e.Code {
		case finding.WatchCheckpointAdvanced:
			steps = append(steps, [2]uint64{e.PrevSize, e.Size})
		case finding.WatchStateNew:
			steps = append(steps, [2]uint64{0, e.Size})
		default:
			t.Errorf("unexpected event %s: %s", e.Code, e.Message)
		}
	}
	sort.Slice(steps, func(i, j int) bool { return steps[i][0] < steps[j][0] })
	at := uint64(0)
	for _, s := range steps {
		if s[0] != at {
			t.Fatalf("events cover %v: a gap or overlap at %d (lost or invented advance)", steps, at)
		}
		at = s[1]
	}
	if at != 200 {
		t.Fatalf("events end at %d, want 200 (%v)", at, steps)
	}
	doubled := 0
	for _, n := range seen {
		doubled += n - 1
	}
	t.Logf("%d kills, %d events, %d repeated by id", kills, len(byID), doubled)
}

func indexOf(ss []string, s string) int {
	for i, x := range ss {
		if x == s {
			return i
		}
	}
	return -1
}
