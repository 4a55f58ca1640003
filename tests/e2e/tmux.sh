#!/usr/bin/env bash
# The real binary in a real terminal (tmux): type a topic, watch the panes
# stream, read the status bar, leave with Esc then E, confirm, reach the
# final screen, quit, and check the session file and the shell prompt.
#
# Usage: tests/e2e/tmux.sh [path/to/bmad-party]   (default: target/debug/bmad-party)
set -euo pipefail
cd "$(dirname "$0")/../.."

BIN="$(realpath "${1:-target/debug/bmad-party}")"
if ! command -v tmux >/dev/null; then
    echo "installing tmux"
    if [ "$(id -u)" = 0 ]; then apt-get update -qq && apt-get install -y -qq tmux >/dev/null; else sudo apt-get install -y -qq tmux >/dev/null; fi
fi

WORK="$(mktemp -d)"
SOCK="$WORK/tmux.sock"
S=party
cleanup() { tmux -S "$SOCK" kill-server 2>/dev/null || true; sleep 0.2; rm -rf "$WORK" 2>/dev/null || true; }
trap cleanup EXIT

t() { tmux -S "$SOCK" "$@"; }
screen() { t capture-pane -p -t "$S"; }
# How many colour settings the screen holds (SGR 30–38, 40–48, 90–107;
# 39 and 49 are the terminal's own colours).
colours() {
    t capture-pane -p -e -t "$S" | grep -oP '\e\[[0-9;]*m' | tr -d 'm\033[' | tr ';' '\n' \
        | awk '($1>=30 && $1<=38) || ($1>=40 && $1<=48) || ($1>=90 && $1<=107) {n++} END {print n+0}'
}
# Ctrl+C twice: the replies stop, then the party quits (state saved); the shell is back.
quit_now() { t send-keys -t "$S" C-c; t send-keys -t "$S" C-c; wait_for 'e2e-prompt\$' 10; }
fail() { echo "FAIL: $*"; echo "---- screen ----"; screen || true; echo "----------------"; exit 1; }

# Waits up to $2 seconds (default 20) until the screen matches the regex $1.
wait_for() {
    local pattern="$1" limit="${2:-20}" i=0
    while [ "$i" -lt $((limit * 10)) ]; do
        if screen | grep -qE "$pattern"; then return 0; fi
        sleep 0.1; i=$((i + 1))
    done
    fail "timed out waiting for /$pattern/"
}

# A plain shell with a known prompt, in a 100x30 terminal.
t -f /dev/null new-session -d -s "$S" -x 100 -y 30 "env -i PATH=$PATH HOME=$WORK TERM=xterm-256color LANG=C.UTF-8 PS1='e2e-prompt\$ ' bash --norc --noprofile"
wait_for 'e2e-prompt\$' 10
t set -g set-clipboard on
t send-keys -t "$S" "cd $WORK && BMAD_PARTY_REHEARSAL_DELAY_MS=15 $BIN --max-rounds 3 --output $WORK/out" Enter

wait_for 'OFFLINE REHEARSAL' 15
wait_for 'What would you like to discuss'
screen | grep -q 'Round 0/3' || fail "status bar before the topic"

t send-keys -t "$S" -l 'How should we design a plugin system?'
t send-keys -t "$S" Enter
wait_for 'streaming' 15
# Typing while the room talks: the way out stays on screen.
t send-keys -t "$S" -l 'a draft'
wait_for 'a draft' 5
screen | grep -q 'streaming' || fail "the room still talks while the facilitator types"
screen | grep -q '\[Esc E\] Exit' || fail "the exit hint is on screen while typing"
# Agent panes show text while it streams.
wait_for '│done|┃▌streaming' 15
screen | grep -qE 'Round 1/3' || fail "status bar shows round 1 while it runs"
wait_for 'Round 1/3 ' 20
# The round ends; the status bar has the clock and the tokens.
wait_for '\[E\] Exit Party Mode|Round 1/3  │' 20
screen | grep -qE '[0-9]{2}:[0-9]{2}/30:00' || fail "clock in the status bar"
screen | grep -qE '[0-9.]+k? tok' || fail "tokens in the status bar"

# A resize storm, down to 1x1 and back: no crash, memory stays bounded.
PID="$(pgrep -f "output $WORK/out" | head -1)"
[ -n "$PID" ] || fail "no party process"
rss() { awk '/VmRSS/ {print $2}' "/proc/$1/status"; }
BEFORE="$(rss "$PID")"
for i in $(seq 1 300); do
    t resize-window -t "$S" -x $((20 + (i * 7) % 120)) -y $((5 + (i * 3) % 40)) 2>/dev/null || true
