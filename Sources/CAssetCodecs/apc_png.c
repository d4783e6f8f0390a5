// PNG through libpng's classic API with explicit transforms (no gamma, no colour management).
// Every libpng call that can longjmp runs below a setjmp in this file.
#include "CAssetCodecs.h"
#include "apc_checks.h"
#include "apc_report.h"

#include <png.h>
#include <setjmp.h>
#include <string.h>

/// Default for ancillary chunk allocations, as libpng's own default.
#define APC_PNG_DEFAULT_CHUNK_MAX 8000000u

typedef struct {
    const uint8_t *data;
    size_t length;
    size_t offset;
    int ran_out;     // the read callback hit the end of the data
    int too_large;   // libpng refused the image against the user limits
    apc_report *report;
} apc_png_source;

static void apc_png_read(png_structp png, png_bytep out, size_t count) {
    apc_png_source *source = (apc_png_source *)png_get_io_ptr(png);
    if (source->length - source->offset < count) {
        source->ran_out = 1;
        png_error(png, "unexpected end of PNG data");
    }
    memcpy(out, source->data + source->offset, count);
    source->offset += count;
}

static void apc_png_error(png_structp png, png_const_charp message) {
    apc_png_source *source = (apc_png_source *)png_get_error_ptr(png);
    if (strstr(message, "exceeds user limit") != NULL) source->too_large = 1;
    apc_report_set_message(source->report, message);
    png_longjmp(png, 1);
}

static void apc_png_warning(png_structp png, png_const_charp message) {
    apc_png_source *source = (apc_png_source *)png_get_error_ptr(png);
    // png_check_IHDR warns about each limit it finds exceeded, then fails with "Invalid IHDR data".
    if (strstr(message, "exceeds user limit") != NULL) source->too_large = 1;
    apc_report_add_warning(source->report, message);
}

static int32_t apc_png_failure(const volatile apc_png_source *source) {
    if (source->too_large) return APC_ERR_TOO_LARGE;
    if (source->ran_out) return APC_ERR_TRUNCATED;
    return APC_ERR_CORRUPT;
}

/// Creates the reader; no jump point is needed (libpng guards its own creation). On failure
/// sets the report's message and returns 0.
static int apc_png_create(png_structp *png, png_infop *info, apc_png_source *source) {
    *png = png_create_read_struct(PNG_LIBPNG_VER_STRING, source, apc_png_error, apc_png_warning);
    if (*png != NULL) {
        *info = png_create_info_struct(*png);
        if (*info != NULL) {
            png_set_read_fn(*png, source, apc_png_read);
            return 1;
        }
        png_destroy_read_struct(png, NULL, NULL);
    }
    apc_report_set_message(source->report, "cannot create the PNG reader");
    return 0;
}

/// Applies the limits and reads the chunks up to the first IDAT; called below the caller's jump point.
static void apc_png_read_info(png_structp png, png_infop info, const apc_limits *limits) {
    uint32_t max_width = 0x7fffffffu, max_height = 0x7fffffffu;
    uint64_t chunk = APC_PNG_DEFAULT_CHUNK_MAX;
    if (limits != NULL) {
        if (limits->max_width != 0 && limits->max_width < max_width) max_width = limits->max_width;
        if (limits->max_height != 0 && limits->max_height < max_height) max_height = limits->max_height;
        if (limits->max_chunk_bytes != 0) chunk = limits->max_chunk_bytes;
    }
    png_set_user_limits(png, max_width, max_height);
    png_set_chunk_malloc_max(png, (png_alloc_size_t)chunk);
    png_read_info(png, info);
}

static uint32_t apc_png_orientation(png_structp png, png_infop info) {
#ifdef PNG_eXIf_SUPPORTED
    png_uint_32 count = 0;
    png_bytep exif = NULL;
    if (png_get_eXIf_1(png, info, &count, &exif) != 0 && exif != NULL) {
        if (count >= 6 && memcmp(exif, "Exif\0\0", 6) == 0) return apc_exif_orientation(exif + 6, count - 6);
        return apc_exif_orientation(exif, count);
    }
#else
    (void)png; (void)info;
#endif
    return 0;
}

static int32_t apc_png_color_space(int color_type) {
    switch (color_type) {
    case PNG_COLOR_TYPE_GRAY: return APC_COLOR_GRAY;
    case PNG_COLOR_TYPE_GRAY_ALPHA: return APC_COLOR_GRAY_ALPHA;
    case PNG_COLOR_TYPE_RGB: return APC_COLOR_RGB;
    case PNG_COLOR_TYPE_RGB_ALPHA: return APC_COLOR_RGBA;
    case PNG_COLOR_TYPE_PALETTE: return APC_COLOR_PALETTE;
    default: return APC_COLOR_UNKNOWN;
    }
}

