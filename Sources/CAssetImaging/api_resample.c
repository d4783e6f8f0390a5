// Separable resampling of RGBA8 in premultiplied float: a horizontal pass into a float
// intermediate (all source rows, dw pixels wide), then a vertical pass. The weights of each output
// pixel are computed once per axis; taps outside the image are dropped and the rest renormalised,
// so edges are exact (a constant image stays constant up to its last pixel).
#include "api_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef float api_v4 __attribute__((ext_vector_type(4)));

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

static double api_sinc(double x) {
    if (x == 0.0) return 1.0;
    double px = M_PI * x;
    return sin(px) / px;
}

static double api_kernel_support(int32_t kernel) {
    switch (kernel) {
    case API_KERNEL_NEAREST: return 0.5;
    case API_KERNEL_LINEAR: return 1.0;
    case API_KERNEL_CUBIC:
    case API_KERNEL_MITCHELL:
    case API_KERNEL_LANCZOS2: return 2.0;
    default: return 3.0;
    }
}

static double api_cubic(double x, double b, double c) {
    x = fabs(x);
    if (x < 1.0) {
        return ((12 - 9 * b - 6 * c) * x * x * x + (-18 + 12 * b + 6 * c) * x * x + (6 - 2 * b)) / 6.0;
    }
    if (x < 2.0) {
        return ((-b - 6 * c) * x * x * x + (6 * b + 30 * c) * x * x + (-12 * b - 48 * c) * x + (8 * b + 24 * c)) / 6.0;
    }
    return 0.0;
}

static double api_kernel_value(int32_t kernel, double x) {
    double ax = fabs(x);
    switch (kernel) {
    case API_KERNEL_NEAREST: return ax <= 0.5 ? 1.0 : 0.0;
    case API_KERNEL_LINEAR: return ax < 1.0 ? 1.0 - ax : 0.0;
    case API_KERNEL_CUBIC: return api_cubic(x, 0.0, 0.5);
    case API_KERNEL_MITCHELL: return api_cubic(x, 1.0 / 3.0, 1.0 / 3.0);
    case API_KERNEL_LANCZOS2: return ax < 2.0 ? api_sinc(x) * api_sinc(x / 2.0) : 0.0;
    default: return ax < 3.0 ? api_sinc(x) * api_sinc(x / 3.0) : 0.0;
    }
}

/// The taps of one axis: for output i, `count[i]` weights from source index `first[i]`, stored at
/// `weights + i * stride`.
typedef struct {
    int32_t *first;
    int32_t *count;
    float *weights;
    int32_t stride;
} api_taps;

static void api_taps_free(api_taps *taps) {
    free(taps->first);
    free(taps->count);
    free(taps->weights);
}

static int api_taps_make(api_taps *taps, uint32_t src, uint32_t dst, int32_t kernel) {
    memset(taps, 0, sizeof *taps);
    double scale = (double)dst / (double)src;
    double stretch = scale < 1.0 ? 1.0 / scale : 1.0;
    double support = api_kernel_support(kernel) * stretch;
    int32_t stride = (int32_t)ceil(support) * 2 + 2;
    if (kernel == API_KERNEL_NEAREST) stride = 1;
    taps->first = malloc(sizeof(int32_t) * dst);
    taps->count = malloc(sizeof(int32_t) * dst);
    taps->weights = calloc((size_t)dst * (size_t)stride, sizeof(float));
    taps->stride = stride;
    double *values = malloc(sizeof(double) * (size_t)stride);
    if (taps->first == NULL || taps->count == NULL || taps->weights == NULL || values == NULL) {
        free(values);
        api_taps_free(taps);
        return -1;
    }
    for (uint32_t i = 0; i < dst; i++) {
        double center = ((double)i + 0.5) / scale;
        float *w = taps->weights + (size_t)i * (size_t)stride;
        if (kernel == API_KERNEL_NEAREST) {
            int64_t index = (int64_t)floor(center);
            if (index >= (int64_t)src) index = (int64_t)src - 1;
            taps->first[i] = (int32_t)index;
            taps->count[i] = 1;
            w[0] = 1.0f;
            continue;
        }
        int64_t lo = (int64_t)floor(center - support);
        int64_t hi = (int64_t)ceil(center + support);
        if (lo < 0) lo = 0;
        if (hi > (int64_t)src) hi = (int64_t)src;
        if (hi - lo > stride) hi = lo + stride;
        double sum = 0.0;
        int32_t n = 0;
        for (int64_t j = lo; j < hi; j++, n++) {
            double v = api_kernel_value(kernel, ((double)j + 0.5 - center) / stretch);
            values[n] = v;
            sum += v;
        }
        if (n == 0 || sum == 0.0) {
            // Cannot happen for a kernel with positive area over its centre tap; keep a safe value.
            int64_t index = (int64_t)floor(center);
            if (index >= (int64_t)src) index = (int64_t)src - 1;
            taps->first[i] = (int32_t)index;
            taps->count[i] = 1;
            w[0] = 1.0f;
            continue;
        }
        // Trim zero weights at both ends (the window is generous).
        int32_t start = 0, end = n;
        while (start < end && values[start] == 0.0) start++;
        while (end > start && values[end - 1] == 0.0) end--;
        taps->first[i] = (int32_t)(lo + start);
        taps->count[i] = end - start;
        for (int32_t k = start; k < end; k++) w[k - start] = (float)(values[k] / sum);
    }
    free(values);
    return 0;
}

static inline uint8_t api_to_byte(float v) {
    if (!(v > 0.0f)) return 0;
    if (v >= 255.0f) return 255;
    return (uint8_t)(v + 0.5f);
}

