// CAssetCodecs: the C side of AssetCodecs, over the system libpng and libjpeg-turbo.
//
// This is the only place that uses setjmp. Every entry point does one whole operation inside its
// own jump point, cleans up on failure, and reports a status code plus a message copied into the
// caller's apc_report. Nothing is printed to stderr: library warnings are collected in the report.
//
// Decoding is two-phase: *_read_header returns the image's facts without allocating pixel memory,
// the caller checks them against its budget and allocates, then *_decode_rgba decodes into the
// caller's buffer.
//
// Row decoders (*_rows_*) decode an image a band of rows at a time into a caller's buffer, so that
// the image never needs to be in memory whole. Each call sets its own jump point and does one step:
// start (header, limits, transforms), read (the next rows), finish (read on to the end of the
// image, whose faults fail the decode as they fail a whole decode), destroy (never fails). A failed
// step leaves the decoder failed: later calls return the same status, and only destroy remains.
// Every call after the start takes the input again, the same bytes at any address, so that the
// caller need not pin them between calls.
#ifndef CASSETCODECS_H
#define CASSETCODECS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Outcome of an entry point.
typedef enum {
    APC_OK = 0,
    APC_ERR_CORRUPT = 1,
    APC_ERR_TRUNCATED = 2,
    APC_ERR_UNSUPPORTED = 3,
    APC_ERR_TOO_LARGE = 4,
    APC_ERR_INVALID_ARGUMENT = 5,
    APC_ERR_NO_SUCH_PAGE = 6,  // a page index past the file's last image
} apc_status;

typedef enum {
    APC_FORMAT_UNKNOWN = 0,
    APC_FORMAT_PNG = 1,
    APC_FORMAT_JPEG = 2,
    APC_FORMAT_WEBP = 3,
    APC_FORMAT_AVIF = 4,
    APC_FORMAT_HEIF = 5,
    APC_FORMAT_GIF = 6,
    APC_FORMAT_TIFF = 7,
    APC_FORMAT_SVG = 8,
    APC_FORMAT_JXL = 9,
} apc_format;

/// The source's colour model, before conversion to RGBA.
typedef enum {
    APC_COLOR_UNKNOWN = 0,
    APC_COLOR_GRAY = 1,
    APC_COLOR_GRAY_ALPHA = 2,
    APC_COLOR_RGB = 3,
    APC_COLOR_RGBA = 4,
    APC_COLOR_PALETTE = 5,
    APC_COLOR_YCBCR = 6,
    APC_COLOR_CMYK = 7,
    APC_COLOR_YCCK = 8,
} apc_color_space;

/// What a header read learns. Output dimensions are those a decode with the same scale gives.
typedef struct {
    int32_t format;          // apc_format
    uint32_t width;          // declared width of the source
    uint32_t height;         // declared height of the source
    uint32_t channels;       // channels stored in the file (PNG: 1-4; JPEG: components)
    uint32_t bit_depth;      // bits per sample (PNG 1-16; JPEG data precision)
    uint32_t interlaced;     // PNG Adam7 or progressive JPEG: 1, else 0
    int32_t color_space;     // apc_color_space
    uint32_t has_alpha;      // alpha channel or tRNS
    uint32_t orientation;    // EXIF orientation 1-8, or 0 when absent
    uint32_t output_width;   // width after DCT scaling (JPEG) or the source width (PNG)
    uint32_t output_height;  // height after DCT scaling (JPEG) or the source height (PNG)
    uint32_t frames;         // frames of an animation or pages of a document; 0 when the format has none
    uint32_t color_primaries;          // CICP/nclx colour primaries (H.273), 0 when the file has none
    uint32_t transfer_characteristics; // CICP/nclx transfer characteristics, 0 when absent
    uint32_t matrix_coefficients;      // CICP/nclx matrix coefficients, 0 when absent
    uint32_t has_icc;        // an embedded ICC profile: 1, else 0 (PNG and JPEG leave 0: see *_read_metadata)
} apc_header;

