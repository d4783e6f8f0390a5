// GIF output through cgif (Debian's libcgif 0.3.0, MIT: LZW, tables, frame windows), with the
// palettes cut by our quantizer (api_quantize.c), since cgif 0.3.0 takes indexed pixels only.
//
// A frame keeps the palette of the frame before when that palette maps it with a mean squared
// error (summed over R, G and B) at most 50% (plus 10) above its own palette's, as libvips's
// gifsave reuses a palette (on the 100-frame clip of scripts/bench-animation.py every frame keeps
// the first one's: 2.50 MB where a table per frame gave 2.56 MB and a worse error); a
// pixel equal to the frame before's then keeps its index. Else the frame gets its own table (the
// first frame's is the global one). At most 255 colours: the entry past the palette is the
// transparent index, written for pixels under alpha 128 and, when the frame is drawn over the one
// before, for every pixel that shows the colour it showed before, so that cgif writes only the
// window that changed and LZW meets long runs. A frame where a pixel the frame before showed
// becomes transparent cannot be drawn over it: the frame before is then disposed of to the
// background (cgif's per-frame alpha) and this one is drawn whole.
#include "api_internal.h"

#include <cgif.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define API_GIF_COLOURS 255

struct api_gif_animation {
    CGIF *gif;
    api_buffer output;
    api_quantizer *quantizer;
    uint32_t width, height, plays;
    int animated, has_alpha, dither;
    uint8_t global[256 * 3];
    uint32_t global_count;
    uint8_t current[256 * 3];      // the palette of the frame before
    uint32_t current_count;
    uint8_t candidate[256 * 3];
    uint8_t *previous_rgba;        // the frame before, packed RGBA
    uint8_t *previous_indices;
    uint8_t *indices;
    uint8_t *marked;               // the indices written: unchanged pixels made transparent
    uint8_t previous_palette[256 * 3];
    uint32_t frames;
    int write_failed;
    int failed;
};

static int api_gif_write(void *context, const uint8_t *data, const size_t count) {
    api_gif_animation *encoder = (api_gif_animation *)context;
    if (api_buffer_append(&encoder->output, data, count) != 0) {
        encoder->write_failed = 1;
        return -1;
    }
    return 0;
}

void api_gif_animation_free(api_gif_animation *encoder) {
    if (encoder == NULL) return;
    if (encoder->gif != NULL) cgif_close(encoder->gif);
    api_buffer_free(&encoder->output);
    api_quantizer_free(encoder->quantizer);
    free(encoder->previous_rgba);
    free(encoder->previous_indices);
    free(encoder->indices);
    free(encoder->marked);
    free(encoder);
}

int32_t api_gif_animation_new(uint32_t w, uint32_t h, int32_t animated, uint32_t plays, int32_t has_alpha,
                              int32_t dither, size_t max_bytes, api_gif_animation **out, api_report *report) {
    api_report_clear(report);
    if (out == NULL || w == 0 || h == 0) {
        api_report_set(report, "invalid arguments to the GIF encoder");
        return API_ERR_INVALID_ARGUMENT;
    }
    *out = NULL;
    if (w > 65535 || h > 65535) {
        api_report_set(report, "the image is too large for GIF (at most 65535 pixels a side)");
        return API_ERR_INVALID_ARGUMENT;
    }
    api_gif_animation *encoder = (api_gif_animation *)calloc(1, sizeof *encoder);
    size_t pixels = (size_t)w * h;
    if (encoder == NULL || (encoder->quantizer = api_quantizer_new()) == NULL ||
        (encoder->previous_rgba = (uint8_t *)malloc(pixels * 4)) == NULL ||
        (encoder->previous_indices = (uint8_t *)malloc(pixels)) == NULL ||
        (encoder->indices = (uint8_t *)malloc(pixels)) == NULL || (encoder->marked = (uint8_t *)malloc(pixels)) == NULL) {
        api_gif_animation_free(encoder);
        api_report_set(report, "cannot allocate the GIF encoder");
        return API_ERR_TOO_LARGE;
    }
    encoder->width = w;
    encoder->height = h;
    encoder->animated = animated ? 1 : 0;
    encoder->plays = plays;
    encoder->has_alpha = has_alpha ? 1 : 0;
    encoder->dither = dither ? 1 : 0;
    encoder->output.limit = max_bytes;
    *out = encoder;
    return API_OK;
}

