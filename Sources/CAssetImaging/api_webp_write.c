// WebP encoding through libwebp's advanced API (errors are return values; nothing jumps), with
// an ICC profile added through libwebpmux when asked.
#include "api_internal.h"

#include <string.h>
#include <webp/encode.h>
#include <webp/mux.h>

static const char *api_webp_error_text(WebPEncodingError code) {
    switch (code) {
    case VP8_ENC_ERROR_OUT_OF_MEMORY: return "libwebp ran out of memory";
    case VP8_ENC_ERROR_BITSTREAM_OUT_OF_MEMORY: return "libwebp ran out of memory for the bitstream";
    case VP8_ENC_ERROR_BAD_DIMENSION: return "the image is too large for WebP (at most 16383 pixels a side)";
    case VP8_ENC_ERROR_PARTITION0_OVERFLOW: return "the WebP partition 0 overflowed (lower the quality)";
    case VP8_ENC_ERROR_PARTITION_OVERFLOW: return "a WebP partition overflowed";
    case VP8_ENC_ERROR_BAD_WRITE: return "the WebP output could not be written";
    case VP8_ENC_ERROR_FILE_TOO_BIG: return "the WebP output is larger than 4 GiB";
    default: return "libwebp failed to encode the image";
    }
}

typedef struct {
    api_buffer *out;
} api_webp_sink;

static int api_webp_write(const uint8_t *data, size_t size, const WebPPicture *picture) {
    api_webp_sink *sink = (api_webp_sink *)picture->custom_ptr;
    return api_buffer_append(sink->out, data, size) == 0;
}

/// Rewrites the WebP in `out` with an ICCP chunk.
static int32_t api_webp_add_icc(api_buffer *out, const uint8_t *icc, size_t icc_length, api_report *report) {
    WebPData image = {out->data, out->length};
    WebPMux *mux = WebPMuxCreate(&image, 0);
    if (mux == NULL) {
        api_report_set(report, "libwebpmux cannot read the encoded image");
        return API_ERR_FAILED;
    }
    WebPData profile = {icc, icc_length};
    WebPData assembled = {NULL, 0};
    int32_t status = API_OK;
    if (WebPMuxSetChunk(mux, "ICCP", &profile, 1) != WEBP_MUX_OK || WebPMuxAssemble(mux, &assembled) != WEBP_MUX_OK) {
        api_report_set(report, "libwebpmux cannot add the ICC profile");
        status = API_ERR_FAILED;
    } else {
        out->length = 0;
        if (api_buffer_append(out, assembled.bytes, assembled.size) != 0) {
            api_report_set(report, "the encoded WebP exceeds the output limit");
            status = API_ERR_TOO_LARGE;
        }
    }
    WebPDataClear(&assembled);
    WebPMuxDelete(mux);
    return status;
}

int32_t api_webp_encode(const uint8_t *rgba, uint32_t w, uint32_t h, size_t stride, int32_t opaque,
                        const api_webp_options *options, api_buffer *out, api_report *report) {
    api_report_clear(report);
    if (rgba == NULL || options == NULL || out == NULL || w == 0 || h == 0 || stride < (size_t)w * 4 ||
        stride > 0x7fffffff) {
        api_report_set(report, "invalid arguments to the WebP encoder");
        return API_ERR_INVALID_ARGUMENT;
    }
    if (w > WEBP_MAX_DIMENSION || h > WEBP_MAX_DIMENSION) {
        api_report_set(report, "the image is too large for WebP (at most 16383 pixels a side)");
        return API_ERR_INVALID_ARGUMENT;
    }
    WebPConfig config;
    if (!WebPConfigInit(&config)) {
        api_report_set(report, "libwebp's version does not match its header");
        return API_ERR_FAILED;
    }
    config.lossless = options->lossless ? 1 : 0;
    config.quality = options->quality < 0 ? 0 : (options->quality > 100 ? 100 : options->quality);
    config.method = options->method < 0 ? 4 : (options->method > 6 ? 6 : options->method);
    config.alpha_quality = options->alpha_quality < 0 ? 100 : (options->alpha_quality > 100 ? 100 : options->alpha_quality);
    config.exact = options->exact ? 1 : 0;
    if (!WebPValidateConfig(&config)) {
        api_report_set(report, "invalid WebP settings");
        return API_ERR_INVALID_ARGUMENT;
    }
    WebPPicture picture;
    if (!WebPPictureInit(&picture)) {
        api_report_set(report, "libwebp's version does not match its header");
        return API_ERR_FAILED;
    }
    picture.width = (int)w;
    picture.height = (int)h;
    picture.use_argb = config.lossless;
    int imported = opaque ? 0 : WebPPictureImportRGBA(&picture, rgba, (int)stride);
    if (opaque) {
        // RGBX: the alpha bytes are ignored, so no alpha plane is written.
        imported = WebPPictureImportRGBX(&picture, rgba, (int)stride);
    }
    if (!imported) {
        WebPPictureFree(&picture);
        api_report_set(report, "libwebp cannot import the pixels (out of memory)");
        return API_ERR_TOO_LARGE;
    }
    api_webp_sink sink = {out};
    picture.writer = api_webp_write;
    picture.custom_ptr = &sink;
    int ok = WebPEncode(&config, &picture);
    WebPEncodingError code = picture.error_code;
    WebPPictureFree(&picture);
    if (!ok) {
        int overflowed = out->overflowed;
        api_buffer_free(out);
        if (overflowed) {
            api_report_set(report, "the encoded WebP exceeds the output limit");
            return API_ERR_TOO_LARGE;
        }
        api_report_set(report, api_webp_error_text(code));
        return code == VP8_ENC_ERROR_OUT_OF_MEMORY || code == VP8_ENC_ERROR_BITSTREAM_OUT_OF_MEMORY ? API_ERR_TOO_LARGE
                                                                                                      : API_ERR_FAILED;
    }
    if (options->icc != NULL && options->icc_length > 0) {
        int32_t status = api_webp_add_icc(out, options->icc, options->icc_length, report);
        if (status != API_OK) {
            api_buffer_free(out);
            return status;
        }
    }
    return API_OK;
}
