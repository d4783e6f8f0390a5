#!/usr/bin/env python3
"""The correctness goals of the transform, checked on the real binary for BENCHMARKS.md.

    scripts/bench-transform-correctness.py ASSETPIPE ROOT WORKDIR

Runs `assetpipe convert` on the files of ROOT/Fixtures/imaging (see its SOURCES.md: every file is
from the corpus or made from one by scripts/make-imaging-fixtures, with libvips's renderings as
references) and on corrupt sources, and prints a Markdown table, one row per check, with "met" or
"not met":

- orientation: each of orientation-1..8.jpg (and orientation-6.png) converted to PNG equals the
  upright reference pixel for pixel (orientation-upright.png; for 5-8 orientation-upright-5to8.png,
  since libjpeg's IDCT rounds transposed blocks differently);
- colour: the Adobe RGB JPEG and PNG, the YCCK JPEG with its SWOP profile, against libvips's
  `icc_transform` to sRGB (largest and mean difference in 8-bit levels);
- alpha: an RGBA PNG through PNG, lossless WebP and AVIF keeps its alpha; through JPEG it is
  flattened onto the background;
- validity: every output of every format passes its reference tool (djpeg, pngcheck, dwebp,
  avifdec);
- bad input: corrupt, truncated and bomb sources exit 1 with a typed code and write nothing;
  absurd transforms exit 2.
"""
import json
import os
import subprocess
import sys

import numpy as np
from PIL import Image


def run(args):
    return subprocess.run(args, capture_output=True, text=True)


def pixels(path, work):
    """RGBA pixels of an output, decoded by the format's reference decoder where Pillow lacks one."""
    if path.endswith(".avif"):
        png = os.path.join(work, os.path.basename(path) + ".png")
        result = run(["avifdec", path, png])
        if result.returncode != 0:
            raise RuntimeError(f"avifdec failed on {path}: {result.stderr.strip()}")
        path = png
    with Image.open(path) as image:
        return np.asarray(image.convert("RGBA")).astype(np.int32)


def valid(path, work):
    tool = {
        ".jpg": ["djpeg", "-outfile", "/dev/null", path],
        ".png": ["pngcheck", "-q", path],
        ".webp": ["dwebp", "-quiet", path, "-o", "/dev/null"],
        ".avif": ["avifdec", path, os.path.join(work, "valid-check.png")],
    }[os.path.splitext(path)[1]]
    return run(tool).returncode == 0, tool[0]