/// Opens cgif's stream with the first frame's palette as the global table.
static int32_t api_gif_start(api_gif_animation *encoder, api_report *report) {
    CGIF_Config config;
    memset(&config, 0, sizeof config);
    memcpy(encoder->global, encoder->current, sizeof encoder->global);
    encoder->global_count = encoder->current_count;
    config.pGlobalPalette = encoder->global;
    config.numGlobalPaletteEntries = (uint16_t)(encoder->global_count + 1);  // and the transparent entry
    config.width = (uint16_t)encoder->width;
    config.height = (uint16_t)encoder->height;
    // cgif writes a frame's graphic control extension (its transparent index) only in an
    // animation: a still with alpha is written as an animation of one frame that plays once.
    if (encoder->animated || encoder->has_alpha) {
        config.attrFlags |= CGIF_ATTR_IS_ANIMATED;
        if (encoder->plays == 1 || !encoder->animated) {
            config.attrFlags |= CGIF_ATTR_NO_LOOP;
        } else {
            // The loop extension counts the repeats after the first play.
            config.numLoops = encoder->plays == 0 ? CGIF_INFINITE_LOOP
                                                  : (uint16_t)(encoder->plays - 1 > 65535 ? 65535 : encoder->plays - 1);
        }
    }
    config.pWriteFn = api_gif_write;
    config.pContext = encoder;
    encoder->gif = cgif_newgif(&config);
    if (encoder->gif == NULL) {
        api_report_set(report, "cgif cannot start the GIF (out of memory)");
        return API_ERR_TOO_LARGE;
    }
    return API_OK;
}

