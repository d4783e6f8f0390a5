// Animated WebP through libwebpmux's WebPAnimEncoder, with the settings libvips 8.18's webpsave
// gives an animation: no key frames forced (kmin INT_MAX - 1, kmax INT_MAX), no mixing of lossy
// and lossless frames, no exhaustive size search. Errors are return values; nothing jumps.
#include "api_internal.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <webp/encode.h>
#include <webp/mux.h>

struct api_webp_animation {
    WebPAnimEncoder *encoder;
    WebPConfig config;
    uint32_t width, height;
    int opaque;
    int timestamp;   // the start of the next frame, in milliseconds
    int failed;
};

void api_webp_animation_free(api_webp_animation *encoder) {
    if (encoder == NULL) return;
    WebPAnimEncoderDelete(encoder->encoder);
    free(encoder);
}

static int32_t api_webp_animation_fail(api_webp_animation *encoder, const char *what, api_report *report) {
    char message[API_MESSAGE_CAPACITY];
    const char *reason = encoder->encoder ? WebPAnimEncoderGetError(encoder->encoder) : NULL;
    snprintf(message, sizeof message, "%s%s%s", what, reason && reason[0] ? ": " : "", reason ? reason : "");
    api_report_set(report, message);
    encoder->failed = 1;
    return API_ERR_FAILED;
}

int32_t api_webp_animation_new(uint32_t w, uint32_t h, uint32_t plays, int32_t opaque, const api_webp_options *options,
                               api_webp_animation **out, api_report *report) {
    api_report_clear(report);
    if (out == NULL || options == NULL || w == 0 || h == 0) {
        api_report_set(report, "invalid arguments to the animated WebP encoder");
        return API_ERR_INVALID_ARGUMENT;
    }
    *out = NULL;
    if (w > WEBP_MAX_DIMENSION || h > WEBP_MAX_DIMENSION) {
        api_report_set(report, "the animation is too large for WebP (at most 16383 pixels a side)");
        return API_ERR_INVALID_ARGUMENT;
    }
    api_webp_animation *encoder = (api_webp_animation *)calloc(1, sizeof *encoder);
    if (encoder == NULL) {
        api_report_set(report, "cannot allocate the animated WebP encoder");
        return API_ERR_TOO_LARGE;
    }
    WebPAnimEncoderOptions anim;
    if (!WebPConfigInit(&encoder->config) || !WebPAnimEncoderOptionsInit(&anim)) {
        free(encoder);
        api_report_set(report, "libwebp's version does not match its header");
        return API_ERR_FAILED;
    }
    WebPConfig *config = &encoder->config;
    config->lossless = options->lossless ? 1 : 0;
    config->quality = options->quality < 0 ? 0 : (options->quality > 100 ? 100 : options->quality);
    config->method = options->method < 0 ? 4 : (options->method > 6 ? 6 : options->method);
    config->alpha_quality = options->alpha_quality < 0 ? 100 : (options->alpha_quality > 100 ? 100 : options->alpha_quality);
    config->exact = options->exact ? 1 : 0;
    if (!WebPValidateConfig(config)) {
        free(encoder);
        api_report_set(report, "invalid WebP settings");
        return API_ERR_INVALID_ARGUMENT;
    }
    anim.anim_params.loop_count = plays > 65535 ? 0 : (int)plays;
    anim.minimize_size = 0;
    anim.kmin = INT_MAX - 1;
    anim.kmax = INT_MAX;
    anim.allow_mixed = 0;
    encoder->encoder = WebPAnimEncoderNew((int)w, (int)h, &anim);
    if (encoder->encoder == NULL) {
        free(encoder);
        api_report_set(report, "libwebpmux cannot start the animation encoder (out of memory)");
        return API_ERR_TOO_LARGE;
    }
    encoder->width = w;
    encoder->height = h;
    encoder->opaque = opaque;
    *out = encoder;
    return API_OK;
}

int32_t api_webp_animation_add(api_webp_animation *encoder, const uint8_t *rgba, size_t stride, uint32_t duration_ms,
                               api_report *report) {
    api_report_clear(report);
    if (encoder == NULL || rgba == NULL || stride < (size_t)encoder->width * 4 || stride > 0x7fffffff) {
        api_report_set(report, "invalid arguments to the animated WebP encoder");
        return API_ERR_INVALID_ARGUMENT;
    }
    if (encoder->failed) {
        api_report_set(report, "the animated WebP encoder failed before");
        return API_ERR_FAILED;
    }
    if ((uint64_t)encoder->timestamp + duration_ms > INT_MAX) {
        api_report_set(report, "the animation is longer than WebP's timestamps reach");
        encoder->failed = 1;
        return API_ERR_INVALID_ARGUMENT;
    }
    WebPPicture picture;
    if (!WebPPictureInit(&picture)) {
        api_report_set(report, "libwebp's version does not match its header");
        return API_ERR_FAILED;
    }
    picture.width = (int)encoder->width;
    picture.height = (int)encoder->height;
    picture.use_argb = 1;
    int imported = encoder->opaque ? WebPPictureImportRGBX(&picture, rgba, (int)stride)
                                   : WebPPictureImportRGBA(&picture, rgba, (int)stride);
    if (!imported) {
        WebPPictureFree(&picture);
        api_report_set(report, "libwebp cannot import the frame (out of memory)");
        encoder->failed = 1;
        return API_ERR_TOO_LARGE;
    }
    int ok = WebPAnimEncoderAdd(encoder->encoder, &picture, encoder->timestamp, &encoder->config);
    WebPPictureFree(&picture);
    if (!ok) return api_webp_animation_fail(encoder, "libwebpmux cannot add the frame", report);
    encoder->timestamp += (int)duration_ms;
    return API_OK;
}

int32_t api_webp_animation_finish(api_webp_animation *encoder, api_buffer *out, api_report *report) {
    api_report_clear(report);
    if (encoder == NULL || out == NULL) {
        api_report_set(report, "invalid arguments to the animated WebP encoder");
        return API_ERR_INVALID_ARGUMENT;
    }
    if (encoder->failed) {
        api_report_set(report, "the animated WebP encoder failed before");
        return API_ERR_FAILED;
    }
    if (!WebPAnimEncoderAdd(encoder->encoder, NULL, encoder->timestamp, NULL)) {
        return api_webp_animation_fail(encoder, "libwebpmux cannot end the animation", report);
    }
    WebPData assembled;
    WebPDataInit(&assembled);
    if (!WebPAnimEncoderAssemble(encoder->encoder, &assembled)) {
        return api_webp_animation_fail(encoder, "libwebpmux cannot assemble the animation", report);
    }
    int32_t status = API_OK;
    if (api_buffer_append(out, assembled.bytes, assembled.size) != 0) {
        api_report_set(report, "the encoded WebP exceeds the output limit");
        status = API_ERR_TOO_LARGE;
    }
    WebPDataClear(&assembled);
    encoder->failed = 1;  // finished: nothing more may be added
    return status;
}
