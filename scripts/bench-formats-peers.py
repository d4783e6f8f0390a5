#!/usr/bin/env python3
"""The peer side of the formats benchmark (scripts/bench.d/41-formats.sh): inputs, the in-process
peers, the whole-process commands and the timing of one whole process.

    scripts/bench-formats-peers.py generate DIR ROOT
        Writes the inputs once (seeded) into DIR: the photo-like fields of 40-decode.sh at 12 MP
        (4000x3000) and 2 MP (1920x1080) as PNG, then photo-2mp.webp (`cwebp -q 80`),
        photo-2mp.avif (`avifenc` 0.11, 8-bit 4:2:0, speed 6, quantizer 25 = quality 60 in libavif 1.x), photo-12mp.heic
        (`heif-enc -q 80`), photo-3mp-16bit.tif (2048x1536 RGB, 16 bits a sample, deflate, through
        tifffile) and logo.svg (a copy of ROOT/Fixtures/svg/libvips/logo.svg).
    scripts/bench-formats-peers.py decode PEER FILE RUNS WARMUP
        PEER: pyvips | pyvips-system (Debian's libvips 8.14, for HEIC) | pillow. Decodes FILE (read into memory once) to 8-bit RGBA in memory, WARMUP
        untimed then RUNS timed decodes, each into a new buffer. Prints one TSV line:
        peer, file, width, height, median ms, min ms, max ms, MP/s (of the median), peak RSS KB
        (this process's ru_maxrss: the interpreter, its libraries and the decodes).
    scripts/bench-formats-peers.py thumb PEER FILE WIDTH FORMAT QUALITY RUNS WARMUP
        PEER: pyvips | pyvips-system | pillow. The bytes of FILE to a WIDTH-wide image encoded as FORMAT (jpeg, png)
        at QUALITY ('-': the encoder's default), in memory, WARMUP untimed then RUNS timed. Prints:
        peer, file, width, height, median ms, min ms, max ms, images/s (of the median), peak RSS KB,
        output bytes.
    scripts/bench-formats-peers.py oneshot KIND PEER IN OUT [WIDTH QUALITY]
        Prints the argv of a whole-process peer (one line, NUL-separated) for KIND decode | thumb:
        `python3 -c CODE IN OUT ...` for pyvips and Pillow, so that a whole-process run pays only
        for Python, its imports and the job.
    scripts/bench-formats-peers.py run OUT -- CMD...
        One timed whole process: `sync`, then CMD under `/usr/bin/time -f %M`. Prints: wall s,
        peak RSS KB (GNU time's %M, the command's ru_maxrss), bytes of OUT (0 when absent).
    scripts/bench-formats-peers.py size FILE
        width<TAB>height of an image file (PPM, PNG, JPEG, raw: nothing).
    scripts/bench-formats-peers.py tools
        The versions of the peers, one 'key<TAB>value' line each.

One peer and one file per process, so that the peak memory is theirs. Only the modules a
subcommand needs are imported, where it needs them.
"""
import io
import os
import sys
import time

VIPS_MAX_COORD = 10000000  # libvips' largest dimension: a width-only bound for thumbnail


# ---------------------------------------------------------------------------------------------
# inputs

