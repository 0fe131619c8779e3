#!/usr/bin/env bash
# End-to-end test of the workbench: builds the real crewbench binary, runs
# `crewbench demo` in a detached tmux session and drives it the way a new
# user would, checking the captured screens:
#
#   1. start: the screen is usable at once and the four demo servers connect
#   2. find a tool by its original name with / (getForecast) and see the name
#      the LLM gets, and how it is derived
#   3. in the filter playground, see a camelCase filter keep nothing, and fix
#      it with the suggestion
#   4. try the slow tool and watch its attempts time out and retry
#   5. kick off the crew in step mode (read the messages about to be sent,
#      then the tools offered), answer the pauses, run to the end
#   6. in the sessions view, compare the run's recording with the run, then
#      re-run it offline with a filter that hides the weather tool: see the
#      first divergence and the changes, and open the re-run in the trace
#   7. quit: the program exits 0 and every server process it started is gone
#
# Needs go and tmux. Exit status 0 when every check passes. It cleans up its
# tmux session, the processes it started and its temporary directory.
#
# Usage: scripts/e2e-tui.sh        (CREWBENCH_E2E_KEEP=1 keeps the temp dir)
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v tmux >/dev/null 2>&1; then
  echo "e2e-tui: tmux is required (apt-get install tmux)" >&2
  exit 1
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/crewbench-e2e.XXXXXX")
session="crewbench-e2e-$$"
bin="$tmp/crewbench"
step_name="setup"
cb_pid=""

# Processes started for the test, by pid: the pane's shell, crewbench and
# its children. Never by name.
descendants() {
  local pid=$1 child
  for child in $(ps -o pid= --ppid "$pid" 2>/dev/null); do
    echo "$child"
    descendants "$child"
  done
}

cleanup() {
  local status=$? last=$BASH_COMMAND
  if [ "$status" -ne 0 ] && [ -z "${failed:-}" ]; then
    # set -e ended the run outside fail(): say where instead of nothing.
    echo "e2e-tui: FAIL in step \"$step_name\": \`$last\` exited with status $status" >&2
  fi
  if tmux has-session -t "$session" 2>/dev/null; then
    local pane
    pane=$(tmux display-message -p -t "$session" '#{pane_pid}' 2>/dev/null || true)
    if [ -n "$pane" ]; then
      for pid in $(descendants "$pane"); do kill "$pid" 2>/dev/null || true; done
    fi
    tmux kill-session -t "$session" 2>/dev/null || true
  fi
  if [ "${CREWBENCH_E2E_KEEP:-}" = "1" ]; then
    echo "e2e-tui: kept $tmp" >&2
  else
    rm -rf "$tmp"
  fi
  exit "$status"
}
trap cleanup EXIT INT TERM

screen() { tmux capture-pane -p -t "$session" 2>/dev/null || true; }

fail() {
  failed=1
  echo >&2
  echo "e2e-tui: FAIL in step \"$step_name\": $*" >&2
  echo "---- last screen ----" >&2
  screen >&2
  echo "---------------------" >&2
  if [ -s "$tmp/tui.log" ]; then
    echo "---- crewbench log (tail) ----" >&2
    tail -n 40 "$tmp/tui.log" >&2
  fi
  exit 1
}

# wait_for TIMEOUT_S TEXT...: until the screen shows every TEXT.
wait_for() {
  local timeout=$1; shift
  local deadline=$((SECONDS + timeout)) s missing
  while :; do
    s=$(screen)
    missing=""
    for text in "$@"; do
      if ! grep -qF -- "$text" <<<"$s"; then missing="$text"; break; fi
    done
    [ -z "$missing" ] && return 0
    if [ "$SECONDS" -ge "$deadline" ]; then
      fail "the screen never showed \"$missing\" within ${timeout}s"
    fi
    sleep 0.2
  done
}

