#!/usr/bin/env bash
# Lottie frames: ours (LottieFrameRenderer, as LottieUtil renders a model it holds: rlottie's model of
# the checked JSON from its cache keyed by the bytes, a new render tree every frame) beside rlottie-python (PyPI; rlottie's
# C API on an animation loaded once), 60 frames spread over each animation at 512x512, over the
# lottie-docs samples of Fixtures/lottie that both render. Prints one Markdown section.
# Needs ASSETPIPE_BENCH (exported by scripts/bench). LOTTIE_FRAME_ROUNDS, LOTTIE_FRAME_COUNT.
set -euo pipefail
: "${ASSETPIPE_BENCH:?run through scripts/bench, which builds and exports ASSETPIPE_BENCH}"
ROOT=${ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
python3 -c "import rlottie_python" 2>/dev/null || pip install -q rlottie-python >&2
cd "$ROOT"
exec python3 scripts/bench-lottie-frames-peers.py
