// Colour quantization for GIF output: Xiaolin Wu's variance-minimizing box cuts ("Efficient
// Statistical Computations for Optimal Color Quantization", Graphics Gems II, 1991) over a 5-bit
// histogram, then a mapping to the palette with Floyd-Steinberg error diffusion.
//
// Written here because no library on our list does it under a licence we can ship: libimagequant
// (Debian's 2.17, what libvips prefers) is GPL-3, cgif 0.3.0 (Debian's) takes indexed pixels only,
// and giflib's GifQuantizeBuffer is a median cut of 5-bit colours without dithering.
//
// A frame of at most as many colours as the palette holds gets them exactly. Else the histogram
// counts opaque pixels only (alpha >= 128); a pixel under that is the transparent
// index when the caller has one. The box means are refined by a pass of k-means (Lloyd) over the
// frame's pixels. The nearest palette entry of a colour is exact: searched among the candidates of
// its 5-bit cell (Heckbert's locally sorted search), made on a cell's first use and kept until
// the palette changes.
#include "api_internal.h"

#include <stdlib.h>
#include <string.h>

#define Q_SIDE 33
#define Q_CELLS (Q_SIDE * Q_SIDE * Q_SIDE)
#define Q_INDEX(r, g, b) ((r) * Q_SIDE * Q_SIDE + (g) * Q_SIDE + (b))

struct api_quantizer {
    int64_t *weight;    // pixels per cell, then cumulative
    int64_t *red;       // sums of each channel
    int64_t *green;
    int64_t *blue;
    double *squares;    // sum of r^2 + g^2 + b^2
    uint32_t *cells;    // per 5-bit cell: where its candidates start in `pool` + 1, 0 not yet known
    uint16_t *cell_counts;
    uint8_t *pool;      // candidate entries of the cells met so far, nearest to the cell first
    int32_t *pool_near; // ... and each one's least distance to its cell
    size_t pool_length, pool_capacity;
    const uint8_t *palette;   // the palette the cache was made for
    uint32_t palette_count;
    uint32_t distinct[512];   // the histogram's colours while there are at most 256 (0xRRGGBB | 1 << 24), hashed
    uint32_t distinct_count;  // ... how many; 257 once there are more
    uint32_t exact[512];      // the palette's colours (0xRRGGBB | 1 << 24: taken), hashed
    uint8_t exact_index[512]; // ... and their entries
};

typedef struct {
    int r0, r1, g0, g1, b0, b1;   // exclusive lower, inclusive upper bounds
    int volume;
} api_box;

api_quantizer *api_quantizer_new(void) {
    api_quantizer *q = (api_quantizer *)calloc(1, sizeof *q);
    if (q == NULL) return NULL;
    q->weight = (int64_t *)calloc(Q_CELLS, sizeof(int64_t));
    q->red = (int64_t *)calloc(Q_CELLS, sizeof(int64_t));
    q->green = (int64_t *)calloc(Q_CELLS, sizeof(int64_t));
    q->blue = (int64_t *)calloc(Q_CELLS, sizeof(int64_t));
    q->squares = (double *)calloc(Q_CELLS, sizeof(double));
    q->cells = (uint32_t *)calloc(1u << 15, sizeof(uint32_t));
    q->cell_counts = (uint16_t *)calloc(1u << 15, sizeof(uint16_t));
    q->pool_capacity = 1u << 16;
    q->pool = (uint8_t *)malloc(q->pool_capacity);
    q->pool_near = (int32_t *)malloc(q->pool_capacity * sizeof(int32_t));
    if (!q->pool_near || !q->weight || !q->red || !q->green || !q->blue || !q->squares || !q->cells || !q->cell_counts || !q->pool) {
        api_quantizer_free(q);
        return NULL;
    }
    return q;
}

void api_quantizer_free(api_quantizer *q) {
    if (q == NULL) return;
    free(q->weight);
    free(q->red);
    free(q->green);
    free(q->blue);
    free(q->squares);
    free(q->cells);
    free(q->cell_counts);
    free(q->pool);
    free(q->pool_near);
    free(q);
}

