#!/usr/bin/env bash
# `assetpipe serve` against nginx proxy_cache and Varnish, loaded by wrk on loopback: a cached 50 KB
# asset, a cached 1 MiB range of a 100 MiB file, and a cold burst of 500 requests for one asset.
# Needs ASSETPIPE (exported by scripts/bench). SERVE_ROUNDS, SERVE_SECONDS, SERVE_CONNECTIONS and
# SERVE_BURST change the run's size.
set -euo pipefail
: "${ASSETPIPE:?run through scripts/bench}"
need=()
command -v nginx >/dev/null || need+=(nginx-light)
command -v varnishd >/dev/null || need+=(varnish)
command -v wrk >/dev/null || need+=(wrk)
command -v curl >/dev/null || need+=(curl)
if [ ${#need[@]} -gt 0 ]; then
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}") >&2
fi
exec python3 "$(dirname "$0")/../bench-serve-peers.py"
