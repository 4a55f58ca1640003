#!/usr/bin/env bash
# Several paced parties (benches/voice/paced.py) per setting, each against a
# fresh model server (benches/voice/local-model.sh) so that no prompt state of
# an earlier party helps the next; settings alternate so that the machine's
# drift spreads over all of them. Then the first-token times of every round's
# second and third speakers are pooled by setting and round
# (docs/real-models.md, "Reading ahead").
#
#   benches/voice/paced-series.sh OUT REPS BIN LABEL=CONFIG... 
#     e.g. paced-series.sh /tmp/series 3 target/release/bmad-party on= off=off.yaml
#   env: PORT (18555), PAUSE (45), ROUNDS (3), TOPICS (a file of topics, one a
#   line; default: the bakery topic and the held-out onboarding topic).
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
      label="${setting%%=*}"; config="${setting#*=}"
      n=$((n + 1))
      stop_server
      (bash "$HERE/local-model.sh" "$PORT" 1.5b > "$OUT/server-$n.log" 2>&1 &)
      until curl -s -m 2 "$OPENAI_BASE_URL/models" > /dev/null; do sleep 2; done
      echo "=== run $n rep $rep topic $((t + 1)) setting $label $(date +%T)" | tee -a "$OUT/results.txt"
      python3 "$HERE/paced.py" --bin "$BIN" --pause "${PAUSE:-45}" --rounds "${ROUNDS:-3}" \
        --topic "${topics[$t]}" ${config:+--config "$config"} --output "$OUT/party-$n" >> "$OUT/results.txt" 2>&1
    done
  done
done
python3 - "$OUT/results.txt" <<'EOF'
import re, statistics, sys
pool = {}
for run in re.split(r"^=== ", open(sys.argv[1]).read(), flags=re.M)[1:]:
    label = re.match(r"run \d+ rep \d+ topic \d+ setting (\S+)", run).group(1)
    for r, times in re.findall(r"^round (\d+): (.*)$", run, flags=re.M):
        later = [float(x) for x in re.findall(r"([\d.]+) s", times)][1:]
        pool.setdefault(label, {}).setdefault(int(r), []).extend(later)
for label, rounds in pool.items():
    every = [v for vs in rounds.values() for v in vs]
    after = [v for r, vs in rounds.items() if r > 1 for v in vs]
    print(f"{label}: 2nd/3rd speakers' first token, median {statistics.median(every):.1f} s of {len(every)}"
          + (f"; after a pause (rounds 2+) {statistics.median(after):.1f} s of {len(after)}" if after else ""))
    for r in sorted(rounds):
        vs = sorted(rounds[r])
        print(f"  round {r}: median {statistics.median(vs):.1f} s of {len(vs)}  {vs}" if vs else f"  round {r}: -")
EOF
