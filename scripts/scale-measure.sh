#!/bin/sh
# Whole-program wall time and peak memory of memscope's commands on a big
# generated store (docs/performance-history.md, "Memory follows the question").
#
#   scripts/scale-measure.sh STORE_DIR [RUNS] [COMMANDS]
#
# STORE_DIR is a scenario directory, e.g. made by
#   memscope demo --out /tmp/m1 --scenario clean --entries 1000000
# (then STORE_DIR is /tmp/m1/clean). Each command runs RUNS times (default
# 3); one line per run: command, wall seconds, user + sys CPU seconds, peak
# RSS in MB. COMMANDS (default "replay lineage") picks which to run. Needs
# GNU time (/usr/bin/time) and memscope on PATH (or
# MEMSCOPE=path/to/binary).
set -eu
dir=${1:?usage: scripts/scale-measure.sh STORE_DIR [RUNS]}
runs=${2:-3}
cmds=${3:-replay lineage}
ms=${MEMSCOPE:-memscope}
cd "$dir"
echo "# $(date -u +%Y-%m-%dT%H:%MZ) $(uname -n) load: $(cut -d' ' -f1-3 /proc/loadavg)"
measure() {
	name=$1
	shift
	i=0
	while [ "$i" -lt "$runs" ]; do
		/usr/bin/time -f "%e %U %S %M" -o /tmp/scale-measure.$$ "$ms" "$@" >/dev/null 2>&1 || true
		read -r wall user sys kb </tmp/scale-measure.$$
		awk -v n="$name" -v w="$wall" -v u="$user" -v s="$sys" -v k="$kb" 'BEGIN { printf "%-22s wall %6.2f s  cpu %6.2f s  peak %6.0f MB\n", n, w, u + s, k / 1024 }'
		i=$((i + 1))
	done
	rm -f /tmp/scale-measure.$$
}
for c in $cmds; do
	case $c in
	replay) measure "replay --json" replay snapshot.db --log log --anchors scenario.json --json ;;
	lineage) measure "lineage" lineage snapshot.db --log log --anchors scenario.json ;;
	*) echo "unknown command $c" >&2; exit 2 ;;
	esac
done