int32_t api_resize_rgba(const uint8_t *src, uint32_t sw, uint32_t sh, size_t src_stride,
                        uint8_t *dst, uint32_t dw, uint32_t dh, size_t dst_stride,
                        int32_t kernel, int32_t opaque, uint64_t max_work_bytes, api_report *report) {
    api_report_clear(report);
    if (src == NULL || dst == NULL || sw == 0 || sh == 0 || dw == 0 || dh == 0 ||
        src_stride < (size_t)sw * 4 || dst_stride < (size_t)dw * 4 || kernel < 0 || kernel > API_KERNEL_LANCZOS3) {
        api_report_set(report, "invalid arguments to the resampler");
        return API_ERR_INVALID_ARGUMENT;
    }
    uint64_t work = (uint64_t)sh * (uint64_t)dw * sizeof(api_v4) + (uint64_t)sw * sizeof(api_v4);
    if (max_work_bytes != 0 && work > max_work_bytes) {
        api_report_set(report, "the resampler's intermediate exceeds its memory limit");
        return API_ERR_TOO_LARGE;
    }
    api_taps horizontal, vertical;
    if (api_taps_make(&horizontal, sw, dw, kernel) != 0) {
        api_report_set(report, "cannot allocate the resampler's weights");
        return API_ERR_TOO_LARGE;
    }
    if (api_taps_make(&vertical, sh, dh, kernel) != 0) {
        api_taps_free(&horizontal);
        api_report_set(report, "cannot allocate the resampler's weights");
        return API_ERR_TOO_LARGE;
    }
    api_v4 *middle = aligned_alloc(16, (size_t)sh * (size_t)dw * sizeof(api_v4));
    api_v4 *row = aligned_alloc(16, ((size_t)sw > (size_t)dw ? (size_t)sw : (size_t)dw) * sizeof(api_v4));
    if (middle == NULL || row == NULL) {
        free(middle);
        free(row);
        api_taps_free(&horizontal);
        api_taps_free(&vertical);
        api_report_set(report, "cannot allocate the resampler's intermediate");
        return API_ERR_TOO_LARGE;
    }

    // Only the source rows some output row reads are resampled horizontally.
    uint32_t row_lo = (uint32_t)vertical.first[0];
    uint32_t row_hi = (uint32_t)(vertical.first[dh - 1] + vertical.count[dh - 1]);
    for (uint32_t y = 0; y < dh; y++) {
        uint32_t a = (uint32_t)vertical.first[y], b = a + (uint32_t)vertical.count[y];
        if (a < row_lo) row_lo = a;
        if (b > row_hi) row_hi = b;
    }

    const float inv255 = 1.0f / 255.0f;
    for (uint32_t y = row_lo; y < row_hi; y++) {
        const uint8_t *in = src + (size_t)y * src_stride;
        if (opaque) {
            for (uint32_t x = 0; x < sw; x++) {
                row[x] = (api_v4){(float)in[4 * x], (float)in[4 * x + 1], (float)in[4 * x + 2], 255.0f};
            }
        } else {
            for (uint32_t x = 0; x < sw; x++) {
                float alpha = (float)in[4 * x + 3];
                float f = alpha * inv255;
                row[x] = (api_v4){(float)in[4 * x] * f, (float)in[4 * x + 1] * f, (float)in[4 * x + 2] * f, alpha};
            }
        }
        api_v4 *out = middle + (size_t)y * dw;
        for (uint32_t x = 0; x < dw; x++) {
            const float *w = horizontal.weights + (size_t)x * (size_t)horizontal.stride;
            const api_v4 *p = row + horizontal.first[x];
            int32_t n = horizontal.count[x];
            api_v4 acc = 0.0f;
            for (int32_t k = 0; k < n; k++) acc += p[k] * w[k];
            out[x] = acc;
        }
    }

    api_v4 *acc = row;  // dw pixels
    for (uint32_t y = 0; y < dh; y++) {
        const float *w = vertical.weights + (size_t)y * (size_t)vertical.stride;
        int32_t first = vertical.first[y], n = vertical.count[y];
        const api_v4 *in0 = middle + (size_t)first * dw;
        for (uint32_t x = 0; x < dw; x++) acc[x] = in0[x] * w[0];
        for (int32_t k = 1; k < n; k++) {
            const api_v4 *in = middle + (size_t)(first + k) * dw;
            float wk = w[k];
            for (uint32_t x = 0; x < dw; x++) acc[x] += in[x] * wk;
        }
        uint8_t *out = dst + (size_t)y * dst_stride;
        if (opaque) {
            for (uint32_t x = 0; x < dw; x++) {
                api_v4 v = acc[x];
                out[4 * x] = api_to_byte(v.x);
                out[4 * x + 1] = api_to_byte(v.y);
                out[4 * x + 2] = api_to_byte(v.z);
                out[4 * x + 3] = 255;
            }
        } else {
            for (uint32_t x = 0; x < dw; x++) {
                api_v4 v = acc[x];
                uint8_t alpha = api_to_byte(v.w);
                out[4 * x + 3] = alpha;
                if (alpha == 0) {
                    out[4 * x] = out[4 * x + 1] = out[4 * x + 2] = 0;
                    continue;
                }
                // Unpremultiply by the unrounded alpha, clamped to the rounded byte's range.
                float a = v.w < 0.5f ? 0.5f : v.w;
                float f = 255.0f / a;
                out[4 * x] = api_to_byte(v.x * f);
                out[4 * x + 1] = api_to_byte(v.y * f);
                out[4 * x + 2] = api_to_byte(v.z * f);
            }
        }
    }

    free(middle);
    free(row);
    api_taps_free(&horizontal);
    api_taps_free(&vertical);
    return API_OK;
}
