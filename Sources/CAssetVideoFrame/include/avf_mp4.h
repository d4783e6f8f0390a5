// MP4 output: RGBA frames in, an H.264 (libx264 through libavcodec, yuv420p, BT.709 limited range)
// MP4 out, its index (`moov`) before the media (`+faststart`), so that a browser plays it while it
// downloads. Written in memory, bounded by a byte limit; FFmpeg's libraries are the ones
// avf_frame.h's decoder opens on first use. A failed call leaves the writer failed; only free
// remains. Not thread-safe: one writer belongs to one thread at a time.
#ifndef AVF_MP4_H
#define AVF_MP4_H

#include <stddef.h>
#include <stdint.h>

#include "avf_frame.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct avf_mp4 avf_mp4;

/// What to write.
typedef struct {
    /// The frames' size. yuv420p holds even sides only: an odd side loses its last row or column.
    int32_t width;
    int32_t height;
    /// x264's constant rate factor, 0 (lossless) to 51; 23 is its default.
    int32_t crf;
    /// x264's preset name (`medium` is its default), NUL-terminated.
    const char *preset;
    /// Encoder threads, 0 for x264's own choice.
    int32_t threads;
    /// The colour alpha is flattened onto (H.264 holds none).
    uint8_t background[3];
    /// The largest output in bytes (0: none).
    int64_t max_bytes;
} avf_mp4_options;

/// Starts an MP4. AVF_ERR_UNAVAILABLE without FFmpeg's libraries, AVF_ERR_CODEC without libx264,
/// AVF_ERR_TOO_LARGE for a side under 2 or over 16384.
int32_t avf_mp4_new(const avf_mp4_options *options, avf_mp4 **writer, char message[AVF_MESSAGE_CAPACITY]);
/// Adds a `width` x `height` RGBA frame (`stride` bytes a row, straight alpha) shown for
/// `duration_ms` (at least 1).
int32_t avf_mp4_add(avf_mp4 *writer, const uint8_t *rgba, size_t stride, int32_t duration_ms,
                    char message[AVF_MESSAGE_CAPACITY]);
/// Ends the stream and writes the file: `*length` bytes at `*bytes`, to free with
/// `avf_mp4_bytes_free`.
/// AVF_ERR_TOO_LARGE past `max_bytes`; AVF_ERR_ENCODE when no frame was added or the encoder or
/// muxer failed.
int32_t avf_mp4_finish(avf_mp4 *writer, uint8_t **bytes, size_t *length, char message[AVF_MESSAGE_CAPACITY]);
void avf_mp4_free(avf_mp4 *writer);
void avf_mp4_bytes_free(uint8_t *bytes);

#ifdef __cplusplus
}
#endif

#endif
