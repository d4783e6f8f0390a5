#!/usr/bin/env bash
# Storyboards: a tile every 10 s, 160 px wide, of a 1 GB MP4 with its index at the end, from a cold
# cache, `assetpipe storyboard URL --interval 10s --width 160` beside `ffmpeg -i URL -vf
# fps=1/10,scale=160:-2,tile=...` (and with -skip_frame nokey) on the same loopback nginx origin:
# time and origin bytes. Prints one Markdown section. Needs ASSETPIPE.
set -euo pipefail
: "${ASSETPIPE:?run through scripts/bench, which builds and exports ASSETPIPE}"
ROOT=${ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
cd "$ROOT"
exec python3 scripts/bench-storyboard.py
