#!/usr/bin/env python3
"""The peer side of the transform benchmark (scripts/bench.d/90-transform.sh): inputs, peers,
timing, the reference image, SSIM and the validity check of every output.

    scripts/bench-transform-peers.py generate DIR
        Writes the inputs once (seeded): photo-12mp.jpg (4000x3000, q90 4:2:0), photo-4mp.jpg
        (2304x1728, q90 4:2:0) and rgba-2mp.png (1920x1080 RGBA with a varying alpha channel).
    scripts/bench-transform-peers.py cases
        One TSV line per case: name, input file name, width, format, quality ('-' for none),
        extension, default images per stream per measurement.
    scripts/bench-transform-peers.py inproc PEER --runs N --warmup W --threads T --width W
            --format F [--quality Q] [--output PATH] FILE
        PEER: pillow | pyvips. Times the peer inside this process, as assetpipe-bench transform
        times ours: FILE is read into memory once, then T threads each transform those bytes W
        times untimed and, from a common start, N times timed. Prints the TSV line assetpipe-bench transform prints:
        file, format, out_width, out_height, runs, threads, median_ms, min_ms, max_ms,
        images_per_s, peak_rss_kb, output_bytes (images_per_s: T*N images / wall time; median,
        min, max: per-image latency; peak_rss_kb: this process's ru_maxrss after the loop).
    scripts/bench-transform-peers.py wholeproc --runs N --warmup W --streams S --output PATH
            [--format F] -- CMD...
        Times CMD as a whole process (start-up included), run under `/usr/bin/time -f %M`. CMD
        may use {out}, replaced by PATH (stream k > 0 writes PATH with '.sK' before its extension).
        One stream: `sync` before every timed run, images_per_s = N / the sum of the timed runs.
        S streams: `sync`, then S concurrent streams of N back-to-back processes each;
        images_per_s = S*N / wall time. Prints the same TSV line (threads = S, peak_rss_kb = the
        largest %M of the timed runs).
    scripts/bench-transform-peers.py pillow-oneshot IN OUT WIDTH FORMAT [QUALITY]
        The whole-process Pillow contender: one transform, as `python3 -c` would do it.
    scripts/bench-transform-peers.py quality SOURCE OUT...
        For each output, one TSV line: path, format seen, width, height, bytes, SSIM, valid, note.
        The reference: SOURCE decoded whole by Pillow, premultiplied when it has alpha, each
        channel downscaled to the output's exact size by Pillow's Lanczos-3 on mode "F" (float)
        images, clipped to 0..255. The output is decoded by Pillow (AVIF: `avifdec` to PNG first)
        and premultiplied alike. SSIM (Wang et al. 2004: 11x11 Gaussian window, sigma 1.5) per
        channel (R, G, B, and A when SOURCE has alpha), averaged. Valid: the format's reference
        tool exits 0 (djpeg, pngcheck, dwebp, avifdec).
    scripts/bench-transform-peers.py tools
        The versions and AVIF settings of the peers, one 'key<TAB>value' line each.

Only io, os, sys and time are imported at the top (everything else where it is used), so that the
`pillow-oneshot` process pays for no more than its own imports (Python and Pillow) and the
in-process peers carry no numpy in their memory.
"""
import io
import os
import sys
import time

VIPS_MAX_COORD = 10000000  # libvips' largest dimension: a width-only bound for thumbnail

# name: input, output width, format, quality (None: the format has none), output extension, and
# the default images per stream per measurement (TRANSFORM_RUNS overrides it), chosen so that the
# whole section, ours included, takes under ten minutes on two cores with three rounds (9 min with
# the machine also building; AVIF through libvips, about 3 s an image, is most of it).
CASES = [
    ("jpeg12mp-to-jpeg", "photo-12mp.jpg", 512, "jpeg", 80, "jpg", 5),
    ("jpeg12mp-to-webp", "photo-12mp.jpg", 512, "webp", 80, "webp", 5),
    ("png2mp-rgba-to-png", "rgba-2mp.png", 256, "png", None, "png", 5),
    ("jpeg4mp-to-avif", "photo-4mp.jpg", 1024, "avif", 60, "avif", 2),
]

PIL_FORMATS = {"jpeg": "JPEG", "png": "PNG", "webp": "WEBP", "avif": "AVIF"}