int32_t apc_png_read_header(const uint8_t *data, size_t length, const apc_limits *limits,
                            apc_header *header, apc_report *report) {
    apc_report_reset(report);
    if (data == NULL || header == NULL) return APC_ERR_INVALID_ARGUMENT;
    memset(header, 0, sizeof *header);
    apc_png_source source = {data, length, 0, 0, 0, report};
    png_structp png = NULL;
    png_infop info = NULL;
    if (!apc_png_create(&png, &info, &source)) return APC_ERR_TOO_LARGE;
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_read_struct(&png, &info, NULL);
        return apc_png_failure((const volatile apc_png_source *)&source);
    }
    apc_png_read_info(png, info, limits);

    png_uint_32 width = 0, height = 0;
    int bit_depth = 0, color_type = 0, interlace = 0;
    png_get_IHDR(png, info, &width, &height, &bit_depth, &color_type, &interlace, NULL, NULL);
    header->format = APC_FORMAT_PNG;
    header->width = width;
    header->height = height;
    header->output_width = width;
    header->output_height = height;
    header->channels = png_get_channels(png, info);
    header->bit_depth = (uint32_t)bit_depth;
    header->interlaced = interlace != PNG_INTERLACE_NONE;
    header->color_space = apc_png_color_space(color_type);
    header->has_alpha = (color_type & PNG_COLOR_MASK_ALPHA) != 0 ||
                        png_get_valid(png, info, PNG_INFO_tRNS) != 0;
    header->orientation = apc_png_orientation(png, info);
    png_destroy_read_struct(&png, &info, NULL);

    if (apc_too_many_pixels(limits, width, height)) {
        apc_report_set_message(report, "the image's declared size exceeds the pixel budget");
        return APC_ERR_TOO_LARGE;
    }
    return APC_OK;
}

/// Sets up the transforms of the pixel contract; returns the number of interlace passes.
static int apc_png_set_rgba_transforms(png_structp png, png_infop info, int color_type, int bit_depth) {
    int has_trns = png_get_valid(png, info, PNG_INFO_tRNS) != 0;
    if (color_type == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(png);
    if (color_type == PNG_COLOR_TYPE_GRAY && bit_depth < 8) png_set_expand_gray_1_2_4_to_8(png);
    if (has_trns) png_set_tRNS_to_alpha(png);
    // libpng computes (v * 255 + 32767) / 65535 exactly (checked for every 16-bit value in tests).
    if (bit_depth == 16) png_set_scale_16(png);
    if (color_type == PNG_COLOR_TYPE_GRAY || color_type == PNG_COLOR_TYPE_GRAY_ALPHA) png_set_gray_to_rgb(png);
    if ((color_type & PNG_COLOR_MASK_ALPHA) == 0 && !has_trns) png_set_add_alpha(png, 0xff, PNG_FILLER_AFTER);
    return png_set_interlace_handling(png);
}

int32_t apc_png_decode_rgba(const uint8_t *data, size_t length, const apc_limits *limits,
                            uint32_t expected_width, uint32_t expected_height,
                            uint8_t *pixels, size_t row_bytes, size_t capacity,
                            apc_report *report) {
    apc_report_reset(report);
    if (data == NULL || pixels == NULL ||
        !apc_output_fits(expected_width, expected_height, row_bytes, capacity)) {
        apc_report_set_message(report, "the output buffer does not fit the image");
        return APC_ERR_INVALID_ARGUMENT;
    }
    apc_png_source source = {data, length, 0, 0, 0, report};
    png_structp png = NULL;
    png_infop info = NULL;
    if (!apc_png_create(&png, &info, &source)) return APC_ERR_TOO_LARGE;
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_read_struct(&png, &info, NULL);
        return apc_png_failure((const volatile apc_png_source *)&source);
    }
    apc_png_read_info(png, info, limits);

    png_uint_32 width = 0, height = 0;
    int bit_depth = 0, color_type = 0;
    png_get_IHDR(png, info, &width, &height, &bit_depth, &color_type, NULL, NULL, NULL);
    if (width != expected_width || height != expected_height) {
        png_error(png, "the image size differs from the header read before");
    }
    if (apc_too_many_pixels(limits, width, height)) {
        source.too_large = 1;
        png_error(png, "the image's declared size exceeds the pixel budget");
    }
    int passes = apc_png_set_rgba_transforms(png, info, color_type, bit_depth);
    png_read_update_info(png, info);
    if (png_get_rowbytes(png, info) != (size_t)width * 4 || png_get_channels(png, info) != 4) {
        png_error(png, "the transformed rows are not 8-bit RGBA");
    }
    for (int pass = 0; pass < passes; pass++) {
        for (png_uint_32 y = 0; y < height; y++) {
            png_read_row(png, pixels + (size_t)y * row_bytes, NULL);
        }
    }
    // The chunks after the image data are read too: a fault there fails the decode, as it does
    // for libpng's own readers.
    png_read_end(png, NULL);
    png_destroy_read_struct(&png, &info, NULL);
    return APC_OK;
}