done
t resize-window -t "$S" -x 1 -y 1 2>/dev/null || true
sleep 0.3
t resize-window -t "$S" -x 100 -y 30
sleep 0.5
kill -0 "$PID" 2>/dev/null || fail "the party died in the resize storm"
AFTER="$(rss "$PID")"
[ "$AFTER" -lt $((BEFORE + 20000)) ] || fail "memory grew from ${BEFORE} kB to ${AFTER} kB in the resize storm"
wait_for 'Round 1/3' 10
echo "resize storm: RSS ${BEFORE} kB -> ${AFTER} kB"

# Leave through the menu: Esc, E, confirm with Enter.
sleep 0.5
t send-keys -t "$S" Escape
wait_for '\[E\] Exit' 5
t send-keys -t "$S" E
wait_for 'End the party\?' 5
t send-keys -t "$S" Enter
wait_for 'Session saved to' 30
screen | grep -q 'Session Highlights' || fail "highlights on the final screen"
screen | grep -q 'any other key quits' || fail "final screen hint"
# The keepsake: H writes the page beside the session and says where.
t send-keys -t "$S" h
wait_for 'Web page: ' 10
ls "$WORK"/out/party-mode/*.html >/dev/null || fail "no page beside the session"

t send-keys -t "$S" q
wait_for 'e2e-prompt\$' 10
# The alternate screen is gone: no party text left on the shell screen.
if screen | grep -q 'OFFLINE REHEARSAL'; then fail "the party's screen was left behind"; fi

FILE="$(ls "$WORK"/out/party-mode/*.md | head -1)"
grep -q '^workflow_completed: true' "$FILE" || fail "session file not completed: $FILE"
grep -q 'exit_reason: user_requested' "$FILE" || fail "exit reason"
# The terminal works normally again: echo runs and prints.
t send-keys -t "$S" "echo typed-after-exit" Enter
wait_for '^typed-after-exit' 5

# SIGTERM mid-round: the state is saved, the terminal restored, the session resumable.
t send-keys -t "$S" "clear; BMAD_PARTY_REHEARSAL_DELAY_MS=60 $BIN --output $WORK/term" Enter
wait_for 'What would you like to discuss' 15
t send-keys -t "$S" -l 'Signals, please'
t send-keys -t "$S" Enter
wait_for 'streaming' 15
pkill -TERM -f "output $WORK/term" || fail "no process to signal"
wait_for 'e2e-prompt\$' 10
if screen | grep -q 'OFFLINE REHEARSAL'; then fail "SIGTERM left the party's screen behind"; fi
TFILE="$(ls "$WORK"/term/party-mode/*.md | head -1)"
grep -q '^party_active: true' "$TFILE" || fail "after SIGTERM the session stays resumable"

# The signalled session resumed: its earlier turns, then where this sitting begins.
t send-keys -t "$S" "clear; BMAD_PARTY_REHEARSAL_DELAY_MS=0 $BIN --output $WORK/term --resume $TFILE" Enter
wait_for 'this sitting begins here' 15
wait_for 'Resuming the party' 5
quit_now

# A model server that is down: the pane and the status bar say it is waited for.
t send-keys -t "$S" "clear; OPENAI_BASE_URL=http://127.0.0.1:9/v1 OPENAI_API_KEY=e2e BMAD_PARTY_MIN_BACKOFF_MS=200 $BIN --output $WORK/down" Enter
wait_for 'What would you like to discuss' 15
t send-keys -t "$S" -l 'Anyone there?'
t send-keys -t "$S" Enter
wait_for 'waiting for the server at 127.0.0.1:9 \([0-9]+ s\)' 15
quit_now

# The room's hands: typed room commands before the topic, then the roster
# modal ([R] in the menu) brings back the one sent out; the next round is
# the one named agent's; a resume keeps the mute.
t send-keys -t "$S" "clear; BMAD_PARTY_REHEARSAL_DELAY_MS=10 $BIN --max-rounds 3 --output $WORK/hands" Enter
wait_for 'What would you like to discuss' 15
t send-keys -t "$S" -l '/dismiss maya'
t send-keys -t "$S" Enter
wait_for 'Maya \(analyst\) left the room' 5
t send-keys -t "$S" -l '/mute kofi'
t send-keys -t "$S" Enter
wait_for 'muted: Kofi' 5
t send-keys -t "$S" Escape
t send-keys -t "$S" r
wait_for 'Who is in the room' 5
screen | grep -q 'Kofi — Senior Developer  🔇 muted' || fail "the roster marks the muted"
screen | grep -q 'Out of the room' || fail "the roster lists who is out"
# Seven in the room, then Maya heads the ones out (the ready-made rooms'
# members follow her).
for _ in 1 2 3 4 5 6 7; do t send-keys -t "$S" j; done
t send-keys -t "$S" Enter
t send-keys -t "$S" Escape
wait_for 'Maya \(analyst\) joined the room' 5
t send-keys -t "$S" i
t send-keys -t "$S" -l '/only hiro: What would you test first?'
t send-keys -t "$S" Enter
wait_for 'Round 1/3 ' 20
screen | grep -q '🧪 Hiro' || fail "the round is Hiro's"
quit_now
HANDS="$(ls "$WORK"/hands/party-mode/*.md)"
grep -A1 '^  muted:' "$HANDS" | grep -q -- '- developer' || fail "the mute is saved"
grep -q 'dismissed:' "$HANDS" && fail "Maya came back: nobody is sent out"
t send-keys -t "$S" "clear; BMAD_PARTY_REHEARSAL_DELAY_MS=10 $BIN --resume $HANDS" Enter
wait_for 'Round 1/3 ' 15
sleep 0.3
screen | tail -n 1 | grep -qE '🔇 +Kofi' || fail "the resumed status bar shows Kofi muted"
# Second thoughts from the menu, after a round played to its end: A asks
# the last reply again, /takes lists the one set aside, W sums up, U takes
# the round back; the file keeps both takes.
t send-keys -t "$S" -l 'And what would you automate?'
t send-keys -t "$S" Enter
wait_for 'Round 2/3 ' 20
sleep 4
t send-keys -t "$S" Escape
t send-keys -t "$S" a
wait_for 'set aside as take 1' 10
sleep 3
t send-keys -t "$S" i
t send-keys -t "$S" -l '/takes'
t send-keys -t "$S" Enter
wait_for 'take 1 \(/redo' 10
# W: where we are, into the transcript.
t send-keys -t "$S" Escape
t send-keys -t "$S" w
wait_for 'Positions' 10
# Y: the last reply to the clipboard (OSC 52 reaches tmux's buffer with
# set-clipboard on); /pin: the reply pinned as a decision.
t send-keys -t "$S" y
wait_for 'copied to the clipboard' 5
t show-buffer | grep -qE 'Speaking as|From where I sit|Let me put' || fail "OSC 52 put the reply in tmux's buffer"
t send-keys -t "$S" i
t send-keys -t "$S" -l '/pin'
t send-keys -t "$S" Enter
wait_for 'pinned as a decision' 5
t send-keys -t "$S" Escape
t send-keys -t "$S" u
wait_for 'round 2 taken back' 10
quit_now
grep -q 'by: redo' "$HANDS" && grep -q 'by: undo' "$HANDS" || fail "the takes are in the session file"
grep -q '^pinned:' "$HANDS" || fail "the pin is in the session file"

# The menu's L puts the last message up for editing; sent, the round is
# played again; T lists the takes and puts /take in the box, and take 1
# brings the first version back; /takeaways
# writes the file now; /party switches to a configured party, and a
# resume opens that party.
cat > "$WORK/parties.yaml" <<'YAML'
bmad:
  parties:
    street-crew:
      name: Street crew
      members: [pm, test-architect]
      scene: A rainy Monday at the back door.
YAML
t send-keys -t "$S" "clear; BMAD_PARTY_REHEARSAL_DELAY_MS=10 $BIN --max-rounds 5 --config $WORK/parties.yaml --output $WORK/more" Enter
wait_for 'What would you like to discuss' 15
t send-keys -t "$S" -l 'How should we deliver by bicycle?'
t send-keys -t "$S" Enter
wait_for 'Round 1/5 ' 20
sleep 3
t send-keys -t "$S" Escape
t send-keys -t "$S" l
wait_for '/edit How should we deliver by bicycle\?' 5
t send-keys -t "$S" -l ' In winter?'
t send-keys -t "$S" Enter
wait_for 'played again from your edited message' 10
sleep 3
t send-keys -t "$S" Escape
t send-keys -t "$S" t
wait_for 'take 1 \(/edit' 10
t send-keys -t "$S" -l '1'
t send-keys -t "$S" Enter
wait_for 'take 1 is back; what stood there is take 2' 10
t send-keys -t "$S" -l '/takeaways'
t send-keys -t "$S" Enter
wait_for 'takeaways written to' 20
t send-keys -t "$S" -l '/party street crew'
t send-keys -t "$S" Enter
wait_for 'the room is Street crew now' 10
quit_now
MORE="$(ls "$WORK"/more/party-mode/*.md | grep -v takeaways | head -1)"
grep -q '^party: street-crew' "$MORE" || fail "the switch is in the session file"
ls "$WORK"/more/party-mode/*.takeaways.md >/dev/null || fail "the takeaways file beside the session"
t send-keys -t "$S" "clear; BMAD_PARTY_REHEARSAL_DELAY_MS=10 $BIN --config $WORK/parties.yaml --resume $MORE" Enter
wait_for 'Street crew' 15
quit_now

# A topic on the command line opens the party at once.
t send-keys -t "$S" "clear; BMAD_PARTY_REHEARSAL_DELAY_MS=20 $BIN --output $WORK/topic 'Pricing from the command line'" Enter
wait_for '▶ .*' 15
wait_for 'Pricing from the command line' 5
wait_for 'streaming|│done' 15
quit_now
ls "$WORK"/topic/party-mode/*pricing-from-the-command-line*.md >/dev/null || fail "the command line's topic names the session"

# NO_COLOR: the full screen in the terminal's own colours, and headless
# text to a terminal without its coloured names.
t send-keys -t "$S" "clear; BMAD_PARTY_REHEARSAL_DELAY_MS=20 $BIN --output $WORK/ink 'In colour'" Enter
wait_for 'streaming|│done' 15
[ "$(colours)" -gt 0 ] || fail "no colour on screen without NO_COLOR"
quit_now
t send-keys -t "$S" "clear; NO_COLOR=1 BMAD_PARTY_REHEARSAL_DELAY_MS=20 $BIN --output $WORK/ink 'Without colour'" Enter
wait_for 'streaming|│done' 15
[ "$(colours)" -eq 0 ] || fail "NO_COLOR: $(colours) colour settings on screen"
quit_now
t send-keys -t "$S" "clear; printf 'Inked names\\n*exit\\n' | $BIN --headless --output $WORK/ink" Enter
# The topic in the highlights: the earlier screen's may still be up.
wait_for 'explored “Inked names”' 20
[ "$(colours)" -gt 0 ] || fail "headless text to a terminal names agents in colour"
t send-keys -t "$S" "clear; printf 'Plain names\\n*exit\\n' | NO_COLOR=1 $BIN --headless --output $WORK/ink" Enter
wait_for 'explored “Plain names”' 20
[ "$(colours)" -eq 0 ] || fail "NO_COLOR: headless text in colour"

# A cast drafted in the room: /cast opens its review in front; D drops
# the highlighted persona, E edits a field, Enter keeps it (saved in the
# config folder) and the room switches to it.
t send-keys -t "$S" "clear; BMAD_PARTY_REHEARSAL_DELAY_MS=10 $BIN --max-rounds 3 --output $WORK/cast" Enter
wait_for 'What would you like to discuss' 15
t send-keys -t "$S" -l '/cast A tool library for our street'
t send-keys -t "$S" Enter
wait_for 'A cast drafted for the question' 10
t send-keys -t "$S" d
wait_for 'is left out' 5
t send-keys -t "$S" e
wait_for 'Next field' 5
t send-keys -t "$S" -l ' Jr'
t send-keys -t "$S" Enter
wait_for 'Jr — ' 5
t send-keys -t "$S" Enter
wait_for 'the room is Rehearsal room' 10
screen | grep -q 'A cast drafted for the question' && fail "the review closes once the cast is kept"
t send-keys -t "$S" -l 'Who keeps the ladder?'
t send-keys -t "$S" Enter
wait_for 'Round 1/3 ' 20
quit_now
ls "$WORK"/.config/bmad-party/parties/*.yaml >/dev/null 2>&1 || fail "the kept cast is a party file"
[ "$(ls "$WORK"/.config/bmad-party/agents | wc -l)" -eq 3 ] || fail "three agents saved"
cat "$WORK"/.config/bmad-party/agents/*.md | grep -q '^name: .* Jr' || fail "the edit is saved"
grep -q '^party: rehearsal-room' "$WORK"/cast/party-mode/*.md || fail "the session is held by the kept cast"

# A panic inside the engine task (a spawned task): the terminal is restored too.
t send-keys -t "$S" "clear; BMAD_PARTY_FAULT=panic-in-round $BIN --output $WORK/panic 2>$WORK/panic.err; echo exit-code=\$?" Enter
wait_for 'What would you like to discuss' 15
t send-keys -t "$S" -l 'Boom'
t send-keys -t "$S" Enter
wait_for 'exit-code=101' 10
wait_for 'e2e-prompt\$' 5
if screen | grep -q 'OFFLINE REHEARSAL'; then fail "a panic left the party's screen behind"; fi
grep -q 'injected fault' "$WORK/panic.err" || fail "the panic message was not shown"
grep -q 'continue it with --resume' "$WORK/panic.err" || fail "the panic note explains how to continue"
t send-keys -t "$S" "echo still-typing" Enter
wait_for '^still-typing' 5

echo "tmux e2e: ok ($FILE)"
