// JPEG through the libjpeg API of libjpeg-turbo, with its default decompression settings (those
// of djpeg). Every libjpeg call that can longjmp runs below a setjmp in this file.
#include "CAssetCodecs.h"
#include "apc_checks.h"
#include "apc_report.h"

#include <limits.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jpeglib.h>
#include <jerror.h>

/// A progressive JPEG may have thousands of tiny scans that cost time but no memory; refuse more.
#define APC_JPEG_MAX_SCANS 1000
/// Warnings formatted into the report; later ones are only counted.
#define APC_JPEG_MAX_FORMATTED_WARNINGS 32

typedef struct {
    struct jpeg_error_mgr base;
    jmp_buf jump;
    apc_report *report;
    int saw_eof;        // libjpeg met the end of the data and inserted a fake EOI
    int32_t status;     // the status of the failure that jumped
} apc_jpeg_error;

static int32_t apc_jpeg_status_for(int code, int saw_eof) {
    switch (code) {
    case JERR_BAD_PRECISION:
    case JERR_SOF_UNSUPPORTED:
    case JERR_NOT_COMPILED:
    case JERR_NOTIMPL:
    case JERR_CONVERSION_NOTIMPL:
    case JERR_BAD_J_COLORSPACE:
        return APC_ERR_UNSUPPORTED;
    case JERR_IMAGE_TOO_BIG:
    case JERR_WIDTH_OVERFLOW:
    case JERR_OUT_OF_MEMORY:
    case JERR_NO_BACKING_STORE:
        return APC_ERR_TOO_LARGE;
    case JERR_INPUT_EOF:
    case JERR_INPUT_EMPTY:
        return APC_ERR_TRUNCATED;
    default:
        return saw_eof ? APC_ERR_TRUNCATED : APC_ERR_CORRUPT;
    }
}

static void apc_jpeg_error_exit(j_common_ptr cinfo) {
    apc_jpeg_error *error = (apc_jpeg_error *)cinfo->err;
    char buffer[JMSG_LENGTH_MAX];
    (*cinfo->err->format_message)(cinfo, buffer);
    apc_report_set_message(error->report, buffer);
    error->status = apc_jpeg_status_for(error->base.msg_code, error->saw_eof);
    longjmp(error->jump, 1);
}

static void apc_jpeg_emit_message(j_common_ptr cinfo, int level) {
    if (level >= 0) return;  // trace messages
    apc_jpeg_error *error = (apc_jpeg_error *)cinfo->err;
    error->base.num_warnings++;
    if (error->base.msg_code == JWRN_JPEG_EOF) error->saw_eof = 1;
    if (error->report == NULL) return;
    // The cap counts the whole decode's warnings, which a row-by-row decode reports over several calls.
    if (error->base.num_warnings > APC_JPEG_MAX_FORMATTED_WARNINGS) {
        error->report->warning_count += 1;
        return;
    }
    char buffer[JMSG_LENGTH_MAX];
    (*cinfo->err->format_message)(cinfo, buffer);
    apc_report_add_warning(error->report, buffer);
}

static void apc_jpeg_output_message(j_common_ptr cinfo) {
    (void)cinfo;
}

/// Our own failure below the jump point: message, status, jump.
static void apc_jpeg_fail(j_decompress_ptr cinfo, int32_t status, const char *message) {
    apc_jpeg_error *error = (apc_jpeg_error *)cinfo->err;
    apc_report_set_message(error->report, message);
    error->status = status;
    longjmp(error->jump, 1);
}

static void apc_jpeg_progress_monitor(j_common_ptr cinfo) {
    if (!cinfo->is_decompressor) return;
    j_decompress_ptr dinfo = (j_decompress_ptr)cinfo;
    if (dinfo->input_scan_number > APC_JPEG_MAX_SCANS) {
        apc_jpeg_fail(dinfo, APC_ERR_CORRUPT, "the progressive JPEG has more scans than allowed (1000)");
    }
}

static void apc_jpeg_prepare(struct jpeg_decompress_struct *cinfo, apc_jpeg_error *error, apc_report *report) {
    memset(cinfo, 0, sizeof *cinfo);
    memset(error, 0, sizeof *error);
    cinfo->err = jpeg_std_error(&error->base);
    error->base.error_exit = apc_jpeg_error_exit;
    error->base.emit_message = apc_jpeg_emit_message;
    error->base.output_message = apc_jpeg_output_message;
    error->report = report;
    error->status = APC_ERR_CORRUPT;
}

