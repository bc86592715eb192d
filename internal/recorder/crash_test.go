package recorder_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestKillNineLosesNothingAcknowledged kills the gateway (SIGKILL, with
// the upstream servers it started) at a random moment of a burst of
// concurrent writes, restarts it on the same store, and requires every
// write the agent got a result for to be in the evidence, and verify to
// pass. Rounds alternate the acknowledgement modes (--ack sequenced,
// then integrated). MEMSCOPE_CRASH_ROUNDS sets the number of rounds
// (default 4).
func TestKillNineLosesNothingAcknowledged(t *testing.T) {
	memscope, _, store, cfg := storySetup(t, "")
	rounds := envCount(t, "MEMSCOPE_CRASH_ROUNDS", 4)
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 1))
	var acked []string
	deleted, tried := map[string]bool{}, map[string]bool{}
	for round := 0; round < rounds; round++ {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		ack := []string{"sequenced", "integrated"}[round%2]
		cs, cmd := connectKillable(t, ctx, memscope, store, cfg, ack)
		// A page first, so the writes carry lineage.
		call(t, ctx, cs, "fetch_page", map[string]any{"url": "https://acme.example/billing"})
		var mu sync.Mutex
		var wg sync.WaitGroup
		for w := 0; w < 8; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; ; i++ {
					name := fmt.Sprintf("r%d-w%d-e%d", round, w, i)
					res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "create_entities", Arguments: map[string]any{
						"entities": []map[string]any{{"name": name, "entityType": "crash-test", "observations": []string{"obs of " + name}}}}})
					if err != nil {
						return // the gateway is gone: not acknowledged
					}
					if !res.IsError {
						mu.Lock()
						acked = append(acked, name)
						mu.Unlock()
					}
					if i%3 != 2 {
						continue
					}
					// Every third entity is deleted again right away: its
					// tombstone may fall in the same group as its entry. A
					// delete the kill interrupts may or may not be recorded.
					mu.Lock()
					tried[name] = true
					mu.Unlock()
					res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "delete_entities", Arguments: map[string]any{"entityNames": []string{name}}})
					if err != nil {
						return
					}
					if !res.IsError {
						mu.Lock()
						deleted[name] = true
						mu.Unlock()
					}
				}
			}()
		}
		time.Sleep(time.Duration(200+rng.IntN(800)) * time.Millisecond)
		// SIGKILL the gateway's process group: it and the servers it started.
		if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		wg.Wait()
		cs.Close()
		cancel()
		_ = cmd.Wait()
	}
	// A last, clean session: the restart repairs, the close signs meta.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cs, _ := connect(t, ctx, memscope, store, cfg)
	call(t, ctx, cs, "create_entities", map[string]any{"entities": []map[string]any{{"name": "after-crashes", "entityType": "crash-test", "observations": []string{}}}})
	cs.Close()

	snap := filepath.Join(store, "snapshot.db")
	out, code := memscopeRun(t, memscope, append([]string{"verify", snap}, anchors(store)...)...)
	if code != 0 {
		t.Fatalf("verify after %d kills exit %d:\n%s", rounds, code, out)
	}
	have := entityNames(t, snap)
	missing := 0
	for _, n := range acked {
		if !have[n] && !tried[n] {
			missing++
			t.Errorf("acknowledged write %s is not in the evidence", n)
		}
		if deleted[n] && have[n] {
			t.Errorf("acknowledged delete of %s: its entry is still live", n)
		}
	}
	db := openSnapshot(t, snap)
	defer db.Close()
	var tombs int
	if err := db.QueryRow("SELECT COUNT(*) FROM tombstones").Scan(&tombs); err != nil || tombs < 2*len(deleted) {
		t.Errorf("%d tombstones for %d acknowledged entity deletes (each removes the entity's head and observation): %v", tombs, len(deleted), err)
	}
	if len(acked) < rounds {
		t.Fatalf("only %d writes acknowledged over %d rounds: the test did not exercise the gateway", len(acked), rounds)
	}
	t.Logf("%d rounds, %d acknowledged writes (%d deleted again), %d missing, %d entities live", rounds, len(acked), len(deleted), missing, len(have))
}

// connectKillable is connect with the gateway in a process group of its
// own, so the test can SIGKILL it with the servers it started.
func connectKillable(t *testing.T, ctx context.Context, memscope, store, cfg, ack string) (*mcp.ClientSession, *exec.Cmd) {
	t.Helper()
	cmd := exec.Command(memscope, "record", "--store", store, "--config", cfg, "--ack", ack)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Stderr = &testLog{t: t}
	client := mcp.NewClient(&mcp.Implementation{Name: "crash-agent", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: time.Second}, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	return cs, cmd
}

// entityNames reads the names of the entities whose entries the snapshot
// holds.
func entityNames(t *testing.T, snap string) map[string]bool {
	t.Helper()
	db := openSnapshot(t, snap)
	defer db.Close()
	rows, err := db.Query(`SELECT content FROM entries WHERE content LIKE '{"name":%'`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var c string
		if err := rows.Scan(&c); err != nil {
			t.Fatal(err)
		}
		if _, rest, ok := strings.Cut(c, `{"name":"`); ok {
			name, _, _ := strings.Cut(rest, `"`)
			out[name] = true
		}
	}
	return out
}
