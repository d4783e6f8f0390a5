// HEVC for libheif through FFmpeg's libavcodec: a libheif decoder plugin (heif_plugin.h) that
// libheif prefers to its own libde265 one for every HEVC item (a whole image, or each tile of a
// grid), opened on demand like the rest (dlopen of the soname of the headers built against).
//
// Why: Debian 12's libheif 1.15 decodes HEVC with libde265 1.0.11, which spends about twice the
// time of libavcodec's HEVC decoder on the same picture (its SIMD covers fewer of the transforms
// and predictions) and cannot use the wavefront rows that x265 and iPhones write; libheif gained
// an FFmpeg plugin of its own only in 1.17. FFmpeg's HEVC decoder is also the one OSS-Fuzz has run
// the longest. Both decoders are conformant, so the decoded samples are the same: the tests
// compare every HEIC of the corpus with libde265's pixels, exactly.
//
// - Data: libheif pushes the item's hvcC parameter sets and then its data, each NAL unit behind a
//   4-byte big-endian length (what libheif 1.15 writes and its own plugin reads); they are turned
//   into one Annex B packet (start codes), with FFmpeg's input padding, and sent whole.
// - Output: the decoded planes (4:0:0, 4:2:0, 4:2:2 or 4:4:4 at 8 to 16 bits) are copied into a
//   heif_image of the same layout, with the stream's colour description (VUI) as its nclx, as
//   libheif's libde265 plugin does; libheif then prefers the container's nclx when there is one.
//   A frame FFmpeg flags as corrupt, or that it decoded with errors, fails as a decoder error.
// - Threads: FFmpeg's slice threads, which decode the rows of a wavefront (WPP) stream in
//   parallel; libheif decodes the tiles of a grid on threads of its own.
// - When libavcodec (or its HEVC decoder) is missing, nothing is registered and libheif keeps
//   libde265.
#include "apc_hevc.h"

#include <libavcodec/avcodec.h>
#include <libavutil/frame.h>
#include <libavutil/log.h>
#include <libavutil/macros.h>
#include <libavutil/pixfmt.h>
#include <libheif/heif.h>
#include <libheif/heif_plugin.h>

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HEVC_AVCODEC(X)                                                                             \
    X(avcodec_find_decoder) X(avcodec_alloc_context3) X(avcodec_open2) X(avcodec_free_context)     \
    X(avcodec_send_packet) X(avcodec_receive_frame) X(av_packet_alloc) X(av_packet_free)           \
    X(avcodec_version)
#define HEVC_AVUTIL(X) X(av_frame_alloc) X(av_frame_free) X(av_log_set_level)

static struct {
#define HEVC_MEMBER(name) __typeof__(&name) name;
    HEVC_AVCODEC(HEVC_MEMBER)
    HEVC_AVUTIL(HEVC_MEMBER)
#undef HEVC_MEMBER
} av;

static const apc_hevc_heif_functions *hf;  // libheif's, handed over by apc_heif.c
static const AVCodec *hevc_codec;
static char hevc_version[64];

// ---- The plugin ---------------------------------------------------------------------------------

typedef struct {
    uint8_t *stream;     // Annex B, then AV_INPUT_BUFFER_PADDING_SIZE zero bytes
    size_t length;
    size_t capacity;
} apc_hevc_decoder;

static struct heif_error apc_hevc_error(enum heif_error_code code, enum heif_suberror_code subcode,
                                        const char *message) {
    struct heif_error error = {code, subcode, message};
    return error;
}

static const struct heif_error apc_hevc_ok = {heif_error_Ok, heif_suberror_Unspecified, "Success"};

static const char *apc_hevc_plugin_name(void) { return hevc_version; }

static int apc_hevc_supports(enum heif_compression_format format) {
    return format == heif_compression_HEVC ? 150 : 0;  // above libde265's 100
}

static struct heif_error apc_hevc_new(void **decoder) {
    apc_hevc_decoder *d = calloc(1, sizeof *d);
    if (d == NULL) return apc_hevc_error(heif_error_Memory_allocation_error, heif_suberror_Unspecified, "out of memory");
    *decoder = d;
    return apc_hevc_ok;
}

