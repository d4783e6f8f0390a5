#!/usr/bin/env python3
"""Times one peer decoder on one image in-process; prints a TSV line:
peer, file, width, height, median ms, MP/s, peak RSS MB (the whole Python process).

    scripts/bench-decode-peers.py PEER FILE [RUNS]
    PEER: pillow | simplejpeg | pyspng | djpeg | tjbench | zlib-inflate

Every in-process peer decodes to RGBA: Pillow with Image.open(...).convert("RGBA") (a JPEG is
decoded to RGB first, as Pillow does), simplejpeg with decode_jpeg(colorspace="RGBA"), pyspng with
load(format="RGBA"). One peer and one file per process, so that the peak memory is theirs alone.
djpeg is a whole process per decode (RGB PPM to /dev/null; its start-up, about 1 ms, is included);
tjbench (libjpeg-turbo's own benchmark, RGBX into a reused buffer, -benchtime 2) reports its own
throughput, and its peak memory is that of the tjbench process.

zlib-inflate is not a decoder but the floor under any libpng decode of a PNG: the image data (its
IDAT chunks) inflated in one call into a buffer allocated once, by the system libz that libpng
links (through ctypes), with the Adler-32 check off as our decoder has it. No unfiltering, no CRC,
no row copies.
"""
import re
import subprocess
import io
import resource
import statistics
import sys
import time


def decoder(peer):
    if peer == "pillow":
        from PIL import Image
        Image.MAX_IMAGE_PIXELS = None

        def run(data):
            with Image.open(io.BytesIO(data)) as image:
                return image.convert("RGBA")
        return run, lambda img: img.size
    if peer == "simplejpeg":
        import simplejpeg
        return (lambda data: simplejpeg.decode_jpeg(data, colorspace="RGBA")), lambda a: (a.shape[1], a.shape[0])
    if peer == "pyspng":
        import pyspng
        return (lambda data: pyspng.load(data, format="RGBA")), lambda a: (a.shape[1], a.shape[0])
    raise SystemExit(f"unknown peer {peer}")


def zlib_inflate(path):
    import ctypes
    import struct
    import zlib as pyzlib
    data = open(path, "rb").read()
    width, height = struct.unpack(">II", data[16:24])
    idat, at = b"", 8
    while at + 8 <= len(data):
        length, kind = struct.unpack(">I4s", data[at:at + 8])
        if kind == b"IDAT":
            idat += data[at + 8:at + 8 + length]
        at += 12 + length
    raw_size = len(pyzlib.decompress(idat))
    libz = ctypes.CDLL("libz.so.1")

    class ZStream(ctypes.Structure):
        _fields_ = [("next_in", ctypes.c_void_p), ("avail_in", ctypes.c_uint), ("total_in", ctypes.c_ulong),
                    ("next_out", ctypes.c_void_p), ("avail_out", ctypes.c_uint), ("total_out", ctypes.c_ulong),
                    ("msg", ctypes.c_char_p), ("state", ctypes.c_void_p), ("zalloc", ctypes.c_void_p),
                    ("zfree", ctypes.c_void_p), ("opaque", ctypes.c_void_p), ("data_type", ctypes.c_int),
                    ("adler", ctypes.c_ulong), ("reserved", ctypes.c_ulong)]
    libz.zlibVersion.restype = ctypes.c_char_p
    version = libz.zlibVersion()
    source = ctypes.create_string_buffer(idat, len(idat))
    target = ctypes.create_string_buffer(raw_size)

    def run(_):
        stream = ZStream()
        assert libz.inflateInit_(ctypes.byref(stream), version, ctypes.sizeof(stream)) == 0
        libz.inflateValidate(ctypes.byref(stream), 0)
        stream.next_in, stream.avail_in = ctypes.addressof(source), len(idat)
        stream.next_out, stream.avail_out = ctypes.addressof(target), raw_size
        status = libz.inflate(ctypes.byref(stream), 4)  # Z_FINISH
        libz.inflateEnd(ctypes.byref(stream))
        assert status == 1 and stream.total_out == raw_size, status  # Z_STREAM_END, every byte
        return (width, height)
    return run, lambda size: size


def child_peak_mb():
    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024


def djpeg(path, runs):
    times = []
    for index in range(runs + 2):
        start = time.perf_counter()
        subprocess.run(["djpeg", "-outfile", "/dev/null", path], check=True)
        if index >= 2:
            times.append(time.perf_counter() - start)
    header = subprocess.run(["djpeg", "-pnm", path], capture_output=True, check=True).stdout.split(b"\n")[1]
    width, height = map(int, header.split())
    return width, height, statistics.median(times), child_peak_mb()


def tjbench(path):
    result = subprocess.run(["tjbench", path, "-rgbx", "-nowrite", "-quiet", "-benchtime", "2", "-warmup", "1"],
                            capture_output=True, text=True, check=True)
    # Last table line: format, colourspace, subsampling, width, height, xform perf, ratio, decomp perf.
    line = [l for l in result.stdout.splitlines() if l.strip()][-1]
    numbers = line.split()
    width, height, mps = int(numbers[-5]), int(numbers[-4]), float(numbers[-1])
    return width, height, width * height / 1e6 / mps, child_peak_mb()


def main():
    peer, path = sys.argv[1], sys.argv[2]
    runs = int(sys.argv[3]) if len(sys.argv) > 3 else 30
    if peer in ("djpeg", "tjbench"):
        width, height, median, peak = djpeg(path, runs) if peer == "djpeg" else tjbench(path)
        print(f"{peer}\t{path}\t{width}\t{height}\t{median * 1000:.3f}\t{width * height / 1e6 / median:.1f}\t{peak:.1f}")
        return
    data = open(path, "rb").read()
    run, size = zlib_inflate(path) if peer == "zlib-inflate" else decoder(peer)
    for _ in range(3):
        result = run(data)
    width, height = size(result)
    del result
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        result = run(data)
        times.append(time.perf_counter() - start)
        del result
    median = statistics.median(times)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{peer}\t{path}\t{width}\t{height}\t{median * 1000:.3f}\t{width * height / 1e6 / median:.1f}\t{peak:.1f}")


if __name__ == "__main__":
    main()
