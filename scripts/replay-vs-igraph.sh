#!/bin/sh
# replay-vs-igraph.sh [ROUNDS]: one query replayed on G and G_auth by
# memscope against igraph's prpack solving the same two views, on replay's
# benchmark graph (50k nodes, 350k edges), interleaved: each round runs the
# Go benchmark (20 replays of the exported query) and then igraph's G and
# G_auth solves (median of 5 each), and takes the ratio
# (memscope's G+G_auth) / (igraph's G + igraph's G_auth) inside the round.
# Load moves both halves of a round alike; the median over ROUNDS (default 7)
# is the figure. First it checks PPR against igraph within 1e-9 on the
# committed fixture. Needs python3-igraph (apt-get install -y python3-igraph).
set -eu
rounds=${1:-7}
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "# $(date -u +%Y-%m-%dT%H:%MZ) $(uname -n) load: $(cut -d' ' -f1-3 /proc/loadavg)"
go test ./replay -run 'TestPPRAgreesWithIgraphPrpack' -count=1 -v | grep -E '^(--- |ok|FAIL)'
MEMSCOPE_BENCH_EXPORT=$tmp/g.txt go test ./replay -run TestExportBenchGraph -count=1 >/dev/null
go test -c -o "$tmp/replay.test" ./replay
/usr/bin/python3 replay/testdata/bench_igraph.py "$tmp/g.txt" "$tmp/replay.test" "$rounds"
echo "# end load: $(cut -d' ' -f1-3 /proc/loadavg)"
