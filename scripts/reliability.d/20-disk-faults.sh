#!/usr/bin/env bash
# Disk faults: the tests named DiskFaultTests (a full disk, a read-only cache directory, the
# directory removed during a prefetch, 64 open files), when the branch has them.
set -euo pipefail
cd "$ROOT"
mkdir -p .build/reliability
echo "## Disk faults"
echo
tests=$(swift test list --skip-build 2>/dev/null || true)   # whole, then searched: grep -q would cut the pipe
if ! grep -q "DiskFaultTests" <<<"$tests"; then
  echo "_Not measured in this run: the disk faults (a full disk in a private tmpfs, a read-only cache"
  echo "directory, the directory removed while a prefetch runs, a limit of 64 open files) are built on another"
  echo "branch. This script runs every test whose name matches \`DiskFaultTests\`, and the tree it ran on has none._"
  exit 0
fi
echo '```sh'
echo 'swift test --filter DiskFaultTests'
echo '```'
echo
set +e
swift test --skip-build --filter DiskFaultTests >.build/reliability/disk-faults.log 2>&1
status=$?
set -e
python3 - "$status" <<'PY'
import re, sys, pathlib
log = pathlib.Path(".build/reliability/disk-faults.log").read_text(errors="replace")
rows = []
for line in log.splitlines():
    m = re.match(r"[✔✘] Test (\S+?\(.*?\))(?: with .*?)? (passed|failed|skipped)(.*)", line)
    if m: rows.append((m.group(1), m.group(2), m.group(3).strip()))
    m = re.match(r"➜ Test (\S+?\(.*?\)) skipped: (.*)", line)
    if m: rows.append((m.group(1), "skipped", m.group(2)))
print("| test | result |\n|---|---|")
for name, result, rest in rows:
    print(f"| `{name}` | {result} {rest} |")
run = re.findall(r"Test run with .*", log)
print(f"\n{run[-1].strip() if run else 'no result'} (exit status {sys.argv[1]}).")
for issue in [l for l in log.splitlines() if "recorded an issue" in l][:20]:
    print(f"\n- {issue.strip()}")
sys.exit(int(sys.argv[1]) != 0)
PY
