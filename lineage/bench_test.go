package lineage

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"syscall"
	"testing"
	"time"
)

// cpuTime is the process's user+system CPU time. Benchmarks report it per
// op next to wall time because the shared build machine is often
// oversubscribed, which inflates wall time but not CPU time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func reportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
}

// syntheticStore makes n entries in write order with 0-8 parents each drawn
// mostly from recent entries (as retrieval favours recent memories), weights
// in [0,1], about 2% external writers.
func syntheticStore(n int) []Entry { return syntheticStoreOf(n, idFor) }

// syntheticStoreOf is syntheticStore with the ids id gives.
func syntheticStoreOf(n int, id func(int) string) []Entry {
	idFor := id
	r := rand.New(rand.NewPCG(42, 43))
	es := make([]Entry, n)
	for i := range es {
		w := "agent:1"
		switch x := r.IntN(100); {
		case x < 2:
			w = "external:web"
		case x < 12:
			w = "user"
		case x < 20:
			w = "tool:search"
		}
		es[i] = Entry{ID: idFor(i), Writer: w, TS: int64(i)}
		if i == 0 || w == "external:web" {
			continue
		}
		k := r.IntN(9)
		for j := 0; j < k; j++ {
			var p int
			if r.IntN(4) == 0 {
				p = r.IntN(i)
			} else {
				p = i - 1 - r.IntN(min(i, 1000))
			}
			es[i].Parents = append(es[i].Parents, idFor(p))
			es[i].Weights = append(es[i].Weights, r.Float64())
		}
	}
	return es
}

var store1M []Entry

func graph1M(b *testing.B) *Graph {
	if store1M == nil {
		store1M = syntheticStore(1_000_000)
	}
	return Build(store1M)
}

// BenchmarkBuild1MTimeOrdered is BenchmarkBuild1M with ids as memscope's
// writer makes them (UUIDv7: a millisecond clock in the first six bytes,
// random bits after), whose first bytes spread over the store's time span
// where idFor's are all equal.
func BenchmarkBuild1MTimeOrdered(b *testing.B) {
	r := rand.New(rand.NewPCG(44, 45))
	const start = 0x019cadc6d84c // a demo store's first millisecond
	ids := make([]string, 1_000_000)
	for i := range ids {
		ms := uint64(start + i + r.IntN(3))
		ids[i] = fmt.Sprintf("%08x-%04x-7%03x-8%03x-%012x", ms>>16, ms&0xffff, r.IntN(1<<12), r.IntN(1<<12), r.Uint64()>>16)
	}
	store := syntheticStoreOf(len(ids), func(i int) string { return ids[i] })
	b.ReportAllocs()
	cpu := cpuTime()
	for b.Loop() {
		Build(store)
	}
	reportCPU(b, cpu)
}

func BenchmarkPropagate1M(b *testing.B) {
	g := graph1M(b)
	labels := make([]Trust, g.Len())
	taus := []float64{0, 0.1, 0.3, 0.5, 0.9}
	b.ReportAllocs()
	b.ResetTimer()
	start := cpuTime()
	for i := 0; b.Loop(); i++ {
		if err := g.PropagateInto(labels, Options{Tau: taus[i%len(taus)]}); err != nil {
			b.Fatal(err)
		}
	}
	reportCPU(b, start)
}

func BenchmarkBuild1M(b *testing.B) {
	if store1M == nil {
		store1M = syntheticStore(1_000_000)
	}
	b.ReportAllocs()
	start := cpuTime()
	for b.Loop() {
		Build(store1M)
	}
	reportCPU(b, start)
	// What the built graph holds (what a lineage summary keeps).
	before := liveHeap()
	g := Build(store1M)
	b.ReportMetric(float64(liveHeap()-before)/1e6, "graph-MB")
	runtime.KeepAlive(g)
}

// liveHeap is the heap in use after a collection.
func liveHeap() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

func BenchmarkExplain1M(b *testing.B) {
	g := graph1M(b)
	labels, _ := g.Propagate(Options{Tau: 0.3})
	id := g.ID(g.Len() - 1)
	b.ReportAllocs()
	b.ResetTimer()
	start := cpuTime()
	for b.Loop() {
		if _, err := g.Explain(id, labels, 0.3, 20); err != nil {
			b.Fatal(err)
		}
	}
	reportCPU(b, start)
}
