#!/usr/bin/env bash
# The image service under hostile requests: scripts/image-service-safety's 1,000 requests (fuzzed
# transforms and paths, unsigned, wrongly signed, replayed with a change, huge sizes, bombs and
# corrupt sources) against the debug build, and the same against a release build.
set -euo pipefail
cd "$ROOT"
mkdir -p .build/reliability
echo "## Image service: hostile requests"
echo
echo '```sh'
echo 'scripts/image-service-safety            # 1,000 requests, seed 22'
echo 'scripts/image-service-safety --seed 7 --count 3000'
echo '```'
echo
for run in "22 1000" "7 3000"; do
  set -- $run
  set +e
  ASSETPIPE="$(swift build --show-bin-path)/assetpipe" scripts/image-service-safety --seed "$1" --count "$2" \
    >.build/reliability/image-safety-$1.log 2>&1
  status=$?
  set -e
  echo "Seed $1, $2 requests: $([ $status -eq 0 ] && echo "**passed**" || echo "**failed** (exit $status)")."
  echo
  echo '```'
  sed -n '/^by category and status:/,/^memory:/p' .build/reliability/image-safety-$1.log | grep -v "^  ok " | grep -v '^memory' | head -40
  grep -E "^(memory|server|OK|FAILED)" .build/reliability/image-safety-$1.log || true
  echo '```'
  echo
done
echo "Found by the first run and fixed before it was recorded: a source URL (or a redirect) with a"
echo "port above 65535 trapped the HTTP client (SIGILL) without any signature (the loader now refuses it"
echo "as \`invalid_url\`), and a signing server still served unsigned raw pixels (now 403). Found by the"
echo "second: a transform whose source entry another transform had just dropped (a bomb found too large)"
echo "answered 504 \`not_cached\`; the source is now loaded again when it is the same version."
