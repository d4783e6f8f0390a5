#!/usr/bin/env bash
# SIGKILL: the crash tests of the disk cache and the chunk store (a child writer killed at random
# moments, every reopen checked), SIGKILL_RUNS times, and the tier harness's node kill.
set -euo pipefail
cd "$ROOT"
runs=${SIGKILL_RUNS:-5}
mkdir -p .build/reliability
echo "## SIGKILL"
echo
echo '```sh'
echo "swift test --filter 'killedWriters'      # $runs runs"
echo 'scripts/tier-test --urls 2000'
echo '```'
echo
passed=0
for i in $(seq 1 "$runs"); do
  if swift test --skip-build --filter 'killedWriters' >.build/reliability/sigkill-$i.log 2>&1; then passed=$((passed + 1)); fi
done
echo "- \`killedWritersLeaveOnlyWholeEntries\` (a \`DiskCacheWorker\` storing entries, killed six times per run after a"
echo "  random number of writes; each reopen serves only whole entries, verify finds nothing, \`tmp/\` is empty) and"
echo "  \`killedWritersLeaveOnlyWholeChunks\` (a \`ChunkStoreWorker\` writing chunks, killed five times per run; every"
echo "  claimed chunk matches its version's SHA-256): $passed of $runs runs passed, $((runs * 11)) kills."
set +e
tier=$(scripts/tier-test --urls 2000 --json --binary "$(swift build --show-bin-path)/assetpipe" 2>.build/reliability/tier.log)
tier_status=$?
set -e
python3 - "$tier_status" <<PY
import json, sys
status = int(sys.argv[1])
try:
    t = json.loads('''$tier''')
except Exception:
    print(f"- \`scripts/tier-test\`: no summary (exit status {status}; see .build/reliability/tier.log).")
    sys.exit(1)
flat = {k: v for k, v in t.items() if not isinstance(v, (dict, list))}
print(f"- \`scripts/tier-test --urls 2000\` (a serve node killed with SIGKILL while a reader loads every URL through")
print(f"  nginx, then restarted on its cache directory): exit status {status}; " + ", ".join(f"{k} {v}" for k, v in list(flat.items())[:10]) + ".")
sys.exit(status != 0)
PY
[ "$passed" -eq "$runs" ]
