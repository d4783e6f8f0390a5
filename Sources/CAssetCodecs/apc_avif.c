// AVIF through libavif (linked: the package already links it for its AVIF encoder), which decodes
// the AV1 payload with dav1d (its first choice of decoder; libaom or libgav1 if dav1d is missing).
// libavif never prints and never jumps: every call returns an avifResult, and the decoder's `diag`
// holds the reason of the last failure, which goes into the report's message.
//
// What is decoded: the primary item (a still, a grid, a progressive image's best layer) or the
// first frame of an image sequence, with its alpha item or track (grids of alpha too), converted
// by libavif's own YUV-to-RGB conversion to 8-bit straight RGBA, as `avifdec -d 8` converts it:
//
// - 10- and 12-bit images are converted to 8 bits by libavif (the YUV-to-RGB conversion scales
//   to the RGB depth); premultiplied alpha is unpremultiplied by libavif; gray (4:0:0) gives R=G=B;
//   no alpha gives 255.
// - HDR (PQ or HLG transfer, any depth) is converted as coded, without tone mapping: the 8-bit
//   values are the PQ/HLG signal itself, as avifdec -d 8 writes it. The transfer characteristics
//   are in the header for the caller to know.
// - Gain maps are ignored (libavif 0.11 does not know them): the base image decodes.
// - The clean aperture (clap) is applied here, after the conversion to RGB: the header's size is
//   the cropped size. A clap that libavif's strict check refuses sends the file to libheif
//   (below); one found invalid only after decoding is ignored with a warning.
// - A clap, irot or imir associated with the primary item without the essential bit fails the
//   file (APC_ERR_CORRUPT), as HEIF/MIAF require and newer libavif does (0.11 does not check).
// - Files libavif 0.11 refuses for a reason libheif 1.15 does not share (its strict checks,
//   NOT_IMPLEMENTED, a YUV-to-RGB conversion it lacks, such as matrix coefficients 10) are
//   decoded by libheif through apc_heif.c, whole: header, pixels and metadata, with a warning.
//   See "Choosing the library" below for why and how.
// - Rotation (irot) and mirroring (imir) are NOT applied: they become the EXIF orientation
//   (header.orientation) the pipeline applies after decoding, like a JPEG's. An EXIF orientation
//   inside an AVIF is ignored, as HEIF requires (irot/imir are the only transformations; libvips
//   does the same), and so is an orientation in XMP.
//
// Settings, and why:
// - maxThreads = 1: the server decodes several images at once, one per request thread, on few
//   cores; a dav1d thread pool per decode would spawn and join threads for every image and
//   compete with the other decodes, for no gain in throughput. avifdec's default is also 1.
// - strictFlags: libavif's default (AVIF_STRICT_ENABLED), as avifdec's. A file that breaks them (an
//   AV1 item without `pixi`, as libheif 1.11 and older wrote; an alpha item without `ispe`, as old
//   cavif wrote; a clap whose crop is not whole pixels inside the image, or whose offset is odd in
//   a subsampled direction) but that libavif parses without them goes to libheif, which shows it
//   as libvips (and browsers) do; one that fails without them too fails with libavif's reason.
// - imageSizeLimit / imageDimensionLimit from apc_limits, so that libavif refuses an oversized
//   `ispe` or grid during the parse, before any pixel memory, and dav1d refuses an oversized frame
//   (libavif hands it the size limit). libavif caps the size limit at 16384 x 16384 pixels.
// - XMP is never read; EXIF only by apc_avif_read_metadata.
//
// Thread-safe: every call uses its own decoder; nothing global but the version string (and
// apc_heif.c's once-opened libheif).
#include "CAssetCodecs.h"
#include "apc_checks.h"
#include "apc_library.h"
#include "apc_report.h"

#include <avif/avif.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/// Sets the report's message from a libavif failure and returns its status.
static int32_t apc_avif_fail(avifResult result, const avifDecoder *decoder, const char *step, apc_report *report) {
    const char *detail = decoder != NULL ? decoder->diag.error : "";
    char message[APC_MESSAGE_CAPACITY];
    if (detail[0] != '\0') {
        snprintf(message, sizeof message, "%s: %s (%.180s)", step, avifResultToString(result), detail);
    } else {
        snprintf(message, sizeof message, "%s: %s", step, avifResultToString(result));
    }
    apc_report_set_message(report, message);
    // libavif 0.11 takes every track for a picture track and fails on an audio track's 0x0 size.
    if (strstr(detail, "Track ID") != NULL && strstr(detail, "invalid size [0x0]") != NULL) {
        apc_report_set_message(report, "libavif 0.11 cannot read an image sequence that has a non-image (audio?) "
                                       "track");
        return APC_ERR_UNSUPPORTED;
    }
    // libavif reports an image over its limits as a parse failure; the reason says which.
    if (strstr(detail, "too large") != NULL) return APC_ERR_TOO_LARGE;
    if (strstr(detail, "runcated") != NULL) return APC_ERR_TRUNCATED;
    switch (result) {
    case AVIF_RESULT_TRUNCATED_DATA:
        return APC_ERR_TRUNCATED;
    case AVIF_RESULT_OUT_OF_MEMORY:
        return APC_ERR_TOO_LARGE;
    case AVIF_RESULT_NOT_IMPLEMENTED:
    case AVIF_RESULT_UNSUPPORTED_DEPTH:
    case AVIF_RESULT_NO_CODEC_AVAILABLE:
    case AVIF_RESULT_REFORMAT_FAILED:
        return APC_ERR_UNSUPPORTED;
    default:
        return APC_ERR_CORRUPT;
    }
}

