// CAssetVideoFrame: a video's animated preview in one open of the container. See avf_preview.h.
#include "avf_preview.h"
#include "avf_ffmpeg.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// The run's state: the frame shown now (`kept`, its time) and its pixels once converted.
typedef struct {
    avf_session *session;
    const avf_run_request *request;
    avf_run_sink sink;
    void *context;
    avf_run_info *info;
    int64_t start;  // the container's start, AV_TIME_BASE units
    double from;    // seconds from it
    int32_t count;  // output frames
    int32_t next;   // the next output frame
    uint8_t *pixels;  // `kept` converted, or NULL until asked
} avf_run;

static int64_t avf_output_time(const avf_run *run, int32_t k) {
    return run->start + (int64_t)llround((run->from + k / run->request->fps) * AV_TIME_BASE);
}

static int32_t avf_output_duration(const avf_run *run, int32_t k) {
    double fps = run->request->fps;
    return (int32_t)(llround(1000.0 * (k + 1) / fps) - llround(1000.0 * k / fps));
}

// Hands `kept` (converted once) to the sink as output frame `next`.
static int32_t avf_emit(avf_run *run, char *message) {
    avf_session *session = run->session;
    avf_run_info *info = run->info;
    if (!run->pixels) {
        const AVFrame *frame = session->kept;
        if ((int64_t)frame->width * frame->height > run->request->max_pixels) {
            return avf_fail(message, AVF_ERR_TOO_LARGE, "a frame is %dx%d, past the limit", frame->width, frame->height);
        }
        int turned = info->rotation == 90 || info->rotation == 270;
        int32_t width = turned ? info->height : info->width, height = turned ? info->width : info->height;
        int32_t status = avf_convert(frame, width, height, &run->pixels, message);
        if (status != AVF_OK) return status;
        if (info->rotation != 0) {
            uint8_t *upright = avf_rotate(run->pixels, width, height, info->rotation);
            free(run->pixels);
            run->pixels = upright;
            if (!upright) return avf_fail(message, AVF_ERR_MEMORY, "no memory to turn a frame");
        }
    }
    if (run->sink(run->context, run->pixels, info->width, info->height, avf_output_duration(run, run->next)) != 0) {
        return avf_fail(message, AVF_ERR_STOPPED, "stopped by the caller");
    }
    run->next++;
    info->frames = run->next;
    return AVF_OK;
}

// A newly decoded frame at `time` (AV_TIME_BASE units): the output frames that show before it
// show the frame kept so far (or this one, before any); then it is kept.
static int32_t avf_take(avf_run *run, int64_t time, char *message) {
    avf_session *session = run->session;
    int has_kept = session->kept->width > 0;
    while (run->next < run->count && avf_output_time(run, run->next) < time) {
        if (!has_kept) {  // the first frame starts after `from`: it shows from there
            avf_ff.av_frame_move_ref(session->kept, session->frame);
            has_kept = 1;
        }
        int32_t status = avf_emit(run, message);
        if (status != AVF_OK) return status;
    }
    if (session->frame->width > 0) {
        avf_ff.av_frame_unref(session->kept);
        avf_ff.av_frame_move_ref(session->kept, session->frame);
        free(run->pixels);
        run->pixels = NULL;
    }
    return AVF_OK;
}

