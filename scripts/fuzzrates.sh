#!/usr/bin/env bash
# Re-measures the fuzzers' execution rates (docs/performance-history.md, "Fuzzing
# rates"): each target runs for FUZZTIME (default 15s) with two workers and
# prints total execs over the run. Minimisation is capped at 20 runs per
# new input: Go's default (60 s per input) lets one worker spend most of a
# short run shrinking a 20 KB SQLite image, reporting 0 execs/s meanwhile.
# Usage: scripts/fuzzrates.sh [PKG:TARGET ...]
set -euo pipefail
cd "$(dirname "$0")/.."
t=${FUZZTIME:-15s}
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  targets=(record:FuzzDecodeEntry record:FuzzDecodeWrite record:FuzzDecodePrincipalEvent
    record:FuzzDecodeTombstone record:FuzzDecodeQuery record:FuzzDecodeAction
    record:FuzzDecodeGateEvent record:FuzzDecodeNode record:FuzzDecodeConfig record:FuzzDecodeCheckpointSeen
    record:FuzzDecodeVector record:FuzzParseLeaf tlog:FuzzParseCheckpoint tlog:FuzzSplitBundle
    loader:FuzzRowDecoders loader:FuzzOpenSnapshot tlog:FuzzHTTPLog)
fi
echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%Y-%m-%dT%H:%MZ), fuzztime $t"
for pt in "${targets[@]}"; do
  pkg=${pt%%:*} name=${pt#*:}
  out=$(go test "./$pkg" -run '^$' -fuzz "^$name\$" -fuzztime "$t" -fuzzminimizetime 20x -parallel 2 2>&1) || { echo "$pt: FAILED"; echo "$out" | tail -20; exit 1; }
  last=$(echo "$out" | grep -E 'execs: [0-9]+' | tail -1)
  execs=$(echo "$last" | sed -E 's/.*execs: ([0-9]+).*/\1/')
  secs=$(echo "$last" | sed -E 's/.*elapsed: ([0-9]+)s.*/\1/')
  echo "$pt: $execs execs in ${secs}s = $((execs / (secs > 0 ? secs : 1)))/s"
done
