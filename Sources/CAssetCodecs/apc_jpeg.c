// JPEG through the libjpeg API of libjpeg-turbo, with its default decompression settings (those
// of djpeg). Every libjpeg call that can longjmp runs below a setjmp in this file.
#include "CAssetCodecs.h"
#include "apc_checks.h"
#include "apc_report.h"

#include <limits.h>
#include <setjmp.h>
#include <stdio.h>
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
    if (error->report->warning_count >= APC_JPEG_MAX_FORMATTED_WARNINGS) {
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

/// CMYK as libjpeg gives it (YCCK already turned into CMYK) to RGBA, in place.
static void apc_jpeg_cmyk_to_rgba(uint8_t *row, JDIMENSION width, int inverted) {
    for (JDIMENSION x = 0; x < width; x++, row += 4) {
        unsigned c = row[0], m = row[1], y = row[2], k = row[3];
        if (!inverted) {
            c = 255 - c; m = 255 - m; y = 255 - y; k = 255 - k;
        }
        // round(c * k / 255), the same as libjpeg-turbo's cmyk_to_rgb (used by djpeg).
        row[0] = (uint8_t)((c * k + 127) / 255);
        row[1] = (uint8_t)((m * k + 127) / 255);
        row[2] = (uint8_t)((y * k + 127) / 255);
        row[3] = 255;
    }
}

int32_t apc_jpeg_decode_rgba(const uint8_t *data, size_t length, uint32_t scale_denom,
                             const apc_limits *limits,
                             uint32_t expected_width, uint32_t expected_height,
                             uint8_t *pixels, size_t row_bytes, size_t capacity,
                             apc_report *report) {
    apc_report_reset(report);
    if (data == NULL || pixels == NULL || !apc_jpeg_valid_denom(scale_denom) ||
        !apc_output_fits(expected_width, expected_height, row_bytes, capacity)) {
        apc_report_set_message(report, "the output buffer does not fit the image");
        return APC_ERR_INVALID_ARGUMENT;
    }
    struct jpeg_decompress_struct cinfo;
    apc_jpeg_error error;
    struct jpeg_progress_mgr progress;
    apc_jpeg_prepare(&cinfo, &error, report);
    memset(&progress, 0, sizeof progress);
    progress.progress_monitor = apc_jpeg_progress_monitor;
    if (setjmp(error.jump)) {
        jpeg_destroy_decompress(&cinfo);
        return ((volatile apc_jpeg_error *)&error)->status;
    }
    jpeg_create_decompress(&cinfo);
    if (limits != NULL && limits->max_library_memory != 0 && limits->max_library_memory <= (uint64_t)LONG_MAX) {
        cinfo.mem->max_memory_to_use = (long)limits->max_library_memory;
    }
    cinfo.progress = &progress;
    jpeg_mem_src(&cinfo, data, (unsigned long)length);
    jpeg_read_header(&cinfo, TRUE);
    if (apc_too_many_pixels(limits, cinfo.image_width, cinfo.image_height)) {
        apc_jpeg_fail(&cinfo, APC_ERR_TOO_LARGE, "the image's declared size exceeds the pixel budget");
    }
    int cmyk = cinfo.jpeg_color_space == JCS_CMYK || cinfo.jpeg_color_space == JCS_YCCK;
    int inverted = cinfo.saw_Adobe_marker;
    cinfo.out_color_space = cmyk ? JCS_CMYK : JCS_EXT_RGBA;
    cinfo.scale_num = 1;
    cinfo.scale_denom = scale_denom;
    jpeg_calc_output_dimensions(&cinfo);
    if (cinfo.output_width != expected_width || cinfo.output_height != expected_height) {
        apc_jpeg_fail(&cinfo, APC_ERR_CORRUPT, "the image size differs from the header read before");
    }
    jpeg_start_decompress(&cinfo);
    if (cinfo.output_components != 4) {
        apc_jpeg_fail(&cinfo, APC_ERR_UNSUPPORTED, "the decoder does not give four components");
    }
    while (cinfo.output_scanline < cinfo.output_height) {
        JSAMPROW rows[16];
        JDIMENSION first = cinfo.output_scanline;
        JDIMENSION count = cinfo.output_height - first;
        if (count > 16) count = 16;
        for (JDIMENSION i = 0; i < count; i++) rows[i] = pixels + (size_t)(first + i) * row_bytes;
        JDIMENSION read = jpeg_read_scanlines(&cinfo, rows, count);
        if (read == 0) apc_jpeg_fail(&cinfo, APC_ERR_CORRUPT, "the decoder returned no rows");
        if (cmyk) {
            for (JDIMENSION i = 0; i < read; i++) apc_jpeg_cmyk_to_rgba(rows[i], cinfo.output_width, inverted);
        }
    }
    // Reading on to EOI: an error there fails the decode, as it does for djpeg.
    jpeg_finish_decompress(&cinfo);
    jpeg_destroy_decompress(&cinfo);
    return APC_OK;
}
