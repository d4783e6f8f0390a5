// CAssetVideoFrame: what its entry points share. See avf_ffmpeg.h.
#include "avf_ffmpeg.h"

#include <dlfcn.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// FFmpeg's libraries are opened on the first decode, not linked: they and what they pull in (about
// 130 shared libraries on Debian 12, some 25 MB of resident pages) would otherwise be mapped and
// relocated in every process of the package, the service included, which decodes frames in its
// render workers. The names are the sonames of the headers built against, so the ABI is the one
// compiled for.
struct avf_functions avf_ff;

static const char *const avf_library_names[] = {
    "libavutil.so." AV_STRINGIFY(LIBAVUTIL_VERSION_MAJOR),
    "libswscale.so." AV_STRINGIFY(LIBSWSCALE_VERSION_MAJOR),
    "libavcodec.so." AV_STRINGIFY(LIBAVCODEC_VERSION_MAJOR),
    "libavformat.so." AV_STRINGIFY(LIBAVFORMAT_VERSION_MAJOR),
};
enum { avf_avutil, avf_swscale, avf_avcodec, avf_avformat, avf_library_count };

static pthread_once_t avf_load_once = PTHREAD_ONCE_INIT;
// Empty when the libraries and every function were found; else why not.
static char avf_load_failure[AVF_MESSAGE_CAPACITY];