#define APC_MESSAGE_CAPACITY 256
#define APC_WARNINGS_CAPACITY 2048

/// Caller-owned messages: the error message of a failed call and the warnings of any call.
/// `warnings` holds the first warnings, each ended by '\n', as many as fit; `warning_count`
/// counts them all.
typedef struct {
    char message[APC_MESSAGE_CAPACITY];
    char warnings[APC_WARNINGS_CAPACITY];
    uint32_t warning_count;
} apc_report;

/// Limits checked inside the libraries, a second fence behind the caller's own checks.
typedef struct {
    uint32_t max_width;          // 0: the library default
    uint32_t max_height;         // 0: the library default
    uint64_t max_pixels;         // width * height; 0: no limit
    uint64_t max_chunk_bytes;    // PNG ancillary chunk allocation; 0: 8 MB
    uint64_t max_library_memory; // JPEG working memory (libjpeg max_memory_to_use); 0: no limit
} apc_limits;

/// Reads a PNG's header (signature, IHDR and the chunks before the first IDAT).
int32_t apc_png_read_header(const uint8_t *data, size_t length, const apc_limits *limits,
                            apc_header *header, apc_report *report);

/// Decodes a PNG into 8-bit straight RGBA rows of `row_bytes` bytes each (at least width * 4),
/// `capacity` bytes in all. Palette expanded, tRNS to alpha, low-bit gray by bit replication,
/// 16-bit samples as (v * 255 + 32767) / 65535, gray to R=G=B, alpha 255 when absent, no gamma.
int32_t apc_png_decode_rgba(const uint8_t *data, size_t length, const apc_limits *limits,
                            uint32_t expected_width, uint32_t expected_height,
                            uint8_t *pixels, size_t row_bytes, size_t capacity,
                            apc_report *report);

/// Reads a JPEG's header (markers up to the first SOS) and the EXIF orientation. `scale_denom`
/// (1, 2, 4 or 8) sets the DCT scaling the output dimensions are computed for.
int32_t apc_jpeg_read_header(const uint8_t *data, size_t length, uint32_t scale_denom,
                             const apc_limits *limits, apc_header *header, apc_report *report);

/// Decodes a JPEG, DCT-scaled by 1/`scale_denom`, into 8-bit RGBA rows (alpha 255) with the
/// library's default settings (those of djpeg). Gray becomes R=G=B; CMYK and YCCK become RGB
/// (inverted Adobe CMYK as R = C*K/255, plain CMYK as R = (255-C)*(255-K)/255).
int32_t apc_jpeg_decode_rgba(const uint8_t *data, size_t length, uint32_t scale_denom,
                             const apc_limits *limits,
                             uint32_t expected_width, uint32_t expected_height,
                             uint8_t *pixels, size_t row_bytes, size_t capacity,
                             apc_report *report);

/// A JPEG decode in progress, row by row.
typedef struct apc_jpeg_rows apc_jpeg_rows;
/// A PNG decode in progress, row by row (not interlaced: an Adam7 image needs every row at once).
typedef struct apc_png_rows apc_png_rows;

/// Starts a row-by-row JPEG decode with the pixels of apc_jpeg_decode_rgba, as `channels` bytes
/// per pixel: 4 (RGBA) or 3 (RGB, the same values without alpha). On success `*decoder` is a new
/// decoder for apc_jpeg_rows_destroy; on failure it is NULL.
int32_t apc_jpeg_rows_start(const uint8_t *data, size_t length, uint32_t scale_denom,
                            const apc_limits *limits, uint32_t expected_width, uint32_t expected_height,
                            uint32_t channels, apc_jpeg_rows **decoder, apc_report *report);

/// Decodes the next rows, at most `max_rows` and no more than remain, into `pixels` (rows of
/// `row_bytes` bytes, `capacity` bytes in all); `*rows_read` says how many were written, 0 once
/// every row has been read.
int32_t apc_jpeg_rows_read(apc_jpeg_rows *decoder, const uint8_t *data, size_t length,
                           uint8_t *pixels, size_t row_bytes, size_t capacity, uint32_t max_rows,
                           uint32_t *rows_read, apc_report *report);

