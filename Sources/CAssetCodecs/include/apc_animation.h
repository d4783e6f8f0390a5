// Animations read frame by frame: every frame composited onto the canvas as a browser shows it
// (disposal and blending applied), one canvas of RGBA rows at a time, so that an animation of any
// length costs one canvas (two for a GIF frame that restores the one before) and the file.
//
//   apc_gif.c   giflib, composited as libvips 8.18's loader (libnsgif) composites
//   apc_webp.c  libwebpdemux's WebPAnimDecoder
//
// Each *_animation_open copies the file (the handle owns its bytes: the caller need not pin them),
// walks it once to count the frames and checks the canvas against `limits` and the frame count
// against `max_frames` before any canvas is allocated. *_animation_next composites the next frame
// into the caller's rows (exactly the canvas size) and gives its duration; APC_ERR_NO_SUCH_PAGE
// once every frame has been given. A frame whose data are damaged is drawn as far as they go, with
// a warning, as libvips draws it; a first frame that cannot be read fails the open.
#ifndef APC_ANIMATION_H
#define APC_ANIMATION_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// What an animation's open learns.
typedef struct {
    uint32_t width;        // the canvas
    uint32_t height;
    uint32_t frames;       // frames in file order (a GIF: image descriptors; a WebP: ANMF chunks)
    uint32_t plays;        // how many times it plays: 0 = forever, 1 = once (a GIF without a loop extension)
    uint32_t has_alpha;    // some frame shows a transparent pixel (a GIF: some frame has a transparent index)
} apc_animation_info;

typedef struct apc_gif_animation apc_gif_animation;
typedef struct apc_webp_animation apc_webp_animation;

int32_t apc_gif_animation_open(const uint8_t *data, size_t length, const apc_limits *limits, uint32_t max_frames,
                               apc_gif_animation **animation, apc_animation_info *info, apc_report *report);
int32_t apc_gif_animation_next(apc_gif_animation *animation, uint8_t *pixels, size_t row_bytes, size_t capacity,
                               uint32_t *duration_ms, apc_report *report);
void apc_gif_animation_close(apc_gif_animation *animation);
/// Every frame's duration in milliseconds (at most `capacity`), from the records alone: no pixel is
/// decoded, and the frames still to be given are not disturbed. Returns how many were written.
uint32_t apc_gif_animation_durations(apc_gif_animation *animation, uint32_t *durations, uint32_t capacity);

int32_t apc_webp_animation_open(const uint8_t *data, size_t length, const apc_limits *limits, uint32_t max_frames,
                                apc_webp_animation **animation, apc_animation_info *info, apc_report *report);
int32_t apc_webp_animation_next(apc_webp_animation *animation, uint8_t *pixels, size_t row_bytes, size_t capacity,
                                uint32_t *duration_ms, apc_report *report);
void apc_webp_animation_close(apc_webp_animation *animation);
/// As apc_gif_animation_durations: the ANMF chunks' durations, read by libwebpdemux.
uint32_t apc_webp_animation_durations(apc_webp_animation *animation, uint32_t *durations, uint32_t capacity);

#ifdef __cplusplus
}
#endif

#endif
