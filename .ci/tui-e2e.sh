#!/usr/bin/env bash
# Terminal end-to-end test of the inspector: runs `memscope demo` in a real
# terminal (tmux) at 80x24 and at 200x50, drives it with keys and asserts on
# the screen text. On failure it prints the captured screen and exits
# non-zero.
#
# At each size: the picker's help, expect line and folder; a full finding message
# read from the preview pane; Enter on a finding and esc back to the same
# row; Enter on a checkpoint finding selects that checkpoint in the Log
# view; L switches the label policy everywhere; a jump with : to a short
# id as the Entries view shows it; c reads and copies one cell of the
# Detail view; back to the picker; the AuthSelect story step by step, each
# part on screen; the Actions view (a column per defence, the HEADLINE
# mark, enter opens the story); e in every view; keys a view does not use
# say so; help's g/G and / lookup. A pass at 250x60, the widest layout.
# Then `memscope demo --present` at 80x24 and 200x50 (space, enter, N and
# the footer that names them), and `memscope demo` piped (progress, each
# scenario's headline finding). Last, `memscope inspect` on native stores at
# 120x40: the poisoned HippoRAG 2 fixture (status "checked (unsigned
# store)", never "verified"; the query DIVERGEs; the Lineage view draws
# the payee passage's declared provenance with the two injected edges as
# no-source writes, and re-centres) and the Mem0 fixture (a version chain
# with its DELETE drawn as a deletion).
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
# memscope demo keeps its scenarios in a temporary folder for the user to
# try commands on; here that folder goes with $work. (Set on each command:
# a tmux server started earlier would not pass this shell's environment.)
mkdir -p "$work/tmp"
export XDG_CONFIG_HOME="$work/config" # default key map, whatever the user has

screen() { tmux capture-pane -p -t "$session"; }

