// WebP through libwebp (the VP8 and VP8L bitstreams, decoded straight into the caller's memory)
// and libwebpdemux (the RIFF container: its chunks, the ICC profile and EXIF block, and the first
// frame of an animation composited by WebPAnimDecoder). Both are linked, not opened on demand.
//
// libwebp neither longjmps nor prints: every failure comes back as a VP8StatusCode or a NULL, so
// no jump point and no message handler are needed. Its decoders keep no state between calls (the
// DSP function tables are set up once, under libwebp's own lock), so the entry points are
// thread-safe.
//
// Every entry point first checks the whole file the same way (apc_webp_open): WebPGetFeatures for
// the bitstream's header (size, alpha, animation), the pixel budget, then WebPDemux over all the
// data for the container. A file whose chunks run past the end of the data fails there with
// APC_ERR_TRUNCATED, as WebPDecode would fail it: libwebp decodes only whole files.
#include "CAssetCodecs.h"
#include "apc_checks.h"
#include "apc_library.h"
#include "apc_report.h"

#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <webp/decode.h>
#include <webp/demux.h>

/// Default for the ICC and EXIF chunks copied by apc_webp_read_metadata, as PNG's chunk default.
#define APC_WEBP_DEFAULT_CHUNK_MAX 8000000u

/// A file checked by apc_webp_open: the bitstream's features and the parsed container.
typedef struct {
    WebPBitstreamFeatures features;
    WebPDemuxer *demux;   // every chunk of the file; freed by apc_webp_close
    uint32_t frames;      // frames of an animation, 0 for a still
} apc_webp_file;

/// Maps a libwebp status to ours, with a message naming what failed.
static int32_t apc_webp_failure(VP8StatusCode status, const char *what, apc_report *report) {
    const char *reason;
    int32_t code;
    switch (status) {
    case VP8_STATUS_NOT_ENOUGH_DATA:
        reason = "the data ends early";
        code = APC_ERR_TRUNCATED;
        break;
    case VP8_STATUS_UNSUPPORTED_FEATURE:
        reason = "a feature libwebp does not support";
        code = APC_ERR_UNSUPPORTED;
        break;
    case VP8_STATUS_OUT_OF_MEMORY:
        reason = "libwebp ran out of memory";
        code = APC_ERR_TOO_LARGE;
        break;
    case VP8_STATUS_INVALID_PARAM:
        reason = "libwebp refused the decode parameters";
        code = APC_ERR_INVALID_ARGUMENT;
        break;
    case VP8_STATUS_BITSTREAM_ERROR:
        reason = "invalid bitstream";
        code = APC_ERR_CORRUPT;
        break;
    default:
        reason = "the decode stopped";
        code = APC_ERR_CORRUPT;
        break;
    }
    char message[APC_MESSAGE_CAPACITY];
    snprintf(message, sizeof message, "%s: %s (libwebp status %d)", what, reason, (int)status);
    apc_report_set_message(report, message);
    return code;
}

static void apc_webp_close(apc_webp_file *file) {
    WebPDemuxDelete(file->demux);
    file->demux = NULL;
}

/// Whether a size is over the limits' width, height or pixel budget.
static int apc_webp_over_limits(const apc_limits *limits, uint32_t width, uint32_t height) {
    if (limits != NULL && limits->max_width != 0 && width > limits->max_width) return 1;
    if (limits != NULL && limits->max_height != 0 && height > limits->max_height) return 1;
    return apc_too_many_pixels(limits, width, height);
}

