#!/usr/bin/env bash
# Object storage faults: the S3 fault and clock tests against radosgw S3_FAULT_RUNS times (default
# 10), and radosgw really stopped in the middle of a prefetch and of a run of converts writing to the
# derived store (scripts/reliability.d/s3-stop.py).
set -euo pipefail
cd "$ROOT"
runs=${S3_FAULT_RUNS:-10}
mkdir -p .build/reliability
echo "## Object storage faults"
echo
echo '```sh'
echo "swift test --filter 'S3FaultTests|S3ClockTests'      # $runs runs, against scripts/radosgw"
echo 'python3 scripts/reliability.d/s3-stop.py "$(swift build --show-bin-path)/assetpipe"'
echo '```'
echo
rgw_env=$(scripts/radosgw start)
eval "$rgw_env"
passed=0
for i in $(seq 1 "$runs"); do
  # a stale test binary without these suites "passes" with 0 tests: not a pass
  if swift test --skip-build --filter 'S3FaultTests|S3ClockTests' >.build/reliability/s3-faults-$i.log 2>&1 \
    && ! grep -q "Test run with 0 tests" .build/reliability/s3-faults-$i.log; then passed=$((passed + 1)); fi
done
scripts/radosgw stop "$ASSETPIPE_TEST_S3_DIR"
echo "| fault | what happens | what is kept | goal: a good answer or a typed error, nothing partial |"
echo "|---|---|---|---|"
echo "| two \`503 SlowDown\` (a proxy of the test's own), then the object | GET loaded whole in 3 attempts; PUT stored whole | the whole body cached; the whole object | $passed of $runs runs passed |"
echo "| \`SlowDown\` that lasts | \`http_503\`, \`s3Code\` SlowDown (GET and PUT) | no cache entry, no temporary file, no object | $passed of $runs runs passed |"
echo "| the answer cut (RST) after 50 KB of 200 KB | once: retried, whole; always: \`truncated\` or \`connection\` | no cache entry, no temporary file | $passed of $runs runs passed |"
echo "| the upload cut (RST) half-way | once: retried, whole; always: a typed error; multipart (11 MiB) with every part cut: aborted | no object; no upload left | $passed of $runs runs passed |"
echo "| the store gone (proxy closed) after 6 of 12 loads | 6 whole, 6 \`connection\` | none of the 6 cached | $passed of $runs runs passed |"
echo "| a clock 20 min ahead / behind | \`http_403\` \`RequestTimeTooSkewed\` without correction; with it (the default), signed again by the store's \`Date\` and served | - | $passed of $runs runs passed |"
echo "| a wrong secret | \`http_403\` \`SignatureDoesNotMatch\` (GET, PUT), \`AccessDenied\` (HEAD); no retry, no offset learned | - | $passed of $runs runs passed |"
python3 scripts/reliability.d/s3-stop.py "$(swift build --show-bin-path)/assetpipe"