static int apc_jpeg_valid_denom(uint32_t denom) {
    return denom == 1 || denom == 2 || denom == 4 || denom == 8;
}

static int32_t apc_jpeg_color_space(J_COLOR_SPACE space) {
    switch (space) {
    case JCS_GRAYSCALE: return APC_COLOR_GRAY;
    case JCS_RGB: return APC_COLOR_RGB;
    case JCS_YCbCr: return APC_COLOR_YCBCR;
    case JCS_CMYK: return APC_COLOR_CMYK;
    case JCS_YCCK: return APC_COLOR_YCCK;
    default: return APC_COLOR_UNKNOWN;
    }
}

static uint32_t apc_jpeg_orientation(j_decompress_ptr cinfo) {
    for (jpeg_saved_marker_ptr marker = cinfo->marker_list; marker != NULL; marker = marker->next) {
        if (marker->marker != JPEG_APP0 + 1 || marker->data_length < 6) continue;
        if (memcmp(marker->data, "Exif\0\0", 6) != 0) continue;
        return apc_exif_orientation(marker->data + 6, marker->data_length - 6);
    }
    return 0;
}

int32_t apc_jpeg_read_header(const uint8_t *data, size_t length, uint32_t scale_denom,
                             const apc_limits *limits, apc_header *header, apc_report *report) {
    apc_report_reset(report);
    if (data == NULL || header == NULL || !apc_jpeg_valid_denom(scale_denom)) return APC_ERR_INVALID_ARGUMENT;
    memset(header, 0, sizeof *header);
    struct jpeg_decompress_struct cinfo;
    apc_jpeg_error error;
    apc_jpeg_prepare(&cinfo, &error, report);
    if (setjmp(error.jump)) {
        jpeg_destroy_decompress(&cinfo);
        return ((volatile apc_jpeg_error *)&error)->status;
    }
    jpeg_create_decompress(&cinfo);
    jpeg_mem_src(&cinfo, data, (unsigned long)length);
    jpeg_save_markers(&cinfo, JPEG_APP0 + 1, 0xffff);
    jpeg_read_header(&cinfo, TRUE);

    header->format = APC_FORMAT_JPEG;
    header->width = cinfo.image_width;
    header->height = cinfo.image_height;
    header->channels = (uint32_t)cinfo.num_components;
    header->bit_depth = (uint32_t)cinfo.data_precision;
    header->interlaced = cinfo.progressive_mode ? 1 : 0;
    header->color_space = apc_jpeg_color_space(cinfo.jpeg_color_space);
    header->has_alpha = 0;
    header->orientation = apc_jpeg_orientation(&cinfo);
    if (apc_too_many_pixels(limits, cinfo.image_width, cinfo.image_height)) {
        apc_jpeg_fail(&cinfo, APC_ERR_TOO_LARGE, "the image's declared size exceeds the pixel budget");
    }
    cinfo.scale_num = 1;
    cinfo.scale_denom = scale_denom;
    jpeg_calc_output_dimensions(&cinfo);
    header->output_width = cinfo.output_width;
    header->output_height = cinfo.output_height;
    jpeg_destroy_decompress(&cinfo);
    return APC_OK;
}


/// The input as libjpeg reads it: the caller's bytes, which may sit at another address at each
/// entry point (the source is rebased on the pointer given), then a fake EOI once they run out.
typedef struct {
    struct jpeg_source_mgr base;
    const uint8_t *data;
    size_t length;
} apc_jpeg_source;

static const JOCTET apc_jpeg_fake_eoi[2] = {0xFF, (JOCTET)JPEG_EOI};

static void apc_jpeg_source_noop(j_decompress_ptr cinfo) {
    (void)cinfo;
}

/// As libjpeg's memory source: at the end of the data, warn and insert an EOI marker, so that a
/// truncated image completes with its missing rows filled in gray, as djpeg does.
static boolean apc_jpeg_source_fill(j_decompress_ptr cinfo) {
    WARNMS(cinfo, JWRN_JPEG_EOF);
    cinfo->src->next_input_byte = apc_jpeg_fake_eoi;
    cinfo->src->bytes_in_buffer = 2;
    return TRUE;
}

