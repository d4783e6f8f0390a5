#!/usr/bin/env python3
"""SSIM of our Lottie frames against python-lottie's (run by scripts/bench.d/52-lottie-ssim.sh).

For every sample of Fixtures/lottie/lottie-spec and Fixtures/lottie/lottie-docs, the first frame and
the middle frame (frame count // 2, counted from the in point as `assetpipe convert --frame` counts)
are rendered by both renderers at the animation's own size:
- ours: `$ASSETPIPE convert FILE --frame N --output F.png` (our parser and checks, then rlottie);
- python-lottie (PyPI `lottie`): its SVG export at time ip + N (`lottie.exporters.svg.export_svg`)
  rasterized by cairosvg (`svg2png`, `unsafe=False`: it loads data: URLs only and reads no file,
  as ours reads none), in a process of its own per file with a time limit.
Both are composited over white, then compared with SSIM (Wang et al. 2004: Gaussian window 11,
sigma 1.5, K1 0.01, K2 0.03, L 255, mean of the map over the valid region) on luminance
(BT.601 luma of the composited RGB). A colour check beside it: the same SSIM on R, G and B, averaged.
A frame passes at 0.9 on luminance, unless one renderer draws nothing where the other draws 0.5% of
the frame or more (SSIM of a blank frame against a thin drawing stays high).

Each file's features are read from its JSON (layer types, shape items, key order); a failing file
that uses a feature one of the renderers does not draw (the table FEATURES) is outside the goal's
scope, as is a file python-lottie fails on; a valid file ours refuses is a failure (an invalid one of
lottie-spec's invalid set is listed as refused, rightly); one that uses a feature rlottie misreads
is our mismatch. Any other failing file is a mismatch too. Needs ASSETPIPE (exported by
scripts/bench); LOTTIE_SSIM_KEEP=DIR keeps both renderings of every frame there. Prints one
Markdown section. Nothing leaves the machine.
"""
import glob, json, os, subprocess, sys, tempfile

import numpy as np
from PIL import Image

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ASSETPIPE = os.environ["ASSETPIPE"]
THRESHOLD = 0.9
PEER_TIMEOUT = int(os.environ.get("LOTTIE_SSIM_PEER_TIMEOUT", "300"))

# What each renderer does not draw as Lottie says, each seen on the samples named (frames of both
# looked at side by side): feature -> (who, scope, what happens, samples). scope "out": a renderer
# lacks the feature, so a file below the threshold is outside the goal's scope; "ours": rlottie
# misreads valid JSON, so a file below the threshold is our mismatch, not the peer's limitation.
# (rlottie 0.1 also misreads a layer's `ddd` absent or after `ks`, a dash array's offset not last,
# a shape item's members before its `ty`, a mask of mode `n`, and turns a star or polygon (`sr`) by
# twice its rotation `r`; LottieFrameRenderer.prepare writes each so that it reads them rightly.)
FEATURES = {
    "hidden items": ("python-lottie", "out", "python-lottie draws fills and strokes marked hidden (`hd`; hidden layers "
                     "too, by its source)", "blend_mode, parenting, pucker_bloat, rounded_corners"),
    "parented layer stacking": ("python-lottie", "out", "python-lottie nests a child layer inside its parent's SVG group, "
                                "so the child is stacked at its parent's depth, not its own", "parenting"),
    "repeater": ("python-lottie", "out", "python-lottie draws one copy where a repeater after the fill and stroke "
                 "makes several", "repeater"),
    "trim over several shapes": ("python-lottie", "out", "python-lottie leaves all but one shape untrimmed when a "
                                 "trim path covers several", "trim_path"),
    "external image": ("both", "out", "neither loads image files: ours reads no file by design, cairosvg loads data: "
                       "URLs only", "image, image_animated, effects-*"),
    "text layer": ("both", "out", "rlottie 0.1 draws no text layers; python-lottie 0.7.2 fails on these text documents",
                   "text, text-document, text-selector, font-css"),
    "camera layer": ("python-lottie", "out", "python-lottie fails on a camera layer (`ty` 13); ours skips it", "3d_parenting"),
    "unknown layer type": ("python-lottie", "out", "python-lottie fails on a layer type it does not know; Lottie says to "
                           "skip it, as ours does", "unknown-layer"),
    "unknown shape type": ("python-lottie", "out", "python-lottie fails on a shape type it does not know; Lottie says to "
                           "skip it, as ours does", "unknown-shape"),
}


