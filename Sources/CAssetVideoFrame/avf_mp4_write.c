// CAssetVideoFrame: MP4 output (avf_mp4.h). libx264 through libavcodec, the mov muxer through
// libavformat, RGBA to yuv420p through swscale: FFmpeg's own parts, opened as avf_ffmpeg.c opens
// them. The muxer writes into memory (a custom AVIOContext); `+faststart` moves the index before
// the media at the end, and reads back what it wrote through a second context over the same memory
// (the format context's io_open), as it would reopen a file.
#include "avf_ffmpeg.h"
#include "avf_mp4.h"

#include <libavutil/dict.h>
#include <stdlib.h>
#include <string.h>

// The written file: one growable block, bounded by `limit`.
typedef struct {
    uint8_t *data;
    int64_t length;
    int64_t capacity;
    int64_t limit;
    int over;
} avf_memory;

// A position in an avf_memory: the muxer's writing context and its reading one each have one.
typedef struct {
    avf_memory *memory;
    int64_t position;
} avf_cursor;

struct avf_mp4 {
    AVFormatContext *format;
    AVCodecContext *encoder;
    AVStream *stream;
    AVPacket *packet;
    struct SwsContext *sws;
    avf_memory memory;
    avf_cursor cursor;
    // the even size encoded, and the size the caller's frames have
    int32_t width, height, source_width, source_height;
    uint8_t background[3];
    uint8_t *rgb;  // a frame flattened onto the background, RGB
    // each frame's start and duration in ms, to give each packet its duration (libx264 does not)
    int64_t *starts;
    int32_t *durations;
    int64_t frames, frame_capacity;
    int64_t next_start;
    int header_written;
    int failed;
};

static int avf_memory_write(void *opaque, uint8_t *buffer, int size) {
    avf_cursor *cursor = opaque;
    avf_memory *memory = cursor->memory;
    int64_t end = cursor->position + size;
    if (memory->limit > 0 && end > memory->limit) {
        memory->over = 1;
        return AVERROR(ENOSPC);
    }
    if (end > memory->capacity) {
        int64_t capacity = memory->capacity ? memory->capacity : 64 * 1024;
        while (capacity < end) capacity *= 2;
        if (memory->limit > 0 && capacity > memory->limit) capacity = memory->limit;
        uint8_t *grown = realloc(memory->data, (size_t)capacity);
        if (!grown) return AVERROR(ENOMEM);
        memory->data = grown;
        memory->capacity = capacity;
    }
    if (cursor->position > memory->length) memset(memory->data + memory->length, 0, (size_t)(cursor->position - memory->length));
    memcpy(memory->data + cursor->position, buffer, (size_t)size);
    cursor->position = end;
    if (end > memory->length) memory->length = end;
    return size;
}

static int avf_memory_read(void *opaque, uint8_t *buffer, int size) {
    avf_cursor *cursor = opaque;
    int64_t left = cursor->memory->length - cursor->position;
    if (left <= 0) return AVERROR_EOF;
    int count = size < left ? size : (int)left;
    memcpy(buffer, cursor->memory->data + cursor->position, (size_t)count);
    cursor->position += count;
    return count;
}

static int64_t avf_memory_seek(void *opaque, int64_t offset, int whence) {
    avf_cursor *cursor = opaque;
    switch (whence & ~AVSEEK_FORCE) {
    case AVSEEK_SIZE: return cursor->memory->length;
    case SEEK_SET: break;
    case SEEK_CUR: offset += cursor->position; break;
    case SEEK_END: offset += cursor->memory->length; break;
    default: return AVERROR(EINVAL);
    }
    if (offset < 0) return AVERROR(EINVAL);
    cursor->position = offset;
    return offset;
}

// `+faststart`'s second pass opens "the file" again to read it: a reading context over the memory.
static int avf_memory_open(AVFormatContext *format, AVIOContext **pb, const char *url, int flags, AVDictionary **options) {
    (void)url;
    (void)options;
    avf_mp4 *writer = format->opaque;
    if (!writer || (flags & AVIO_FLAG_WRITE)) return AVERROR(EPERM);
    avf_cursor *cursor = calloc(1, sizeof *cursor);
    uint8_t *buffer = avf_ff.av_malloc(AVF_IO_BUFFER);
    AVIOContext *context = cursor && buffer
        ? avf_ff.avio_alloc_context(buffer, AVF_IO_BUFFER, 0, cursor, avf_memory_read, NULL, avf_memory_seek)
        : NULL;
    if (!context) {
        free(cursor);
        avf_ff.av_free(buffer);
        return AVERROR(ENOMEM);
    }
    cursor->memory = &writer->memory;
    *pb = context;
    return 0;
}

