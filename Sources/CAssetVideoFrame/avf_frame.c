// CAssetVideoFrame: one frame of a video through the caller's positional reads. See avf_frame.h.
#include "avf_ffmpeg.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int32_t avf_decode_frame(const avf_source *source, const avf_request *request, avf_frame *result,
                         char message[AVF_MESSAGE_CAPACITY]) {
    memset(result, 0, sizeof *result);
    avf_session session;
    int32_t status = avf_session_open(&session, source, request->max_pixels, request->threads, result->container,
                                      result->codec, message);
    if (status != AVF_OK) goto end;
    AVFormatContext *format = session.format;
    AVStream *stream = session.stream;
    AVCodecContext *decoder = session.decoder;
    AVPacket *packet = session.packet;
    AVFrame *frame = session.frame, *kept = session.kept;
    int index = session.index;
    double duration = session.duration;
    result->duration = duration;
    int code;
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
        avf_ff.avformat_seek_file(format, -1, INT64_MIN, target, target, 0);
    }

    int have = 0, ended = 0;
    while (!have) {
        if (!ended) {
            code = avf_ff.av_read_frame(format, packet);
            if (code == AVERROR_EOF) {
                ended = 1;
                avf_ff.avcodec_send_packet(decoder, NULL);
            } else if (code < 0) {
                status = session.io.failed ? avf_fail(message, AVF_ERR_READ, "a read failed while reading packets")
                                   : avf_fail(message, AVF_ERR_DECODE, "the container broke off (%s)", avf_error_text(code));
                goto end;
            } else if (packet->stream_index != index) {
                avf_ff.av_packet_unref(packet);
                continue;
            } else {
                if (++result->packets > request->max_packets) {
                    status = avf_fail(message, AVF_ERR_TOO_MANY_PACKETS, "%d packets went by without the frame",
                                      request->max_packets);
                    goto end;
                }
                code = avf_ff.avcodec_send_packet(decoder, packet);
                avf_ff.av_packet_unref(packet);
                // a broken packet is skipped, as ffmpeg does; the next key frame recovers
                if (code < 0 && code != AVERROR(EAGAIN)) continue;
            }
        }
        for (;;) {
            code = avf_ff.avcodec_receive_frame(decoder, frame);
            if (code == AVERROR(EAGAIN)) break;
            if (code == AVERROR_EOF) {
                if (kept->format >= 0 && kept->width > 0) {
                    // past the last frame's start but before the end: the last frame
                    avf_ff.av_frame_move_ref(frame, kept);
                    have = 1;
                    break;
                }
                status = avf_fail(message, AVF_ERR_DECODE, "the stream ended before a frame was decoded");
                goto end;
            }
            if (code < 0) {
                status = avf_fail(message, AVF_ERR_DECODE, "the %s decoder failed (%s)", session.codec->name, avf_error_text(code));
                goto end;
            }
            int64_t pts = frame->best_effort_timestamp;
            if (target != AV_NOPTS_VALUE && pts != AV_NOPTS_VALUE
                && avf_ff.av_rescale_q(pts, stream->time_base, AV_TIME_BASE_Q) < target) {
                avf_ff.av_frame_unref(kept);
                avf_ff.av_frame_move_ref(kept, frame);
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
        result->time = (double)(avf_ff.av_rescale_q(frame->best_effort_timestamp, stream->time_base, AV_TIME_BASE_Q) - start)
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
    result->bytes_read = session.io.bytes_read;
    avf_session_close(&session);
    return status;
}

void avf_free(avf_frame *frame) {
    if (!frame) return;
    free(frame->pixels);
    frame->pixels = NULL;
}
