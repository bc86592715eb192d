#!/bin/sh
# verify-floor.sh: the "verification at the floor" ratios of
# docs/PERFORMANCE.md (history: docs/performance-history.md): memscope's whole verify of the 100k-entry clean
# store against bare crypto/ed25519.Verify of the same signatures (every
# record's, one goroutine), in the same run; with two signature workers
# on two cores, with one worker (the reading goroutine on the other core),
# and with GOMAXPROCS=1. Run it on a quiet machine, from the repository.
# Each line also gives cpu-ratio, the same ratio in process CPU time (with
# -cpu 1 it holds on a loaded machine too). MEMSCOPE_BENCH_STORE=DIR uses
# an already generated 100k-entry clean store instead of generating one.
set -eu
cd "$(dirname "$0")/.."
bin=$(mktemp)
trap 'rm -f "$bin"' EXIT
go test -c -o "$bin" ./verify
echo "# $(date -u +%Y-%m-%dT%H:%MZ) load: $(cut -d' ' -f1-3 /proc/loadavg) $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2) x $(nproc)"
cd verify
"$bin" -test.run XXX -test.bench 'BenchmarkVerify100k$|BenchmarkVerify100kOneWorker$' -test.benchtime 1x -test.count 2 2>&1 | grep -E '^Benchmark'
"$bin" -test.run XXX -test.bench 'BenchmarkVerify100k$' -test.benchtime 1x -test.count 2 -test.cpu 1 2>&1 | grep -E '^Benchmark'
echo "# end load: $(cut -d' ' -f1-3 /proc/loadavg)"