fail() {
  echo "FAIL ($size): $*"
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

# wait_gone TEXT: poll until the screen no longer shows TEXT.
wait_gone() {
  local text=$1 i
  for ((i = 0; i < 100; i++)); do
    if ! screen | grep -qF -- "$text"; then return 0; fi
    sleep 0.1
  done
  fail "screen still shows: $text"
}

keys() { tmux send-keys -t "$session" "$@"; sleep 0.3; }
typed() { tmux send-keys -t "$session" -l "$1"; sleep 0.3; }
step() { echo "--- $size: $*"; }
selected() { screen | grep -E '^(▶|>) ' | head -1; }

# preview_text: the preview pane's text with all whitespace removed (the
# pane wraps; beside the list it is right of the first │, below it starts
# at its title).
preview_text() {
  local s
  s=$(screen)
  if echo "$s" | grep -q '│ Selected in full'; then
    echo "$s" | awk -F'│' 'NF > 1 { print $2 }'
  else
    echo "$s" | sed -n '/Selected in full/,$p'
  fi | tr -d ' \n'
}

# select_scenario NAME: move the picker's selection onto NAME.
select_scenario() {
  local i
  keys g # the picker's top
  for ((i = 0; i < 20; i++)); do
    if selected | grep -qE "^(▶|>) $1 "; then return 0; fi
    keys j
  done
  fail "could not select $1"
}

run_at() {
  size="$1x$2"
  tmux kill-session -t "$session" 2>/dev/null || true
  tmux new-session -d -s "$session" -x "$1" -y "$2" -c "$work" "TERM=xterm-256color TMPDIR=$work/tmp $work/memscope demo; sleep 30"

  step "picker: scenarios, ? help, the expect line, the folder"
  wait_for "structural-write" 90
  wait_for "expect:"
  wait_for "folder: "
  keys '?'
  wait_for "Keys in the picker"
  keys x
  wait_gone "Keys in the picker"

  step "tampered: a full finding message from the preview pane"
  select_scenario tampered
  wait_for "expect: one finding of every kind"
  keys Enter
  wait_for "[1 Overview]" 60
  wait_for "verified:" 120
  keys 2
  wait_for "[2 Findings]"
  wait_for "TILE_MISMATCH"
  keys /
  typed "hashes to"
  keys Enter
  wait_for "filter: hashes to"
  # The TILE_MISMATCH message as memscope verify --json gives it (the
  # same seed writes the same bytes): its start and its end in the preview.
  local msg="${tile_msg:0:60}" tail="${tile_msg: -40}"
  preview_text | grep -qF -- "$(echo "message: $msg" | tr -d ' ')" || fail "preview lacks the message start: $msg"
  preview_text | grep -qF -- "$(echo "$tail" | tr -d ' ')" || fail "preview lacks the message end: $tail"
  selected | grep -qF -- "$tail" && [ "$1" -lt 120 ] && fail "at $size the list row itself cannot hold the message"

  step "enter on a finding, esc back to the same row"
  keys Escape
  wait_gone "filter: leaf 0"
  local i
  for ((i = 0; i < 60; i++)); do
    if selected | grep -q RECORD_MALFORMED; then break; fi
    keys j
  done
  selected | grep -q RECORD_MALFORMED || fail "no RECORD_MALFORMED row"
  local before
  before=$(selected)
  keys Enter
  wait_for "[4 Detail]" 30
  wait_for "Findings" # the breadcrumb names where esc goes
  keys Escape
  wait_for "[2 Findings]"
  [ "$(selected)" = "$before" ] || fail "esc returned to another row: '$(selected)' (was '$before')"

  step "enter on a checkpoint finding selects the checkpoint in the Log view"
  # The fork's message is stable; its checkpoint number and size follow
  # the generated log, so they are read from the selected row.
  keys /
  typed "is not consistent with the log"
  keys Enter
  for ((i = 0; i < 30; i++)); do
    if selected | grep -q CHECKPOINT_FORK; then break; fi
    sleep 0.1
  done
  selected | grep -q CHECKPOINT_FORK || fail "the filter did not select the CHECKPOINT_FORK row"
  # The tampered log may fork at more than one checkpoint: the forks are
  # then one root-cause group, unfolded with enter; j selects the first.
  local unfolded=""
  if selected | grep -qE 'CHECKPOINT_FORK +[0-9]+ findings'; then
    unfolded=1
    keys Enter
    keys j
    for ((i = 0; i < 30; i++)); do
      if selected | grep -qE 'checkpoint [0-9]+'; then break; fi
      sleep 0.1
    done
  fi
  cp=$(selected | grep -oE 'checkpoint [0-9]+' | head -1 | cut -d' ' -f2)
  [ -n "$cp" ] || fail "the CHECKPOINT_FORK row names no checkpoint: '$(selected)'"
  keys Enter
  wait_for "[7 Log]" 10
  selected | grep -qE "^(▶|>) $cp +[0-9]+ " || fail "checkpoint $cp is not selected: '$(selected)'"
  wait_for "checkpoint $cp  tree size"
  keys Escape
  wait_for "[2 Findings]"
  if [ -n "$unfolded" ]; then
    keys k Enter # fold the group again: wide screens show its messages
  fi
  keys Escape
  wait_gone "filter: is not consistent with the log"

  step "L switches the label policy for every view; the header says which"
  wait_for "fail-open"
  keys L
  wait_for "fail-closed" 30
  keys 1
  wait_for "labels       fail-closed"
  keys L
  wait_for "labels       fail-open" 30
  keys 2

  step ": jumps to a short id as the Entries view shows it"
  keys 3
  wait_for "[3 Entries]"
  keys j j j
  local short
  short=$(selected | awk '{print $2}')
  case "$short" in *…*) ;; *) fail "entries show no short id: $short" ;; esac
  keys :
  wait_for "view, id or short id"
  typed "$short"
  keys Enter
  wait_for "[4 Detail]" 30
  wait_for "Entry ${short%%…*}"
  wait_for "${short##*…}"

  step "c in the Detail view: every cell in full, one copied"
  keys c
  wait_for "Copy a cell of Detail"
  keys G
  wait_for "signed bytes (hex) in full"
  keys g
  keys 1
  wait_for "copied id"
  keys Escape
  wait_for "[3 Entries]"

  step "back to the picker"
  keys P
  wait_for "pick a scenario" 30

  step "structural-write: the AuthSelect story"
  select_scenario structural-write
  keys Enter
  wait_for "[1 Overview]" 60
  keys 6
  wait_for "DIVERGE" 60
  keys n
  wait_for "story 1/6"
  wait_for "G_auth (authenticated)"
  wait_for "G (full graph)"
  wait_for "INJECTED"
  keys n
  wait_for "story 2/6"
  wait_for "Injected passage"
  wait_for "Payee record: Karen Joy Fowler"
  keys n
  wait_for "story 3/6"
  wait_for "Culprits: 2 of 2"
  wait_for "-[60.00]->"
  keys n
  wait_for "story 4/6"
  wait_for "The action that followed"
  wait_for "act-pay-fowler"
  wait_for "MemLineage gate"
  keys n
  wait_for "story 5/6"
  wait_for "restores the G_auth selection" 30
  wait_for "[x]"
  keys n
  wait_for "story 6/6"
  wait_for "G minus 2 writes"
  wait_for "vs G"
  wait_for "2 removed"

  step "Actions: one column per defence, the HEADLINE mark, enter opens the story"
  keys Escape
  keys 8
  wait_for "[8 Actions]"
  wait_for "AUTHSELECT"
  wait_for "dispatched that a defence refuses"
  screen | grep -qF " 0 dispatched that a defence refuses" && fail "the header counts no refused action"
  keys g
  for ((i = 0; i < 10; i++)); do
    if selected | grep -q "act-pay-fowler"; then break; fi
    keys j
  done
  selected | grep -q "! act-pay-fowler" || fail "the payment row has no HEADLINE mark: '$(selected)'"
  selected | grep -q "substitute" || fail "the payment row lacks AuthSelect's substitute: '$(selected)'"
  keys Enter
  wait_for "[6 Replay]" 30
  wait_for "INJECTED" 30
  keys Escape
  wait_for "[8 Actions]"

  step "e exports every view (or says why not); nothing crashes"
  local v before
  for v in 1 2 3 4 5 6 7 8 9 0; do
    keys "$v"
    case $v in
      5) wait_for "Lineage of" 30 ;;
      9) wait_for "Timeline:" 60 ;;
      0) wait_for "SELECTOR" 120 ;;
    esac
    keys e
    wait_for "exported to" 30
    keys Escape
  done
  [ "$(ls "$work"/memscope-*.json | wc -l)" -ge 10 ] || fail "fewer than 10 export files in $work"
  rm -f "$work"/memscope-*.json
  keys 9
  keys /
  screen | grep -qF "does nothing in the Timeline view" || fail "/ in the Timeline says nothing"
  typed "peer" # the issue's crash: e exported the Timeline by accident
  screen | grep -qF "[9 Timeline]" || fail "typing in the Timeline left it"
  rm -f "$work"/memscope-*.json

  step "help: g/G top and bottom, / looks a word up, esc closes"
  keys '?'
  wait_for "Keys"
  keys G
  wait_gone "more lines"
  screen | grep -qF "looking up" && fail "G in help started a lookup"
  keys g
  wait_for "Keys  (effective bindings"
  keys /
  typed "S_adv"
  wait_for "looking up: S_adv"
  wait_for "heavy budget"
  keys Escape
  wait_gone "looking up"
  keys Escape
  wait_gone "Keys  (effective bindings"
  keys q
  for ((i = 0; i < 50; i++)); do
    if ! screen | grep -qF "[6 Replay]"; then break; fi
    sleep 0.1
  done
  screen | grep -qF "[6 Replay]" && fail "q did not quit"
  return 0
}

