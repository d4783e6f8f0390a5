// JPEG encoding through libjpeg-turbo's libjpeg API. Every libjpeg call that can longjmp runs
// below the setjmp in api_jpeg_encode; the destination writes into an api_buffer.
#include "api_internal.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jpeglib.h>
#include <jerror.h>

typedef struct {
    struct jpeg_error_mgr base;
    jmp_buf jump;
    api_report *report;
    int32_t status;
} api_jpeg_error;

typedef struct {
    struct jpeg_destination_mgr base;
    api_buffer *out;
    JOCTET chunk[16384];
} api_jpeg_destination;

static void api_jpeg_error_exit(j_common_ptr cinfo) {
    api_jpeg_error *error = (api_jpeg_error *)cinfo->err;
    char buffer[JMSG_LENGTH_MAX];
    (*cinfo->err->format_message)(cinfo, buffer);
    if (error->status == API_OK) {
        api_report_set(error->report, buffer);
        error->status = API_ERR_FAILED;
    }
    longjmp(error->jump, 1);
}

static void api_jpeg_silent(j_common_ptr cinfo, int level) {
    (void)cinfo;
    (void)level;
}

static void api_jpeg_no_output(j_common_ptr cinfo) {
    (void)cinfo;
}

static void api_jpeg_destination_init(j_compress_ptr cinfo) {
    api_jpeg_destination *d = (api_jpeg_destination *)cinfo->dest;
    d->base.next_output_byte = d->chunk;
    d->base.free_in_buffer = sizeof d->chunk;
}

static void api_jpeg_destination_overflow(j_compress_ptr cinfo) {
    api_jpeg_error *error = (api_jpeg_error *)cinfo->err;
    api_jpeg_destination *d = (api_jpeg_destination *)cinfo->dest;
    if (d->out->overflowed) {
        api_report_set(error->report, "the encoded JPEG exceeds the output limit");
        error->status = API_ERR_TOO_LARGE;
    } else {
        api_report_set(error->report, "cannot allocate the encoded JPEG");
        error->status = API_ERR_TOO_LARGE;
    }
    longjmp(error->jump, 1);
}

static boolean api_jpeg_destination_empty(j_compress_ptr cinfo) {
    api_jpeg_destination *d = (api_jpeg_destination *)cinfo->dest;
    if (api_buffer_append(d->out, d->chunk, sizeof d->chunk) != 0) api_jpeg_destination_overflow(cinfo);
    d->base.next_output_byte = d->chunk;
    d->base.free_in_buffer = sizeof d->chunk;
    return TRUE;
}

static void api_jpeg_destination_term(j_compress_ptr cinfo) {
    api_jpeg_destination *d = (api_jpeg_destination *)cinfo->dest;
    size_t used = sizeof d->chunk - d->base.free_in_buffer;
    if (api_buffer_append(d->out, d->chunk, used) != 0) api_jpeg_destination_overflow(cinfo);
}

/// Writes an EXIF block as APP1 ("Exif\0\0" + TIFF), when it fits one marker.
static void api_jpeg_write_exif(j_compress_ptr cinfo, const uint8_t *exif, size_t length) {
    if (exif == NULL || length == 0 || length > 65533 - 6) return;
    jpeg_write_m_header(cinfo, JPEG_APP0 + 1, (unsigned int)(length + 6));
    static const uint8_t prefix[6] = {'E', 'x', 'i', 'f', 0, 0};
    for (int i = 0; i < 6; i++) jpeg_write_m_byte(cinfo, prefix[i]);
    for (size_t i = 0; i < length; i++) jpeg_write_m_byte(cinfo, exif[i]);
}

int32_t api_jpeg_encode(const uint8_t *rgb, uint32_t w, uint32_t h, size_t stride,
                        const api_jpeg_options *options, api_buffer *out, api_report *report) {
    api_report_clear(report);
    if (rgb == NULL || options == NULL || out == NULL || w == 0 || h == 0 || w > JPEG_MAX_DIMENSION ||
        h > JPEG_MAX_DIMENSION || stride < (size_t)w * 3) {
        api_report_set(report, "invalid arguments to the JPEG encoder (a JPEG side is at most 65500 pixels)");
        return API_ERR_INVALID_ARGUMENT;
    }
    struct jpeg_compress_struct cinfo;
    api_jpeg_error error;
    api_jpeg_destination *destination = calloc(1, sizeof *destination);
    if (destination == NULL) {
        api_report_set(report, "cannot allocate the JPEG encoder");
        return API_ERR_TOO_LARGE;
    }
    memset(&cinfo, 0, sizeof cinfo);
    memset(&error, 0, sizeof error);
    cinfo.err = jpeg_std_error(&error.base);
    error.base.error_exit = api_jpeg_error_exit;
    error.base.emit_message = api_jpeg_silent;
    error.base.output_message = api_jpeg_no_output;
    error.report = report;
    error.status = API_OK;
    if (setjmp(error.jump)) {
        jpeg_destroy_compress(&cinfo);
        free(destination);
        api_buffer_free(out);
        int32_t status = ((volatile api_jpeg_error *)&error)->status;
        return status == API_OK ? API_ERR_FAILED : status;
    }
    jpeg_create_compress(&cinfo);
    destination->out = out;
    destination->base.init_destination = api_jpeg_destination_init;
    destination->base.empty_output_buffer = api_jpeg_destination_empty;
    destination->base.term_destination = api_jpeg_destination_term;
    cinfo.dest = &destination->base;
    cinfo.image_width = w;
    cinfo.image_height = h;
    cinfo.input_components = 3;
    cinfo.in_color_space = JCS_RGB;
    jpeg_set_defaults(&cinfo);
    int quality = options->quality < 1 ? 1 : (options->quality > 100 ? 100 : options->quality);
    jpeg_set_quality(&cinfo, quality, TRUE);
    int h_factor = 2, v_factor = 2;
    if (options->subsampling == API_SUBSAMPLING_444) h_factor = v_factor = 1;
    else if (options->subsampling == API_SUBSAMPLING_422) v_factor = 1;
    cinfo.comp_info[0].h_samp_factor = h_factor;
    cinfo.comp_info[0].v_samp_factor = v_factor;
    cinfo.comp_info[1].h_samp_factor = cinfo.comp_info[1].v_samp_factor = 1;
    cinfo.comp_info[2].h_samp_factor = cinfo.comp_info[2].v_samp_factor = 1;
    cinfo.optimize_coding = options->optimize_coding ? TRUE : FALSE;
    cinfo.dct_method = JDCT_ISLOW;
    if (options->progressive) jpeg_simple_progression(&cinfo);
    jpeg_start_compress(&cinfo, TRUE);
    api_jpeg_write_exif(&cinfo, options->exif, options->exif_length);
    if (options->icc != NULL && options->icc_length > 0 && options->icc_length <= 0xffffffffu) {
        jpeg_write_icc_profile(&cinfo, options->icc, (unsigned int)options->icc_length);
    }
    while (cinfo.next_scanline < cinfo.image_height) {
        JSAMPROW rows[16];
        JDIMENSION n = 0;
        while (n < 16 && cinfo.next_scanline + n < cinfo.image_height) {
            rows[n] = (JSAMPROW)(rgb + (size_t)(cinfo.next_scanline + n) * stride);
            n++;
        }
        jpeg_write_scanlines(&cinfo, rows, n);
    }
    jpeg_finish_compress(&cinfo);
    jpeg_destroy_compress(&cinfo);
    free(destination);
    return API_OK;
}