void api_quantizer_reset(api_quantizer *q) {
    memset(q->weight, 0, Q_CELLS * sizeof(int64_t));
    memset(q->red, 0, Q_CELLS * sizeof(int64_t));
    memset(q->green, 0, Q_CELLS * sizeof(int64_t));
    memset(q->blue, 0, Q_CELLS * sizeof(int64_t));
    memset(q->squares, 0, Q_CELLS * sizeof(double));
    memset(q->distinct, 0, sizeof q->distinct);
    q->distinct_count = 0;
}

static inline uint32_t api_exact_hash(uint32_t rgb);

/// Notes a colour among the histogram's distinct ones, while there are at most 256.
static inline void api_note_colour(api_quantizer *q, uint32_t rgb) {
    if (q->distinct_count > 256) return;
    uint32_t key = rgb | (1u << 24);
    for (uint32_t slot = api_exact_hash(rgb);; slot = (slot + 1) & 511) {
        if (q->distinct[slot] == key) return;
        if (q->distinct[slot] == 0) {
            if (++q->distinct_count <= 256) q->distinct[slot] = key;
            return;
        }
    }
}

void api_quantizer_add(api_quantizer *q, const uint8_t *rgba, uint32_t w, uint32_t h, size_t stride) {
    for (uint32_t y = 0; y < h; y++) {
        const uint8_t *p = rgba + (size_t)y * stride;
        for (uint32_t x = 0; x < w; x++, p += 4) {
            if (p[3] < 128) continue;
            int r = p[0], g = p[1], b = p[2];
            int i = Q_INDEX((r >> 3) + 1, (g >> 3) + 1, (b >> 3) + 1);
            q->weight[i] += 1;
            q->red[i] += r;
            q->green[i] += g;
            q->blue[i] += b;
            q->squares[i] += (double)(r * r + g * g + b * b);
            api_note_colour(q, ((uint32_t)r << 16) | ((uint32_t)g << 8) | (uint32_t)b);
        }
    }
}

/// Turns the cell sums into cumulative sums from the origin (Wu's M3d).
static void api_quantizer_cumulate(api_quantizer *q) {
    int64_t area_w[Q_SIDE], area_r[Q_SIDE], area_g[Q_SIDE], area_b[Q_SIDE];
    double area_s[Q_SIDE];
    for (int r = 1; r < Q_SIDE; r++) {
        memset(area_w, 0, sizeof area_w);
        memset(area_r, 0, sizeof area_r);
        memset(area_g, 0, sizeof area_g);
        memset(area_b, 0, sizeof area_b);
        for (int i = 0; i < Q_SIDE; i++) area_s[i] = 0;
        for (int g = 1; g < Q_SIDE; g++) {
            int64_t line_w = 0, line_r = 0, line_g = 0, line_b = 0;
            double line_s = 0;
            for (int b = 1; b < Q_SIDE; b++) {
                int i = Q_INDEX(r, g, b);
                line_w += q->weight[i];
                line_r += q->red[i];
                line_g += q->green[i];
                line_b += q->blue[i];
                line_s += q->squares[i];
                area_w[b] += line_w;
                area_r[b] += line_r;
                area_g[b] += line_g;
                area_b[b] += line_b;
                area_s[b] += line_s;
                int below = Q_INDEX(r - 1, g, b);
                q->weight[i] = q->weight[below] + area_w[b];
                q->red[i] = q->red[below] + area_r[b];
                q->green[i] = q->green[below] + area_g[b];
                q->blue[i] = q->blue[below] + area_b[b];
                q->squares[i] = q->squares[below] + area_s[b];
            }
        }
    }
}