# The tampered tile's finding message, read from the CLI: the preview must
# hold it in full.
"$work/memscope" demo --out "$work/ref" --scenario tampered >/dev/null
tile_msg=$(cd "$work/ref/tampered" && "$work/memscope" verify snapshot.db --log log --anchors scenario.json --hmac-key hmac.key --json |
  /usr/bin/python3 -c 'import json,sys; print(next(f["message"] for f in json.load(sys.stdin)["findings"] if f["code"] == "TILE_MISMATCH"))' || true)
[ -n "$tile_msg" ] || { echo "FAIL: memscope verify reports no TILE_MISMATCH on tampered"; exit 1; }

run_at 80 24
run_at 200 50
run_at 250 60

# never_verified: a native store is unsigned; no screen may say "verified".
never_verified() {
  if screen | grep -qiw verified; then fail "a native store's screen says verified"; fi
}

size=120x40-native
step "memscope inspect on a native store: the poisoned HippoRAG 2 fixture"
hippo=$(pwd)/testdata/hipporag
tmux kill-session -t "$session" 2>/dev/null || true
tmux new-session -d -s "$session" -x 120 -y 40 -c "$work" "TERM=xterm-256color $work/memscope inspect $hippo/poisoned --queries $hippo/queries.jsonl; sleep 30"
wait_for "[1 Overview]" 60
wait_for "unsigned store: provenance declared by the store's own fields"
wait_for "checked (unsigned store):" 60
never_verified
step "native replay: the AuthSelect query diverges"
keys 6
wait_for "DIVERGE" 60
selected | grep -q "DIVERGE" || fail "the query row is not DIVERGE: '$(selected)'"
selected | grep -q "IFC-BLIND" || fail "the query row is not IFC-blind: '$(selected)'"
never_verified
step "native lineage: the payee passage's declared provenance, the injected edges as no-source writes"
payee=$(grep -o '"payee": "[^"]*"' "$hippo/expected.json" | cut -d'"' -f4)
keys 3
wait_for "[3 Entries]"
keys :
wait_for "view, id or short id"
typed "$payee"
keys Enter
wait_for "[4 Detail]" 30
keys 5
wait_for "declared by the store, unsigned" 30
wait_for "NO SOURCE (a no-source write) to entity-"
wait_for "(this passage)"
wait_for "2 edge(s) here name no source"
[ "$(screen | grep -c 'NO SOURCE (a no-source write)')" -eq 2 ] || fail "want the 2 injected edges drawn as no-source writes"
never_verified
step "native lineage: enter re-centres on the entity the injected edge was wired to"
keys j
selected | grep -q "NO SOURCE" || fail "the first edge row is not a no-source write: '$(selected)'"
keys Enter
wait_for "Lineage of entity-" 30
wait_for "[entity]"
never_verified
keys q