static void apc_hevc_free(void *decoder) {
    apc_hevc_decoder *d = decoder;
    if (d == NULL) return;
    free(d->stream);
    free(d);
}

/// Makes room for `more` bytes plus the padding.
static int apc_hevc_reserve(apc_hevc_decoder *d, size_t more) {
    if (more > SIZE_MAX / 2 - d->length - AV_INPUT_BUFFER_PADDING_SIZE) return 0;
    size_t needed = d->length + more + AV_INPUT_BUFFER_PADDING_SIZE;
    if (needed <= d->capacity) return 1;
    size_t capacity = d->capacity ? d->capacity : 4096;
    while (capacity < needed) capacity *= 2;
    uint8_t *stream = realloc(d->stream, capacity);
    if (stream == NULL) return 0;
    d->stream = stream;
    d->capacity = capacity;
    return 1;
}

static struct heif_error apc_hevc_push(void *decoder, const void *data, size_t size) {
    apc_hevc_decoder *d = decoder;
    const uint8_t *p = data, *end = p + size;
    while (p < end) {
        if (end - p < 4)
            return apc_hevc_error(heif_error_Decoder_plugin_error, heif_suberror_End_of_data,
                                  "the HEVC data ends inside a NAL unit's length");
        size_t nal = ((size_t)p[0] << 24) | ((size_t)p[1] << 16) | ((size_t)p[2] << 8) | (size_t)p[3];
        p += 4;
        if (nal > (size_t)(end - p))
            return apc_hevc_error(heif_error_Decoder_plugin_error, heif_suberror_End_of_data,
                                  "a NAL unit of the HEVC data is longer than the data");
        if (!apc_hevc_reserve(d, nal + 4))
            return apc_hevc_error(heif_error_Memory_allocation_error, heif_suberror_Unspecified, "out of memory");
        static const uint8_t start_code[4] = {0, 0, 0, 1};
        memcpy(d->stream + d->length, start_code, 4);
        memcpy(d->stream + d->length + 4, p, nal);
        d->length += nal + 4;
        p += nal;
    }
    return apc_hevc_ok;
}

/// The heif layout of a decoded frame's pixel format: 1 with it, 0 when libheif has none.
static int apc_hevc_layout(enum AVPixelFormat format, enum heif_chroma *chroma, int *bits) {
    switch (format) {
    case AV_PIX_FMT_GRAY8: *chroma = heif_chroma_monochrome; *bits = 8; return 1;
    case AV_PIX_FMT_GRAY10LE: *chroma = heif_chroma_monochrome; *bits = 10; return 1;
    case AV_PIX_FMT_GRAY12LE: *chroma = heif_chroma_monochrome; *bits = 12; return 1;
    // FFmpeg names full-range 8-bit streams YUVJ (the range also comes in the frame's color_range)
    case AV_PIX_FMT_YUV420P: case AV_PIX_FMT_YUVJ420P: *chroma = heif_chroma_420; *bits = 8; return 1;
    case AV_PIX_FMT_YUV420P10LE: *chroma = heif_chroma_420; *bits = 10; return 1;
    case AV_PIX_FMT_YUV420P12LE: *chroma = heif_chroma_420; *bits = 12; return 1;
    case AV_PIX_FMT_YUV422P: case AV_PIX_FMT_YUVJ422P: *chroma = heif_chroma_422; *bits = 8; return 1;
    case AV_PIX_FMT_YUV422P10LE: *chroma = heif_chroma_422; *bits = 10; return 1;
    case AV_PIX_FMT_YUV422P12LE: *chroma = heif_chroma_422; *bits = 12; return 1;
    case AV_PIX_FMT_YUV444P: case AV_PIX_FMT_YUVJ444P: *chroma = heif_chroma_444; *bits = 8; return 1;
    case AV_PIX_FMT_YUV444P10LE: *chroma = heif_chroma_444; *bits = 10; return 1;
    case AV_PIX_FMT_YUV444P12LE: *chroma = heif_chroma_444; *bits = 12; return 1;
    default: return 0;
    }
}