/// Checks the file's header, its declared size against the limits, and its container. On
/// success the caller owns `file` (apc_webp_close); on failure nothing is left to free.
static int32_t apc_webp_open(const uint8_t *data, size_t length, const apc_limits *limits,
                             apc_webp_file *file, apc_report *report) {
    memset(file, 0, sizeof *file);
    if (data == NULL) {
        apc_report_set_message(report, "no WebP data");
        return APC_ERR_INVALID_ARGUMENT;
    }
    if (length == 0) {
        apc_report_set_message(report, "the WebP data is empty");
        return APC_ERR_TRUNCATED;
    }
    VP8StatusCode status = WebPGetFeatures(data, length, &file->features);
    if (status != VP8_STATUS_OK) {
        // libwebp also takes a bare VP8 or VP8L bitstream, so anything else is "not WebP" to it
        // only as an invalid bitstream: say so plainly when the RIFF header is missing.
        int riff = length >= 12 && memcmp(data, "RIFF", 4) == 0 && memcmp(data + 8, "WEBP", 4) == 0;
        if (status == VP8_STATUS_BITSTREAM_ERROR && !riff) {
            apc_report_set_message(report, "not a WebP file (no RIFF/WEBP header, nor a bare VP8/VP8L bitstream)");
            return APC_ERR_CORRUPT;
        }
        return apc_webp_failure(status, "WebP header", report);
    }
    const WebPBitstreamFeatures *features = &file->features;
    if (features->width <= 0 || features->height <= 0) {
        apc_report_set_message(report, "the WebP header declares an empty image");
        return APC_ERR_CORRUPT;
    }
    if (apc_webp_over_limits(limits, (uint32_t)features->width, (uint32_t)features->height)) {
        char message[APC_MESSAGE_CAPACITY];
        snprintf(message, sizeof message, "the image's declared size (%d x %d) exceeds the size limits or pixel budget",
                 features->width, features->height);
        apc_report_set_message(report, message);
        return APC_ERR_TOO_LARGE;
    }
    // The whole container, parsed without allocating any image: every chunk must be complete.
    WebPData whole = {data, length};
    WebPDemuxState state = WEBP_DEMUX_PARSE_ERROR;
    file->demux = WebPDemuxPartial(&whole, &state);
    if (file->demux == NULL || state != WEBP_DEMUX_DONE) {
        apc_webp_close(file);
        if (state == WEBP_DEMUX_PARSE_ERROR) {
            apc_report_set_message(report, "WebP container: invalid chunk layout");
            return APC_ERR_CORRUPT;
        }
        apc_report_set_message(report, "WebP container: the data ends before the last chunk");
        return APC_ERR_TRUNCATED;
    }
    if (WebPDemuxGetI(file->demux, WEBP_FF_CANVAS_WIDTH) != (uint32_t)features->width ||
        WebPDemuxGetI(file->demux, WEBP_FF_CANVAS_HEIGHT) != (uint32_t)features->height) {
        apc_webp_close(file);
        apc_report_set_message(report, "WebP container: the canvas size differs from the image's");
        return APC_ERR_CORRUPT;
    }
    if (features->has_animation) file->frames = WebPDemuxGetI(file->demux, WEBP_FF_FRAME_COUNT);
    return APC_OK;
}

/// Page -1 or 0 is the image (a still's only one, an animation's first frame as composited).
/// A later frame of an animation is valid but not decoded (yet): APC_ERR_UNSUPPORTED.
static int32_t apc_webp_check_page(const apc_webp_file *file, int32_t page, apc_report *report) {
    if (page == -1 || page == 0) return APC_OK;
    char message[APC_MESSAGE_CAPACITY];
    if (page < -1 || (uint32_t)page >= (file->frames > 0 ? file->frames : 1)) {
        snprintf(message, sizeof message, "page %d does not exist: the WebP has %u image%s", (int)page,
                 file->frames > 0 ? file->frames : 1, file->frames > 1 ? "s" : "");
        apc_report_set_message(report, message);
        return APC_ERR_INVALID_ARGUMENT;
    }
    snprintf(message, sizeof message,
             "frame %d of the animated WebP: only the first frame (page -1 or 0) is decoded", (int)page);
    apc_report_set_message(report, message);
    return APC_ERR_UNSUPPORTED;
}

/// The payload of the file's first chunk named `fourcc`, or NULL.
static const uint8_t *apc_webp_chunk(const apc_webp_file *file, const char *fourcc, size_t *size) {
    WebPChunkIterator iterator;
    const uint8_t *bytes = NULL;
    *size = 0;
    if (WebPDemuxGetChunk(file->demux, fourcc, 1, &iterator)) {
        // The payload points into the caller's data, which outlives the iterator.
        bytes = iterator.chunk.bytes;
        *size = iterator.chunk.size;
        WebPDemuxReleaseChunkIterator(&iterator);
    }
    return bytes;
}

/// The EXIF chunk as a TIFF structure: some writers put "Exif\0\0" before it, as in JPEG's APP1.
static const uint8_t *apc_webp_exif(const apc_webp_file *file, size_t *size) {
    const uint8_t *exif = apc_webp_chunk(file, "EXIF", size);
    if (exif != NULL && *size >= 6 && memcmp(exif, "Exif\0\0", 6) == 0) {
        exif += 6;
        *size -= 6;
    }
    return exif;
}

