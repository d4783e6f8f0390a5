// TIFF through libtiff, opened on demand (libtiff.so.6): <tiffio.h> gives the types and the
// prototypes the calls are checked against, and nothing here links libtiff.
//
// The file is read from memory: libtiff's client procs read, seek and "map" the caller's bytes (the
// map proc hands libtiff the buffer itself, so strips and tiles are decoded straight from it with
// no copy; libtiff never writes to a mapping opened for reading). Errors and warnings go through
// the per-handle handlers of TIFFOpenOptions (libtiff 4.5), never through the process-wide ones,
// so that nothing is printed and concurrent decodes keep their own messages.
//
// Pixels come one of two ways:
// - Unpacked here (the common cases): 8 and 16-bit unsigned, 8 and 16-bit signed and 16/32/64-bit
//   float samples of gray (min-is-black or min-is-white), RGB and CMYK, with or without one alpha
//   sample, planar contiguous or separate, in strips or tiles, with any compression libtiff
//   decodes (JPEG-compressed YCbCr converted to RGB by libjpeg: JPEGCOLORMODE_RGB). libtiff decodes
//   one strip or tile at a time into a scratch buffer (one per plane), which is unpacked into the
//   caller's rows: memory is one strip or tile per plane, whatever the image size.
// - Through libtiff's RGBA reader (TIFFRGBAImage) for everything else it handles: palette, 1/2/4-bit
//   gray, uncompressed or subsampled YCbCr, CIE L*a*b*, LogLuv/LogL, old-style JPEG. It decodes a
//   band of rows (one strip or tile row) at a time into a scratch band, converted into the caller's
//   rows. It premultiplies alpha, which is undone here.
// Neither path rotates: pixels come in stored order and the Orientation tag goes into the header,
// for the pipeline to apply (as for a JPEG's EXIF orientation).
#include "CAssetCodecs.h"
#include "apc_checks.h"
#include "apc_library.h"
#include "apc_report.h"

#include <tiffio.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TIFF_FUNCTIONS(X)                                                                              \
    X(TIFFGetVersion) X(TIFFOpenOptionsAlloc) X(TIFFOpenOptionsFree) X(TIFFOpenOptionsSetMaxSingleMemAlloc) \
    X(TIFFOpenOptionsSetErrorHandlerExtR) X(TIFFOpenOptionsSetWarningHandlerExtR) X(TIFFClientOpenExt)      \
    X(TIFFClose) X(TIFFNumberOfDirectories) X(TIFFSetDirectory) X(TIFFGetField) X(TIFFGetFieldDefaulted)    \
    X(TIFFSetField) X(TIFFIsTiled) X(TIFFIsCODECConfigured) X(TIFFVStripSize) X(TIFFTileSize)             \
    X(TIFFComputeStrip) X(TIFFComputeTile) X(TIFFReadEncodedStrip) X(TIFFReadEncodedTile)                 \
    X(TIFFRGBAImageOK) X(TIFFRGBAImageBegin) X(TIFFRGBAImageGet) X(TIFFRGBAImageEnd)

static struct { TIFF_FUNCTIONS(APC_LIBRARY_POINTER) } tiff;
static const char *const tiff_names[] = { TIFF_FUNCTIONS(APC_LIBRARY_NAME) };
static apc_library tiff_library = APC_LIBRARY("libtiff.so.6", tiff_names, tiff);

/// Scratch memory for strips or tiles is refused past this many bytes plus 40 per pixel of the
/// image (5 samples of 8 bytes): a tile may be larger than the image it holds, and a strip may hold
/// every sample of the image, but neither without bound (a fuzzed file declares 65535 samples
/// per pixel).
#define APC_TIFF_SCRATCH_SLACK ((uint64_t)64 << 20)
#define APC_TIFF_SCRATCH_PER_PIXEL 40u

/// libtiff's own allocations (one at a time) are capped at this plus 16 bytes per pixel of the
/// budget, when the limits give one.
#define APC_TIFF_LIBRARY_SLACK ((uint64_t)64 << 20)

// ---------------------------------------------------------------------------------------------
// The source: the caller's bytes, and what libtiff said about them.

typedef struct {
    const uint8_t *data;
    size_t length;
    uint64_t offset;
    apc_report *report;
    char error[APC_MESSAGE_CAPACITY];  // the first error since the last settled step
    int ran_out;     // an error that says the data ended early
    int too_large;   // an error that says an allocation passed the limit
} apc_tiff_source;

static tmsize_t apc_tiff_read_proc(thandle_t handle, void *buffer, tmsize_t size) {
    apc_tiff_source *source = (apc_tiff_source *)handle;
    if (size <= 0 || source->offset >= source->length) return 0;
    uint64_t left = source->length - source->offset;
    uint64_t count = (uint64_t)size < left ? (uint64_t)size : left;
    memcpy(buffer, source->data + source->offset, (size_t)count);
    source->offset += count;
    return (tmsize_t)count;
}

static tmsize_t apc_tiff_write_proc(thandle_t handle, void *buffer, tmsize_t size) {
    (void)handle; (void)buffer; (void)size;
    return -1;
}

static toff_t apc_tiff_seek_proc(thandle_t handle, toff_t offset, int whence) {
    apc_tiff_source *source = (apc_tiff_source *)handle;
    uint64_t base;
    switch (whence) {
    case SEEK_SET: base = 0; break;
    case SEEK_CUR: base = source->offset; break;
    case SEEK_END: base = source->length; break;
    default: return (toff_t)-1;
    }
    // As lseek: a position past the end is allowed (reads there return nothing); a wrap is not.
    if (offset > UINT64_MAX / 2 || base + offset < base) return (toff_t)-1;
    source->offset = base + offset;
    return source->offset;
}

static int apc_tiff_close_proc(thandle_t handle) {
    (void)handle;
    return 0;
}

static toff_t apc_tiff_size_proc(thandle_t handle) {
    return ((apc_tiff_source *)handle)->length;
}

static int apc_tiff_map_proc(thandle_t handle, void **base, toff_t *size) {
    apc_tiff_source *source = (apc_tiff_source *)handle;
    *base = (void *)source->data;  // read only: libtiff does not write to a mapping in "r" mode
    *size = source->length;
    return 1;
}

static void apc_tiff_unmap_proc(thandle_t handle, void *base, toff_t size) {
    (void)handle; (void)base; (void)size;
}

