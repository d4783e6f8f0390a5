// CAssetLottieRender: the C side of AssetLottieRender, over the system rlottie.
//
// One entry point does one whole operation: load the animation, check what rlottie read against
// what the caller expects, render one frame into the caller's buffer and turn rlottie's
// premultiplied ARGB32 into straight-alpha RGBA. rlottie is C++: every exception it throws (an
// allocation that fails, a container out of range) is caught here and reported as a status code
// plus a message, so that none ever unwinds into Swift. Nothing is printed.
#ifndef CASSETLOTTIERENDER_H
#define CASSETLOTTIERENDER_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Outcome of an entry point.
typedef enum {
    ALR_OK = 0,
    /// rlottie refused the JSON (it returned no animation).
    ALR_ERR_LOAD = 1,
    /// rlottie read another size or frame count than the caller expects.
    ALR_ERR_MISMATCH = 2,
    /// rlottie threw an exception while loading or rendering.
    ALR_ERR_EXCEPTION = 3,
    /// A null pointer, a zero size, or a buffer too small or not aligned for 32-bit pixels.
    ALR_ERR_INVALID_ARGUMENT = 4,
} alr_status;

#define ALR_MESSAGE_CAPACITY 256

/// What the caller expects rlottie to read, and what it read.
typedef struct {
    size_t width;        // the composition's w
    size_t height;       // the composition's h
    size_t frame_count;  // op - ip, each truncated toward zero, as rlottie counts
} alr_facts;

/// Loads `length` bytes of Lottie JSON with rlottie (its model cache keyed by the JSON's bytes, so
/// that the frames of one animation parse it once and a model is only found for the same bytes;
/// a new render tree every call; no resource directory, so that only `data:` URL images are ever
/// read), checks that rlottie reads `expected`, renders
/// frame `frame` (0 is the frame at ip; less than expected->frame_count) at `width` x `height`
/// (the animation fitted inside, centred, as rlottie does) into `rgba`, `width * height * 4`
/// bytes aligned to 4, `capacity` bytes in all, as straight-alpha RGBA. `read` receives what
/// rlottie read (when it loaded); `message` a NUL-terminated message on failure.
int32_t alr_render_rgba(const char *json, size_t length, const alr_facts *expected, size_t frame,
                        uint8_t *rgba, size_t width, size_t height, size_t capacity,
                        alr_facts *read, char message[ALR_MESSAGE_CAPACITY]);

/// Turns premultiplied ARGB32 pixels (native-endian 32-bit words, 0xAARRGGBB) into straight-alpha
/// RGBA bytes in place: each colour rounded as (c * 255 + a / 2) / a, capped at 255; a pixel of
/// alpha 0 becomes 0, 0, 0, 0.
void alr_unpremultiply_argb32(uint8_t *pixels, size_t pixel_count);

#ifdef __cplusplus
}
#endif

#endif
