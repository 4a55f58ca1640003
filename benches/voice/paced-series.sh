#!/usr/bin/env bash
# Several paced parties (benches/voice/paced.py) per setting, each against a
# fresh model server (benches/voice/local-model.sh) so that no prompt state of
# an earlier party helps the next, seeded by its rep (the settings of a rep
# share a seed); settings alternate so that the machine's
# drift spreads over all of them. Then the first-token times of every round's
# second and third speakers are pooled by setting and round
# (docs/real-models.md, "Reading ahead").
#
#   benches/voice/paced-series.sh OUT REPS BIN LABEL=CONFIG[@BIN]...
#     e.g. paced-series.sh /tmp/series 3 target/release/bmad-party on= off=off.yaml
#     (a setting's own @BIN, e.g. before=@/tmp/old-bmad-party, compares builds)
#   env: PORT (18555), PAUSE (45), TYPE_TOPIC (30: seconds the topic is typed
#   over, drafts told; 0 sends it at once), ROUNDS (3), TOPICS (a file of
#   topics, one a line; default: the bakery topic and the held-out onboarding topic).
# An empty CONFIG runs with the defaults. Takes ~4.5 min a party on 2 cores.
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
OUT="${1:?usage: paced-series.sh OUT REPS BIN LABEL=CONFIG...}"
REPS="${2:?}"
BIN="$(realpath "${3:?}")"
shift 3
PORT="${PORT:-18555}"
mkdir -p "$OUT"
if [ -n "${TOPICS:-}" ]; then
  mapfile -t topics < <(grep -v '^\s*\(#\|$\)' "$TOPICS")
else
  topics=("Should a small bakery start selling online, and what would it take?"
          "How do we onboard new engineers so they ship in their first week?")
fi
export OPENAI_BASE_URL="http://127.0.0.1:$PORT/v1" OPENAI_API_KEY=local OPENAI_MODEL=qwen2.5-coder-1.5b-instruct
stop_server() { pkill -f "serve.py.*--port $PORT" 2>/dev/null || true; sleep 3; }
trap stop_server EXIT
n=0
for rep in $(seq 1 "$REPS"); do
  for t in "${!topics[@]}"; do
    for setting in "$@"; do
      label="${setting%%=*}"; config="${setting#*=}"; bin="$BIN"
      if [[ "$config" == *@* ]]; then bin="$(realpath "${config#*@}")"; config="${config%%@*}"; fi
      n=$((n + 1))
      stop_server
      # Each rep its own sampling seed, the same for every setting: a fresh
      # server otherwise plays the same party again.
      (LOCAL_MODEL_SEED="$rep" bash "$HERE/local-model.sh" "$PORT" 1.5b > "$OUT/server-$n.log" 2>&1 &)
      until curl -s -m 2 "$OPENAI_BASE_URL/models" > /dev/null; do sleep 2; done
      echo "=== run $n rep $rep topic $((t + 1)) setting $label $(date +%T)" | tee -a "$OUT/results.txt"
      python3 "$HERE/paced.py" --bin "$bin" --pause "${PAUSE:-45}" --type-topic "${TYPE_TOPIC:-30}" --rounds "${ROUNDS:-3}" \
        --topic "${topics[$t]}" ${config:+--config "$config"} --output "$OUT/party-$n" >> "$OUT/results.txt" 2>&1
    done
  done
done
python3 - "$OUT/results.txt" <<'EOF'
import re, statistics, sys
pool, firsts = {}, {}
for run in re.split(r"^=== ", open(sys.argv[1]).read(), flags=re.M)[1:]:
    label = re.match(r"run \d+ rep \d+ topic \d+ setting (\S+)", run).group(1)
    for r, times in re.findall(r"^round (\d+): (.*)$", run, flags=re.M):
        every = [float(x) for x in re.findall(r"([\d.]+) s", times)]
        pool.setdefault(label, {}).setdefault(int(r), []).extend(every[1:])
        firsts.setdefault(label, {}).setdefault(int(r), []).extend(every[:1])
for label, rounds in pool.items():
    f = firsts[label]
    print(f"{label}: 1st speakers' first token, round 1 median {statistics.median(f[1]):.1f} s of {len(f[1])}"
          + (f"; rounds 2+ {statistics.median([v for r, vs in f.items() if r > 1 for v in vs]):.1f} s" if len(f) > 1 else ""))
    every = [v for vs in rounds.values() for v in vs]
    after = [v for r, vs in rounds.items() if r > 1 for v in vs]
    print(f"{label}: 2nd/3rd speakers' first token, median {statistics.median(every):.1f} s of {len(every)}"
          + (f"; after a pause (rounds 2+) {statistics.median(after):.1f} s of {len(after)}" if after else ""))
    for r in sorted(rounds):
        vs = sorted(rounds[r])
        print(f"  round {r}: median {statistics.median(vs):.1f} s of {len(vs)}  {vs}" if vs else f"  round {r}: -")
EOF
