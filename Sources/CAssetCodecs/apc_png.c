// PNG through libpng's classic API with explicit transforms (no gamma, no colour management).
// Every libpng call that can longjmp runs below a setjmp in this file.
#include "CAssetCodecs.h"
#include "apc_checks.h"
#include "apc_report.h"

#include <png.h>
#include <zlib.h>
#include <setjmp.h>
#include <stddef.h>
#include <stdlib.h>
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

static uint32_t apc_png_be32(const uint8_t *p) {
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | (uint32_t)p[3];
}

/// Checks the CRC of every critical chunk (IHDR, PLTE, IDAT, IEND), walking the chunks of the
/// whole input, or only those before the first IDAT when `header_only`; a bad one fails with
/// libpng's words ("IDAT: CRC error") and APC_ERR_CORRUPT. A chunk before the first IDAT that
/// declares more bytes than the input has left fails with APC_ERR_TRUNCATED: libpng would fail the
/// same way, but only after allocating the declared length (a 259-byte file declaring a 1.9 GB
/// iTXt made it map and zero 1.9 GB: its chunk limit is only a "benign error", a warning, for a
/// reader). Otherwise the walk stops quietly where the data stops making sense: libpng reads the
/// same bytes next and reports what is wrong with them. Never jumps.
///
/// This replaces libpng's own check of critical chunks, which runs as it reads, so that libpng can
/// be told not to compute zlib's Adler-32 of the image data as well: a CRC-32 that matches over
/// every byte of every IDAT already shows that the compressed data are those the encoder wrote.
static int32_t apc_png_check_chunks(const uint8_t *data, size_t length, int header_only, apc_report *report) {
    size_t offset = 8;
    int seen_idat = 0;  // past the first IDAT, a chunk may run off the end quietly
    while (length >= 12 && offset <= length - 12) {
        uint32_t size = apc_png_be32(data + offset);
        const uint8_t *type = data + offset + 4;
        int idat = memcmp(type, "IDAT", 4) == 0;
        if (size > 0x7fffffffu) return APC_OK;
        if (size > length - offset - 12) {
            if (idat || seen_idat) return APC_OK;
            char message[64];
            memcpy(message, type, 4);
            memcpy(message + 4, ": the chunk is longer than the data left", 41);
            for (int i = 0; i < 4; i++) {
                if (message[i] < 0x20 || message[i] > 0x7e) message[i] = '?';
            }
            apc_report_set_message(report, message);
            return APC_ERR_TRUNCATED;
        }
        if (idat && header_only) return APC_OK;
        if ((type[0] & 0x20) == 0) {
            uint32_t expected = apc_png_be32(data + offset + 8 + size);
            uLong crc = crc32(crc32(0L, Z_NULL, 0), type, 4 + size);
            if ((uint32_t)crc != expected) {
                char message[32];
                memcpy(message, type, 4);
                memcpy(message + 4, ": CRC error", 12);
                for (int i = 0; i < 4; i++) {
                    if (message[i] < 0x20 || message[i] > 0x7e) message[i] = '?';
                }
                apc_report_set_message(report, message);
                return APC_ERR_CORRUPT;
            }
            if (memcmp(type, "IEND", 4) == 0) return APC_OK;
        }
        if (idat) seen_idat = 1;
        offset += 12 + (size_t)size;
    }
    return APC_OK;
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
    // apc_png_check_chunks has checked the critical chunks' CRCs (IDAT's included) over the
    // whole input, so libpng neither computes them again nor the Adler-32 of the decompressed data.
    // Ancillary chunks keep libpng's default: a bad CRC drops the chunk with a warning.
    png_set_crc_action(png, PNG_CRC_QUIET_USE, PNG_CRC_DEFAULT);
    png_set_option(png, PNG_IGNORE_ADLER32, PNG_OPTION_ON);
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
    int32_t checked = apc_png_check_chunks(data, length, 1, report);
    if (checked != APC_OK) return checked;
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

/// A decode in progress: libpng's reader, the source, and how rows come out.
struct apc_png_rows {
    png_structp png;
    png_infop info;
    apc_png_source source;
    uint32_t width;
    uint32_t height;
    uint32_t channels;   // bytes per output pixel: 3 (RGB) or 4 (RGBA)
    uint32_t passes;     // interlace passes libpng makes (1 unless Adam7)
    uint32_t next_row;
    int palette;         // rows come as one index byte per pixel, expanded through `table`
    int32_t failure;     // APC_OK, or the status of the failure every later call returns
    uint8_t table[256 * 4];  // palette entries as RGBA or RGB
};

/// The palette and tRNS as one table, entries as libpng's own expansion gives them: indices past
/// the palette are black (libpng keeps a zeroed 256-entry palette), past tRNS opaque.
static void apc_png_fill_table(apc_png_rows *rows) {
    png_colorp palette = NULL;
    int count = 0;
    png_bytep alpha = NULL;
    int alpha_count = 0;
    if (png_get_PLTE(rows->png, rows->info, &palette, &count) == 0) count = 0;
    if (png_get_tRNS(rows->png, rows->info, &alpha, &alpha_count, NULL) == 0 || alpha == NULL) alpha_count = 0;
    for (int i = 0; i < 256; i++) {
        uint8_t *entry = rows->table + (size_t)i * rows->channels;
        entry[0] = i < count ? palette[i].red : 0;
        entry[1] = i < count ? palette[i].green : 0;
        entry[2] = i < count ? palette[i].blue : 0;
        if (rows->channels == 4) entry[3] = i < alpha_count ? alpha[i] : 255;
    }
}

/// Expands a row of `width` index bytes at its start into pixels, in place, back to front (each
/// pixel lands at or after its index byte, so no index is overwritten before it is read).
static void apc_png_expand_palette(const apc_png_rows *rows, uint8_t *row) {
    uint32_t x = rows->width;
    if (rows->channels == 4) {
        uint32_t entries[256];
        memcpy(entries, rows->table, sizeof entries);
        while (x-- > 0) memcpy(row + (size_t)x * 4, &entries[row[x]], 4);
    } else {
        while (x-- > 0) {
            const uint8_t *entry = rows->table + (size_t)row[x] * 3;
            uint8_t *pixel = row + (size_t)x * 3;
            pixel[2] = entry[2];
            pixel[1] = entry[1];
            pixel[0] = entry[0];
        }
    }
}

/// Reads the header and sets up the transforms of the pixel contract for `channels` (3: RGB,
/// alpha dropped; 4: RGBA); called below the caller's jump point.
static void apc_png_setup(apc_png_rows *rows, const apc_limits *limits,
                          uint32_t expected_width, uint32_t expected_height, int allow_interlace) {
    png_structp png = rows->png;
    png_infop info = rows->info;
    apc_png_read_info(png, info, limits);

    png_uint_32 width = 0, height = 0;
    int bit_depth = 0, color_type = 0, interlace = 0;
    png_get_IHDR(png, info, &width, &height, &bit_depth, &color_type, &interlace, NULL, NULL);
    if (width != expected_width || height != expected_height) {
        png_error(png, "the image size differs from the header read before");
    }
    if (apc_too_many_pixels(limits, width, height)) {
        rows->source.too_large = 1;
        png_error(png, "the image's declared size exceeds the pixel budget");
    }
    if (interlace != PNG_INTERLACE_NONE && !allow_interlace) {
        png_error(png, "an interlaced PNG does not decode row by row");
    }
    rows->width = width;
    rows->height = height;
    int has_trns = png_get_valid(png, info, PNG_INFO_tRNS) != 0;
    if (color_type == PNG_COLOR_TYPE_PALETTE && interlace == PNG_INTERLACE_NONE) {
        // Indices, one byte each, expanded here through a table: cheaper than libpng's expansion.
        rows->palette = 1;
        if (bit_depth < 8) png_set_packing(png);
        apc_png_fill_table(rows);
    } else {
        int keep_alpha = rows->channels == 4;
        if (color_type == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(png);
        if (color_type == PNG_COLOR_TYPE_GRAY && bit_depth < 8) png_set_expand_gray_1_2_4_to_8(png);
        if (has_trns && keep_alpha) png_set_tRNS_to_alpha(png);
        // libpng computes (v * 255 + 32767) / 65535 exactly (checked for every 16-bit value in tests).
        if (bit_depth == 16) png_set_scale_16(png);
        if (color_type == PNG_COLOR_TYPE_GRAY || color_type == PNG_COLOR_TYPE_GRAY_ALPHA) png_set_gray_to_rgb(png);
        if (keep_alpha && (color_type & PNG_COLOR_MASK_ALPHA) == 0 && !has_trns) {
            png_set_add_alpha(png, 0xff, PNG_FILLER_AFTER);
        }
        if (!keep_alpha && ((color_type & PNG_COLOR_MASK_ALPHA) != 0 || color_type == PNG_COLOR_TYPE_PALETTE)) {
            png_set_strip_alpha(png);
        }
    }
    rows->passes = (uint32_t)png_set_interlace_handling(png);
    png_read_update_info(png, info);
    size_t expected_bytes = (size_t)width * (rows->palette ? 1 : rows->channels);
    if (png_get_rowbytes(png, info) != expected_bytes ||
        png_get_channels(png, info) != (rows->palette ? 1 : rows->channels)) {
        png_error(png, "the transformed rows are not 8-bit RGB or RGBA");
    }
}

/// Reads the next row into `row` (at least width * channels bytes); below the caller's jump point.
static void apc_png_read_next(apc_png_rows *rows, uint8_t *row) {
    png_read_row(rows->png, row, NULL);
    if (rows->palette) apc_png_expand_palette(rows, row);
    rows->next_row += 1;
}

/// Creates the reader for `rows`; on failure sets the report's message and returns 0.
static int apc_png_rows_create(apc_png_rows *rows, const uint8_t *data, size_t length, uint32_t channels,
                               apc_report *report) {
    memset(rows, 0, offsetof(apc_png_rows, table));
    rows->source = (apc_png_source){data, length, 0, 0, 0, report};
    rows->channels = channels;
    rows->failure = APC_OK;
    return apc_png_create(&rows->png, &rows->info, &rows->source);
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
    int32_t checked = apc_png_check_chunks(data, length, 0, report);
    if (checked != APC_OK) return checked;
    apc_png_rows rows;
    if (!apc_png_rows_create(&rows, data, length, 4, report)) return APC_ERR_TOO_LARGE;
    if (setjmp(png_jmpbuf(rows.png))) {
        png_destroy_read_struct(&rows.png, &rows.info, NULL);
        return apc_png_failure((const volatile apc_png_source *)&rows.source);
    }
    apc_png_setup(&rows, limits, expected_width, expected_height, 1);
    if (rows.passes > 1) {
        // Adam7: every pass adds its pixels to rows already in the output.
        for (uint32_t pass = 0; pass < rows.passes; pass++) {
            for (uint32_t y = 0; y < rows.height; y++) {
                png_read_row(rows.png, pixels + (size_t)y * row_bytes, NULL);
            }
        }
    } else {
        for (uint32_t y = 0; y < rows.height; y++) apc_png_read_next(&rows, pixels + (size_t)y * row_bytes);
    }
    // The chunks after the image data are read too: a fault there fails the decode, as it does
    // for libpng's own readers.
    png_read_end(rows.png, NULL);
    png_destroy_read_struct(&rows.png, &rows.info, NULL);
    return APC_OK;
}

int32_t apc_png_rows_start(const uint8_t *data, size_t length, const apc_limits *limits,
                           uint32_t expected_width, uint32_t expected_height, uint32_t channels,
                           apc_png_rows **decoder, apc_report *report) {
    apc_report_reset(report);
    if (decoder == NULL) return APC_ERR_INVALID_ARGUMENT;
    *decoder = NULL;
    if (data == NULL || (channels != 3 && channels != 4) || expected_width == 0 || expected_height == 0) {
        apc_report_set_message(report, "invalid arguments to the PNG row decoder");
        return APC_ERR_INVALID_ARGUMENT;
    }
    int32_t checked = apc_png_check_chunks(data, length, 0, report);
    if (checked != APC_OK) return checked;
    apc_png_rows *rows = malloc(sizeof *rows);
    if (rows == NULL) {
        apc_report_set_message(report, "cannot allocate the PNG decoder");
        return APC_ERR_TOO_LARGE;
    }
    if (!apc_png_rows_create(rows, data, length, channels, report)) {
        free(rows);
        return APC_ERR_TOO_LARGE;
    }
    if (setjmp(png_jmpbuf(rows->png))) {
        int32_t status = apc_png_failure((const volatile apc_png_source *)&rows->source);
        png_destroy_read_struct(&rows->png, &rows->info, NULL);
        free(rows);
        return status;
    }
    apc_png_setup(rows, limits, expected_width, expected_height, 0);
    *decoder = rows;
    return APC_OK;
}

/// Checks what every call after the start checks; returns APC_OK when the call may go on.
static int32_t apc_png_rows_enter(apc_png_rows *rows, const uint8_t *data, size_t length, apc_report *report) {
    apc_report_reset(report);
    if (rows == NULL || data == NULL || length != rows->source.length) {
        apc_report_set_message(report, "the PNG row decoder needs the bytes it was started with");
        return APC_ERR_INVALID_ARGUMENT;
    }
    if (rows->failure != APC_OK) {
        apc_report_set_message(report, "the PNG row decoder failed before");
        return rows->failure;
    }
    rows->source.report = report;
    rows->source.data = data;
    return APC_OK;
}

int32_t apc_png_rows_read(apc_png_rows *decoder, const uint8_t *data, size_t length,
                          uint8_t *pixels, size_t row_bytes, size_t capacity, uint32_t max_rows,
                          uint32_t *rows_read, apc_report *report) {
    if (rows_read != NULL) *rows_read = 0;
    int32_t status = apc_png_rows_enter(decoder, data, length, report);
    if (status != APC_OK) return status;
    uint32_t remaining = decoder->height - decoder->next_row;
    uint32_t count = max_rows < remaining ? max_rows : remaining;
    if (count == 0) return APC_OK;
    size_t pixel_bytes = (size_t)decoder->width * decoder->channels;
    if (pixels == NULL || rows_read == NULL || row_bytes < pixel_bytes ||
        capacity / row_bytes < (size_t)count - 1 || capacity - row_bytes * ((size_t)count - 1) < pixel_bytes) {
        apc_report_set_message(report, "the output buffer does not fit the rows");
        return APC_ERR_INVALID_ARGUMENT;
    }
    if (setjmp(png_jmpbuf(decoder->png))) {
        decoder->failure = apc_png_failure((const volatile apc_png_source *)&decoder->source);
        return decoder->failure;
    }
    for (uint32_t i = 0; i < count; i++) {
        apc_png_read_next(decoder, pixels + (size_t)i * row_bytes);
        *rows_read = i + 1;
    }
    return APC_OK;
}

int32_t apc_png_rows_finish(apc_png_rows *decoder, const uint8_t *data, size_t length, apc_report *report) {
    int32_t status = apc_png_rows_enter(decoder, data, length, report);
    if (status != APC_OK) return status;
    if (decoder->next_row < decoder->height) {
        apc_report_set_message(report, "rows remain to be read");
        return APC_ERR_INVALID_ARGUMENT;
    }
    if (setjmp(png_jmpbuf(decoder->png))) {
        decoder->failure = apc_png_failure((const volatile apc_png_source *)&decoder->source);
        return decoder->failure;
    }
    png_read_end(decoder->png, NULL);
    return APC_OK;
}

void apc_png_rows_destroy(apc_png_rows *decoder) {
    if (decoder == NULL) return;
    png_destroy_read_struct(&decoder->png, &decoder->info, NULL);
    free(decoder);
}

int32_t apc_png_read_metadata(const uint8_t *data, size_t length, const apc_limits *limits,
                              apc_metadata *metadata, apc_report *report) {
    apc_report_reset(report);
    if (data == NULL || metadata == NULL) return APC_ERR_INVALID_ARGUMENT;
    memset(metadata, 0, sizeof *metadata);
    int32_t checked = apc_png_check_chunks(data, length, 1, report);
    if (checked != APC_OK) return checked;
    apc_png_source source = {data, length, 0, 0, 0, report};
    png_structp png = NULL;
    png_infop info = NULL;
    if (!apc_png_create(&png, &info, &source)) return APC_ERR_TOO_LARGE;
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_read_struct(&png, &info, NULL);
        apc_metadata_free(metadata);
        return apc_png_failure((const volatile apc_png_source *)&source);
    }
    apc_png_read_info(png, info, limits);
    png_charp name = NULL;
    int compression = 0;
    png_bytep profile = NULL;
    png_uint_32 profile_length = 0;
    if (png_get_iCCP(png, info, &name, &compression, &profile, &profile_length) != 0 && profile != NULL &&
        profile_length > 0) {
        metadata->icc = malloc(profile_length);
        if (metadata->icc != NULL) {
            memcpy(metadata->icc, profile, profile_length);
            metadata->icc_length = profile_length;
        }
    }
#ifdef PNG_eXIf_SUPPORTED
    png_uint_32 count = 0;
    png_bytep exif = NULL;
    if (png_get_eXIf_1(png, info, &count, &exif) != 0 && exif != NULL && count > 0) {
        size_t skip = (count >= 6 && memcmp(exif, "Exif\0\0", 6) == 0) ? 6 : 0;
        metadata->exif = malloc(count - skip);
        if (metadata->exif != NULL) {
            memcpy(metadata->exif, exif + skip, count - skip);
            metadata->exif_length = count - skip;
        }
    }
#endif
    png_destroy_read_struct(&png, &info, NULL);
    return APC_OK;
}

const char *apc_png_library_version(void) {
    return png_get_libpng_ver(NULL);
}