/// The sum of a cumulative table over a box.
static int64_t api_volume(const api_box *c, const int64_t *m) {
    return m[Q_INDEX(c->r1, c->g1, c->b1)] - m[Q_INDEX(c->r1, c->g1, c->b0)] - m[Q_INDEX(c->r1, c->g0, c->b1)] +
           m[Q_INDEX(c->r1, c->g0, c->b0)] - m[Q_INDEX(c->r0, c->g1, c->b1)] + m[Q_INDEX(c->r0, c->g1, c->b0)] +
           m[Q_INDEX(c->r0, c->g0, c->b1)] - m[Q_INDEX(c->r0, c->g0, c->b0)];
}

static double api_volume_squares(const api_box *c, const double *m) {
    return m[Q_INDEX(c->r1, c->g1, c->b1)] - m[Q_INDEX(c->r1, c->g1, c->b0)] - m[Q_INDEX(c->r1, c->g0, c->b1)] +
           m[Q_INDEX(c->r1, c->g0, c->b0)] - m[Q_INDEX(c->r0, c->g1, c->b1)] + m[Q_INDEX(c->r0, c->g1, c->b0)] +
           m[Q_INDEX(c->r0, c->g0, c->b1)] - m[Q_INDEX(c->r0, c->g0, c->b0)];
}

/// The part of a box's sum that lies below `position` on `axis` (0 red, 1 green, 2 blue), less
/// the part below the box: Wu's Bottom and Top in one.
static int64_t api_bottom(const api_box *c, int axis, const int64_t *m) {
    switch (axis) {
    case 0: return -m[Q_INDEX(c->r0, c->g1, c->b1)] + m[Q_INDEX(c->r0, c->g1, c->b0)] + m[Q_INDEX(c->r0, c->g0, c->b1)] - m[Q_INDEX(c->r0, c->g0, c->b0)];
    case 1: return -m[Q_INDEX(c->r1, c->g0, c->b1)] + m[Q_INDEX(c->r1, c->g0, c->b0)] + m[Q_INDEX(c->r0, c->g0, c->b1)] - m[Q_INDEX(c->r0, c->g0, c->b0)];
    default: return -m[Q_INDEX(c->r1, c->g1, c->b0)] + m[Q_INDEX(c->r1, c->g0, c->b0)] + m[Q_INDEX(c->r0, c->g1, c->b0)] - m[Q_INDEX(c->r0, c->g0, c->b0)];
    }
}

static int64_t api_top(const api_box *c, int axis, int position, const int64_t *m) {
    switch (axis) {
    case 0: return m[Q_INDEX(position, c->g1, c->b1)] - m[Q_INDEX(position, c->g1, c->b0)] - m[Q_INDEX(position, c->g0, c->b1)] + m[Q_INDEX(position, c->g0, c->b0)];
    case 1: return m[Q_INDEX(c->r1, position, c->b1)] - m[Q_INDEX(c->r1, position, c->b0)] - m[Q_INDEX(c->r0, position, c->b1)] + m[Q_INDEX(c->r0, position, c->b0)];
    default: return m[Q_INDEX(c->r1, c->g1, position)] - m[Q_INDEX(c->r1, c->g0, position)] - m[Q_INDEX(c->r0, c->g1, position)] + m[Q_INDEX(c->r0, c->g0, position)];
    }
}

/// A box's weighted variance (its sum of squared distances to its mean).
static double api_variance(const api_quantizer *q, const api_box *c) {
    double dr = (double)api_volume(c, q->red), dg = (double)api_volume(c, q->green), db = (double)api_volume(c, q->blue);
    double xx = api_volume_squares(c, q->squares);
    double w = (double)api_volume(c, q->weight);
    return w > 0 ? xx - (dr * dr + dg * dg + db * db) / w : 0;
}