/// Formats libtiff's message as "module: text" (the module is the function that complains).
static void apc_tiff_format(char *text, size_t capacity, const char *module, const char *format, va_list args) {
    int used = 0;
    if (module != NULL && module[0] != '\0') used = snprintf(text, capacity, "%s: ", module);
    if (used < 0 || (size_t)used >= capacity) used = 0;
    vsnprintf(text + used, capacity - (size_t)used, format, args);
}

static int apc_tiff_error(TIFF *tif, void *user_data, const char *module, const char *format, va_list args) {
    (void)tif;
    apc_tiff_source *source = (apc_tiff_source *)user_data;
    char text[APC_MESSAGE_CAPACITY];
    apc_tiff_format(text, sizeof text, module, format, args);
    if (strstr(text, "Read error") != NULL || strstr(text, "Not enough data") != NULL ||
        strstr(text, "Cannot read TIFF header") != NULL || strstr(text, "Premature end") != NULL ||
        strstr(text, "past end of") != NULL || strstr(text, "Seek error") != NULL) {
        source->ran_out = 1;
    }
    if (strstr(text, "byte limit") != NULL || strstr(text, "Out of memory") != NULL ||
        strstr(text, "No space") != NULL) {
        source->too_large = 1;
    }
    if (source->error[0] == '\0') {
        memcpy(source->error, text, sizeof text);
    } else {
        apc_report_add_warning(source->report, text);
    }
    return 1;  // handled: libtiff calls no other handler
}

static int apc_tiff_warning(TIFF *tif, void *user_data, const char *module, const char *format, va_list args) {
    (void)tif;
    apc_tiff_source *source = (apc_tiff_source *)user_data;
    char text[APC_MESSAGE_CAPACITY];
    apc_tiff_format(text, sizeof text, module, format, args);
    apc_report_add_warning(source->report, text);
    return 1;
}

/// After a step that succeeded: an error libtiff reported on the way (and recovered from) becomes
/// a warning, so that a later failure reports its own error.
static void apc_tiff_settle(apc_tiff_source *source) {
    if (source->error[0] != '\0') apc_report_add_warning(source->report, source->error);
    source->error[0] = '\0';
    source->ran_out = 0;
    source->too_large = 0;
}

/// The status of a failed step: libtiff's first error says which, else `status` and `message`.
static int32_t apc_tiff_fail(apc_tiff_source *source, int32_t status, const char *message) {
    if (source->error[0] != '\0') {
        apc_report_set_message(source->report, source->error);
        if (source->too_large) return APC_ERR_TOO_LARGE;
        if (source->ran_out) return APC_ERR_TRUNCATED;
        return status == APC_ERR_UNSUPPORTED || status == APC_ERR_TOO_LARGE ? status : APC_ERR_CORRUPT;
    }
    apc_report_set_message(source->report, message);
    return status;
}

/// Opens the file's first directory. On failure returns NULL with the status in `*status`.
static TIFF *apc_tiff_open(apc_tiff_source *source, const apc_limits *limits, int32_t *status) {
    TIFFOpenOptions *options = tiff.TIFFOpenOptionsAlloc();
    if (options == NULL) {
        *status = apc_tiff_fail(source, APC_ERR_TOO_LARGE, "cannot allocate the TIFF open options");
        return NULL;
    }
    tiff.TIFFOpenOptionsSetErrorHandlerExtR(options, apc_tiff_error, source);
    tiff.TIFFOpenOptionsSetWarningHandlerExtR(options, apc_tiff_warning, source);
    if (limits != NULL && limits->max_pixels != 0) {
        uint64_t cap = limits->max_pixels > (UINT64_MAX - APC_TIFF_LIBRARY_SLACK) / 16
                           ? UINT64_MAX : limits->max_pixels * 16 + APC_TIFF_LIBRARY_SLACK;
        if (cap > (uint64_t)INT64_MAX) cap = (uint64_t)INT64_MAX;
        tiff.TIFFOpenOptionsSetMaxSingleMemAlloc(options, (tmsize_t)cap);
    }
    TIFF *tif = tiff.TIFFClientOpenExt("TIFF", "r", (thandle_t)source, apc_tiff_read_proc, apc_tiff_write_proc,
                                       apc_tiff_seek_proc, apc_tiff_close_proc, apc_tiff_size_proc,
                                       apc_tiff_map_proc, apc_tiff_unmap_proc, options);
    tiff.TIFFOpenOptionsFree(options);  // the handle keeps its own copy of the handlers and limit
    if (tif == NULL) {
        *status = apc_tiff_fail(source, APC_ERR_CORRUPT, "not a TIFF file libtiff can open");
        return NULL;
    }
    apc_tiff_settle(source);
    return tif;
}

/// Makes directory `page` current (-1 and 0: the first, already read); `*frames`, when given,
/// receives the number of directories.
static int32_t apc_tiff_select(TIFF *tif, int32_t page, apc_tiff_source *source, uint32_t *frames) {
    uint32_t count = 0;
    if (frames != NULL || page > 0) {
        // libtiff 4.5 follows the chain of IFDs and stops at one that loops back.
        count = tiff.TIFFNumberOfDirectories(tif);
        apc_tiff_settle(source);
        if (frames != NULL) *frames = count;
    }
    if (page <= 0) return APC_OK;
    if ((uint32_t)page >= count) {
        apc_report_set_message(source->report, "the page index is past the last directory of the TIFF");
        return APC_ERR_NO_SUCH_PAGE;
    }
    if (!tiff.TIFFSetDirectory(tif, (tdir_t)page)) {
        return apc_tiff_fail(source, APC_ERR_CORRUPT, "cannot read the TIFF directory of the page");
    }
    apc_tiff_settle(source);
    return APC_OK;
}

// ---------------------------------------------------------------------------------------------
// The layout of the current directory, and which path decodes it.

enum { APC_TIFF_ALPHA_NONE = 0, APC_TIFF_ALPHA_STRAIGHT = 1, APC_TIFF_ALPHA_ASSOCIATED = 2 };

/// How a sample is read: unsigned, signed (negative values clamp to 0) or float.
enum { APC_TIFF_U8, APC_TIFF_U16, APC_TIFF_S8, APC_TIFF_S16, APC_TIFF_F16, APC_TIFF_F32, APC_TIFF_F64 };

