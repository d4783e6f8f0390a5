// Animated output, one frame at a time: animated WebP through libwebpmux's WebPAnimEncoder
// (api_webp_anim_write.c) and GIF through cgif with our own quantizer (api_gif_write.c). Each
// takes canvas-size RGBA frames in order with their durations, and writes the file at finish
// into an api_buffer bounded by its limit. A failed call leaves the encoder failed; only free
// remains. Frames are not kept: what an encoder holds is bounded by a few canvases and its output.
#ifndef API_ANIMATION_H
#define API_ANIMATION_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct api_webp_animation api_webp_animation;

/// Starts an animated WebP of `w` x `h` playing `plays` times (0: forever), each frame encoded
/// with `options` (lossy or lossless, quality, method; the ICC profile is not used). `opaque`:
/// no frame has alpha, so none is written.
int32_t api_webp_animation_new(uint32_t w, uint32_t h, uint32_t plays, int32_t opaque, const api_webp_options *options,
                               api_webp_animation **encoder, api_report *report);
/// Adds a frame shown for `duration_ms`.
int32_t api_webp_animation_add(api_webp_animation *encoder, const uint8_t *rgba, size_t stride, uint32_t duration_ms,
                               api_report *report);
/// Writes the file into `out`.
int32_t api_webp_animation_finish(api_webp_animation *encoder, api_buffer *out, api_report *report);
void api_webp_animation_free(api_webp_animation *encoder);

typedef struct api_gif_animation api_gif_animation;

/// Starts a GIF of `w` x `h` (at most 65535 a side). `animated`: a GIF89a animation playing `plays`
/// times (0: forever, 1: once, written without a loop extension); else a still of one frame.
/// `has_alpha`: pixels under alpha 128 are transparent. Each frame is drawn over the one before and
/// written as the window that changed, the pixels that show what they showed before transparent,
/// unless a pixel becomes transparent: then the frame before is disposed of to the background and
/// this one is written whole. `dither`: Floyd-
/// Steinberg diffusion of the quantization error. The output is bounded by `max_bytes` (0: none)
/// from the first frame on, as cgif writes frames while they come.
int32_t api_gif_animation_new(uint32_t w, uint32_t h, int32_t animated, uint32_t plays, int32_t has_alpha,
                              int32_t dither, size_t max_bytes, api_gif_animation **encoder, api_report *report);
/// Quantizes and adds a frame shown for `duration_ms` (written in hundredths of a second). The
/// palette of the frame before is kept when it maps this frame nearly as well as its own would;
/// else the frame has its own (local) table.
int32_t api_gif_animation_add(api_gif_animation *encoder, const uint8_t *rgba, size_t stride, uint32_t duration_ms,
                              api_report *report);
/// Writes the file into `out`.
int32_t api_gif_animation_finish(api_gif_animation *encoder, api_buffer *out, api_report *report);
void api_gif_animation_free(api_gif_animation *encoder);

#ifdef __cplusplus
}
#endif

#endif
