//go:build unix

package report

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/memscope/memscope/internal/evidencetest"

	"github.com/memscope/memscope/internal/assemble"
	"github.com/memscope/memscope/internal/generators/scenario"
	"github.com/memscope/memscope/verify"
)

// maxReportBytes is the size the issue allows a report of a 100k store.
const maxReportBytes = 20 << 20

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkReport100k writes the report (HTML and case file) of the clean
// store scaled to 100k entries, and in the same iteration runs verify
// alone on it: the ratio of the two is what a loaded, shared machine can
// measure honestly (docs/PERFORMANCE.md). MEMSCOPE_BENCH_ENTRIES changes
// the size. Generation signs every record and is not timed.
func BenchmarkReport100k(b *testing.B) {
	n := 100000
	if v := os.Getenv("MEMSCOPE_BENCH_ENTRIES"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil {
			b.Fatal(err)
		}
	}
	root := b.TempDir()
	spec, _ := scenario.Lookup("clean")
	m, err := scenario.Generate(context.Background(), root, spec, scenario.Options{Seed: 7, Entries: n})
	if err != nil {
		b.Fatal(err)
	}
	dir := filepath.Join(root, "clean")
	roots := evidencetest.Roots(b, m)
	opts := assemble.Options{Snapshot: filepath.Join(dir, m.Snapshot), Log: filepath.Join(dir, m.Log), LogKey: m.Anchors.LogKey, TrustRoots: roots}
	inputs := []Input{{Role: "snapshot", Path: opts.Snapshot}, {Role: "log", Path: opts.Log}}
	var verifyWall, reportWall, verifyCPU, reportCPU time.Duration
	var htmlBytes, jsonBytes int
	b.ResetTimer()
	for b.Loop() {
		b.StopTimer()
		t0, c0 := time.Now(), cpuTime()
		if _, err := verify.Run(context.Background(), verify.Options{Snapshot: opts.Snapshot, Log: opts.Log, LogKey: opts.LogKey, TrustRoots: roots}); err != nil {
			b.Fatal(err)
		}
		verifyWall += time.Since(t0)
		verifyCPU += cpuTime() - c0
		b.StartTimer()

		t0, c0 = time.Now(), cpuTime()
		s, err := assemble.Open(context.Background(), opts)
		if err != nil {
			b.Fatal(err)
		}
		if err := s.Load(context.Background(), nil); err != nil {
			b.Fatal(err)
		}
		c, err := Build(context.Background(), s, Options{Inputs: inputs, Command: []string{"memscope", "report"}, Version: "bench", Now: fixedClock})
		if err != nil {
			b.Fatal(err)
		}
		var h, j bytes.Buffer
		if err := WriteHTML(&h, c); err != nil {
			b.Fatal(err)
		}
		if err := WriteJSON(&j, c); err != nil {
			b.Fatal(err)
		}
		s.Close()
		reportWall += time.Since(t0)
		reportCPU += cpuTime() - c0
		htmlBytes, jsonBytes = h.Len(), j.Len()
		if htmlBytes > maxReportBytes || jsonBytes > maxReportBytes {
			b.Fatalf("report of %d entries: HTML %d bytes, JSON %d bytes; limit %d", n, htmlBytes, jsonBytes, maxReportBytes)
		}
	}
	b.ReportMetric(float64(htmlBytes), "html-bytes")
	b.ReportMetric(float64(jsonBytes), "json-bytes")
	b.ReportMetric(reportWall.Seconds()/verifyWall.Seconds(), "report/verify-wall")
	b.ReportMetric(reportCPU.Seconds()/verifyCPU.Seconds(), "report/verify-cpu")
	b.ReportMetric(reportCPU.Seconds()/float64(b.N), "cpu-s/op")
}