static void avf_load(void) {
    void *libraries[avf_library_count];
    for (int i = 0; i < avf_library_count; i++) {
        libraries[i] = dlopen(avf_library_names[i], RTLD_NOW | RTLD_LOCAL);
        if (!libraries[i]) {
            const char *reason = dlerror();
            snprintf(avf_load_failure, sizeof avf_load_failure, "FFmpeg's %s could not be loaded (%s)",
                     avf_library_names[i], reason ? reason : "unknown reason");
            return;
        }
    }
#define AVF_RESOLVE(library, name)                                                                      \
    if (!(*(void **)&avf_ff.name = dlsym(libraries[avf_##library], #name))) {                               \
        snprintf(avf_load_failure, sizeof avf_load_failure, "FFmpeg's %s has no %s",                    \
                 avf_library_names[avf_##library], #name);                                              \
        return;                                                                                         \
    }
    AVF_FUNCTIONS(AVF_RESOLVE)
#undef AVF_RESOLVE
    // FFmpeg prints its warnings on standard error, which in a service is its log: quiet, the typed
    // errors carry what matters (this sets FFmpeg's level for the whole process).
    avf_ff.av_log_set_level(AV_LOG_QUIET);
}

const char *avf_error_string(char *buffer, int code) {
    avf_ff.av_strerror(code, buffer, AV_ERROR_MAX_STRING_SIZE);
    return buffer;
}


// Only these demuxers run, whatever the bytes look like.
static const char *const avf_formats = "mov,mp4,m4a,3gp,3g2,mj2,matroska,webm";

// Only these decoders run: the video codecs MP4 and WebM carry in practice.
static const enum AVCodecID avf_codecs[] = {
    AV_CODEC_ID_H264, AV_CODEC_ID_HEVC, AV_CODEC_ID_VP8, AV_CODEC_ID_VP9, AV_CODEC_ID_AV1,
    AV_CODEC_ID_MPEG4, AV_CODEC_ID_MPEG2VIDEO, AV_CODEC_ID_MPEG1VIDEO, AV_CODEC_ID_H263,
    AV_CODEC_ID_MJPEG, AV_CODEC_ID_THEORA, AV_CODEC_ID_PRORES,
};


static int avf_read_packet(void *opaque, uint8_t *buffer, int size) {
    avf_io *io = opaque;
    if (io->position >= io->source->size) return AVERROR_EOF;
    int64_t left = io->source->size - io->position;
    int32_t count = size < left ? size : (int32_t)left;
    int32_t n = io->source->read(io->source->context, buffer, count, io->position);
    if (n < 0 || n > count) {
        io->failed = 1;
        return AVERROR(EIO);
    }
    if (n == 0) return AVERROR_EOF;
    io->position += n;
    io->bytes_read += n;
    return n;
}

static int64_t avf_seek(void *opaque, int64_t offset, int whence) {
    avf_io *io = opaque;
    switch (whence & ~AVSEEK_FORCE) {
    case AVSEEK_SIZE: return io->source->size;
    case SEEK_SET: break;
    case SEEK_CUR: offset += io->position; break;
    case SEEK_END: offset += io->source->size; break;
    default: return AVERROR(EINVAL);
    }
    if (offset < 0) return AVERROR(EINVAL);
    io->position = offset;
    return offset;
}

int32_t avf_fail(char *message, int32_t status, const char *format, ...) {
    va_list arguments;
    va_start(arguments, format);
    vsnprintf(message, AVF_MESSAGE_CAPACITY, format, arguments);
    va_end(arguments);
    return status;
}

static int avf_codec_allowed(enum AVCodecID id) {
    for (size_t i = 0; i < sizeof avf_codecs / sizeof avf_codecs[0]; i++) {
        if (avf_codecs[i] == id) return 1;
    }
    return 0;
}

// The video stream ffmpeg's command line picks: the largest picture, a default one first among
// equals; cover pictures are not video.
static int avf_best_video_stream(AVFormatContext *format) {
    int best = -1;
    int64_t best_score = -1;
    for (unsigned i = 0; i < format->nb_streams; i++) {
        AVStream *stream = format->streams[i];
        if (stream->codecpar->codec_type != AVMEDIA_TYPE_VIDEO) continue;
        if (stream->disposition & AV_DISPOSITION_ATTACHED_PIC) continue;
        int64_t score = (int64_t)stream->codecpar->width * stream->codecpar->height
            + ((stream->disposition & AV_DISPOSITION_DEFAULT) ? 1 : 0);
        if (score > best_score) {
            best_score = score;
            best = (int)i;
        }
    }
    return best;
}

// The clockwise rotation in degrees the stream's display matrix asks for: 0, 90, 180 or 270
// (ffmpeg's autorotation turns only by these).
int32_t avf_rotation(AVStream *stream) {
    const uint8_t *matrix = avf_ff.av_stream_get_side_data(stream, AV_PKT_DATA_DISPLAYMATRIX, NULL);
    if (!matrix) return 0;
    double theta = -round(avf_ff.av_display_rotation_get((const int32_t *)matrix));
    if (isnan(theta)) return 0;
    theta -= 360 * floor(theta / 360 + 0.9 / 360);
    if (fabs(theta - 90) < 1.0) return 90;
    if (fabs(theta - 180) < 1.0) return 180;
    if (fabs(theta - 270) < 1.0) return 270;
    return 0;
}

// Turns `pixels` (width x height RGBA) clockwise by `rotation` into a new buffer.
uint8_t *avf_rotate(const uint8_t *pixels, int32_t width, int32_t height, int32_t rotation) {
    uint8_t *turned = malloc((size_t)width * height * 4);
    if (!turned) return NULL;
    const uint32_t *from = (const uint32_t *)pixels;
    uint32_t *to = (uint32_t *)turned;
    for (int32_t y = 0; y < height; y++) {
        for (int32_t x = 0; x < width; x++) {
            uint32_t pixel = from[(size_t)y * width + x];
            switch (rotation) {
            case 90: to[(size_t)x * height + (height - 1 - y)] = pixel; break;
            case 180: to[(size_t)(height - 1 - y) * width + (width - 1 - x)] = pixel; break;
            default: to[(size_t)(width - 1 - x) * height + y] = pixel; break;  // 270
            }
        }
    }
    return turned;
}

// `side * numerator / denominator`, rounded, at least 1.
int32_t avf_scaled(int32_t side, int32_t numerator, int32_t denominator) {
    double value = round((double)side * numerator / denominator);
    if (value < 1) return 1;
    if (value > INT32_MAX) return INT32_MAX;
    return (int32_t)value;
}

// Converts `frame` to RGBA at `width` x `height` with swscale's bicubic filter and the frame's own
// colour matrix and range, as ffmpeg's scale filter does.
int32_t avf_convert(const AVFrame *frame, int32_t width, int32_t height, uint8_t **out, char *message) {
    struct SwsContext *sws = avf_ff.sws_getContext(frame->width, frame->height, frame->format, width, height,
                                            AV_PIX_FMT_RGBA, SWS_BICUBIC, NULL, NULL, NULL);
    if (!sws) {
        return avf_fail(message, AVF_ERR_DECODE, "swscale cannot convert %s to RGBA",
                        avf_ff.av_get_pix_fmt_name(frame->format) ? avf_ff.av_get_pix_fmt_name(frame->format) : "this pixel format");
    }
    int *inverse = NULL, *table = NULL, source_range = 0, destination_range = 0, brightness = 0, contrast = 0, saturation = 0;
    if (avf_ff.sws_getColorspaceDetails(sws, &inverse, &source_range, &table, &destination_range, &brightness, &contrast,
                                 &saturation) >= 0) {
        int space = frame->colorspace == AVCOL_SPC_UNSPECIFIED ? SWS_CS_DEFAULT : (int)frame->colorspace;
        const int *coefficients = avf_ff.sws_getCoefficients(space);
        int full = frame->color_range == AVCOL_RANGE_JPEG ? 1 : source_range;
        avf_ff.sws_setColorspaceDetails(sws, coefficients, full, coefficients, destination_range, brightness, contrast,
                                 saturation);
    }
    // swscale writes whole SIMD blocks: rows of an aligned stride, with room after the last one
    int stride = FFALIGN(width * 4, 64);
    uint8_t *scaled = avf_ff.av_malloc((size_t)stride * height + 64);
    uint8_t *pixels = malloc((size_t)width * height * 4);
    if (!scaled || !pixels) {
        avf_ff.av_free(scaled);
        free(pixels);
        avf_ff.sws_freeContext(sws);
        return avf_fail(message, AVF_ERR_MEMORY, "no memory for a %dx%d frame", width, height);
    }
    uint8_t *planes[4] = {scaled, NULL, NULL, NULL};
    int strides[4] = {stride, 0, 0, 0};
    int rows = avf_ff.sws_scale(sws, (const uint8_t *const *)frame->data, frame->linesize, 0, frame->height, planes, strides);
    avf_ff.sws_freeContext(sws);
    if (rows != height) {
        avf_ff.av_free(scaled);
        free(pixels);
        return avf_fail(message, AVF_ERR_DECODE, "swscale wrote %d of %d rows", rows, height);
    }
    for (int32_t y = 0; y < height; y++) memcpy(pixels + (size_t)y * width * 4, scaled + (size_t)y * stride, (size_t)width * 4);
    avf_ff.av_free(scaled);
    *out = pixels;
    return AVF_OK;
}

int32_t avf_libraries(char message[AVF_MESSAGE_CAPACITY]) {
    pthread_once(&avf_load_once, avf_load);
    return avf_load_failure[0] ? avf_fail(message, AVF_ERR_UNAVAILABLE, "%s", avf_load_failure) : AVF_OK;
}

int32_t avf_session_open(avf_session *session, const avf_source *source, int64_t max_pixels, int32_t threads,
                         char container[64], char codec_name[32], char message[AVF_MESSAGE_CAPACITY]) {
    memset(session, 0, sizeof *session);
    message[0] = 0;
    int32_t status = avf_libraries(message);
    if (status != AVF_OK) return status;
    if (!source || !source->read || source->size <= 0) return avf_fail(message, AVF_ERR_CONTAINER, "no data");
    session->io.source = source;

    uint8_t *buffer = avf_ff.av_malloc(AVF_IO_BUFFER);
    session->format = avf_ff.avformat_alloc_context();
    session->packet = avf_ff.av_packet_alloc();
    session->frame = avf_ff.av_frame_alloc();
    session->kept = avf_ff.av_frame_alloc();
    if (buffer) {
        session->avio = avf_ff.avio_alloc_context(buffer, AVF_IO_BUFFER, 0, &session->io, avf_read_packet, NULL, avf_seek);
    }
    if (!buffer || !session->format || !session->avio || !session->packet || !session->frame || !session->kept) {
        if (!session->avio) avf_ff.av_free(buffer);
        return avf_fail(message, AVF_ERR_MEMORY, "no memory to open the container");
    }
    AVFormatContext *format = session->format;
    format->pb = session->avio;
    format->flags |= AVFMT_FLAG_CUSTOM_IO;
    format->format_whitelist = avf_ff.av_strdup(avf_formats);
    format->protocol_whitelist = avf_ff.av_strdup("");
    format->max_streams = 64;
    if (!format->format_whitelist || !format->protocol_whitelist) {
        return avf_fail(message, AVF_ERR_MEMORY, "no memory to open the container");
    }
    int code = avf_ff.avformat_open_input(&session->format, NULL, NULL, NULL);
    if (code < 0) {
        session->format = NULL;  // freed by avformat_open_input
        return session->io.failed ? avf_fail(message, AVF_ERR_READ, "a read failed while opening the container")
                                  : avf_fail(message, AVF_ERR_CONTAINER, "not an MP4 or WebM container, or a broken one (%s)",
                                             avf_error_text(code));
    }
    format = session->format;
    snprintf(container, 64, "%s", format->iformat->name);
    // the streams' start times (the container's start, which a time counts from, as ffmpeg's -ss
    // does) and a fragmented MP4's first index entries come from the first packets, read with
    // ffmpeg's own limits (a shorter analysis seeks a fragmented MP4 elsewhere than ffmpeg does)
    if ((code = avf_ff.avformat_find_stream_info(format, NULL)) < 0 && session->io.failed) {
        return avf_fail(message, AVF_ERR_READ, "a read failed while reading the streams' first packets");
    }

    int index = avf_best_video_stream(format);
    if (index < 0) return avf_fail(message, AVF_ERR_NO_VIDEO, "the container has no video stream");
    AVStream *stream = format->streams[index];
    session->index = index;
    session->stream = stream;
    for (unsigned i = 0; i < format->nb_streams; i++) {
        if ((int)i != index) format->streams[i]->discard = AVDISCARD_ALL;
    }
    const AVCodec *codec = avf_ff.avcodec_find_decoder(stream->codecpar->codec_id);
    if (!codec || !avf_codec_allowed(stream->codecpar->codec_id)) {
        return avf_fail(message, AVF_ERR_CODEC, "no decoder for the video's codec (%s)",
                        avf_ff.avcodec_get_name(stream->codecpar->codec_id));
    }
    session->codec = codec;
    snprintf(codec_name, 32, "%s", avf_ff.avcodec_get_name(stream->codecpar->codec_id));
    int64_t declared = (int64_t)stream->codecpar->width * stream->codecpar->height;
    if (declared > max_pixels) {
        return avf_fail(message, AVF_ERR_TOO_LARGE, "the video is %dx%d, past the limit of %lld pixels",
                        stream->codecpar->width, stream->codecpar->height, (long long)max_pixels);
    }
    AVCodecContext *decoder = avf_ff.avcodec_alloc_context3(codec);
    session->decoder = decoder;
    if (!decoder || avf_ff.avcodec_parameters_to_context(decoder, stream->codecpar) < 0) {
        return avf_fail(message, AVF_ERR_MEMORY, "no memory for the decoder");
    }
    decoder->pkt_timebase = stream->time_base;
    decoder->thread_count = threads;
    decoder->max_pixels = max_pixels > INT_MAX ? INT_MAX : max_pixels;
    if ((code = avf_ff.avcodec_open2(decoder, codec, NULL)) < 0) {
        return avf_fail(message, AVF_ERR_CODEC, "the %s decoder did not open (%s)", codec->name, avf_error_text(code));
    }
    // the video's own duration when the container gives it (a container's may count a gap
    // before the first frame), else the container's
    session->duration = stream->duration != AV_NOPTS_VALUE && stream->duration > 0 ? stream->duration * av_q2d(stream->time_base)
                      : format->duration != AV_NOPTS_VALUE ? (double)format->duration / AV_TIME_BASE : 0;
    return AVF_OK;
}

void avf_session_close(avf_session *session) {
    if (session->frame) avf_ff.av_frame_free(&session->frame);
    if (session->kept) avf_ff.av_frame_free(&session->kept);
    if (session->packet) avf_ff.av_packet_free(&session->packet);
    if (session->decoder) avf_ff.avcodec_free_context(&session->decoder);
    if (session->format) avf_ff.avformat_close_input(&session->format);
    if (session->avio) {
        avf_ff.av_freep(&session->avio->buffer);
        avf_ff.avio_context_free(&session->avio);
    }
}
