#!/bin/sh
# Re-measures issue 11's culprit targets on the 50k-node benchmark graph:
# `--culprits fast` (median wall per diverging row) and `--culprits minimal`
# against the old ddmin (cold full solves, one test at a time), all three
# in each run of one test binary, ROUNDS runs (default 5) so the ratio is
# taken within a run. Prints each run's lines, then per run the old/minimal
# ratio of wall and CPU time, then the medians. CPUS (default 2) is
# GOMAXPROCS for the benchmark: 1 runs the two-at-a-time tests one after
# the other. Run from the repo root: scripts/culprits-speed.sh [ROUNDS [CPUS]]
set -eu
rounds=${1:-5}
cpus=${2:-2}
bin=$(mktemp -d)/replay.test
go test -c -o "$bin" ./replay
date -u
out=$(mktemp)
for i in $(seq "$rounds"); do
	echo "round $i, GOMAXPROCS $cpus, load: $(cut -d' ' -f1-3 /proc/loadavg)"
	(cd replay && "$bin" -test.run XXX -test.bench BenchmarkCulprits -test.benchtime 12x -test.cpu "$cpus") | grep -E '^Benchmark' | tee -a "$out"
done
awk '
/\/fast/    { fw[++nf] = $3 / 1e6; fc[nf] = $5 }
/\/minimal/ { mw[++nm] = $3 / 1e6; mc[nm] = $5 }
/\/old/     { ow[++no] = $3 / 1e6; oc[no] = $5 }
function median(a, n,   i, j, t) {
	for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
END {
	for (i = 1; i <= nm; i++) {
		rw[i] = ow[i] / mw[i]; rc[i] = oc[i] / mc[i]
		printf "run %d: fast %.0f ms wall %.1f cpu-ms; minimal %.0f ms wall %.1f cpu-ms; old %.0f ms wall %.1f cpu-ms; old/minimal %.2fx wall %.2fx cpu\n", i, fw[i], fc[i], mw[i], mc[i], ow[i], oc[i], rw[i], rc[i]
	}
	printf "median: fast %.0f ms wall; old/minimal %.2fx wall, %.2fx cpu\n", median(fw, nf), median(rw, nm), median(rc, nm)
}' "$out"
