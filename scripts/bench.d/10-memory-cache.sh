#!/usr/bin/env bash
# Memory cache: ours (LRU, LFU) beside NSCache and a plain Dictionary, 80% get / 20% set, Zipf keys.
# Prints one Markdown section for BENCHMARKS.md. Needs ASSETPIPE_BENCH (exported by scripts/bench).
set -euo pipefail
: "${ASSETPIPE_BENCH:?run through scripts/bench, which builds and exports ASSETPIPE_BENCH}"

args=(memory-cache --keys int string --entries 100000 1000000 --threads 1 2 --ops 4000000 --repeats 3 --nscache-seconds 8)
echo "## Memory cache"
echo
echo "Command: \`assetpipe-bench ${args[*]}\` (release build). Goal: at least 100x NSCache, within 2x of the"
echo "Dictionary (ratio at least 0.5x). Load average when it started: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores."
echo
"$ASSETPIPE_BENCH" "${args[@]}"
