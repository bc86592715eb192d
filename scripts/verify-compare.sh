#!/bin/sh
# verify-compare.sh OLD NEW [WORKDIR]: runs two memscope binaries' `verify
# --json` on every demo scenario (generated once, by OLD, seed 1, plus the
# clean store scaled to 20,000 entries) with each scenario's own verify_args
# (anchors, HMAC key), and diffs the outputs. Exit status 1 on any
# difference. Used to show that a change to verify's internals leaves every
# finding, count and coverage figure as it was.
#
#   git stash; go build -o /tmp/ms-old ./cmd/memscope; git stash pop
#   go build -o /tmp/ms-new ./cmd/memscope
#   scripts/verify-compare.sh /tmp/ms-old /tmp/ms-new
set -eu
old=${1:?usage: verify-compare.sh OLD NEW [WORKDIR]}
new=${2:?usage: verify-compare.sh OLD NEW [WORKDIR]}
work=${3:-$(mktemp -d)}
mkdir -p "$work"
[ -d "$work/demo" ] || "$old" demo --out "$work/demo" >/dev/null 2>&1
[ -d "$work/bulk" ] || "$old" demo --out "$work/bulk" --scenario clean --entries 20000 >/dev/null 2>&1
status=0
for dir in "$work"/demo/* "$work"/bulk/clean; do
	[ -f "$dir/scenario.json" ] || continue
	name=$(basename "$(dirname "$dir")")/$(basename "$dir")
	# verify_args from the manifest, one per line.
	args=$(sed -n '/"verify_args"/,/]/p' "$dir/scenario.json" | sed -n 's/^ *"\(.*\)",*$/\1/p')
	# shellcheck disable=SC2086
	(cd "$dir" && "$old" verify $args --json >"$work/old.json" 2>/dev/null || true)
	# shellcheck disable=SC2086
	(cd "$dir" && "$new" verify $args --json >"$work/new.json" 2>/dev/null || true)
	if cmp -s "$work/old.json" "$work/new.json"; then
		echo "same      $name ($(grep -c '"code"' "$work/new.json") findings)"
	else
		echo "DIFFERENT $name"
		diff "$work/old.json" "$work/new.json" | head -20
		status=1
	fi
done
exit $status
