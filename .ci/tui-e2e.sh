#!/usr/bin/env bash
# Terminal end-to-end test of the inspector: runs `memscope demo` in a real
# terminal (tmux, 120x40), drives it with keys and asserts on the screen
# text. On failure it prints the captured screen and exits non-zero.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v tmux >/dev/null 2>&1; then
  echo "installing tmux"
  if [ "$(id -u)" -eq 0 ]; then SUDO=""; else SUDO="sudo"; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq tmux >/dev/null
fi

work=$(mktemp -d)
session="memscope-e2e-$$"
cleanup() {
  tmux kill-session -t "$session" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

go build -o "$work/memscope" ./cmd/memscope

export XDG_CONFIG_HOME="$work/config" # default key map, whatever the user has
tmux new-session -d -s "$session" -x 120 -y 40 -c "$work" "TERM=xterm-256color $work/memscope demo; sleep 30"

screen() { tmux capture-pane -p -t "$session"; }

fail() {
  echo "FAIL: $*"
  echo "----- screen -----"
  screen || true
  echo "------------------"
  exit 1
}

# wait_for TEXT [SECONDS]: poll the screen until it shows TEXT (fixed string).
wait_for() {
  local text=$1 limit=${2:-20} i
  for ((i = 0; i < limit * 10; i++)); do
    if screen | grep -qF -- "$text"; then return 0; fi
    sleep 0.1
  done
  fail "screen never showed: $text"
}

keys() { tmux send-keys -t "$session" "$@"; sleep 0.3; }

step() { echo "--- $*"; }

step "picker lists the scenarios"
wait_for "structural-write" 60
for name in clean agentpoison memorygraft sleeper tampered tombstone lategate smsr; do
  wait_for "$name" 5
done

step "select structural-write"
for ((i = 0; i < 20; i++)); do
  if screen | grep -qE '^(▶|>) structural-write'; then break; fi
  keys j
done
screen | grep -qE '^(▶|>) structural-write' || fail "could not select structural-write"
keys Enter
wait_for "[1 Overview]" 60
wait_for "principals"

step "verification finishes in the background"
wait_for "verified:" 120

step "findings view"
keys 2
wait_for "[2 Findings]"
wait_for "SEVERITY"

step "entries view and live filter"
keys 3
wait_for "[3 Entries]"
wait_for "WRITER"
keys /
keys a g e n t
wait_for "/agent_"
wait_for "of "
keys Enter
wait_for "filter: agent"
keys Escape
wait_for "/ filter"

step "entry detail"
keys Enter
wait_for "[4 Detail]"
wait_for "Log inclusion" 30
wait_for "VERIFIED"
keys G
wait_for "Signed bytes"

step "lineage of the entry, tau up"
keys 3 l
wait_for "Lineage of" 30
wait_for "tau = "
before=$(screen | grep -o 'tau = [0-9.]*' | head -1)
keys +
for ((i = 0; i < 50; i++)); do
  now=$(screen | grep -o 'tau = [0-9.]*' | head -1)
  [ "$now" != "$before" ] && break
  sleep 0.1
done
[ "$now" != "$before" ] || fail "tau did not change from $before"
wait_for "External ancestors" 30

step "replay: the attacked query is DIVERGE and IFC-blind"
keys 6
wait_for "[6 Replay]"
wait_for "DIVERGE" 60
wait_for "IFC-BLIND"
screen | grep -E '^(▶|>) ' | grep -q DIVERGE || fail "selected replay row is not DIVERGE"
keys Enter
wait_for "G_auth (authenticated)"
wait_for "Culprits:" 30
wait_for "w=60"
wait_for "Lemma 1"
wait_for "What-if"

step "what-if: remove the culprits, the G_auth selection comes back"
keys w
wait_for "restores the G_auth selection" 30
keys w
wait_for "nothing removed" 30
keys x
wait_for "[x]"
wait_for "removed 1" 30
keys Escape
wait_for "queries:"

step "log and actions"
keys 7
wait_for "Checkpoints"
wait_for "Leaves"
keys 8
wait_for "actions,"

step "help and quit"
keys '?'
wait_for "Keys"
keys x
keys q
for ((i = 0; i < 50; i++)); do
  if ! screen | grep -qF "[8 Actions]"; then break; fi
  sleep 0.1
done
screen | grep -qF "[8 Actions]" && fail "q did not quit"
echo "tui e2e: PASS"