# ---------------------------------------------------------------------------------------------
# inputs

def generate(directory):
    import pathlib
    import numpy as np
    from PIL import Image, ImageDraw
    out = pathlib.Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(90)

    def field(width, height, channels, scales):
        """Smooth random fields (random cells upscaled bicubically) at several scales, 0..1."""
        acc = np.zeros((height, width, channels), dtype=np.float32)
        for cells, weight in scales:
            small = rng.random((max(2, cells * height // width), cells, channels)).astype(np.float32)
            for c in range(channels):
                layer = Image.fromarray(small[:, :, c], mode="F").resize((width, height), Image.BICUBIC)
                acc[:, :, c] += weight * np.asarray(layer)
        return acc

    def shapes(width, height, count, colour):
        """Hard-edged ellipses, rectangles and thin lines on a transparent layer."""
        layer = Image.new("RGBA", (width, height), (0, 0, 0, 0))
        draw, scale = ImageDraw.Draw(layer), width / 4000
        for _ in range(count):
            x, y = rng.uniform(0, width), rng.uniform(0, height)
            rx, ry = rng.uniform(20, 400) * scale, rng.uniform(20, 400) * scale
            fill = colour()
            kind = rng.integers(0, 3)
            if kind == 0:
                draw.ellipse([x - rx, y - ry, x + rx, y + ry], fill=fill)
            elif kind == 1:
                draw.rectangle([x - rx, y - ry, x + rx, y + ry], fill=fill)
            else:
                draw.line([(x - rx, y - ry), (x + rx, y + ry)], fill=fill, width=max(1, int(rng.uniform(2, 14) * scale)))
        return layer

    def photo(width, height, noise=5.0):
        """Photo-like RGB: a luma field at three scales (the finest gives texture down to a few
        pixels) with chroma only at coarse scales, as in photographs, semi-opaque hard-edged
        shapes over it, then sensor-like noise (mostly luma). A 12 MP one is about 3.5 MB at
        quality 90, like a camera's."""
        luma = field(width, height, 1, ((12, 0.55), (60, 0.2), (400, 0.25))) * 255
        chroma = (field(width, height, 3, ((8, 0.6), (40, 0.4))) - 0.5) * 140
        base = Image.fromarray(np.clip(luma + chroma, 0, 255).astype(np.uint8)).convert("RGBA")
        over = shapes(width, height, 60, lambda: tuple(int(v) for v in rng.integers(0, 256, 3)) + (int(rng.integers(120, 230)),))
        pixels = np.asarray(Image.alpha_composite(base, over).convert("RGB")).astype(np.float32)
        pixels += rng.normal(0, noise, (height, width, 1)).astype(np.float32)
        pixels += rng.normal(0, noise / 2, (height, width, 3)).astype(np.float32)
        return np.clip(pixels, 0, 255).astype(np.uint8)

    def alpha(width, height):
        """A varying alpha: a smooth field stretched into fully transparent and fully opaque
        regions with gradients between (a little noise where it is partial), then hard-edged
        opaque and transparent shapes (cut-outs) over it: about a third of the pixels end up
        transparent, a third opaque."""
        smooth = field(width, height, 1, ((6, 0.7), (40, 0.3)))[:, :, 0]
        lo, hi = np.percentile(smooth, 20), np.percentile(smooth, 67)
        a = np.clip((smooth - lo) / (hi - lo), 0, 1) * 255
        partial = (a > 0) & (a < 255)
        a[partial] += rng.normal(0, 3, int(partial.sum())).astype(np.float32)
        cut = np.asarray(shapes(width, height, 30, lambda: (255, 255, 255, 255) if rng.random() < 0.5 else (1, 1, 1, 255)))
        a = np.where(cut[:, :, 3] > 0, np.where(cut[:, :, 0] > 128, 255.0, 0.0), a)
        return np.clip(a, 0, 255).astype(np.uint8)

    def make(name, build):
        path = out / name
        if not path.exists():
            tmp = path.with_suffix(".tmp" + path.suffix)
            build(tmp)
            tmp.rename(path)
            print(f"generated {path}", file=sys.stderr)

    make("photo-12mp.jpg", lambda p: Image.fromarray(photo(4000, 3000)).save(p, quality=90, subsampling="4:2:0"))
    make("photo-4mp.jpg", lambda p: Image.fromarray(photo(2304, 1728)).save(p, quality=90, subsampling="4:2:0"))
    make("rgba-2mp.png", lambda p: Image.fromarray(np.dstack([photo(1920, 1080), alpha(1920, 1080)]), mode="RGBA").save(p))


# ---------------------------------------------------------------------------------------------
# in-process peers

def pillow_transformer(width, fmt, quality):
    from PIL import Image
    Image.MAX_IMAGE_PIXELS = None
    try:
        import pillow_avif  # noqa: F401  (the plugin, when Pillow has no AVIF of its own)
    except ImportError:
        pass
    options = {} if quality is None else {"quality": quality}
    pil_format = PIL_FORMATS[fmt]

    def run(data):
        with Image.open(io.BytesIO(data)) as image:
            height = max(1, round(image.height * width / image.width))
            if image.format == "JPEG":
                # Shrink on load as Pillow users do (thumbnail() does the same): libjpeg's DCT
                # scaling by the largest 1/2, 1/4, 1/8 that keeps the image at least this size.
                image.draft("RGB", (width, height))
            has_alpha = image.mode in ("RGBA", "LA", "PA") or "transparency" in image.info
            image = image.convert("RGBA" if has_alpha else "RGB")
        out = image.resize((width, height), Image.LANCZOS)
        buffer = io.BytesIO()
        out.save(buffer, format=pil_format, **options)
        return buffer.getvalue(), out.size
    return run


def pyvips_transformer(width, fmt, quality):
    import pyvips
    # No operation cache: the same file is transformed again and again here, and a cached
    # load would make every run after the first cheaper than a server's stream of new images.
    pyvips.cache_set_max(0)
    options = {"strip": True}
    if quality is not None:
        options["Q"] = quality

    def run(data):
        image = pyvips.Image.thumbnail_buffer(data, width, height=VIPS_MAX_COORD)
        if fmt == "avif":
            data = image.heifsave_buffer(compression="av1", **options)
        else:
            data = image.write_to_buffer("." + {"jpeg": "jpg"}.get(fmt, fmt), **options)
        return data, (image.width, image.height)
    return run


def peak_rss_kb():
    import resource
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def parse_options(argv, flags):
    options, rest, index = {}, [], 0
    while index < len(argv):
        arg = argv[index]
        if arg == "--":
            rest.extend(argv[index + 1:])
            break
        if arg.startswith("--") and arg[2:] in flags:
            options[arg[2:]] = argv[index + 1]
            index += 2
        else:
            rest.append(arg)
            index += 1
    return options, rest


def tsv_line(path, fmt, size, runs, threads, latencies, rate, peak, output_bytes):
    import statistics
    return "\t".join([path, fmt, str(size[0]), str(size[1]), str(runs), str(threads),
                      f"{statistics.median(latencies) * 1000:.3f}", f"{min(latencies) * 1000:.3f}",
                      f"{max(latencies) * 1000:.3f}", f"{rate:.3f}", str(peak), str(output_bytes)])


def inproc(argv):
    import threading
    peer = argv[0]
    options, rest = parse_options(argv[1:], {"runs", "warmup", "threads", "width", "format", "quality", "output"})
    path = rest[0]
    runs, warmup = int(options.get("runs", 10)), int(options.get("warmup", 2))
    threads, width, fmt = int(options.get("threads", 1)), int(options["width"]), options["format"]
    quality = int(options["quality"]) if options.get("quality") not in (None, "-") else None
    if peer == "pillow":
        run = pillow_transformer(width, fmt, quality)
    elif peer == "pyvips":
        run = pyvips_transformer(width, fmt, quality)
    else:
        raise SystemExit(f"unknown in-process peer {peer}")
    with open(path, "rb") as handle:
        source = handle.read()  # read once, as assetpipe-bench does: the loop decodes from memory
    latencies, last, failures = [], [None], []
    lock = threading.Lock()
    start_line = threading.Barrier(threads + 1)

    def stream():
        mine = []
        try:
            for _ in range(warmup):
                run(source)
        except Exception as error:
            failures.append(error)
        start_line.wait()
        if failures:
            return
        try:
            for _ in range(runs):
                begin = time.perf_counter()
                result = run(source)
                mine.append(time.perf_counter() - begin)
                last[0] = result
        except Exception as error:
            failures.append(error)
            return
        with lock:
            latencies.extend(mine)

    workers = [threading.Thread(target=stream) for _ in range(threads)]
    for worker in workers:
        worker.start()
    start_line.wait()  # every thread has warmed up: the clock starts for all at once
    start = time.perf_counter()
    for worker in workers:
        worker.join()
    wall = time.perf_counter() - start
    if failures or last[0] is None:
        raise SystemExit(f"{peer} failed on {path}: {failures[0] if failures else 'no output'}")
    data, size = last[0]
    if options.get("output"):
        with open(options["output"], "wb") as handle:
            handle.write(data)
    print(tsv_line(path, fmt, size, runs, threads, latencies, threads * runs / wall, peak_rss_kb(), len(data)))


def pillow_oneshot(argv):
    path, out, width, fmt = argv[0], argv[1], int(argv[2]), argv[3]
    quality = int(argv[4]) if len(argv) > 4 and argv[4] != "-" else None
    with open(path, "rb") as handle:
        data, _ = pillow_transformer(width, fmt, quality)(handle.read())
    with open(out, "wb") as handle:
        handle.write(data)


# ---------------------------------------------------------------------------------------------
# whole processes

def stream_path(path, index):
    if index == 0:
        return path
    base, ext = os.path.splitext(path)
    return f"{base}.s{index}{ext}"


def run_timed(argv):
    """Runs argv under GNU time; returns (wall seconds, peak RSS KB). GNU time's %M is its wait4's
    ru_maxrss of the command (see bench-decode-file.py for why not this script's own wait4)."""
    import subprocess
    read, write = os.pipe()
    try:
        start = time.perf_counter()
        child = subprocess.run(["/usr/bin/time", "-f", "%M", "-o", f"/dev/fd/{write}"] + argv,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, pass_fds=(write,))
        wall = time.perf_counter() - start
    finally:
        os.close(write)
    with os.fdopen(read) as handle:
        report = handle.read().split()
    if child.returncode != 0:
        raise SystemExit(f"failed with status {child.returncode}: {' '.join(argv)}\n"
                         f"{child.stderr.decode(errors='replace')[-2000:]}")
    return wall, int(report[-1])


def image_size(path):
    from PIL import Image
    try:
        import pillow_avif  # noqa: F401
    except ImportError:
        pass
    try:
        with Image.open(path) as image:
            return image.size
    except Exception:  # a format Pillow cannot read: the table says so through `quality`
        return (0, 0)


def wholeproc(argv):
    import subprocess
    import threading
    options, command = parse_options(argv, {"runs", "warmup", "streams", "output", "format"})
    runs, warmup, streams = int(options.get("runs", 10)), int(options.get("warmup", 1)), int(options.get("streams", 1))
    out = options["output"]

    def argv_for(index):
        target = stream_path(out, index)
        return [part.replace("{out}", target) for part in command]

    for index in range(streams):
        for _ in range(warmup):
            run_timed(argv_for(index))
    latencies, peaks = [], []
    lock = threading.Lock()
    if streams == 1:
        for _ in range(runs):
            subprocess.run(["sync"], check=True)
            wall, peak = run_timed(argv_for(0))
            latencies.append(wall)
            peaks.append(peak)
        rate = runs / sum(latencies)
    else:
        failures = []

        def stream(index):
            mine = []
            try:
                for _ in range(runs):
                    mine.append(run_timed(argv_for(index)))
            except SystemExit as error:
                failures.append(str(error))
            with lock:
                latencies.extend(w for w, _ in mine)
                peaks.extend(p for _, p in mine)

        workers = [threading.Thread(target=stream, args=(index,)) for index in range(streams)]
        subprocess.run(["sync"], check=True)
        start = time.perf_counter()
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join()
        wall = time.perf_counter() - start
        if failures:
            raise SystemExit(failures[0])
        rate = streams * runs / wall
        for index in range(1, streams):
            os.unlink(stream_path(out, index))
    print(tsv_line(command[0], options.get("format", "-"), image_size(out), runs, streams, latencies, rate,
                   max(peaks), os.path.getsize(out)))


# ---------------------------------------------------------------------------------------------
# reference, SSIM, validity

def sniff(data):
    if data[:3] == b"\xff\xd8\xff":
        return "jpeg"
    if data[:8] == b"\x89PNG\r\n\x1a\n":
        return "png"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "webp"
    if data[4:8] == b"ftyp" and data[8:12] in (b"avif", b"avis", b"mif1", b"miaf"):
        return "avif"
    return "unknown"


VALIDATORS = {
    "jpeg": lambda path, tmp: ["djpeg", "-outfile", "/dev/null", path],
    "png": lambda path, tmp: ["pngcheck", "-q", path],
    "webp": lambda path, tmp: ["dwebp", path, "-quiet", "-o", "/dev/null"],
    "avif": lambda path, tmp: ["avifdec", path, tmp],
}


def float_lanczos(planes, size):
    """Each channel as a mode "F" (32-bit float) image through Pillow's Lanczos-3, no rounding."""
    import numpy as np
    from PIL import Image
    return np.dstack([np.asarray(Image.fromarray(np.ascontiguousarray(plane), mode="F").resize(size, Image.LANCZOS))
                      for plane in planes])


def premultiplied(pixels):
    """float32 HxWxC in 0..255; with alpha (C == 4), colour multiplied by alpha / 255."""
    import numpy as np
    pixels = pixels.astype(np.float32)
    if pixels.shape[2] == 4:
        pixels[:, :, :3] *= pixels[:, :, 3:4] / 255.0
    return pixels


def ssim_channel(a, b):
    """SSIM (Wang, Bovik, Sheikh, Simoncelli 2004): 11x11 Gaussian window, sigma 1.5, K1 0.01,
    K2 0.03, L 255; the mean of the SSIM map over the pixels whose window lies inside the image."""
    import numpy as np
    from scipy.ndimage import gaussian_filter
    a, b = a.astype(np.float64), b.astype(np.float64)

    def blur(x):
        return gaussian_filter(x, sigma=1.5, truncate=3.5, mode="reflect")  # radius 5: 11 taps
    c1, c2 = (0.01 * 255) ** 2, (0.03 * 255) ** 2
    mu_a, mu_b = blur(a), blur(b)
    var_a = blur(a * a) - mu_a * mu_a
    var_b = blur(b * b) - mu_b * mu_b
    cov = blur(a * b) - mu_a * mu_b
    ssim_map = ((2 * mu_a * mu_b + c1) * (2 * cov + c2)) / ((mu_a * mu_a + mu_b * mu_b + c1) * (var_a + var_b + c2))
    return float(ssim_map[5:-5, 5:-5].mean())


def quality(argv):
    import statistics
    import subprocess
    import tempfile
    import numpy as np
    from PIL import Image
    Image.MAX_IMAGE_PIXELS = None
    source = argv[0]
    with Image.open(source) as image:
        has_alpha = image.mode in ("RGBA", "LA", "PA") or "transparency" in image.info
        full = premultiplied(np.asarray(image.convert("RGBA" if has_alpha else "RGB")))
    planes = [full[:, :, c] for c in range(full.shape[2])]
    references = {}
    for path in argv[1:]:
        data = open(path, "rb").read()
        kind = sniff(data)
        with tempfile.TemporaryDirectory() as tmp:
            decoded_png = os.path.join(tmp, "decoded.png")
            valid, note = "no", ""
            if kind in VALIDATORS:
                check = subprocess.run(VALIDATORS[kind](path, decoded_png), capture_output=True, text=True)
                valid = "yes" if check.returncode == 0 else "no"
                if check.returncode != 0:
                    said = (check.stderr or check.stdout).strip().splitlines()
                    note = f"{VALIDATORS[kind](path, '')[0]} exit {check.returncode}" + (f": {said[-1][:120]}" if said else "")
            else:
                note = "not a JPEG, PNG, WebP or AVIF file"
            try:
                decode_from = decoded_png if kind == "avif" else path
                with Image.open(decode_from) as image:
                    out = premultiplied(np.asarray(image.convert("RGBA" if has_alpha else "RGB")))
            except Exception as error:  # undecodable: no SSIM
                print("\t".join([path, kind, "0", "0", str(len(data)), "nan", valid, note or f"undecodable: {error}"]))
                continue
        size = (out.shape[1], out.shape[0])
        if size not in references:
            references[size] = np.clip(float_lanczos(planes, size), 0, 255)
        reference = references[size]
        score = statistics.fmean(ssim_channel(reference[:, :, c], out[:, :, c]) for c in range(out.shape[2]))
        print("\t".join([path, kind, str(size[0]), str(size[1]), str(len(data)), f"{score:.5f}", valid, note]))


# ---------------------------------------------------------------------------------------------

def tools():
    """Facts about the peers, for the section's notes."""
    import subprocess
    def first_line(argv):
        try:
            result = subprocess.run(argv, capture_output=True, text=True)
            return (result.stdout or result.stderr).strip().splitlines()[0]
        except (OSError, IndexError):
            return "missing"
    print(f"vips\t{first_line(['vips', '--version'])}")
    print(f"imagemagick\t{first_line(['convert', '-version'])}")
    formats = subprocess.run(["convert", "-list", "format"], capture_output=True, text=True).stdout
    avif = [line.split() for line in formats.splitlines() if line.strip().startswith("AVIF")]
    print(f"imagemagick-avif\t{avif[0][2] if avif else 'none'}")
    try:
        from PIL import Image, features
        try:
            import pillow_avif  # noqa: F401
            plugin = "pillow-avif-plugin"
        except ImportError:
            plugin = "built in"
        import PIL
        print(f"pillow\t{PIL.__version__}")
        print(f"pillow-avif\t{(plugin + ', libavif ' + str(features.version('avif'))) if features.check('avif') or plugin != 'built in' else 'none'}")
        print(f"pillow-jpeg\tlibjpeg-turbo {features.version('libjpeg_turbo')}")
        print(f"pillow-webp\t{features.version('webp')}")
        try:
            from PIL import _avif
            print(f"pillow-avif-codecs\t{_avif.codec_versions()}")
        except Exception:
            pass
    except ImportError:
        print("pillow\tmissing")
    try:
        import pyvips
        print(f"pyvips\t{pyvips.__version__} (libvips {pyvips.version(0)}.{pyvips.version(1)}.{pyvips.version(2)})")
    except Exception:
        print("pyvips\tmissing")
    # libheif's AV1 encoder and its own default speed (what ImageMagick gets, as it sets none)
    try:
        import ctypes

        class HeifError(ctypes.Structure):
            _fields_ = [("code", ctypes.c_int), ("subcode", ctypes.c_int), ("message", ctypes.c_char_p)]
        heif = ctypes.CDLL("libheif.so.1")
        heif.heif_context_alloc.restype = ctypes.c_void_p
        heif.heif_context_get_encoder_for_format.restype = HeifError
        heif.heif_context_get_encoder_for_format.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p]
        heif.heif_encoder_get_name.restype = ctypes.c_char_p
        heif.heif_encoder_get_name.argtypes = [ctypes.c_void_p]
        heif.heif_encoder_get_parameter_integer.restype = HeifError
        heif.heif_encoder_get_parameter_integer.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.POINTER(ctypes.c_int)]
        heif.heif_get_version.restype = ctypes.c_char_p
        context, encoder = heif.heif_context_alloc(), ctypes.c_void_p()
        if heif.heif_context_get_encoder_for_format(context, 4, ctypes.byref(encoder)).code == 0:  # heif_compression_AV1
            speed = ctypes.c_int(-1)
            heif.heif_encoder_get_parameter_integer(encoder, b"speed", ctypes.byref(speed))
            print(f"libheif\t{heif.heif_get_version().decode()}, AV1 encoder {heif.heif_encoder_get_name(encoder).decode()}, default speed {speed.value}")
    except OSError:
        print("libheif\tmissing")


def main():
    if len(sys.argv) < 2:
        raise SystemExit(__doc__)
    command, argv = sys.argv[1], sys.argv[2:]
    if command == "generate":
        generate(argv[0])
    elif command == "cases":
        for name, source, width, fmt, q, ext, runs in CASES:
            print(f"{name}\t{source}\t{width}\t{fmt}\t{'-' if q is None else q}\t{ext}\t{runs}")
    elif command == "inproc":
        inproc(argv)
    elif command == "wholeproc":
        wholeproc(argv)
    elif command == "pillow-oneshot":
        pillow_oneshot(argv)
    elif command == "quality":
        quality(argv)
    elif command == "tools":
        tools()
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main()
