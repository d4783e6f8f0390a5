#!/usr/bin/env bash
# `assetpipe prefetch` against aria2c, curl and wget: 2,000 files of 50 KB and 200 files of 2 MB
# from nginx on loopback, cold and warm, the same concurrency for everyone; wall time, files/s,
# peak memory and origin requests (nginx's access log). Needs ASSETPIPE (exported by scripts/bench).
set -euo pipefail
: "${ASSETPIPE:?run through scripts/bench}"
need=()
command -v nginx >/dev/null || need+=(nginx-light)
command -v aria2c >/dev/null || need+=(aria2)
command -v wget >/dev/null || need+=(wget)
command -v curl >/dev/null || need+=(curl)
if [ ${#need[@]} -gt 0 ]; then
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}") >&2
fi
exec python3 "$(dirname "$0")/../bench-prefetch-peers.py"