static void avf_context_free(AVIOContext **context) {
    if (!*context) return;
    avf_ff.av_freep(&(*context)->buffer);
    avf_ff.avio_context_free(context);
}

static int avf_memory_close(AVFormatContext *format, AVIOContext *pb) {
    (void)format;
    if (!pb) return 0;
    free(pb->opaque);
    avf_context_free(&pb);
    return 0;
}

static int32_t avf_mp4_failed(avf_mp4 *writer, char *message, int32_t status, const char *what, int code) {
    writer->failed = 1;
    if (writer->memory.over) {
        return avf_fail(message, AVF_ERR_TOO_LARGE, "the MP4 is past the limit of %lld bytes", (long long)writer->memory.limit);
    }
    if (code == AVERROR(ENOMEM)) return avf_fail(message, AVF_ERR_MEMORY, "no memory while %s", what);
    return avf_fail(message, status, "%s failed (%s)", what, avf_error_text(code));
}

int32_t avf_mp4_new(const avf_mp4_options *options, avf_mp4 **out, char message[AVF_MESSAGE_CAPACITY]) {
    *out = NULL;
    message[0] = 0;
    int32_t status = avf_libraries(message);
    if (status != AVF_OK) return status;
    if (options->width < 2 || options->height < 2 || options->width > 16384 || options->height > 16384) {
        return avf_fail(message, AVF_ERR_TOO_LARGE, "an MP4 of %dx%d cannot be written (2 to 16384 a side)", options->width,
                        options->height);
    }
    if (options->crf < 0 || options->crf > 51) return avf_fail(message, AVF_ERR_ENCODE, "crf %d is not 0 to 51", options->crf);
    const AVCodec *codec = avf_ff.avcodec_find_encoder_by_name("libx264");
    if (!codec) return avf_fail(message, AVF_ERR_CODEC, "this FFmpeg has no libx264 encoder");

    avf_mp4 *writer = calloc(1, sizeof *writer);
    if (!writer) return avf_fail(message, AVF_ERR_MEMORY, "no memory for the MP4 writer");
    *out = writer;
    writer->source_width = options->width;
    writer->source_height = options->height;
    writer->width = options->width & ~1;
    writer->height = options->height & ~1;
    memcpy(writer->background, options->background, 3);
    writer->memory.limit = options->max_bytes;
    writer->cursor.memory = &writer->memory;

    int code = avf_ff.avformat_alloc_output_context2(&writer->format, NULL, "mp4", NULL);
    if (code < 0 || !writer->format) return avf_mp4_failed(writer, message, AVF_ERR_ENCODE, "opening the mp4 muxer", code);
    AVFormatContext *format = writer->format;
    uint8_t *buffer = avf_ff.av_malloc(AVF_IO_BUFFER);
    format->pb = buffer ? avf_ff.avio_alloc_context(buffer, AVF_IO_BUFFER, 1, &writer->cursor, avf_memory_read,
                                                    avf_memory_write, avf_memory_seek)
                        : NULL;
    writer->encoder = avf_ff.avcodec_alloc_context3(codec);
    writer->stream = avf_ff.avformat_new_stream(format, NULL);
    writer->packet = avf_ff.av_packet_alloc();
    writer->rgb = malloc((size_t)writer->width * writer->height * 3);
    writer->sws = avf_ff.sws_getContext(writer->width, writer->height, AV_PIX_FMT_RGB24, writer->width, writer->height,
                                        AV_PIX_FMT_YUV420P, SWS_BILINEAR | SWS_ACCURATE_RND, NULL, NULL, NULL);
    if (!format->pb) avf_ff.av_free(buffer);
    if (!format->pb || !writer->encoder || !writer->stream || !writer->packet || !writer->rgb || !writer->sws) {
        writer->failed = 1;
        return avf_fail(message, AVF_ERR_MEMORY, "no memory for the MP4 writer");
    }
    format->flags |= AVFMT_FLAG_CUSTOM_IO;
    format->opaque = writer;
    format->io_open = avf_memory_open;
    format->io_close2 = avf_memory_close;
    // full-range sRGB in, BT.709 limited range out: what the stream says it holds
    int *inverse = NULL, *table = NULL, source_range = 0, destination_range = 0, brightness = 0, contrast = 0, saturation = 0;
    if (avf_ff.sws_getColorspaceDetails(writer->sws, &inverse, &source_range, &table, &destination_range, &brightness,
                                        &contrast, &saturation) >= 0) {
        avf_ff.sws_setColorspaceDetails(writer->sws, inverse, 1, avf_ff.sws_getCoefficients(SWS_CS_ITU709), 0, brightness,
                                        contrast, saturation);
    }

    AVCodecContext *encoder = writer->encoder;
    encoder->width = writer->width;
    encoder->height = writer->height;
    encoder->pix_fmt = AV_PIX_FMT_YUV420P;
    encoder->time_base = (AVRational){1, 1000};
    encoder->sample_aspect_ratio = (AVRational){1, 1};
    encoder->color_range = AVCOL_RANGE_MPEG;
    encoder->colorspace = AVCOL_SPC_BT709;
    encoder->color_primaries = AVCOL_PRI_BT709;
    encoder->color_trc = AVCOL_TRC_BT709;
    encoder->thread_count = options->threads;
    if (format->oformat->flags & AVFMT_GLOBALHEADER) encoder->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
    AVDictionary *settings = NULL;
    char crf[8];
    snprintf(crf, sizeof crf, "%d", options->crf);
    avf_ff.av_dict_set(&settings, "crf", crf, 0);
    avf_ff.av_dict_set(&settings, "preset", options->preset && options->preset[0] ? options->preset : "medium", 0);
    code = avf_ff.avcodec_open2(encoder, codec, &settings);
    avf_ff.av_dict_free(&settings);
    if (code < 0) return avf_mp4_failed(writer, message, AVF_ERR_ENCODE, "opening libx264", code);
    if ((code = avf_ff.avcodec_parameters_from_context(writer->stream->codecpar, encoder)) < 0) {
        return avf_mp4_failed(writer, message, AVF_ERR_ENCODE, "describing the stream", code);
    }
    writer->stream->time_base = encoder->time_base;
    AVDictionary *muxing = NULL;
    avf_ff.av_dict_set(&muxing, "movflags", "+faststart", 0);
    code = avf_ff.avformat_write_header(format, &muxing);
    avf_ff.av_dict_free(&muxing);
    if (code < 0) return avf_mp4_failed(writer, message, AVF_ERR_ENCODE, "writing the MP4 header", code);
    writer->header_written = 1;
    return AVF_OK;
}

