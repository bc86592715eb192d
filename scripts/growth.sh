#!/bin/sh
# growth.sh N [WORKDIR]: whole-program costs of the clean store scaled to N
# entries, for docs/PERFORMANCE.md's growth table. Generates the store
# (unless WORKDIR/clean already holds one) and times verify with
# /usr/bin/time (wall seconds, user + system CPU seconds, peak RSS), then
# runs scripts/scale-measure.sh once for replay and lineage. Run it on a
# quiet machine: wall time is what it measures. memscope on PATH, or
# MEMSCOPE=path/to/binary.
#
#   scripts/growth.sh 100000 /tmp/g100k
#   scripts/growth.sh 10000000 /tmp/g10m
set -eu
n=${1:?usage: growth.sh N [WORKDIR]}
work=${2:-/tmp/memscope-growth-$n}
ms=${MEMSCOPE:-memscope}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$work"
report() { # name, /usr/bin/time output file
	read -r wall user sys kb <"$2"
	awk -v n="$1" -v w="$wall" -v u="$user" -v s="$sys" -v k="$kb" 'BEGIN { printf "%-22s wall %6.1f s  cpu %6.1f s  peak %6.0f MB\n", n, w, u + s, k / 1024 }'
}
echo "# N=$n $(date -u +%Y-%m-%dT%H:%MZ) load: $(cut -d' ' -f1-3 /proc/loadavg)"
if [ ! -d "$work/clean" ]; then
	/usr/bin/time -f "%e %U %S %M" -o "$work/time.gen" "$ms" demo --out "$work" --scenario clean --entries "$n" >/dev/null
	report "demo --entries $n" "$work/time.gen"
fi
cd "$work/clean"
/usr/bin/time -f "%e %U %S %M" -o "$work/time.verify" "$ms" verify snapshot.db --log log --anchors scenario.json >/dev/null || true
report verify "$work/time.verify"
MEMSCOPE=$ms "$here/scale-measure.sh" "$work/clean" 1 | grep -v '^#'