typedef struct {
    uint32_t width;
    uint32_t height;
    uint16_t bits;
    uint16_t samples;
    uint16_t photometric;
    uint16_t planar;
    uint16_t format;        // SAMPLEFORMAT_*
    uint16_t compression;
    uint16_t inkset;
    uint32_t color;         // colour samples per pixel: 1 (gray), 3 (RGB), 4 (CMYK); 0 when not unpacked here
    int alpha;              // APC_TIFF_ALPHA_*
    int32_t color_space;    // apc_color_space of the header
    int own;                // 1: unpacked here; 0: libtiff's RGBA reader
    int jpeg_rgb;           // JPEG-compressed YCbCr, to be converted to RGB by libjpeg
    int min_is_white;
    int kind;               // APC_TIFF_U8...
    uint32_t max;           // the largest value a loaded sample takes (255, 65535, 127, 32767)
    double float_min;       // float samples map [float_min, float_max] to [0, max]
    double float_max;
} apc_tiff_layout;

/// Reads the tags of the current directory that decide how it is decoded.
static void apc_tiff_read_layout(TIFF *tif, apc_tiff_layout *layout) {
    memset(layout, 0, sizeof *layout);
    uint32_t width = 0, height = 0;
    tiff.TIFFGetField(tif, TIFFTAG_IMAGEWIDTH, &width);
    tiff.TIFFGetField(tif, TIFFTAG_IMAGELENGTH, &height);
    layout->width = width;
    layout->height = height;
    uint16_t bits = 1, samples = 1, planar = PLANARCONFIG_CONTIG, format = SAMPLEFORMAT_UINT;
    uint16_t compression = COMPRESSION_NONE, inkset = INKSET_CMYK, photometric = 0;
    tiff.TIFFGetFieldDefaulted(tif, TIFFTAG_BITSPERSAMPLE, &bits);
    tiff.TIFFGetFieldDefaulted(tif, TIFFTAG_SAMPLESPERPIXEL, &samples);
    tiff.TIFFGetFieldDefaulted(tif, TIFFTAG_PLANARCONFIG, &planar);
    tiff.TIFFGetFieldDefaulted(tif, TIFFTAG_SAMPLEFORMAT, &format);
    tiff.TIFFGetFieldDefaulted(tif, TIFFTAG_COMPRESSION, &compression);
    tiff.TIFFGetFieldDefaulted(tif, TIFFTAG_INKSET, &inkset);
    uint16_t extra_count = 0;
    uint16_t *extra = NULL;
    tiff.TIFFGetFieldDefaulted(tif, TIFFTAG_EXTRASAMPLES, &extra_count, &extra);
    if (!tiff.TIFFGetField(tif, TIFFTAG_PHOTOMETRIC, &photometric)) {
        // As libtiff's RGBA reader guesses: by the number of colour samples.
        uint16_t color = samples > extra_count ? (uint16_t)(samples - extra_count) : 0;
        if (color == 3) {
            photometric = PHOTOMETRIC_RGB;
        } else if (compression == COMPRESSION_CCITTRLE || compression == COMPRESSION_CCITTFAX3 ||
                   compression == COMPRESSION_CCITTFAX4 || compression == COMPRESSION_CCITTRLEW) {
            photometric = PHOTOMETRIC_MINISWHITE;
        } else {
            photometric = PHOTOMETRIC_MINISBLACK;
        }
    }
    layout->bits = bits;
    layout->samples = samples;
    layout->planar = planar;
    layout->format = format == SAMPLEFORMAT_VOID ? SAMPLEFORMAT_UINT : format;
    layout->compression = compression;
    layout->inkset = inkset;
    layout->photometric = photometric;

    uint32_t color = 0;
    switch (photometric) {
    case PHOTOMETRIC_MINISBLACK:
    case PHOTOMETRIC_MINISWHITE: color = 1; layout->color_space = APC_COLOR_GRAY; break;
    case PHOTOMETRIC_RGB: color = 3; layout->color_space = APC_COLOR_RGB; break;
    case PHOTOMETRIC_PALETTE: layout->color_space = APC_COLOR_PALETTE; break;
    case PHOTOMETRIC_YCBCR: color = 3; layout->color_space = APC_COLOR_YCBCR; break;
    case PHOTOMETRIC_SEPARATED:
        if (inkset == INKSET_CMYK && samples >= 4) {
            color = 4;
            layout->color_space = APC_COLOR_CMYK;
        }
        break;
    default: layout->color_space = APC_COLOR_UNKNOWN; break;
    }
    // The first extra sample is alpha when the tag says so, or says nothing (unspecified): the
    // other extra samples are ignored.
    if (color != 0 && samples > color) {
        uint16_t kind = extra_count > 0 && extra != NULL ? extra[0] : EXTRASAMPLE_UNSPECIFIED;
        if (kind == EXTRASAMPLE_ASSOCALPHA) layout->alpha = APC_TIFF_ALPHA_ASSOCIATED;
        else layout->alpha = APC_TIFF_ALPHA_STRAIGHT;
        if (layout->color_space == APC_COLOR_GRAY) layout->color_space = APC_COLOR_GRAY_ALPHA;
        if (layout->color_space == APC_COLOR_RGB) layout->color_space = APC_COLOR_RGBA;
    } else if (photometric == PHOTOMETRIC_PALETTE && samples > 1) {
        layout->alpha = APC_TIFF_ALPHA_STRAIGHT;  // as the RGBA reader would take it
    }

    // Which path: samples this file unpacks (else libtiff's RGBA reader).
    int kind = -1;
    if (layout->format == SAMPLEFORMAT_UINT && bits == 8) kind = APC_TIFF_U8;
    else if (layout->format == SAMPLEFORMAT_UINT && bits == 16) kind = APC_TIFF_U16;
    else if (layout->format == SAMPLEFORMAT_INT && bits == 8) kind = APC_TIFF_S8;
    else if (layout->format == SAMPLEFORMAT_INT && bits == 16) kind = APC_TIFF_S16;
    else if (layout->format == SAMPLEFORMAT_IEEEFP && bits == 16) kind = APC_TIFF_F16;
    else if (layout->format == SAMPLEFORMAT_IEEEFP && bits == 32) kind = APC_TIFF_F32;
    else if (layout->format == SAMPLEFORMAT_IEEEFP && bits == 64) kind = APC_TIFF_F64;
    // Fewer samples than the photometric's colours (RGB with one sample) is left to the RGBA
    // reader, which refuses it: the unpacker reads `color` samples per pixel.
    int own = kind >= 0 && color != 0 && samples >= color &&
              (planar == PLANARCONFIG_CONTIG || planar == PLANARCONFIG_SEPARATE) && compression != COMPRESSION_OJPEG;
    if (own && photometric == PHOTOMETRIC_YCBCR) {
        // libjpeg converts JPEG-compressed YCbCr (any subsampling); other YCbCr goes to the RGBA reader.
        own = compression == COMPRESSION_JPEG && planar == PLANARCONFIG_CONTIG && kind == APC_TIFF_U8;
        layout->jpeg_rgb = own;
    }
    layout->own = own;
    if (!own) return;
    layout->color = color;
    layout->kind = kind;
    layout->min_is_white = photometric == PHOTOMETRIC_MINISWHITE;
    switch (kind) {
    case APC_TIFF_U8: layout->max = 255; break;
    case APC_TIFF_S8: layout->max = 127; break;
    case APC_TIFF_S16: layout->max = 32767; break;
    default: layout->max = 65535; break;  // 16-bit, and floats quantised to 16 bits
    }
    layout->float_min = 0.0;
    layout->float_max = 1.0;
    if (kind >= APC_TIFF_F16) {
        // SMinSampleValue and SMaxSampleValue, when both are given, set the range; else [0, 1].
        double smin = 0.0, smax = 0.0;
        if (tiff.TIFFGetField(tif, TIFFTAG_SMINSAMPLEVALUE, &smin) &&
            tiff.TIFFGetField(tif, TIFFTAG_SMAXSAMPLEVALUE, &smax) && smax > smin &&
            smax - smin < 1e300 && smin > -1e300) {
            layout->float_min = smin;
            layout->float_max = smax;
        }
    }
}

