#!/bin/sh
# lightrag-scale.sh MEMSCOPE DIR: whole-program peak RSS, CPU and wall time
# of `memscope verify DIR` (open the store) and of `memscope replay DIR
# --queries DIR/queries.jsonl --culprits none` (open + 50 queries) on a
# LightRAG working directory made by scripts/gen-lightrag-graphml.py, e.g.
#
#   /usr/bin/python3 scripts/gen-lightrag-graphml.py /tmp/lr-1m 1000000 5000000
#   scripts/lightrag-scale.sh memscope /tmp/lr-1m
#
# Peak RSS and CPU seconds do not depend on the machine's load; wall time
# does (the load average is printed beside it).
set -eu
ms=$(realpath "${1:?usage: lightrag-scale.sh MEMSCOPE DIR}")
dir=${2:?usage: lightrag-scale.sh MEMSCOPE DIR}
g="$dir/graph_chunk_entity_relation.graphml"
echo "graph: $(stat -c %s "$g") bytes, $(grep -c '<node ' "$g") nodes, $(grep -c '<edge ' "$g") edges"
work=$(mktemp -d)
for cmd in "verify $dir" "replay $dir --queries $dir/queries.jsonl --culprits none"; do
	# shellcheck disable=SC2086
	/usr/bin/time -f "%M KB peak RSS, %U user s, %S sys s, %e wall s" "$ms" $cmd >"$work/out" 2>"$work/time" || true
	echo "memscope $cmd: $(tail -1 "$work/time"), load $(cut -d' ' -f1 /proc/loadavg), exit lines: $(grep -c . "$work/out")"
done
rm -rf "$work"
