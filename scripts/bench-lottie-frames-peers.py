#!/usr/bin/env python3
"""Lottie frames per second, ours beside rlottie-python (run by scripts/bench.d/51-lottie-frames.sh).

Each contender renders LOTTIE_FRAME_COUNT (60) frames spread over each animation at 512 px wide and the
height of the animation's aspect (the same pixels for both), in its
own process per round (ours: `assetpipe-bench lottie-frames --repeats N --width 512` over all the
files; rlottie-python: the same files, each loaded once with `LottieAnimation.from_data`, frames
with `lottie_animation_render`). LOTTIE_FRAME_ROUNDS (3) rounds, the contenders' order rotated, `sync`
before each. A file counts only when both render it. Prints one Markdown section.
"""
import glob, os, statistics, subprocess, sys, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BENCH = os.environ["ASSETPIPE_BENCH"]
ROUNDS = int(os.environ.get("LOTTIE_FRAME_ROUNDS", "3"))
COUNT = int(os.environ.get("LOTTIE_FRAME_COUNT", "60"))
SIZE = 512
files = sorted(glob.glob(os.path.join(ROOT, "Fixtures/lottie/lottie-docs/*.json")))

PEER = r'''
import sys, time
from rlottie_python import LottieAnimation
count, size = int(sys.argv[1]), int(sys.argv[2])
for path in sys.argv[3:]:
    try:
        anim = LottieAnimation.from_data(open(path, encoding="utf-8").read())
        total = anim.lottie_animation_get_totalframe()
        if not total:
            raise ValueError("no frames")
        # the pixels ours draws: `size` wide, the height the animation's aspect gives (rounded, at
        # least 1), as LottieFrameSize(width:) resolves it
        natural_width, natural_height = anim.lottie_animation_get_size()
        height = max(1, int(size * natural_height / natural_width + 0.5))
        start = time.perf_counter()
        for index in range(count):
            anim.lottie_animation_render(frame_num=index * total // count, width=size, height=height)
        print(f"{path}\tfps\t{count / (time.perf_counter() - start):.2f}")
    except Exception as error:
        print(f"{path}\terror\t{error}")
'''


def ours():
    out = subprocess.run([BENCH, "lottie-frames", "--repeats", str(COUNT), "--width", str(SIZE), *files],
                         capture_output=True, text=True).stdout
    return parse(out)


def peer():
    out = subprocess.run([sys.executable, "-c", PEER, str(COUNT), str(SIZE), *files], capture_output=True, text=True).stdout
    return parse(out)


def parse(out):
    fps = {}
    for line in out.splitlines():
        parts = line.split("\t")
        if len(parts) >= 3 and parts[1] == "fps":
            fps[parts[0]] = float(parts[2])
    return fps


contenders = {"ours": ours, "rlottie-python": peer}
runs = {name: [] for name in contenders}
for round_index in range(ROUNDS):
    names = list(contenders)
    order = names[round_index % len(names):] + names[:round_index % len(names)]
    for name in order:
        subprocess.run(["sync"])
        runs[name].append(contenders[name]())

both = [f for f in files if all(all(f in r for r in runs[name]) for name in contenders)]
med = {name: {f: statistics.median(r[f] for r in runs[name]) for f in both} for name in contenders}
ratios = [med["ours"][f] / med["rlottie-python"][f] for f in both]
geo = statistics.geometric_mean(ratios) if ratios else float("nan")
at_or_above = sum(1 for r in ratios if r >= 1)
load = open("/proc/loadavg").read().split()[0]

print("## Lottie frames")
print()
print(f"`assetpipe-bench lottie-frames --repeats {COUNT} --width {SIZE}` (release build; `LottieFrameRenderer`, as `LottieUtil`")
print("renders a model it holds: our checks once, then for every frame rlottie's model of the checked JSON from its")
print("cache keyed by the bytes and a new render tree, and the pixels are un-premultiplied) beside rlottie-python 1.3.8 (PyPI; rlottie's C API on")
print(f"an animation loaded once) on the same Debian rlottie, {COUNT} frames spread over each animation at {SIZE} px wide and the aspect's height (both), over")
print(f"the {len(both)} lottie-docs samples of Fixtures/lottie that both render ({len(files)} tried). {ROUNDS} rounds, the")
print(f"contenders' order rotated, `sync` before each; medians. Load average at the end: {load}. Written by")
print("`scripts/bench lottie-frames`.")
print()
print("| file | ours fps | rlottie-python fps | ratio |")
print("|---|---:|---:|---:|")
for f in both:
    print(f"| {os.path.relpath(f, ROOT)} | {med['ours'][f]:,.0f} | {med['rlottie-python'][f]:,.0f} | {med['ours'][f] / med['rlottie-python'][f]:.2f}x |")
print()
verdict = "met" if at_or_above == len(both) else "not met"
print(f"Goal (issue 24): frames per second at or above rlottie-python's on the same files: **{verdict}**: at or above on "
      f"{at_or_above} of {len(both)} files (geometric mean of the ratios {geo:.2f}x). Ours builds a new rlottie render tree")
print("for every frame (a kept one carries state between frames in rlottie 0.1) and un-premultiplies; rlottie-python pays a Python call and a new")
print("frame buffer per frame.")