size=120x40-mem0
step "memscope inspect on a Mem0 history.db: a version chain with its DELETE"
tmux kill-session -t "$session" 2>/dev/null || true
tmux new-session -d -s "$session" -x 120 -y 40 -c "$work" "TERM=xterm-256color $work/memscope inspect $(pwd)/testdata/mem0db/history.db; sleep 30"
wait_for "checked (unsigned store):" 60
never_verified
keys 3
wait_for "[3 Entries]"
keys g
keys 5
wait_for "declared by the store, unsigned" 30
wait_for "version chain in Mem0's history table"
wait_for "DELETE"
wait_for "DELETED, was: "
never_verified
keys q

for present_size in 80x24 200x50; do
  size=$present_size-present
  step "memscope demo --present steps with space, back with N; the footer names them"
  tmux kill-session -t "$session" 2>/dev/null || true
  tmux new-session -d -s "$session" -x "${present_size%x*}" -y "${present_size#*x}" -c "$work" "TERM=xterm-256color TMPDIR=$work/tmp $work/memscope demo --present; sleep 30"
  wait_for "story 1/6" 90
  wait_for "INJECTED"
  wait_for "space/enter next step"
  for n in 2 3 4 5; do keys Space; wait_for "story $n/6" 30; done
  wait_for "restores the G_auth selection" 30
  keys N
  wait_for "story 4/6" 30
  keys Enter
  wait_for "story 5/6" 30
  keys q
done

size=headless
step "memscope demo piped: progress on stderr, each scenario's headline finding"
(cd "$work" && TMPDIR="$work/tmp" ./memscope demo --scenario structural-write,mwp >demo.out 2>demo.err) || fail "demo exited non-zero: $(cat "$work/demo.err")"
grep -q "generating scenarios in .*: 1/2 structural-write" "$work/demo.err" || fail "no progress on stderr: $(cat "$work/demo.err")"
grep -q "headline: ERROR REPLAY_IFC_BLIND" "$work/demo.out" || fail "structural-write's headline is not its IFC-blind divergence"
grep -q "headline: ERROR MWP_\|headline: ERROR PARENT_MISSING" "$work/demo.out" || fail "mwp has no headline"
echo "tui e2e: PASS"