/// Whether the file is an image sequence: libavif 0.11 does not say which source it picked, so
/// this asks as it chooses (AVIF_DECODER_SOURCE_AUTO): a sequence has several frames, or the
/// major brand `avis`.
static int apc_avif_is_sequence(const uint8_t *data, size_t length, const avifDecoder *decoder) {
    if (decoder->imageCount > 1) return 1;
    return length >= 12 && memcmp(data + 4, "ftyp", 4) == 0 && memcmp(data + 8, "avis", 4) == 0;
}

/// Whether a top-level box other than `mdat` has size 0, "up to the end of the file": valid ISO
/// BMFF that libavif 0.11 fails as "Header size overflow" (a `meta` written so by libavif's own
/// tests). Walks the top-level boxes only; stops at anything it cannot follow.
static int apc_avif_has_box_to_end(const uint8_t *data, size_t length) {
    size_t offset = 0;
    while (length >= 8 && offset <= length - 8) {
        uint64_t size = ((uint64_t)data[offset] << 24) | ((uint64_t)data[offset + 1] << 16) |
                        ((uint64_t)data[offset + 2] << 8) | (uint64_t)data[offset + 3];
        if (size == 0) return memcmp(data + offset + 4, "mdat", 4) != 0;
        if (size == 1) {
            if (length - offset < 16) return 0;
            size = 0;
            for (int i = 8; i < 16; i++) size = (size << 8) | data[offset + i];
            if (size < 16) return 0;
        } else if (size < 8) {
            return 0;
        }
        if (size > length - offset) return 0;
        offset += (size_t)size;
    }
    return 0;
}

// ---- Transformative properties must be essential ---------------------------------------------
//
// HEIF (ISO/IEC 23008-12) and MIAF require the transformative properties (clap, irot, imir) to be
// marked essential in 'ipma', so that a reader that does not know them refuses the image rather
// than showing it untransformed. libavif 0.11 does not check it (newer libavif does, and fails
// libavif's own clap_irot_imir_non_essential.avif); libheif 1.15 does not either. This walk does,
// for the primary item only: meta, then its pitm and iprp, then iprp's ipco and ipma boxes. Every
// offset and length is checked against the box that holds it; anything it cannot follow ends the
// walk without a verdict (libavif then judges the file).

typedef struct {
    const uint8_t *data;  // the box's payload
    size_t size;          // payload bytes
    uint32_t type;
} apc_avif_box;

#define APC_AVIF_FOURCC(a, b, c, d) \
    (((uint32_t)(a) << 24) | ((uint32_t)(b) << 16) | ((uint32_t)(c) << 8) | (uint32_t)(d))

static uint32_t apc_avif_be32(const uint8_t *p) {
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | (uint32_t)p[3];
}

static uint32_t apc_avif_be16(const uint8_t *p) { return ((uint32_t)p[0] << 8) | (uint32_t)p[1]; }

/// The box at *offset in [data, data + size): 1 and the offset moved past it, else 0 (no
/// complete box left). A size of 0 runs to the end of the container.
static int apc_avif_next_box(const uint8_t *data, size_t size, size_t *offset, apc_avif_box *box) {
    size_t at = *offset;
    if (at > size || size - at < 8) return 0;
    uint64_t box_size = apc_avif_be32(data + at);
    size_t header = 8;
    if (box_size == 1) {
        if (size - at < 16) return 0;
        box_size = ((uint64_t)apc_avif_be32(data + at + 8) << 32) | apc_avif_be32(data + at + 12);
        header = 16;
    } else if (box_size == 0) {
        box_size = size - at;
    }
    if (box_size < header || box_size > size - at) return 0;
    box->type = apc_avif_be32(data + at + 4);
    box->data = data + at + header;
    box->size = (size_t)box_size - header;
    *offset = at + (size_t)box_size;
    return 1;
}

