// AVIF encoding through libavif with libaom (errors are return values; nothing jumps).
//
// Why libaom: Debian's libavif links aom, rav1e and SVT-AV1. libaom is the reference encoder,
// the one libvips (through libheif) uses, supports 4:4:4 and lossless and every size; SVT-AV1
// (1.4 here) encodes only 4:2:0 and sizes of at least 64x64 (not small thumbnails); rav1e is
// slower at the same speed setting for still images.
#include "api_internal.h"

#include <avif/avif.h>
#include <stdio.h>

const char *api_avif_encoder_name(void) {
    return avifCodecName(AVIF_CODEC_CHOICE_AOM, AVIF_CODEC_FLAG_CAN_ENCODE);
}

int32_t api_avif_encode(const uint8_t *rgba, uint32_t w, uint32_t h, size_t stride, int32_t opaque,
                        const api_avif_options *options, api_buffer *out, api_report *report) {
    api_report_clear(report);
    if (rgba == NULL || options == NULL || out == NULL || w == 0 || h == 0 || stride < (size_t)w * 4 ||
        stride > 0xffffffffu) {
        api_report_set(report, "invalid arguments to the AVIF encoder");
        return API_ERR_INVALID_ARGUMENT;
    }
    if (w > 65536 || h > 65536) {
        api_report_set(report, "the image is too large for AVIF (at most 65536 pixels a side)");
        return API_ERR_INVALID_ARGUMENT;
    }
    if (api_avif_encoder_name() == NULL) {
        api_report_set(report, "libavif was built without libaom's encoder");
        return API_ERR_UNSUPPORTED;
    }
    int lossless = options->lossless != 0;
    avifPixelFormat format = AVIF_PIXEL_FORMAT_YUV420;
    if (lossless || options->subsampling == API_SUBSAMPLING_444) format = AVIF_PIXEL_FORMAT_YUV444;
    else if (options->subsampling == API_SUBSAMPLING_422) format = AVIF_PIXEL_FORMAT_YUV422;
    avifImage *image = avifImageCreate(w, h, 8, format);
    avifEncoder *encoder = avifEncoderCreate();
    avifRWData output = AVIF_DATA_EMPTY;
    int32_t status = API_OK;
    if (image == NULL || encoder == NULL) {
        api_report_set(report, "cannot allocate the AVIF encoder");
        status = API_ERR_TOO_LARGE;
        goto done;
    }
    image->colorPrimaries = AVIF_COLOR_PRIMARIES_BT709;
    image->transferCharacteristics = AVIF_TRANSFER_CHARACTERISTICS_SRGB;
    image->matrixCoefficients = lossless ? AVIF_MATRIX_COEFFICIENTS_IDENTITY : AVIF_MATRIX_COEFFICIENTS_BT601;
    image->yuvRange = AVIF_RANGE_FULL;
    if (options->icc != NULL && options->icc_length > 0) avifImageSetProfileICC(image, options->icc, options->icc_length);

    avifRGBImage rgb;
    avifRGBImageSetDefaults(&rgb, image);
    rgb.format = AVIF_RGB_FORMAT_RGBA;
    rgb.depth = 8;
    rgb.pixels = (uint8_t *)rgba;
    rgb.rowBytes = (uint32_t)stride;
    rgb.ignoreAlpha = opaque ? AVIF_TRUE : AVIF_FALSE;
    avifResult result = avifImageRGBToYUV(image, &rgb);
    if (result != AVIF_RESULT_OK) {
        api_report_set(report, avifResultToString(result));
        status = result == AVIF_RESULT_OUT_OF_MEMORY ? API_ERR_TOO_LARGE : API_ERR_FAILED;
        goto done;
    }
    int quality = options->quality < 0 ? 0 : (options->quality > 100 ? 100 : options->quality);
    // As libavif 1.x maps its quality setting: 100 is quantizer 0 (lossless), 0 is 63.
    int quantizer = lossless ? AVIF_QUANTIZER_LOSSLESS : ((100 - quality) * 63 + 50) / 100;
    encoder->codecChoice = AVIF_CODEC_CHOICE_AOM;
    encoder->maxThreads = options->threads < 1 ? 1 : options->threads;
    encoder->speed = options->speed < 0 ? 6 : (options->speed > 10 ? 10 : options->speed);
    encoder->minQuantizer = encoder->maxQuantizer = quantizer;
    encoder->minQuantizerAlpha = encoder->maxQuantizerAlpha = lossless ? AVIF_QUANTIZER_LOSSLESS : quantizer;
    result = avifEncoderWrite(encoder, image, &output);
    if (result != AVIF_RESULT_OK) {
        char message[API_MESSAGE_CAPACITY];
        snprintf(message, sizeof message, "libavif: %s%s%s", avifResultToString(result),
                 encoder->diag.error[0] ? ": " : "", encoder->diag.error);
        api_report_set(report, message);
        status = result == AVIF_RESULT_OUT_OF_MEMORY ? API_ERR_TOO_LARGE : API_ERR_FAILED;
        goto done;
    }
    if (api_buffer_append(out, output.data, output.size) != 0) {
        api_buffer_free(out);
        api_report_set(report, "the encoded AVIF exceeds the output limit");
        status = API_ERR_TOO_LARGE;
    }
done:
    avifRWDataFree(&output);
    if (encoder != NULL) avifEncoderDestroy(encoder);
    if (image != NULL) avifImageDestroy(image);
    return status;
}