static void apc_jpeg_source_skip(j_decompress_ptr cinfo, long count) {
    struct jpeg_source_mgr *src = cinfo->src;
    if (count <= 0) return;
    while (count > (long)src->bytes_in_buffer) {
        count -= (long)src->bytes_in_buffer;
        (void)(*src->fill_input_buffer)(cinfo);
    }
    src->next_input_byte += (size_t)count;
    src->bytes_in_buffer -= (size_t)count;
}

static void apc_jpeg_source_init(j_decompress_ptr cinfo, apc_jpeg_source *source, const uint8_t *data, size_t length) {
    source->base.init_source = apc_jpeg_source_noop;
    source->base.fill_input_buffer = apc_jpeg_source_fill;
    source->base.skip_input_data = apc_jpeg_source_skip;
    source->base.resync_to_restart = jpeg_resync_to_restart;
    source->base.term_source = apc_jpeg_source_noop;
    source->base.next_input_byte = data;
    source->base.bytes_in_buffer = length;
    source->data = data;
    source->length = length;
    cinfo->src = &source->base;
}

/// Points the source at `data`, the same bytes as before at a possibly different address.
static void apc_jpeg_source_rebase(apc_jpeg_source *source, const uint8_t *data) {
    uintptr_t position = (uintptr_t)source->base.next_input_byte;
    uintptr_t start = (uintptr_t)source->data;
    if (position >= start && position - start <= source->length) {
        source->base.next_input_byte = data + (position - start);
    }
    source->data = data;
}

struct apc_jpeg_rows {
    struct jpeg_decompress_struct cinfo;
    apc_jpeg_error error;
    struct jpeg_progress_mgr progress;
    apc_jpeg_source source;
    uint32_t channels;    // bytes per output pixel: 3 (RGB) or 4 (RGBA)
    int cmyk;             // libjpeg gives CMYK, converted here unless `raw`
    int raw;              // CMYK rows are handed over as libjpeg gives them
    int inverted;         // Adobe (inverted) CMYK
    JSAMPARRAY scratch;   // CMYK rows for an RGB output, in libjpeg's image pool
    int32_t failure;      // APC_OK, or the status of the failure every later call returns
};

/// CMYK as libjpeg gives it (YCCK already turned into CMYK) to RGB or RGBA: `in` and `out` may
/// be the same row when `channels` is 4.
static void apc_jpeg_cmyk_convert(const uint8_t *in, uint8_t *out, JDIMENSION width, int inverted, uint32_t channels) {
    for (JDIMENSION x = 0; x < width; x++, in += 4, out += channels) {
        unsigned c = in[0], m = in[1], y = in[2], k = in[3];
        if (!inverted) {
            c = 255 - c; m = 255 - m; y = 255 - y; k = 255 - k;
        }
        // round(c * k / 255), the same as libjpeg-turbo's cmyk_to_rgb (used by djpeg).
        out[0] = (uint8_t)((c * k + 127) / 255);
        out[1] = (uint8_t)((m * k + 127) / 255);
        out[2] = (uint8_t)((y * k + 127) / 255);
        if (channels == 4) out[3] = 255;
    }
}

