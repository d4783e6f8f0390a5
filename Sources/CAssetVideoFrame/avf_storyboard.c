// CAssetVideoFrame: a storyboard's tiles in one open of the container. See avf_storyboard.h.
#include "avf_storyboard.h"
#include "avf_ffmpeg.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// The key frame at or before the position `seek_file` went to: its first video packet, decoded
// alone (a drain right after it makes any decoder give the frame at once, whatever its reordering
// delay or threads), so only that packet's bytes are read. A packet that gives no frame (a seek
// that landed elsewhere than a key frame) is followed by the next, up to `max_packets`.
// `position` is the packet's byte offset (or its time when it has none): a key frame that an
// earlier tile already showed is not decoded again.
static int32_t avf_key_frame(avf_session *session, const avf_tiles_request *request, avf_tiles *tiles, int64_t *position,
                             char *message) {
    AVPacket *packet = session->packet;
    for (int32_t sent = 0; sent < request->max_packets;) {
        int code = avf_ff.av_read_frame(session->format, packet);
        if (code == AVERROR_EOF) return avf_fail(message, AVF_ERR_DECODE, "the stream ended before a key frame");
        if (code < 0) {
            return session->io.failed ? avf_fail(message, AVF_ERR_READ, "a read failed while reading packets")
                                      : avf_fail(message, AVF_ERR_DECODE, "the container broke off (%s)", avf_error_text(code));
        }
        if (packet->stream_index != session->index) {
            avf_ff.av_packet_unref(packet);
            continue;
        }
        sent++;
        tiles->packets++;
        int64_t at = packet->pos >= 0 ? packet->pos : packet->pts;
        if (*position != AV_NOPTS_VALUE && at == *position) {
            avf_ff.av_packet_unref(packet);
            return AVF_OK;  // the same key frame as the tile before: the caller copies that tile
        }
        avf_ff.avcodec_flush_buffers(session->decoder);
        code = avf_ff.avcodec_send_packet(session->decoder, packet);
        avf_ff.av_packet_unref(packet);
        if (code < 0) continue;
        avf_ff.avcodec_send_packet(session->decoder, NULL);
        code = avf_ff.avcodec_receive_frame(session->decoder, session->frame);
        if (code >= 0) {
            tiles->decoded++;
            *position = at;
            return AVF_OK;
        }
    }
    return avf_fail(message, AVF_ERR_TOO_MANY_PACKETS, "%d packets went by without a key frame", request->max_packets);
}

// The first frame at or after `target` (AV_TIME_BASE units, the container's start included),
// decoded from the key frame the seek went to, as avf_decode_frame does.
static int32_t avf_frame_at(avf_session *session, const avf_tiles_request *request, avf_tiles *tiles, int64_t target,
                            char *message) {
    AVPacket *packet = session->packet;
    AVFrame *frame = session->frame, *kept = session->kept;
    avf_ff.avcodec_flush_buffers(session->decoder);
    avf_ff.av_frame_unref(kept);
    int ended = 0;
    for (int32_t sent = 0;;) {
        if (!ended) {
            int code = avf_ff.av_read_frame(session->format, packet);
            if (code == AVERROR_EOF) {
                ended = 1;
                avf_ff.avcodec_send_packet(session->decoder, NULL);
            } else if (code < 0) {
                return session->io.failed ? avf_fail(message, AVF_ERR_READ, "a read failed while reading packets")
                                          : avf_fail(message, AVF_ERR_DECODE, "the container broke off (%s)", avf_error_text(code));
            } else if (packet->stream_index != session->index) {
                avf_ff.av_packet_unref(packet);
                continue;
            } else {
                tiles->packets++;
                if (++sent > request->max_packets) {
                    return avf_fail(message, AVF_ERR_TOO_MANY_PACKETS, "%d packets went by without the frame", request->max_packets);
                }
                avf_ff.avcodec_send_packet(session->decoder, packet);
                avf_ff.av_packet_unref(packet);
            }
        }
        for (;;) {
            int code = avf_ff.avcodec_receive_frame(session->decoder, frame);
            if (code == AVERROR(EAGAIN)) break;
            if (code == AVERROR_EOF) {
                if (kept->width > 0) {
                    avf_ff.av_frame_move_ref(frame, kept);
                    return AVF_OK;
                }
                return avf_fail(message, AVF_ERR_DECODE, "the stream ended before a frame was decoded");
            }
            if (code < 0) return avf_fail(message, AVF_ERR_DECODE, "the %s decoder failed (%s)", session->codec->name, avf_error_text(code));
            tiles->decoded++;
            int64_t pts = frame->best_effort_timestamp;
            if (pts != AV_NOPTS_VALUE && avf_ff.av_rescale_q(pts, session->stream->time_base, AV_TIME_BASE_Q) < target) {
                avf_ff.av_frame_unref(kept);
                avf_ff.av_frame_move_ref(kept, frame);
                continue;
            }
            return AVF_OK;
        }
        if (ended) return avf_fail(message, AVF_ERR_DECODE, "the decoder kept no frame at the end of the stream");
    }
}