/// The best cut of a box along an axis: the position and the score (larger is better).
static double api_maximize(const api_quantizer *q, const api_box *c, int axis, int first, int last, int *cut,
                           int64_t whole_r, int64_t whole_g, int64_t whole_b, int64_t whole_w) {
    int64_t base_r = api_bottom(c, axis, q->red), base_g = api_bottom(c, axis, q->green);
    int64_t base_b = api_bottom(c, axis, q->blue), base_w = api_bottom(c, axis, q->weight);
    double best = 0;
    *cut = -1;
    for (int i = first; i < last; i++) {
        int64_t half_r = base_r + api_top(c, axis, i, q->red), half_g = base_g + api_top(c, axis, i, q->green);
        int64_t half_b = base_b + api_top(c, axis, i, q->blue), half_w = base_w + api_top(c, axis, i, q->weight);
        if (half_w == 0) continue;
        double temp = ((double)half_r * half_r + (double)half_g * half_g + (double)half_b * half_b) / (double)half_w;
        half_r = whole_r - half_r;
        half_g = whole_g - half_g;
        half_b = whole_b - half_b;
        half_w = whole_w - half_w;
        if (half_w == 0) continue;
        temp += ((double)half_r * half_r + (double)half_g * half_g + (double)half_b * half_b) / (double)half_w;
        if (temp > best) {
            best = temp;
            *cut = i;
        }
    }
    return best;
}

/// Cuts `set1` in two along its best axis, the second half into `set2`; 0 when it cannot be cut.
static int api_cut(const api_quantizer *q, api_box *set1, api_box *set2) {
    int64_t whole_r = api_volume(set1, q->red), whole_g = api_volume(set1, q->green);
    int64_t whole_b = api_volume(set1, q->blue), whole_w = api_volume(set1, q->weight);
    int cut_r, cut_g, cut_b;
    double max_r = api_maximize(q, set1, 0, set1->r0 + 1, set1->r1, &cut_r, whole_r, whole_g, whole_b, whole_w);
    double max_g = api_maximize(q, set1, 1, set1->g0 + 1, set1->g1, &cut_g, whole_r, whole_g, whole_b, whole_w);
    double max_b = api_maximize(q, set1, 2, set1->b0 + 1, set1->b1, &cut_b, whole_r, whole_g, whole_b, whole_w);
    int axis;
    if (max_r >= max_g && max_r >= max_b) {
        axis = 0;
        if (cut_r < 0) return 0;
    } else if (max_g >= max_r && max_g >= max_b) {
        axis = 1;
    } else {
        axis = 2;
    }
    *set2 = *set1;
    switch (axis) {
    case 0: set2->r0 = set1->r1 = cut_r; break;
    case 1: set2->g0 = set1->g1 = cut_g; break;
    default: set2->b0 = set1->b1 = cut_b; break;
    }
    set1->volume = (set1->r1 - set1->r0) * (set1->g1 - set1->g0) * (set1->b1 - set1->b0);
    set2->volume = (set2->r1 - set2->r0) * (set2->g1 - set2->g0) * (set2->b1 - set2->b0);
    return 1;
}

