#!/usr/bin/env python3
"""SSIM of our Lottie frames against ThorVG's (run by scripts/bench.d/56-lottie-ssim-thorvg.sh).

ThorVG (PyPI `thorvg-python`, which ships its own libthorvg) is the faithful renderer beside
python-lottie: a complete Lottie player in C++ (LottieFiles' dotLottie players use it). Skottie
(PyPI `skia-python`) does not run here: skia-python 144.1 has no Skottie binding.

For every animation of Fixtures/lottie listed in FILES.tsv (JSON, `.lot`, dotLottie's default
animation, `.tgs`; not the loose image files), the first frame and the middle frame (frame count
// 2, counted from the in point as `assetpipe convert --frame` and ThorVG's `set_frame` count) are
rendered by both at the animation's own size:
- ours: `$ASSETPIPE convert FILE --frame N --output F.png` (our reader, parser and checks,
  `LottieFrameRenderer.prepare`, then rlottie);
- ThorVG: the animation's JSON (a dotLottie's images put inline as data: URLs, as our reader does)
  loaded from memory with `Picture.load_data` and no resource folder, so that, as ours, it reads
  no file; `SwCanvas` in straight-alpha RGBA (`ABGR8888S`); one process per file with a time limit.
Both are composited over white and compared with the SSIM of scripts/bench-lottie-ssim.py (Gaussian
window 11, sigma 1.5, on BT.601 luma), with the same
blank-against-drawn check (a frame past 512 px a side is first reduced alike in both, by a whole
factor). A file passes when every frame is at or above 0.9.

A file below 0.9 is put down to a feature one renderer draws otherwise (the table FEATURES, each
seen on the files named by looking at both frames side by side): "scope" when a renderer lacks the
feature (rlottie draws no text, neither loads external image files), "ours" when rlottie misreads
it (no JSON rewriting in `prepare` can fix it). Any other file below 0.9 is unexplained. Needs
ASSETPIPE (exported by scripts/bench); LOTTIE_SSIM_KEEP=DIR keeps every frame there. Prints one
Markdown section. Nothing leaves the machine.

    python3 scripts/bench-lottie-ssim-thorvg.py --reference FILE FRAME WIDTH HEIGHT OUT.png

renders one ThorVG frame (a reference frame for the tests, Fixtures/lottie/thorvg-frames).
"""
import base64, csv, gzip, importlib.util, io, json, os, subprocess, sys, tempfile, zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
THRESHOLD = 0.9
PEER_TIMEOUT = int(os.environ.get("LOTTIE_SSIM_PEER_TIMEOUT", "120"))


def shared():
    """scripts/bench-lottie-ssim.py as a module: its SSIM, compositing and feature reading."""
    spec = importlib.util.spec_from_file_location("lottie_ssim", os.path.join(ROOT, "scripts/bench-lottie-ssim.py"))
    module = importlib.util.module_from_spec(spec)
    os.environ.setdefault("ASSETPIPE", "assetpipe")
    spec.loader.exec_module(module)
    return module


def animation_json(path):
    """The JSON bytes of the default animation of the file at `path`: a plain file as it is, a
    `.tgs` gunzipped, a dotLottie's first animation with its images made data: URLs."""
    data = open(path, "rb").read()
    if data[:2] == b"\x1f\x8b":
        return gzip.decompress(data)
    if data[:2] != b"PK":
        return data
    archive = zipfile.ZipFile(io.BytesIO(data))
    names = [n for n in archive.namelist() if not n.startswith("__MACOSX/")]
    manifest = json.loads(archive.read("manifest.json"))
    ident = manifest["animations"][0]["id"]
    folder = next(f for f in ("animations/", "a/") if f"{f}{ident}.json" in names)
    doc = json.loads(archive.read(f"{folder}{ident}.json"))
    for asset in doc.get("assets") or []:
        name = asset.get("p") if isinstance(asset, dict) else None
        if not isinstance(name, str) or name.startswith("data:") or "layers" in asset:
            continue
        for images in ("images/", "i/"):
            if images + name in names:
                kind = "png" if name.lower().endswith(".png") else "webp" if name.lower().endswith(".webp") else "jpeg"
                asset["p"] = f"data:image/{kind};base64," + base64.b64encode(archive.read(images + name)).decode()
                asset["u"], asset["e"] = "", 1
    return json.dumps(doc).encode()


