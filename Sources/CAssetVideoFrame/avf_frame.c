// CAssetVideoFrame: one frame of a video through the caller's positional reads. See avf_frame.h.
#include "avf_frame.h"

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/display.h>
#include <libavutil/imgutils.h>
#include <libavutil/log.h>
#include <libavutil/macros.h>
#include <libavutil/pixdesc.h>
#include <libswscale/swscale.h>
#include <dlfcn.h>
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
#define AVF_FUNCTIONS(X) \
    X(avformat, avformat_alloc_context) \
    X(avformat, avformat_close_input) \
    X(avformat, avformat_find_stream_info) \
    X(avformat, avformat_open_input) \
    X(avformat, avformat_seek_file) \
    X(avformat, avio_alloc_context) \
    X(avformat, avio_context_free) \
    X(avformat, av_read_frame) \
    X(avformat, av_stream_get_side_data) \
    X(avcodec, avcodec_alloc_context3) \
    X(avcodec, avcodec_find_decoder) \
    X(avcodec, avcodec_free_context) \
    X(avcodec, avcodec_get_name) \
    X(avcodec, avcodec_open2) \
    X(avcodec, avcodec_parameters_to_context) \
    X(avcodec, avcodec_receive_frame) \
    X(avcodec, avcodec_send_packet) \
    X(avcodec, av_packet_alloc) \
    X(avcodec, av_packet_free) \
    X(avcodec, av_packet_unref) \
    X(swscale, sws_freeContext) \
    X(swscale, sws_getCoefficients) \
    X(swscale, sws_getColorspaceDetails) \
    X(swscale, sws_getContext) \
    X(swscale, sws_scale) \
    X(swscale, sws_setColorspaceDetails) \
    X(avutil, av_display_rotation_get) \
    X(avutil, av_frame_alloc) \
    X(avutil, av_frame_free) \
    X(avutil, av_frame_move_ref) \
    X(avutil, av_frame_unref) \
    X(avutil, av_free) \
    X(avutil, av_freep) \
    X(avutil, av_get_pix_fmt_name) \
    X(avutil, av_log_set_level) \
    X(avutil, av_malloc) \
    X(avutil, av_rescale_q) \
    X(avutil, av_strdup) \
    X(avutil, av_strerror)

