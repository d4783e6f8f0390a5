#!/usr/bin/env bash
# The whole suite under AddressSanitizer (scripts/test-asan).
set -euo pipefail
cd "$ROOT"
mkdir -p .build/reliability
set +e
# shellcheck disable=SC2086
scripts/test-asan ${ASAN_TEST_ARGS:-} >.build/reliability/asan.log 2>&1
status=$?
set -e
reports=$(grep -c "ERROR: AddressSanitizer" .build/reliability/asan.log || true)
run=$(grep -E "Test run with .* (passed|failed)" .build/reliability/asan.log | tail -1 | sed 's/^[^T]*//; s/\.$//' || true)
# XCTest's line only when it ran something (the suite is swift-testing's)
xct=$(grep -E "Executed [0-9]+ tests" .build/reliability/asan.log | grep -v "Executed 0 tests" | tail -1 | sed 's/^[[:space:]]*//' || true)
echo "## AddressSanitizer"
echo
echo '```sh'
echo "scripts/test-asan ${ASAN_TEST_ARGS:-}      # swift test --sanitize=address, serially, in .build-asan"
echo '```'
echo
if [ -n "${ASAN_TEST_ARGS:-}" ]; then
  echo "_A partial run: only \`${ASAN_TEST_ARGS}\`, not the whole suite (set by ASAN_TEST_ARGS for a short run on this machine)._"
  echo
fi
echo "${run:-no swift-testing result}${xct:+; XCTest: $xct}. AddressSanitizer reports: $reports (exit status $status)."
echo "Leak detection is off (the Swift runtime's lazily built metadata is never freed); the tests that"
echo "measure peak memory skip themselves under ASan."
[ "$status" -eq 0 ] && [ "$reports" -eq 0 ]
