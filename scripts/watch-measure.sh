#!/bin/sh
# watch-measure.sh MEMSCOPE [WORKDIR]: the memscope watch rows of
# docs/PERFORMANCE.md. Builds the logs with scripts/watchbench (a 1M-leaf
# log plus 1,000 new leaves; 1,000 tenants of 100 leaves each, 100 new),
# then times, with /usr/bin/time -v (wall, peak RSS, bytes read):
#   1. one round over the 1,000 new leaves of the 1M-leaf log;
#   2. the idle round after it;
#   3. one round over the 1,000-tenant fleet;
#   4. with STORE=D (a demo store, memscope demo --scenario clean
#      --entries 1000000), one --snapshot round over its last 1,000 leaves
#      from the state a round at the size before them leaves, then the
#      same round with a structural write among its new rows (watchbench
#      -structural: it builds the replay graph).
set -eu
ms=${1:?usage: watch-measure.sh MEMSCOPE [WORKDIR]}
work=${2:-$(mktemp -d)}
cd "$(dirname "$0")/.."
[ -d "$work/big" ] || go run ./scripts/watchbench -dir "$work/big" -n 1000000 -new 1000
[ -d "$work/fleet" ] || go run ./scripts/watchbench -dir "$work/fleet" -n 100 -new 100 -fleet 1000
cp "$work/big/state.json" "$work/big/state.run.json"
for round in new idle; do
	echo "--- 1M-leaf log, round: $round"
	/usr/bin/time -v "$ms" watch --log "$work/big/log" --log-key "$work/big/log.vkey" --state "$work/big/state.run.json" --once 2>&1 >/dev/null |
		grep -E 'WATCH_|Elapsed|Maximum resident|File system inputs'
done
echo "--- fleet of 1,000 tenants, 100 new leaves each"
/usr/bin/time -v "$ms" watch --fleet "$work/fleet/fleet.json" --once 2>&1 >/dev/null | grep -E 'Elapsed|Maximum resident' 
grep -c . "$work/fleet/fleet.json" >/dev/null
if [ -n "${STORE:-}" ]; then
	echo "--- --snapshot round over the last 1,000 leaves of $STORE"
	rm -f "$work/snap.state.json"
	go run ./scripts/watchbench -store "$STORE" -new 1000 -state "$work/snap.state.json"
	/usr/bin/time -v "$ms" watch --log "$STORE/log" --log-key "$STORE/log.vkey" --trust "$STORE/trust.keys" --snapshot "$STORE/snapshot.db" --state "$work/snap.state.json" --once 2>&1 >/dev/null |
		grep -E 'WATCH_|Elapsed|User time|System time|Maximum resident'
	echo "--- the same round with a structural write among its new rows"
	rm -f "$work/snap.state.json"
	go run ./scripts/watchbench -store "$STORE" -new 1000 -state "$work/snap.state.json" -structural
	/usr/bin/time -v "$ms" watch --log "$STORE/log" --log-key "$STORE/log.vkey" --trust "$STORE/trust.keys" --snapshot "$STORE/snapshot.db" --state "$work/snap.state.json" --once 2>&1 >/dev/null |
		grep -E 'WATCH_|Elapsed|User time|System time|Maximum resident'
fi
