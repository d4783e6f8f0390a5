#!/usr/bin/env bash
# Animated GIF -> animated WebP and GIF beside libvips 8.18, ffmpeg and gif2webp: see
# scripts/bench-animation.py. Knob: ANIMATION_ROUNDS (5).
set -Eeuo pipefail
: "${ASSETPIPE:?run through scripts/bench, which builds and exports ASSETPIPE and ASSETPIPE_BENCH}"
: "${ASSETPIPE_BENCH:?run through scripts/bench, which builds and exports ASSETPIPE and ASSETPIPE_BENCH}"
ROOT=${ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
python3 -c "import pyvips, PIL" 2>/dev/null || pip install -q pyvips pyvips-binary pillow >&2
python3 "$ROOT/scripts/bench-animation.py" "$ASSETPIPE" "$ASSETPIPE_BENCH" "$ROOT/bench-out/animation" "${ANIMATION_ROUNDS:-5}"
