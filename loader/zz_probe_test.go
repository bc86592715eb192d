package loader_test

import (
	"context"
	"math/rand"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/memscope/memscope/loader"
)

func TestZZProbe(t *testing.T) {
	seeds, _ := filepath.Glob("testdata/fuzz/FuzzOpenSnapshot/*")
	rng := rand.New(rand.NewSource(1))
	var durs []time.Duration
	for i := 0; i < 300; i++ {
		data, _ := readCorpusBytes(seeds[rng.Intn(len(seeds))])
		for j := 0; j < 1+rng.Intn(4) && len(data) > 0; j++ {
			data[rng.Intn(len(data))] ^= byte(1 << rng.Intn(8))
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		st := time.Now()
		s, err := loader.OpenImage(ctx, "fuzz.db", data)
		if err == nil {
			streamAll(ctx, s)
			s.Close()
		}
		cancel()
		d := time.Since(st)
		durs = append(durs, d)
		if d > 200*time.Millisecond {
			t.Logf("slow %d: %v len %d err %v", i, d, len(data), err)
		}
	}
	sort.Slice(durs, func(a, b int) bool { return durs[a] < durs[b] })
	t.Logf("median %v p90 %v max %v", durs[len(durs)/2], durs[len(durs)*9/10], durs[len(durs)-1])
}