int32_t apc_webp_read_header(const uint8_t *data, size_t length, const apc_limits *limits,
                             int32_t page, apc_header *header, apc_report *report) {
    apc_report_reset(report);
    if (header == NULL) {
        apc_report_set_message(report, "no header to fill");
        return APC_ERR_INVALID_ARGUMENT;
    }
    memset(header, 0, sizeof *header);
    apc_webp_file file;
    int32_t status = apc_webp_open(data, length, limits, &file, report);
    if (status != APC_OK) return status;
    status = apc_webp_check_page(&file, page, report);
    if (status != APC_OK) {
        apc_webp_close(&file);
        return status;
    }
    const WebPBitstreamFeatures *features = &file.features;
    header->format = APC_FORMAT_WEBP;
    header->width = (uint32_t)features->width;
    header->height = (uint32_t)features->height;
    header->output_width = header->width;
    header->output_height = header->height;
    // An animation's alpha is the VP8X flag: its first frame may cover only part of the canvas,
    // and what it leaves uncovered is transparent.
    header->has_alpha = features->has_alpha != 0;
    header->channels = header->has_alpha ? 4 : 3;
    header->bit_depth = 8;
    header->interlaced = 0;
    header->color_space = header->has_alpha ? APC_COLOR_RGBA : APC_COLOR_RGB;
    header->frames = file.frames;
    size_t size = 0;
    header->has_icc = apc_webp_chunk(&file, "ICCP", &size) != NULL && size > 0;
    const uint8_t *exif = apc_webp_exif(&file, &size);
    header->orientation = exif != NULL ? apc_exif_orientation(exif, size) : 0;
    apc_webp_close(&file);
    return APC_OK;
}

/// A still image, at its size or scaled by libwebp as it decodes, straight into the caller's rows.
static int32_t apc_webp_decode_still(const uint8_t *data, size_t length, const apc_webp_file *file,
                                     uint32_t width, uint32_t height, uint8_t *pixels, size_t row_bytes,
                                     size_t capacity, apc_report *report) {
    WebPDecoderConfig config;
    if (!WebPInitDecoderConfig(&config)) {
        apc_report_set_message(report, "libwebp's decoder does not match the headers built against");
        return APC_ERR_UNSUPPORTED;
    }
    config.input = file->features;
    config.output.colorspace = MODE_RGBA;  // straight alpha, 255 where the image has none
    config.output.is_external_memory = 1;
    config.output.u.RGBA.rgba = pixels;
    config.output.u.RGBA.stride = (int)row_bytes;
    config.output.u.RGBA.size = capacity;
    if (width != (uint32_t)file->features.width || height != (uint32_t)file->features.height) {
        // libwebp's own shrink-on-load (as libvips' thumbnails): the rescaler runs on each decoded
        // row, so the image is never held at full size (VP8L still keeps its full-size ARGB rows,
        // within the budget checked on the declared size). A scaled decode turns off the fancy
        // chroma upsampling and, below 3/4 of the size, the loop filter, as dwebp -scale does.
        config.options.use_scaling = 1;
        config.options.scaled_width = (int)width;
        config.options.scaled_height = (int)height;
    }
    VP8StatusCode status = WebPDecode(data, length, &config);
    WebPFreeDecBuffer(&config.output);  // external memory: frees nothing of the caller's
    if (status != VP8_STATUS_OK) return apc_webp_failure(status, "WebP image", report);
    return APC_OK;
}

