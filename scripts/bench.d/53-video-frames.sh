#!/usr/bin/env bash
# Video frames: the frame at 50% of a 1 GB MP4 with its index at the end, from a cold cache,
# `assetpipe convert URL --frame 50%` beside `ffmpeg -ss T -i URL -frames:v 1` on the same loopback
# nginx origin: time, origin bytes, same pixels. Prints one Markdown section. Needs ASSETPIPE.
set -euo pipefail
: "${ASSETPIPE:?run through scripts/bench, which builds and exports ASSETPIPE}"
ROOT=${ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
cd "$ROOT"
exec python3 scripts/bench-video-frames.py
