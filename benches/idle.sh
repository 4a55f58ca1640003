#!/usr/bin/env bash
# Idle CPU of the full-screen party: the release binary in a real terminal
# (tmux), CPU of all its threads over 10 s from /proc/<pid>/task/*/schedstat,
# once before the topic and once after a round while the session clock ticks.
#
# Usage: benches/idle.sh [--smoke] [path/to/bmad-party]   (default: target/release/bmad-party)
# --smoke measures over 2 s instead of 10, for CI: it shows the script
# still works, not the figure.
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_MEASURED=10
if [ "${1:-}" = "--smoke" ]; then
    SECONDS_MEASURED=2
    shift
fi
BIN="$(realpath "${1:-target/release/bmad-party}")"
command -v tmux >/dev/null || { echo "needs tmux"; exit 1; }
WORK="$(mktemp -d)"
SOCK="$WORK/tmux.sock"
trap 'tmux -S "$SOCK" kill-server 2>/dev/null || true; rm -rf "$WORK" 2>/dev/null || true' EXIT
tmux -S "$SOCK" -f /dev/null new-session -d -s idle -x 120 -y 40 "cd $WORK && BMAD_PARTY_REHEARSAL_DELAY_MS=5 $BIN --output $WORK/out"
# Shows what the terminal shows, since the party's own messages are there.
fail() { echo "$1:"; tmux -S "$SOCK" capture-pane -p -t idle 2>/dev/null || echo "(its terminal closed)"; exit 1; }
sleep 2
# pgrep finding nothing must reach the check below, not end the script.
PID="$(pgrep -f "^$BIN --output $WORK/out" | head -1 || true)"
[ -n "$PID" ] || fail "bmad-party did not start in tmux"
cpu_ns() { cat /proc/"$PID"/task/*/schedstat | awk '{s += $1} END {print s}'; }
measure() {
    local a b
    a="$(cpu_ns)"; sleep "$SECONDS_MEASURED"; b="$(cpu_ns)"
    awk -v d="$((b - a))" -v s="$SECONDS_MEASURED" -v what="$1" \
        'BEGIN { printf "%s: %.0f us of CPU in %d s = %.3f %% of a core\n", what, d / 1000, s, d / (s * 1e7) }'
}
measure "welcome screen, nothing happening"
tmux -S "$SOCK" send-keys -t idle 'How should we design a plugin system?' Enter
sleep 6   # the rehearsal round ends; the push would come after 30 s
kill -0 "$PID" 2>/dev/null || fail "bmad-party left during the round"
measure "after a round, session clock ticking"