/// Marks in `non_essential` (one bit per property index, 1..32767) the properties the ipma box
/// associates with `primary` without the essential bit.
static void apc_avif_ipma_non_essential(const apc_avif_box *ipma, uint32_t primary, uint8_t non_essential[4096]) {
    if (ipma->size < 8) return;
    uint8_t version = ipma->data[0];
    int wide_index = (ipma->data[3] & 1) != 0;  // flags & 1: 15-bit property indices
    size_t id_bytes = version < 1 ? 2 : 4, at = 8;
    uint32_t entries = apc_avif_be32(ipma->data + 4);
    for (uint32_t e = 0; e < entries; e++) {
        if (ipma->size - at < id_bytes + 1) return;
        uint32_t item = id_bytes == 2 ? apc_avif_be16(ipma->data + at) : apc_avif_be32(ipma->data + at);
        uint32_t count = ipma->data[at + id_bytes];
        at += id_bytes + 1;
        size_t bytes = (size_t)count * (wide_index ? 2 : 1);
        if (ipma->size - at < bytes) return;
        if (item == primary) {
            for (uint32_t k = 0; k < count; k++) {
                uint32_t value = wide_index ? apc_avif_be16(ipma->data + at + 2 * k) : ipma->data[at + k];
                uint32_t essential = wide_index ? 0x8000u : 0x80u;
                uint32_t index = value & (essential - 1);
                if ((value & essential) == 0 && index != 0) non_essential[index >> 3] |= (uint8_t)(1u << (index & 7));
            }
        }
        at += bytes;
    }
}

/// APC_ERR_CORRUPT (with the reason) when a clap, irot or imir property is associated with the
/// primary item without the essential bit; APC_OK otherwise, including when the walk cannot tell.
static int32_t apc_avif_check_essential(const uint8_t *data, size_t length, apc_report *report) {
    apc_avif_box box, meta = {NULL, 0, 0};
    size_t offset = 0;
    while (apc_avif_next_box(data, length, &offset, &box)) {
        if (box.type == APC_AVIF_FOURCC('m', 'e', 't', 'a')) {
            meta = box;
            break;
        }
    }
    if (meta.data == NULL || meta.size < 4) return APC_OK;
    uint32_t primary = 0;
    int have_primary = 0;
    apc_avif_box iprp = {NULL, 0, 0};
    offset = 4;  // full box: version and flags
    while (apc_avif_next_box(meta.data, meta.size, &offset, &box)) {
        if (box.type == APC_AVIF_FOURCC('p', 'i', 't', 'm') && !have_primary && box.size >= 6) {
            if (box.data[0] == 0) {
                primary = apc_avif_be16(box.data + 4);
                have_primary = 1;
            } else if (box.size >= 8) {
                primary = apc_avif_be32(box.data + 4);
                have_primary = 1;
            }
        } else if (box.type == APC_AVIF_FOURCC('i', 'p', 'r', 'p') && iprp.data == NULL) {
            iprp = box;
        }
    }
    if (!have_primary || iprp.data == NULL) return APC_OK;
    uint8_t non_essential[4096];  // one bit per property index
    memset(non_essential, 0, sizeof non_essential);
    apc_avif_box ipco = {NULL, 0, 0};
    offset = 0;
    while (apc_avif_next_box(iprp.data, iprp.size, &offset, &box)) {
        if (box.type == APC_AVIF_FOURCC('i', 'p', 'c', 'o') && ipco.data == NULL) ipco = box;
        if (box.type == APC_AVIF_FOURCC('i', 'p', 'm', 'a')) apc_avif_ipma_non_essential(&box, primary, non_essential);
    }
    if (ipco.data == NULL) return APC_OK;
    offset = 0;
    for (uint32_t index = 1; index < 32768 && apc_avif_next_box(ipco.data, ipco.size, &offset, &box); index++) {
        if ((non_essential[index >> 3] & (1u << (index & 7))) == 0) continue;
        if (box.type == APC_AVIF_FOURCC('c', 'l', 'a', 'p') || box.type == APC_AVIF_FOURCC('i', 'r', 'o', 't') ||
            box.type == APC_AVIF_FOURCC('i', 'm', 'i', 'r')) {
            char message[APC_MESSAGE_CAPACITY];
            snprintf(message, sizeof message,
                     "the primary image's '%c%c%c%c' property is not marked essential, as HEIF/MIAF require of "
                     "the transformative properties (clap, irot, imir)",
                     (char)(box.type >> 24), (char)(box.type >> 16), (char)(box.type >> 8), (char)box.type);
            apc_report_set_message(report, message);
            return APC_ERR_CORRUPT;
        }
    }
    return APC_OK;
}

// ---- Choosing the library ------------------------------------------------------------------------
//
// libavif is the first choice (linked, dav1d, the same library as the reference avifdec). libheif
// (apc_heif.c) decodes the files libavif 0.11 refuses for a reason libheif does not share:
// - its strict checks (an AV1 item without 'pixi', an alpha item without 'ispe', a clap whose
//   offset is odd in a subsampled direction or not whole pixels): valid-enough files that libvips
//   (through libheif) and browsers show. Only when libavif parses the file with the strict flags
//   off, so that a file broken in another way is still refused with libavif's reason;
// - AVIF_RESULT_NOT_IMPLEMENTED from the parse;
// - a YUV-to-RGB conversion libavif 0.11 cannot do (matrix coefficients 3, 9 and 10 with
//   their constant-luminance forms, 11, 14 and up, YCgCo in limited range, identity when not
//   4:4:4): found at parse time by asking avifImageYUVToRGB to convert a 2x2 image with the same
//   depth, format, range, colour description and alpha, so that the rules are libavif's own.
// The choice depends only on the bytes, and each entry point makes it the same way (the header,
// the pixels and the metadata of a file always come from the same library: libheif applies
// irot/imir/clap and reports orientation 0, libavif's path reports irot/imir as the orientation).
// The report of a call served by libheif warns "decoded by libheif: <libavif's reason>"; when
// libheif fails too, libavif's status and both reasons are reported.