/// The first frame of an animation as WebPAnimDecoder composites it: on a transparent black
/// canvas (the ANIM background colour is a hint that libwebp, like browsers, does not paint).
///
/// Only the canvas size is accepted: WebPAnimDecoder has no scaled decode, and a scaled first
/// frame would mean a full canvas in memory plus a resize outside libwebp. WebPAnimDecoder holds
/// two canvases of its own (the frame and the disposed previous one, 8 bytes a pixel in all),
/// allocated after the budget check of the canvas size.
static int32_t apc_webp_decode_animation(const uint8_t *data, size_t length, const apc_webp_file *file,
                                         uint32_t width, uint32_t height, uint8_t *pixels, size_t row_bytes,
                                         apc_report *report) {
    if (width != (uint32_t)file->features.width || height != (uint32_t)file->features.height) {
        apc_report_set_message(report, "an animated WebP decodes at its canvas size only (no scaled decode)");
        return APC_ERR_INVALID_ARGUMENT;
    }
    WebPAnimDecoderOptions options;
    if (!WebPAnimDecoderOptionsInit(&options)) {
        apc_report_set_message(report, "libwebpdemux does not match the headers built against");
        return APC_ERR_UNSUPPORTED;
    }
    options.color_mode = MODE_RGBA;
    options.use_threads = 0;
    WebPData whole = {data, length};
    WebPAnimDecoder *decoder = WebPAnimDecoderNew(&whole, &options);
    if (decoder == NULL) {
        apc_report_set_message(report, "animated WebP: libwebpdemux cannot set up the animation decoder");
        return APC_ERR_CORRUPT;
    }
    WebPAnimInfo info;
    uint8_t *canvas = NULL;
    int timestamp = 0;
    int32_t status = APC_OK;
    if (!WebPAnimDecoderGetInfo(decoder, &info) || info.canvas_width != width || info.canvas_height != height) {
        apc_report_set_message(report, "animated WebP: the canvas size differs from the header's");
        status = APC_ERR_CORRUPT;
    } else if (!WebPAnimDecoderGetNext(decoder, &canvas, &timestamp) || canvas == NULL) {
        // WebPAnimDecoder gives no reason: ask the frame's own header for one (it allocates nothing).
        WebPIterator frame;
        VP8StatusCode reason = VP8_STATUS_BITSTREAM_ERROR;
        if (WebPDemuxGetFrame(file->demux, 1, &frame)) {
            WebPBitstreamFeatures features;
            reason = WebPGetFeatures(frame.fragment.bytes, frame.fragment.size, &features);
            if (reason == VP8_STATUS_OK) reason = VP8_STATUS_BITSTREAM_ERROR;
            WebPDemuxReleaseIterator(&frame);
        }
        status = apc_webp_failure(reason, "animated WebP, first frame", report);
    } else {
        size_t canvas_row = (size_t)width * 4;
        for (uint32_t y = 0; y < height; y++) {
            memcpy(pixels + (size_t)y * row_bytes, canvas + (size_t)y * canvas_row, canvas_row);
        }
    }
    WebPAnimDecoderDelete(decoder);
    return status;
}

int32_t apc_webp_decode_rgba(const uint8_t *data, size_t length, const apc_limits *limits,
                             int32_t page, uint32_t width, uint32_t height, uint8_t *pixels,
                             size_t row_bytes, size_t capacity, apc_report *report) {
    apc_report_reset(report);
    if (pixels == NULL || !apc_output_fits(width, height, row_bytes, capacity)) {
        apc_report_set_message(report, "the output buffer does not fit the image");
        return APC_ERR_INVALID_ARGUMENT;
    }
    if (row_bytes > INT_MAX || width > INT_MAX / 2 || height > INT_MAX / 2) {
        apc_report_set_message(report, "the output size is beyond libwebp's (rows of at most 2 GB)");
        return APC_ERR_INVALID_ARGUMENT;
    }
    if (apc_webp_over_limits(limits, width, height)) {
        apc_report_set_message(report, "the requested output size exceeds the size limits or pixel budget");
        return APC_ERR_TOO_LARGE;
    }
    apc_webp_file file;
    int32_t status = apc_webp_open(data, length, limits, &file, report);
    if (status != APC_OK) return status;
    status = apc_webp_check_page(&file, page, report);
    if (status == APC_OK) {
        if (file.features.has_animation) {
            status = apc_webp_decode_animation(data, length, &file, width, height, pixels, row_bytes, report);
        } else {
            status = apc_webp_decode_still(data, length, &file, width, height, pixels, row_bytes, capacity, report);
        }
    }
    apc_webp_close(&file);
    return status;
}

