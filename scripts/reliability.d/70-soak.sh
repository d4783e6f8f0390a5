#!/usr/bin/env bash
# A prefetch of SOAK_URLS (a million) URLs against nginx on loopback, sampled (scripts/soak-prefetch.py).
set -euo pipefail
cd "$ROOT"
urls=${SOAK_URLS:-1000000}
mkdir -p .build/reliability
# SOAK_CONFIGURATION=debug uses the debug build the other sections use (a short run that skips the
# release build); the section says which one ran.
configuration=${SOAK_CONFIGURATION:-release}
interval=${SOAK_INTERVAL:-5}
swift build -c "$configuration" --product assetpipe >&2
echo "## Soak: a prefetch of $(printf "%'d" "$urls") URLs"
echo
echo '```sh'
echo "scripts/soak-prefetch.py --urls $urls      # nginx-light on 127.0.0.1, Cache-Control: no-store, --concurrency 32, assetpipe built $configuration"
echo '```'
echo
set +e
python3 scripts/soak-prefetch.py --urls "$urls" --binary "$(swift build -c "$configuration" --show-bin-path)/assetpipe" \
  --interval "$interval" --json .build/reliability/soak.json 2>.build/reliability/soak.log
status=$?
set -e
echo
echo "Resident memory and open descriptors of the \`assetpipe prefetch\` process, sampled every $interval s. Every URL"
echo "is distinct (its own cache key and request); the answers are \`no-store\`, so the disk cache stays empty"
echo "and what is measured is the loading path. The one structure that grows with the list is the duplicate"
echo "filter (a 64-bit hash per URL, up to its window of a million), by design."
exit $status
