#!/usr/bin/env bash
# Image transform (decode, resize, encode) beside its peers: `assetpipe convert` (whole process) and
# `assetpipe-bench transform` (in-process) against vipsthumbnail and pyvips (libvips 8.14), Pillow
# (in-process and as a one-shot process) and ImageMagick 6 `convert`, on generated inputs:
#   1. 12 MP JPEG -> 512 px wide JPEG q80      2. the same -> 512 px wide WebP q80
#   3. 2 MP RGBA PNG -> 256 px wide PNG        4. 4 MP JPEG -> 1024 px wide AVIF q60
# Images per second one at a time and with two concurrent streams, peak RSS, output bytes, SSIM
# against a float Lanczos-3 reference and validity by each format's reference tool; in rounds with
# the contenders' order rotated, `sync` before every timed run.
# Prints one Markdown section for BENCHMARKS.md; progress on stderr. Needs ASSETPIPE and
# ASSETPIPE_BENCH (exported by scripts/bench). Knobs: TRANSFORM_ROUNDS (3), TRANSFORM_RUNS (images
# per stream per measurement; default per case, see `bench-transform-peers.py cases`),
# TRANSFORM_WARMUP (1), TRANSFORM_CASES and TRANSFORM_CONTENDERS (space-separated words; only
# cases / contenders whose name contains one). Uses no network (inputs are generated locally);
# missing tools are installed with apt-get / pip first.
set -Eeuo pipefail
trap 'echo "90-transform: failed (exit $?) at line $LINENO: $BASH_COMMAND" >&2' ERR
: "${ASSETPIPE:?run through scripts/bench, which builds and exports ASSETPIPE and ASSETPIPE_BENCH}"
: "${ASSETPIPE_BENCH:?run through scripts/bench, which builds and exports ASSETPIPE and ASSETPIPE_BENCH}"
for binary in "$ASSETPIPE" "$ASSETPIPE_BENCH"; do
  [ -x "$binary" ] || { echo "90-transform: $binary is not an executable file" >&2; exit 1; }
