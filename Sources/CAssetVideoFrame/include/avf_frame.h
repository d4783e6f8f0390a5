// CAssetVideoFrame: the C side of AssetVideoFrames, over the system FFmpeg libraries.
//
// One entry point does one whole operation: open a container through the caller's positional
// reads (a custom AVIOContext: no file, no network, no protocol of FFmpeg's own), pick the video
// stream, seek to the key frame before a time, decode up to the first frame at or after it and
// convert it to RGBA with swscale, as `ffmpeg -ss T -i FILE -frames:v 1` does. FFmpeg reports
// failures as return codes (it never longjmps or throws); each becomes a status and a message.
// Only the MP4/QuickTime and Matroska/WebM demuxers and a list of common video decoders run.
// avf_storyboard.h's entry point makes a sheet of small frames at an interval in one open.
#ifndef CASSETVIDEOFRAME_H
#define CASSETVIDEOFRAME_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Outcome of `avf_decode_frame`.
typedef enum {
    AVF_OK = 0,
    /// Not an MP4/QuickTime or Matroska/WebM container, or its header is broken.
    AVF_ERR_CONTAINER = 1,
    /// No video stream (attached cover pictures do not count).
    AVF_ERR_NO_VIDEO = 2,
    /// The video's codec has no decoder here, or is not on the list.
    AVF_ERR_CODEC = 3,
    /// The time is past the end (or negative).
    AVF_ERR_OUT_OF_RANGE = 4,
    /// The decoder failed, or the stream ended before any frame at or after the time.
    AVF_ERR_DECODE = 5,
    /// The frame, or the size asked for, is past the pixel limit, or a size is not positive.
    AVF_ERR_TOO_LARGE = 6,
    /// A read of the caller's failed (not the end of the data).
    AVF_ERR_READ = 7,
    /// More packets than the limit went by without a frame at the time.
    AVF_ERR_TOO_MANY_PACKETS = 8,
    /// An allocation failed.
    AVF_ERR_MEMORY = 9,
    /// FFmpeg's libraries, opened on the first decode, are missing or lack a function.
    AVF_ERR_UNAVAILABLE = 10,
    /// An encoder or muxer failed (avf_mp4.h).
    AVF_ERR_ENCODE = 11,
    /// The caller's sink asked to stop (avf_preview.h).
    AVF_ERR_STOPPED = 12,
} avf_status;

#define AVF_MESSAGE_CAPACITY 256

/// The caller's data: `size` bytes read at any offset through `read`, which fills `buffer` with up
/// to `count` bytes at `offset` and returns how many it wrote (0 only at the end), or -1 when the
/// read failed. It is called on the thread that called `avf_decode_frame`.
typedef struct {
    void *context;
    int64_t size;
    int32_t (*read)(void *context, uint8_t *buffer, int32_t count, int64_t offset);
} avf_source;

/// Which frame, at what size, within what limits.
typedef struct {
    /// 0: the first frame; 1: the first frame at or after `seconds` from the start;
    /// 2: the same at `progress` (0 up to 1, 1 excluded) of the duration.
    int32_t mode;
    double seconds;
    double progress;
    /// The output size, 0 for the frame's own (after rotation); one of them 0 follows the other
    /// keeping the stored aspect ratio.
    int32_t width;
    int32_t height;
    /// The largest frame the decoder may make, and the largest output, in pixels.
    int64_t max_pixels;
    /// The most video packets read after the seek before giving up.
    int32_t max_packets;
    /// Decoder threads (0: as many as FFmpeg picks).
    int32_t threads;
} avf_request;

/// The decoded frame: `width * height * 4` bytes of RGBA (alpha 255), to free with `avf_free`.
typedef struct {
    uint8_t *pixels;
    int32_t width;
    int32_t height;
    /// The frame's time in seconds from the start, and the container's duration (0 unknown).
    double time;
    double duration;
    /// The clockwise rotation the container asks for when showing the video (0, 90, 180, 270);
    /// the pixels are already turned.
    int32_t rotation;
    /// The bytes the decode asked `read` for, and the video packets it decoded.
    int64_t bytes_read;
    int32_t packets;
    /// The demuxer's and the decoder's names ("mov,mp4,m4a,3gp,3g2,mj2", "h264").
    char container[64];
    char codec[32];
} avf_frame;

/// Decodes one frame of `source` as `request` says into `frame`. On failure `message` holds a
/// NUL-terminated reason and `frame->pixels` is NULL.
int32_t avf_decode_frame(const avf_source *source, const avf_request *request, avf_frame *frame,
                         char message[AVF_MESSAGE_CAPACITY]);

/// Frees `frame->pixels` (NULL is fine).
void avf_free(avf_frame *frame);

#ifdef __cplusplus
}
#endif

#endif
