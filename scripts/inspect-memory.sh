#!/bin/sh
# inspect-memory.sh STORE_DIR [SECONDS]: the inspector's memory over time,
# measured from outside (docs/performance-history.md, "Memory follows the
# question"). Starts `memscope inspect` on the store in a detached tmux
# session (120x40), then every half second prints the seconds since start,
# the process's resident set (VmRSS) and peak (VmHWM) in MB, and the status
# line, until the status line says "verified" (or SECONDS pass, default
# 600). The last line is the peak. Memory figures do not depend on the
# machine's load; the times do.
# MEMSCOPE_HEAPPROFILE=FILE is passed on (the profile of the largest live
# heap, written when the inspector quits: the script presses q at the end).
# Needs tmux and memscope on PATH (or MEMSCOPE=path).
set -eu
dir=${1:?usage: scripts/inspect-memory.sh STORE_DIR [SECONDS]}
limit=${2:-600}
ms=${MEMSCOPE:-memscope}
case $ms in */*) ms=$(cd "$(dirname "$ms")" && pwd)/$(basename "$ms") ;; esac
cd "$dir"
sess=inspect-memory-$$
trap 'tmux kill-session -t $sess 2>/dev/null || true' EXIT
trap 'exit 1' INT TERM HUP
echo "# $(date -u +%Y-%m-%dT%H:%MZ) $(uname -n) load: $(cut -d' ' -f1-3 /proc/loadavg)"
t0=$(date +%s%N)
prof=
[ -z "${MEMSCOPE_HEAPPROFILE:-}" ] || prof="MEMSCOPE_HEAPPROFILE=$MEMSCOPE_HEAPPROFILE"
tmux new-session -d -s "$sess" -x 120 -y 40 "exec env $prof $ms inspect snapshot.db --log log --anchors scenario.json"
pid=$(tmux list-panes -t "$sess" -F '#{pane_pid}')
hwm=0
while :; do
	t=$((($(date +%s%N) - t0) / 1000000))
	[ -r /proc/"$pid"/status ] || break
	rss=$(awk '/VmRSS/ {printf "%.0f", $2 / 1024}' /proc/"$pid"/status)
	hwm=$(awk '/VmHWM/ {printf "%.0f", $2 / 1024}' /proc/"$pid"/status)
	status=$(tmux capture-pane -p -t "$sess" | tail -2 | head -1 | tr -s ' ' | cut -c1-70)
	printf '%6.1f s  rss %5s MB  peak %5s MB  %s\n' "$(echo "$t / 1000" | bc -l)" "$rss" "$hwm" "$status"
	case $status in *verified*) break ;; esac
	[ "$t" -lt $((limit * 1000)) ] || break
	sleep 0.5
done
echo "peak RSS: $hwm MB"
tmux send-keys -t "$sess" q
i=0
while [ -r /proc/"$pid"/status ] && [ "$i" -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
