package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Every file a flag names (anchors, keys, gate policy, queries) is read
// bounded: a FIFO nobody writes, a device that never ends or a file over
// its limit is a usage error naming the flag and the file, at once,
// never a hang or an allocation of whatever the file holds.
func TestUserFilesBounded(t *testing.T) {
	sdir := filepath.Join(demoDir, "structural-write")
	tmp := t.TempDir()
	fifo := filepath.Join(tmp, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	qfifo := filepath.Join(tmp, "q.jsonl")
	syscall.Mkfifo(qfifo, 0o600)
	zero := filepath.Join(tmp, "zero.jsonl")
	os.Symlink("/dev/zero", zero)
	big := filepath.Join(tmp, "big")
	f, _ := os.Create(big)
	f.Truncate(maxAnchorsFile + 1) // sparse: no disk used
	f.Close()
	snap, log := filepath.Join(sdir, "snapshot.db"), filepath.Join(sdir, "log")
	cases := []struct {
		args []string
		flag string
	}{
		{[]string{"verify", snap, "--log", log, "--anchors", fifo}, "--anchors"},
		{[]string{"verify", snap, "--log", log, "--anchors", "/dev/zero"}, "--anchors"},
		{[]string{"verify", snap, "--log", log, "--anchors", big}, "--anchors"},
		{[]string{"verify", snap, "--log", log, "--trust", big}, "--trust"},
		{[]string{"verify", snap, "--log", log, "--trust", fifo}, "--trust"},
		{[]string{"verify", snap, "--log", log, "--log-key", fifo}, "--log-key"},
		{[]string{"verify", snap, "--log", log, "--hmac-key", "/dev/zero"}, "--hmac-key"},
		{[]string{"lineage", snap, "--log", log, "--policy", fifo}, "--policy"},
		{[]string{"actions", snap, "--log", log, "--policy", "/dev/zero"}, "--policy"},
		{[]string{"report", snap, "--log", log, "--gate-policy", big, "--out", filepath.Join(tmp, "r.html")}, "--gate-policy"},
		{[]string{"replay", filepath.Join(hippoFixtures, "poisoned"), "--queries", qfifo}, "--queries"},
		{[]string{"import", "--from", "hipporag", filepath.Join(hippoFixtures, "poisoned"), "--queries", zero, "--out", filepath.Join(tmp, "out")}, "--queries"},
	}
	for _, c := range cases {
		done := make(chan struct{})
		var code int
		var errs string
		go func() {
			code, _, errs = runCmd(c.args...)
			close(done)
		}()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			t.Fatalf("%v: no answer in 20 s (a blocked read)", c.args)
		}
		if code != exitUsage || !strings.Contains(errs, c.flag) || !(strings.Contains(errs, "not a regular file") || strings.Contains(errs, "limit")) {
			t.Errorf("%v: exit %d, stderr %q; want a usage error naming %s and why", c.args, code, errs, c.flag)
		}
	}
}