/// apc_avif_open's outcome when libheif must serve the call.
#define APC_AVIF_USE_LIBHEIF (-1)

/// Why libavif refused a file that goes to libheif, with what libavif parsed of it.
typedef struct {
    int32_t status;                      // libavif's status, reported if libheif fails too
    char reason[APC_MESSAGE_CAPACITY];   // libavif's reason
    int has_cicp;                        // whether libavif parsed the colour description
    uint32_t color_primaries, transfer_characteristics, matrix_coefficients;
} apc_avif_refusal;

/// Whether libavif's avifImageYUVToRGB converts an image like the parsed one to the 8-bit RGB(A)
/// apc_avif_decode_rgba asks for: a 2x2 image of the same depth, format, range, colour
/// description and alpha is converted. 1 when it could not even try (out of memory): the decode
/// then fails on its own.
static int apc_avif_can_convert(const avifDecoder *decoder) {
    const avifImage *parsed = decoder->image;
    if (parsed->yuvFormat == AVIF_PIXEL_FORMAT_NONE) return 1;  // the decode will say
    avifImage *probe = avifImageCreate(2, 2, parsed->depth, parsed->yuvFormat);
    if (probe == NULL) return 1;
    probe->yuvRange = parsed->yuvRange;
    probe->colorPrimaries = parsed->colorPrimaries;
    probe->transferCharacteristics = parsed->transferCharacteristics;
    probe->matrixCoefficients = parsed->matrixCoefficients;
    probe->yuvChromaSamplePosition = parsed->yuvChromaSamplePosition;
    probe->alphaPremultiplied = parsed->alphaPremultiplied;
    int alpha = decoder->alphaPresent != 0;
    if (avifImageAllocatePlanes(probe, alpha ? AVIF_PLANES_ALL : AVIF_PLANES_YUV) != AVIF_RESULT_OK) {
        avifImageDestroy(probe);
        return 1;
    }
    avifPixelFormatInfo info;
    avifGetPixelFormatInfo(probe->yuvFormat, &info);
    for (int c = 0; c < 3; c++) {
        uint32_t rows = c == AVIF_CHAN_Y ? 2u : (2u + info.chromaShiftY) >> info.chromaShiftY;
        if (probe->yuvPlanes[c] != NULL) memset(probe->yuvPlanes[c], 0, (size_t)probe->yuvRowBytes[c] * rows);
    }
    if (probe->alphaPlane != NULL) memset(probe->alphaPlane, 0, (size_t)probe->alphaRowBytes * 2);
    uint8_t pixels[2 * 2 * 4];
    avifRGBImage rgb;
    avifRGBImageSetDefaults(&rgb, probe);
    rgb.depth = 8;
    rgb.format = alpha ? AVIF_RGB_FORMAT_RGBA : AVIF_RGB_FORMAT_RGB;
    rgb.alphaPremultiplied = AVIF_FALSE;
    rgb.pixels = pixels;
    rgb.rowBytes = alpha ? 8 : 6;
    avifResult result = avifImageYUVToRGB(probe, &rgb);
    avifImageDestroy(probe);
    return result == AVIF_RESULT_OK;
}

/// Whether libavif parses the file with its strict flags off (the strict checks were then its
/// only objection), keeping the colour description it parsed.
static int apc_avif_parses_without_strict(const uint8_t *data, size_t length, const avifDecoder *strict,
                                          apc_avif_refusal *refusal) {
    avifDecoder *decoder = avifDecoderCreate();
    if (decoder == NULL) return 0;
    decoder->maxThreads = 1;
    decoder->ignoreXMP = AVIF_TRUE;
    decoder->ignoreExif = AVIF_TRUE;
    decoder->strictFlags = AVIF_STRICT_DISABLED;
    decoder->imageSizeLimit = strict->imageSizeLimit;
    decoder->imageDimensionLimit = strict->imageDimensionLimit;
    avifResult result = avifDecoderSetIOMemory(decoder, data, length);
    if (result == AVIF_RESULT_OK) result = avifDecoderParse(decoder);
    if (result == AVIF_RESULT_OK) {
        refusal->has_cicp = 1;
        refusal->color_primaries = decoder->image->colorPrimaries;
        refusal->transfer_characteristics = decoder->image->transferCharacteristics;
        refusal->matrix_coefficients = decoder->image->matrixCoefficients;
    }
    avifDecoderDestroy(decoder);
    return result == AVIF_RESULT_OK;
}