PEER = r'''
import sys, thorvg_python as tvg
source, out, width, height = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
engine = tvg.Engine(threads=0)
canvas = tvg.SwCanvas(engine)
canvas.set_target(width, height, cs=tvg.Colorspace.ABGR8888S)
animation = tvg.LottieAnimation(engine)
picture = animation.get_picture()
result = picture.load_data(open(source, "rb").read(), "lottie", None, True)
if result != tvg.Result.SUCCESS:
    sys.exit(f"ThorVG could not load the animation: {result.name}")
picture.set_size(width, height)
canvas.add(picture)
for pair in sys.argv[5:]:
    name, frame = pair.split(":")
    animation.set_frame(float(frame))
    canvas.update(); canvas.draw(True); canvas.sync()
    canvas.get_pillow().save(f"{out}/{name}.png")
'''


def render_peer(json_path, out, width, height, frames):
    """ThorVG's frames (name:frame pairs) in a process of its own: None, or why it failed."""
    try:
        result = subprocess.run([sys.executable, "-c", PEER, json_path, out, str(width), str(height), *frames],
                                capture_output=True, text=True, timeout=PEER_TIMEOUT)
    except subprocess.TimeoutExpired:
        return f"no frame within {PEER_TIMEOUT} s"
    if result.returncode != 0:
        lines = [l.strip() for l in (result.stderr or "").splitlines() if l.strip()]
        return (lines[-1] if lines else f"exit {result.returncode}")[:160]
    return None


# What one renderer draws otherwise, each seen on the files named (both frames side by side, and
# rlottie-python's newer rlottie build and python-lottie as third opinions where the two disagree):
# feature -> (scope, what happens, samples). "out": a renderer lacks the feature, so a file below
# the threshold is outside the goal; "peer": ThorVG draws it otherwise than rlottie (both builds)
# and python-lottie, so outside the goal too; "ours": rlottie 0.1 misreads it and `prepare` does not
# write it otherwise, so the file is our mismatch.
FEATURES = {
    "text layer": ("out", "rlottie 0.1 draws no text layers; ThorVG draws them with the glyphs (`chars`) or fonts it "
                   "has", "text, Text_*, FirstText"),
    "external image": ("out", "neither loads image files: ours reads no file by design, and ThorVG is given none",
                       "image, dog, effects-*"),
    "image scaled to its asset": ("ours", "rlottie 0.1 draws an image at its pixel size; Lottie (lottie-web, ThorVG) "
                                  "draws it at its asset's `w` x `h` (a 1600 px picture in a 2500 px asset comes out "
                                  "at 64%); `prepare` would have to resample the picture", "animation_external_image"),
    "inverted alpha matte": ("ours", "rlottie 0.1 draws some layers under an inverted alpha track matte (`tt` 2) "
                             "otherwise: nothing (issue_1683, a precomposition as the matte; issue_1655) or a filled disk "
                             "where there is a ring (issue_1260, mattes in a chain); rlottie-python's newer rlottie draws "
                             "them as ThorVG does; five other files with `tt` 2 pass, and no rewriting was found",
                             "issue_1683, issue_1655, issue_1260"),
    "WebP image": ("out", "rlottie 0.1 decodes PNG and JPEG images only, so `prepare` empties any other embedded "
                   "image (the layer draws nothing); ThorVG decodes WebP", "pr_2271"),
    "3D layer transform": ("ours", "a layer turned by `rx`, `ry` or `rz` (written as 3D, the only way rlottie 0.1 reads "
                           "them) lands about a pixel off ThorVG's, at every angle: on the hard edges of a 210 px "
                           "frame SSIM falls to 0.74-0.82 though the drawings match", "pr_1930_*"),
    "one-number anchor": ("peer", "a layer whose anchor `a` has one number: ThorVG draws nothing; rlottie reads it as "
                          "x (lottie-ios, whose test file it is, draws it; python-lottie fails)", "pr_1599"),
    "null easing": ("ours", "rlottie 0.1 fails to load a file whose keyframes have `i`, `o`, `ti` or `to` null; "
                    "with the nulls left out it loads, but then holds the value otherwise than ThorVG, so `prepare` "
                    "does not drop them", "pr_1632_1, pr_1632_2"),
    "alpha matte on a matted layer's child": ("ours", "rlottie 0.1 hides the layers under alpha track mattes (`tt` 1, "
                                              "from solid layers) that are children of a layer itself under such a "
                                              "matte (the body of TypeFace `A`); raw rlottie 0.1 on the original file "
                                              "gives our frame (SSIM 1.000 between them), rlottie-python's newer "
                                              "rlottie ThorVG's (0.994); "
                                              "without the body's two mattes rlottie 0.1 draws it (0.988); the cause "
                                              "was not narrowed further, and no rewriting that keeps the mattes was "
                                              "found (the solid matte as a shape layer, in points aligned, the body "
                                              "reparented)", "A"),
    "stretched precomposition": ("peer", "ThorVG leaves out a layer of a precomposition stretched by `sr` 0.7 (the "
                                 "leaves) that rlottie (both builds) and python-lottie draw", "multiple_animations"),
}

