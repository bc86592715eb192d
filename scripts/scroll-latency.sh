#!/bin/bash
# scroll-latency.sh [-k KEYS] [-r ROUNDS] [-q] [-e VAR=VALUE]... STORE_DIR...: keypress-to-frame
# time of `j` in the inspector's Entries view (docs/performance-history.md,
# "Scrolling, whole program"), measured two ways, beside two floors:
#
#   pty   scripts/keylatency.py: the program runs in a pseudo-terminal of
#         120x40 whose output the script reads and emulates (pyte), so the
#         time runs from writing `j` to the end of the frame that shows the
#         new selection, with no polling;
#   tmux  the method of scripts/inspect-timing.sh: tmux send-keys, then
#         capture-pane in a loop until the header changes (each poll is a
#         tmux client round trip, and tmux itself redraws on a timer).
#
# The floors, in the same round: `less` on a plain file (writes at once,
# no frame pacing) and scripts/keybaseline, the smallest Bubble Tea v2
# program that draws a list in the alternate screen with the default
# renderer (60 frames a second, as the inspector uses). Every STORE_DIR is
# a scenario directory (snapshot.db, log, scenario.json); each round runs
# every program once, interleaved, so load moves them alike. Each -e adds
# a run of the inspector (pty only) with that variable set, e.g.
# -e GOMAXPROCS=3 (a spare P for the interface while loading and
# verification hold both cores) or -e GOGC=400. -q runs the tmux loop on
# the floor only, not on every store (it takes a core while it polls).
#
# Needs python3 with pyte (apt-get install python3-pyte), tmux, less, Go
# (to build keybaseline), and memscope on PATH or MEMSCOPE=path.
#
#   scripts/scroll-latency.sh -k 40 /work/scale/100k/cur/clean /work/scale/10m/cur/clean
set -eu
keys=40
rounds=1
variants=()
quick=
while getopts k:r:e:q o; do
	case $o in
	k) keys=$OPTARG ;;
	r) rounds=$OPTARG ;;
	e) variants+=("$OPTARG") ;;
	q) quick=1 ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -ge 1 ] || { echo "usage: scroll-latency.sh [-k KEYS] [-r ROUNDS] [-q] [-e VAR=VALUE]... STORE_DIR..." >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
ms=${MEMSCOPE:-$(command -v memscope || true)}
[ -n "$ms" ] || { echo "memscope not on PATH; set MEMSCOPE" >&2; exit 2; }
case $ms in */*) ms=$(cd "$(dirname "$ms")" && pwd)/$(basename "$ms") ;; esac
tmp=$(mktemp -d)
sess=scroll-latency-$$
trap 'tmux kill-session -t $sess 2>/dev/null || true; rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM HUP
(cd "$here/.." && go build -o "$tmp/keybaseline" ./scripts/keybaseline)
seq -f 'line %08g of a plain file' 1 100000 >"$tmp/lines.txt"

# pty NAME READY PRE PREREADY ROW DIR CMD...
pty() {
	local name=$1 ready=$2 pre=$3 preready=$4 row=$5 dir=$6
	shift 6
	(cd "$dir" && "$here/keylatency.py" --keys "$keys" --ready "$ready" --pre "$pre" --pre-ready "$preready" --row "$row" -- "$@") |
		awk -v n="$name" '/^first frame/ { ff = $3 } /end of the frame/ { sub(/.*frame showing it: /, ""); printf "%-34s pty   first frame %7.1f ms; j: %s\n", n, ff, $0 }'
}

# tmuxkeys NAME READY PRE PREREADY ROW DIR CMD: inspect-timing.sh's loop
# for any command. ROW is 0-based, as for pty.
tmuxkeys() {
	local name=$1 ready=$2 pre=$3 preready=$4 row=$(($5 + 1)) dir=$6 cmd=$7
	screen() { tmux capture-pane -p -t "$sess"; }
	tmux kill-session -t "$sess" 2>/dev/null || true
	(cd "$dir" && tmux new-session -d -s "$sess" -x 120 -y 40 "$cmd")
	until screen | grep -Eq "$ready"; do sleep 0.005; done
	if [ -n "$pre" ]; then
		tmux send-keys -t "$sess" "$pre"
		until screen | grep -Eq "$preready"; do sleep 0.01; done
	fi
	sleep 0.3
	local times=() before t i
	for i in $(seq "$keys"); do
		before=$(screen | sed -n "${row}p")
		t=$(date +%s%N)
		tmux send-keys -t "$sess" j
		while [ "$(screen | sed -n "${row}p")" = "$before" ]; do :; done
		times+=("$((($(date +%s%N) - t) / 1000))")
		sleep 0.06
	done
	tmux kill-session -t "$sess"
	printf '%s\n' "${times[@]}" | sort -n | awk -v n="$name" '{ a[NR] = $1 } END { printf "%-34s tmux  j: median %.1f ms, p90 %.1f, worst %.1f, best %.1f (%d keys, polling included)\n", n, a[int((NR + 1) / 2)] / 1000, a[int(0.9 * (NR - 1) + 1.5)] / 1000, a[NR] / 1000, a[1] / 1000, NR }'
}

cpu=$(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo)
echo "# $(date -u +%Y-%m-%dT%H:%M:%SZ) $(uname -n), $(nproc) cores, $cpu; load: $(cut -d' ' -f1-3 /proc/loadavg)"
insp="inspect snapshot.db --log log --anchors scenario.json"
for r in $(seq "$rounds"); do
	echo "## round $r, load $(cut -d' ' -f1 /proc/loadavg)"
	pty "less (floor, no frame pacing)" '^line 00000001' "" "" 0 "$tmp" less lines.txt
	pty "keybaseline (Bubble Tea floor)" '^Entries ' "" "" 1 "$tmp" "$tmp/keybaseline"
	tmuxkeys "keybaseline (Bubble Tea floor)" '^Entries ' "" "" 1 "$tmp" "$tmp/keybaseline"
	for d in "$@"; do
		n="memscope inspect, $(sed -n 2p "$d/log/checkpoint" 2>/dev/null || echo '?') leaves"
		# shellcheck disable=SC2086
		pty "$n" '^Store ' 3 '^Entries [0-9a-f]' 1 "$d" "$ms" $insp
		[ -n "$quick" ] || tmuxkeys "$n" '^Store ' 3 '^Entries [0-9a-f]' 1 "$d" "$ms $insp"
		for v in "${variants[@]}"; do
			# shellcheck disable=SC2086
			pty "$n, $v" '^Store ' 3 '^Entries [0-9a-f]' 1 "$d" env "$v" "$ms" $insp
		done
	done
done
