// The decoders of the formats past PNG and JPEG: one C file per library, each with the same three
// entry points and the contract of the PNG and JPEG ones (see CAssetCodecs.h):
//
//   apc_webp.c  libwebp + libwebpdemux (linked)      apc_gif.c   giflib (linked)
//   apc_avif.c  libavif with dav1d/aom (linked)      apc_tiff.c  libtiff (opened on demand)
//   apc_heif.c  libheif with libde265 (on demand)    apc_svg.c   librsvg + cairo (opened on demand)
//   apc_jxl.c   libjxl (opened on demand)
//
// "Opened on demand": the library is dlopen'ed by its soname on the first call (apc_library.h), so
// that it and what it pulls in (librsvg alone maps some 50 shared libraries, 10 MB resident) cost
// nothing to a process that never meets the format. A library that cannot be opened makes every
// call fail with APC_ERR_UNSUPPORTED and a message that names it.
//
// Common rules:
// - `page` selects an image of a file that holds several: -1 is the default (the primary image of a
//   HEIF, the first directory of a TIFF, the first frame of an animation), 0... an index in file
//   order (TIFF directories, HEIF top-level images). A format with one image accepts -1 and 0 only;
//   an index past the last is APC_ERR_NO_SUCH_PAGE.
// - *_read_header fills every field of apc_header it knows (memset first): width and height are the
//   size of the image as decoded at full scale (after a HEIF's irot/imir and an AVIF's clap), the
//   orientation is the EXIF orientation the decoded pixels still need (0 where the library applies
//   the file's own transformations, or the file has none), `frames` the frame or page count.
// - *_decode_rgba writes 8-bit straight (unassociated) RGBA rows into the caller's memory at exactly
//   `width` x `height`, which must be the header's output size, except where a format scales on
//   load (WebP: any size, through libwebp's scaled decode; SVG: any size, the vector redrawn).
//   Higher bit depths round as PNG's 16-bit does: (v * 255 + max / 2) / max.
// - The pixel budget in `limits` is checked against the declared size before the library allocates
//   the image; input that lies about its size fails, it never overruns the caller's buffer.
// - *_read_metadata copies the ICC profile and the EXIF block (TIFF structure, no "Exif\0\0") into
//   memory freed by apc_metadata_free.
#ifndef APC_FORMATS_H
#define APC_FORMATS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define APC_DECLARE_FORMAT(name)                                                                         \
    int32_t apc_##name##_read_header(const uint8_t *data, size_t length, const apc_limits *limits,       \
                                     int32_t page, apc_header *header, apc_report *report);              \
    int32_t apc_##name##_decode_rgba(const uint8_t *data, size_t length, const apc_limits *limits,       \
                                     int32_t page, uint32_t width, uint32_t height, uint8_t *pixels,     \
                                     size_t row_bytes, size_t capacity, apc_report *report);             \
    int32_t apc_##name##_read_metadata(const uint8_t *data, size_t length, const apc_limits *limits,     \
                                       int32_t page, apc_metadata *metadata, apc_report *report);

APC_DECLARE_FORMAT(webp)
APC_DECLARE_FORMAT(avif)
APC_DECLARE_FORMAT(heif)
APC_DECLARE_FORMAT(gif)
APC_DECLARE_FORMAT(tiff)
APC_DECLARE_FORMAT(svg)
APC_DECLARE_FORMAT(jxl)

/// Decodes a CMYK TIFF (photometric separated, 8 or 16 bits) into CMYK rows of 4 bytes per pixel,
/// 0 = no ink, for a colour conversion through the file's ICC profile (as apc_jpeg_decode_cmyk).
/// APC_ERR_UNSUPPORTED for another photometric.
int32_t apc_tiff_decode_cmyk(const uint8_t *data, size_t length, const apc_limits *limits, int32_t page,
                             uint32_t width, uint32_t height, uint8_t *pixels, size_t row_bytes,
                             size_t capacity, apc_report *report);

/// Inflates the start of gzip data (an .svgz) into `out`, at most `capacity` bytes: how many were
/// produced (0 for data that is not gzip). For sniffing only: nothing past `capacity` is inflated.
size_t apc_gunzip_head(const uint8_t *data, size_t length, uint8_t *out, size_t capacity);

/// The runtime version of a library opened or linked by the codecs ("libheif 1.15.1"), for a cache
/// key that names what made its pixels; "" when the library cannot be opened. `name` is one of
/// "webp", "avif", "heif", "gif", "tiff", "svg", "jxl".
const char *apc_library_version(const char *name);

#ifdef __cplusplus
}
#endif

#endif