// The start-ordered frame whose start is `pts`, or -1.
static int64_t avf_frame_at(const avf_mp4 *writer, int64_t pts) {
    int64_t low = 0, high = writer->frames - 1;
    while (low <= high) {
        int64_t middle = (low + high) / 2;
        if (writer->starts[middle] == pts) return middle;
        if (writer->starts[middle] < pts) low = middle + 1;
        else high = middle - 1;
    }
    return -1;
}

// Writes every packet the encoder has ready.
static int32_t avf_drain(avf_mp4 *writer, char *message) {
    while (1) {
        int code = avf_ff.avcodec_receive_packet(writer->encoder, writer->packet);
        if (code == AVERROR(EAGAIN) || code == AVERROR_EOF) return AVF_OK;
        if (code < 0) return avf_mp4_failed(writer, message, AVF_ERR_ENCODE, "libx264", code);
        int64_t index = avf_frame_at(writer, writer->packet->pts);
        if (index >= 0) writer->packet->duration = writer->durations[index];
        writer->packet->stream_index = writer->stream->index;
        avf_ff.av_packet_rescale_ts(writer->packet, writer->encoder->time_base, writer->stream->time_base);
        code = avf_ff.av_interleaved_write_frame(writer->format, writer->packet);
        if (code < 0) return avf_mp4_failed(writer, message, AVF_ERR_ENCODE, "muxing a packet", code);
    }
}