uint32_t api_quantizer_palette(api_quantizer *q, uint32_t max_colours, uint8_t *palette) {
    if (max_colours == 0) return 0;
    if (max_colours > 256) max_colours = 256;
    if (q->distinct_count > 0 && q->distinct_count <= max_colours) {
        // Few enough colours: they are the palette, exactly.
        uint32_t written = 0;
        for (uint32_t slot = 0; slot < 512; slot++) {
            if (q->distinct[slot] == 0) continue;
            palette[written * 3 + 0] = (uint8_t)(q->distinct[slot] >> 16);
            palette[written * 3 + 1] = (uint8_t)(q->distinct[slot] >> 8);
            palette[written * 3 + 2] = (uint8_t)q->distinct[slot];
            written++;
        }
        return written;
    }
    api_quantizer_cumulate(q);
    api_box boxes[256];
    double variance[256];
    memset(boxes, 0, sizeof boxes);
    boxes[0].r1 = boxes[0].g1 = boxes[0].b1 = Q_SIDE - 1;
    uint32_t count = 1;
    int next = 0;
    for (uint32_t i = 1; i < max_colours; i++) {
        if (api_cut(q, &boxes[next], &boxes[i])) {
            variance[next] = boxes[next].volume > 1 ? api_variance(q, &boxes[next]) : 0;
            variance[i] = boxes[i].volume > 1 ? api_variance(q, &boxes[i]) : 0;
            count = i + 1;
        } else {
            variance[next] = 0;  // not to be tried again
            i--;
        }
        next = 0;
        double best = variance[0];
        for (uint32_t k = 1; k < count; k++) {
            if (variance[k] > best) {
                best = variance[k];
                next = (int)k;
            }
        }
        if (best <= 0) break;
    }
    uint32_t written = 0;
    for (uint32_t k = 0; k < count; k++) {
        int64_t w = api_volume(&boxes[k], q->weight);
        if (w <= 0) continue;
        palette[written * 3 + 0] = (uint8_t)((api_volume(&boxes[k], q->red) + w / 2) / w);
        palette[written * 3 + 1] = (uint8_t)((api_volume(&boxes[k], q->green) + w / 2) / w);
        palette[written * 3 + 2] = (uint8_t)((api_volume(&boxes[k], q->blue) + w / 2) / w);
        written++;
    }
    if (written == 0) {  // no opaque pixel: one black entry
        palette[0] = palette[1] = palette[2] = 0;
        written = 1;
    }
    return written;
}

/// The slot of a colour in the table of the palette's own colours.
static inline uint32_t api_exact_hash(uint32_t rgb) { return (rgb * 2654435761u) >> 23; }

/// The candidates of a 5-bit cell (Heckbert's locally sorted search): every entry whose nearest
/// point of the cell's box is no farther than the farthest point of the box is from the entry
/// nearest to all of it, in the order of that least distance (`near`), so that a search stops at
/// the first candidate that cannot be nearer than the best found. The nearest entry of any colour
/// in the cell is among them. NULL when memory runs out (the caller searches the whole palette).
static const uint8_t *api_cell_candidates(api_quantizer *q, int key, uint32_t *count, const int32_t **near_out) {
    if (q->cells[key] != 0) {
        *count = q->cell_counts[key];
        *near_out = q->pool_near + q->cells[key] - 1;
        return q->pool + q->cells[key] - 1;
    }
    int lo[3] = {((key >> 10) & 31) << 3, ((key >> 5) & 31) << 3, (key & 31) << 3};
    int near[256], threshold = 1 << 30;
    for (uint32_t i = 0; i < q->palette_count; i++) {
        const uint8_t *p = q->palette + i * 3;
        int dmin = 0, dmax = 0;
        for (int c = 0; c < 3; c++) {
            int low = lo[c], high = lo[c] + 7, v = p[c];
            int d = v < low ? low - v : (v > high ? v - high : 0);
            int far = v - low > high - v ? v - low : high - v;
            if (far < 0) far = -far;
            dmin += d * d;
            dmax += far * far;
        }
        near[i] = dmin;
        if (dmax < threshold) threshold = dmax;
    }
    if (q->pool_length + q->palette_count > q->pool_capacity) {
        size_t capacity = q->pool_capacity * 2;
        uint8_t *grown = (uint8_t *)realloc(q->pool, capacity);
        if (grown == NULL) return NULL;
        q->pool = grown;
        int32_t *grown_near = (int32_t *)realloc(q->pool_near, capacity * sizeof(int32_t));
        if (grown_near == NULL) return NULL;
        q->pool_near = grown_near;
        q->pool_capacity = capacity;
    }
    uint8_t *list = q->pool + q->pool_length;
    int32_t *distances = q->pool_near + q->pool_length;
    uint32_t n = 0;
    for (uint32_t i = 0; i < q->palette_count; i++) {
        if (near[i] > threshold) continue;
        // insertion by least distance
        uint32_t at = n;
        while (at > 0 && distances[at - 1] > near[i]) {
            distances[at] = distances[at - 1];
            list[at] = list[at - 1];
            at--;
        }
        distances[at] = near[i];
        list[at] = (uint8_t)i;
        n++;
    }
    q->cells[key] = (uint32_t)q->pool_length + 1;
    q->cell_counts[key] = (uint16_t)n;
    q->pool_length += n;
    *count = n;
    *near_out = distances;
    return list;
}