/// Creates a decoder over the data, applies the settings and the limits, and parses the file (no
/// AV1 decoding yet); then checks the coded size against the limits. On failure `*out` is NULL
/// and the report says why. APC_AVIF_USE_LIBHEIF (with `*refusal` filled) when libavif refuses
/// the file for a reason libheif does not share (see "Choosing the library").
static int32_t apc_avif_open(const uint8_t *data, size_t length, const apc_limits *limits, int32_t page,
                             int read_exif, avifDecoder **out, apc_avif_refusal *refusal, apc_report *report) {
    *out = NULL;
    memset(refusal, 0, sizeof *refusal);
    if (page < -1 || page > 0) {
        apc_report_set_message(report, "an AVIF has one image: page must be -1 or 0 (frames of a sequence are "
                                       "not selectable)");
        return APC_ERR_INVALID_ARGUMENT;
    }
    if (length == 0) {
        apc_report_set_message(report, "the AVIF data is empty");
        return APC_ERR_TRUNCATED;
    }
    int32_t essential = apc_avif_check_essential(data, length, report);
    if (essential != APC_OK) return essential;
    avifDecoder *decoder = avifDecoderCreate();
    if (decoder == NULL) {
        apc_report_set_message(report, "cannot create the AVIF decoder");
        return APC_ERR_TOO_LARGE;
    }
    decoder->maxThreads = 1;
    decoder->ignoreXMP = AVIF_TRUE;
    decoder->ignoreExif = read_exif ? AVIF_FALSE : AVIF_TRUE;
    // strictFlags keep libavif's default, AVIF_STRICT_ENABLED (see the top of the file).
    uint32_t max_width = 0, max_height = 0;
    if (limits != NULL) {
        max_width = limits->max_width;
        max_height = limits->max_height;
        if (limits->max_pixels != 0 && limits->max_pixels < decoder->imageSizeLimit) {
            decoder->imageSizeLimit = (uint32_t)limits->max_pixels;
        }
    }
    // One limit for both dimensions in libavif: the larger of the two; each is checked below.
    uint32_t width_limit = max_width != 0 ? max_width : AVIF_DEFAULT_IMAGE_DIMENSION_LIMIT;
    uint32_t height_limit = max_height != 0 ? max_height : AVIF_DEFAULT_IMAGE_DIMENSION_LIMIT;
    decoder->imageDimensionLimit = width_limit > height_limit ? width_limit : height_limit;

    avifResult result = avifDecoderSetIOMemory(decoder, data, length);
    if (result == AVIF_RESULT_OK) result = avifDecoderParse(decoder);
    if (result != AVIF_RESULT_OK) {
        int32_t status = apc_avif_fail(result, decoder, "cannot read the AVIF", report);
        if (status == APC_ERR_CORRUPT && apc_avif_has_box_to_end(data, length)) {
            apc_report_set_message(report, "libavif 0.11 cannot read a top-level box of size 0 (one that runs to the "
                                           "end of the file) other than mdat");
            status = APC_ERR_UNSUPPORTED;
        }
        int strict = strncmp(decoder->diag.error, "[Strict]", 8) == 0;
        if (result == AVIF_RESULT_NOT_IMPLEMENTED ||
            (strict && apc_avif_parses_without_strict(data, length, decoder, refusal))) {
            refusal->status = status;
            snprintf(refusal->reason, sizeof refusal->reason, "%s", report->message);
            status = APC_AVIF_USE_LIBHEIF;
        }
        avifDecoderDestroy(decoder);
        return status;
    }
    const avifImage *image = decoder->image;
    // The coded size is what libavif and dav1d allocate, before any crop: the budget applies to it.
    if (image->width > width_limit || image->height > height_limit ||
        apc_too_many_pixels(limits, image->width, image->height)) {
        apc_report_set_message(report, "the image's declared size exceeds the pixel budget");
        avifDecoderDestroy(decoder);
        return APC_ERR_TOO_LARGE;
    }
    if (image->width == 0 || image->height == 0) {
        apc_report_set_message(report, "the AVIF declares an empty image");
        avifDecoderDestroy(decoder);
        return APC_ERR_CORRUPT;
    }
    if (!apc_avif_can_convert(decoder)) {
        refusal->status = APC_ERR_UNSUPPORTED;
        snprintf(refusal->reason, sizeof refusal->reason,
                 "libavif 0.11 cannot convert this image to RGB (matrix coefficients %u, %u-bit, %s range, "
                 "format %s)",
                 (unsigned)image->matrixCoefficients, (unsigned)image->depth,
                 image->yuvRange == AVIF_RANGE_FULL ? "full" : "limited", avifPixelFormatToString(image->yuvFormat));
        refusal->has_cicp = 1;
        refusal->color_primaries = image->colorPrimaries;
        refusal->transfer_characteristics = image->transferCharacteristics;
        refusal->matrix_coefficients = image->matrixCoefficients;
        avifDecoderDestroy(decoder);
        return APC_AVIF_USE_LIBHEIF;
    }
    *out = decoder;
    return APC_OK;
}