static struct {
#define AVF_MEMBER(library, name) __typeof__(&name) name;
    AVF_FUNCTIONS(AVF_MEMBER)
#undef AVF_MEMBER
} ff;

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
    if (!(*(void **)&ff.name = dlsym(libraries[avf_##library], #name))) {                               \
        snprintf(avf_load_failure, sizeof avf_load_failure, "FFmpeg's %s has no %s",                    \
                 avf_library_names[avf_##library], #name);                                              \
        return;                                                                                         \
    }
    AVF_FUNCTIONS(AVF_RESOLVE)
#undef AVF_RESOLVE
    // FFmpeg prints its warnings on standard error, which in a service is its log: quiet, the typed
    // errors carry what matters (this sets FFmpeg's level for the whole process).
    ff.av_log_set_level(AV_LOG_QUIET);
}

// av_err2str without the header's inline helper, which would call av_strerror directly.
#define avf_error_text(code) avf_error_string((char[AV_ERROR_MAX_STRING_SIZE]){0}, (code))
static const char *avf_error_string(char *buffer, int code) {
    ff.av_strerror(code, buffer, AV_ERROR_MAX_STRING_SIZE);
    return buffer;
}

// The AVIO buffer: each read of the caller's asks for at most this much.
#define AVF_IO_BUFFER (64 * 1024)

// Only these demuxers run, whatever the bytes look like.
static const char *const avf_formats = "mov,mp4,m4a,3gp,3g2,mj2,matroska,webm";

// Only these decoders run: the video codecs MP4 and WebM carry in practice.
static const enum AVCodecID avf_codecs[] = {
    AV_CODEC_ID_H264, AV_CODEC_ID_HEVC, AV_CODEC_ID_VP8, AV_CODEC_ID_VP9, AV_CODEC_ID_AV1,
    AV_CODEC_ID_MPEG4, AV_CODEC_ID_MPEG2VIDEO, AV_CODEC_ID_MPEG1VIDEO, AV_CODEC_ID_H263,
    AV_CODEC_ID_MJPEG, AV_CODEC_ID_THEORA, AV_CODEC_ID_PRORES,
};

typedef struct {
    const avf_source *source;
    int64_t position;
    int64_t bytes_read;
    int failed;
} avf_io;

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

static int32_t avf_fail(char *message, int32_t status, const char *format, ...) {
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
static int32_t avf_rotation(AVStream *stream) {
    const uint8_t *matrix = ff.av_stream_get_side_data(stream, AV_PKT_DATA_DISPLAYMATRIX, NULL);
    if (!matrix) return 0;
    double theta = -round(ff.av_display_rotation_get((const int32_t *)matrix));
    if (isnan(theta)) return 0;
    theta -= 360 * floor(theta / 360 + 0.9 / 360);
    if (fabs(theta - 90) < 1.0) return 90;
    if (fabs(theta - 180) < 1.0) return 180;
    if (fabs(theta - 270) < 1.0) return 270;
    return 0;
}

// Turns `pixels` (width x height RGBA) clockwise by `rotation` into a new buffer.
static uint8_t *avf_rotate(const uint8_t *pixels, int32_t width, int32_t height, int32_t rotation) {
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
static int32_t avf_scaled(int32_t side, int32_t numerator, int32_t denominator) {
    double value = round((double)side * numerator / denominator);
    if (value < 1) return 1;
    if (value > INT32_MAX) return INT32_MAX;
    return (int32_t)value;
}

// Converts `frame` to RGBA at `width` x `height` with swscale's bicubic filter and the frame's own
// colour matrix and range, as ffmpeg's scale filter does.
static int32_t avf_convert(const AVFrame *frame, int32_t width, int32_t height, uint8_t **out, char *message) {
    struct SwsContext *sws = ff.sws_getContext(frame->width, frame->height, frame->format, width, height,
                                            AV_PIX_FMT_RGBA, SWS_BICUBIC, NULL, NULL, NULL);
    if (!sws) {
        return avf_fail(message, AVF_ERR_DECODE, "swscale cannot convert %s to RGBA",
                        ff.av_get_pix_fmt_name(frame->format) ? ff.av_get_pix_fmt_name(frame->format) : "this pixel format");
    }
    int *inverse = NULL, *table = NULL, source_range = 0, destination_range = 0, brightness = 0, contrast = 0, saturation = 0;
    if (ff.sws_getColorspaceDetails(sws, &inverse, &source_range, &table, &destination_range, &brightness, &contrast,
                                 &saturation) >= 0) {
        int space = frame->colorspace == AVCOL_SPC_UNSPECIFIED ? SWS_CS_DEFAULT : (int)frame->colorspace;
        const int *coefficients = ff.sws_getCoefficients(space);
        int full = frame->color_range == AVCOL_RANGE_JPEG ? 1 : source_range;
        ff.sws_setColorspaceDetails(sws, coefficients, full, coefficients, destination_range, brightness, contrast,
                                 saturation);
    }
    // swscale writes whole SIMD blocks: rows of an aligned stride, with room after the last one
    int stride = FFALIGN(width * 4, 64);
    uint8_t *scaled = ff.av_malloc((size_t)stride * height + 64);
    uint8_t *pixels = malloc((size_t)width * height * 4);
    if (!scaled || !pixels) {
        ff.av_free(scaled);
        free(pixels);
        ff.sws_freeContext(sws);
        return avf_fail(message, AVF_ERR_MEMORY, "no memory for a %dx%d frame", width, height);
    }
    uint8_t *planes[4] = {scaled, NULL, NULL, NULL};
    int strides[4] = {stride, 0, 0, 0};
    int rows = ff.sws_scale(sws, (const uint8_t *const *)frame->data, frame->linesize, 0, frame->height, planes, strides);
    ff.sws_freeContext(sws);
    if (rows != height) {
        ff.av_free(scaled);
        free(pixels);
        return avf_fail(message, AVF_ERR_DECODE, "swscale wrote %d of %d rows", rows, height);
    }
    for (int32_t y = 0; y < height; y++) memcpy(pixels + (size_t)y * width * 4, scaled + (size_t)y * stride, (size_t)width * 4);
    ff.av_free(scaled);
    *out = pixels;
    return AVF_OK;
}

int32_t avf_decode_frame(const avf_source *source, const avf_request *request, avf_frame *result,
                         char message[AVF_MESSAGE_CAPACITY]) {
    pthread_once(&avf_load_once, avf_load);
    memset(result, 0, sizeof *result);
    message[0] = 0;
    if (avf_load_failure[0]) return avf_fail(message, AVF_ERR_UNAVAILABLE, "%s", avf_load_failure);
    if (!source || !source->read || source->size <= 0) return avf_fail(message, AVF_ERR_CONTAINER, "no data");

    int32_t status = AVF_OK;
    avf_io io = {source, 0, 0, 0};
    AVFormatContext *format = NULL;
    AVIOContext *avio = NULL;
    AVCodecContext *decoder = NULL;
    AVPacket *packet = NULL;
    AVFrame *frame = NULL, *kept = NULL;

    uint8_t *buffer = ff.av_malloc(AVF_IO_BUFFER);
    format = ff.avformat_alloc_context();
    packet = ff.av_packet_alloc();
    frame = ff.av_frame_alloc();
    kept = ff.av_frame_alloc();
    if (buffer) avio = ff.avio_alloc_context(buffer, AVF_IO_BUFFER, 0, &io, avf_read_packet, NULL, avf_seek);
    if (!buffer || !format || !avio || !packet || !frame || !kept) {
        if (!avio) ff.av_free(buffer);
        status = avf_fail(message, AVF_ERR_MEMORY, "no memory to open the container");
        goto end;
    }
    format->pb = avio;
    format->flags |= AVFMT_FLAG_CUSTOM_IO;
    format->format_whitelist = ff.av_strdup(avf_formats);
    format->protocol_whitelist = ff.av_strdup("");
    format->max_streams = 64;
    if (!format->format_whitelist || !format->protocol_whitelist) {
        status = avf_fail(message, AVF_ERR_MEMORY, "no memory to open the container");
        goto end;
    }
    int code = ff.avformat_open_input(&format, NULL, NULL, NULL);
    if (code < 0) {
        format = NULL;  // freed by avformat_open_input
        status = io.failed ? avf_fail(message, AVF_ERR_READ, "a read failed while opening the container")
                           : avf_fail(message, AVF_ERR_CONTAINER, "not an MP4 or WebM container, or a broken one (%s)",
                                      avf_error_text(code));
        goto end;
    }
    snprintf(result->container, sizeof result->container, "%s", format->iformat->name);
    // the streams' start times (the container's start, which a time counts from, as ffmpeg's -ss
    // does) and a fragmented MP4's first index entries come from the first packets, read with
    // ffmpeg's own limits (a shorter analysis seeks a fragmented MP4 elsewhere than ffmpeg does)
    if ((code = ff.avformat_find_stream_info(format, NULL)) < 0 && io.failed) {
        status = avf_fail(message, AVF_ERR_READ, "a read failed while reading the streams' first packets");
        goto end;
    }

    int index = avf_best_video_stream(format);
    if (index < 0) {
        status = avf_fail(message, AVF_ERR_NO_VIDEO, "the container has no video stream");
        goto end;
    }
    AVStream *stream = format->streams[index];
    for (unsigned i = 0; i < format->nb_streams; i++) {
        if ((int)i != index) format->streams[i]->discard = AVDISCARD_ALL;
    }
    const AVCodec *codec = ff.avcodec_find_decoder(stream->codecpar->codec_id);
    if (!codec || !avf_codec_allowed(stream->codecpar->codec_id)) {
        status = avf_fail(message, AVF_ERR_CODEC, "no decoder for the video's codec (%s)",
                          ff.avcodec_get_name(stream->codecpar->codec_id));
        goto end;
    }
    snprintf(result->codec, sizeof result->codec, "%s", ff.avcodec_get_name(stream->codecpar->codec_id));
    int64_t declared = (int64_t)stream->codecpar->width * stream->codecpar->height;
    if (declared > request->max_pixels) {
        status = avf_fail(message, AVF_ERR_TOO_LARGE, "the video is %dx%d, past the limit of %lld pixels",
                          stream->codecpar->width, stream->codecpar->height, (long long)request->max_pixels);
        goto end;
    }
    decoder = ff.avcodec_alloc_context3(codec);
    if (!decoder || ff.avcodec_parameters_to_context(decoder, stream->codecpar) < 0) {
        status = avf_fail(message, AVF_ERR_MEMORY, "no memory for the decoder");
        goto end;
    }
    decoder->pkt_timebase = stream->time_base;
    decoder->thread_count = request->threads;
    decoder->max_pixels = request->max_pixels > INT_MAX ? INT_MAX : request->max_pixels;
    if ((code = ff.avcodec_open2(decoder, codec, NULL)) < 0) {
        status = avf_fail(message, AVF_ERR_CODEC, "the %s decoder did not open (%s)", codec->name, avf_error_text(code));
        goto end;
    }

    // the video's own duration when the container gives it (a container's may count a gap
    // before the first frame), else the container's
    double duration = stream->duration != AV_NOPTS_VALUE && stream->duration > 0 ? stream->duration * av_q2d(stream->time_base)
                    : format->duration != AV_NOPTS_VALUE ? (double)format->duration / AV_TIME_BASE : 0;
    result->duration = duration;
    int64_t target = AV_NOPTS_VALUE;  // in AV_TIME_BASE units, the container's start included
    if (request->mode != 0) {
        double seconds = request->mode == 2 ? request->progress * duration : request->seconds;
        if (request->mode == 2 && (duration <= 0 || !(request->progress >= 0 && request->progress < 1))) {
            status = avf_fail(message, AVF_ERR_OUT_OF_RANGE, "a progress must be at least 0 and below 1 of a known duration");
            goto end;
        }
        if (!(seconds >= 0) || (duration > 0 && seconds >= duration)) {
            status = avf_fail(message, AVF_ERR_OUT_OF_RANGE, "%.3f s is outside the video (%.3f s long)", seconds, duration);
            goto end;
        }
        target = (int64_t)llround(seconds * AV_TIME_BASE);
        if (format->start_time != AV_NOPTS_VALUE) target += format->start_time;
        // as ffmpeg's -ss: the key frame at or before the time; a failed seek decodes from here
        ff.avformat_seek_file(format, -1, INT64_MIN, target, target, 0);
    }

    int have = 0, ended = 0;
    while (!have) {
        if (!ended) {
            code = ff.av_read_frame(format, packet);
            if (code == AVERROR_EOF) {
                ended = 1;
                ff.avcodec_send_packet(decoder, NULL);
            } else if (code < 0) {
                status = io.failed ? avf_fail(message, AVF_ERR_READ, "a read failed while reading packets")
                                   : avf_fail(message, AVF_ERR_DECODE, "the container broke off (%s)", avf_error_text(code));
                goto end;
            } else if (packet->stream_index != index) {
                ff.av_packet_unref(packet);
                continue;
            } else {
                if (++result->packets > request->max_packets) {
                    status = avf_fail(message, AVF_ERR_TOO_MANY_PACKETS, "%d packets went by without the frame",
                                      request->max_packets);
                    goto end;
                }
                code = ff.avcodec_send_packet(decoder, packet);
                ff.av_packet_unref(packet);
                // a broken packet is skipped, as ffmpeg does; the next key frame recovers
                if (code < 0 && code != AVERROR(EAGAIN)) continue;
            }
        }
        for (;;) {
            code = ff.avcodec_receive_frame(decoder, frame);
            if (code == AVERROR(EAGAIN)) break;
            if (code == AVERROR_EOF) {
                if (kept->format >= 0 && kept->width > 0) {
                    // past the last frame's start but before the end: the last frame
                    ff.av_frame_move_ref(frame, kept);
                    have = 1;
                    break;
                }
                status = avf_fail(message, AVF_ERR_DECODE, "the stream ended before a frame was decoded");
                goto end;
            }
            if (code < 0) {
                status = avf_fail(message, AVF_ERR_DECODE, "the %s decoder failed (%s)", codec->name, avf_error_text(code));
                goto end;
            }
            int64_t pts = frame->best_effort_timestamp;
            if (target != AV_NOPTS_VALUE && pts != AV_NOPTS_VALUE
                && ff.av_rescale_q(pts, stream->time_base, AV_TIME_BASE_Q) < target) {
                ff.av_frame_unref(kept);
                ff.av_frame_move_ref(kept, frame);
                continue;
            }
            have = 1;
            break;
        }
        if (ended && !have && code == AVERROR(EAGAIN)) {
            status = avf_fail(message, AVF_ERR_DECODE, "the decoder kept no frame at the end of the stream");
            goto end;
        }
    }

    int64_t start = format->start_time != AV_NOPTS_VALUE ? format->start_time : 0;
    if (frame->best_effort_timestamp != AV_NOPTS_VALUE) {
        result->time = (double)(ff.av_rescale_q(frame->best_effort_timestamp, stream->time_base, AV_TIME_BASE_Q) - start)
                     / AV_TIME_BASE;
    }
    if ((int64_t)frame->width * frame->height > request->max_pixels) {
        status = avf_fail(message, AVF_ERR_TOO_LARGE, "the frame is %dx%d, past the limit", frame->width, frame->height);
        goto end;
    }
    int32_t rotation = avf_rotation(stream);
    int turned = rotation == 90 || rotation == 270;
    // the stored size, as ffmpeg writes a frame (a sample aspect ratio stays a ratio, not a resize)
    int32_t natural_width = frame->width, natural_height = frame->height;
    int32_t shown_width = turned ? natural_height : natural_width;
    int32_t shown_height = turned ? natural_width : natural_height;
    int32_t width = request->width, height = request->height;
    if (width < 0 || height < 0) {
        status = avf_fail(message, AVF_ERR_TOO_LARGE, "a frame's width and height must be positive");
        goto end;
    }
    if (width == 0 && height == 0) {
        width = shown_width;
        height = shown_height;
    } else if (height == 0) {
        height = avf_scaled(width, shown_height, shown_width);
    } else if (width == 0) {
        width = avf_scaled(height, shown_width, shown_height);
    }
    if ((int64_t)width * height > request->max_pixels) {
        status = avf_fail(message, AVF_ERR_TOO_LARGE, "a %dx%d output is past the limit", width, height);
        goto end;
    }
    uint8_t *pixels = NULL;
    status = avf_convert(frame, turned ? height : width, turned ? width : height, &pixels, message);
    if (status != AVF_OK) goto end;
    if (rotation != 0) {
        uint8_t *turned_pixels = avf_rotate(pixels, turned ? height : width, turned ? width : height, rotation);
        free(pixels);
        if (!turned_pixels) {
            status = avf_fail(message, AVF_ERR_MEMORY, "no memory to turn the frame");
            goto end;
        }
        pixels = turned_pixels;
    }
    result->pixels = pixels;
    result->width = width;
    result->height = height;
    result->rotation = rotation;

end:
    result->bytes_read = io.bytes_read;
    ff.av_frame_free(&frame);
    ff.av_frame_free(&kept);
    ff.av_packet_free(&packet);
    ff.avcodec_free_context(&decoder);
    if (format) ff.avformat_close_input(&format);
    if (avio) {
        ff.av_freep(&avio->buffer);
        ff.avio_context_free(&avio);
    }
    return status;
}

void avf_free(avf_frame *frame) {
    if (!frame) return;
    free(frame->pixels);
    frame->pixels = NULL;
}
