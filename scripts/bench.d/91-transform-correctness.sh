#!/usr/bin/env bash
# The transform's correctness goals on the release binary: orientation, colour against libvips's
# icc_transform, alpha through each format, every output through its reference decoder, bad input.
# Prints one Markdown section for BENCHMARKS.md. Needs ASSETPIPE (exported by scripts/bench).
set -euo pipefail
: "${ASSETPIPE:?run through scripts/bench, which builds and exports ASSETPIPE}"
ROOT=${ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
for tool in djpeg pngcheck dwebp avifdec; do
  command -v "$tool" >/dev/null || { echo "91-transform-correctness: $tool missing: run scripts/install-deps" >&2; exit 1; }
done
python3 -c "import PIL, numpy" 2>/dev/null || pip install -q Pillow numpy >&2
work=$(mktemp -d /tmp/assetpipe-correctness.XXXXXX)
trap 'rm -rf "$work"' EXIT
echo "## Transform: correctness"
echo
echo "Command: \`scripts/bench correctness\` (\`scripts/bench.d/91-transform-correctness.sh\`, checks in"
echo "\`scripts/bench-transform-correctness.py\`): \`assetpipe convert\` (release build) on the files of"
echo "\`Fixtures/imaging/\` (the corpus's files and files made from them by \`scripts/make-imaging-fixtures\`,"
echo "with libvips 8.14's sRGB renderings as references; its SOURCES.md says how each was made and checked)"
echo "and on corrupt sources. The same checks run in \`swift test\` (AssetImagingTests, ConvertCommandTests)."
echo
python3 "$ROOT/scripts/bench-transform-correctness.py" "$ASSETPIPE" "$ROOT" "$work"
