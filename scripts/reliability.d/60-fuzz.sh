#!/usr/bin/env bash
# Every fuzz target for FUZZ_SECONDS (scripts/fuzz), and the crashes found and fixed.
set -euo pipefail
cd "$ROOT"
seconds=${FUZZ_SECONDS:-300}
mkdir -p .build/reliability
targets=(codecs lottie cache-control http-date range content-range prefetch-line dotlottie chunk-record lottie-frames)
: > .build/reliability/fuzz.txt
status=0
for t in "${targets[@]}"; do
  if ! scripts/fuzz "$t" "$seconds" 2>.build/reliability/fuzz-$t.log | tail -1 >> .build/reliability/fuzz.txt; then status=1; fi
done
python3 - "$seconds" <<'PY'
import csv, pathlib, re, sys
seconds = sys.argv[1]
print("## Fuzzing\n")
print("libFuzzer with AddressSanitizer, seeded from Fixtures (and `Fixtures/fuzz/TARGET`); besides crashes, the")
print("parser targets check the promises a parser makes (round trips, bounds) and trap when one breaks.\n")
print(f"```sh\nscripts/fuzz TARGET {seconds}      # each target below\n```\n")
print("| target | executions | crashes this run | crash inputs kept (Fixtures/fuzz/TARGET/crashes) |\n|---|---:|---:|---:|")
for line in pathlib.Path(".build/reliability/fuzz.txt").read_text().splitlines():
    m = re.match(r"fuzz (\S+): (\S+) executions(?: in \S+ s)?, (.*?) \(log", line)
    if not m: continue
    target, runs, rest = m.groups()
    crashes = re.search(r"(\d+) crash input", rest)
    # lottie-frames: rlottie's own crashes and hangs are kept in Fixtures/lottie/crashers (never replayed)
    folder = "Fixtures/lottie/crashers" if target == "lottie-frames" else f"Fixtures/fuzz/{target}/crashes"
    kept = len([f for f in pathlib.Path(folder).glob("*") if f.name != "README.md"])
    runs = f"{int(runs):,}" if runs.isdigit() else runs
    print(f"| {target} | {runs} | {crashes.group(1) if crashes else 0} | {kept} |")
print()
found = pathlib.Path("Fixtures/fuzz/FOUND.tsv")
rows = [r for r in csv.DictReader(found.open(), delimiter="\t")] if found.exists() else []
print("Found by fuzzing and fixed (each input replayed by the module's `FuzzRegressionTests`):\n")
if not rows:
    print("- nothing yet")
for r in rows:
    print(f"- `{r['target']}` `{r['input']}`: {r['what']} Fixed: {r['fix']}")
PY
exit $status
