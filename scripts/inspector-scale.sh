#!/bin/sh
# The inspector on a big store, measured from outside through tmux
# (docs/performance-history.md, "Inspector"): anyone can re-run it.
#
#   scripts/inspector-scale.sh STORE_DIR [RUNS]
#
# STORE_DIR is a scenario directory (memscope demo --out D --scenario clean
# --entries 1000000 makes D/clean). Prints, in milliseconds from process
# start (the shell that execs memscope writes the clock first):
#   - first frame: the overview on screen, RUNS times (default 5) and the
#     median;
#   - one further run that opens the Replay view (key 6) at once: when its
#     rows show, and when the status line says "verified";
#   - that run's peak RSS (VmHWM) once verified.
# FIRST_ONLY=1 stops after the first-frame runs.
# Needs tmux, GNU date and memscope on PATH (or MEMSCOPE=path).
set -eu
dir=${1:?usage: scripts/inspector-scale.sh STORE_DIR [RUNS]}
runs=${2:-5}
ms=${MEMSCOPE:-memscope}
case $ms in */*) ms=$(cd "$(dirname "$ms")" && pwd)/$(basename "$ms") ;; esac
cd "$dir"
sess=inspector-scale-$$
clock=$(mktemp)
trap 'tmux kill-session -t $sess 2>/dev/null || true; rm -f "$clock"' EXIT
trap 'exit 1' INT TERM HUP
now() { date +%s%N; }
start() {
	tmux kill-session -t "$sess" 2>/dev/null || true
	: >"$clock"
	tmux new-session -d -s "$sess" -x 120 -y 40 "date +%s%N >$clock; exec $ms inspect snapshot.db --log log --anchors scenario.json"
	until [ -s "$clock" ]; do sleep 0.001; done
}
# waitfor PATTERN: poll the screen until PATTERN shows; print ms since start.
waitfor() {
	until tmux capture-pane -p -t "$sess" 2>/dev/null | grep -q "$1"; do sleep 0.005; done
	echo $((($(now) - $(cat "$clock")) / 1000000))
}
echo "# $(date -u +%Y-%m-%dT%H:%MZ) $(uname -n) load: $(cut -d' ' -f1-3 /proc/loadavg)"
all=""
i=0
while [ "$i" -lt "$runs" ]; do
	start
	t=$(waitfor "principals")
	echo "first frame: $t ms"
	all="$all $t"
	i=$((i + 1))
done
echo "first frame median: $(echo $all | tr ' ' '\n' | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}') ms"
[ -z "${FIRST_ONLY:-}" ] || exit 0
start
tmux send-keys -t "$sess" 6
echo "replay rows shown: $(waitfor "q-born-first  ") ms"
echo "verified: $(waitfor "verified:") ms"
pid=$(tmux list-panes -t "$sess" -F '#{pane_pid}')
echo "peak RSS: $(awk '/VmHWM/ {printf "%.0f MB", $2 / 1024}' /proc/"$pid"/status)"