/// Copies the decoded frame into a new heif_image of the same layout.
static struct heif_error apc_hevc_image(const AVFrame *frame, struct heif_image **out) {
    enum heif_chroma chroma;
    int bits;
    if (!apc_hevc_layout((enum AVPixelFormat)frame->format, &chroma, &bits))
        return apc_hevc_error(heif_error_Unsupported_feature, heif_suberror_Unsupported_color_conversion,
                              "the HEVC stream's sample layout has no HEIF equivalent");
    int width = frame->width, height = frame->height;
    if (width <= 0 || height <= 0)
        return apc_hevc_error(heif_error_Decoder_plugin_error, heif_suberror_Unspecified, "the HEVC frame has no size");
    enum heif_colorspace colorspace = chroma == heif_chroma_monochrome ? heif_colorspace_monochrome : heif_colorspace_YCbCr;
    struct heif_image *image = NULL;
    struct heif_error error = hf->heif_image_create(width, height, colorspace, chroma, &image);
    if (error.code != heif_error_Ok) return error;
    int planes = chroma == heif_chroma_monochrome ? 1 : 3;
    static const enum heif_channel channels[3] = {heif_channel_Y, heif_channel_Cb, heif_channel_Cr};
    int shift_x = chroma == heif_chroma_420 || chroma == heif_chroma_422;
    int shift_y = chroma == heif_chroma_420;
    size_t sample = bits > 8 ? 2 : 1;
    for (int i = 0; i < planes; i++) {
        int w = i == 0 ? width : (width + shift_x) >> shift_x;
        int h = i == 0 ? height : (height + shift_y) >> shift_y;
        error = hf->heif_image_add_plane(image, channels[i], w, h, bits);
        if (error.code != heif_error_Ok) {
            hf->heif_image_release(image);
            return error;
        }
        int stride = 0;
        uint8_t *plane = hf->heif_image_get_plane(image, channels[i], &stride);
        if (plane == NULL || stride < (int)((size_t)w * sample) || frame->data[i] == NULL ||
            frame->linesize[i] < (int)((size_t)w * sample)) {
            hf->heif_image_release(image);
            return apc_hevc_error(heif_error_Decoder_plugin_error, heif_suberror_Unspecified,
                                  "the HEVC frame's planes are smaller than its size");
        }
        for (int y = 0; y < h; y++)
            memcpy(plane + (size_t)y * (size_t)stride, frame->data[i] + (size_t)y * (size_t)frame->linesize[i],
                   (size_t)w * sample);
    }
    // The stream's colour description, as libheif's libde265 plugin sets it.
    struct heif_color_profile_nclx *nclx = hf->heif_nclx_color_profile_alloc();
    if (nclx != NULL) {
        nclx->color_primaries = (enum heif_color_primaries)frame->color_primaries;
        nclx->transfer_characteristics = (enum heif_transfer_characteristics)frame->color_trc;
        nclx->matrix_coefficients = (enum heif_matrix_coefficients)frame->colorspace;
        nclx->full_range_flag = frame->color_range == AVCOL_RANGE_JPEG;
        hf->heif_image_set_nclx_color_profile(image, nclx);
        hf->heif_nclx_color_profile_free(nclx);
    }
    *out = image;
    return apc_hevc_ok;
}

