#!/bin/sh
# json-compare.sh OLD NEW [WORKDIR]: runs two memscope binaries' --json
# output of verify, lineage, replay, actions, timeline and exposure on every
# demo scenario (generated once, by OLD, seed 1) with each scenario's own
# verify_args, report's case file (--date none), and diff --json of the
# clean store against each other scenario, and diffs them (stdout, stderr
# and the exit code). Exit status 1 on any difference. Used to show that a
# change which should not change behaviour (a move, a split) leaves every
# answer as it was.
#
#   git stash; go build -o /tmp/ms-old ./cmd/memscope; git stash pop
#   go build -o /tmp/ms-new ./cmd/memscope
#   scripts/json-compare.sh /tmp/ms-old /tmp/ms-new
set -eu
old=${1:?usage: json-compare.sh OLD NEW [WORKDIR]}
new=${2:?usage: json-compare.sh OLD NEW [WORKDIR]}
work=${3:-$(mktemp -d)}
mkdir -p "$work"
[ -d "$work/demo" ] || "$old" demo --out "$work/demo" >/dev/null 2>&1
status=0
run() { # BIN DIR OUT ARGS...
	bin=$1 dir=$2 out=$3
	shift 3
	(cd "$dir" && "$bin" "$@" >"$out.json" 2>"$out.err" || echo "exit $?" >>"$out.err")
}
same() { # WHAT: compares old.* with new.*
	if cmp -s "$work/old.json" "$work/new.json" && cmp -s "$work/old.err" "$work/new.err"; then
		echo "same      $1"
	else
		echo "DIFFERENT $1"
		diff "$work/old.json" "$work/new.json" | head -10
		diff "$work/old.err" "$work/new.err" | head -5
		status=1
	fi
}
report() { # BIN DIR OUT ARGS...: the case file as OUT.json
	bin=$1 dir=$2 out=$3
	shift 3
	rm -f "$work/case.html" "$work/case.json"
	(cd "$dir" && "$bin" report "$@" --date none --out "$work/case.html" --json "$work/case.json" >"$out.err" 2>&1 || echo "exit $?" >>"$out.err")
	# The build's version (its VCS revision) differs between two builds.
	sed '/"tool": {/,/}/s/"version": ".*"/"version": "(not compared)"/' "$work/case.json" >"$out.json" 2>/dev/null || : >"$out.json"
}
for dir in "$work"/demo/*; do
	[ -f "$dir/scenario.json" ] || continue
	name=$(basename "$dir")
	args=$(sed -n '/"verify_args"/,/]/p' "$dir/scenario.json" | sed -n 's/^ *"\(.*\)",*$/\1/p')
	for cmd in verify lineage replay actions timeline exposure; do
		# shellcheck disable=SC2086
		run "$old" "$dir" "$work/old" $cmd $args --json
		# shellcheck disable=SC2086
		run "$new" "$dir" "$work/new" $cmd $args --json
		same "$name $cmd"
	done
	# shellcheck disable=SC2086
	report "$old" "$dir" "$work/old" $args
	# shellcheck disable=SC2086
	report "$new" "$dir" "$work/new" $args
	same "$name report"
	run "$old" "$work/demo" "$work/old" diff clean/snapshot.db "$name/snapshot.db" --json
	run "$new" "$work/demo" "$work/new" diff clean/snapshot.db "$name/snapshot.db" --json
	same "clean..$name diff"
done
exit $status