/// Finishes a call libheif served: on success the warning that says so; on failure both reasons,
/// and libheif's status when it judged the data (corrupt, truncated, too large) or the arguments,
/// libavif's when libheif could not try (not installed, or a feature it lacks).
static int32_t apc_avif_after_libheif(int32_t status, const apc_avif_refusal *refusal, apc_report *report) {
    char text[APC_MESSAGE_CAPACITY + 32];
    if (status == APC_OK) {
        snprintf(text, sizeof text, "decoded by libheif: %s", refusal->reason);
        apc_report_add_warning(report, text);
        return APC_OK;
    }
    if (status == APC_ERR_TOO_LARGE || status == APC_ERR_INVALID_ARGUMENT) return status;
    snprintf(text, sizeof text, "%.120s; libheif: %.120s", refusal->reason, report->message);
    apc_report_set_message(report, text);
    return status == APC_ERR_UNSUPPORTED ? refusal->status : status;
}

/// The region of the image the output covers: the clean aperture when the image has a valid
/// one, else the whole image. An invalid one (libavif's own check, as for its strict flag) is
/// ignored with a warning.
static avifCropRect apc_avif_crop(const avifImage *image, apc_report *report) {
    avifCropRect whole = {0, 0, image->width, image->height};
    if ((image->transformFlags & AVIF_TRANSFORM_CLAP) == 0) return whole;
    avifCropRect rect;
    avifDiagnostics diag;
    memset(&diag, 0, sizeof diag);
    if (!avifCropRectConvertCleanApertureBox(&rect, &image->clap, image->width, image->height, image->yuvFormat,
                                             &diag) ||
        rect.width == 0 || rect.height == 0 || rect.x > image->width || rect.y > image->height ||
        rect.width > image->width - rect.x || rect.height > image->height - rect.y) {
        char warning[APC_MESSAGE_CAPACITY];
        snprintf(warning, sizeof warning, "the clean aperture (clap) is invalid and ignored: %.180s",
                 diag.error[0] != '\0' ? diag.error : "crop outside the image");
        apc_report_add_warning(report, warning);
        return whole;
    }
    return rect;
}

/// The EXIF orientation (1-8) that displays the image as irot then imir do (ISO/IEC 23008-12:
/// irot turns anti-clockwise by angle * 90 degrees, then imir mirrors; libavif 0.11's imir `mode`
/// 0 exchanges top and bottom, 1 left and right), or 0 when the image has neither property.
/// Checked against libheif, which applies both, on every angle and mode.
static uint32_t apc_avif_orientation(const avifImage *image) {
    int has_irot = (image->transformFlags & AVIF_TRANSFORM_IROT) != 0;
    int has_imir = (image->transformFlags & AVIF_TRANSFORM_IMIR) != 0;
    if (!has_irot && !has_imir) return 0;
    unsigned angle = has_irot ? (image->irot.angle & 3u) : 0u;
    static const uint8_t rotate_only[4] = {1, 8, 3, 6};        // 0, 90, 180, 270 degrees anti-clockwise
    static const uint8_t then_top_bottom[4] = {4, 5, 2, 7};    // imir mode 0
    static const uint8_t then_left_right[4] = {2, 7, 4, 5};    // imir mode 1
    if (!has_imir) return rotate_only[angle];
    return image->imir.mode == 0 ? then_top_bottom[angle] : then_left_right[angle];
}

int32_t apc_avif_read_header(const uint8_t *data, size_t length, const apc_limits *limits, int32_t page,
                             apc_header *header, apc_report *report) {
    apc_report_reset(report);
    if (data == NULL || header == NULL) return APC_ERR_INVALID_ARGUMENT;
    memset(header, 0, sizeof *header);
    avifDecoder *decoder = NULL;
    apc_avif_refusal refusal;
    int32_t status = apc_avif_open(data, length, limits, page, 0, &decoder, &refusal, report);
    if (status == APC_AVIF_USE_LIBHEIF) {
        // libheif's geometry (irot/imir/clap applied, orientation 0), as its decode gives it.
        status = apc_avif_after_libheif(apc_heif_read_header(data, length, limits, -1, header, report), &refusal,
                                        report);
        if (status != APC_OK) return status;
        header->format = APC_FORMAT_AVIF;
        header->frames = 0;  // one image (libheif counts top-level images; page 0 is the primary here)
        if (refusal.has_cicp && header->color_primaries == 0 && header->transfer_characteristics == 0 &&
            header->matrix_coefficients == 0) {
            // libheif 1.15 has no colour description without a colr box; libavif read the AV1 one.
            header->color_primaries = refusal.color_primaries;
            header->transfer_characteristics = refusal.transfer_characteristics;
            header->matrix_coefficients = refusal.matrix_coefficients;
        }
        return APC_OK;
    }
    if (status != APC_OK) return status;
    const avifImage *image = decoder->image;
    avifCropRect crop = apc_avif_crop(image, report);
    int gray = image->yuvFormat == AVIF_PIXEL_FORMAT_YUV400;
    int alpha = decoder->alphaPresent != 0;
    header->format = APC_FORMAT_AVIF;
    header->width = crop.width;
    header->height = crop.height;
    header->output_width = crop.width;
    header->output_height = crop.height;
    header->channels = (gray ? 1u : 3u) + (alpha ? 1u : 0u);
    header->bit_depth = image->depth;
    if (gray) {
        header->color_space = alpha ? APC_COLOR_GRAY_ALPHA : APC_COLOR_GRAY;
    } else if (image->matrixCoefficients == AVIF_MATRIX_COEFFICIENTS_IDENTITY) {
        header->color_space = alpha ? APC_COLOR_RGBA : APC_COLOR_RGB;
    } else {
        header->color_space = APC_COLOR_YCBCR;
    }
    header->has_alpha = (uint32_t)alpha;
    header->orientation = apc_avif_orientation(image);
    header->frames = apc_avif_is_sequence(data, length, decoder) ? (uint32_t)decoder->imageCount : 0;
    // nclx (or the AV1 sequence header's values when the file has no colr box), set even when an
    // ICC profile is present: the profile describes the colours, these still describe the coding.
    header->color_primaries = image->colorPrimaries;
    header->transfer_characteristics = image->transferCharacteristics;
    header->matrix_coefficients = image->matrixCoefficients;
    header->has_icc = image->icc.size > 0;
    avifDecoderDestroy(decoder);
    return APC_OK;
}

