// Orientation, opacity test, flattening and alpha dropping of RGBA8 rows. Never fails on data.
#include "api_internal.h"

#include <string.h>

int32_t api_orient_rgba(const uint8_t *src, uint32_t w, uint32_t h, size_t src_stride, uint32_t orientation,
                        uint8_t *dst, size_t dst_stride, api_report *report) {
    api_report_clear(report);
    int transposed = orientation >= 5;
    uint32_t dw = transposed ? h : w;
    if (src == NULL || dst == NULL || w == 0 || h == 0 || orientation < 1 || orientation > 8 ||
        src_stride < (size_t)w * 4 || dst_stride < (size_t)dw * 4) {
        api_report_set(report, "invalid arguments to the orientation");
        return API_ERR_INVALID_ARGUMENT;
    }
    if (orientation == 1) {
        for (uint32_t y = 0; y < h; y++) memcpy(dst + (size_t)y * dst_stride, src + (size_t)y * src_stride, (size_t)w * 4);
        return API_OK;
    }
    // For each source pixel (x, y), its place (u, v) in the upright image.
    for (uint32_t y = 0; y < h; y++) {
        const uint32_t *in = (const uint32_t *)(const void *)(src + (size_t)y * src_stride);
        for (uint32_t x = 0; x < w; x++) {
            uint32_t u, v;
            switch (orientation) {
            case 2: u = w - 1 - x; v = y; break;             // mirrored horizontally
            case 3: u = w - 1 - x; v = h - 1 - y; break;     // rotated 180
            case 4: u = x; v = h - 1 - y; break;             // mirrored vertically
            case 5: u = y; v = x; break;                     // transposed
            case 6: u = h - 1 - y; v = x; break;             // rotate 90 clockwise to display
            case 7: u = h - 1 - y; v = w - 1 - x; break;     // transversed
            default: u = y; v = w - 1 - x; break;            // 8: rotate 90 counter-clockwise
            }
            uint8_t *out = dst + (size_t)v * dst_stride + (size_t)u * 4;
            memcpy(out, &in[x], 4);
        }
    }
    return API_OK;
}

int32_t api_is_opaque(const uint8_t *src, uint32_t w, uint32_t h, size_t stride) {
    for (uint32_t y = 0; y < h; y++) {
        const uint8_t *row = src + (size_t)y * stride;
        uint8_t all = 255;
        for (uint32_t x = 0; x < w; x++) all &= row[4 * x + 3];
        if (all != 255) return 0;
    }
    return 1;
}

void api_flatten_rgba(const uint8_t *src, uint32_t w, uint32_t h, size_t src_stride,
                      uint8_t bg_r, uint8_t bg_g, uint8_t bg_b, uint8_t *dst, size_t dst_stride) {
    for (uint32_t y = 0; y < h; y++) {
        const uint8_t *in = src + (size_t)y * src_stride;
        uint8_t *out = dst + (size_t)y * dst_stride;
        for (uint32_t x = 0; x < w; x++, in += 4, out += 3) {
            unsigned a = in[3], na = 255 - a;
            out[0] = (uint8_t)((in[0] * a + bg_r * na + 127) / 255);
            out[1] = (uint8_t)((in[1] * a + bg_g * na + 127) / 255);
            out[2] = (uint8_t)((in[2] * a + bg_b * na + 127) / 255);
        }
    }
}

void api_rgba_to_rgb(const uint8_t *src, uint32_t w, uint32_t h, size_t src_stride, uint8_t *dst, size_t dst_stride) {
    for (uint32_t y = 0; y < h; y++) {
        const uint8_t *in = src + (size_t)y * src_stride;
        uint8_t *out = dst + (size_t)y * dst_stride;
        for (uint32_t x = 0; x < w; x++, in += 4, out += 3) {
            out[0] = in[0];
            out[1] = in[1];
            out[2] = in[2];
        }
    }
}