static uint32_t apc_tiff_orientation(TIFF *tif) {
    uint16_t orientation = 0;
    if (tiff.TIFFGetField(tif, TIFFTAG_ORIENTATION, &orientation) && orientation >= 1 && orientation <= 8) {
        return orientation;
    }
    return 0;
}

// ---------------------------------------------------------------------------------------------
// Unpacking: a run of pixels, from one strip or tile row, into RGBA (or CMYK) bytes.

/// A half float as a float (exact; no libm).
static float apc_tiff_half(uint16_t half) {
    uint32_t sign = (uint32_t)(half & 0x8000u) << 16;
    uint32_t exponent = (half >> 10) & 0x1fu;
    uint32_t mantissa = half & 0x3ffu;
    if (exponent == 0) {
        float value = (float)mantissa * (1.0f / 16777216.0f);  // subnormal: mantissa * 2^-24
        return sign ? -value : value;
    }
    uint32_t bits = exponent == 31 ? sign | 0x7f800000u | (mantissa << 13)
                                   : sign | ((exponent + 112u) << 23) | (mantissa << 13);
    float value;
    memcpy(&value, &bits, sizeof value);
    return value;
}

/// A float sample, its range mapped to [0, 1] and clamped (NaN as the low end), in 16 bits.
static uint16_t apc_tiff_quantise(double value, const apc_tiff_layout *layout) {
    double unit = (value - layout->float_min) / (layout->float_max - layout->float_min);
    if (!(unit > 0.0)) return 0;  // also NaN
    if (unit >= 1.0) return 65535;
    return (uint16_t)(unit * 65535.0 + 0.5);
}

/// Loads `count` samples, `step` bytes apart, as values in [0, layout->max].
static void apc_tiff_load(const apc_tiff_layout *layout, const uint8_t *in, size_t step, uint32_t count,
                          uint16_t *out) {
    switch (layout->kind) {
    case APC_TIFF_U8:
        for (uint32_t i = 0; i < count; i++) out[i] = in[(size_t)i * step];
        break;
    case APC_TIFF_U16:
        for (uint32_t i = 0; i < count; i++) memcpy(&out[i], in + (size_t)i * step, 2);
        break;
    case APC_TIFF_S8:
        for (uint32_t i = 0; i < count; i++) {
            int8_t v = (int8_t)in[(size_t)i * step];
            out[i] = v < 0 ? 0 : (uint16_t)v;
        }
        break;
    case APC_TIFF_S16:
        for (uint32_t i = 0; i < count; i++) {
            int16_t v;
            memcpy(&v, in + (size_t)i * step, 2);
            out[i] = v < 0 ? 0 : (uint16_t)v;
        }
        break;
    case APC_TIFF_F16:
        for (uint32_t i = 0; i < count; i++) {
            uint16_t v;
            memcpy(&v, in + (size_t)i * step, 2);
            out[i] = apc_tiff_quantise((double)apc_tiff_half(v), layout);
        }
        break;
    case APC_TIFF_F32:
        for (uint32_t i = 0; i < count; i++) {
            float v;
            memcpy(&v, in + (size_t)i * step, 4);
            out[i] = apc_tiff_quantise((double)v, layout);
        }
        break;
    default:
        for (uint32_t i = 0; i < count; i++) {
            double v;
            memcpy(&v, in + (size_t)i * step, 8);
            out[i] = apc_tiff_quantise(v, layout);
        }
        break;
    }
}

/// Values in [0, max] to 8 bits, rounded: (v * 255 + max / 2) / max.
static void apc_tiff_scale(uint16_t *values, uint32_t count, uint32_t max) {
    if (max == 255) return;
    if (max == 65535) {
        for (uint32_t i = 0; i < count; i++) values[i] = (uint16_t)(((uint32_t)values[i] * 255u + 32767u) / 65535u);
        return;
    }
    for (uint32_t i = 0; i < count; i++) values[i] = (uint16_t)(((uint32_t)values[i] * 255u + max / 2) / max);
}

/// 16 bits to 8, rounded.
static inline uint8_t apc_tiff_16_to_8(uint32_t v) {
    return (uint8_t)((v * 255u + 32767u) / 65535u);
}

