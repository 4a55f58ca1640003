#!/usr/bin/env bash
# AutoGen (AgentChat 0.7, the OpenAI client of autogen-ext) in a venv outside the
# repository, for the side-by-side bench (benches/autogen/side_by_side.py).
# Prints the venv's python. Usage: benches/autogen/setup.sh   env: AUTOGEN_HOME
# (default ~/.cache/bmad-party-bench/autogen).
set -euo pipefail
HOME_DIR="${AUTOGEN_HOME:-$HOME/.cache/bmad-party-bench/autogen}"
mkdir -p "$HOME_DIR"
if [ ! -x "$HOME_DIR/venv/bin/python" ] || ! "$HOME_DIR/venv/bin/python" -c 'import autogen_agentchat, autogen_ext.models.openai' 2>/dev/null; then
  python3 -m venv "$HOME_DIR/venv"
  "$HOME_DIR/venv/bin/pip" install -q 'autogen-agentchat==0.7.5' 'autogen-ext[openai]==0.7.5' >&2
fi
echo "$HOME_DIR/venv/bin/python"
