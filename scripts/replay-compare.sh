#!/bin/sh
# replay-compare.sh OLD NEW [WORKDIR [STORE...]]: runs two memscope
# binaries' `replay --json` on every demo scenario (generated once, by OLD,
# seed 1) with each scenario's own verify_args (log, anchors, HMAC key), in
# the light mode (every query now and as it ran), with --labels, and with
# --first-flip (the full path), and with --policy declared, and diffs the
# outputs; then the same light
# replay on each extra STORE directory (an imported store: snapshot.db, log,
# scenario.json), such as the Debian-KG-sized import of docs/performance-history.md.
# Exit status 1 on any difference. Used to show that a change to how replay
# holds its graph, labels and timeline leaves every row as it was.
#
#   git stash; go build -o /tmp/ms-old ./cmd/memscope; git stash pop
#   go build -o /tmp/ms-new ./cmd/memscope
#   scripts/replay-compare.sh /tmp/ms-old /tmp/ms-new /tmp/rc /work/scale/kg/store
set -eu
old=${1:?usage: replay-compare.sh OLD NEW [WORKDIR [STORE...]]}
new=${2:?usage: replay-compare.sh OLD NEW [WORKDIR [STORE...]]}
work=${3:-$(mktemp -d)}
[ $# -ge 3 ] && shift 3 || shift $#
mkdir -p "$work"
[ -d "$work/demo" ] || "$old" demo --out "$work/demo" >/dev/null 2>&1
status=0
compare() { # NAME DIR ARGS...
	label=$1
	dir=$2
	shift 2
	(cd "$dir" && "$old" replay "$@" --json >"$work/old.json" 2>"$work/old.err" || echo "exit $?" >>"$work/old.err")
	(cd "$dir" && "$new" replay "$@" --json >"$work/new.json" 2>"$work/new.err" || echo "exit $?" >>"$work/new.err")
	if cmp -s "$work/old.json" "$work/new.json" && cmp -s "$work/old.err" "$work/new.err"; then
		echo "same      $label ($(wc -c <"$work/new.json") bytes)"
	else
		echo "DIFFERENT $label"
		diff "$work/old.json" "$work/new.json" | head -20
		diff "$work/old.err" "$work/new.err" | head -5
		status=1
	fi
}
for dir in "$work"/demo/*; do
	[ -f "$dir/scenario.json" ] || continue
	name=$(basename "$dir")
	# verify_args from the manifest, one per line.
	args=$(sed -n '/"verify_args"/,/]/p' "$dir/scenario.json" | sed -n 's/^ *"\(.*\)",*$/\1/p')
	# shellcheck disable=SC2086
	compare "$name" "$dir" $args
	# shellcheck disable=SC2086
	compare "$name --labels" "$dir" $args --labels
	# shellcheck disable=SC2086
	compare "$name --first-flip" "$dir" $args --first-flip --scan
	# shellcheck disable=SC2086
	compare "$name --policy declared" "$dir" $args --policy declared
done
for store in "$@"; do
	compare "$store" "$store" snapshot.db --log log --anchors scenario.json
done
exit $status