/// The common layouts in one pass: unsigned 8 or 16-bit gray or RGB, straight alpha or none,
/// contiguous samples, min-is-black. Returns 0 (nothing written) for any other layout.
static int apc_tiff_convert_fast(const apc_tiff_layout *layout, const uint8_t *in, size_t step, uint32_t count,
                                 uint8_t *out) {
    if (layout->planar != PLANARCONFIG_CONTIG || layout->min_is_white ||
        layout->alpha == APC_TIFF_ALPHA_ASSOCIATED || (layout->color != 1 && layout->color != 3)) {
        return 0;
    }
    int alpha = layout->alpha == APC_TIFF_ALPHA_STRAIGHT;
    if (layout->kind == APC_TIFF_U8) {
        if (layout->color == 3) {
            for (uint32_t i = 0; i < count; i++, in += step, out += 4) {
                out[0] = in[0]; out[1] = in[1]; out[2] = in[2]; out[3] = alpha ? in[3] : 255;
            }
        } else {
            for (uint32_t i = 0; i < count; i++, in += step, out += 4) {
                out[0] = out[1] = out[2] = in[0]; out[3] = alpha ? in[1] : 255;
            }
        }
        return 1;
    }
    if (layout->kind == APC_TIFF_U16) {
        // One loop per case, so that each reads its samples at fixed offsets.
        uint16_t v[4];
        if (layout->color == 3 && alpha) {
            for (uint32_t i = 0; i < count; i++, in += step, out += 4) {
                memcpy(v, in, 8);
                out[0] = apc_tiff_16_to_8(v[0]); out[1] = apc_tiff_16_to_8(v[1]);
                out[2] = apc_tiff_16_to_8(v[2]); out[3] = apc_tiff_16_to_8(v[3]);
            }
        } else if (layout->color == 3) {
            for (uint32_t i = 0; i < count; i++, in += step, out += 4) {
                memcpy(v, in, 6);
                out[0] = apc_tiff_16_to_8(v[0]); out[1] = apc_tiff_16_to_8(v[1]);
                out[2] = apc_tiff_16_to_8(v[2]); out[3] = 255;
            }
        } else if (alpha) {
            for (uint32_t i = 0; i < count; i++, in += step, out += 4) {
                memcpy(v, in, 4);
                out[0] = out[1] = out[2] = apc_tiff_16_to_8(v[0]); out[3] = apc_tiff_16_to_8(v[1]);
            }
        } else {
            for (uint32_t i = 0; i < count; i++, in += step, out += 4) {
                memcpy(v, in, 2);
                out[0] = out[1] = out[2] = apc_tiff_16_to_8(v[0]); out[3] = 255;
            }
        }
        return 1;
    }
    return 0;
}

/// Converts `count` pixels: `in[c]` points at the first pixel's sample of channel c (colour
/// channels, then alpha), `step` bytes between pixels. `scratch` holds 5 * count values.
/// `cmyk`: write the raw C, M, Y, K (the layout is CMYK) instead of RGBA.
static void apc_tiff_convert(const apc_tiff_layout *layout, const uint8_t *const in[5], size_t step, uint32_t count,
                             uint16_t *scratch, uint8_t *out, int cmyk) {
    uint32_t color = layout->color;
    uint32_t channels = cmyk ? 4 : color + (layout->alpha != APC_TIFF_ALPHA_NONE);
    if (!cmyk && apc_tiff_convert_fast(layout, in[0], step, count, out)) return;
    uint32_t max = layout->max;
    for (uint32_t c = 0; c < channels; c++) apc_tiff_load(layout, in[c], step, count, scratch + (size_t)c * count);
    if (!cmyk && layout->min_is_white) {
        for (uint32_t i = 0; i < count; i++) scratch[i] = (uint16_t)(max - scratch[i]);
    }
    if (!cmyk && layout->alpha == APC_TIFF_ALPHA_ASSOCIATED) {
        // Unpremultiplied in the samples' own precision: a == 0 gives 0, else
        // min(max, (c * max + a / 2) / a).
        const uint16_t *alpha = scratch + (size_t)color * count;
        for (uint32_t c = 0; c < color; c++) {
            uint16_t *values = scratch + (size_t)c * count;
            for (uint32_t i = 0; i < count; i++) {
                uint32_t a = alpha[i];
                uint32_t v = a == 0 ? 0 : ((uint32_t)values[i] * max + a / 2) / a;
                values[i] = (uint16_t)(v > max ? max : v);
            }
        }
    }
    for (uint32_t c = 0; c < channels; c++) apc_tiff_scale(scratch + (size_t)c * count, count, max);

    const uint16_t *c0 = scratch, *c1 = scratch + count, *c2 = scratch + 2 * (size_t)count;
    const uint16_t *c3 = scratch + 3 * (size_t)count;
    const uint16_t *alpha = layout->alpha != APC_TIFF_ALPHA_NONE ? scratch + (size_t)color * count : NULL;
    if (cmyk) {
        for (uint32_t i = 0; i < count; i++, out += 4) {
            out[0] = (uint8_t)c0[i]; out[1] = (uint8_t)c1[i]; out[2] = (uint8_t)c2[i]; out[3] = (uint8_t)c3[i];
        }
        return;
    }
    for (uint32_t i = 0; i < count; i++, out += 4) {
        if (color == 1) {
            out[0] = out[1] = out[2] = (uint8_t)c0[i];
        } else if (color == 3) {
            out[0] = (uint8_t)c0[i]; out[1] = (uint8_t)c1[i]; out[2] = (uint8_t)c2[i];
        } else {
            // Naive CMYK (no profile), rounded as apc_jpeg's: R = ((255 - C) * (255 - K) + 127) / 255.
            uint32_t k = 255u - c3[i];
            out[0] = (uint8_t)(((255u - c0[i]) * k + 127u) / 255u);
            out[1] = (uint8_t)(((255u - c1[i]) * k + 127u) / 255u);
            out[2] = (uint8_t)(((255u - c2[i]) * k + 127u) / 255u);
        }
        out[3] = alpha != NULL ? (uint8_t)alpha[i] : 255;
    }
}

/// Bytes per sample of an own-path layout.
static uint32_t apc_tiff_sample_bytes(const apc_tiff_layout *layout) {
    return layout->bits / 8u;
}

/// a * b, or UINT64_MAX when it overflows.
static uint64_t apc_tiff_multiply(uint64_t a, uint64_t b) {
    return b != 0 && a > UINT64_MAX / b ? UINT64_MAX : a * b;
}

/// Whether `bytes` of scratch are reasonable for the image (see APC_TIFF_SCRATCH_SLACK).
static int apc_tiff_scratch_fits(const apc_tiff_layout *layout, uint64_t bytes) {
    if (bytes <= APC_TIFF_SCRATCH_SLACK) return 1;
    uint64_t allowed = apc_tiff_multiply((uint64_t)layout->width * layout->height, APC_TIFF_SCRATCH_PER_PIXEL);
    return bytes != UINT64_MAX && bytes - APC_TIFF_SCRATCH_SLACK <= allowed;
}