def main():
    assetpipe, root, work = sys.argv[1:4]
    fixtures = os.path.join(root, "Fixtures")
    imaging = os.path.join(fixtures, "imaging")
    os.makedirs(work, exist_ok=True)
    rows = []
    outputs = []

    def convert(source, output, *flags):
        target = os.path.join(work, output)
        if os.path.exists(target):
            os.remove(target)
        result = run([assetpipe, "convert", source, "--output", target, "--json", *flags])
        if result.returncode == 0:
            outputs.append(target)
        return result, target

    def reference(name):
        with Image.open(os.path.join(imaging, name)) as image:
            return np.asarray(image.convert("RGBA")).astype(np.int32)

    # Orientation
    exact = []
    for n in range(1, 9):
        result, out = convert(os.path.join(imaging, f"orientation-{n}.jpg"), f"orientation-{n}.png")
        ref = reference("orientation-upright.png" if n <= 4 else "orientation-upright-5to8.png")
        ok = result.returncode == 0 and pixels(out, work).shape == ref.shape and (pixels(out, work) == ref).all()
        exact.append(ok)
    result, out = convert(os.path.join(imaging, "orientation-6.png"), "orientation-6-png.png")
    png_ok = result.returncode == 0 and (pixels(out, work) == reference("orientation-upright.png")).all()
    rows.append(("orientation", "EXIF orientations 1-8 (JPEG) come out upright, pixel for pixel",
                 f"{sum(exact)} of 8 exact", "met" if all(exact) else "not met"))
    rows.append(("orientation", "a PNG's eXIf orientation 6 comes out upright", "exact" if png_ok else "differs",
                 "met" if png_ok else "not met"))

    # Colour against libvips's icc_transform
    for source, expected, bound in (
        ("icc-adobergb.jpg", "icc-adobergb-jpg-vips-srgb.png", (2, None)),
        ("icc-adobergb.png", "icc-adobergb-png-vips-srgb.png", (2, None)),
        ("ycck.jpg", "ycck-vips-srgb.png", (6, 0.5)),
    ):
        result, out = convert(os.path.join(imaging, source), source.replace(".", "-") + ".png")
        if result.returncode != 0:
            rows.append(("colour", f"{source} to sRGB as libvips", result.stderr.strip(), "not met"))
            continue
        diff = np.abs(pixels(out, work)[..., :3] - reference(expected)[..., :3])
        largest, mean = int(diff.max()), float(diff.mean())
        ok = largest <= bound[0] and (bound[1] is None or mean <= bound[1])
        limit = f"max <= {bound[0]}" + (f", mean <= {bound[1]}" if bound[1] is not None else "")
        rows.append(("colour", f"{source} converted to sRGB, against libvips `icc_transform` ({limit})",
                     f"max {largest}, mean {mean:.3f}", "met" if ok else "not met"))

    # Alpha
    source = os.path.join(fixtures, "imaging", "rgb-alpha-8-sRGB.png")
    with Image.open(source) as image:
        alpha_in = np.asarray(image.convert("RGBA"))[..., 3].astype(np.int32)
    for ext, flags, bound in ((".png", [], 0), (".webp", ["--lossless"], 0), (".avif", ["--lossless"], 0)):
        result, out = convert(source, "alpha" + ext, *flags)
        if result.returncode != 0:
            rows.append(("alpha", f"alpha survives {ext[1:].upper()}", result.stderr.strip(), "not met"))
            continue
        largest = int(np.abs(pixels(out, work)[..., 3] - alpha_in).max())
        rows.append(("alpha", f"alpha survives {ext[1:].upper()}" + (" (lossless)" if flags else ""),
                     f"largest alpha difference {largest}", "met" if largest <= bound else "not met"))
    # Lossy: the alpha plane must survive, not merely the conversion run: at most 2 levels on average
    # and 32 at worst (a lossy plane's ringing at the ramp's edges), against the source's alpha.
    lossy, lossy_ok = [], True
    for ext in (".webp", ".avif"):
        result, out = convert(source, "alpha-lossy" + ext, "--quality", "80")
        if result.returncode != 0:
            lossy.append(f"{ext[1:]} failed: {result.stderr.strip()[:120]}")
            lossy_ok = False
            continue
        difference = np.abs(pixels(out, work)[..., 3] - alpha_in)
        mean, largest = float(difference.mean()), int(difference.max())
        lossy.append(f"{ext[1:]} mean {mean:.2f}, max {largest}")
        lossy_ok &= mean <= 2.0 and largest <= 32
    rows.append(("alpha", "alpha kept by lossy WebP and AVIF at q80 (mean alpha difference <= 2, max <= 32)", "; ".join(lossy),
                 "met" if lossy_ok else "not met"))
    source = os.path.join(imaging, "basn6a08.png")  # smooth alpha: JPEG loss stays small
    result, out = convert(source, "alpha.jpg", "--background", "0000ff", "--quality", "95")
    if result.returncode == 0:
        with Image.open(source) as image:
            rgba = np.asarray(image.convert("RGBA")).astype(np.float64)
        a = rgba[..., 3:4] / 255.0
        expected = rgba[..., :3] * a + np.array([0.0, 0.0, 255.0]) * (1 - a)
        got = pixels(out, work)[..., :3]
        mean = float(np.abs(got - expected).mean())
        transparent = rgba[..., 3] == 0
        blue = float(got[transparent][:, 2].mean()) if transparent.any() else float("nan")
        ok = mean < 3 and (blue > 200 or not transparent.any())
        rows.append(("alpha", "basn6a08.png to JPEG (q95) is the image composited over the background (bg=0000ff): mean difference"
                     " from the exact composite, and the blue of the fully transparent pixels",
                     f"mean {mean:.2f}, blue {blue:.0f}", "met" if ok else "not met"))

    # Every format through its reference tool
    photo = os.path.join(fixtures, "jpeg", "libjpeg-turbo", "testorig.jpg")
    failed_conversions = []
    for ext in (".jpg", ".png", ".webp", ".avif"):
        for flags in ([], ["--width", "100", "--height", "100", "--fit", "cover", "--gravity", "attention"],
                      ["--width", "300", "--height", "120", "--fit", "contain", "--progressive"]):
            result, out = convert(photo, f"formats-{len(flags)}{ext}", *flags)
            if result.returncode != 0:
                failed_conversions.append(f"{os.path.basename(out)} (convert exited {result.returncode})")
    # every output made above, and every conversion that made none, counts: a failed conversion is a
    # failed check, not one fewer to check
    checked = [(path, *valid(path, work)) for path in outputs]
    bad = [f"{os.path.basename(p)} ({tool})" for p, ok, tool in checked if not ok] + failed_conversions
    checked += [(name, False, "convert") for name in failed_conversions]
    rows.append(("validity", "every output above passes djpeg, pngcheck, dwebp or avifdec",
                 f"{len(checked) - len(bad)} of {len(checked)}" + (f"; failed: {', '.join(bad)}" if bad else ""),
                 "met" if not bad else "not met"))

    # Bad input
    bad_sources = [
        ("png/libpng-testpngs/crashers/badcrc.png", "corrupt PNG"),
        ("jpeg/jpeg-decoder-crashtest/missing-sos.jpg", "JPEG without scan"),
    ]
    truncated = os.path.join(work, "truncated.png")
    with open(os.path.join(fixtures, "imaging", "icc-adobergb.png"), "rb") as f:
        open(truncated, "wb").write(f.read()[:3000])
    bomb = os.path.join(work, "bomb.jpg")
    data = bytearray(open(os.path.join(imaging, "orientation-1.jpg"), "rb").read())
    sof = next(i for i in range(len(data) - 9) if data[i] == 0xFF and data[i + 1] in (0xC0, 0xC2))
    data[sof + 5:sof + 9] = bytes([0xEA, 0x60, 0xEA, 0x60])  # 60000 x 60000 declared
    open(bomb, "wb").write(bytes(data))
    cases = [(os.path.join(fixtures, p), what) for p, what in bad_sources] + [(truncated, "truncated PNG"), (bomb, "60000x60000 bomb")]
    seen = []
    all_ok = True
    for path, what in cases:
        target = os.path.join(work, "bad-out.webp")
        result = run([assetpipe, "convert", path, "--output", target, "--width", "64", "--json"])
        code = ""
        try:
            code = json.loads(result.stdout)["error"]["code"]
        except (ValueError, KeyError, TypeError):
            pass
        ok = result.returncode == 1 and code in ("corrupt", "truncated", "unsupported", "tooLarge") and not os.path.exists(target)
        all_ok &= ok
        seen.append(f"{what}: exit {result.returncode} `{code}`")
    rows.append(("bad input", "corrupt, truncated and bomb sources exit 1 with a typed code, no output", "; ".join(seen),
                 "met" if all_ok else "not met"))
    absurd = []
    absurd_ok = True
    for flags in (["--width", "0"], ["--width", "100000"], ["--format", "gif"], ["--quality", "101"], ["--transform", "w=10,zoom=2"]):
        target = os.path.join(work, "absurd.webp")
        result = run([assetpipe, "convert", photo, "--output", target, *flags])
        absurd_ok &= result.returncode == 2 and not os.path.exists(target)
        absurd.append(f"`{' '.join(flags)}`: {result.returncode}")
    rows.append(("bad input", "absurd transforms exit 2 (bad usage) before reading anything", ", ".join(absurd),
                 "met" if absurd_ok else "not met"))

    print("| area | check | result | verdict |")
    print("|---|---|---|---|")
    for row in rows:
        print("| " + " | ".join(str(x).replace("|", "/") for x in row) + " |")
    met = sum(1 for row in rows if row[3] == "met")
    print()
    print(f"{met} of {len(rows)} correctness checks met.")


if __name__ == "__main__":
    main()