int32_t apc_avif_decode_rgba(const uint8_t *data, size_t length, const apc_limits *limits, int32_t page,
                             uint32_t width, uint32_t height, uint8_t *pixels, size_t row_bytes, size_t capacity,
                             apc_report *report) {
    apc_report_reset(report);
    if (data == NULL || pixels == NULL || !apc_output_fits(width, height, row_bytes, capacity)) {
        apc_report_set_message(report, "the output buffer does not fit the image");
        return APC_ERR_INVALID_ARGUMENT;
    }
    avifDecoder *decoder = NULL;
    apc_avif_refusal refusal;
    int32_t status = apc_avif_open(data, length, limits, page, 0, &decoder, &refusal, report);
    if (status == APC_AVIF_USE_LIBHEIF) {
        status = apc_heif_decode_rgba(data, length, limits, -1, width, height, pixels, row_bytes, capacity, report);
        return apc_avif_after_libheif(status, &refusal, report);
    }
    if (status != APC_OK) return status;
    apc_report parse_report;  // the crop's warning, if any, comes again after the decode
    apc_report_reset(&parse_report);
    avifCropRect crop = apc_avif_crop(decoder->image, &parse_report);
    if (crop.width != width || crop.height != height) {
        apc_report_set_message(report, "the image size differs from the header read before");
        avifDecoderDestroy(decoder);
        return APC_ERR_CORRUPT;
    }
    avifResult result = avifDecoderNextImage(decoder);
    if (result != AVIF_RESULT_OK) {
        status = apc_avif_fail(result, decoder, "cannot decode the AVIF", report);
        avifDecoderDestroy(decoder);
        return status;
    }
    // The AV1 payload may disagree with the container: the decoded image rules, and must still be
    // the size the caller was told.
    const avifImage *image = decoder->image;
    if (apc_too_many_pixels(limits, image->width, image->height)) {
        apc_report_set_message(report, "the decoded image exceeds the pixel budget");
        avifDecoderDestroy(decoder);
        return APC_ERR_TOO_LARGE;
    }
    crop = apc_avif_crop(image, report);
    if (crop.width != width || crop.height != height) {
        apc_report_set_message(report, "the decoded image's size differs from the size its header declares");
        avifDecoderDestroy(decoder);
        return APC_ERR_CORRUPT;
    }

    // An opaque image is converted to RGB and widened to RGBA here, as avifdec converts it (its PNG
    // is RGB): libavif picks its conversion by the output format, and for RGBA from 10-bit YUV it
    // takes libyuv's, which is up to 3 levels off its own exact one; for RGB it has no libyuv path.
    // With alpha, RGBA as avifdec does too.
    uint32_t channels = image->alphaPlane != NULL ? 4u : 3u;
    avifRGBImage rgb;
    avifRGBImageSetDefaults(&rgb, image);
    rgb.depth = 8;
    rgb.format = channels == 4 ? AVIF_RGB_FORMAT_RGBA : AVIF_RGB_FORMAT_RGB;
    rgb.alphaPremultiplied = AVIF_FALSE;  // libavif unpremultiplies a premultiplied image
    int whole = crop.x == 0 && crop.y == 0 && crop.width == image->width && crop.height == image->height;
    uint8_t *full = NULL;
    if (whole && row_bytes <= UINT32_MAX) {
        // Straight into the caller's rows (an RGB row fits in the first 3/4 of an RGBA one).
        rgb.pixels = pixels;
        rgb.rowBytes = (uint32_t)row_bytes;
    } else {
        // The whole image, then the crop copied out: libavif converts whole images only, and
        // converting before cropping gives the edge pixels the chroma of their neighbours, as
        // avifdec's uncropped output has them.
        rgb.rowBytes = image->width * channels;
        full = malloc((size_t)rgb.rowBytes * image->height);
        if (full == NULL) {
            apc_report_set_message(report, "cannot allocate the uncropped image");
            avifDecoderDestroy(decoder);
            return APC_ERR_TOO_LARGE;
        }
        rgb.pixels = full;
    }
    result = avifImageYUVToRGB(image, &rgb);
    if (result != AVIF_RESULT_OK) {
        status = apc_avif_fail(result, decoder, "cannot convert the AVIF to RGB", report);
        if (result == AVIF_RESULT_REFORMAT_FAILED) {
            char message[APC_MESSAGE_CAPACITY];
            snprintf(message, sizeof message,
                     "libavif cannot convert this image to RGB (matrix coefficients %u, %u-bit, range %s)",
                     (unsigned)image->matrixCoefficients, (unsigned)image->depth,
                     image->yuvRange == AVIF_RANGE_FULL ? "full" : "limited");
            apc_report_set_message(report, message);
        }
        free(full);
        avifDecoderDestroy(decoder);
        return status;
    }
    for (uint32_t y = 0; y < height; y++) {
        uint8_t *row = pixels + (size_t)y * row_bytes;
        const uint8_t *source = row;
        if (full != NULL) {
            source = full + (size_t)(crop.y + y) * rgb.rowBytes + (size_t)crop.x * channels;
            if (channels == 4) {
                memcpy(row, source, (size_t)width * 4);
                continue;
            }
        } else if (channels == 4) {
            break;  // already in place
        }
        // RGB to RGBA, back to front: in place each pixel lands at or after where it was read.
        for (uint32_t x = width; x-- > 0;) {
            const uint8_t *in = source + (size_t)x * 3;
            uint8_t *pixel = row + (size_t)x * 4;
            uint8_t r = in[0], g = in[1], b = in[2];
            pixel[0] = r;
            pixel[1] = g;
            pixel[2] = b;
            pixel[3] = 255;
        }
    }
    free(full);
    avifDecoderDestroy(decoder);
    return APC_OK;
}