int32_t avf_decode_run(const avf_source *source, const avf_run_request *request, avf_run_sink sink, void *context,
                       avf_run_info *info, char message[AVF_MESSAGE_CAPACITY]) {
    memset(info, 0, sizeof *info);
    avf_session session;
    avf_run run = {.session = &session, .request = request, .sink = sink, .context = context, .info = info};
    int32_t status = avf_session_open(&session, source, request->max_pixels, request->threads, info->container, info->codec,
                                      message);
    if (status != AVF_OK) goto end;
    if (!(request->fps > 0 && request->fps <= 1000 && isfinite(request->from) && request->from >= 0 && isfinite(request->to))
        || (request->from_is_progress && request->from >= 1) || (request->to_is_progress && request->to > 1)
        || request->max_frames < 1 || request->cover_width < 0 || request->cover_height < 0) {
        status = avf_fail(message, AVF_ERR_OUT_OF_RANGE, "a preview needs a start at 0 or after, an end and a positive rate");
        goto end;
    }
    double duration = session.duration;
    info->duration = duration;
    if (!(duration > 0)) {
        status = avf_fail(message, AVF_ERR_OUT_OF_RANGE, "the video does not say how long it is");
        goto end;
    }
    double from = request->from_is_progress ? request->from * duration : request->from;
    double to = request->to_is_progress ? request->to * duration : request->to;
    if (to > duration) to = duration;
    run.from = from;
    if (from >= duration || to <= from) {
        status = avf_fail(message, AVF_ERR_OUT_OF_RANGE, "the preview from %.3f s to %.3f s is outside the video's %.3f s", from,
                          to, duration);
        goto end;
    }
    if (!(to - from <= request->max_seconds)) {
        status = avf_fail(message, AVF_ERR_TOO_LARGE, "a preview of %.3f s is past the limit of %.3g s", to - from,
                          request->max_seconds);
        goto end;
    }
    double wanted = ceil((to - from) * request->fps - 1e-9);
    if (wanted < 1) wanted = 1;
    if (wanted > request->max_frames) {
        status = avf_fail(message, AVF_ERR_TOO_LARGE, "%.0f frames at %.3g a second, past the limit of %d", wanted, request->fps,
                          request->max_frames);
        goto end;
    }
    run.count = (int32_t)wanted;
    AVStream *stream = session.stream;
    info->rotation = avf_rotation(stream);
    int turned = info->rotation == 90 || info->rotation == 270;
    int32_t shown_width = turned ? stream->codecpar->height : stream->codecpar->width;
    int32_t shown_height = turned ? stream->codecpar->width : stream->codecpar->height;
    if (shown_width <= 0 || shown_height <= 0) {
        status = avf_fail(message, AVF_ERR_DECODE, "the video stream does not say its size");
        goto end;
    }
    double scale = fmax((double)request->cover_width / shown_width, (double)request->cover_height / shown_height);
    if (!(scale > 0) || scale > 1) scale = 1;
    info->width = (int32_t)fmax(1, ceil(shown_width * scale - 1e-9));
    info->height = (int32_t)fmax(1, ceil(shown_height * scale - 1e-9));

    AVFormatContext *format = session.format;
    run.start = format->start_time != AV_NOPTS_VALUE ? format->start_time : 0;
    int64_t target = avf_output_time(&run, 0);
    avf_ff.avformat_seek_file(format, -1, INT64_MIN, target, target, 0);
    avf_ff.avcodec_flush_buffers(session.decoder);
    AVPacket *packet = session.packet;
    int ended = 0;
    while (run.next < run.count) {
        if (!ended) {
            int code = avf_ff.av_read_frame(format, packet);
            if (code == AVERROR_EOF) {
                ended = 1;
                avf_ff.avcodec_send_packet(session.decoder, NULL);
            } else if (code < 0) {
                status = session.io.failed ? avf_fail(message, AVF_ERR_READ, "a read failed while reading packets")
                                           : avf_fail(message, AVF_ERR_DECODE, "the container broke off (%s)", avf_error_text(code));
                goto end;
            } else if (packet->stream_index != session.index) {
                avf_ff.av_packet_unref(packet);
                continue;
            } else {
                if (++info->packets > request->max_packets) {
                    status = avf_fail(message, AVF_ERR_TOO_MANY_PACKETS, "%d packets read for the preview", request->max_packets);
                    goto end;
                }
                avf_ff.avcodec_send_packet(session.decoder, packet);
                avf_ff.av_packet_unref(packet);
            }
        }
        for (;;) {
            int code = avf_ff.avcodec_receive_frame(session.decoder, session.frame);
            if (code == AVERROR(EAGAIN)) break;
            if (code == AVERROR_EOF) {
                if (session.kept->width <= 0) {
                    status = avf_fail(message, AVF_ERR_DECODE, "the stream ended before a frame was decoded");
                    goto end;
                }
                while (run.next < run.count) {  // the last frame shows to the end
                    if ((status = avf_emit(&run, message)) != AVF_OK) goto end;
                }
                break;
            }
            if (code < 0) {
                status = avf_fail(message, AVF_ERR_DECODE, "the %s decoder failed (%s)", session.codec->name, avf_error_text(code));
                goto end;
            }
            info->decoded++;
            int64_t pts = session.frame->best_effort_timestamp;
            int64_t time = pts == AV_NOPTS_VALUE ? INT64_MIN : avf_ff.av_rescale_q(pts, stream->time_base, AV_TIME_BASE_Q);
            if ((status = avf_take(&run, time, message)) != AVF_OK) goto end;
            if (run.next >= run.count) break;
        }
        if (ended && run.next < run.count && session.kept->width <= 0) {
            status = avf_fail(message, AVF_ERR_DECODE, "the decoder kept no frame at the end of the stream");
            goto end;
        }
    }
    status = AVF_OK;

end:
    info->bytes_read = session.io.bytes_read;
    free(run.pixels);
    avf_session_close(&session);
    return status;
}
