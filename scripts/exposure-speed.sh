#!/bin/sh
# Re-measures the exposure speed target of issue 15 (16 queries x 1,000
# Monte Carlo draws per budget on the 50k-node benchmark graph, PPR,
# warm-started) and the all-selector run, printing the load before each so
# the figures can be judged (docs/PERFORMANCE.md). Run from the repo root.
set -eu
date -u
for b in 'BenchmarkExposurePPR50k$' 'BenchmarkExposureAll50k$' 'BenchmarkDrawWarm50k$|BenchmarkDrawCold50k$'; do
	echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
	bt=1x
	case $b in *Draw*) bt=64x ;; esac
	go test ./internal/analyses/exposure -run XXX -bench "$b" -benchtime "$bt" | grep -E '^Benchmark'
done