/// The start below its own jump point; on failure the decoder is freed and *out stays NULL.
static int32_t apc_jpeg_rows_start_impl(const uint8_t *data, size_t length, uint32_t scale_denom,
                                        const apc_limits *limits, uint32_t expected_width,
                                        uint32_t expected_height, uint32_t channels, int raw_cmyk,
                                        apc_jpeg_rows **out, apc_report *report) {
    apc_jpeg_rows *rows = calloc(1, sizeof *rows);
    if (rows == NULL) {
        apc_report_set_message(report, "cannot allocate the JPEG decoder");
        return APC_ERR_TOO_LARGE;
    }
    apc_jpeg_prepare(&rows->cinfo, &rows->error, report);
    rows->progress.progress_monitor = apc_jpeg_progress_monitor;
    rows->channels = channels;
    rows->failure = APC_OK;
    if (setjmp(rows->error.jump)) {
        int32_t status = ((volatile apc_jpeg_error *)&rows->error)->status;
        jpeg_destroy_decompress(&rows->cinfo);
        free(rows);
        return status;
    }
    j_decompress_ptr cinfo = &rows->cinfo;
    jpeg_create_decompress(cinfo);
    if (limits != NULL && limits->max_library_memory != 0 && limits->max_library_memory <= (uint64_t)LONG_MAX) {
        cinfo->mem->max_memory_to_use = (long)limits->max_library_memory;
    }
    cinfo->progress = &rows->progress;
    apc_jpeg_source_init(cinfo, &rows->source, data, length);
    jpeg_read_header(cinfo, TRUE);
    if (apc_too_many_pixels(limits, cinfo->image_width, cinfo->image_height)) {
        apc_jpeg_fail(cinfo, APC_ERR_TOO_LARGE, "the image's declared size exceeds the pixel budget");
    }
    rows->cmyk = cinfo->jpeg_color_space == JCS_CMYK || cinfo->jpeg_color_space == JCS_YCCK;
    rows->inverted = cinfo->saw_Adobe_marker;
    rows->raw = raw_cmyk;
    if (raw_cmyk && !rows->cmyk) {
        apc_jpeg_fail(cinfo, APC_ERR_UNSUPPORTED, "the JPEG is not CMYK or YCCK");
    }
    cinfo->out_color_space = rows->cmyk ? JCS_CMYK : (channels == 4 ? JCS_EXT_RGBA : JCS_EXT_RGB);
    cinfo->scale_num = 1;
    cinfo->scale_denom = scale_denom;
    jpeg_calc_output_dimensions(cinfo);
    if (cinfo->output_width != expected_width || cinfo->output_height != expected_height) {
        apc_jpeg_fail(cinfo, APC_ERR_CORRUPT, "the image size differs from the header read before");
    }
    jpeg_start_decompress(cinfo);
    if (cinfo->output_components != (rows->cmyk ? 4 : (int)channels)) {
        apc_jpeg_fail(cinfo, APC_ERR_UNSUPPORTED, "the decoder does not give the expected components");
    }
    if (rows->cmyk && channels == 3) {
        rows->scratch = (*cinfo->mem->alloc_sarray)((j_common_ptr)cinfo, JPOOL_IMAGE, cinfo->output_width * 4, 16);
    }
    *out = rows;
    return APC_OK;
}

int32_t apc_jpeg_rows_start(const uint8_t *data, size_t length, uint32_t scale_denom,
                            const apc_limits *limits, uint32_t expected_width, uint32_t expected_height,
                            uint32_t channels, apc_jpeg_rows **decoder, apc_report *report) {
    apc_report_reset(report);
    if (decoder == NULL) return APC_ERR_INVALID_ARGUMENT;
    *decoder = NULL;
    if (data == NULL || !apc_jpeg_valid_denom(scale_denom) || (channels != 3 && channels != 4) ||
        expected_width == 0 || expected_height == 0) {
        apc_report_set_message(report, "invalid arguments to the JPEG row decoder");
        return APC_ERR_INVALID_ARGUMENT;
    }
    return apc_jpeg_rows_start_impl(data, length, scale_denom, limits, expected_width, expected_height,
                                    channels, 0, decoder, report);
}

/// Reads rows below its own jump point; a failure is kept in the decoder for later calls.
static int32_t apc_jpeg_rows_read_impl(apc_jpeg_rows *rows, uint8_t *pixels, size_t row_bytes,
                                       uint32_t count, uint32_t *rows_read) {
    if (setjmp(rows->error.jump)) {
        rows->failure = ((volatile apc_jpeg_error *)&rows->error)->status;
        return rows->failure;
    }
    j_decompress_ptr cinfo = &rows->cinfo;
    uint32_t done = 0;
    while (done < count) {
        JSAMPROW list[16];
        JDIMENSION batch = count - done > 16 ? 16 : count - done;
        for (JDIMENSION i = 0; i < batch; i++) {
            list[i] = rows->scratch != NULL ? rows->scratch[i] : pixels + (size_t)(done + i) * row_bytes;
        }
        JDIMENSION got = jpeg_read_scanlines(cinfo, list, batch);
        if (got == 0) apc_jpeg_fail(cinfo, APC_ERR_CORRUPT, "the decoder returned no rows");
        if (rows->cmyk && !rows->raw) {
            for (JDIMENSION i = 0; i < got; i++) {
                apc_jpeg_cmyk_convert(list[i], pixels + (size_t)(done + i) * row_bytes, cinfo->output_width,
                                      rows->inverted, rows->channels);
            }
        }
        done += got;
        *rows_read = done;
    }
    return APC_OK;
}

