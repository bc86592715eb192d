package main

import (
	"bytes"
	"io"
	"os"
	"runtime"
	"runtime/pprof"
	"runtime/trace"
	"time"
)

// Profiling for the scale measurements (docs/PERFORMANCE.md), off unless
// asked for in the environment:
//
//	MEMSCOPE_CPUPROFILE=FILE   CPU profile of the whole command
//	MEMSCOPE_HEAPPROFILE=FILE  heap profile taken when the live heap was
//	                           largest (checked every 20 ms), so that it
//	                           shows what the peak RSS is made of
//	MEMSCOPE_TRACE=FILE        execution trace (runtime/trace) of the whole
//	                           command: where the inspector's goroutines
//	                           waited (scripts/tracewait)
//
// The files are created exclusively: an existing file is never replaced.
func startProfiles() (stop func()) {
	var stops []func()
	for _, p := range []struct {
		env   string
		start func(io.Writer) error
		stop  func()
	}{
		{"MEMSCOPE_CPUPROFILE", pprof.StartCPUProfile, pprof.StopCPUProfile},
		{"MEMSCOPE_TRACE", trace.Start, trace.Stop},
	} {
		path := os.Getenv(p.env)
		if path == "" {
			continue
		}
		if f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644); err == nil {
			if p.start(f) == nil {
				stops = append(stops, func() { p.stop(); f.Close() })
			} else {
				f.Close()
			}
		}
	}
	if path := os.Getenv("MEMSCOPE_HEAPPROFILE"); path != "" {
		stops = append(stops, peakHeapProfile(path))
	}
	return func() {
		for _, s := range stops {
			s()
		}
	}
}

// peakHeapProfile samples the live heap and keeps the profile of the
// largest one seen, written to path when stopped.
func peakHeapProfile(path string) func() {
	done := make(chan struct{})
	finished := make(chan struct{})
	var best []byte
	var bestHeap uint64
	snap := func() {
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		// Only a heap a tenth above the last kept one is worth a profile.
		if ms.HeapAlloc <= bestHeap+bestHeap/10 {
			return
		}
		runtime.GC() // the profile describes the heap as of the last GC
		runtime.ReadMemStats(&ms)
		if ms.HeapAlloc <= bestHeap {
			return
		}
		var buf bytes.Buffer
		if pprof.Lookup("heap").WriteTo(&buf, 0) == nil {
			best, bestHeap = buf.Bytes(), ms.HeapAlloc
		}
	}
	go func() {
		defer close(finished)
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				snap()
			}
		}
	}()
	return func() {
		close(done)
		<-finished
		if best == nil {
			return
		}
		if f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644); err == nil {
			f.Write(best)
			f.Close()
		}
	}
}
