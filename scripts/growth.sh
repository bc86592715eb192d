#!/bin/sh
# growth.sh N [WORKDIR]: whole-program costs of the clean store scaled to N
# entries, for the growth table of docs/performance-history.md. Generates the store
# (unless WORKDIR/clean already holds one) and times verify with
# /usr/bin/time (wall seconds, user + system CPU seconds, peak RSS), then
# runs scripts/scale-measure.sh once for replay and lineage (COMMANDS=...
# picks others, e.g. COMMANDS=replay at 10M, where lineage --log is a
# second full verify). CPU seconds and peak RSS do not depend on load; wall
# seconds do: take those on a quiet machine. memscope on PATH, or
# MEMSCOPE=path/to/binary. The timing files go to a temporary directory,
# so WORKDIR may be a store someone else generated.
#
#   scripts/growth.sh 100000 /tmp/g100k
#   COMMANDS=replay scripts/growth.sh 10000000 /work/scale/10m/cur
set -eu
n=${1:?usage: growth.sh N [WORKDIR]}
work=${2:-/tmp/memscope-growth-$n}
ms=${MEMSCOPE:-memscope}
case $ms in */*) ms=$(cd "$(dirname "$ms")" && pwd)/$(basename "$ms") ;; esac
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$work"
report() { # name, /usr/bin/time output file
	read -r wall user sys kb <"$2"
	awk -v n="$1" -v w="$wall" -v u="$user" -v s="$sys" -v k="$kb" 'BEGIN { printf "%-22s wall %6.1f s  cpu %6.1f s  peak %6.0f MB\n", n, w, u + s, k / 1024 }'
}
echo "# N=$n $(date -u +%Y-%m-%dT%H:%MZ) $(uname -n) $(nproc) cores load: $(cut -d' ' -f1-3 /proc/loadavg)"
if [ ! -d "$work/clean" ]; then
	/usr/bin/time -f "%e %U %S %M" -o "$tmp/time.gen" "$ms" demo --out "$work" --scenario clean --entries "$n" >/dev/null
	report "demo --entries $n" "$tmp/time.gen"
fi
cd "$work/clean"
/usr/bin/time -f "%e %U %S %M" -o "$tmp/time.verify" "$ms" verify snapshot.db --log log --anchors scenario.json >/dev/null || true
report verify "$tmp/time.verify"
echo "# load after verify: $(cut -d' ' -f1-3 /proc/loadavg)"
MEMSCOPE=$ms "$here/scale-measure.sh" "$work/clean" 1 "${COMMANDS:-replay lineage}" | grep -v '^#'
echo "# load at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
