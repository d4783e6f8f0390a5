#!/usr/bin/env bash
# DiskCache against raw POSIX calls on the same disk, in one process and one run.
set -euo pipefail
dir="${ROOT}/.build/bench-disk"
mkdir -p "$dir"
echo "## Disk cache"
echo
echo "\`assetpipe-bench disk-cache --directory .build/bench-disk\` (release build): a 50 KB entry read"
echo "from a warm page cache against open/read/close of the same bytes; a 50 KB store against"
echo "open/write/close/rename (a \`sync\` before each store round); opening a cache of N entries (the index build) and the"
echo "index's memory. Hits and stores: 7 rounds each, ours and the peer alternating which goes first; medians and spread."
echo "Load average (1 min) at the start: $(cut -d" " -f1 /proc/loadavg) on $(nproc) cores."
echo
"$ASSETPIPE_BENCH" disk-cache --directory "$dir"
rm -rf "$dir"