/// The palette entry nearest to a colour (squared RGB distance), exactly.
static inline uint32_t api_nearest(api_quantizer *q, int r, int g, int b) {
    // A colour of the palette itself is that entry: a source of few colours keeps them exactly.
    uint32_t rgb = ((uint32_t)r << 16) | ((uint32_t)g << 8) | (uint32_t)b;
    for (uint32_t slot = api_exact_hash(rgb);; slot = (slot + 1) & 511) {
        uint32_t entry = q->exact[slot];
        if (entry == 0) break;
        if ((entry & 0xffffff) == rgb) return q->exact_index[slot];
    }
    uint32_t count = q->palette_count;
    const int32_t *near = NULL;
    const uint8_t *candidates = api_cell_candidates(q, ((r >> 3) << 10) | ((g >> 3) << 5) | (b >> 3), &count, &near);
    if (candidates == NULL) count = q->palette_count;
    uint32_t best = 0;
    int best_distance = 1 << 30;
    for (uint32_t k = 0; k < count; k++) {
        if (candidates != NULL && near[k] >= best_distance) break;  // none after it can be nearer
        uint32_t i = candidates ? candidates[k] : k;
        const uint8_t *p = q->palette + i * 3;
        int dr = r - p[0], dg = g - p[1], db = b - p[2];
        int d = dr * dr + dg * dg + db * db;
        if (d < best_distance) {
            best_distance = d;
            best = i;
        }
    }
    return best;
}

void api_quantizer_use_palette(api_quantizer *q, const uint8_t *palette, uint32_t count) {
    q->palette = palette;
    q->palette_count = count;
    memset(q->cells, 0, (1u << 15) * sizeof(uint32_t));
    q->pool_length = 0;
    memset(q->exact, 0, sizeof q->exact);
    for (uint32_t i = 0; i < count && i < 256; i++) {
        uint32_t rgb = ((uint32_t)palette[i * 3] << 16) | ((uint32_t)palette[i * 3 + 1] << 8) | palette[i * 3 + 2];
        uint32_t slot = api_exact_hash(rgb);
        while (q->exact[slot] != 0 && (q->exact[slot] & 0xffffff) != rgb) slot = (slot + 1) & 511;
        if (q->exact[slot] == 0) {
            q->exact[slot] = rgb | (1u << 24);
            q->exact_index[slot] = (uint8_t)i;
        }
    }
}

void api_quantizer_refine(api_quantizer *q, uint8_t *palette, uint32_t count, const uint8_t *rgba, uint32_t w,
                          uint32_t h, size_t stride) {
    uint64_t sums[256][4];
    memset(sums, 0, sizeof sums);
    api_quantizer_use_palette(q, palette, count);
    for (uint32_t y = 0; y < h; y++) {
        const uint8_t *p = rgba + (size_t)y * stride;
        for (uint32_t x = 0; x < w; x++, p += 4) {
            if (p[3] < 128) continue;
            uint32_t i = api_nearest(q, p[0], p[1], p[2]);
            sums[i][0] += p[0];
            sums[i][1] += p[1];
            sums[i][2] += p[2];
            sums[i][3] += 1;
        }
    }
    for (uint32_t i = 0; i < count; i++) {
        uint64_t n = sums[i][3];
        if (n == 0) continue;
        for (int c = 0; c < 3; c++) palette[i * 3 + c] = (uint8_t)((sums[i][c] + n / 2) / n);
    }
    api_quantizer_use_palette(q, palette, count);
}