/// Checks what every call after the start checks; returns APC_OK when the call may go on.
static int32_t apc_jpeg_rows_enter(apc_jpeg_rows *rows, const uint8_t *data, size_t length, apc_report *report) {
    apc_report_reset(report);
    if (rows == NULL || data == NULL || length != rows->source.length) {
        apc_report_set_message(report, "the JPEG row decoder needs the bytes it was started with");
        return APC_ERR_INVALID_ARGUMENT;
    }
    if (rows->failure != APC_OK) {
        apc_report_set_message(report, "the JPEG row decoder failed before");
        return rows->failure;
    }
    rows->error.report = report;
    apc_jpeg_source_rebase(&rows->source, data);
    return APC_OK;
}

int32_t apc_jpeg_rows_read(apc_jpeg_rows *decoder, const uint8_t *data, size_t length,
                           uint8_t *pixels, size_t row_bytes, size_t capacity, uint32_t max_rows,
                           uint32_t *rows_read, apc_report *report) {
    if (rows_read != NULL) *rows_read = 0;
    int32_t status = apc_jpeg_rows_enter(decoder, data, length, report);
    if (status != APC_OK) return status;
    j_decompress_ptr cinfo = &decoder->cinfo;
    uint32_t remaining = cinfo->output_height - cinfo->output_scanline;
    uint32_t count = max_rows < remaining ? max_rows : remaining;
    if (count == 0) return APC_OK;
    if (pixels == NULL || rows_read == NULL || row_bytes < (size_t)cinfo->output_width * decoder->channels ||
        capacity / row_bytes < (size_t)count - 1 ||
        capacity - row_bytes * ((size_t)count - 1) < (size_t)cinfo->output_width * decoder->channels) {
        apc_report_set_message(report, "the output buffer does not fit the rows");
        return APC_ERR_INVALID_ARGUMENT;
    }
    return apc_jpeg_rows_read_impl(decoder, pixels, row_bytes, count, rows_read);
}

static int32_t apc_jpeg_rows_finish_impl(apc_jpeg_rows *rows) {
    if (setjmp(rows->error.jump)) {
        rows->failure = ((volatile apc_jpeg_error *)&rows->error)->status;
        return rows->failure;
    }
    // Reading on to EOI: an error there fails the decode, as it does for djpeg.
    jpeg_finish_decompress(&rows->cinfo);
    return APC_OK;
}

int32_t apc_jpeg_rows_finish(apc_jpeg_rows *decoder, const uint8_t *data, size_t length, apc_report *report) {
    int32_t status = apc_jpeg_rows_enter(decoder, data, length, report);
    if (status != APC_OK) return status;
    if (decoder->cinfo.output_scanline < decoder->cinfo.output_height) {
        apc_report_set_message(report, "rows remain to be read");
        return APC_ERR_INVALID_ARGUMENT;
    }
    return apc_jpeg_rows_finish_impl(decoder);
}

void apc_jpeg_rows_destroy(apc_jpeg_rows *decoder) {
    if (decoder == NULL) return;
    jpeg_destroy_decompress(&decoder->cinfo);
    free(decoder);
}

/// A whole decode into the caller's rows: RGBA, or raw CMYK (`inverted` then says whether it is
/// Adobe's inverted CMYK). One report gathers the warnings of every step.
static int32_t apc_jpeg_decode_whole(const uint8_t *data, size_t length, uint32_t scale_denom,
                                     const apc_limits *limits, uint32_t expected_width, uint32_t expected_height,
                                     uint8_t *pixels, size_t row_bytes, size_t capacity, int raw_cmyk,
                                     int32_t *inverted, apc_report *report) {
    apc_report_reset(report);
    if (data == NULL || pixels == NULL || (raw_cmyk && inverted == NULL) || !apc_jpeg_valid_denom(scale_denom) ||
        !apc_output_fits(expected_width, expected_height, row_bytes, capacity)) {
        apc_report_set_message(report, "the output buffer does not fit the image");
        return APC_ERR_INVALID_ARGUMENT;
    }
    apc_jpeg_rows *rows = NULL;
    int32_t status = apc_jpeg_rows_start_impl(data, length, scale_denom, limits, expected_width, expected_height,
                                              4, raw_cmyk, &rows, report);
    if (status != APC_OK) return status;
    if (inverted != NULL) *inverted = rows->inverted ? 1 : 0;
    uint32_t read = 0;
    status = apc_jpeg_rows_read_impl(rows, pixels, row_bytes, expected_height, &read);
    if (status == APC_OK) status = apc_jpeg_rows_finish_impl(rows);
    apc_jpeg_rows_destroy(rows);
    return status;
}

