#!/usr/bin/env bash
# Lottie frames against ThorVG (PyPI thorvg-python, the faithful second renderer; Skottie has no
# Python binding here): SSIM of our first and middle frames (`assetpipe convert --frame`) beside
# ThorVG's, every animation of Fixtures/lottie, each file below 0.9 put down to a feature. Prints one
# Markdown section. Needs ASSETPIPE (exported by scripts/bench).
set -euo pipefail
: "${ASSETPIPE:?run through scripts/bench, which builds and exports ASSETPIPE}"
ROOT=${ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
python3 -c "import thorvg_python, numpy, PIL" 2>/dev/null || pip install -q thorvg-python numpy pillow >&2
cd "$ROOT"
exec python3 scripts/bench-lottie-ssim-thorvg.py
