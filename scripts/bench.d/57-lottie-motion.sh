#!/usr/bin/env bash
# Lottie -> 512 px animated WebP, frames per second: ours (`assetpipe convert --animate`) beside
# rlottie-python and thorvg-python (each + Pillow's animated WebP save, the same settings), at the
# default cores and on one core; then every frame of ours against the still frame at that time, and
# where our time goes (perf, when present). See scripts/bench-lottie-motion.py. Knob:
# LOTTIE_MOTION_ROUNDS (3).
set -Eeuo pipefail
: "${ASSETPIPE:?run through scripts/bench, which builds and exports ASSETPIPE}"
ROOT=${ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
python3 -c "import rlottie_python, thorvg_python, numpy, PIL" 2>/dev/null || pip install -q rlottie-python thorvg-python numpy pillow >&2
exec python3 "$ROOT/scripts/bench-lottie-motion.py" "$ASSETPIPE" "$ROOT/bench-out/lottie-motion" "${LOTTIE_MOTION_ROUNDS:-3}"
