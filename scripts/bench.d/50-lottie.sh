#!/usr/bin/env bash
# Lottie JSON parsing: ours (byte-level parser into the typed LottieAnimation) beside Foundation's
# JSONDecoder (into an equivalent Codable model), Python's json.loads and orjson.loads (into plain
# dicts), over the same files (the corpus' largest animations), in the same run.
# Prints one Markdown section for BENCHMARKS.md. Needs ASSETPIPE_BENCH (exported by scripts/bench).
set -euo pipefail
: "${ASSETPIPE_BENCH:?run through scripts/bench, which builds and exports ASSETPIPE_BENCH}"
ROOT=${ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
COUNT=${LOTTIE_BENCH_FILES:-8}
python3 -c "import orjson" 2>/dev/null || pip install -q orjson >&2

cd "$ROOT"
mapfile -t files < <(find Fixtures/lottie -name '*.json' -printf '%s %p\n' | sort -rn | head -n "$COUNT" | cut -d' ' -f2)
ours=$("$ASSETPIPE_BENCH" lottie --tsv "${files[@]}")
peers=$(python3 scripts/bench-json-peers.py "${files[@]}")
bytes=$(echo "$ours" | head -1 | cut -f3)

echo "## Lottie parsing"
echo
echo "The $COUNT largest JSON animations of Fixtures/lottie ($(awk "BEGIN{printf \"%.2f\", $bytes/1e6}") MB per pass), parsed in-process in a loop;"
echo "median of 7 rounds of about 0.3 s each; MB = 10^6 bytes. Ours builds the typed \`LottieAnimation\`;"
echo "JSONDecoder builds a Codable mirror of the same fields (untyped content as a generic JSON enum, whose"
echo "type probes each throw a DecodingError), and, as its best case, the typed fields alone; Python builds plain dicts."
echo
echo '```'
echo "\$ASSETPIPE_BENCH lottie --tsv <files>"
echo "python3 scripts/bench-json-peers.py <files>"
echo "files: ${files[*]}"
echo '```'
echo
printf '%s\n%s\n' "$ours" "$peers" | python3 -c '
import sys
rows = [line.split("\t") for line in sys.stdin.read().splitlines() if line.strip()]
rate = {name: float(value) for name, value, _ in rows}
label = {"ours": "AssetLottie (typed model)", "ours-strict": "AssetLottie, strict (model + Lottie 1.0 schema + checks)", "JSONDecoder": "Foundation JSONDecoder (Codable model, generic JSON enum for untyped content)",
         "JSONDecoder-skeleton": "Foundation JSONDecoder (typed fields only, untyped content skipped)",
         "json.loads": "Python json.loads (dicts)", "orjson.loads": "orjson.loads (dicts)"}
ours = rate["ours"]
print("| parser | MB/s | ours / this |")
print("|---|---:|---:|")
for name, _, _ in rows:
    print(f"| {label.get(name, name)} | {rate[name]:.1f} | {ours / rate[name]:.2f} |")
'

# Memoized hits: LottieUtil and ImageUtil answering from memory (goal: under 1 microsecond), and the
# measured memory of parsed models beside LottieUtil's cost estimate.
utils_args=(utils --lottie "${files[0]}" --image Fixtures/jpeg/libjpeg-turbo/testorig.jpg --iterations 500000 --rounds 7
  --model-files "${files[@]}" Fixtures/lottie/lottie-ios/DotLottie/multiple_animations.lottie Fixtures/lottie/lottie-android/winners.tgs)
echo
echo "## Memoized hits (LottieUtil, ImageUtil)"
echo
echo "\`assetpipe-bench ${utils_args[*]}\` (release build): an animation and an image memoized once"
echo "(source bytes in the disk cache under an https URL's key, one \`.cacheOnly\` load), then every call a"
echo "memory hit with default options, a \`URL\` in and the model or bitmap out; each memory cache also holds"
echo "1,000 other entries. Goal: a hit under 1 microsecond. Load average when it started: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores."
echo
"$ASSETPIPE_BENCH" "${utils_args[@]}"