/// Decodes the current directory with the own unpacker into the caller's rows (4 bytes per
/// pixel: RGBA, or CMYK when `cmyk`).
static int32_t apc_tiff_read_own(TIFF *tif, const apc_tiff_layout *layout, uint8_t *pixels, size_t row_bytes,
                                 int cmyk, apc_tiff_source *source) {
    if (layout->jpeg_rgb && !tiff.TIFFSetField(tif, TIFFTAG_JPEGCOLORMODE, JPEGCOLORMODE_RGB)) {
        return apc_tiff_fail(source, APC_ERR_CORRUPT, "cannot have libjpeg convert the TIFF's YCbCr to RGB");
    }
    uint32_t width = layout->width, height = layout->height;
    uint32_t sample_bytes = apc_tiff_sample_bytes(layout);
    int separate = layout->planar == PLANARCONFIG_SEPARATE;
    uint32_t channels = cmyk ? 4 : layout->color + (layout->alpha != APC_TIFF_ALPHA_NONE);
    uint32_t planes = separate ? channels : 1;
    uint64_t pixel_bytes = (uint64_t)sample_bytes * (separate ? 1u : layout->samples);  // per pixel, per plane
    int tiled = tiff.TIFFIsTiled(tif) != 0;

    // The geometry of one strip or tile, and the bytes libtiff will write for it.
    uint32_t block_width, block_height;
    uint64_t block_bytes;
    if (tiled) {
        uint32_t tile_width = 0, tile_height = 0;
        tiff.TIFFGetField(tif, TIFFTAG_TILEWIDTH, &tile_width);
        tiff.TIFFGetField(tif, TIFFTAG_TILELENGTH, &tile_height);
        if (tile_width == 0 || tile_height == 0) {
            return apc_tiff_fail(source, APC_ERR_CORRUPT, "the TIFF's tile size is zero");
        }
        block_width = tile_width;
        block_height = tile_height;
        block_bytes = apc_tiff_multiply((uint64_t)tile_width * tile_height, pixel_bytes);
        if (!apc_tiff_scratch_fits(layout, apc_tiff_multiply(block_bytes, planes))) {
            return apc_tiff_fail(source, APC_ERR_TOO_LARGE, "the TIFF's tiles are too large for the image");
        }
        tmsize_t size = tiff.TIFFTileSize(tif);
        if (size <= 0 || (uint64_t)size != block_bytes) {
            return apc_tiff_fail(source, APC_ERR_CORRUPT, "the TIFF's tile size does not match its layout");
        }
    } else {
        uint32_t rows_per_strip = 0;
        tiff.TIFFGetFieldDefaulted(tif, TIFFTAG_ROWSPERSTRIP, &rows_per_strip);
        if (rows_per_strip == 0) {
            return apc_tiff_fail(source, APC_ERR_CORRUPT, "the TIFF has zero rows per strip");
        }
        block_width = width;
        block_height = rows_per_strip < height ? rows_per_strip : height;
        block_bytes = apc_tiff_multiply((uint64_t)width * block_height, pixel_bytes);
        if (!apc_tiff_scratch_fits(layout, apc_tiff_multiply(block_bytes, planes))) {
            return apc_tiff_fail(source, APC_ERR_TOO_LARGE, "the TIFF's strips are too large for the image");
        }
        tmsize_t size = tiff.TIFFVStripSize(tif, block_height);
        if (size <= 0 || (uint64_t)size != block_bytes) {
            return apc_tiff_fail(source, APC_ERR_CORRUPT, "the TIFF's strip size does not match its layout");
        }
    }
    if (block_bytes * planes > (uint64_t)SIZE_MAX / 2) {
        return apc_tiff_fail(source, APC_ERR_TOO_LARGE, "the TIFF's strips or tiles do not fit in memory");
    }

    uint8_t *buffer = malloc((size_t)(block_bytes * planes));
    uint16_t *scratch = malloc((size_t)block_width * 5 * sizeof(uint16_t));
    if (buffer == NULL || scratch == NULL) {
        free(buffer);
        free(scratch);
        return apc_tiff_fail(source, APC_ERR_TOO_LARGE, "cannot allocate the TIFF strip or tile buffer");
    }
    size_t block_row_bytes = (size_t)((uint64_t)block_width * pixel_bytes);
    int32_t status = APC_OK;
    for (uint32_t y = 0; y < height && status == APC_OK; y += block_height) {
        uint32_t rows = height - y < block_height ? height - y : block_height;
        for (uint32_t x = 0; x < width && status == APC_OK; x += block_width) {
            uint32_t columns = width - x < block_width ? width - x : block_width;
            for (uint32_t p = 0; p < planes; p++) {
                uint8_t *plane = buffer + (size_t)(block_bytes * p);
                tmsize_t got;
                if (tiled) {
                    uint32_t tile = tiff.TIFFComputeTile(tif, x, y, 0, (uint16_t)p);
                    got = tiff.TIFFReadEncodedTile(tif, tile, plane, (tmsize_t)block_bytes);
                    if (got != (tmsize_t)block_bytes) got = -1;
                } else {
                    uint32_t strip = tiff.TIFFComputeStrip(tif, y, (uint16_t)p);
                    tmsize_t wanted = (tmsize_t)((uint64_t)rows * block_row_bytes);
                    got = tiff.TIFFReadEncodedStrip(tif, strip, plane, wanted);
                    if (got != wanted) got = -1;
                }
                if (got < 0) {
                    char message[APC_MESSAGE_CAPACITY];
                    snprintf(message, sizeof message, "cannot decode the TIFF %s at row %u, column %u, plane %u",
                             tiled ? "tile" : "strip", y, x, p);
                    status = apc_tiff_fail(source, APC_ERR_CORRUPT, message);
                    break;
                }
            }
            if (status != APC_OK) break;
            for (uint32_t r = 0; r < rows; r++) {
                const uint8_t *in[5] = {NULL, NULL, NULL, NULL, NULL};
                size_t step;
                if (separate) {
                    for (uint32_t c = 0; c < channels; c++) {
                        in[c] = buffer + (size_t)(block_bytes * c) + (size_t)r * block_row_bytes;
                    }
                    step = sample_bytes;
                } else {
                    for (uint32_t c = 0; c < channels; c++) {
                        in[c] = buffer + (size_t)r * block_row_bytes + (size_t)c * sample_bytes;
                    }
                    step = (size_t)pixel_bytes;
                }
                uint8_t *out = pixels + (size_t)(y + r) * row_bytes + (size_t)x * 4;
                apc_tiff_convert(layout, in, step, columns, scratch, out, cmyk);
            }
        }
    }
    free(buffer);
    free(scratch);
    return status;
}

// ---------------------------------------------------------------------------------------------
// libtiff's RGBA reader, for the layouts not unpacked here.