double api_quantizer_error(api_quantizer *q, const uint8_t *rgba, uint32_t w, uint32_t h, size_t stride) {
    double total = 0;
    uint64_t pixels = 0;
    for (uint32_t y = 0; y < h; y += 2) {
        const uint8_t *p = rgba + (size_t)y * stride;
        for (uint32_t x = 0; x < w; x += 2, p += 8) {
            if (p[3] < 128) continue;
            const uint8_t *e = q->palette + api_nearest(q, p[0], p[1], p[2]) * 3;
            int dr = p[0] - e[0], dg = p[1] - e[1], db = p[2] - e[2];
            total += dr * dr + dg * dg + db * db;
            pixels++;
        }
    }
    return pixels ? total / (double)pixels : 0;
}

static inline int api_clamp8(int v) { return v < 0 ? 0 : (v > 255 ? 255 : v); }

int32_t api_quantizer_map(api_quantizer *q, const uint8_t *rgba, uint32_t w, uint32_t h, size_t stride,
                          int32_t transparent_index, int32_t dither, const uint8_t *previous_rgba,
                          const uint8_t *previous_indices, uint8_t *indices) {
    // Two rows of errors (current, next), with a pixel of margin either side, 3 channels.
    size_t row = ((size_t)w + 2) * 3;
    int16_t *errors = dither ? (int16_t *)calloc(row * 2, sizeof(int16_t)) : NULL;
    if (dither && errors == NULL) return API_ERR_TOO_LARGE;
    int16_t *current = errors, *next = errors ? errors + row : NULL;
    for (uint32_t y = 0; y < h; y++) {
        const uint8_t *src = rgba + (size_t)y * stride;
        const uint8_t *before = previous_rgba ? previous_rgba + (size_t)y * w * 4 : NULL;
        uint8_t *out = indices + (size_t)y * w;
        const uint8_t *out_before = previous_indices ? previous_indices + (size_t)y * w : NULL;
        int serpentine = (y & 1) != 0;
        int step = serpentine ? -1 : 1;
        if (next) memset(next, 0, row * sizeof(int16_t));
        for (uint32_t n = 0; n < w; n++) {
            uint32_t x = serpentine ? w - 1 - n : n;
            const uint8_t *p = src + (size_t)x * 4;
            if (p[3] < 128 && transparent_index >= 0) {
                out[x] = (uint8_t)transparent_index;
                continue;
            }
            // A pixel the frame before had the same (with the same palette) keeps its index: what
            // stays still in the source stays still in the GIF, and costs nothing there.
            if (before != NULL && memcmp(before + (size_t)x * 4, p, 4) == 0) {
                out[x] = out_before[x];
                continue;
            }
            int r = p[0], g = p[1], b = p[2];
            int16_t *e = current ? current + ((size_t)x + 1) * 3 : NULL;
            if (e) {
                r = api_clamp8(r + e[0] / 16);
                g = api_clamp8(g + e[1] / 16);
                b = api_clamp8(b + e[2] / 16);
            }
            uint32_t index = api_nearest(q, r, g, b);
            out[x] = (uint8_t)index;
            if (e) {
                const uint8_t *c = q->palette + index * 3;
                int er = r - c[0], eg = g - c[1], eb = b - c[2];
                int16_t *ahead = current + ((size_t)x + 1 + step) * 3;
                int16_t *below = next + ((size_t)x + 1) * 3;
                int16_t *below_ahead = next + ((size_t)x + 1 + step) * 3;
                int16_t *below_behind = next + ((size_t)x + 1 - step) * 3;
                int err[3] = {er, eg, eb};
                for (int k = 0; k < 3; k++) {
                    ahead[k] += (int16_t)(err[k] * 7);
                    below_behind[k] += (int16_t)(err[k] * 3);
                    below[k] += (int16_t)(err[k] * 5);
                    below_ahead[k] += (int16_t)(err[k]);
                }
            }
        }
        if (current) {
            int16_t *swap = current;
            current = next;
            next = swap;
        }
    }
    free(errors);
    return API_OK;
}
