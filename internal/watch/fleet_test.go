package watch

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/memscope/memscope/internal/present/finding"
)

// TestShardEveryTenantOnce: for N from 1 to 64, the shards of a fleet
// partition it (every tenant in exactly one shard) and differ in size by
// at most one; the split depends only on the fleet file.
func TestShardEveryTenantOnce(t *testing.T) {
	var lines []byte
	for i := 0; i < 257; i++ {
		b, _ := json.Marshal(Tenant{Name: fmt.Sprintf("tenant-%03d", (i*37)%257), Log: "log", LogKey: "k", State: fmt.Sprintf("s%d.json", i)})
		lines = append(append(lines, b...), '\n')
	}
	path := filepath.Join(t.TempDir(), "fleet.jsonl")
	os.WriteFile(path, lines, 0o644)
	ts, err := ReadFleet(path)
	if err != nil {
		t.Fatal(err)
	}
	for n := 1; n <= 64; n++ {
		seen := map[string]int{}
		lo, hi := len(ts), 0
		for i := 0; i < n; i++ {
			sh := Shard(ts, i, n)
			lo, hi = min(lo, len(sh)), max(hi, len(sh))
			for _, tn := range sh {
				seen[tn.Name]++
			}
		}
		if len(seen) != len(ts) || hi-lo > 1 {
			t.Fatalf("N=%d: %d of %d tenants, shard sizes %d..%d", n, len(seen), len(ts), lo, hi)
		}
		for name, c := range seen {
			if c != 1 {
				t.Fatalf("N=%d: %s watched %d times", n, name, c)
			}
		}
	}
	env := map[string]string{"JOB_COMPLETION_INDEX": "3", "JOB_COMPLETIONS": "8"}
	if i, n, err := ParseShard("", func(k string) string { return env[k] }); err != nil || i != 3 || n != 8 {
		t.Fatalf("indexed job env: %d/%d %v", i, n, err)
	}
	for _, bad := range []string{"8/8", "-1/2", "1", "a/b", "0/0"} {
		if _, _, err := ParseShard(bad, os.Getenv); err == nil {
			t.Errorf("shard %q accepted", bad)
		}
	}
}

// TestFleetFileRefusesSharedState: two tenants on one state file would
// corrupt it, and a tenant without a log key would prove nothing.
func TestFleetFileRefusesSharedState(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{
		"shared":  `[{"name":"a","log":"l","log_key":"k","state":"s"},{"name":"b","log":"l","log_key":"k","state":"s"}]`,
		"nokey":   `{"name":"a","log":"l","state":"s"}`,
		"twice":   `[{"name":"a","log":"l","log_key":"k","state":"s1"},{"name":"a","log":"l","log_key":"k","state":"s2"}]`,
		"unknown": `{"name":"a","log":"l","log_key":"k","state":"s","extra":1}`,
		// A fleet of none watched nothing and exited 0.
		"empty":      "",
		"blank":      "\n \n",
		"emptyarray": "[]",
	} {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(body), 0o644)
		if _, err := ReadFleet(p); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	// A FIFO is refused at once, not opened (the open would wait for a
	// writer).
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { _, err := ReadFleet(fifo); done <- err }()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("fifo: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("ReadFleet blocked on a FIFO")
	}
}

// TestFleetOfAThousandLogs: one process watches 1,000 small logs (copies
// of two real tessera logs, the second 100 leaves longer): the first round
// trusts each on first use, the second sees each advance by 100 leaves,
// the third is idle.
func TestFleetOfAThousandLogs(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the 1,000-log fleet takes a few seconds")
	}
	base := t.TempDir()
	k := newLogKey(t, "example.com/fleet")
	a, b := filepath.Join(base, "a"), filepath.Join(base, "b")
	writeLog(t, a, k, recordLeaves(1, 50))
	writeLog(t, b, k, append(recordLeaves(1, 50), recordLeaves(2, 100)...))
	var jobs []Job
	for i := 0; i < 1000; i++ {
		dir := filepath.Join(base, fmt.Sprintf("t%04d", i))
		if out, err := exec.Command("cp", "-r", a, dir).CombinedOutput(); err != nil {
			t.Fatalf("cp: %v %s", err, out)
		}
		jobs = append(jobs, Job{Target: Target{Tenant: fmt.Sprintf("t%04d", i), Log: dir, LogKey: k.vkey}, State: dir + ".state"})
	}
	var mu sync.Mutex
	count := map[finding.Code]int{}
	deliver := func(e Event) error {
		mu.Lock()
		count[e.Code]++
		mu.Unlock()
		return nil
	}
	check := func(what string, want map[finding.Code]int) {
		t.Helper()
		for _, r := range RunJobs(context.Background(), jobs, 8, time.Now(), deliver) {
			if r.Err != nil {
				t.Fatalf("%s: %s: %v", what, r.Job.Target.Tenant, r.Err)
			}
		}
		if fmt.Sprint(count) != fmt.Sprint(want) {
			t.Fatalf("%s: events %v, want %v", what, count, want)
		}
		clear(count)
	}
	check("first", map[finding.Code]int{finding.WatchStateNew: 1000})
	for _, j := range jobs {
		os.RemoveAll(j.Target.Log)
		if out, err := exec.Command("cp", "-r", b, j.Target.Log).CombinedOutput(); err != nil {
			t.Fatalf("cp: %v %s", err, out)
		}
	}
	check("advance", map[finding.Code]int{finding.WatchCheckpointAdvanced: 1000})
	check("idle", map[finding.Code]int{})
}