/// Copies a chunk's payload into new memory; a chunk over the limit is left out with a warning.
static int32_t apc_webp_copy_chunk(const uint8_t *bytes, size_t size, uint64_t limit, const char *name,
                                   uint8_t **copy, size_t *copy_length, apc_report *report) {
    if (bytes == NULL || size == 0) return APC_OK;
    if (size > limit) {
        char warning[128];
        snprintf(warning, sizeof warning, "the %s chunk (%zu bytes) is over the chunk limit: left out", name, size);
        apc_report_add_warning(report, warning);
        return APC_OK;
    }
    *copy = malloc(size);
    if (*copy == NULL) {
        apc_report_set_message(report, "cannot allocate the metadata");
        return APC_ERR_TOO_LARGE;
    }
    memcpy(*copy, bytes, size);
    *copy_length = size;
    return APC_OK;
}

int32_t apc_webp_read_metadata(const uint8_t *data, size_t length, const apc_limits *limits,
                               int32_t page, apc_metadata *metadata, apc_report *report) {
    apc_report_reset(report);
    if (metadata == NULL) {
        apc_report_set_message(report, "no metadata to fill");
        return APC_ERR_INVALID_ARGUMENT;
    }
    memset(metadata, 0, sizeof *metadata);
    apc_webp_file file;
    int32_t status = apc_webp_open(data, length, limits, &file, report);
    if (status != APC_OK) return status;
    status = apc_webp_check_page(&file, page, report);
    uint64_t limit = APC_WEBP_DEFAULT_CHUNK_MAX;
    if (limits != NULL && limits->max_chunk_bytes != 0) limit = limits->max_chunk_bytes;
    size_t size = 0;
    const uint8_t *bytes = NULL;
    if (status == APC_OK) {
        bytes = apc_webp_chunk(&file, "ICCP", &size);
        status = apc_webp_copy_chunk(bytes, size, limit, "ICCP", &metadata->icc, &metadata->icc_length, report);
    }
    if (status == APC_OK) {
        bytes = apc_webp_exif(&file, &size);
        status = apc_webp_copy_chunk(bytes, size, limit, "EXIF", &metadata->exif, &metadata->exif_length, report);
    }
    apc_webp_close(&file);
    if (status != APC_OK) apc_metadata_free(metadata);
    return status;
}

static char apc_webp_version[32];
static pthread_once_t apc_webp_version_once = PTHREAD_ONCE_INIT;

static void apc_webp_format_version(void) {
    int version = WebPGetDecoderVersion();
    snprintf(apc_webp_version, sizeof apc_webp_version, "libwebp %d.%d.%d", (version >> 16) & 0xff,
             (version >> 8) & 0xff, version & 0xff);
}

const char *apc_webp_library_version(void) {
    pthread_once(&apc_webp_version_once, apc_webp_format_version);
    return apc_webp_version;
}

// MARK: - Animation (apc_animation.h)
//
// Every frame as WebPAnimDecoder composites it (blending and disposal of the ANMF chunks, on a
// transparent black canvas). The handle owns a copy of the file, which WebPAnimDecoder reads
// from; the decoder holds two canvases of its own, allocated after the budget check of the
// canvas size.

struct apc_webp_animation {
    uint8_t *data;
    size_t length;
    WebPAnimDecoder *decoder;
    uint32_t width, height;
    int timestamp;    // the end of the frame given last, in milliseconds
};

void apc_webp_animation_close(apc_webp_animation *animation) {
    if (animation == NULL) return;
    WebPAnimDecoderDelete(animation->decoder);
    free(animation->data);
    free(animation);
}