# Files below the threshold put down to a feature by looking at both renderings (the features
# above that are not read from the JSON alone): file -> feature.
SEEN = {
    "lottie-ios/DotLottie/animation_external_image.lottie": "image scaled to its asset",
    "lottie-ios/Issues/issue_1683.json": "inverted alpha matte",
    "lottie-ios/Issues/issue_1260.json": "inverted alpha matte",
    "lottie-ios/Issues/issue_1655.json": "inverted alpha matte",
    "lottie-ios/DotLottie/multiple_animations.lottie": "stretched precomposition",
    "lottie-ios/Issues/pr_2271.lottie": "WebP image",
    "lottie-ios/Issues/pr_1930_all_axis.json": "3D layer transform",
    "lottie-ios/Issues/pr_1930_rx.json": "3D layer transform",
    "lottie-ios/Issues/pr_1930_ry.json": "3D layer transform",
    "lottie-ios/Issues/pr_1930_rz.json": "3D layer transform",
    "lottie-ios/Issues/pr_1599.json": "one-number anchor",
    "lottie-ios/Issues/pr_1632_1.json": "null easing",
    "lottie-ios/Issues/pr_1632_2.json": "null easing",
    "lottie-ios/TypeFace/A.json": "alpha matte on a matted layer's child",
}

# Our limits (LottieFrameRenderer.Configuration), refusals by design: a file refused for one is
# outside the goal.
LIMITS = ("sizeTooLarge",)


def layer_features(doc):
    found = set()
    embedded = {a.get("id"): str(a.get("p", "")).startswith("data:") for a in doc.get("assets") or []
                if isinstance(a, dict) and "p" in a and "layers" not in a}
    lists = [doc.get("layers") or []] + [a.get("layers") or [] for a in doc.get("assets") or [] if isinstance(a, dict)]
    for layers in lists:
        for layer in layers:
            if not isinstance(layer, dict):
                continue
            if layer.get("ty") == 5:
                found.add("text layer")
            if layer.get("ty") == 2 and embedded.get(layer.get("refId")) is False:
                found.add("external image")
    return found