# keys K...: one key at a time, like a person (tmux key names).
keys() {
  for k in "$@"; do
    tmux send-keys -t "$session" "$k"
    sleep 0.15
  done
}

# type TEXT: literal text into the focused field.
type_text() {
  tmux send-keys -t "$session" -l "$1"
  sleep 0.3
}

step() { step_name=$1; echo "e2e-tui: $1"; }

step "build"
go build -o "$bin" .

step "start crewbench demo"
mkdir -p "$tmp/home" "$tmp/state"
tmux new-session -d -s "$session" -x 120 -y 36 \
  "cd '$tmp' && env HOME='$tmp/home' XDG_STATE_HOME='$tmp/state' TERM=xterm-256color CREWBENCH_TUI_LOG='$tmp/tui.log' '$bin' demo; echo \$? > '$tmp/exit'; sleep 300"
# The screen is usable before the servers are ready: the header and the
# view tabs draw at once.
wait_for 15 "crewbench" "1 Servers" "2 Tools"
pane=$(tmux display-message -p -t "$session" '#{pane_pid}')
for _ in $(seq 50); do
  cb_pid=$(ps -o pid= --ppid "$pane" | head -n1 | tr -d ' ')
  [ -n "$cb_pid" ] && break
  sleep 0.1
done
[ -n "$cb_pid" ] || fail "crewbench did not start"

step "wait for the servers"
wait_for 45 "servers 4/4 ready"

step "find a tool by its original name"
keys 2 /
type_text "getForecast"
wait_for 10 "/getForecast" "crewbench_fixture_weather_get_forecast"
keys Enter Enter
wait_for 10 "How the name is derived" "split camelCase"
keys Escape

step "see a filter keep nothing, and fix it"
keys 3
wait_for 10 "Filter playground" "weather" "keeps 1 of 2"
keys e C-u
type_text "getForecast"
wait_for 10 "keeps 0 of 2" "did you mean"
keys Escape
sleep 0.3
keys F
wait_for 10 "keeps 1 of 2" "✓ kept"

step "try the slow tool and watch its retries"
keys 2 / C-u
type_text "slow_report"
keys Enter t
wait_for 10 "Try slow_report @ slow" "crewbench_fixture_slow_slow_report"
keys Enter
type_text "5"
keys Enter r
wait_for 20 "attempt 1/3 timeout" "retrying in"
wait_for 30 "attempt 3/3 timeout" "timeout in"

step "kick off the crew and step"
keys 5
wait_for 10 "Kickoff" "Weekend Weather Brief" "city"
keys s
wait_for 30 "PAUSED before an LLM call" "Messages about to be sent" "#0 system"
keys v
wait_for 10 "Tools offered" "crewbench_fixture_weather_get_forecast"
keys s
wait_for 30 "PAUSED before tool call"
finished=""
for _ in $(seq 10); do
  keys c
  deadline=$((SECONDS + 60))
  while [ "$SECONDS" -lt "$deadline" ]; do
    s=$(screen)
    if grep -qF "FINISHED WITH 1 TOOL FAILURE" <<<"$s"; then finished=1; break; fi
    if grep -qF "PAUSED before" <<<"$s"; then break; fi
    sleep 0.2
  done
  [ -n "$finished" ] && break
done
[ -n "$finished" ] || fail "the run never finished (expected the slow tool's failure banner)"
wait_for 5 "slow_report"

step "compare the recording with the run, then re-run it with another filter"
keys 7
wait_for 10 "● this run"
keys c
wait_for 15 "Changes from the recording to this run" "no differences"
keys Escape R
wait_for 10 "Re-run" "keep going past the first divergence"
keys Enter C-u
type_text "get_alerts"
keys Enter r
wait_for 60 "DIVERGED AT LLM CALL 2 OF 5" "message 3 (tool) differs in content" "+ crewbench_fixture_weather_get_alerts"
keys o
wait_for 10 "re-run of" "Tool not found"