int32_t apc_webp_animation_open(const uint8_t *data, size_t length, const apc_limits *limits, uint32_t max_frames,
                                apc_webp_animation **out, apc_animation_info *info, apc_report *report) {
    apc_report_reset(report);
    if (data == NULL || out == NULL || info == NULL) {
        apc_report_set_message(report, "invalid arguments to the WebP animation reader");
        return APC_ERR_INVALID_ARGUMENT;
    }
    *out = NULL;
    memset(info, 0, sizeof *info);
    apc_webp_file file;
    int32_t status = apc_webp_open(data, length, limits, &file, report);
    if (status != APC_OK) return status;
    uint32_t frames = file.frames;
    uint32_t plays = WebPDemuxGetI(file.demux, WEBP_FF_LOOP_COUNT);
    uint32_t flags = WebPDemuxGetI(file.demux, WEBP_FF_FORMAT_FLAGS);
    int animated = file.features.has_animation;
    apc_webp_close(&file);
    if (!animated) {
        apc_report_set_message(report, "the WebP is a still image, not an animation");
        return APC_ERR_INVALID_ARGUMENT;
    }
    if (frames == 0) {
        apc_report_set_message(report, "the animated WebP has no frame");
        return APC_ERR_CORRUPT;
    }
    if (max_frames != 0 && frames > max_frames) {
        char message[APC_MESSAGE_CAPACITY];
        snprintf(message, sizeof message, "the WebP has %u frames, the limit is %u", frames, max_frames);
        apc_report_set_message(report, message);
        return APC_ERR_TOO_LARGE;
    }
    apc_webp_animation *animation = (apc_webp_animation *)calloc(1, sizeof *animation);
    if (animation == NULL || (animation->data = (uint8_t *)malloc(length)) == NULL) {
        free(animation);
        apc_report_set_message(report, "cannot allocate the WebP animation reader");
        return APC_ERR_TOO_LARGE;
    }
    memcpy(animation->data, data, length);
    animation->length = length;
    WebPAnimDecoderOptions options;
    if (!WebPAnimDecoderOptionsInit(&options)) {
        apc_webp_animation_close(animation);
        apc_report_set_message(report, "libwebpdemux does not match the headers built against");
        return APC_ERR_UNSUPPORTED;
    }
    options.color_mode = MODE_RGBA;
    options.use_threads = 0;
    WebPData whole = {animation->data, length};
    animation->decoder = WebPAnimDecoderNew(&whole, &options);
    WebPAnimInfo anim;
    if (animation->decoder == NULL || !WebPAnimDecoderGetInfo(animation->decoder, &anim)) {
        apc_webp_animation_close(animation);
        apc_report_set_message(report, "animated WebP: libwebpdemux cannot set up the animation decoder");
        return APC_ERR_CORRUPT;
    }
    animation->width = anim.canvas_width;
    animation->height = anim.canvas_height;
    info->width = anim.canvas_width;
    info->height = anim.canvas_height;
    info->frames = anim.frame_count;
    info->plays = plays;
    info->has_alpha = (flags & ALPHA_FLAG) != 0;
    *out = animation;
    return APC_OK;
}

uint32_t apc_webp_animation_durations(apc_webp_animation *animation, uint32_t *durations, uint32_t capacity) {
    if (animation == NULL || durations == NULL) return 0;
    WebPData whole = {animation->data, animation->length};
    WebPDemuxer *demux = WebPDemux(&whole);
    if (demux == NULL) return 0;
    uint32_t count = 0;
    WebPIterator frame;
    if (WebPDemuxGetFrame(demux, 1, &frame)) {
        do {
            durations[count++] = frame.duration > 0 ? (uint32_t)frame.duration : 0;
        } while (count < capacity && WebPDemuxNextFrame(&frame));
        WebPDemuxReleaseIterator(&frame);
    }
    WebPDemuxDelete(demux);
    return count;
}

int32_t apc_webp_animation_next(apc_webp_animation *animation, uint8_t *pixels, size_t row_bytes, size_t capacity,
                                uint32_t *duration_ms, apc_report *report) {
    apc_report_reset(report);
    if (animation == NULL || pixels == NULL || duration_ms == NULL ||
        !apc_output_fits(animation->width, animation->height, row_bytes, capacity)) {
        apc_report_set_message(report, "invalid arguments to the WebP animation reader");
        return APC_ERR_INVALID_ARGUMENT;
    }
    if (!WebPAnimDecoderHasMoreFrames(animation->decoder)) {
        apc_report_set_message(report, "the WebP has no more frames");
        return APC_ERR_NO_SUCH_PAGE;
    }
    uint8_t *canvas = NULL;
    int timestamp = 0;
    if (!WebPAnimDecoderGetNext(animation->decoder, &canvas, &timestamp) || canvas == NULL) {
        apc_report_set_message(report, "animated WebP: a frame does not decode (invalid bitstream)");
        return APC_ERR_CORRUPT;
    }
    size_t canvas_row = (size_t)animation->width * 4;
    for (uint32_t y = 0; y < animation->height; y++) {
        memcpy(pixels + (size_t)y * row_bytes, canvas + (size_t)y * canvas_row, canvas_row);
    }
    *duration_ms = timestamp > animation->timestamp ? (uint32_t)(timestamp - animation->timestamp) : 0;
    animation->timestamp = timestamp;
    return APC_OK;
}