int32_t avf_mp4_add(avf_mp4 *writer, const uint8_t *rgba, size_t stride, int32_t duration_ms, char message[AVF_MESSAGE_CAPACITY]) {
    message[0] = 0;
    if (writer->failed) return avf_fail(message, AVF_ERR_ENCODE, "the MP4 writer failed before");
    if (duration_ms < 1) duration_ms = 1;
    if (writer->frames == writer->frame_capacity) {
        int64_t capacity = writer->frame_capacity ? writer->frame_capacity * 2 : 256;
        int64_t *starts = realloc(writer->starts, (size_t)capacity * sizeof *starts);
        if (starts) writer->starts = starts;
        int32_t *durations = starts ? realloc(writer->durations, (size_t)capacity * sizeof *durations) : NULL;
        if (!durations) {
            writer->failed = 1;
            return avf_fail(message, AVF_ERR_MEMORY, "no memory for the frame list");
        }
        writer->durations = durations;
        writer->frame_capacity = capacity;
    }
    // straight alpha flattened onto the background, rounded
    const uint8_t *background = writer->background;
    for (int32_t y = 0; y < writer->height; y++) {
        const uint8_t *in = rgba + (size_t)y * stride;
        uint8_t *out = writer->rgb + (size_t)y * writer->width * 3;
        for (int32_t x = 0; x < writer->width; x++, in += 4, out += 3) {
            uint32_t alpha = in[3], rest = 255 - alpha;
            for (int c = 0; c < 3; c++) out[c] = (uint8_t)((in[c] * alpha + background[c] * rest + 127) / 255);
        }
    }
    AVFrame *frame = avf_ff.av_frame_alloc();
    if (!frame) {
        writer->failed = 1;
        return avf_fail(message, AVF_ERR_MEMORY, "no memory for a frame");
    }
    frame->format = AV_PIX_FMT_YUV420P;
    frame->width = writer->width;
    frame->height = writer->height;
    frame->color_range = AVCOL_RANGE_MPEG;
    frame->colorspace = AVCOL_SPC_BT709;
    int code = avf_ff.av_frame_get_buffer(frame, 0);
    if (code < 0) {
        avf_ff.av_frame_free(&frame);
        return avf_mp4_failed(writer, message, AVF_ERR_MEMORY, "allocating a frame", code);
    }
    const uint8_t *planes[1] = {writer->rgb};
    const int strides[1] = {writer->width * 3};
    avf_ff.sws_scale(writer->sws, planes, strides, 0, writer->height, frame->data, frame->linesize);
    frame->pts = writer->next_start;
    writer->starts[writer->frames] = writer->next_start;
    writer->durations[writer->frames] = duration_ms;
    writer->frames += 1;
    writer->next_start += duration_ms;
    code = avf_ff.avcodec_send_frame(writer->encoder, frame);
    avf_ff.av_frame_free(&frame);
    if (code < 0) return avf_mp4_failed(writer, message, AVF_ERR_ENCODE, "libx264", code);
    return avf_drain(writer, message);
}

int32_t avf_mp4_finish(avf_mp4 *writer, uint8_t **bytes, size_t *length, char message[AVF_MESSAGE_CAPACITY]) {
    *bytes = NULL;
    *length = 0;
    message[0] = 0;
    if (writer->failed) return avf_fail(message, AVF_ERR_ENCODE, "the MP4 writer failed before");
    if (writer->frames == 0) {
        writer->failed = 1;
        return avf_fail(message, AVF_ERR_ENCODE, "the MP4 has no frame");
    }
    int code = avf_ff.avcodec_send_frame(writer->encoder, NULL);
    if (code < 0) return avf_mp4_failed(writer, message, AVF_ERR_ENCODE, "ending the stream", code);
    int32_t status = avf_drain(writer, message);
    if (status != AVF_OK) return status;
    code = avf_ff.av_write_trailer(writer->format);
    writer->header_written = 0;
    if (code < 0 || writer->memory.over) return avf_mp4_failed(writer, message, AVF_ERR_ENCODE, "writing the MP4 index", code);
    // the muxer's buffered bytes are in memory once the trailer is written (it flushes)
    *bytes = writer->memory.data;
    *length = (size_t)writer->memory.length;
    writer->memory.data = NULL;
    writer->memory.length = writer->memory.capacity = 0;
    writer->failed = 1;  // written: only free remains
    return AVF_OK;
}

void avf_mp4_free(avf_mp4 *writer) {
    if (!writer) return;
    if (writer->format) {
        avf_context_free(&writer->format->pb);
        avf_ff.avformat_free_context(writer->format);
    }
    avf_ff.avcodec_free_context(&writer->encoder);
    avf_ff.av_packet_free(&writer->packet);
    if (writer->sws) avf_ff.sws_freeContext(writer->sws);
    free(writer->rgb);
    free(writer->starts);
    free(writer->durations);
    free(writer->memory.data);
    free(writer);
}

void avf_mp4_bytes_free(uint8_t *bytes) { free(bytes); }
