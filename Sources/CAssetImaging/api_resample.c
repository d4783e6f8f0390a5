// Separable resampling of RGBA8 in premultiplied float, streamed: each source row pushed is
// resampled horizontally into a ring of float rows (as many as the widest vertical window), and
// each output row is written by the vertical pass as soon as its last source row has arrived, so
// the source never needs to be in memory whole. The weights of each output pixel are computed once
// per axis; taps outside the image are dropped and the rest renormalised, so edges are exact (a
// constant image stays constant up to its last pixel).
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
        // Trim zero weights at the end (the window is generous). The start stays, so that each
        // output's first source index never decreases from one output to the next: the streamed
        // vertical pass relies on it.
        int32_t start = 0, end = n;
        while (end > start + 1 && values[end - 1] == 0.0) end--;
        taps->first[i] = (int32_t)(lo + start);
        taps->count[i] = end - start;
        for (int32_t k = start; k < end; k++) w[k - start] = (float)(values[k] / sum);
    }
    free(values);
    return 0;
}

/// `size` bytes aligned for AVX (32), or NULL. posix_memalign, not aligned_alloc: C11 wants the
/// latter's size to be a multiple of its alignment, and a row of an odd number of pixels is not
/// (found by scripts/fuzz codecs under AddressSanitizer).
static void *api_aligned(size_t size) {
    void *memory = NULL;
    if (posix_memalign(&memory, 32, size == 0 ? 32 : size) != 0) return NULL;
    return memory;
}

static inline uint8_t api_to_byte(float v) {
    if (!(v > 0.0f)) return 0;
    if (v >= 255.0f) return 255;
    return (uint8_t)(v + 0.5f);
}

struct api_resizer {
    uint32_t sw, sh, dw, dh;
    int32_t opaque;
    int32_t avx2;       // the CPU has AVX2 and FMA: the passes compiled for them run
    api_taps horizontal, vertical;
    api_v4 *hweights;   // the horizontal weights, each repeated in 4 lanes (one multiply per tap)
    api_v4 *ring;       // `ring_rows` horizontally resampled rows, dw pixels each
    uint32_t ring_rows;
    api_v4 *row;        // one source row as premultiplied floats (sw), then the vertical accumulator (dw)
    uint32_t next_in;   // source rows pushed so far
    uint32_t next_out;  // output rows written so far
};

void api_resizer_destroy(api_resizer *resizer) {
    if (resizer == NULL) return;
    api_taps_free(&resizer->horizontal);
    api_taps_free(&resizer->vertical);
    free(resizer->hweights);
    free(resizer->ring);
    free(resizer->row);
    free(resizer);
}

int32_t api_resizer_create(uint32_t sw, uint32_t sh, uint32_t dw, uint32_t dh, int32_t kernel, int32_t opaque,
                           uint64_t max_work_bytes, api_resizer **out, api_report *report) {
    api_report_clear(report);
    if (out == NULL) return API_ERR_INVALID_ARGUMENT;
    *out = NULL;
    if (sw == 0 || sh == 0 || dw == 0 || dh == 0 || kernel < 0 || kernel > API_KERNEL_LANCZOS3) {
        api_report_set(report, "invalid arguments to the resampler");
        return API_ERR_INVALID_ARGUMENT;
    }
    api_resizer *r = calloc(1, sizeof *r);
    if (r == NULL) {
        api_report_set(report, "cannot allocate the resampler");
        return API_ERR_TOO_LARGE;
    }
    r->sw = sw; r->sh = sh; r->dw = dw; r->dh = dh;
    r->opaque = opaque;
#if defined(__x86_64__) || defined(__i386__)
    __builtin_cpu_init();
    r->avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#endif
    if (api_taps_make(&r->horizontal, sw, dw, kernel) != 0 || api_taps_make(&r->vertical, sh, dh, kernel) != 0) {
        api_resizer_destroy(r);
        api_report_set(report, "cannot allocate the resampler's weights");
        return API_ERR_TOO_LARGE;
    }
    // The ring holds the most rows one output row reads (see api_resizer_push).
    uint32_t most = 1;
    for (uint32_t y = 0; y < dh; y++) {
        if ((uint32_t)r->vertical.count[y] > most) most = (uint32_t)r->vertical.count[y];
    }
    r->ring_rows = most;
    size_t hweights = (size_t)dw * (size_t)r->horizontal.stride;
    uint64_t work = (uint64_t)most * dw * sizeof(api_v4) + (uint64_t)(sw > dw ? sw : dw) * sizeof(api_v4) +
                    (uint64_t)hweights * sizeof(api_v4);
    if (max_work_bytes != 0 && work > max_work_bytes) {
        api_resizer_destroy(r);
        api_report_set(report, "the resampler's working memory exceeds its limit");
        return API_ERR_TOO_LARGE;
    }
    r->hweights = api_aligned(hweights * sizeof(api_v4));
    r->ring = api_aligned((size_t)most * dw * sizeof(api_v4));
    r->row = api_aligned((size_t)(sw > dw ? sw : dw) * sizeof(api_v4));
    if (r->hweights == NULL || r->ring == NULL || r->row == NULL) {
        api_resizer_destroy(r);
        api_report_set(report, "cannot allocate the resampler's rows");
        return API_ERR_TOO_LARGE;
    }
    for (size_t i = 0; i < hweights; i++) r->hweights[i] = (api_v4)r->horizontal.weights[i];
    *out = r;
    return API_OK;
}

