// Internal checks shared by the codec files.
#ifndef APC_CHECKS_H
#define APC_CHECKS_H

#include "CAssetCodecs.h"

/// Whether `width * height` exceeds the limits' pixel budget (no budget: never).
static inline int apc_too_many_pixels(const apc_limits *limits, uint32_t width, uint32_t height) {
    return limits != NULL && limits->max_pixels != 0 &&
           (uint64_t)width * (uint64_t)height > limits->max_pixels;
}

/// Whether `height` rows of `width` RGBA pixels, `row_bytes` apart, fit in `capacity` bytes
/// (width and height nonzero).
static inline int apc_output_fits(uint32_t width, uint32_t height, size_t row_bytes, size_t capacity) {
    return width != 0 && height != 0 &&
           row_bytes >= (size_t)width * 4 &&
           capacity / row_bytes >= (size_t)height - 1 &&
           capacity - row_bytes * ((size_t)height - 1) >= (size_t)width * 4;
}

#endif