/// Where the TIFF structure starts in libavif's EXIF block, or `length` when it has none: libavif
/// 0.11 keeps what follows the item's 4-byte offset field without applying the offset, so the
/// block may start with "Exif\0\0" (or other bytes the offset skips).
static size_t apc_avif_tiff_start(const uint8_t *exif, size_t length) {
    for (size_t i = 0; i + 4 <= length && i <= 64; i++) {
        if (memcmp(exif + i, "II*\0", 4) == 0 || memcmp(exif + i, "MM\0*", 4) == 0) return i;
    }
    return length;
}

int32_t apc_avif_read_metadata(const uint8_t *data, size_t length, const apc_limits *limits, int32_t page,
                               apc_metadata *metadata, apc_report *report) {
    apc_report_reset(report);
    if (data == NULL || metadata == NULL) return APC_ERR_INVALID_ARGUMENT;
    memset(metadata, 0, sizeof *metadata);
    avifDecoder *decoder = NULL;
    apc_avif_refusal refusal;
    int32_t status = apc_avif_open(data, length, limits, page, 1, &decoder, &refusal, report);
    if (status != APC_OK) {
        // A broken Exif item fails libavif's parse; the profile is still worth having. The library
        // is chosen as for the header and the pixels: by the parse without the Exif.
        apc_report scratch;
        apc_report_reset(&scratch);
        int32_t again = apc_avif_open(data, length, limits, page, 0, &decoder, &refusal, &scratch);
        if (again == APC_AVIF_USE_LIBHEIF) {
            status = apc_heif_read_metadata(data, length, limits, -1, metadata, report);
            return apc_avif_after_libheif(status, &refusal, report);
        }
        if (again != APC_OK) {
            if (status == APC_AVIF_USE_LIBHEIF) {
                apc_report_set_message(report, scratch.message);
                return again;
            }
            return status;
        }
        char warning[APC_MESSAGE_CAPACITY + 16];
        snprintf(warning, sizeof warning, "EXIF left out: %s", report->message);
        apc_report_reset(report);
        apc_report_add_warning(report, warning);
    }
    const avifImage *image = decoder->image;
    if (image->icc.size > 0) {
        metadata->icc = malloc(image->icc.size);
        if (metadata->icc != NULL) {
            memcpy(metadata->icc, image->icc.data, image->icc.size);
            metadata->icc_length = image->icc.size;
        }
    }
    if (image->exif.size > 0) {
        size_t start = apc_avif_tiff_start(image->exif.data, image->exif.size);
        if (start >= image->exif.size) {
            apc_report_add_warning(report, "EXIF left out: the Exif item has no TIFF header");
        } else {
            metadata->exif = malloc(image->exif.size - start);
            if (metadata->exif != NULL) {
                memcpy(metadata->exif, image->exif.data + start, image->exif.size - start);
                metadata->exif_length = image->exif.size - start;
            }
        }
    }
    avifDecoderDestroy(decoder);
    return APC_OK;
}

static char apc_avif_version[320];
static pthread_once_t apc_avif_version_once = PTHREAD_ONCE_INIT;

static void apc_avif_make_version(void) {
    char codecs[256];
    avifCodecVersions(codecs);
    snprintf(apc_avif_version, sizeof apc_avif_version, "libavif %s (%s)", avifVersion(), codecs);
}

const char *apc_avif_library_version(void) {
    pthread_once(&apc_avif_version_once, apc_avif_make_version);
    return apc_avif_version;
}
