// CAssetImaging: the C side of AssetImaging. Resampling, geometry and colour conversion of 8-bit
// RGBA pixels, and the encoders (libjpeg-turbo, libpng, libwebp, libavif).
//
// The encoders over libjpeg and libpng set their own jump point in their one file each and never
// let a longjmp out; libwebp, libavif and lcms2 report errors by return value. Every entry point
// does one whole operation and reports a status (apc-style codes) plus a message in an api_report.
// Encoded bytes go to an api_buffer that grows up to its limit and is freed with api_buffer_free.
#ifndef CASSETIMAGING_H
#define CASSETIMAGING_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Outcome of an entry point.
typedef enum {
    API_OK = 0,
    API_ERR_FAILED = 1,           // the library failed (message says why)
    API_ERR_TOO_LARGE = 2,        // an output or working buffer over its limit
    API_ERR_INVALID_ARGUMENT = 3, // a caller's mistake
    API_ERR_UNSUPPORTED = 4,      // e.g. an ICC profile of a colour space that cannot be converted
} api_status;

#define API_MESSAGE_CAPACITY 256

/// A caller-owned error message.
typedef struct {
    char message[API_MESSAGE_CAPACITY];
} api_report;

/// Encoded output: `length` bytes at `data`, grown by the encoders up to `limit` (0: no limit).
/// Zero-initialise it, set `limit`, pass it to one encoder, then free it.
typedef struct {
    uint8_t *data;
    size_t length;
    size_t capacity;
    size_t limit;
    int overflowed; // the encoder wanted more than `limit` bytes
} api_buffer;

/// Frees the buffer's bytes and zeroes it (the limit is kept).
void api_buffer_free(api_buffer *buffer);

// MARK: - Resampling

typedef enum {
    API_KERNEL_NEAREST = 0,
    API_KERNEL_LINEAR = 1,   // triangle, support 1
    API_KERNEL_CUBIC = 2,    // Catmull-Rom (B=0, C=0.5), support 2
    API_KERNEL_MITCHELL = 3, // Mitchell-Netravali (B=C=1/3), support 2
    API_KERNEL_LANCZOS2 = 4, // support 2
    API_KERNEL_LANCZOS3 = 5, // support 3
} api_kernel;

/// A resize in progress, fed source rows in order (api_resizer_push).
typedef struct api_resizer api_resizer;

/// Starts a resize of straight-alpha RGBA8 from `sw` x `sh` to `dw` x `dh` with a separable filter,
/// in premultiplied alpha (so transparent pixels do not bleed) and with edges clamped (the taps
/// that fall outside the image are renormalised). When reducing, the kernel is stretched by the
/// scale factor (a proper low-pass); when enlarging it is not. `opaque` != 0 promises alpha is 255
/// everywhere, which skips the premultiplication. Its working memory is a ring of as many float
/// rows (dw * 16 bytes each) as the widest vertical window, refused above `max_work_bytes` (0: no
/// limit). On success `*resizer` is for api_resizer_destroy.
int32_t api_resizer_create(uint32_t sw, uint32_t sh, uint32_t dw, uint32_t dh, int32_t kernel, int32_t opaque,
                           uint64_t max_work_bytes, api_resizer **resizer, api_report *report);

/// Pushes the next `count` source rows (`stride` apart) and writes every output row they complete
/// into `dst` (the whole output, rows `dst_stride` apart, at their own places).
int32_t api_resizer_push(api_resizer *resizer, const uint8_t *rows, uint32_t count, size_t stride,
                         uint8_t *dst, size_t dst_stride, api_report *report);

/// Output rows written so far (dh once every source row was pushed).
uint32_t api_resizer_rows_written(const api_resizer *resizer);

/// Makes the resizer ready for another image of the same size: its weights are kept, and each output
/// row reads only rows pushed after this call. NULL is allowed.
void api_resizer_rewind(api_resizer *resizer);

/// Frees the resizer. NULL is allowed.
void api_resizer_destroy(api_resizer *resizer);

/// Resizes a whole image in memory: api_resizer_create, one push of every row, destroy.
int32_t api_resize_rgba(const uint8_t *src, uint32_t sw, uint32_t sh, size_t src_stride,
                        uint8_t *dst, uint32_t dw, uint32_t dh, size_t dst_stride,
                        int32_t kernel, int32_t opaque, uint64_t max_work_bytes, api_report *report);

// MARK: - Geometry and alpha

/// Writes `src` (w x h RGBA8) turned upright for EXIF orientation 1-8 into `dst`, whose size is
/// w x h for 1-4 and h x w for 5-8.
int32_t api_orient_rgba(const uint8_t *src, uint32_t w, uint32_t h, size_t src_stride, uint32_t orientation,
                        uint8_t *dst, size_t dst_stride, api_report *report);

/// Whether every alpha byte of the w x h RGBA8 image is 255.
int32_t api_is_opaque(const uint8_t *src, uint32_t w, uint32_t h, size_t stride);

/// Composites straight-alpha RGBA8 over an opaque background colour into RGB8 rows
/// (`dst_stride` >= w * 3), each channel as round(c * a / 255 + bg * (255 - a) / 255).
void api_flatten_rgba(const uint8_t *src, uint32_t w, uint32_t h, size_t src_stride,
                      uint8_t bg_r, uint8_t bg_g, uint8_t bg_b, uint8_t *dst, size_t dst_stride);

