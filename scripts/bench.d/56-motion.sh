#!/usr/bin/env bash
# MP4 output and video previews beside ffmpeg, one core each: see scripts/bench-motion.py. Knob:
# MOTION_ROUNDS (3). The 1 GiB preview row needs the file scripts/bench-storyboard.py makes.
set -Eeuo pipefail
: "${ASSETPIPE:?run through scripts/bench, which builds and exports ASSETPIPE}"
ROOT=${ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
python3 "$ROOT/scripts/bench-motion.py" "$ASSETPIPE" "$ROOT/bench-out/motion" "${MOTION_ROUNDS:-3}"