int32_t api_gif_animation_add(api_gif_animation *encoder, const uint8_t *rgba, size_t stride, uint32_t duration_ms,
                              api_report *report) {
    api_report_clear(report);
    if (encoder == NULL || rgba == NULL || stride < (size_t)encoder->width * 4) {
        api_report_set(report, "invalid arguments to the GIF encoder");
        return API_ERR_INVALID_ARGUMENT;
    }
    if (encoder->failed || (!encoder->animated && encoder->frames > 0)) {
        api_report_set(report, encoder->failed ? "the GIF encoder failed before" : "a still GIF has one frame");
        return API_ERR_INVALID_ARGUMENT;
    }
    uint32_t w = encoder->width, h = encoder->height;
    api_quantizer *q = encoder->quantizer;
    api_quantizer_reset(q);
    api_quantizer_add(q, rgba, w, h, stride);
    uint32_t count = api_quantizer_palette(q, API_GIF_COLOURS, encoder->candidate);
    int reuse = 0;
    if (encoder->frames > 0) {
        api_quantizer_use_palette(q, encoder->candidate, count);
        double own = api_quantizer_error(q, rgba, w, h, stride);
        api_quantizer_use_palette(q, encoder->current, encoder->current_count);
        double kept = api_quantizer_error(q, rgba, w, h, stride);
        reuse = kept <= own * 1.5 + 10.0;
    }
    if (!reuse) {
        // The palette taken gets its pass of k-means (one pass over the frame): not spent on a
        // candidate that the frame before's palette keeps out.
        if (count == API_GIF_COLOURS) api_quantizer_refine(q, encoder->candidate, count, rgba, w, h, stride);
        memcpy(encoder->current, encoder->candidate, (size_t)count * 3);
        encoder->current_count = count;
        api_quantizer_use_palette(q, encoder->current, count);
    }
    // The entry past the palette is the transparent index: a pixel under alpha 128, or one that
    // shows what the frame before showed there.
    uint32_t transparent = encoder->current_count;
    int32_t status = api_quantizer_map(q, rgba, w, h, stride, encoder->has_alpha ? (int32_t)transparent : -1,
                                       encoder->dither, reuse ? encoder->previous_rgba : NULL,
                                       reuse ? encoder->previous_indices : NULL, encoder->indices);
    if (status != API_OK) {
        api_report_set(report, "cannot allocate the GIF's dithering rows");
        encoder->failed = 1;
        return status;
    }
    if (encoder->gif == NULL && (status = api_gif_start(encoder, report)) != API_OK) {
        encoder->failed = 1;
        return status;
    }
    // Drawn over the frame before (disposal "leave") when no pixel that frame showed becomes
    // transparent: then every pixel that shows the same colour as before is the transparent index
    // too, and cgif writes only the window that changed. Else the frame before is disposed of to
    // the background (cgif sets that when a frame has alpha) and this one is drawn whole.
    const uint8_t *indices = encoder->indices;
    size_t pixels = (size_t)w * h;
    int any_transparent = 0, over_previous = encoder->frames > 0;
    if (encoder->has_alpha) {
        for (size_t i = 0; i < pixels; i++) {
            if (indices[i] != transparent) continue;
            any_transparent = 1;
            if (encoder->frames > 0 && encoder->previous_rgba[i * 4 + 3] >= 128) over_previous = 0;
        }
    }
    uint8_t *marked = encoder->marked;
    memcpy(marked, indices, pixels);
    if (over_previous) {
        for (size_t i = 0; i < pixels; i++) {
            if (indices[i] == transparent || (encoder->has_alpha && encoder->previous_rgba[i * 4 + 3] < 128)) continue;
            const uint8_t *now = encoder->current + (size_t)indices[i] * 3;
            const uint8_t *before = encoder->previous_palette + (size_t)encoder->previous_indices[i] * 3;
            if (now[0] == before[0] && now[1] == before[1] && now[2] == before[2]) marked[i] = (uint8_t)transparent;
        }
    }
    CGIF_FrameConfig frame;
    memset(&frame, 0, sizeof frame);
    frame.pImageData = marked;
    uint32_t centiseconds = (duration_ms + 5) / 10;
    frame.delay = (uint16_t)(centiseconds > 65535 ? 65535 : centiseconds);
    int local = encoder->current_count != encoder->global_count ||
                memcmp(encoder->current, encoder->global, (size_t)encoder->current_count * 3) != 0;
    uint8_t table[256 * 3];
    memset(table, 0, sizeof table);
    memcpy(table, encoder->current, (size_t)encoder->current_count * 3);
    if (local) {
        frame.attrFlags |= CGIF_FRAME_ATTR_USE_LOCAL_TABLE;
        frame.pLocalPalette = table;
        frame.numLocalPaletteEntries = (uint16_t)(encoder->current_count + 1);
    }
    if (over_previous) {
        frame.attrFlags |= CGIF_FRAME_ATTR_HAS_SET_TRANS;
        frame.transIndex = (uint8_t)transparent;
        frame.genFlags = CGIF_FRAME_GEN_USE_DIFF_WINDOW;
    } else if (any_transparent) {
        frame.attrFlags |= encoder->frames > 0 ? CGIF_FRAME_ATTR_HAS_ALPHA : CGIF_FRAME_ATTR_HAS_SET_TRANS;
        frame.transIndex = (uint8_t)transparent;
    }
    if (cgif_addframe(encoder->gif, &frame) != CGIF_OK) {
        api_report_set(report, encoder->write_failed ? "the encoded GIF exceeds the output limit" : "cgif cannot add the frame");
        encoder->failed = 1;
        return encoder->write_failed ? API_ERR_TOO_LARGE : API_ERR_FAILED;
    }
    for (uint32_t y = 0; y < h; y++) memcpy(encoder->previous_rgba + (size_t)y * w * 4, rgba + (size_t)y * stride, (size_t)w * 4);
    memcpy(encoder->previous_indices, encoder->indices, (size_t)w * h);
    memcpy(encoder->previous_palette, encoder->current, sizeof encoder->previous_palette);
    encoder->frames += 1;
    return API_OK;
}

int32_t api_gif_animation_finish(api_gif_animation *encoder, api_buffer *out, api_report *report) {
    api_report_clear(report);
    if (encoder == NULL || out == NULL) {
        api_report_set(report, "invalid arguments to the GIF encoder");
        return API_ERR_INVALID_ARGUMENT;
    }
    if (encoder->failed || encoder->gif == NULL) {
        api_report_set(report, encoder->failed ? "the GIF encoder failed before" : "a GIF needs at least one frame");
        return API_ERR_INVALID_ARGUMENT;
    }
    int result = cgif_close(encoder->gif);
    encoder->gif = NULL;
    encoder->failed = 1;  // finished
    if (result != CGIF_OK || encoder->write_failed) {
        api_report_set(report, encoder->write_failed ? "the encoded GIF exceeds the output limit" : "cgif cannot finish the GIF");
        return encoder->write_failed ? API_ERR_TOO_LARGE : API_ERR_FAILED;
    }
    api_buffer_free(out);
    size_t limit = out->limit;
    *out = encoder->output;
    out->limit = limit;
    memset(&encoder->output, 0, sizeof encoder->output);
    return API_OK;
}