def generate(directory, root):
    import pathlib
    import shutil
    import subprocess
    import numpy as np
    from PIL import Image
    out = pathlib.Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(41)

    def field(width, height, channels, noise=4.0):
        """40-decode.sh's photo-like field: smooth random fields at three scales plus fine noise."""
        acc = np.zeros((height, width, channels), dtype=np.float32)
        for cells, weight in ((12, 0.6), (60, 0.3), (300, 0.1)):
            small = rng.random((max(2, cells * height // width), cells, channels)).astype(np.float32)
            for c in range(channels):
                layer = Image.fromarray(small[:, :, c], mode="F").resize((width, height), Image.BICUBIC)
                acc[:, :, c] += weight * np.asarray(layer)
        return acc * 255 + rng.normal(0, noise, acc.shape).astype(np.float32)

    def make(name, build):
        path = out / name
        if not path.exists():
            tmp = path.with_name(".tmp-" + name)
            build(tmp)
            tmp.rename(path)
            print(f"generated {path}", file=sys.stderr)

    def save_png(array):
        return lambda p: Image.fromarray(np.clip(array(), 0, 255).astype(np.uint8)).save(p, format="PNG", compress_level=1)

    def tool(argv):
        subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    make("photo-12mp.png", save_png(lambda: field(4000, 3000, 3)))
    make("photo-2mp.png", save_png(lambda: field(1920, 1080, 3)))
    make("photo-2mp.webp", lambda p: tool(["cwebp", "-quiet", "-q", "80", str(out / "photo-2mp.png"), "-o", str(p)]))
    make("photo-2mp.avif", lambda p: avifenc(out / "photo-2mp.png", p))
    make("photo-12mp.heic", lambda p: heifenc(out / "photo-12mp.png", p))

    def tiff(p):
        import tifffile
        pixels = np.clip(field(2048, 1536, 3) * 257 + rng.normal(0, 64, (1536, 2048, 3)), 0, 65535).astype(np.uint16)
        tifffile.imwrite(p, pixels, photometric="rgb", planarconfig="contig", compression="zlib", rowsperstrip=16)
    make("photo-3mp-16bit.tif", tiff)
    make("logo.svg", lambda p: shutil.copyfile(os.path.join(root, "Fixtures/svg/libvips/logo.svg"), p))


def avifenc(source, target):
    # avifenc picks the output's format by its extension: write to NAME.avif beside, then rename.
    import subprocess
    tmp = str(target) + ".avif"
    subprocess.run(["avifenc", "-d", "8", "-y", "420", "-s", "6", "--min", "25", "--max", "25", "-j", "all", str(source), tmp],
                   check=True, stdout=subprocess.DEVNULL)
    os.rename(tmp, target)


def heifenc(source, target):
    import subprocess
    tmp = str(target) + ".heic"
    subprocess.run(["heif-enc", "-q", "80", "-o", tmp, str(source)], check=True, stdout=subprocess.DEVNULL)
    os.rename(tmp, target)


# ---------------------------------------------------------------------------------------------
# in-process peers

def pyvips_rgba(image):
    """A loaded image as 8-bit RGBA, as ours decodes (16-bit RGB: colourspace srgb, i.e. >> 8)."""
    import pyvips
    if image.format != "uchar":
        image = image.colourspace("srgb") if image.interpretation in ("rgb16", "grey16") else image.cast("uchar")
    if image.bands < 3:
        image = image.colourspace("srgb")
    if image.bands == 3:
        image = image.bandjoin(255)
    return image


def pillow_setup(path):
    from PIL import Image
    Image.MAX_IMAGE_PIXELS = None
    if path.lower().endswith((".heic", ".heif")):
        import pillow_heif
        pillow_heif.register_heif_opener()
    return Image


def import_pyvips(peer):
    """pyvips over the pyvips-binary wheel's libvips (8.18; its libheif has no HEVC decoder), or
    for PEER pyvips-system over Debian's libvips 8.14 (libheif 1.15 with libde265): the wheel's
    API-mode module hidden, pyvips falls back to ABI mode and dlopens the system's libvips.so.42."""
    if peer == "pyvips-system":
        sys.modules["_libvips"] = None
    import pyvips
    return pyvips


def decoder(peer, path):
    if peer in ("pyvips", "pyvips-system"):
        pyvips = import_pyvips(peer)
        pyvips.cache_set_max(0)  # the same bytes again and again must not come from the cache

        def run(data):
            image = pyvips_rgba(pyvips.Image.new_from_buffer(data, "", access="sequential"))
            return image.write_to_memory(), (image.width, image.height)
        return run
    if peer == "pillow":
        Image = pillow_setup(path)

        def run(data):
            with Image.open(io.BytesIO(data)) as image:
                out = image.convert("RGBA")
            return out, out.size
        return run
    raise SystemExit(f"unknown decode peer {peer}")


def thumbnailer(peer, path, width, fmt, quality):
    if peer in ("pyvips", "pyvips-system"):
        pyvips = import_pyvips(peer)
        pyvips.cache_set_max(0)
        options = {"keep": "none"} if pyvips.at_least_libvips(8, 15) else {"strip": True}
        if quality is not None:
            options["Q"] = quality

        def run(data):
            image = pyvips.Image.thumbnail_buffer(data, width, height=VIPS_MAX_COORD)
            return image.write_to_buffer("." + {"jpeg": "jpg"}.get(fmt, fmt), **options), (image.width, image.height)
        return run
    if peer == "pillow":
        Image = pillow_setup(path)
        options = {} if quality is None else {"quality": quality}

        def run(data):
            with Image.open(io.BytesIO(data)) as image:
                height = max(1, round(image.height * width / image.width))
                image = image.convert("RGB")
            out = image.resize((width, height), Image.LANCZOS)
            buffer = io.BytesIO()
            out.save(buffer, format={"jpeg": "JPEG", "png": "PNG"}[fmt], **options)
            return buffer.getvalue(), out.size
        return run
    raise SystemExit(f"unknown thumbnail peer {peer}")


def loop(run, data, runs, warmup):
    for _ in range(warmup):
        result = run(data)
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        result = run(data)
        times.append(time.perf_counter() - start)
    return times, result


def summary(times):
    import statistics
    return statistics.median(times), min(times), max(times)


def peak_kb():
    import resource
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def decode_command(argv):
    peer, path, runs, warmup = argv[0], argv[1], int(argv[2]), int(argv[3])
    data = open(path, "rb").read()
    times, (_, size) = loop(decoder(peer, path), data, runs, warmup)
    median, low, high = summary(times)
    print("\t".join([peer, path, str(size[0]), str(size[1]), f"{median * 1000:.3f}", f"{low * 1000:.3f}",
                     f"{high * 1000:.3f}", f"{size[0] * size[1] / 1e6 / median:.1f}", str(peak_kb())]))


def thumb_command(argv):
    peer, path, width, fmt = argv[0], argv[1], int(argv[2]), argv[3]
    quality = None if argv[4] == "-" else int(argv[4])
    runs, warmup = int(argv[5]), int(argv[6])
    data = open(path, "rb").read()
    times, (encoded, size) = loop(thumbnailer(peer, path, width, fmt, quality), data, runs, warmup)
    median, low, high = summary(times)
    print("\t".join([peer, path, str(size[0]), str(size[1]), f"{median * 1000:.3f}", f"{low * 1000:.3f}",
                     f"{high * 1000:.3f}", f"{1 / median:.2f}", str(peak_kb()), str(len(encoded))]))


# ---------------------------------------------------------------------------------------------
# whole processes

# What a Python user would run as a one-shot process. pyvips writes the decoded pixels as raw RGB
# rows (the bytes of our PPM without its header: the wheel's libvips has no PPM writer); Pillow
# writes a PPM. The thumbnails: pyvips' thumbnail from the file, Pillow's open, resize (Lanczos)
# and save, as in bench-transform-peers.py.
ONESHOT = {
    ("decode", "pyvips"): (
        "import sys, pyvips\n"
        "im = pyvips.Image.new_from_file(sys.argv[1], access='sequential')\n"
        "if im.format != 'uchar': im = im.colourspace('srgb')\n"
        "if im.bands == 4: im = im.extract_band(0, n=3)\n"
        "im.rawsave(sys.argv[2])\n"),
    ("decode", "pillow"): (
        "import sys\nfrom PIL import Image\nHEIF\n"
        "Image.MAX_IMAGE_PIXELS = None\n"
        "Image.open(sys.argv[1]).convert('RGB').save(sys.argv[2], format='PPM')\n"),
    ("thumb", "pyvips"): (
        "import sys, pyvips\n"
        "q = {} if sys.argv[4] == '-' else {'Q': int(sys.argv[4])}\n"
        "pyvips.Image.thumbnail(sys.argv[1], int(sys.argv[3]), height=10000000).write_to_file(sys.argv[2], keep='none', **q)\n"),
    ("thumb", "pillow"): (
        "import sys\nfrom PIL import Image\nHEIF\n"
        "Image.MAX_IMAGE_PIXELS = None\n"
        "w = int(sys.argv[3])\n"
        "im = Image.open(sys.argv[1])\n"
        "h = max(1, round(im.height * w / im.width))\n"
        "q = {} if sys.argv[4] == '-' else {'quality': int(sys.argv[4])}\n"
        "im.convert('RGB').resize((w, h), Image.LANCZOS).save(sys.argv[2], **q)\n"),
}


def oneshot_command(argv):
    kind, peer, source, out = argv[:4]
    code = ONESHOT[(kind, peer)]
    heif = "import pillow_heif; pillow_heif.register_heif_opener()" if source.lower().endswith((".heic", ".heif")) else ""
    code = code.replace("HEIF", heif)
    sys.stdout.write("\0".join(["python3", "-c", code, source, out] + argv[4:]))


def run_command(argv):
    import subprocess
    out, command = argv[0], argv[argv.index("--") + 1:]
    if os.path.exists(out):
        os.unlink(out)
    read, write = os.pipe()
    subprocess.run(["sync"], check=True)
    try:
        start = time.perf_counter()
        child = subprocess.run(["/usr/bin/time", "-f", "%M", "-o", f"/dev/fd/{write}"] + command,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, pass_fds=(write,))
        wall = time.perf_counter() - start
    finally:
        os.close(write)
    with os.fdopen(read) as handle:
        report = handle.read().split()
    if child.returncode != 0:
        raise SystemExit(f"failed with status {child.returncode}: {' '.join(command)[:300]}\n"
                         f"{child.stderr.decode(errors='replace')[-600:]}")
    print(f"{wall:.4f}\t{report[-1]}\t{os.path.getsize(out) if os.path.exists(out) else 0}")


def size_command(argv):
    path = argv[0]
    try:
        from PIL import Image
        Image.MAX_IMAGE_PIXELS = None
        with Image.open(path) as image:
            print(f"{image.width}\t{image.height}")
    except Exception:
        with open(path, "rb") as handle:
            head = handle.read(64)
        if head.startswith(b"YUV4MPEG2"):
            fields = head.split(b"\n")[0].split()
            width = next(int(f[1:]) for f in fields if f.startswith(b"W"))
            height = next(int(f[1:]) for f in fields if f.startswith(b"H"))
            print(f"{width}\t{height}")
        else:
            print("-\t-")


def tools_command():
    import subprocess

    def first_line(argv):
        try:
            result = subprocess.run(argv, capture_output=True, text=True)
            lines = (result.stdout + result.stderr).strip().splitlines()
            return lines[0].strip() if lines else "?"
        except OSError:
            return "missing"
    try:
        import pyvips
        print(f"pyvips\tpyvips {pyvips.__version__}, libvips {pyvips.version(0)}.{pyvips.version(1)}.{pyvips.version(2)}")
    except Exception:
        print("pyvips\tmissing")
    try:
        import PIL
        from PIL import features
        print(f"pillow\tPillow {PIL.__version__} (libavif {features.version('avif')}, libwebp {features.version('webp')},"
              f" libtiff {features.version('libtiff')}, libjpeg-turbo {features.version('libjpeg_turbo')})")
    except Exception:
        print("pillow\tmissing")
    try:
        import pillow_heif
        info = pillow_heif.libheif_info()
        print(f"pillow-heif\tpillow-heif {pillow_heif.__version__} (libheif {info.get('libheif')}, {', '.join(info.get('decoders', {}).values())})")
    except Exception:
        print("pillow-heif\tmissing")
    print(f"vipsthumbnail\t{first_line(['vipsthumbnail', '--vips-version'])}")
    print(f"dwebp\tdwebp {first_line(['dwebp', '-version'])}")
    print(f"avifdec\tavifdec {first_line(['avifdec', '--version']).replace('Version: ', '')}")
    print(f"heif-convert\theif-convert (libheif {first_line(['heif-convert', '--help']).split()[-1]})")
    print(f"rsvg-convert\t{first_line(['rsvg-convert', '--version'])}")
    print(f"tiffcp\t{first_line(['tiffcp'])}")
    print(f"cwebp\tcwebp {first_line(['cwebp', '-version'])}")
    print(f"avifenc\t{first_line(['avifenc', '--version'])}")


def main():
    if len(sys.argv) < 2:
        raise SystemExit(__doc__)
    command, argv = sys.argv[1], sys.argv[2:]
    if command == "generate":
        generate(argv[0], argv[1])
    elif command == "decode":
        decode_command(argv)
    elif command == "thumb":
        thumb_command(argv)
    elif command == "oneshot":
        oneshot_command(argv)
    elif command == "run":
        run_command(argv)
    elif command == "size":
        size_command(argv)
    elif command == "tools":
        tools_command()
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main()
