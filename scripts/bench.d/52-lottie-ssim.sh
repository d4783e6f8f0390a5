#!/usr/bin/env bash
# Lottie frames against python-lottie: SSIM of our frames (`assetpipe convert --frame`: our parser and
# checks, then rlottie) beside python-lottie's (PyPI `lottie`, its SVG export rasterized by cairosvg),
# the first and the middle frame of every lottie-spec and lottie-docs sample of Fixtures/lottie, with
# each file below 0.9 explained by feature. Prints one Markdown section.
# Needs ASSETPIPE (exported by scripts/bench).
set -euo pipefail
: "${ASSETPIPE:?run through scripts/bench, which builds and exports ASSETPIPE}"
ROOT=${ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
python3 -c "import lottie, cairosvg, numpy, PIL" 2>/dev/null || pip install -q lottie cairosvg numpy pillow >&2
cd "$ROOT"
exec python3 scripts/bench-lottie-ssim.py