static struct heif_error apc_hevc_decode(void *decoder, struct heif_image **out) {
    apc_hevc_decoder *d = decoder;
    *out = NULL;
    if (d->length == 0)
        return apc_hevc_error(heif_error_Decoder_plugin_error, heif_suberror_End_of_data, "the HEVC item has no data");
    memset(d->stream + d->length, 0, AV_INPUT_BUFFER_PADDING_SIZE);
    if (d->length > INT32_MAX)
        return apc_hevc_error(heif_error_Memory_allocation_error, heif_suberror_Security_limit_exceeded,
                              "the HEVC item is larger than 2 GB");
    AVCodecContext *context = av.avcodec_alloc_context3(hevc_codec);
    AVPacket *packet = av.av_packet_alloc();
    AVFrame *frame = av.av_frame_alloc();
    struct heif_error result = apc_hevc_ok;
    if (context == NULL || packet == NULL || frame == NULL) {
        result = apc_hevc_error(heif_error_Memory_allocation_error, heif_suberror_Unspecified, "out of memory");
        goto done;
    }
    context->thread_type = FF_THREAD_SLICE;
    context->thread_count = 0;  // one per processor the process may use
    if (av.avcodec_open2(context, hevc_codec, NULL) < 0) {
        result = apc_hevc_error(heif_error_Decoder_plugin_error, heif_suberror_Unspecified,
                                "libavcodec could not open its HEVC decoder");
        goto done;
    }
    packet->data = d->stream;
    packet->size = (int)d->length;
    int sent = av.avcodec_send_packet(context, packet);
    int drained = av.avcodec_send_packet(context, NULL);
    int received = av.avcodec_receive_frame(context, frame);
    if (received < 0) {
        result = apc_hevc_error(heif_error_Decoder_plugin_error, heif_suberror_Unspecified,
                                sent < 0 || drained < 0 ? "libavcodec could not decode the HEVC data"
                                                        : "the HEVC data holds no complete picture");
        goto done;
    }
    if ((frame->flags & AV_FRAME_FLAG_CORRUPT) || frame->decode_error_flags != 0) {
        result = apc_hevc_error(heif_error_Decoder_plugin_error, heif_suberror_Unspecified,
                                "the HEVC picture is corrupt");
        goto done;
    }
    result = apc_hevc_image(frame, out);
done:
    av.av_frame_free(&frame);
    av.av_packet_free(&packet);
    av.avcodec_free_context(&context);
    return result;
}

static const struct heif_decoder_plugin apc_hevc_plugin = {
    .plugin_api_version = 1,
    .get_plugin_name = apc_hevc_plugin_name,
    .init_plugin = NULL,
    .deinit_plugin = NULL,
    .does_support_format = apc_hevc_supports,
    .new_decoder = apc_hevc_new,
    .free_decoder = apc_hevc_free,
    .push_data = apc_hevc_push,
    .decode_image = apc_hevc_decode,
};

// ---- Opening libavcodec and registering -----------------------------------------------------------

static const char *const hevc_avcodec_soname = "libavcodec.so." AV_STRINGIFY(LIBAVCODEC_VERSION_MAJOR);
static const char *const hevc_avutil_soname = "libavutil.so." AV_STRINGIFY(LIBAVUTIL_VERSION_MAJOR);

/// Opens libavcodec and libavutil and resolves the functions: 1 when every one was found.
static int apc_hevc_load(void) {
    void *avutil = dlopen(hevc_avutil_soname, RTLD_NOW | RTLD_LOCAL);
    void *avcodec = avutil != NULL ? dlopen(hevc_avcodec_soname, RTLD_NOW | RTLD_LOCAL) : NULL;
    if (avcodec == NULL) return 0;
#define HEVC_RESOLVE_AVCODEC(name) if (!(*(void **)&av.name = dlsym(avcodec, #name))) return 0;
#define HEVC_RESOLVE_AVUTIL(name) if (!(*(void **)&av.name = dlsym(avutil, #name))) return 0;
    HEVC_AVCODEC(HEVC_RESOLVE_AVCODEC)
    HEVC_AVUTIL(HEVC_RESOLVE_AVUTIL)
#undef HEVC_RESOLVE_AVCODEC
#undef HEVC_RESOLVE_AVUTIL
    return 1;
}

int apc_hevc_register(const apc_hevc_heif_functions *functions) {
    if (getenv("ASSETPIPE_HEVC_LIBDE265") != NULL) return 0;
    if (functions == NULL || !apc_hevc_load()) return 0;
    hevc_codec = av.avcodec_find_decoder(AV_CODEC_ID_HEVC);
    if (hevc_codec == NULL) return 0;
    // FFmpeg prints its warnings on standard error, which in a service is its log: quiet (the
    // video frame decoder sets the same level).
    av.av_log_set_level(AV_LOG_QUIET);
    unsigned version = av.avcodec_version();
    snprintf(hevc_version, sizeof hevc_version, "libavcodec %u.%u.%u", version >> 16, (version >> 8) & 0xff,
             version & 0xff);
    hf = functions;
    struct heif_error error = functions->heif_register_decoder_plugin(&apc_hevc_plugin);
    return error.code == heif_error_Ok;
}

const char *apc_hevc_version(void) { return hevc_version; }