/// The two passes, compiled twice below: for the baseline (SSE2) and for AVX2 with FMA. Plain
/// loops over `restrict` pointers that clang vectorizes; `a * b + c` contracts to FMA where the
/// target has it.
#define API_RESAMPLE_PASSES(SUFFIX, ATTRIBUTES)                                                        \
    /* One source row, converted to premultiplied floats, resampled horizontally into `out`. */       \
    ATTRIBUTES static void api_horizontal_##SUFFIX(api_resizer *r, const uint8_t *restrict in,        \
                                                   api_v4 *restrict out) {                            \
        api_v4 *restrict row = r->row;                                                                 \
        uint32_t sw = r->sw;                                                                           \
        if (r->opaque) {                                                                               \
            for (uint32_t x = 0; x < sw; x++) {                                                        \
                row[x] = (api_v4){(float)in[4 * x], (float)in[4 * x + 1], (float)in[4 * x + 2], 255.0f}; \
            }                                                                                          \
        } else {                                                                                       \
            for (uint32_t x = 0; x < sw; x++) {                                                        \
                float alpha = (float)in[4 * x + 3];                                                    \
                float f = alpha * (1.0f / 255.0f);                                                     \
                row[x] = (api_v4){(float)in[4 * x] * f, (float)in[4 * x + 1] * f,                     \
                                  (float)in[4 * x + 2] * f, alpha};                                    \
            }                                                                                          \
        }                                                                                              \
        const api_taps *t = &r->horizontal;                                                            \
        int32_t stride = t->stride;                                                                    \
        for (uint32_t x = 0; x < r->dw; x++) {                                                         \
            const api_v4 *restrict w = r->hweights + (size_t)x * (size_t)stride;                      \
            const api_v4 *restrict p = row + t->first[x];                                              \
            int32_t n = t->count[x];                                                                   \
            /* Four accumulators: one would wait on each add's latency, a chain as long as the taps. */ \
            api_v4 a0 = 0.0f, a1 = 0.0f, a2 = 0.0f, a3 = 0.0f;                                         \
            int32_t k = 0;                                                                             \
            for (; k + 4 <= n; k += 4) {                                                               \
                a0 = p[k] * w[k] + a0;                                                                 \
                a1 = p[k + 1] * w[k + 1] + a1;                                                         \
                a2 = p[k + 2] * w[k + 2] + a2;                                                         \
                a3 = p[k + 3] * w[k + 3] + a3;                                                         \
            }                                                                                          \
            for (; k < n; k++) a0 = p[k] * w[k] + a0;                                                  \
            out[x] = (a0 + a1) + (a2 + a3);                                                            \
        }                                                                                              \
    }                                                                                                  \
    /* The weighted sum of `n` ring rows into `acc` (dw * 4 floats). */                               \
    ATTRIBUTES static void api_vertical_sum_##SUFFIX(api_resizer *r, uint32_t first, uint32_t n,        \
                                                     const float *restrict w, float *restrict acc) {   \
        size_t count = (size_t)r->dw * 4;                                                              \
        const float *restrict in0 = (const float *)(r->ring + (size_t)(first % r->ring_rows) * r->dw); \
        for (size_t i = 0; i < count; i++) acc[i] = in0[i] * w[0];                                    \
        for (uint32_t k = 1; k < n; k++) {                                                             \
            const float *restrict in = (const float *)(r->ring + (size_t)((first + k) % r->ring_rows) * r->dw); \
            float wk = w[k];                                                                           \
            for (size_t i = 0; i < count; i++) acc[i] = in[i] * wk + acc[i];                          \
        }                                                                                              \
    }

API_RESAMPLE_PASSES(base, )
#if defined(__x86_64__) || defined(__i386__)
API_RESAMPLE_PASSES(avx2, __attribute__((target("avx2,fma"))))
#endif

/// The horizontal pass of one source row into its ring slot.
static void api_resizer_horizontal(api_resizer *r, const uint8_t *in, api_v4 *out) {
#if defined(__x86_64__) || defined(__i386__)
    if (r->avx2) {
        api_horizontal_avx2(r, in, out);
        return;
    }
#endif
    api_horizontal_base(r, in, out);
}