done
ROOT=${ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
PEERS="$ROOT/scripts/bench-transform-peers.py"
dir="$ROOT/bench-out/transform"
out="$dir/out"
rounds=${TRANSFORM_ROUNDS:-3}
warmup=${TRANSFORM_WARMUP:-1}
mkdir -p "$out"
rm -f "$out"/*   # a few dozen small files: no output of an earlier run can be taken for this one's

# --- tools: installed only when missing ----------------------------------------------------------
need=()
command -v vipsthumbnail >/dev/null || need+=(libvips-tools)
command -v convert >/dev/null || need+=(imagemagick)
command -v dwebp >/dev/null || need+=(webp)
command -v avifdec >/dev/null || need+=(libavif-bin)
command -v djpeg >/dev/null || need+=(libjpeg-turbo-progs)
command -v pngcheck >/dev/null || need+=(pngcheck)
[ -x /usr/bin/time ] || need+=(time)
if [ ${#need[@]} -gt 0 ]; then
  echo "installing: ${need[*]}" >&2
  SUDO=""; if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  ($SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${need[@]}") >&2
fi
python3 -c "import PIL, numpy, scipy, pyvips" 2>/dev/null || pip install -q Pillow numpy scipy pyvips >&2
pillow_has_avif() {
  python3 - <<'PY' 2>/dev/null
import sys
try:
    import pillow_avif  # noqa: F401
except ImportError:
    pass
from PIL import Image, features
sys.exit(0 if "AVIF" in Image.SAVE or features.check("avif") else 1)
PY
}
# Pillow 11.2 and later can carry AVIF itself; older ones need the pillow-avif-plugin package.
pillow_avif_note=""
if ! pillow_has_avif; then
  pip install -q pillow-avif-plugin >&2 || true
  pillow_has_avif || pillow_avif_note="this Pillow has no AVIF encoder and pillow-avif-plugin did not install"
fi
magick_avif_note=""
convert -list format 2>/dev/null | awk '$1 ~ /^AVIF\*?$/ && $3 ~ /w/ {found=1} END {exit !found}' \
  || magick_avif_note="this ImageMagick cannot write AVIF (no libheif AV1 encoder)"

# --- inputs and cases ----------------------------------------------------------------------------
python3 "$PEERS" generate "$dir" >&2
matches() {  # matches NAME "WORDS": true when WORDS is empty or NAME contains one of them
  [ -z "$2" ] && return 0
  local w; for w in $2; do case "$1" in *"$w"*) return 0;; esac; done; return 1
}
cases=()
while IFS= read -r line; do
  matches "${line%%$'\t'*}" "${TRANSFORM_CASES:-}" && cases+=("$line")
done < <(python3 "$PEERS" cases)
[ ${#cases[@]} -gt 0 ] || { echo "90-transform: no case matches TRANSFORM_CASES='${TRANSFORM_CASES:-}'" >&2; exit 1; }
contenders=()
for c in ours-process ours-inproc vipsthumbnail pyvips pillow pillow-process magick; do
  matches "$c" "${TRANSFORM_CONTENDERS:-}" && contenders+=("$c")
done

raw="$dir/results.tsv"      # round, case, contender, streams, then the 12 fields of a TSV line
na="$dir/not-available.tsv" # case, contender, why
qual="$dir/quality.tsv"     # case, contender, then `quality`'s fields
tools="$dir/tools.tsv"
: > "$raw"; : > "$na"; : > "$qual"
python3 "$PEERS" tools > "$tools"

# measure ROUND CASE-LINE CONTENDER STREAMS: one measurement, one line appended to $raw
measure() {
  local round=$1 line=$2 who=$3 streams=$4
  local name src width fmt q ext runs
  IFS=$'\t' read -r name src width fmt q ext runs <<< "$line"
  runs=${TRANSFORM_RUNS:-$runs}
  local in="$dir/$src" target="$out/$name.$who.$ext"
  local qopt=() vq="strip" mq=()
  if [ "$q" != "-" ]; then qopt=(--quality "$q"); vq="Q=$q,strip"; mq=(-quality "$q"); fi
  if [ "$fmt" = avif ]; then
    case "$who" in
      pillow|pillow-process) [ -z "$pillow_avif_note" ] || { printf '%s\t%s\t%s\n' "$name" "$who" "$pillow_avif_note" >> "$na"; return 0; };;
      magick) [ -z "$magick_avif_note" ] || { printf '%s\t%s\t%s\n' "$name" "$who" "$magick_avif_note" >> "$na"; return 0; };;
    esac
  fi
  local wp=(python3 "$PEERS" wholeproc --runs "$runs" --streams "$streams" --format "$fmt" --output "$target")
  # Whole processes warm up (the page cache: binaries, libraries, the input) once, in the first
  # round's one-stream measurement; in-process contenders warm up in every process.
  if [ "$streams" = 1 ] && [ "$round" = 1 ]; then wp+=(--warmup "$warmup"); else wp+=(--warmup 0); fi
  local result
  case "$who" in
    ours-process)
      result=$("${wp[@]}" -- "$ASSETPIPE" convert "$in" --output "{out}" --width "$width" --format "$fmt" "${qopt[@]}");;
    vipsthumbnail)
      result=$("${wp[@]}" -- vipsthumbnail "$in" --size "${width}x" -o "{out}[$vq]");;
    pillow-process)
      result=$("${wp[@]}" -- python3 "$PEERS" pillow-oneshot "$in" "{out}" "$width" "$fmt" "$q");;
    magick)
      result=$("${wp[@]}" -- convert "$in" -resize "${width}x" "${mq[@]}" -strip "{out}");;
    ours-inproc)
      sync
      result=$("$ASSETPIPE_BENCH" transform --runs "$runs" --warmup "$warmup" --threads "$streams" \
        --width "$width" --format "$fmt" "${qopt[@]}" --output "$target" "$in");;
    pyvips|pillow)
      sync
      result=$(python3 "$PEERS" inproc "$who" --runs "$runs" --warmup "$warmup" --threads "$streams" \
        --width "$width" --format "$fmt" --quality "$q" --output "$target" "$in");;
    *) echo "90-transform: unknown contender $who" >&2; exit 1;;
  esac
  # Exactly one TSV line of 12 fields, or the run is broken: say so and stop.
  if [ "$(printf '%s\n' "$result" | grep -c .)" != 1 ] || [ "$(printf '%s\n' "$result" | awk -F'\t' '{print NF}')" != 12 ]; then
    echo "90-transform: $who on $name (streams $streams) printed, instead of one 12-field TSV line:" >&2
    printf '%s\n' "$result" >&2
    exit 1
  fi
  printf '%s\t%s\t%s\t%s\t%s\n' "$round" "$name" "$who" "$streams" "$result" >> "$raw"
  echo "round $round $name $who x$streams: $(printf '%s' "$result" | cut -f10) images/s" >&2
}

# --- the rounds ----------------------------------------------------------------------------------
load_before=$(cut -d' ' -f1 /proc/loadavg)
started=$(date +%s)
n=${#contenders[@]}
for round in $(seq "$rounds"); do
  for line in "${cases[@]}"; do
    # Rotated by one each round, so that no contender always runs first or right after another.
    shift_by=$(( (round - 1) % n ))
    order=("${contenders[@]:shift_by}" "${contenders[@]:0:shift_by}")
    for who in "${order[@]}"; do
      measure "$round" "$line" "$who" 1
      measure "$round" "$line" "$who" 2
    done
  done
done
load_after=$(cut -d' ' -f1 /proc/loadavg)
elapsed=$(( $(date +%s) - started ))

# --- quality and validity of each contender's last output ----------------------------------------
for line in "${cases[@]}"; do
  IFS=$'\t' read -r name src _ _ _ ext _ <<< "$line"
  files=() whos=()
  for who in "${contenders[@]}"; do
    [ -f "$out/$name.$who.$ext" ] && [ -n "$(awk -F'\t' -v c="$name" -v w="$who" '$2 == c && $3 == w' "$raw")" ] || continue
    files+=("$out/$name.$who.$ext"); whos+=("$who")
  done
  [ ${#files[@]} -gt 0 ] || continue
  echo "quality: $name" >&2
  i=0
  while IFS= read -r row; do
    printf '%s\t%s\t%s\n' "$name" "${whos[$i]}" "$row" >> "$qual"; i=$((i + 1))
  done < <(python3 "$PEERS" quality "$dir/$src" "${files[@]}")
done

# --- the section -------------------------------------------------------------------------------
python3 - "$dir" "$raw" "$na" "$qual" "$tools" "$rounds" "$load_before" "$load_after" "$(nproc)" "$elapsed" \
  "${TRANSFORM_RUNS:-}" "$warmup" "${cases[@]}" <<'PY'
import os
import statistics
import sys
from PIL import Image

directory, raw_path, na_path, qual_path, tools_path, rounds, load_before, load_after, cores, elapsed, runs_knob, warmup = sys.argv[1:13]
cases = [line.split("\t") for line in sys.argv[13:]]
rows = [l.split("\t") for l in open(raw_path).read().splitlines() if l]
na = {(c, w): why for c, w, why in (l.split("\t", 2) for l in open(na_path).read().splitlines() if l)}
qual = {(r[0], r[1]): r[2:] for r in (l.split("\t") for l in open(qual_path).read().splitlines() if l)}
tools = dict(l.split("\t", 1) for l in open(tools_path).read().splitlines() if "\t" in l)

KIND = {"ours-process": "whole process", "vipsthumbnail": "whole process", "pillow-process": "whole process", "magick": "whole process",
        "ours-inproc": "in-process", "pyvips": "in-process", "pillow": "in-process"}
OURS = {"whole process": "ours-process", "in-process": "ours-inproc"}
LABEL = {"ours-process": "**assetpipe convert**", "ours-inproc": "**assetpipe-bench transform**",
         "vipsthumbnail": "vipsthumbnail", "pyvips": "pyvips thumbnail", "pillow": "Pillow",
         "pillow-process": "Pillow one-shot", "magick": "ImageMagick convert"}
ORDER = list(LABEL)
TITLE = {"jpeg": "JPEG", "png": "PNG", "webp": "WebP", "avif": "AVIF"}

# figures[(case, contender, streams)] = list of (images/s, peak KB, bytes, out w, out h) over rounds
figures = {}
for r in rows:
    round_, case, who, streams = r[:4]
    f = r[4:]
    figures.setdefault((case, who, int(streams)), []).append(
        (float(f[9]), int(float(f[10])), int(f[11]), f[2], f[3]))

def rates(case, who, streams):
    return [x[0] for x in figures.get((case, who, streams), [])]

def median_rate(case, who, streams):
    values = rates(case, who, streams)
    return statistics.median(values) if values else None

def peak(case, who):
    values = [x[1] for x in figures.get((case, who, 1), [])]
    return int(statistics.median(values)) if values else None

def fmt_rate(v):
    return "n/a" if v is None else (f"{v:.2f}" if v < 10 else f"{v:.1f}")

def spread(case, who, streams):
    values = rates(case, who, streams)
    return f"{fmt_rate(min(values))}–{fmt_rate(max(values))}" if values else ""

print("## Transform: resize and encode")
print()
print(f"Command: `scripts/bench transform` (`scripts/bench.d/90-transform.sh`, TRANSFORM_ROUNDS={rounds}"
      + (f", TRANSFORM_RUNS={runs_knob}" if runs_knob else "") + f"; {elapsed} s), peers and checks in"
      " `scripts/bench-transform-peers.py`. Each case decodes an image, resizes it to a width (height in"
      " proportion) and encodes it. Inputs are generated by the script (seeded) into bench-out/transform/:"
      " photo-like images (a luma field at three scales, coarse chroma, hard-edged shapes, sensor-like"
      " noise), JPEGs at quality 90 4:2:0; the PNG's alpha varies (a third transparent, a third opaque,"
      " gradients and hard cut-outs). Every contender gets the same quality setting; for AVIF each uses its"
      " default encoder and speed (below).")
print()
print("Contenders (whole process: one process per image, reading the file and writing the output, start-up"
      " included; in-process: the file read into memory once, then a loop transforming those bytes into bytes"
      " in memory, as `assetpipe-bench transform` does):")
print()
print("- ours, whole process: `assetpipe convert IN --output OUT --width W --format F [--quality Q]` (release build);"
      " in-process: `assetpipe-bench transform --runs N --warmup W --threads T --width W --format F [--quality Q] IN`.")
print(f"- vipsthumbnail ({tools.get('vips', '?')}): `vipsthumbnail IN --size Wx -o OUT[Q=Q,strip]` (width-only"
      " size; shrink-on-load, then Lanczos-3); pyvips in-process"
      f" ({tools.get('pyvips', '?')}): `Image.thumbnail_buffer(BYTES, W, height=10000000)` then `write_to_buffer(\".jpg\"/\".webp\"/\".png\", Q=Q, strip=True)`"
      " or `heifsave_buffer(compression=\"av1\", Q=Q, strip=True)`, with libvips' operation cache off"
      " (`cache_set_max(0)`: the same file again and again must not be served from it).")
print(f"- Pillow {tools.get('pillow', '?')} ({tools.get('pillow-jpeg', '')}, libwebp {tools.get('pillow-webp', '?')},"
      f" AVIF: {tools.get('pillow-avif', 'none')}): `Image.open(BytesIO(BYTES))`, for a JPEG `draft(\"RGB\", (W, H))` (libjpeg's"
      " shrink-on-load by 1/2, 1/4 or 1/8, as `thumbnail()` does), `resize((W, H), LANCZOS)`, `save` to"
      " a BytesIO with `quality=Q` (PNG: defaults); in-process, and as a one-shot process"
      " (`bench-transform-peers.py pillow-oneshot`, Python start-up and imports included).")
print(f"- ImageMagick ({' '.join(tools.get('imagemagick', '?').split()[1:4])}, OpenMP): `convert IN -resize Wx"
      " [-quality Q] -strip OUT` (no shrink-on-load: the whole image is decoded).")
avif_q = [c[4] for c in cases if c[3] == "avif"]
if avif_q:
    print(f"- AVIF encoders, all at quality {avif_q[0]} and 4:2:0: libvips' heifsave through libheif"
          f" ({tools.get('libheif', '?')}) at its default effort 4, which libvips 8.14 passes as speed 5;"
          " ImageMagick through the same libheif, setting no speed (so libheif's default); Pillow through its"
          f" own libavif ({tools.get('pillow-avif', '?')}; {tools.get('pillow-avif-codecs', '?')}) at its"
          " default speed 6.")
print()
print(f"Method: {rounds} rounds; each round runs every case with the contenders in an order rotated by one"
      " per round, each measured one image at a time and then with two concurrent streams (two"
      " processes for whole-process contenders, two threads / `--threads 2` in-process), `sync` before"
      " every timed run (whole process, one stream: before every image). Images per stream per"
      " measurement: " + ", ".join(f"{c[0]} {runs_knob or c[6]}" for c in cases) +
      f"; warm-up: {warmup} untimed image(s) at the start of every in-process measurement, and before"
      " each whole-process contender's first measurement (first round, one stream). Images/s: images / wall time of"
      " the timed runs; shown as the median over the rounds and their range. Peak RSS: the median"
      " over rounds of the one-stream measurement's peak, in KB: whole process, GNU time's %M (the"
      " largest of its runs); in-process, the process's own ru_maxrss after its loop (the whole Python"
      " interpreter with its libraries, or the whole Swift binary), as measured, nothing subtracted."
      " Ratio: ours / this, ours of the same kind (whole process against whole process, in-process"
      " against in-process); higher is better.")
print()
print("Quality: each contender's last output (a size that varied between runs is shown with its range), decoded again with Pillow (AVIF: `avifdec`"
      " to PNG first), against a reference made by the benchmark: the source decoded whole by Pillow,"
      " downscaled to the output's exact size by Lanczos-3 in floating point (Pillow, each channel as a"
      " mode \"F\" image; RGBA premultiplied by alpha before, and compared premultiplied), clipped to"
      " 0..255. SSIM (Wang et al. 2004; 11x11 Gaussian window, sigma 1.5) per channel (R, G, B and A"
      " when there is alpha), averaged; higher is better. Bytes: lower is better at equal SSIM. Valid:"
      " `djpeg`, `pngcheck`, `dwebp` or `avifdec` exits 0 on the output.")
print()
print(f"Load average (1 min) before and after the run: {load_before} / {load_after} on {cores} cores;"
      " other work on the machine slows every contender, so compare ratios more than absolute figures.")
print()

goals = []
for index, c in enumerate(cases, 1):
    name, src, width, fmt, q, ext, _ = c
    present = [w for w in ORDER if (name, w, 1) in figures or (name, w) in na]
    quality = f"quality {q}" if q != "-" else "no quality setting (each contender's default compression)"
    path = os.path.join(directory, src)
    with Image.open(path) as image:
        what = f"{image.width}x{image.height} {image.format}" + (" RGBA" if image.mode == "RGBA" else "")
        expected = f"{width}x{max(1, round(image.height * int(width) / image.width))}"
    print(f"### {index}. {src} ({what}, {os.path.getsize(path):,} bytes) → {expected} {TITLE.get(fmt, fmt)}, {quality}")
    print()
    print("| contender | kind | images/s, one at a time | range | images/s, two streams | range | ours / this, one / two | peak RSS KB | bytes | size | SSIM | valid |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    for who in present:
        kind = KIND[who]
        if (name, who) in na:
            print(f"| {LABEL[who]} | {kind} | n/a | | n/a | | | | | | | n/a: {na[(name, who)]} |")
            continue
        one, two = median_rate(name, who, 1), median_rate(name, who, 2)
        ours = OURS[kind]
        if who == ours:
            ratio = "—"
        else:
            o1, o2 = median_rate(name, ours, 1), median_rate(name, ours, 2)
            ratio = " / ".join("n/a" if (a is None or b is None) else f"{a / b:.2f}x" for a, b in ((o1, one), (o2, two)))
        qrow = qual.get((name, who))
        if qrow:
            _, seen, w, h, nbytes, ssim, valid, note = (qrow + [""] * 8)[:8]
            size = f"{w}x{h}"
            valid_cell = (valid + (f" ({note})" if note else "") + ("" if seen == fmt else f" (wrote {seen})")).replace("|", "/")
        else:
            nbytes, ssim, size, valid_cell = str(figures[(name, who, 1)][-1][2]), "", "", "not checked"
        seen_bytes = {x[2] for streams in (1, 2) for x in figures.get((name, who, streams), [])}
        if len(seen_bytes) > 1:  # not deterministic: say so beside the checked output's size
            nbytes = f"{nbytes} (runs: {min(seen_bytes)}–{max(seen_bytes)})"
        print(f"| {LABEL[who]} | {kind} | {fmt_rate(one)} | {spread(name, who, 1)} | {fmt_rate(two)} | {spread(name, who, 2)} "
              f"| {ratio} | {peak(name, who)} | {nbytes} | {size} | {ssim} | {valid_cell} |")
    print()

    # goals for this case
    def fastest(kind, streams):
        peers = [w for w in present if KIND[w] == kind and w != OURS[kind] and median_rate(name, w, streams) is not None]
        return max(peers, key=lambda w: median_rate(name, w, streams)) if peers else None

    for kind, title in (("whole process", "whole process"), ("in-process", "in-process")):
        ours = OURS[kind]
        for streams, how in ((1, "one at a time"), (2, "two streams")):
            best = fastest(kind, streams)
            mine = median_rate(name, ours, streams)
            if best is None or mine is None:
                goals.append((name, f"speed, {title}, {how}", "n/a", "n/a", "", "not measured"))
                continue
            theirs = median_rate(name, best, streams)
            goals.append((name, f"speed, {title}, {how} (images/s, higher is better)", fmt_rate(mine),
                          f"{LABEL[best]}: {fmt_rate(theirs)}", f"{mine / theirs:.2f}x", "met" if mine >= theirs else "not met"))
    for kind, title in (("whole process", "whole process"), ("in-process", "in-process")):
        ours, best = OURS[kind], fastest(kind, 1)
        if best is None or peak(name, ours) is None:
            goals.append((name, f"peak memory, {title}", "n/a", "n/a", "", "not measured"))
            continue
        mine, theirs = peak(name, ours), peak(name, best)
        goals.append((name, f"peak memory, {title} (KB, lower is better; the fastest peer)", str(mine),
                      f"{LABEL[best]}: {theirs}", f"{mine / theirs:.2f}x", "met" if mine <= theirs else "not met"))
    # quality: our output (the same bytes in-process and as a process) against the fastest peer of
    # each kind, one at a time
    mine = qual.get((name, "ours-process")) or qual.get((name, "ours-inproc"))
    for kind in ("whole process", "in-process"):
        peers = [w for w in present if KIND[w] == kind and w != OURS[kind]
                 and median_rate(name, w, 1) is not None and (name, w) in qual]
        if not peers or not mine:
            goals.append((name, f"quality, against the fastest {kind} peer", "n/a", "n/a", "", "not measured"))
            continue
        best = max(peers, key=lambda w: median_rate(name, w, 1))
        theirs = qual[(name, best)]
        try:
            my_ssim, their_ssim = float(mine[5]), float(theirs[5])
        except ValueError:
            my_ssim, their_ssim = float("nan"), float("nan")
        my_bytes, their_bytes = int(mine[4]), int(theirs[4])
        ok = my_ssim >= their_ssim and my_bytes <= their_bytes and mine[6] == "yes"
        verdict = "met" if ok else ("not met (SSIM)" if my_ssim < their_ssim and my_bytes <= their_bytes else
                                    "not met (bytes)" if my_ssim >= their_ssim else "not met")
        goals.append((name, f"quality against the fastest {kind} peer (SSIM at or above, bytes at or below; valid)",
                      f"SSIM {my_ssim:.5f}, {my_bytes} B", f"{LABEL[best]}: SSIM {their_ssim:.5f}, {their_bytes} B",
                      f"bytes {my_bytes / their_bytes:.2f}x", verdict))

print("### Goals")
print()
print("Speed: ours at or above the fastest peer of the same kind (whole process against whole-process peers,"
      " in-process against in-process peers), one at a time and with two streams. Peak memory: ours at or"
      " below that kind's fastest peer (one at a time). Quality: our output's SSIM at or above, and its"
      " bytes at or below, those of the fastest peer of each kind (one at a time), and our output valid."
      " Our output: `assetpipe convert`'s (the in-process loop writes the same bytes).")
print()
print("| case | goal | ours | fastest peer | ratio | verdict |")
print("|---|---|---:|---:|---:|---|")
for g in goals:
    print("| " + " | ".join(g) + " |")
met = sum(1 for g in goals if g[5] == "met")
print()
print(f"{met} of {len(goals)} goals met.")
PY