// Scales `frame` to the tile and copies it into the sheet at tile `index`.
static int32_t avf_place(avf_tiles *tiles, const AVFrame *frame, int32_t index, char *message) {
    int turned = tiles->rotation == 90 || tiles->rotation == 270;
    int32_t width = tiles->tile_width, height = tiles->tile_height;
    uint8_t *pixels = NULL;
    int32_t status = avf_convert(frame, turned ? height : width, turned ? width : height, &pixels, message);
    if (status != AVF_OK) return status;
    if (tiles->rotation != 0) {
        uint8_t *turned_pixels = avf_rotate(pixels, turned ? height : width, turned ? width : height, tiles->rotation);
        free(pixels);
        if (!turned_pixels) return avf_fail(message, AVF_ERR_MEMORY, "no memory to turn a tile");
        pixels = turned_pixels;
    }
    size_t x = (size_t)(index % tiles->columns) * width, y = (size_t)(index / tiles->columns) * height;
    for (int32_t row = 0; row < height; row++) {
        memcpy(tiles->pixels + ((y + row) * tiles->sheet_width + x) * 4, pixels + (size_t)row * width * 4, (size_t)width * 4);
    }
    free(pixels);
    return AVF_OK;
}

// Copies tile `from` of the sheet to tile `to`.
static void avf_copy_tile(avf_tiles *tiles, int32_t from, int32_t to) {
    size_t width = tiles->tile_width, height = tiles->tile_height;
    size_t fx = (size_t)(from % tiles->columns) * width, fy = (size_t)(from / tiles->columns) * height;
    size_t tx = (size_t)(to % tiles->columns) * width, ty = (size_t)(to / tiles->columns) * height;
    for (size_t row = 0; row < height; row++) {
        memcpy(tiles->pixels + ((ty + row) * tiles->sheet_width + tx) * 4,
               tiles->pixels + ((fy + row) * tiles->sheet_width + fx) * 4, width * 4);
    }
}

