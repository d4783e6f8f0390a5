// Internal helpers shared by the imaging files.
#ifndef API_INTERNAL_H
#define API_INTERNAL_H

#include "CAssetImaging.h"

/// Copies `message` into the report (truncated to fit); NULL reports are allowed.
void api_report_set(api_report *report, const char *message);
/// Clears the report.
void api_report_clear(api_report *report);
/// Appends `count` bytes; 0 on success, -1 when the limit or memory refuses them (the buffer is
/// left as it was, `overflowed` set for the limit).
int api_buffer_append(api_buffer *buffer, const void *bytes, size_t count);

/// A colour quantizer (api_quantize.c): a histogram of opaque pixels, a palette cut from it, and
/// a mapping of pixels to the palette with Floyd-Steinberg diffusion.
typedef struct api_quantizer api_quantizer;
api_quantizer *api_quantizer_new(void);
void api_quantizer_free(api_quantizer *q);
/// Empties the histogram.
void api_quantizer_reset(api_quantizer *q);
/// Counts the opaque pixels (alpha >= 128) of RGBA rows into the histogram.
void api_quantizer_add(api_quantizer *q, const uint8_t *rgba, uint32_t w, uint32_t h, size_t stride);
/// Cuts a palette of at most `max_colours` entries (RGB triples into `palette`) from the
/// histogram, which it consumes (reset before the next): how many entries were written (>= 1).
uint32_t api_quantizer_palette(api_quantizer *q, uint32_t max_colours, uint8_t *palette);
/// One pass of k-means over the opaque pixels: each entry becomes the mean of the pixels nearest to
/// it; then makes `palette` the one in use.
void api_quantizer_refine(api_quantizer *q, uint8_t *palette, uint32_t count, const uint8_t *rgba, uint32_t w,
                          uint32_t h, size_t stride);
/// Makes `palette` (kept by pointer, not copied) the one the mapping and the error use.
void api_quantizer_use_palette(api_quantizer *q, const uint8_t *palette, uint32_t count);
/// The mean squared error per opaque pixel of mapping the rows to the palette without diffusion,
/// sampled on every other row and column.
double api_quantizer_error(api_quantizer *q, const uint8_t *rgba, uint32_t w, uint32_t h, size_t stride);
/// Maps RGBA rows to palette indices (`w` a row). Pixels under alpha 128 become
/// `transparent_index` when it is >= 0. With `previous_rgba` and `previous_indices` (the frame
/// before, packed, mapped with the same palette), a pixel equal to the one before keeps its index.
int32_t api_quantizer_map(api_quantizer *q, const uint8_t *rgba, uint32_t w, uint32_t h, size_t stride,
                          int32_t transparent_index, int32_t dither, const uint8_t *previous_rgba,
                          const uint8_t *previous_indices, uint8_t *indices);

#endif