/// Drops the alpha of opaque RGBA8 into RGB8 rows.
void api_rgba_to_rgb(const uint8_t *src, uint32_t w, uint32_t h, size_t src_stride, uint8_t *dst, size_t dst_stride);

// MARK: - Colour

/// Converts RGBA8 pixels in place from the RGB or gray ICC `profile` to sRGB (relative
/// colorimetric intent without black-point compensation, as libvips 8.14), alpha untouched.
/// API_ERR_UNSUPPORTED for a profile that is not RGB or gray; API_ERR_FAILED for a profile lcms2
/// cannot read.
int32_t api_icc_rgba_to_srgb(uint8_t *pixels, uint32_t w, uint32_t h, size_t stride,
                             const uint8_t *profile, size_t profile_length, api_report *report);

/// Converts CMYK8 pixels (4 bytes each, as libjpeg gives them; `inverted` for Adobe's inverted
/// CMYK) to sRGB RGBA8 (alpha 255) through the CMYK ICC `profile`, in place (the same bytes).
int32_t api_icc_cmyk_to_srgb(uint8_t *pixels, uint32_t w, uint32_t h, size_t stride, int32_t inverted,
                             const uint8_t *profile, size_t profile_length, api_report *report);

/// The colour space signature of an ICC profile (its bytes 16-19 as a big-endian number, e.g.
/// 'RGB ', 'CMYK', 'GRAY'), or 0 when the data is too short to be one.
uint32_t api_icc_color_space(const uint8_t *profile, size_t profile_length);

// MARK: - Encoders

typedef enum {
    API_SUBSAMPLING_420 = 0,
    API_SUBSAMPLING_444 = 1,
    API_SUBSAMPLING_422 = 2,
} api_subsampling;

/// Options of apc_jpeg_encode.
typedef struct {
    int32_t quality;          // 1-100
    int32_t progressive;      // 0 or 1
    int32_t subsampling;      // api_subsampling
    int32_t optimize_coding;  // optimized Huffman tables
    const uint8_t *icc;       // an ICC profile to embed, or NULL
    size_t icc_length;
    const uint8_t *exif;      // an EXIF block (TIFF structure, no "Exif\0\0") to embed, or NULL
    size_t exif_length;
} api_jpeg_options;

/// Encodes RGB8 rows (3 bytes per pixel) to JPEG through libjpeg-turbo.
int32_t api_jpeg_encode(const uint8_t *rgb, uint32_t w, uint32_t h, size_t stride,
                        const api_jpeg_options *options, api_buffer *out, api_report *report);

/// Options of api_png_encode.
typedef struct {
    int32_t compression_level; // zlib 0-9
    int32_t filter;            // -1: libpng's adaptive choice; 0 none, 1 sub, 2 up, 3 average, 4 Paeth
    int32_t palette;           // 1: write an indexed image when it has at most 256 colours (exact)
    int32_t interlaced;        // Adam7
    const uint8_t *icc;        // an ICC profile to embed (iCCP), or NULL
    size_t icc_length;
} api_png_options;

/// Encodes RGBA8 rows to PNG through libpng: as RGB when every pixel is opaque, as gray (with or
/// without alpha) when every pixel is gray, as a palette (with tRNS) when `palette` is set and it
/// has at most 256 distinct colours, else as RGBA.
int32_t api_png_encode(const uint8_t *rgba, uint32_t w, uint32_t h, size_t stride,
                       const api_png_options *options, api_buffer *out, api_report *report);

/// Options of api_webp_encode.
typedef struct {
    float quality;          // 0-100: lossy quality, or lossless effort
    int32_t lossless;
    int32_t method;         // 0 (fast) - 6 (slower, smaller); libwebp's default is 4
    int32_t alpha_quality;  // 0-100
    int32_t exact;          // keep the RGB of transparent pixels (lossless)
    const uint8_t *icc;
    size_t icc_length;
} api_webp_options;

/// Encodes RGBA8 rows to WebP through libwebp (lossy: YUV 4:2:0 with an alpha plane when not opaque).
int32_t api_webp_encode(const uint8_t *rgba, uint32_t w, uint32_t h, size_t stride, int32_t opaque,
                        const api_webp_options *options, api_buffer *out, api_report *report);

/// Options of api_avif_encode.
typedef struct {
    int32_t quality;     // 0-100, mapped onto AV1 quantizers (100: lossless quantizer 0)
    int32_t speed;       // 0 (slowest) - 10 (fastest)
    int32_t lossless;    // 4:4:4 identity matrix, quantizer 0
    int32_t subsampling; // api_subsampling (4:2:0 default)
    int32_t threads;     // encoder threads, 1 or more
    const uint8_t *icc;
    size_t icc_length;
} api_avif_options;

/// Encodes RGBA8 rows to AVIF through libavif with libaom.
int32_t api_avif_encode(const uint8_t *rgba, uint32_t w, uint32_t h, size_t stride, int32_t opaque,
                        const api_avif_options *options, api_buffer *out, api_report *report);

/// The AV1 encoder libavif uses (e.g. "aom"), or NULL when it has none.
const char *api_avif_encoder_name(void);

#ifdef __cplusplus
}
#endif

#include "api_animation.h"

#endif