int32_t avf_decode_tiles(const avf_source *source, const avf_tiles_request *request, avf_tiles *tiles,
                         char message[AVF_MESSAGE_CAPACITY]) {
    memset(tiles, 0, sizeof *tiles);
    avf_session session;
    int32_t status = avf_session_open(&session, source, request->max_pixels, request->threads, tiles->container,
                                      tiles->codec, message);
    if (status != AVF_OK) goto end;
    if (!(request->interval > 0 && isfinite(request->interval)) || request->max_tiles < 1 || request->columns < 1
        || request->tile_width < 0 || request->tile_height < 0 || (request->tile_width == 0 && request->tile_height == 0)) {
        status = avf_fail(message, AVF_ERR_OUT_OF_RANGE, "a storyboard needs a positive interval, tile size and columns");
        goto end;
    }
    double duration = session.duration;
    tiles->duration = duration;
    if (!(duration > 0)) {
        status = avf_fail(message, AVF_ERR_OUT_OF_RANGE, "the video does not say how long it is");
        goto end;
    }
    double wanted = ceil(duration / request->interval - 1e-9);
    if (wanted < 1) wanted = 1;
    if (wanted > request->max_tiles) {
        status = avf_fail(message, AVF_ERR_TOO_LARGE, "%.0f tiles of %.3f s for %.3f s of video, past the limit of %d",
                          wanted, request->interval, duration, request->max_tiles);
        goto end;
    }
    int32_t count = (int32_t)wanted;
    AVStream *stream = session.stream;
    tiles->rotation = avf_rotation(stream);
    int turned = tiles->rotation == 90 || tiles->rotation == 270;
    int32_t shown_width = turned ? stream->codecpar->height : stream->codecpar->width;
    int32_t shown_height = turned ? stream->codecpar->width : stream->codecpar->height;
    if (shown_width <= 0 || shown_height <= 0) {
        status = avf_fail(message, AVF_ERR_DECODE, "the video stream does not say its size");
        goto end;
    }
    int32_t width = request->tile_width, height = request->tile_height;
    if (height == 0) height = avf_scaled(width, shown_height, shown_width);
    if (width == 0) width = avf_scaled(height, shown_width, shown_height);
    int32_t columns = request->columns < count ? request->columns : count;
    int32_t rows = (count + columns - 1) / columns;
    int64_t sheet_width = (int64_t)columns * width, sheet_height = (int64_t)rows * height;
    if (sheet_width > INT32_MAX || sheet_height > INT32_MAX || sheet_width * sheet_height > request->max_pixels) {
        status = avf_fail(message, AVF_ERR_TOO_LARGE, "a %lldx%lld sheet is past the limit of %lld pixels",
                          (long long)sheet_width, (long long)sheet_height, (long long)request->max_pixels);
        goto end;
    }
    tiles->tile_width = width;
    tiles->tile_height = height;
    tiles->columns = columns;
    tiles->sheet_width = (int32_t)sheet_width;
    tiles->sheet_height = (int32_t)sheet_height;
    size_t bytes = (size_t)sheet_width * sheet_height * 4;
    tiles->pixels = malloc(bytes > 0 ? bytes : 1);
    tiles->times = calloc((size_t)count, sizeof(double));
    if (!tiles->pixels || !tiles->times) {
        status = avf_fail(message, AVF_ERR_MEMORY, "no memory for a %lldx%lld sheet", (long long)sheet_width, (long long)sheet_height);
        goto end;
    }
    for (size_t i = 0; i < bytes; i += 4) {  // opaque black where no tile goes (the last row's end)
        tiles->pixels[i] = tiles->pixels[i + 1] = tiles->pixels[i + 2] = 0;
        tiles->pixels[i + 3] = 255;
    }

    AVFormatContext *format = session.format;
    int64_t start = format->start_time != AV_NOPTS_VALUE ? format->start_time : 0;
    int64_t position = AV_NOPTS_VALUE;
    for (int32_t i = 0; i < count; i++) {
        int64_t target = (int64_t)llround(i * request->interval * AV_TIME_BASE) + start;
        avf_ff.avformat_seek_file(format, -1, INT64_MIN, target, target, 0);
        int32_t decoded_before = tiles->decoded;
        status = request->key_frames_only ? avf_key_frame(&session, request, tiles, &position, message)
                                          : avf_frame_at(&session, request, tiles, target, message);
        if (status != AVF_OK) goto end;
        if (tiles->decoded == decoded_before) {
            avf_copy_tile(tiles, i - 1, i);  // the key frame of the tile before
            tiles->times[i] = tiles->times[i - 1];
            continue;
        }
        AVFrame *frame = session.frame;
        if ((int64_t)frame->width * frame->height > request->max_pixels) {
            status = avf_fail(message, AVF_ERR_TOO_LARGE, "a frame is %dx%d, past the limit", frame->width, frame->height);
            goto end;
        }
        int64_t pts = frame->best_effort_timestamp;
        if (pts != AV_NOPTS_VALUE) {
            tiles->times[i] = (double)(avf_ff.av_rescale_q(pts, stream->time_base, AV_TIME_BASE_Q) - start) / AV_TIME_BASE;
        }
        status = avf_place(tiles, frame, i, message);
        avf_ff.av_frame_unref(frame);
        if (status != AVF_OK) goto end;
        tiles->count = i + 1;
    }
    tiles->count = count;

end:
    tiles->bytes_read = session.io.bytes_read;
    avf_session_close(&session);
    if (status != AVF_OK) avf_tiles_free(tiles);
    return status;
}

void avf_tiles_free(avf_tiles *tiles) {
    if (!tiles) return;
    free(tiles->pixels);
    free(tiles->times);
    tiles->pixels = NULL;
    tiles->times = NULL;
}