int32_t apc_jpeg_decode_rgba(const uint8_t *data, size_t length, uint32_t scale_denom,
                             const apc_limits *limits,
                             uint32_t expected_width, uint32_t expected_height,
                             uint8_t *pixels, size_t row_bytes, size_t capacity,
                             apc_report *report) {
    return apc_jpeg_decode_whole(data, length, scale_denom, limits, expected_width, expected_height, pixels,
                                 row_bytes, capacity, 0, NULL, report);
}

int32_t apc_jpeg_decode_cmyk(const uint8_t *data, size_t length, uint32_t scale_denom,
                             const apc_limits *limits,
                             uint32_t expected_width, uint32_t expected_height,
                             uint8_t *pixels, size_t row_bytes, size_t capacity,
                             int32_t *inverted, apc_report *report) {
    return apc_jpeg_decode_whole(data, length, scale_denom, limits, expected_width, expected_height, pixels,
                                 row_bytes, capacity, 1, inverted, report);
}

void apc_metadata_free(apc_metadata *metadata) {
    if (metadata == NULL) return;
    free(metadata->icc);
    free(metadata->exif);
    memset(metadata, 0, sizeof *metadata);
}

int32_t apc_jpeg_read_metadata(const uint8_t *data, size_t length, const apc_limits *limits,
                               apc_metadata *metadata, apc_report *report) {
    apc_report_reset(report);
    if (data == NULL || metadata == NULL) return APC_ERR_INVALID_ARGUMENT;
    memset(metadata, 0, sizeof *metadata);
    struct jpeg_decompress_struct cinfo;
    apc_jpeg_error error;
    apc_jpeg_prepare(&cinfo, &error, report);
    if (setjmp(error.jump)) {
        jpeg_destroy_decompress(&cinfo);
        apc_metadata_free(metadata);
        return ((volatile apc_jpeg_error *)&error)->status;
    }
    jpeg_create_decompress(&cinfo);
    if (limits != NULL && limits->max_library_memory != 0 && limits->max_library_memory <= (uint64_t)LONG_MAX) {
        cinfo.mem->max_memory_to_use = (long)limits->max_library_memory;
    }
    jpeg_mem_src(&cinfo, data, (unsigned long)length);
    jpeg_save_markers(&cinfo, JPEG_APP0 + 1, 0xffff);
    jpeg_save_markers(&cinfo, JPEG_APP0 + 2, 0xffff);
    jpeg_read_header(&cinfo, TRUE);
    for (jpeg_saved_marker_ptr marker = cinfo.marker_list; marker != NULL; marker = marker->next) {
        if (marker->marker != JPEG_APP0 + 1 || marker->data_length <= 6) continue;
        if (memcmp(marker->data, "Exif\0\0", 6) != 0 || metadata->exif != NULL) continue;
        metadata->exif = malloc(marker->data_length - 6);
        if (metadata->exif != NULL) {
            memcpy(metadata->exif, marker->data + 6, marker->data_length - 6);
            metadata->exif_length = marker->data_length - 6;
        }
    }
    JOCTET *icc = NULL;
    unsigned int icc_length = 0;
    // Inconsistent chunks are a warning (JWRN_BOGUS_ICC) and a FALSE return, not an error.
    if (jpeg_read_icc_profile(&cinfo, &icc, &icc_length) && icc != NULL) {
        metadata->icc = icc;
        metadata->icc_length = icc_length;
    }
    jpeg_destroy_decompress(&cinfo);
    return APC_OK;
}

#define APC_STRINGIFY2(x) #x
#define APC_STRINGIFY(x) APC_STRINGIFY2(x)
// libjpeg's API has no run-time version call: the headers' version, which the soname pins to the
// same ABI (libjpeg.so.62).
const char *apc_jpeg_library_version(void) {
    return APC_STRINGIFY(LIBJPEG_TURBO_VERSION);
}