/// The vertical pass of output row `y`, whose source rows are all in the ring.
static void api_resizer_vertical(api_resizer *r, uint32_t y, uint8_t *out) {
    const api_taps *t = &r->vertical;
    const float *w = t->weights + (size_t)y * (size_t)t->stride;
    uint32_t first = (uint32_t)t->first[y], n = (uint32_t)t->count[y], dw = r->dw;
    api_v4 *acc = r->row;
#if defined(__x86_64__) || defined(__i386__)
    if (r->avx2) {
        api_vertical_sum_avx2(r, first, n, w, (float *)acc);
    } else {
        api_vertical_sum_base(r, first, n, w, (float *)acc);
    }
#else
    api_vertical_sum_base(r, first, n, w, (float *)acc);
#endif
    if (r->opaque) {
        for (uint32_t x = 0; x < dw; x++) {
            api_v4 v = acc[x];
            out[4 * x] = api_to_byte(v.x);
            out[4 * x + 1] = api_to_byte(v.y);
            out[4 * x + 2] = api_to_byte(v.z);
            out[4 * x + 3] = 255;
        }
        return;
    }
    for (uint32_t x = 0; x < dw; x++) {
        api_v4 v = acc[x];
        uint8_t alpha = api_to_byte(v.w);
        out[4 * x + 3] = alpha;
        if (alpha == 0) {
            out[4 * x] = out[4 * x + 1] = out[4 * x + 2] = 0;
            continue;
        }
        // Unpremultiply by the alpha as stored (rounded), so that premultiplying the output again
        // gives back the resampled values: dividing by the unrounded alpha would be off by their
        // ratio, which is large where alpha is small.
        float f = 255.0f / (float)alpha;
        out[4 * x] = api_to_byte(v.x * f);
        out[4 * x + 1] = api_to_byte(v.y * f);
        out[4 * x + 2] = api_to_byte(v.z * f);
    }
}

int32_t api_resizer_push(api_resizer *r, const uint8_t *rows, uint32_t count, size_t stride,
                         uint8_t *dst, size_t dst_stride, api_report *report) {
    api_report_clear(report);
    if (r == NULL || (count > 0 && rows == NULL) || dst == NULL || stride < (size_t)r->sw * 4 ||
        dst_stride < (size_t)r->dw * 4 || count > r->sh - r->next_in) {
        api_report_set(report, "invalid arguments to the resampler (more rows than the image has?)");
        return API_ERR_INVALID_ARGUMENT;
    }
    // Rows below the first that any output row reads, and above the last, are skipped. Each output
    // row is written once its last source row has arrived; the ring slot a row takes held a row
    // that no pending output row reads (the ring has as many rows as the widest window).
    const api_taps *t = &r->vertical;
    for (uint32_t i = 0; i < count; i++) {
        uint32_t source = r->next_in++;
        if (r->next_out < r->dh && source >= (uint32_t)t->first[r->next_out]) {
            api_resizer_horizontal(r, rows + (size_t)i * stride, r->ring + (size_t)(source % r->ring_rows) * r->dw);
        }
        while (r->next_out < r->dh &&
               (uint32_t)(t->first[r->next_out] + t->count[r->next_out]) <= source + 1) {
            api_resizer_vertical(r, r->next_out, dst + (size_t)r->next_out * dst_stride);
            r->next_out++;
        }
    }
    return API_OK;
}

void api_resizer_rewind(api_resizer *resizer) {
    if (resizer == NULL) return;
    resizer->next_in = 0;
    resizer->next_out = 0;
}

uint32_t api_resizer_rows_written(const api_resizer *resizer) {
    return resizer == NULL ? 0 : resizer->next_out;
}

int32_t api_resize_rgba(const uint8_t *src, uint32_t sw, uint32_t sh, size_t src_stride,
                        uint8_t *dst, uint32_t dw, uint32_t dh, size_t dst_stride,
                        int32_t kernel, int32_t opaque, uint64_t max_work_bytes, api_report *report) {
    if (src == NULL || dst == NULL || src_stride < (size_t)sw * 4 || dst_stride < (size_t)dw * 4) {
        api_report_set(report, "invalid arguments to the resampler");
        return API_ERR_INVALID_ARGUMENT;
    }
    api_resizer *resizer = NULL;
    int32_t status = api_resizer_create(sw, sh, dw, dh, kernel, opaque, max_work_bytes, &resizer, report);
    if (status != API_OK) return status;
    status = api_resizer_push(resizer, src, sh, src_stride, dst, dst_stride, report);
    if (status == API_OK && api_resizer_rows_written(resizer) != dh) {
        api_report_set(report, "the resampler did not write every row");
        status = API_ERR_FAILED;
    }
    api_resizer_destroy(resizer);
    return status;
}
