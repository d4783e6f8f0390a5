// PNG encoding through libpng's classic write API. Every libpng call that can longjmp runs below
// the setjmp in api_png_encode_impl; the write callback appends to an api_buffer.
#include "api_internal.h"

#include <png.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    api_buffer *out;
    api_report *report;
    int32_t status;
} api_png_sink;

static void api_png_write_data(png_structp png, png_bytep data, size_t length) {
    api_png_sink *sink = (api_png_sink *)png_get_io_ptr(png);
    if (api_buffer_append(sink->out, data, length) != 0) {
        sink->status = API_ERR_TOO_LARGE;
        png_error(png, sink->out->overflowed ? "the encoded PNG exceeds the output limit" : "cannot allocate the encoded PNG");
    }
}

static void api_png_flush(png_structp png) {
    (void)png;
}

static void api_png_error(png_structp png, png_const_charp message) {
    api_png_sink *sink = (api_png_sink *)png_get_error_ptr(png);
    if (sink->status == API_OK) sink->status = API_ERR_FAILED;
    api_report_set(sink->report, message);
    png_longjmp(png, 1);
}

static void api_png_warning(png_structp png, png_const_charp message) {
    (void)png;
    (void)message;
}

/// The image's distinct colours, when there are at most 256: `palette` (RGBA, entries with alpha
/// below 255 first), their count, and each pixel's index in `indices` (w * h bytes).
typedef struct {
    uint8_t palette[256][4];
    int count;
    int translucent; // entries with alpha < 255 (they come first)
} api_png_palette;

static uint32_t api_png_hash(uint32_t v) {
    v ^= v >> 16;
    v *= 0x7feb352dU;
    v ^= v >> 15;
    v *= 0x846ca68bU;
    v ^= v >> 16;
    return v;
}

/// Fills `palette` and `indices`; returns 0 when the image has more than 256 colours.
static int api_png_find_palette(const uint8_t *rgba, uint32_t w, uint32_t h, size_t stride,
                                api_png_palette *palette, uint8_t *indices) {
    uint32_t keys[1024];
    int16_t slots[1024];
    memset(slots, 0xff, sizeof slots);
    uint32_t colors[256];
    int count = 0;
    for (uint32_t y = 0; y < h; y++) {
        const uint8_t *row = rgba + (size_t)y * stride;
        for (uint32_t x = 0; x < w; x++) {
            uint32_t v;
            memcpy(&v, row + 4 * x, 4);
            if (row[4 * x + 3] == 0) v = 0;  // every fully transparent pixel is one colour
            uint32_t slot = api_png_hash(v) & 1023;
            while (slots[slot] >= 0 && keys[slot] != v) slot = (slot + 1) & 1023;
            if (slots[slot] < 0) {
                if (count == 256) return 0;
                keys[slot] = v;
                slots[slot] = (int16_t)count;
                colors[count++] = v;
            }
            indices[(size_t)y * w + x] = (uint8_t)slots[slot];
        }
    }
    // Translucent entries first, so that tRNS stays short; remap the indices.
    uint8_t remap[256];
    int next = 0;
    for (int pass = 0; pass < 2; pass++) {
        for (int i = 0; i < count; i++) {
            int translucent = (colors[i] >> 24) != 255;
            if (translucent != (pass == 0)) continue;
            remap[i] = (uint8_t)next;
            memcpy(palette->palette[next], &colors[i], 4);
            next++;
        }
        if (pass == 0) palette->translucent = next;
    }
    palette->count = count;
    for (size_t i = 0; i < (size_t)w * h; i++) indices[i] = remap[indices[i]];
    return 1;
}

static int api_png_is_gray(const uint8_t *rgba, uint32_t w, uint32_t h, size_t stride) {
    for (uint32_t y = 0; y < h; y++) {
        const uint8_t *p = rgba + (size_t)y * stride;
        for (uint32_t x = 0; x < w; x++, p += 4) {
            if (p[0] != p[1] || p[1] != p[2]) return 0;
        }
    }
    return 1;
}

