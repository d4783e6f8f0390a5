#!/usr/bin/env python3
"""Lottie -> 512 px animated WebP, frames per second, ours beside rlottie-python and thorvg-python
(issue 31's goal; run by scripts/bench.d/57-lottie-motion.sh).

    scripts/bench-lottie-motion.py ASSETPIPE OUTDIR [ROUNDS]

Every contender makes the same file from each animation: all its frames (op - ip, at its own rate),
512 px wide and the height of its aspect (rounded), lossy WebP quality 80, method 4, alpha quality
100, looping forever, with the animation encoder settings ours uses (no key frames forced:
kmin 2^31 - 2, kmax 2^31 - 1; no mixed lossy and lossless frames; no exhaustive size search):
- ours: `assetpipe convert FILE --animate --width 512 --output out.webp` (release build), the whole
  process: read, parse, check, then per frame rlottie (its model of the checked JSON from its
  cache, keyed by the bytes; a new render tree, as for a still frame) and libwebp's WebPAnimEncoder (the system libwebp);
- rlottie-python (PyPI; its own rlottie build): `LottieAnimation.from_data` once, every frame (op - ip of them, as ours; its rlottie
  counts one more) with `lottie_animation_render`, un-premultiplied by Pillow (`RGBa` -> `RGBA`, as ours does), then
  Pillow's animated WebP save (its bundled libwebp) with the settings above;
- thorvg-python (PyPI; its bundled libthorvg): the animation loaded once, every frame drawn into a
  straight-alpha `SwCanvas` (`ABGR8888S`), `get_pillow()`, then the same Pillow save.
A peer is timed inside its process from reading the file to the closed output (the interpreter's
start and imports are not counted); ours is the whole process. Two figures: fps by wall time, and
fps by CPU time (user + sys: the process's rusage for ours, `time.process_time()` for a peer), which
a machine shared with other work disturbs less. Cores: every contender at the
machine's default (ThorVG's engine with no extra threads) and pinned to one core (`taskset -c 0`).
ROUNDS (3) rounds with the contenders' order rotated, `sync` before each timed run; medians and the
min-max spread. fps = the animation's frames / seconds. A file counts when all three make it.

Then, for ours, the per-frame check on three of them (512 px wide of their own, so that the still,
which `convert --frame` renders at the animation's size and then resizes, needs no resizing): made lossless (`--lossless`), every frame
decoded by Pillow (not ours) and compared with the still frame `assetpipe convert FILE --frame K
--width 512` gives (PNG) at the same time, on RGB where alpha > 0 and on alpha.

Then where our time goes on each file where a peer is faster (one core, CPU time): `perf record` of
ours on one core, by shared object (rlottie, libwebp and libwebpmux, our code, libc) and the top
symbol, so that the encoder's share is measured. Knobs: LOTTIE_MOTION_FILES,
LOTTIE_MOTION_CHECK_FILES (paths under Fixtures/lottie).
Prints one Markdown section.
"""
import json, os, re, statistics, subprocess, sys, tempfile, time

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
SIZE = 512
FILES = [f"Fixtures/lottie/{p}" for p in os.environ.get("LOTTIE_MOTION_FILES", " ".join([
    "lottie-docs/bouncy_ball.json", "lottie-docs/gradient.json", "lottie-docs/precomp/star-splosion.json",
    "lottie-docs/repeater.json", "lottie-ios/LottieLogo1.json", "lottie-ios/TwitterHeart.json"])).split()]

SAVE = ("save_all=True, append_images=frames[1:], duration=duration, loop=0, quality=80, method=4, "
        "alpha_quality=100, lossless=False, minimize_size=False, allow_mixed=False, kmin=2**31 - 2, kmax=2**31 - 1")

RLOTTIE = r'''
import sys, time
from PIL import Image
from rlottie_python import LottieAnimation
path, out, size, total, rate = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5])
start, cpu = time.perf_counter(), time.process_time()
anim = LottieAnimation.from_data(open(path, encoding="utf-8").read())
w, h = anim.lottie_animation_get_size()
height = max(1, int(size * h / w + 0.5))
frames = []
for index in range(total):
    buffer = anim.lottie_animation_render(frame_num=index, width=size, height=height)
    frames.append(Image.frombuffer("RGBa", (size, height), buffer, "raw", "BGRa").convert("RGBA"))
duration = round(1000 / rate)
frames[0].save(out, SAVE)
print(f"{total}\t{time.perf_counter() - start:.6f}\t{time.process_time() - cpu:.6f}")
'''.replace("SAVE", SAVE)

