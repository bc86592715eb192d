#!/bin/sh
# growth.sh N [WORKDIR] [BIN]: whole-program costs of the clean store scaled
# to N entries, for docs/PERFORMANCE.md's growth table. Generates the store
# (unless WORKDIR/clean already holds one), then times verify, replay and the
# lineage summary, one after the other, with /usr/bin/time (wall seconds,
# user and system CPU seconds, peak RSS in MB). Prints one line per command.
# Run it on a quiet machine: wall times are what it measures.
#
#   scripts/growth.sh 100000 /tmp/g100k
#   scripts/growth.sh 1000000 /tmp/g1m
set -eu
n=${1:?usage: growth.sh N [WORKDIR] [BIN]}
work=${2:-/tmp/memscope-growth-$n}
bin=${3:-}
if [ -z "$bin" ]; then
	bin=$work/memscope
	mkdir -p "$work"
	(cd "$(dirname "$0")/.." && go build -o "$bin" ./cmd/memscope)
fi
fmt='%e %U %S %M'
report() { # what, time output file
	awk -v what="$1" -v n="$n" '{ printf "%-10s N=%-9s wall %7.1f s  cpu %7.1f s  peak %6.0f MB\n", what, n, $1, $2 + $3, $4 / 1024 }' "$2"
}
store=$work/clean
if [ ! -d "$store" ]; then
	/usr/bin/time -f "$fmt" -o "$work/t.gen" "$bin" demo --out "$work" --scenario clean --entries "$n" >/dev/null || true
	report generate "$work/t.gen"
fi
cd "$store"
anchors="--log log --log-key log.vkey --trust trust.keys"
# shellcheck disable=SC2086 # anchors are several flags
/usr/bin/time -f "$fmt" -o "$work/t.verify" "$bin" verify snapshot.db $anchors >/dev/null || true
report verify "$work/t.verify"
# shellcheck disable=SC2086
/usr/bin/time -f "$fmt" -o "$work/t.replay" "$bin" replay snapshot.db $anchors >/dev/null || true
report replay "$work/t.replay"
# shellcheck disable=SC2086
/usr/bin/time -f "$fmt" -o "$work/t.lineage" "$bin" lineage snapshot.db $anchors >/dev/null || true
report lineage "$work/t.lineage"
