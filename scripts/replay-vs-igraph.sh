#!/bin/sh
# replay-vs-igraph.sh: one query replayed on G and G_auth by memscope against
# igraph's prpack solving the same two views, in one run, on replay's
# benchmark graph (50k nodes, 350k edges). Prints both and the ratio
# (memscope's G+G_auth) / (igraph's G + igraph's G_auth), medians. Needs
# python3-igraph (apt-get install -y python3-igraph). Run it quietly.
set -eu
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
MEMSCOPE_BENCH_EXPORT=$tmp/g.txt go test ./replay -run TestExportBenchGraph -count=1 >/dev/null
go test ./replay -run XXX -bench 'ReplayGAndGAuth$|PPRGOnly$' -benchtime 20x -count 5 | tee "$tmp/go.txt" | grep '^Benchmark'
/usr/bin/python3 replay/testdata/bench_igraph.py "$tmp/g.txt" | tee "$tmp/ig.txt"
m=$(awk '/^BenchmarkReplayGAndGAuth/ { print $3 / 1e6 }' "$tmp/go.txt" | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')
awk -v m="$m" '
/^igraph prpack G:/ { g = $5 }
/^igraph prpack GAUTH:/ { ga = $5 }
END { printf "memscope G+G_auth median %.1f ms; igraph G %.1f + G_auth %.1f ms; ratio %.2f\n", m, g, ga, m / (g + ga) }' "$tmp/ig.txt"
