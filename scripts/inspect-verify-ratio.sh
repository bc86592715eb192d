#!/bin/sh
# inspect-verify-ratio.sh STORE_DIR [ROUNDS]: how long the inspector takes
# to say "verified" against `memscope verify` on the same store, in the
# same run (docs/performance-history.md, "time to verified"). Each round runs the
# inspector (tmux, 120x40, polling the screen until the status line says
# "verified:") and the CLI, in turn first, so load changes hit both alike; ROUNDS
# (default 3) rounds. Per round it prints both wall times (ms from process
# start: the shell that execs memscope writes the clock first), both CPU
# times (the inspector's read from /proc at "verified", so the time it
# then spends idle is not counted) and both peak RSS; the last line is the
# median wall and CPU ratio, inspector / CLI. Under load the ratio is the
# figure to quote, not the wall times.
# Needs tmux, GNU date, /usr/bin/time and memscope on PATH (or
# MEMSCOPE=path; CLI=path times another binary's verify).
set -eu
dir=${1:?usage: scripts/inspect-verify-ratio.sh STORE_DIR [ROUNDS]}
rounds=${2:-3}
ms=${MEMSCOPE:-memscope}
case $ms in */*) ms=$(cd "$(dirname "$ms")" && pwd)/$(basename "$ms") ;; esac
cli=${CLI:-$ms}
case $cli in */*) cli=$(cd "$(dirname "$cli")" && pwd)/$(basename "$cli") ;; esac
cd "$dir"
sess=inspect-verify-$$
clock=$(mktemp)
out=$(mktemp)
trap 'tmux kill-session -t $sess 2>/dev/null || true; rm -f "$clock" "$out"' EXIT
trap 'exit 1' INT TERM HUP
now() { date +%s%N; }
tck=$(getconf CLK_TCK)
echo "# $(date -u +%Y-%m-%dT%H:%MZ) $(uname -n) $(nproc) cores, load: $(cut -d' ' -f1-3 /proc/loadavg)"
# inspector times one inspector run to "verified" (iw, ic, irss, status).
inspector() {
	tmux kill-session -t "$sess" 2>/dev/null || true
	: >"$clock"
	tmux new-session -d -s "$sess" -x 120 -y 40 "date +%s%N >$clock; exec $ms inspect snapshot.db --log log --anchors scenario.json"
	until [ -s "$clock" ]; do sleep 0.001; done
	pid=$(tmux list-panes -t "$sess" -F '#{pane_pid}')
	until tmux capture-pane -p -t "$sess" 2>/dev/null | grep -q "verified:"; do sleep 0.2; done
	iw=$((($(now) - $(cat "$clock")) / 1000000))
	# utime + stime, fields 14 and 15 (the name in field 2 has no spaces)
	ic=$(awk -v t="$tck" '{printf "%.0f", ($14 + $15) * 1000 / t}' /proc/"$pid"/stat)
	irss=$(awk '/VmHWM/ {printf "%.0f", $2 / 1024}' /proc/"$pid"/status)
	status=$(tmux capture-pane -p -t "$sess" | grep -m1 "verified:" | tr -s ' ' | cut -c1-60)
	tmux send-keys -t "$sess" q
	j=0
	while [ -r /proc/"$pid"/status ] && [ "$j" -lt 100 ]; do sleep 0.1; j=$((j + 1)); done
	tmux kill-session -t "$sess" 2>/dev/null || true
}
# cliverify times one memscope verify run (cw, cc, crss).
cliverify() {
	/usr/bin/time -f '%e %U %S %M' -o "$out" "$cli" verify snapshot.db --log log --anchors scenario.json >/dev/null || true
	read -r cw cu cs cm <"$out"
	cw=$(echo "$cw * 1000" | bc | cut -d. -f1)
	cc=$(echo "($cu + $cs) * 1000" | bc | cut -d. -f1)
	crss=$((cm / 1024))
}
walls=""
cpus=""
i=0
while [ "$i" -lt "$rounds" ]; do
	i=$((i + 1))
	# Odd rounds run the inspector first, even rounds the CLI first, so a
	# drift in the host's speed within a round favours neither.
	if [ $((i % 2)) -eq 1 ]; then
		inspector
		cliverify
		order="inspector first"
	else
		cliverify
		inspector
		order="verify first"
	fi
	rw=$(echo "scale=2; $iw / $cw" | bc)
	rc=$(echo "scale=2; $ic / $cc" | bc)
	echo "round $i: inspector $iw ms wall, $ic ms CPU, $irss MB peak; verify $cw ms wall, $cc ms CPU, $crss MB peak; ratio wall $rw, CPU $rc  ($order) [$status]"
	walls="$walls $rw"
	cpus="$cpus $rc"
done
# med: the median; of an even count, the mean of the middle two.
med() { echo $1 | tr ' ' '\n' | sort -n | awk '{a[NR]=$1} END {if (NR % 2) print a[(NR+1)/2]; else printf "%.3f\n", (a[NR/2] + a[NR/2+1]) / 2}'; }
echo "median ratio inspector/verify over $rounds rounds: wall $(med "$walls"), CPU $(med "$cpus")  (load now: $(cut -d' ' -f1-3 /proc/loadavg))"