step "quit"
children=$(descendants "$cb_pid" | tr '\n' ' ')
keys q
deadline=$((SECONDS + 30))
while [ ! -s "$tmp/exit" ]; do
  [ "$SECONDS" -ge "$deadline" ] && fail "crewbench did not exit within 30s of q"
  sleep 0.2
done
code=$(cat "$tmp/exit")
[ "$code" = "0" ] || fail "crewbench exited with status $code"
for pid in $children; do
  if kill -0 "$pid" 2>/dev/null; then
    fail "process $pid started by crewbench is still running after quit"
  fi
done

# --- signals: INT, TERM and HUP (a closed terminal) end the workbench -------
# within a few seconds with 128+signal, every child reaped and the demo's
# temporary directory removed, whenever they arrive (rounds × 3 signals, at
# random moments from start-up to ready).
signal_round() {
  local sig=$1 want=$2 delay=$3 s2="crewbench-e2e-sig-$$" pane pid kids code deadline
  rm -f "$tmp/sigexit"
  tmux new-session -d -s "$s2" -x 120 -y 36 \
    "cd '$tmp' && env HOME='$tmp/home' XDG_STATE_HOME='$tmp/state' TMPDIR='$tmp/sigtmp' TERM=xterm-256color '$bin' demo; echo \$? > '$tmp/sigexit'; sleep 300"
  pane=$(tmux display-message -p -t "$s2" '#{pane_pid}')
  pid=""
  for _ in $(seq 100); do
    # ps exits 1 while the pane's shell has not started crewbench yet;
    # with pipefail and set -e that ended the whole run silently.
    pid=$(ps -o pid= --ppid "$pane" | head -n1 | tr -d ' ' || true)
    [ -n "$pid" ] && break
    sleep 0.05
  done
  [ -n "$pid" ] || fail "signal $sig: crewbench did not start"
  sleep "$delay"
  kids=$(descendants "$pid" | tr '\n' ' ')
  kill -s "$sig" "$pid" || fail "signal $sig after ${delay}s: crewbench (pid $pid) was gone before the signal (exit status $(cat "$tmp/sigexit" 2>/dev/null))"
  deadline=$((SECONDS + 10))
  while [ ! -s "$tmp/sigexit" ]; do
    [ "$SECONDS" -ge "$deadline" ] && { tmux kill-session -t "$s2"; fail "signal $sig after ${delay}s: crewbench did not exit within 10s"; }
    sleep 0.1
  done
  code=$(cat "$tmp/sigexit")
  tmux kill-session -t "$s2" 2>/dev/null || true
  [ "$code" = "$want" ] || fail "signal $sig after ${delay}s: exit status $code, want $want"
  for k in $kids; do
    if kill -0 "$k" 2>/dev/null && [ "$(ps -o stat= -p "$k" | cut -c1)" != "Z" ]; then
      fail "signal $sig after ${delay}s: process $k started by crewbench is still running"
    fi
  done
  if ls -d "$tmp/sigtmp/crewbench-demo-$pid-"* >/dev/null 2>&1; then
    fail "signal $sig after ${delay}s: the demo's temporary directory was left behind"
  fi
  signals_ok=$((signals_ok + 1))
}

step "signals"
mkdir -p "$tmp/sigtmp"
rounds=${CREWBENCH_E2E_SIGNAL_ROUNDS:-3}
signals_ok=0
for r in $(seq "$rounds"); do
  for pair in INT:130 TERM:143 HUP:129; do
    delay=$(( (RANDOM % 30) ))
    signal_round "${pair%%:*}" "${pair##*:}" "$(printf '0.%02d' "$delay")"
    signal_round "${pair%%:*}" "${pair##*:}" "$(( RANDOM % 3 + 1 ))"
  done
done

echo "e2e-tui: signals: $signals_ok of $((rounds * 6)) INT/TERM/HUP exited with 130/143/129, every child reaped, no temporary folder left"
echo "e2e-tui: ok"
