#!/usr/bin/env bash
# The image service face of `assetpipe serve` (`/v1/image`) against its peers, on loopback:
#   1. a cached ~30 KB WebP thumbnail (a memory hit) against nginx serving the same bytes as a
#      static file, loaded by wrk at 16, 64 and 256 connections (requests/s, p99, peak RSS);
#   2. cold: a 12 MP JPEG to a 512 px wide WebP, first request to last byte for a source never
#      seen and throughput over many distinct sources at a fixed concurrency, against thumbor
#      (PyPI, Pillow engine, WebP) and nginx `image_filter` (libgd, JPEG out).
# Prints one Markdown section for BENCHMARKS.md; progress on stderr. Needs ASSETPIPE (exported by
# scripts/bench). Knobs: IMG_ROUNDS (3), IMG_SECONDS (wrk duration, 8), IMG_CONNECTIONS
# ("16 64 256"), IMG_SOURCES (distinct sources per throughput run, 200), IMG_FIRST (first-request
# samples per contender per round, 5), IMG_CLIENTS (concurrency of the cold throughput run, 4).
set -euo pipefail
: "${ASSETPIPE:?run through scripts/bench, which builds and exports ASSETPIPE}"
[ -x "$ASSETPIPE" ] || { echo "92-image-service: $ASSETPIPE is not an executable file" >&2; exit 1; }
need=()
command -v nginx >/dev/null || need+=(nginx-light)
[ -e /usr/lib/nginx/modules/ngx_http_image_filter_module.so ] || need+=(libnginx-mod-http-image-filter)
command -v wrk >/dev/null || need+=(wrk)
command -v curl >/dev/null || need+=(curl)
command -v vips >/dev/null || need+=(libvips-tools)
if [ ${#need[@]} -gt 0 ]; then
  echo "installing: ${need[*]}" >&2
  SUDO=""; if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  ($SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${need[@]}") >&2
fi
command -v thumbor >/dev/null || pip install -q thumbor >&2
python3 -c "import PIL" 2>/dev/null || pip install -q Pillow >&2
exec python3 "$(dirname "$0")/../bench-image-service-peers.py"