static int32_t api_png_encode_impl(const uint8_t *rgba, uint32_t w, uint32_t h, size_t stride,
                                   const api_png_options *options, api_buffer *out, api_report *report,
                                   uint8_t *indices, const api_png_palette *palette,
                                   int color_type, int bit_depth, uint8_t *row_buffer) {
    api_png_sink sink = {out, report, API_OK};
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &sink, api_png_error, api_png_warning);
    if (png == NULL) {
        api_report_set(report, "cannot create the PNG encoder");
        return API_ERR_FAILED;
    }
    png_infop info = png_create_info_struct(png);
    if (info == NULL) {
        png_destroy_write_struct(&png, NULL);
        api_report_set(report, "cannot create the PNG encoder");
        return API_ERR_FAILED;
    }
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        api_buffer_free(out);
        int32_t status = ((volatile api_png_sink *)&sink)->status;
        return status == API_OK ? API_ERR_FAILED : status;
    }
    png_set_write_fn(png, &sink, api_png_write_data, api_png_flush);
    int level = options->compression_level < 0 ? 6 : (options->compression_level > 9 ? 9 : options->compression_level);
    png_set_compression_level(png, level);
    if (options->filter >= 0 && options->filter <= 4) {
        static const int filters[5] = {PNG_FILTER_NONE, PNG_FILTER_SUB, PNG_FILTER_UP, PNG_FILTER_AVG, PNG_FILTER_PAETH};
        png_set_filter(png, PNG_FILTER_TYPE_BASE, filters[options->filter]);
    } else if (color_type == PNG_COLOR_TYPE_PALETTE) {
        png_set_filter(png, PNG_FILTER_TYPE_BASE, PNG_FILTER_NONE);  // the PNG spec's advice for indexed images
    }
    png_set_IHDR(png, info, w, h, bit_depth, color_type,
                 options->interlaced ? PNG_INTERLACE_ADAM7 : PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    if (color_type == PNG_COLOR_TYPE_PALETTE) {
        png_color colors[256];
        png_byte alphas[256];
        for (int i = 0; i < palette->count; i++) {
            colors[i].red = palette->palette[i][0];
            colors[i].green = palette->palette[i][1];
            colors[i].blue = palette->palette[i][2];
            alphas[i] = palette->palette[i][3];
        }
        png_set_PLTE(png, info, colors, palette->count);
        if (palette->translucent > 0) png_set_tRNS(png, info, alphas, palette->translucent, NULL);
    }
    if (options->icc != NULL && options->icc_length >= 128 && options->icc_length <= 0x7fffffff) {
        png_set_iCCP(png, info, "icc", PNG_COMPRESSION_TYPE_BASE, options->icc, (png_uint_32)options->icc_length);
    }
    png_write_info(png, info);
    if (bit_depth < 8) png_set_packing(png);
    int passes = png_set_interlace_handling(png);
    for (int pass = 0; pass < passes; pass++) {
        for (uint32_t y = 0; y < h; y++) {
            const uint8_t *src = rgba + (size_t)y * stride;
            png_bytep row;
            switch (color_type) {
            case PNG_COLOR_TYPE_PALETTE:
                row = indices + (size_t)y * w;
                break;
            case PNG_COLOR_TYPE_RGB_ALPHA:
                row = (png_bytep)src;
                break;
            case PNG_COLOR_TYPE_RGB:
                for (uint32_t x = 0; x < w; x++) memcpy(row_buffer + 3 * x, src + 4 * x, 3);
                row = row_buffer;
                break;
            case PNG_COLOR_TYPE_GRAY_ALPHA:
                for (uint32_t x = 0; x < w; x++) {
                    row_buffer[2 * x] = src[4 * x];
                    row_buffer[2 * x + 1] = src[4 * x + 3];
                }
                row = row_buffer;
                break;
            default:  // gray
                for (uint32_t x = 0; x < w; x++) row_buffer[x] = src[4 * x];
                row = row_buffer;
                break;
            }
            png_write_row(png, row);
        }
    }
    png_write_end(png, info);
    png_destroy_write_struct(&png, &info);
    return API_OK;
}

int32_t api_png_encode(const uint8_t *rgba, uint32_t w, uint32_t h, size_t stride,
                       const api_png_options *options, api_buffer *out, api_report *report) {
    api_report_clear(report);
    if (rgba == NULL || options == NULL || out == NULL || w == 0 || h == 0 || w > 0x7fffffff / 4 ||
        h > 0x7fffffff || stride < (size_t)w * 4) {
        api_report_set(report, "invalid arguments to the PNG encoder");
        return API_ERR_INVALID_ARGUMENT;
    }
    uint8_t *indices = NULL;
    api_png_palette *palette = NULL;
    int color_type, bit_depth = 8;
    if (options->palette) {
        indices = malloc((size_t)w * h);
        palette = malloc(sizeof *palette);
        if (indices == NULL || palette == NULL) {
            free(indices);
            free(palette);
            api_report_set(report, "cannot allocate the PNG palette");
            return API_ERR_TOO_LARGE;
        }
    }
    int opaque = api_is_opaque(rgba, w, h, stride);
    if (palette != NULL && api_png_find_palette(rgba, w, h, stride, palette, indices)) {
        color_type = PNG_COLOR_TYPE_PALETTE;
        bit_depth = palette->count <= 2 ? 1 : (palette->count <= 4 ? 2 : (palette->count <= 16 ? 4 : 8));
    } else if (api_png_is_gray(rgba, w, h, stride)) {
        color_type = opaque ? PNG_COLOR_TYPE_GRAY : PNG_COLOR_TYPE_GRAY_ALPHA;
    } else {
        color_type = opaque ? PNG_COLOR_TYPE_RGB : PNG_COLOR_TYPE_RGB_ALPHA;
    }
    uint8_t *row_buffer = malloc((size_t)w * 4);
    if (row_buffer == NULL) {
        free(indices);
        free(palette);
        api_report_set(report, "cannot allocate the PNG row");
        return API_ERR_TOO_LARGE;
    }
    int32_t status = api_png_encode_impl(rgba, w, h, stride, options, out, report, indices, palette,
                                         color_type, bit_depth, row_buffer);
    free(row_buffer);
    free(indices);
    free(palette);
    return status;
}