/// Premultiplied 8-bit colour back to straight: a == 0 gives 0, else min(255, (c * 255 + a / 2) / a).
static uint8_t apc_tiff_unpremultiply(uint32_t value, uint32_t alpha) {
    if (alpha == 0) return 0;
    uint32_t v = (value * 255u + alpha / 2) / alpha;
    return (uint8_t)(v > 255 ? 255 : v);
}

static int32_t apc_tiff_read_rgba(TIFF *tif, const apc_tiff_layout *layout, uint8_t *pixels, size_t row_bytes,
                                  apc_tiff_source *source) {
    char why[1024] = "";
    if (!tiff.TIFFRGBAImageOK(tif, why)) {
        char message[APC_MESSAGE_CAPACITY];
        snprintf(message, sizeof message, "unsupported TIFF layout: %.200s", why[0] ? why : "libtiff cannot read it");
        apc_tiff_settle(source);  // its complaint is in the message
        apc_report_set_message(source->report, message);
        return APC_ERR_UNSUPPORTED;
    }
    TIFFRGBAImage image;
    memset(&image, 0, sizeof image);
    if (!tiff.TIFFRGBAImageBegin(&image, tif, 1, why)) {
        char message[APC_MESSAGE_CAPACITY];
        snprintf(message, sizeof message, "libtiff's RGBA reader refused the TIFF: %.200s", why);
        int32_t status = apc_tiff_fail(source, strncmp(why, "Sorry", 5) == 0 ? APC_ERR_UNSUPPORTED : APC_ERR_CORRUPT,
                                       message);
        tiff.TIFFRGBAImageEnd(&image);
        return status;
    }
    // Rows in stored order: asking for the file's own orientation makes libtiff flip nothing.
    image.req_orientation = image.orientation;
    uint32_t width = layout->width, height = layout->height;
    // One band is one strip or one row of tiles (libtiff's reader starts each band at a strip or
    // tile boundary, as its subsampled YCbCr needs).
    uint32_t band = 0;
    if (tiff.TIFFIsTiled(tif)) tiff.TIFFGetField(tif, TIFFTAG_TILELENGTH, &band);
    else tiff.TIFFGetFieldDefaulted(tif, TIFFTAG_ROWSPERSTRIP, &band);
    if (band == 0 || band > height) band = height;
    int32_t status = APC_OK;
    uint32_t *raster = NULL;
    if ((uint64_t)width * band * 4 > (uint64_t)SIZE_MAX / 2) {
        status = apc_tiff_fail(source, APC_ERR_TOO_LARGE, "the TIFF band does not fit in memory");
    } else {
        raster = malloc((size_t)width * band * 4);
        if (raster == NULL) status = apc_tiff_fail(source, APC_ERR_TOO_LARGE, "cannot allocate the TIFF band");
    }
    for (uint32_t y = 0; y < height && status == APC_OK; y += band) {
        uint32_t rows = height - y < band ? height - y : band;
        image.row_offset = (int)y;
        image.col_offset = 0;
        if (!tiff.TIFFRGBAImageGet(&image, raster, width, rows)) {
            status = apc_tiff_fail(source, APC_ERR_CORRUPT, "libtiff's RGBA reader failed");
            break;
        }
        for (uint32_t r = 0; r < rows; r++) {
            const uint32_t *in = raster + (size_t)r * width;
            uint8_t *out = pixels + (size_t)(y + r) * row_bytes;
            for (uint32_t x = 0; x < width; x++, out += 4) {
                uint32_t abgr = in[x];
                uint32_t a = TIFFGetA(abgr);
                if (image.alpha != 0) {
                    // The reader premultiplies straight alpha and keeps associated alpha.
                    out[0] = apc_tiff_unpremultiply(TIFFGetR(abgr), a);
                    out[1] = apc_tiff_unpremultiply(TIFFGetG(abgr), a);
                    out[2] = apc_tiff_unpremultiply(TIFFGetB(abgr), a);
                } else {
                    out[0] = (uint8_t)TIFFGetR(abgr);
                    out[1] = (uint8_t)TIFFGetG(abgr);
                    out[2] = (uint8_t)TIFFGetB(abgr);
                }
                out[3] = (uint8_t)a;
            }
        }
    }
    free(raster);
    tiff.TIFFRGBAImageEnd(&image);
    return status;
}

// ---------------------------------------------------------------------------------------------
// Entry points.

static void apc_tiff_source_init(apc_tiff_source *source, const uint8_t *data, size_t length, apc_report *report) {
    memset(source, 0, sizeof *source);
    source->data = data;
    source->length = length;
    source->report = report;
}

/// Opens the file and selects the page: the common start of every entry point. On failure
/// returns NULL with the status in `*status`.
static TIFF *apc_tiff_start(apc_tiff_source *source, const apc_limits *limits, int32_t page, uint32_t *frames,
                            int32_t *status) {
    if (page < -1) {
        apc_report_set_message(source->report, "the page index is negative");
        *status = APC_ERR_INVALID_ARGUMENT;
        return NULL;
    }
    if (!apc_library_open(&tiff_library, source->report)) {
        *status = APC_ERR_UNSUPPORTED;
        return NULL;
    }
    TIFF *tif = apc_tiff_open(source, limits, status);
    if (tif == NULL) return NULL;
    *status = apc_tiff_select(tif, page, source, frames);
    if (*status != APC_OK) {
        tiff.TIFFClose(tif);
        return NULL;
    }
    return tif;
}

/// The checks of the size: nonzero, and within the budget.
static int32_t apc_tiff_check_size(const apc_tiff_layout *layout, const apc_limits *limits, apc_tiff_source *source) {
    if (layout->width == 0 || layout->height == 0) {
        return apc_tiff_fail(source, APC_ERR_CORRUPT, "the TIFF image has no pixels (zero width or height)");
    }
    if (apc_too_many_pixels(limits, layout->width, layout->height)) {
        apc_report_set_message(source->report, "the image's declared size exceeds the pixel budget");
        return APC_ERR_TOO_LARGE;
    }
    return APC_OK;
}