/// After the last row: reads on to the end of the image (EOI).
int32_t apc_jpeg_rows_finish(apc_jpeg_rows *decoder, const uint8_t *data, size_t length, apc_report *report);

/// Frees the decoder, in any state. NULL is allowed.
void apc_jpeg_rows_destroy(apc_jpeg_rows *decoder);

/// Starts a row-by-row decode of a non-interlaced PNG with the pixel contract of
/// apc_png_decode_rgba, as `channels` bytes per pixel: 4 (RGBA) or 3 (RGB, alpha dropped).
int32_t apc_png_rows_start(const uint8_t *data, size_t length, const apc_limits *limits,
                           uint32_t expected_width, uint32_t expected_height, uint32_t channels,
                           apc_png_rows **decoder, apc_report *report);

/// As apc_jpeg_rows_read.
int32_t apc_png_rows_read(apc_png_rows *decoder, const uint8_t *data, size_t length,
                          uint8_t *pixels, size_t row_bytes, size_t capacity, uint32_t max_rows,
                          uint32_t *rows_read, apc_report *report);

/// After the last row: reads the chunks after the image data, up to IEND.
int32_t apc_png_rows_finish(apc_png_rows *decoder, const uint8_t *data, size_t length, apc_report *report);

/// Frees the decoder, in any state. NULL is allowed.
void apc_png_rows_destroy(apc_png_rows *decoder);

/// Metadata blocks of an image, in memory the caller frees with apc_metadata_free.
typedef struct {
    uint8_t *icc;         // the ICC profile (JPEG: APP2 chunks reassembled; PNG: iCCP inflated), or NULL
    size_t icc_length;
    uint8_t *exif;        // the EXIF block as a TIFF structure (no "Exif\0\0"), or NULL
    size_t exif_length;
} apc_metadata;

/// Reads a JPEG's ICC profile and EXIF block (the markers before the first SOS). A profile whose
/// chunks are inconsistent is left out with a warning.
int32_t apc_jpeg_read_metadata(const uint8_t *data, size_t length, const apc_limits *limits,
                               apc_metadata *metadata, apc_report *report);

/// Reads a PNG's ICC profile (iCCP) and EXIF block (eXIf) from the chunks before the first IDAT.
int32_t apc_png_read_metadata(const uint8_t *data, size_t length, const apc_limits *limits,
                              apc_metadata *metadata, apc_report *report);

/// Frees the blocks and zeroes the struct. NULL is allowed.
void apc_metadata_free(apc_metadata *metadata);

/// Decodes a CMYK or YCCK JPEG, DCT-scaled by 1/`scale_denom`, into CMYK rows of 4 bytes per
/// pixel as libjpeg gives them (YCCK turned into CMYK); `*inverted` is set to 1 when the file has
/// an Adobe marker (Adobe applications write CMYK inverted). APC_ERR_UNSUPPORTED for another
/// colour space.
int32_t apc_jpeg_decode_cmyk(const uint8_t *data, size_t length, uint32_t scale_denom,
                             const apc_limits *limits,
                             uint32_t expected_width, uint32_t expected_height,
                             uint8_t *pixels, size_t row_bytes, size_t capacity,
                             int32_t *inverted, apc_report *report);

/// libpng's run-time version ("1.6.39").
const char *apc_png_library_version(void);
/// libjpeg-turbo's version ("2.1.5").
const char *apc_jpeg_library_version(void);

/// Reads the orientation (1-8) from a TIFF-structured EXIF block (no "Exif\0\0" prefix), or 0.
uint32_t apc_exif_orientation(const uint8_t *tiff, size_t length);

#ifdef __cplusplus
}
#endif

#include "apc_formats.h"
#include "apc_animation.h"

#endif