SHAPE_TYPES = {"gr", "sh", "rc", "el", "sr", "fl", "st", "gf", "gs", "no", "tr", "tm", "rd", "rp", "pb", "op", "zz", "mm", "tw"}
LAYER_TYPES = {0, 1, 2, 3, 4, 5, 6, 13, 15}


def features_of(doc):
    """The features FEATURES knows that `doc` uses (a set of names), read from its JSON alone."""
    found = set()

    def walk(value):
        if isinstance(value, dict):
            if value.get("hd") is True:
                found.add("hidden items")
            if isinstance(value.get("ty"), str) and "nm" in value and value["ty"] not in SHAPE_TYPES:
                found.add("unknown shape type")
            if value.get("ty") == "rp":
                found.add("repeater")
            items = value.get("it") if value.get("ty") == "gr" else None
            for shapes in (items, value.get("shapes")):
                if isinstance(shapes, list) and any(isinstance(i, dict) and i.get("ty") == "tm" for i in shapes):
                    paths = [i for i in shapes if isinstance(i, dict) and i.get("ty") in ("sh", "rc", "el", "sr", "gr")]
                    if len(paths) > 1:
                        found.add("trim over several shapes")
            for v in value.values():
                walk(v)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    walk(doc)
    embedded = {a.get("id"): str(a.get("p", "")).startswith("data:") for a in doc.get("assets") or []
                if isinstance(a, dict) and "p" in a and "layers" not in a}
    layer_lists = [doc.get("layers") or []] + [a.get("layers") or [] for a in doc.get("assets") or [] if isinstance(a, dict)]
    for layers in layer_lists:
        layers = [l for l in layers if isinstance(l, dict)]
        index_of = {l.get("ind"): i for i, l in enumerate(layers) if "ind" in l}
        for i, layer in enumerate(layers):
            if layer.get("ty") == 5:
                found.add("text layer")
            if layer.get("ty") == 13:
                found.add("camera layer")
            if layer.get("ty") not in LAYER_TYPES:
                found.add("unknown layer type")
            if layer.get("ty") == 2 and embedded.get(layer.get("refId")) is False:
                found.add("external image")
            parent = index_of.get(layer.get("parent")) if "parent" in layer else None
            if parent is not None:
                between = layers[min(parent, i) + 1:max(parent, i)]
                if any(l.get("parent") != layer.get("parent") for l in between):
                    found.add("parented layer stacking")
    return found


def luma(rgb):
    return rgb[..., 0] * 0.299 + rgb[..., 1] * 0.587 + rgb[..., 2] * 0.114


def gaussian_kernel(size=11, sigma=1.5):
    x = np.arange(size, dtype=np.float64) - (size - 1) / 2
    k = np.exp(-(x * x) / (2 * sigma * sigma))
    return k / k.sum()


def filter_valid(image, kernel):
    """Separable 2-D convolution keeping only the region the whole window covers."""
    n = len(kernel)
    rows = sum(kernel[i] * image[:, i:image.shape[1] - n + 1 + i] for i in range(n))
    return sum(kernel[i] * rows[i:rows.shape[0] - n + 1 + i, :] for i in range(n))


def ssim(a, b):
    """Mean SSIM of two float64 planes in 0...255 (Wang et al. 2004, Gaussian 11 / 1.5)."""
    kernel = gaussian_kernel()
    c1, c2 = (0.01 * 255) ** 2, (0.03 * 255) ** 2
    mu_a, mu_b = filter_valid(a, kernel), filter_valid(b, kernel)
    aa = filter_valid(a * a, kernel) - mu_a * mu_a
    bb = filter_valid(b * b, kernel) - mu_b * mu_b
    ab = filter_valid(a * b, kernel) - mu_a * mu_b
    index = ((2 * mu_a * mu_b + c1) * (2 * ab + c2)) / ((mu_a * mu_a + mu_b * mu_b + c1) * (aa + bb + c2))
    return float(index.mean())


def over_white(path, width, height):
    """The PNG at `path` as float64 RGB composited over white, checked to be width x height."""
    image = Image.open(path).convert("RGBA")
    if image.size != (width, height):
        raise ValueError(f"{image.size[0]}x{image.size[1]}, not {width}x{height}")
    pixels = np.asarray(image, dtype=np.float64)
    alpha = pixels[..., 3:4] / 255
    return pixels[..., :3] * alpha + 255 * (1 - alpha)