def compare(ssim_module, relative, work):
    path = os.path.join(ROOT, "Fixtures/lottie", relative)
    row = {"file": relative, "frames": [], "ours_error": None, "peer_error": None, "features": []}
    try:
        data = animation_json(path)
        doc = json.loads(data)
    except Exception as error:
        row["ours_error"] = row["peer_error"] = f"not an animation here: {error}"[:160]
        return row
    row["features"] = sorted(layer_features(doc))
    width, height = round(doc.get("w") or 0), round(doc.get("h") or 0)
    count = int(doc.get("op", 0)) - int(doc.get("ip", 0))
    row["frames"] = frames = [0, count // 2] if count > 1 else [0]
    for n in frames:
        result = subprocess.run([os.environ["ASSETPIPE"], "convert", path, "--frame", str(n), "--output",
                                 f"{work}/ours-{n}.png"], capture_output=True, text=True)
        if result.returncode != 0:
            row["ours_error"] = ssim_module.first_line(result.stderr or result.stdout)
            return row
    with open(f"{work}/animation.json", "wb") as handle:
        handle.write(data)
    row["peer_error"] = render_peer(f"{work}/animation.json", work, width, height, [f"peer-{n}:{n}" for n in frames])
    if row["peer_error"]:
        return row
    row["luma"], row["ink"] = [], []
    for n in frames:
        ours = smaller(ssim_module.over_white(f"{work}/ours-{n}.png", width, height))
        peer = smaller(ssim_module.over_white(f"{work}/peer-{n}.png", width, height))
        row["luma"].append(ssim_module.ssim(ssim_module.luma(ours), ssim_module.luma(peer)))
        row["ink"].append((ssim_module.ink(ours), ssim_module.ink(peer)))
    return row


def smaller(rgb):
    """`rgb` (float64, over white) reduced by a whole factor (box filter) to at most COMPARE_SIDE a
    side, so that a large animation costs what a small one does; both frames are reduced alike."""
    import numpy as np
    factor = -(-max(rgb.shape[0], rgb.shape[1]) // COMPARE_SIDE)
    if factor <= 1:
        return rgb
    h, w = rgb.shape[0] // factor * factor, rgb.shape[1] // factor * factor
    return rgb[:h, :w].reshape(h // factor, factor, w // factor, factor, 3).mean(axis=(1, 3))


COMPARE_SIDE = 512


def problems(ssim_module, row):
    found = []
    for n, score, (ours, peer) in zip(row["frames"], row["luma"], row["ink"]):
        if ours <= ssim_module.EMPTY and peer >= ssim_module.DRAWN:
            found.append(f"frame {n}: ours draws nothing, ThorVG {peer:.1%} of the frame")
        elif peer <= ssim_module.EMPTY and ours >= ssim_module.DRAWN:
            found.append(f"frame {n}: ThorVG draws nothing, ours {ours:.1%} of the frame")
        elif score < THRESHOLD:
            found.append(f"frame {n}: SSIM {score:.3f}")
    return found


def verdict(ssim_module, row):
    """('pass' | 'scope' | 'invalid' | 'ours' | 'unexplained', reason)."""
    if row["ours_error"]:
        if row["file"].startswith("lottie-spec/invalid/"):
            return "invalid", f"ours refuses an invalid file: {row['ours_error']}"
        if any(limit in row["ours_error"] for limit in LIMITS):
            return "scope", f"past our limit, by design: {row['ours_error']}"
        ours = [f for f in row.get("seen", []) if FEATURES.get(f, ("",))[0] == "ours"]
        if ours:
            return "ours", "; ".join(FEATURES[f][1] for f in ours) + f" (ours refuses: {row['ours_error']})"
        return "unexplained", f"ours refuses: {row['ours_error']}"
    if row["peer_error"]:
        return "scope", f"ThorVG fails: {row['peer_error']}"
    found = problems(ssim_module, row)
    if not found:
        return "pass", ""
    named = [f for f in row["features"] + row.get("seen", []) if f in FEATURES]
    ours = [f for f in named if FEATURES[f][0] == "ours"]
    if ours:
        return "ours", "; ".join(FEATURES[f][1] for f in ours) + " (" + "; ".join(found) + ")"
    out = [f for f in named if FEATURES[f][0] in ("out", "peer")]
    if out:
        return "scope", "; ".join(FEATURES[f][1] for f in out) + " (" + "; ".join(found) + ")"
    return "unexplained", "; ".join(found)


def main():
    if sys.argv[1:2] == ["--reference"]:
        source, frame, width, height, out = sys.argv[2:7]
        with tempfile.TemporaryDirectory() as work:
            with open(f"{work}/animation.json", "wb") as handle:
                handle.write(animation_json(source))
            error = render_peer(f"{work}/animation.json", work, int(width), int(height), [f"frame:{frame}"])
            if error:
                sys.exit(error)
            os.replace(f"{work}/frame.png", out)
        return
    ssim_module = shared()
    with open(os.path.join(ROOT, "Fixtures/lottie/FILES.tsv"), newline="") as listing:
        files = [r["path"] for r in csv.DictReader(listing, delimiter="\t") if r["expect"] != "asset-file"]
    keep = os.environ.get("LOTTIE_SSIM_KEEP")

    def one(relative):
        with tempfile.TemporaryDirectory() as work:
            row = compare(ssim_module, relative, work)
            row["seen"] = [SEEN[relative]] if relative in SEEN else []
            print(f"{relative}\t{row.get('luma')}\t{row['ours_error']}\t{row['peer_error']}", file=sys.stderr, flush=True)
            if keep:
                dest = os.path.join(keep, relative.replace("/", "_"))
                os.makedirs(dest, exist_ok=True)
                for name in os.listdir(work):
                    if name.endswith(".png"):
                        os.replace(os.path.join(work, name), os.path.join(dest, name))
            return row

    # LOTTIE_SSIM_JOBS files at a time (default 1): each file's renderers are processes of their own.
    from concurrent.futures import ThreadPoolExecutor
    with ThreadPoolExecutor(max_workers=int(os.environ.get("LOTTIE_SSIM_JOBS", "1"))) as pool:
        rows = list(pool.map(one, files))
    report(ssim_module, rows)


def report(ssim_module, rows):
    import thorvg_python
    verdicts = [(r, *verdict(ssim_module, r)) for r in rows]
    count = lambda kind: sum(1 for _, v, _ in verdicts if v == kind)
    compared = [r for r in rows if not r["ours_error"] and not r["peer_error"]]
    print("## Lottie frames: SSIM against ThorVG")
    print()
    print(f"`assetpipe convert FILE --frame N` (our reader, parser and checks, `prepare`'s rewriting, then rlottie) beside")
    print(f"ThorVG (PyPI `thorvg-python` {thorvg_python.__version__}, its bundled libthorvg; the JSON loaded from memory, so it reads no file),")
    print(f"on the {len(rows)} animations of Fixtures/lottie (JSON, `.lot`, dotLottie, `.tgs`): the first and the middle frame")
    print("(frame count // 2 from the in point) of each at the animation's own size, both composited over white (a frame over")
    print(f"{COMPARE_SIDE} px a side then reduced alike by a whole factor, a box filter). SSIM as in the python-lottie section (Gaussian")
    print(f"11 / 1.5, on BT.601 luma). A file passes at {THRESHOLD} on every")
    print("frame, unless one renderer draws nothing where the other draws 0.5% of the frame or more. Skottie")
    print("(PyPI `skia-python` 144.1) has no Python binding, so ThorVG is the second renderer. Written by")
    print("`scripts/bench lottie-ssim-thorvg`.")
    print()
    print("| file | frames | SSIM luma | result | reason |")
    print("|---|---|---|---|---|")
    names = {"pass": "pass", "scope": "outside scope", "invalid": "refused (invalid file)", "ours": "**fail** (rlottie)",
             "unexplained": "**fail**"}
    for r, v, why in verdicts:
        frames = ", ".join(str(n) for n in r["frames"])
        luma_text = "-" if r["ours_error"] or r["peer_error"] else ", ".join(f"{s:.3f}" for s in r["luma"])
        print(f"| {r['file']} | {frames} | {luma_text} | {names[v]} | {why or '-'} |")
    print()
    print("What each renderer draws otherwise, by feature (seen on the files named):")
    print()
    for name, (scope, what, samples) in FEATURES.items():
        kind = {"ours": "rlottie 0.1 wrong", "peer": "ThorVG differs, outside scope", "out": "outside scope"}[scope]
        print(f"- {name} ({kind}): {what} ({samples}).")
    print()
    failing = count("ours") + count("unexplained")
    print(f"Goal (issue 31): SSIM of at least {THRESHOLD} against ThorVG on every file both support: "
          f"**{'met' if not failing else 'not met'}**. {len(compared)} files compared ({len(rows)} tried), "
          f"{count('pass')} at or above {THRESHOLD} on every frame, {count('scope')} outside scope (a feature one renderer "
          f"lacks or ThorVG draws otherwise, ThorVG failing, or past our limits), {count('invalid')} invalid files ours refuses, {count('ours')} below on a feature "
          f"rlottie 0.1 misreads, {count('unexplained')} below and not explained.")


if __name__ == "__main__":
    main()
