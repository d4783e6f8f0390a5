#!/usr/bin/env bash
# The whole suite under ThreadSanitizer (scripts/test-tsan).
set -euo pipefail
cd "$ROOT"
mkdir -p .build/reliability
set +e
# shellcheck disable=SC2086
scripts/test-tsan ${TSAN_TEST_ARGS:-} >.build/reliability/tsan.log 2>&1
status=$?
set -e
reports=$(grep -c "WARNING: ThreadSanitizer" .build/reliability/tsan.log || true)
run=$(grep -E "Test run with .* (passed|failed)" .build/reliability/tsan.log | tail -1 | sed 's/^[^T]*//')
echo "## ThreadSanitizer"
echo
echo '```sh'
echo "scripts/test-tsan ${TSAN_TEST_ARGS:-}      # swift test --sanitize=thread, serially, in .build-tsan"
echo '```'
echo
if [ -n "${TSAN_TEST_ARGS:-}" ]; then
  echo "_A partial run: only \`${TSAN_TEST_ARGS}\`, not the whole suite (set by TSAN_TEST_ARGS for a short run on this machine)._"
  echo
fi
echo "${run:-no swift-testing result}. ThreadSanitizer reports: $reports (exit status $status)."
echo
echo "Suppressions (scripts/tsan.supp), each a proven false positive in a dependency:"
echo
# each entry with the comment block right above it (the file's own header has no entry under it)
awk '/^#/ { block = block "    " substr($0, 3) "\n"; next } /^[a-z_]+:/ { printf "%s    %s\n", block, $0; found = 1 } { block = "" }
     END { if (!found) print "    (none)" }' scripts/tsan.supp
[ "$status" -eq 0 ] && [ "$reports" -eq 0 ]