PEER = r'''
import io, sys, cairosvg
from lottie.parsers.tgs import parse_tgs
from lottie.exporters.svg import export_svg
path, out, width, height = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
animation = parse_tgs(path)
for pair in sys.argv[5:]:
    index, time = pair.split(":")
    svg = io.BytesIO()
    export_svg(animation, svg, float(time), pretty=False)
    cairosvg.svg2png(bytestring=svg.getvalue(), write_to=f"{out}/peer-{index}.png",
                     output_width=width, output_height=height, unsafe=False)
'''


def first_line(text):
    lines = [l.strip() for l in text.strip().splitlines() if l.strip()]
    return (lines[-1] if lines else "no message")[:160]


def ink(rgb):
    """The fraction of pixels drawn: further than 16 levels from white in some channel."""
    return float((rgb.min(axis=2) < 239).mean())


def compare(path, work):
    """One file's row: a dict with frames, scores, failures and features."""
    doc = json.load(open(path, encoding="utf-8"))
    row = {"file": os.path.relpath(path, ROOT), "features": sorted(features_of(doc)), "frames": [],
           "ours_error": None, "peer_error": None}
    width, height = round(doc.get("w") or 0), round(doc.get("h") or 0)
    ip, op = doc.get("ip", 0), doc.get("op", 0)
    count = int(op) - int(ip)
    frames = [0, count // 2] if count > 1 else [0]
    row["frames"] = frames
    for n in frames:
        result = subprocess.run([ASSETPIPE, "convert", path, "--frame", str(n), "--output", f"{work}/ours-{n}.png"],
                                capture_output=True, text=True)
        if result.returncode != 0:
            row["ours_error"] = first_line(result.stderr or result.stdout)
            return row
    try:
        result = subprocess.run([sys.executable, "-c", PEER, path, work, str(width), str(height),
                                 *(f"{n}:{int(ip) + n}" for n in frames)],
                                capture_output=True, text=True, timeout=PEER_TIMEOUT)
        if result.returncode != 0:
            row["peer_error"] = first_line(result.stderr)
            return row
    except subprocess.TimeoutExpired:
        row["peer_error"] = f"no frame within {PEER_TIMEOUT} s"
        return row
    row["luma"], row["rgb"], row["ink"] = [], [], []
    for n in frames:
        ours = over_white(f"{work}/ours-{n}.png", width, height)
        peer = over_white(f"{work}/peer-{n}.png", width, height)
        row["luma"].append(ssim(luma(ours), luma(peer)))
        row["rgb"].append(sum(ssim(ours[..., c], peer[..., c]) for c in range(3)) / 3)
        row["ink"].append((ink(ours), ink(peer)))
    return row


def main():
    files = sorted(glob.glob(os.path.join(ROOT, "Fixtures/lottie/lottie-spec/**/*.json"), recursive=True)
                   + glob.glob(os.path.join(ROOT, "Fixtures/lottie/lottie-docs/**/*.json"), recursive=True))
    keep = os.environ.get("LOTTIE_SSIM_KEEP")
    rows = []
    for path in files:
        with tempfile.TemporaryDirectory() as work:
            rows.append(compare(path, work))
            if keep:
                dest = os.path.join(keep, rows[-1]["file"].replace("/", "_"))
                os.makedirs(dest, exist_ok=True)
                for name in os.listdir(work):
                    os.replace(os.path.join(work, name), os.path.join(dest, name))
    report(rows, len(files))


EMPTY, DRAWN = 0.0, 0.005


def frame_problems(row):
    """Why each frame fails, if it does: SSIM below the threshold, or one renderer drawing nothing
    where the other draws at least 0.5% of the frame (SSIM stays high on a mostly white frame)."""
    problems = []
    for n, score, (ours, peer) in zip(row["frames"], row["luma"], row["ink"]):
        if ours <= EMPTY and peer >= DRAWN:
            problems.append(f"frame {n}: ours draws nothing, python-lottie {peer:.1%} of the frame")
        elif peer <= EMPTY and ours >= DRAWN:
            problems.append(f"frame {n}: python-lottie draws nothing, ours {ours:.1%} of the frame")
        elif score < THRESHOLD:
            problems.append(f"frame {n}: SSIM {score:.3f}")
    return problems


def verdict(row):
    """('pass' | 'empty' | 'scope' | 'invalid' | 'mismatch', reason)."""
    known = [f for f in row["features"] if f in FEATURES]
    if row["ours_error"]:
        # A valid file ours refuses is ours failing; refusing a file of lottie-spec's invalid set is right.
        if "/invalid/" in row["file"]:
            return "invalid", f"ours refuses an invalid file: {row['ours_error']}"
        return "mismatch", f"ours refuses: {row['ours_error']}"
    if row["peer_error"]:
        lacking = [f for f in known if FEATURES[f][0] in ("python-lottie", "both")]
        cause = f" ({', '.join(lacking)})" if lacking else (" (an invalid file)" if "/invalid/" in row["file"] else "")
        return "scope", f"python-lottie fails{cause}: {row['peer_error']}"
    if all(ours <= EMPTY and peer <= EMPTY for ours, peer in row["ink"]):
        if "external image" in known:
            return "scope", "both empty: " + FEATURES["external image"][2]
        return "empty", "both draw nothing: the file draws nothing at these frames"
    problems = frame_problems(row)
    if not problems:
        return "pass", ""
    ours_wrong = [f for f in known if FEATURES[f][1] == "ours"]
    if ours_wrong:
        return "mismatch", "ours wrong: " + "; ".join(FEATURES[f][2] for f in ours_wrong) + " (" + "; ".join(problems) + ")"
    lacking = [f for f in known if FEATURES[f][1] == "out"]
    if lacking:
        return "scope", "; ".join(FEATURES[f][2] for f in lacking) + " (" + "; ".join(problems) + ")"
    return "mismatch", "both renderers support every feature the file uses (" + "; ".join(problems) + ")"


def report(rows, tried):
    import lottie, cairosvg
    compared = [r for r in rows if not r["ours_error"] and not r["peer_error"]]
    verdicts = [(r, *verdict(r)) for r in rows]
    count = lambda kind: sum(1 for _, v, _ in verdicts if v == kind)
    refused = sum(1 for r, v, _ in verdicts if v == "scope" and r["peer_error"])
    print("## Lottie frames: SSIM against python-lottie")
    print()
    print(f"`assetpipe convert FILE --frame N` (our parser and checks, then rlottie) beside python-lottie {lottie.__version__}")
    print(f"(PyPI `lottie`; its SVG export rasterized by cairosvg {cairosvg.__version__}, which loads data: URLs only), on the")
    print(f"{tried} samples of Fixtures/lottie/lottie-spec and lottie-docs: the first frame and the middle frame (frame count // 2)")
    print("of each, at the animation's own size, both composited over white. SSIM: Gaussian window 11, sigma 1.5, K1 0.01,")
    print("K2 0.03, on luminance (BT.601 luma), mean over the valid region; the RGB column is the same SSIM averaged over")
    print(f"R, G and B, for colour. A frame passes at {THRESHOLD} on luminance, unless one renderer draws nothing where the other")
    print(f"draws {DRAWN:.1%} of the frame or more (a blank frame against a thin drawing still scores high). Features are read from")
    print("each file's JSON; what each renderer does with them was seen on the samples named. Written by `scripts/bench lottie-ssim`.")
    print()
    print("| file | frames | SSIM luma | SSIM RGB | result | reason |")
    print("|---|---|---|---|---|---|")
    for r, v, why in verdicts:
        frames = ", ".join(str(n) for n in r["frames"])
        if r["ours_error"] or r["peer_error"]:
            luma_text = rgb_text = "-"
        else:
            luma_text = ", ".join(f"{s:.3f}" for s in r["luma"])
            rgb_text = ", ".join(f"{s:.3f}" for s in r["rgb"])
        result = {"pass": "pass", "empty": "pass (empty)", "scope": "outside scope", "invalid": "refused (invalid file)",
                  "mismatch": "**fail**"}[v]
        print(f"| {r['file'].removeprefix('Fixtures/lottie/')} | {frames} | {luma_text} | {rgb_text} | {result} | {why or '-'} |")
    print()
    print("Features each renderer lacks or misreads, as seen here:")
    print()
    for name, (who, scope, what, samples) in FEATURES.items():
        print(f"- {name} ({'ours wrong' if scope == 'ours' else who + (' lack it' if who == 'both' else ' lacks it')}): {what} ({samples}).")
    print()
    mismatches = count("mismatch")
    print(f"Goal (issue 24): SSIM of at least {THRESHOLD} where both renderers support the features: **{'met' if not mismatches else 'not met'}**. "
          f"{len(compared)} files compared ({tried} tried), {count('pass') + count('empty')} at or above {THRESHOLD} on every frame "
          f"({count('empty')} of them empty in both), {count('scope')} outside scope ({refused} failed by python-lottie, "
          f"{count('scope') - refused} failing or empty on a feature a renderer lacks), {count('invalid')} invalid files ours refuses, "
          f"{mismatches} failing (below {THRESHOLD}, blank against a drawing, or a valid file ours refuses).")


if __name__ == "__main__":
    main()
