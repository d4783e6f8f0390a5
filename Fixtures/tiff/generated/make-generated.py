#!/usr/bin/env python3
"""Writes the generated TIFFs of this folder (seeded, deterministic pixels) with tifffile.

Each file exercises a layout the copied corpus lacks; README.md lists them. Their expected pixels
are in ../reference-pixels.tsv, from scripts/fixtures/reference-tiff like every other row.
Usage: python3 make-generated.py   (writes next to itself; needs numpy, tifffile, imagecodecs)
"""
import os

import numpy as np
import tifffile

HERE = os.path.dirname(os.path.abspath(__file__))
rng = np.random.default_rng(20240530)


def path(name):
    return os.path.join(HERE, name)


def orientation(value):
    return [(274, 'H', 1, value, True)]


def premultiplied(color, alpha, max_value):
    # Associated alpha: colour <= alpha, except a few pixels above it (clamped when unpremultiplied).
    out = (color.astype(np.int64) * alpha[..., None].astype(np.int64)) // max_value
    out[0, :3] = max_value  # over alpha on purpose
    return out.astype(color.dtype)


# 16-bit RGBA, straight alpha, deflate with predictor, several strips.
rgba16 = rng.integers(0, 65536, (23, 37, 4), dtype=np.uint16)
rgba16[0, 0, 3] = 0
tifffile.imwrite(path('rgba16-straight-deflate.tif'), rgba16, photometric='rgb', extrasamples=('unassalpha',),
                 compression='zlib', predictor=True, rowsperstrip=5)

# 8-bit RGBA, associated alpha, tiled, planar separate, LZW.
alpha8 = rng.integers(0, 256, (35, 40), dtype=np.uint8)
alpha8[1, :5] = 0
color8 = premultiplied(rng.integers(0, 256, (35, 40, 3), dtype=np.uint8), alpha8, 255)
planes = np.concatenate([color8, alpha8[..., None]], axis=2).transpose(2, 0, 1).copy()
tifffile.imwrite(path('rgba8-associated-tiled-planar.tif'), planes, photometric='rgb', planarconfig='separate',
                 extrasamples=('assocalpha',), tile=(16, 16), compression='lzw')

# 16-bit gray + associated alpha, min-is-white, PackBits.
alpha16 = rng.integers(0, 65536, (17, 33), dtype=np.uint16)
alpha16[2, :4] = 0
gray16 = premultiplied(rng.integers(0, 65536, (17, 33, 1), dtype=np.uint16), alpha16, 65535)
tifffile.imwrite(path('graya16-associated-miniswhite.tif'), np.concatenate([gray16, alpha16[..., None]], axis=2),
                 photometric='miniswhite', extrasamples=('assocalpha',), compression='packbits')

# 8-bit CMYK + straight alpha, tiled, contiguous.
cmyka = rng.integers(0, 256, (19, 21, 5), dtype=np.uint8)
tifffile.imwrite(path('cmyka8-straight-tiled.tif'), cmyka, photometric='separated', extratags=[(332, 'H', 1, 1, True)],
                 extrasamples=('unassalpha',), tile=(16, 16))

# 8-bit RGB with Orientation 3: rows come back in stored order.
rgb8 = rng.integers(0, 256, (20, 30, 3), dtype=np.uint8)
tifffile.imwrite(path('rgb8-orientation3.tif'), rgb8, photometric='rgb', extratags=orientation(3))

# 8-bit palette with Orientation 8 (libtiff's RGBA reader; tiff2rgba's flip undone by the reference).
index = rng.integers(0, 256, (31, 29), dtype=np.uint8)
colormap = rng.integers(0, 65536, (3, 256), dtype=np.uint16)
tifffile.imwrite(path('palette8-orientation8.tif'), index, photometric='palette', colormap=colormap,
                 extratags=orientation(8))

# 4-bit gray (libtiff's RGBA reader), Orientation 2.
gray4 = rng.integers(0, 16, (13, 22), dtype=np.uint8)
tifffile.imwrite(path('gray4-orientation2.tif'), gray4, photometric='minisblack', bitspersample=4,
                 extratags=orientation(2))

# 32-bit float gray out of [0, 1], with NaN and infinities, no SMin/SMaxSampleValue.
f32 = rng.uniform(-0.5, 1.5, (9, 25)).astype(np.float32)
f32[0, :4] = [np.nan, np.inf, -np.inf, 0.5]
tifffile.imwrite(path('gray-float32-unclamped.tif'), f32, photometric='minisblack')

# 64-bit float RGB with SMinSampleValue/SMaxSampleValue = 10/20.
f64 = rng.uniform(8.0, 22.0, (7, 11, 3))
tifffile.imwrite(path('rgb-float64-sminmax.tif'), f64, photometric='rgb',
                 extratags=[(340, 'd', 3, (10.0, 10.0, 10.0), True), (341, 'd', 3, (20.0, 20.0, 20.0), True)])

# Signed 8-bit gray (negative values clamp to 0).
s8 = np.arange(-128, 128, dtype=np.int16).astype(np.int8).reshape(16, 16)
tifffile.imwrite(path('gray-int8.tif'), s8, photometric='minisblack')

# Every 16-bit value once (256 x 256), for the 16-to-8-bit rounding.
tifffile.imwrite(path('gray16-every-value.tif'), np.arange(65536, dtype=np.uint16).reshape(256, 256),
                 photometric='minisblack', compression='zlib')

# RGB with one unspecified extra sample (kept as straight alpha).
rgbx = rng.integers(0, 256, (12, 14, 4), dtype=np.uint8)
tifffile.imwrite(path('rgb8-unspecified-extra.tif'), rgbx, photometric='rgb', extrasamples=('unspecified',))

# YCbCr JPEG, 2x2 subsampled (libjpeg converts to RGB).
photo = np.zeros((48, 64, 3), np.uint8)
yy, xx = np.mgrid[0:48, 0:64]
photo[..., 0] = (xx * 4) % 256
photo[..., 1] = (yy * 5) % 256
photo[..., 2] = ((xx + yy) * 3) % 256
tifffile.imwrite(path('rgb8-ycbcr-jpeg.tif'), photo, photometric='ycbcr', subsampling=(2, 2), compression='jpeg',
                 rowsperstrip=16)

# Three pages of 16-bit RGB, of different sizes.
with tifffile.TiffWriter(path('multipage-rgb16.tif')) as writer:
    for h, w in ((8, 10), (12, 6), (5, 15)):
        writer.write(rng.integers(0, 65536, (h, w, 3), dtype=np.uint16), photometric='rgb', compression='zlib')