THORVG = r'''
import sys, time
import thorvg_python as tvg
path, out, size, total, rate = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5])
start, cpu = time.perf_counter(), time.process_time()
engine = tvg.Engine(threads=0)
anim = tvg.LottieAnimation(engine)
picture = anim.get_picture()
data = open(path, "rb").read()
if picture.load_data(data, "lottie", None, True) != tvg.Result.SUCCESS:
    sys.exit("ThorVG could not load the animation")
_, w, h = picture.get_size()
height = max(1, int(size * h / w + 0.5))
picture.set_size(size, height)
canvas = tvg.SwCanvas(engine)
canvas.set_target(size, height, cs=tvg.Colorspace.ABGR8888S)
canvas.add(picture)
frames = []
for index in range(total):
    anim.set_frame(float(index))
    canvas.update(); canvas.draw(True); canvas.sync()
    frames.append(canvas.get_pillow())
duration = round(1000 / rate)
frames[0].save(out, SAVE)
print(f"{total}\t{time.perf_counter() - start:.6f}\t{time.process_time() - cpu:.6f}")
'''.replace("SAVE", SAVE)


def frame_count(path):
    doc = json.load(open(path, encoding="utf-8"))
    return int(doc["op"]) - int(doc["ip"])


def run(name, path, out, pin):
    """(fps by wall time, fps by CPU time), or None when the contender fails on the file."""
    prefix = ["taskset", "-c", "0"] if pin else []
    subprocess.run(["sync"])
    if name == "ours":
        start = time.perf_counter()
        child = subprocess.Popen(prefix + [ASSETPIPE, "convert", path, "--animate", "--width", str(SIZE), "--output", out],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _, status, usage = os.wait4(child.pid, 0)
        seconds = time.perf_counter() - start
        child.returncode = os.waitstatus_to_exitcode(status)
        if child.returncode != 0:
            return None
        return frame_count(path) / seconds, frame_count(path) / (usage.ru_utime + usage.ru_stime)
    code = RLOTTIE if name == "rlottie-python" else THORVG
    doc = json.load(open(path, encoding="utf-8"))
    result = subprocess.run(prefix + [sys.executable, "-c", code, path, out, str(SIZE), str(frame_count(path)), str(doc["fr"])],
                            capture_output=True, text=True)
    if result.returncode != 0:
        return None
    frames, seconds, cpu = result.stdout.split()
    return int(frames) / float(seconds), int(frames) / float(cpu)


def measure(rounds, outdir):
    names = ["ours", "rlottie-python", "thorvg-python"]
    runs = {(pin, name, f): [] for pin in (False, True) for name in names for f in FILES}
    for pin in (False, True):
        for index in range(rounds):
            order = names[index % 3:] + names[:index % 3]
            for name in order:
                for f in FILES:
                    fps = run(name, os.path.join(ROOT, f), os.path.join(outdir, f"{name}.webp"), pin)
                    if fps is not None:
                        runs[(pin, name, f)].append(fps)
    return names, runs


CHECK_FILES = [f"Fixtures/lottie/{p}" for p in os.environ.get("LOTTIE_MOTION_CHECK_FILES", " ".join([
    "lottie-docs/bouncy_ball.json", "lottie-docs/precomp/star-splosion.json", "lottie-docs/repeater.json"])).split()]


def check_frames(outdir):
    """For each of CHECK_FILES: (animation frames, frames compared, frames equal, the largest
    difference). WebPAnimEncoder merges a frame equal to the one before into it (a longer
    duration), so each decoded frame stands for every animation frame that starts within its time."""
    from PIL import Image, ImageSequence
    import numpy as np
    results = {}
    for f in CHECK_FILES:
        path = os.path.join(ROOT, f)
        doc = json.load(open(path, encoding="utf-8"))
        total, rate = frame_count(path), float(doc["fr"])
        anim = os.path.join(outdir, "lossless.webp")
        subprocess.run([ASSETPIPE, "convert", path, "--animate", "--lossless", "--width", str(SIZE), "--output", anim],
                       check=True, capture_output=True)
        spans = []
        for frame in ImageSequence.Iterator(Image.open(anim)):
            pixels = np.asarray(frame.convert("RGBA"), dtype=np.int16)   # loads the frame, which sets its timestamp
            start, length = frame.info["timestamp"], frame.info["duration"]
            spans.append((start, start + length, pixels))
        compared, equal, worst = 0, 0, 0
        for index in range(total):
            begins = index * 1000 / rate
            matches = [pixels for start, stop, pixels in spans if start <= begins + 0.5 < stop]
            if not matches:
                continue
            frame = matches[0]
            still = os.path.join(outdir, "still.png")
            subprocess.run([ASSETPIPE, "convert", path, "--frame", str(index), "--width", str(SIZE), "--output", still],
                           check=True, capture_output=True)
            reference = np.asarray(Image.open(still).convert("RGBA"), dtype=np.int16)
            visible = (reference[..., 3] > 0) | (frame[..., 3] > 0)
            alpha = int(np.abs(frame[..., 3] - reference[..., 3]).max())
            rgb = int(np.abs(frame[..., :3] - reference[..., :3])[visible].max()) if visible.any() else 0
            compared += 1
            equal += max(alpha, rgb) == 0
            worst = max(worst, alpha, rgb)
        results[f] = (total, compared, equal, worst)
    return results


def perf_shares(outdir, f):
    """Where ours spends its time on `f`, by shared object (perf record, 999 Hz, one core): a list
    of (share, object), or None without perf."""
    data = os.path.join(outdir, "perf.data")
    record = subprocess.run(["perf", "record", "-q", "-F", "999", "-o", data, "--", "taskset", "-c", "0", ASSETPIPE, "convert",
                             os.path.join(ROOT, f), "--animate", "--width", str(SIZE), "--output", os.path.join(outdir, "p.webp")],
                            capture_output=True, text=True)
    if record.returncode != 0:
        return None
    report = subprocess.run(["perf", "report", "-i", data, "--sort", "dso", "--stdio", "-q"], capture_output=True, text=True).stdout
    shares = []
    for line in report.splitlines():
        parts = line.split()
        if len(parts) >= 2 and parts[0].endswith("%"):
            shares.append((float(parts[0].rstrip("%")), parts[1]))
    return shares


def perf_symbols(outdir):
    """The top symbols of the last perf record: (share, object, symbol)."""
    report = subprocess.run(["perf", "report", "-i", os.path.join(outdir, "perf.data"), "--sort", "dso,symbol", "--stdio", "-q"],
                            capture_output=True, text=True).stdout
    rows = []
    for line in report.splitlines():
        parts = line.split(None, 3)
        if len(parts) == 4 and parts[0].endswith("%"):
            rows.append((float(parts[0].rstrip("%")), parts[1], re.sub(r"\s+-\s+-\s*$", "", parts[3]).strip()))
    return rows[:12]


def profile_below(files):
    """Where ours spends its time on each file of `files` (those where a peer was faster), by
    shared object and the top symbol: the Markdown lines."""
    lines = ["Where ours spends its time on each file where a peer is faster (`perf record -F 999`, one core), by shared",
             "object (the encoder is libwebp + libwebpmux; `alr_render_rgba` is our C shim: rlottie's call and the",
             "un-premultiplying of its pixels):", "", "| file | top objects | top symbol |", "|---|---|---|"]
    with tempfile.TemporaryDirectory() as work:
        for f in files:
            shares = perf_shares(work, f)
            if not shares:
                continue
            symbols = perf_symbols(work)
            top = ", ".join(f"{name} {share:.0f}%" for share, name in shares[:4])
            symbol = f"{symbols[0][2][:60]} ({symbols[0][1]}) {symbols[0][0]:.0f}%" if symbols else "-"
            lines.append(f"| {f.removeprefix('Fixtures/lottie/')} | {top} | `{symbol}` |")
    return lines


def table(names, runs, rounds, pin, kind, label):
    cores = "1 core (taskset -c 0)" if pin else "default cores"
    print(f"**{cores}, {label}**")
    print()
    print("| file | frames | ours | rlottie-python | thorvg-python | ours / best peer |")
    print("|---|---:|---:|---:|---:|---:|")
    met, counted, ratios = 0, 0, []
    below = []
    for f in FILES:
        cells, medians = [], {}
        for name in names:
            values = [v[kind] for v in runs[(pin, name, f)]]
            if len(values) != rounds:
                cells.append("failed")
                continue
            medians[name] = statistics.median(values)
            cells.append(f"{medians[name]:,.1f} ({min(values):,.1f}-{max(values):,.1f})")
        ratio = "-"
        if len(medians) == len(names):
            counted += 1
            best = max(medians["rlottie-python"], medians["thorvg-python"])
            ratios.append(medians["ours"] / best)
            met += medians["ours"] >= best
            if medians["ours"] < best:
                below.append(f)
            ratio = f"{medians['ours'] / best:.2f}x"
        print(f"| {f.removeprefix('Fixtures/lottie/')} | {frame_count(os.path.join(ROOT, f))} | {' | '.join(cells)} | {ratio} |")
    geo = statistics.geometric_mean(ratios) if ratios else float("nan")
    print()
    print(f"Goal (issue 31), {cores}, {label}: at or above both peers on every file: "
          f"**{'met' if met == counted and counted else 'not met'}** (at or above on {met} of {counted} files; geometric mean of ours / best "
          f"peer {geo:.2f}x).")
    print()
    return below


def main():
    global ASSETPIPE
    ASSETPIPE, outdir = sys.argv[1], sys.argv[2]
    rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 3
    os.makedirs(outdir, exist_ok=True)
    names, runs = measure(rounds, outdir)
    checks = check_frames(outdir)
    import thorvg_python, PIL
    from PIL import features
    load = open("/proc/loadavg").read().split()[0]
    libwebp = subprocess.run(["dpkg-query", "-W", "-f", "${Version}", "libwebp7"], capture_output=True, text=True).stdout
    print("## Lottie to animated WebP: frames per second")
    print()
    print(f"`assetpipe convert FILE --animate --width {SIZE} --output out.webp` (release build, the whole process) beside")
    print(f"rlottie-python 1.3.8 and thorvg-python {thorvg_python.__version__}, each rendering every frame and saving with Pillow")
    print(f"{PIL.__version__} (its libwebp {features.version('webp')}; ours links the system libwebp {libwebp}), on {len(FILES)} animations of")
    print(f"Fixtures/lottie: all frames, {SIZE} px wide, lossy q80, method 4, the same animation encoder settings. {rounds} rounds,")
    print("order rotated, `sync` before each; median fps (min-max). \"1 core\": every contender under `taskset -c 0`.")
    print(f"Load average at the end: {load} (the machine is shared). Written by `scripts/bench lottie-motion`.")
    print()
    for pin in (False, True):
        for kind, label in ((0, "fps by wall time"), (1, "fps by CPU time (user + sys)")):
            below = table(names, runs, rounds, pin, kind, label)
    print("\n".join(profile_below(below)))   # the files below on one core, by CPU time
    print()
    print("Every frame equal to the still frame at the same time: ours made lossless (`--lossless`), decoded by Pillow (each")
    print("decoded frame stands for every animation frame starting within its time, as WebPAnimEncoder merges a frame equal")
    print(f"to the one before), against `assetpipe convert FILE --frame K --width {SIZE}` (PNG); RGB compared where either")
    print("alpha is above 0, in levels:")
    print()
    print("| file | animation frames | compared | equal | largest difference |")
    print("|---|---:|---:|---:|---:|")
    all_equal = True
    for f, (total, compared, equal, worst) in checks.items():
        all_equal &= compared == total and equal == total
        print(f"| {f.removeprefix('Fixtures/lottie/')} | {total} | {compared} | {equal} | {worst} |")
    print()
    print(f"Goal (issue 31): every frame equal to the still frame at the same time: **{'met' if all_equal else 'not met'}**.")


if __name__ == "__main__":
    main()
