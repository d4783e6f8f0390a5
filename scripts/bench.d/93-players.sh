#!/usr/bin/env bash
# Real video players through `assetpipe serve` beside nginx's slice cache (`slice 1m` + proxy_cache),
# both in front of one nginx origin on loopback: ffprobe, ffmpeg seeking and decoding a frame, and
# headless Chromium playing and seeking a <video>, on an MP4 with its index at the end, one with it at
# the start and a WebM (made by ffmpeg at run time). Origin requests and bytes per session against what
# the player read, warm repeats, decoded frames against the file's. Prints one Markdown section
# (`## Video players`); the checks are in scripts/player-test. Needs ASSETPIPE (exported by scripts/bench).
set -euo pipefail
: "${ASSETPIPE:?run through scripts/bench, which builds and exports ASSETPIPE}"
need=()
command -v ffmpeg >/dev/null || need+=(ffmpeg)
command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || need+=(nginx-light)
command -v chromium >/dev/null || need+=(chromium)
command -v curl >/dev/null || need+=(curl)
if [ ${#need[@]} -gt 0 ]; then
  echo "installing: ${need[*]}" >&2
  SUDO=""; if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  ($SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${need[@]}") >&2
fi
# A correctness failure (exit 1) is written into the section itself; the other benchmarks still run.
status=0
"$(dirname "$0")/../player-test" --markdown || status=$?
if [ "$status" -ne 0 ]; then
  echo "93-players: scripts/player-test exited $status (its section names the failures)" >&2
fi
