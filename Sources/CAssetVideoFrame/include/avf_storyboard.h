// CAssetVideoFrame: a storyboard, a sheet of small frames of a video taken at a fixed interval,
// in one open of the container through the caller's positional reads (as avf_frame.h's frame).
#ifndef CASSETVIDEOFRAME_STORYBOARD_H
#define CASSETVIDEOFRAME_STORYBOARD_H

#include "avf_frame.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Which tiles, at what size, within what limits.
typedef struct {
    /// Seconds between tiles: tile i shows the video at i * interval (from the container's start).
    double interval;
    /// The most tiles: a video longer than `max_tiles * interval` is refused before any decode.
    int32_t max_tiles;
    /// A tile's width and height in pixels; one of them 0 follows the other keeping the shown
    /// aspect ratio (after the container's rotation).
    int32_t tile_width;
    int32_t tile_height;
    /// Tiles per row of the sheet.
    int32_t columns;
    /// 1: each tile is the key frame at or before its time (only the key frames' packets are read,
    /// and a key frame shared by several times is decoded once); 0: the first frame at or after
    /// its time, decoded from that key frame, as a frame of avf_decode_frame.
    int32_t key_frames_only;
    /// The largest frame the decoder may make, and the largest sheet, in pixels.
    int64_t max_pixels;
    /// The most video packets read for one tile before giving up.
    int32_t max_packets;
    /// Decoder threads (0: as many as FFmpeg picks).
    int32_t threads;
} avf_tiles_request;

/// The sheet: `columns` tiles a row, row after row, `sheet_width * sheet_height * 4` bytes of RGBA
/// (alpha 255), and each tile's time; both to free with `avf_tiles_free`.
typedef struct {
    uint8_t *pixels;
    int32_t sheet_width;
    int32_t sheet_height;
    int32_t tile_width;
    int32_t tile_height;
    int32_t columns;
    int32_t count;
    /// The time in seconds each tile shows (the frame's own, from the container's start).
    double *times;
    /// The video's duration in seconds (0 unknown), the container's rotation (applied).
    double duration;
    int32_t rotation;
    /// Frames decoded and packets read, and the bytes the decode asked `read` for.
    int32_t decoded;
    int32_t packets;
    int64_t bytes_read;
    char container[64];
    char codec[32];
} avf_tiles;

/// Decodes the tiles `request` asks of `source` into `tiles`. On failure `message` holds a
/// NUL-terminated reason and `tiles->pixels` is NULL.
int32_t avf_decode_tiles(const avf_source *source, const avf_tiles_request *request, avf_tiles *tiles,
                         char message[AVF_MESSAGE_CAPACITY]);

/// Frees `tiles->pixels` and `tiles->times` (NULL is fine).
void avf_tiles_free(avf_tiles *tiles);

#ifdef __cplusplus
}
#endif

#endif
