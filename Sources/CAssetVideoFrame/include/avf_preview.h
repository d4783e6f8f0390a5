// CAssetVideoFrame: a video's animated preview, the frames shown from one time to another at a
// frame rate, decoded in one open of the container through the caller's positional reads (as
// avf_frame.h's frame) and handed to the caller one at a time, so that memory is a frame or two.
#ifndef CASSETVIDEOFRAME_PREVIEW_H
#define CASSETVIDEOFRAME_PREVIEW_H

#include "avf_frame.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Which frames, at what size, within what limits.
typedef struct {
    /// Seconds from the container's start: the first output frame shows `from`, frame k shows
    /// `from + k / fps` (the last frame that starts at or before it), while that is before `to`
    /// (clipped to the video's duration).
    double from;
    double to;
    /// 1: `from` (`to`) is a fraction of the duration, 0 up to 1, instead of seconds.
    int32_t from_is_progress;
    int32_t to_is_progress;
    double fps;
    /// The least size the frames must cover: each is scaled by swscale (bicubic) to the shown
    /// size times the larger of `cover_width / width` and `cover_height / height`, at most 1 (0:
    /// that side asks nothing; both 0: the shown size).
    int32_t cover_width;
    int32_t cover_height;
    /// The most output frames, and the longest preview in seconds (`to - from` once clipped): a
    /// longer one is refused before any decode.
    int32_t max_frames;
    double max_seconds;
    /// The largest frame the decoder may make, in pixels.
    int64_t max_pixels;
    /// The most video packets read in all.
    int32_t max_packets;
    /// Decoder threads (0: as many as FFmpeg picks).
    int32_t threads;
} avf_run_request;

/// What was decoded.
typedef struct {
    int32_t width;
    int32_t height;
    int32_t frames;
    /// The video's duration in seconds, the container's rotation (applied).
    double duration;
    int32_t rotation;
    int32_t decoded;
    int32_t packets;
    int64_t bytes_read;
    char container[64];
    char codec[32];
} avf_run_info;

/// Takes one output frame: `width * height * 4` bytes of RGBA (alpha 255), valid for the call,
/// shown for `duration_ms`. Returns 0 to go on; anything else stops the run, which returns
/// AVF_ERR_STOPPED.
typedef int32_t (*avf_run_sink)(void *context, const uint8_t *rgba, int32_t width, int32_t height, int32_t duration_ms);

/// Decodes the preview `request` asks of `source`, handing each output frame to `sink` in order.
int32_t avf_decode_run(const avf_source *source, const avf_run_request *request, avf_run_sink sink, void *context,
                       avf_run_info *info, char message[AVF_MESSAGE_CAPACITY]);

#ifdef __cplusplus
}
#endif

#endif
