#!/bin/sh
# kg-replay-memory.sh MEMSCOPE STORE [RUNS]: whole-program peak RSS and CPU
# time of `memscope replay snapshot.db --log log --anchors scenario.json
# --json` on an imported store, RUNS times (default 1), then once more with
# MEMSCOPE_HEAPPROFILE to show what the largest live heap holds (that run
# forces collections, so its RSS is not the figure to quote). Peak RSS and
# CPU seconds do not depend on the machine's load; wall time does.
#
# The Debian-KG-sized store of docs/performance-history.md (133,436 nodes,
# 1,350,000 writes, 50 queries; MEMSCOPE_SCALE_GRAPH_DIV=10 for a tenth):
#
#   MEMSCOPE_SCALE_GRAPH_OUT=/tmp/kg/in go test ./internal/generators/importer -run TestWriteScaleGraph
#   memscope import --nodes /tmp/kg/in/nodes.csv --edges /tmp/kg/in/edges.csv \
#       --queries /tmp/kg/in/queries.jsonl --out /tmp/kg/store
#   scripts/kg-replay-memory.sh memscope /tmp/kg/store
set -eu
ms=$(realpath "${1:?usage: kg-replay-memory.sh MEMSCOPE STORE [RUNS]}")
store=${2:?usage: kg-replay-memory.sh MEMSCOPE STORE [RUNS]}
runs=${3:-1}
work=$(mktemp -d)
cd "$store"
i=0
while [ "$i" -lt "$runs" ]; do
	/usr/bin/time -f "%M KB peak RSS, %U user s, %S sys s, %e wall s" "$ms" replay snapshot.db --log log --anchors scenario.json --json >"$work/out.json" 2>"$work/time" || true
	echo "run $((i + 1)): $(tail -1 "$work/time"), load $(cut -d' ' -f1 /proc/loadavg), output sha256 $(sha256sum <"$work/out.json" | cut -c1-16)"
	i=$((i + 1))
done
MEMSCOPE_HEAPPROFILE="$work/heap" "$ms" replay snapshot.db --log log --anchors scenario.json --json >/dev/null 2>&1 || true
go tool pprof -sample_index=inuse_space -top -nodecount=15 "$ms" "$work/heap" 2>/dev/null | sed -n '4,22p'
rm -rf "$work"