int32_t apc_tiff_read_header(const uint8_t *data, size_t length, const apc_limits *limits, int32_t page,
                             apc_header *header, apc_report *report) {
    apc_report_reset(report);
    if (data == NULL || header == NULL) {
        apc_report_set_message(report, "no data or no header");
        return APC_ERR_INVALID_ARGUMENT;
    }
    memset(header, 0, sizeof *header);
    apc_tiff_source source;
    apc_tiff_source_init(&source, data, length, report);
    int32_t status = APC_OK;
    uint32_t frames = 0;
    TIFF *tif = apc_tiff_start(&source, limits, page, &frames, &status);
    if (tif == NULL) return status;
    apc_tiff_layout layout;
    apc_tiff_read_layout(tif, &layout);
    header->format = APC_FORMAT_TIFF;
    header->width = layout.width;
    header->height = layout.height;
    header->output_width = layout.width;
    header->output_height = layout.height;
    header->channels = layout.samples;
    header->bit_depth = layout.bits;
    header->interlaced = 0;
    header->color_space = layout.color_space;
    header->has_alpha = layout.alpha != APC_TIFF_ALPHA_NONE;
    header->orientation = apc_tiff_orientation(tif);
    header->frames = frames;
    uint32_t icc_length = 0;
    void *icc = NULL;
    header->has_icc = tiff.TIFFGetField(tif, TIFFTAG_ICCPROFILE, &icc_length, &icc) && icc != NULL && icc_length > 0;
    status = apc_tiff_check_size(&layout, limits, &source);
    if (status == APC_OK) apc_tiff_settle(&source);
    tiff.TIFFClose(tif);
    return status;
}

/// A whole decode into the caller's rows: RGBA, or raw CMYK.
static int32_t apc_tiff_decode(const uint8_t *data, size_t length, const apc_limits *limits, int32_t page,
                               uint32_t width, uint32_t height, uint8_t *pixels, size_t row_bytes, size_t capacity,
                               int cmyk, apc_report *report) {
    apc_report_reset(report);
    if (data == NULL || pixels == NULL || !apc_output_fits(width, height, row_bytes, capacity)) {
        apc_report_set_message(report, "the output buffer does not fit the image");
        return APC_ERR_INVALID_ARGUMENT;
    }
    apc_tiff_source source;
    apc_tiff_source_init(&source, data, length, report);
    int32_t status = APC_OK;
    TIFF *tif = apc_tiff_start(&source, limits, page, NULL, &status);
    if (tif == NULL) return status;
    apc_tiff_layout layout;
    apc_tiff_read_layout(tif, &layout);
    status = apc_tiff_check_size(&layout, limits, &source);
    if (status == APC_OK && (layout.width != width || layout.height != height)) {
        apc_report_set_message(report, "the image size differs from the header read before");
        status = APC_ERR_INVALID_ARGUMENT;
    }
    if (status == APC_OK && !tiff.TIFFIsCODECConfigured(layout.compression)) {
        char message[APC_MESSAGE_CAPACITY];
        snprintf(message, sizeof message, "TIFF compression %u is not supported by this libtiff",
                 (unsigned)layout.compression);
        apc_report_set_message(report, message);
        status = APC_ERR_UNSUPPORTED;
    }
    if (status == APC_OK && cmyk && (layout.color != 4 || !layout.own)) {
        apc_report_set_message(report, "not a CMYK TIFF of 8 or 16-bit (or float) samples");
        status = APC_ERR_UNSUPPORTED;
    }
    if (status == APC_OK) {
        apc_tiff_settle(&source);
        if (layout.own) status = apc_tiff_read_own(tif, &layout, pixels, row_bytes, cmyk, &source);
        else status = apc_tiff_read_rgba(tif, &layout, pixels, row_bytes, &source);
    }
    if (status == APC_OK) apc_tiff_settle(&source);
    tiff.TIFFClose(tif);
    return status;
}

int32_t apc_tiff_decode_rgba(const uint8_t *data, size_t length, const apc_limits *limits, int32_t page,
                             uint32_t width, uint32_t height, uint8_t *pixels, size_t row_bytes, size_t capacity,
                             apc_report *report) {
    return apc_tiff_decode(data, length, limits, page, width, height, pixels, row_bytes, capacity, 0, report);
}

int32_t apc_tiff_decode_cmyk(const uint8_t *data, size_t length, const apc_limits *limits, int32_t page,
                             uint32_t width, uint32_t height, uint8_t *pixels, size_t row_bytes, size_t capacity,
                             apc_report *report) {
    return apc_tiff_decode(data, length, limits, page, width, height, pixels, row_bytes, capacity, 1, report);
}

int32_t apc_tiff_read_metadata(const uint8_t *data, size_t length, const apc_limits *limits, int32_t page,
                               apc_metadata *metadata, apc_report *report) {
    apc_report_reset(report);
    if (data == NULL || metadata == NULL) {
        apc_report_set_message(report, "no data or no metadata");
        return APC_ERR_INVALID_ARGUMENT;
    }
    memset(metadata, 0, sizeof *metadata);
    apc_tiff_source source;
    apc_tiff_source_init(&source, data, length, report);
    int32_t status = APC_OK;
    TIFF *tif = apc_tiff_start(&source, limits, page, NULL, &status);
    if (tif == NULL) return status;
    // The ICC profile (tag 34675). The EXIF IFD is left out: it is a sub-IFD of this file, not a
    // block to copy, and the Orientation that matters is in the header.
    uint32_t icc_length = 0;
    void *icc = NULL;
    if (tiff.TIFFGetField(tif, TIFFTAG_ICCPROFILE, &icc_length, &icc) && icc != NULL && icc_length > 0) {
        metadata->icc = malloc(icc_length);
        if (metadata->icc == NULL) {
            status = apc_tiff_fail(&source, APC_ERR_TOO_LARGE, "cannot allocate the ICC profile");
        } else {
            memcpy(metadata->icc, icc, icc_length);
            metadata->icc_length = icc_length;
        }
    }
    if (status == APC_OK) apc_tiff_settle(&source);
    tiff.TIFFClose(tif);
    return status;
}

static char apc_tiff_version[64];
static pthread_once_t apc_tiff_version_once = PTHREAD_ONCE_INIT;

static void apc_tiff_version_load(void) {
    const char *version = tiff.TIFFGetVersion();
    if (version == NULL) return;
    size_t n = strcspn(version, "\n");  // "LIBTIFF, Version 4.5.0"
    if (n >= sizeof apc_tiff_version) n = sizeof apc_tiff_version - 1;
    memcpy(apc_tiff_version, version, n);
    apc_tiff_version[n] = '\0';
}

const char *apc_tiff_library_version(void) {
    if (!apc_library_open(&tiff_library, NULL)) return "";
    pthread_once(&apc_tiff_version_once, apc_tiff_version_load);
    return apc_tiff_version;
}
