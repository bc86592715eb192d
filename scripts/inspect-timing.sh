#!/bin/bash
# inspect-timing.sh STORE_DIR [KEYS] [BIN]: time memscope's inspector from
# outside, as a user sees it. Starts `memscope inspect` on the store in a
# detached tmux session (160x45) and polls the screen: the first frame is
# the moment the Overview shows its "Store" line, counted from just before
# the process starts; then it opens Entries and presses j KEYS times
# (default 20), each time waiting until the selected entry named in the
# header changes, and reports the median and worst keypress-to-frame time.
# Polling adds the cost of one tmux capture-pane (a few ms) to each figure,
# and more: the loop holds a core while it polls, and tmux redraws on its
# own timer, so the same loop on a bare Bubble Tea program gives 40-45 ms
# quiet and 190-260 ms under load
# (docs/performance-history.md, "Scrolling, whole program"). For the inspector's
# own keypress-to-frame time use scripts/scroll-latency.sh, which reads the
# program's output from a pseudo-terminal instead.
#
#   scripts/inspect-timing.sh /tmp/g10m/clean 20
set -eu
dir=${1:?usage: inspect-timing.sh STORE_DIR [KEYS] [BIN]}
keys=${2:-20}
bin=${3:-memscope}
session=memscope-timing-$$
screen() { tmux capture-pane -p -t "$session"; }
ms() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }
cleanup() { tmux kill-session -t "$session" 2>/dev/null || true; }
trap cleanup EXIT
cd "$dir"
t0=$(date +%s%N)
tmux new-session -d -s "$session" -x 160 -y 45 \
	"$bin inspect snapshot.db --log log --log-key log.vkey --trust trust.keys"
until screen | grep -q '^Store '; do :; done
echo "first frame: $(ms "$t0") ms from process start"
tmux send-keys -t "$session" 3
until screen | sed -n 2p | grep -q '^Entries [0-9a-f]'; do sleep 0.01; done
echo "entries view with a selection: $(ms "$t0") ms from process start"
times=()
for _ in $(seq "$keys"); do
	before=$(screen | sed -n 2p)
	t=$(date +%s%N)
	tmux send-keys -t "$session" j
	while [ "$(screen | sed -n 2p)" = "$before" ]; do :; done
	times+=("$(( ($(date +%s%N) - t) / 1000 ))")
done
t=$(date +%s%N)
for _ in 1 2 3 4 5; do screen >/dev/null; done
echo "one screen poll: $(( ($(date +%s%N) - t) / 5000 )) us"
printf '%s\n' "${times[@]}" | sort -n | awk '{ a[NR] = $1 } END { printf "j in Entries: median %.1f ms, worst %.1f ms over %d keys (polling included)\n", a[int((NR + 1) / 2)] / 1000, a[NR] / 1000, NR }'
if [ -r /proc/$(tmux list-panes -t "$session" -F '#{pane_pid}')/status ]; then
	grep VmHWM "/proc/$(tmux list-panes -t "$session" -F '#{pane_pid}')/status"
fi
