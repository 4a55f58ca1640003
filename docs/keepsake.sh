#!/usr/bin/env bash
# The README's picture of a keepsake: exports SESSION.md as a page and has
# headless Chromium draw it at 1000×1400 into docs/keepsake.png.
#
# Usage: docs/keepsake.sh SESSION.md [BIN]   (BIN default: target/release/bmad-party)
# Needs chromium-headless-shell or chromium (Debian: apt-get install chromium-headless-shell).
set -euo pipefail
cd "$(dirname "$0")/.."
SESSION="$(realpath "$1")"
BIN="${2:-target/release/bmad-party}"
BROWSER="$(command -v chromium-headless-shell || command -v chromium)"
PAGE="$(mktemp -d)/keepsake.html"
"$BIN" export "$SESSION" -o "$PAGE" >/dev/null
"$BROWSER" --no-sandbox --disable-dev-shm-usage --disable-gpu --hide-scrollbars --window-size=1000,1400 \
    --screenshot="$PWD/docs/keepsake.png" "file://$PAGE" 2>/dev/null
echo "docs/keepsake.png from $SESSION"
