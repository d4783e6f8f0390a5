// ICC profiles to sRGB with Little CMS 2. lcms2 reports errors through a handler and return
// values (never a longjmp); each call works in its own context, so nothing global is shared.
#include "api_internal.h"

#include <lcms2.h>
#include <stdio.h>

static void api_lcms_log(cmsContext context, cmsUInt32Number code, const char *text) {
    api_report *report = (api_report *)cmsGetContextUserData(context);
    (void)code;
    if (report != NULL && report->message[0] == 0) api_report_set(report, text);
}

uint32_t api_icc_color_space(const uint8_t *profile, size_t profile_length) {
    if (profile == NULL || profile_length < 128) return 0;
    return ((uint32_t)profile[16] << 24) | ((uint32_t)profile[17] << 16) | ((uint32_t)profile[18] << 8) | profile[19];
}

/// Converts `pixels` (rows of `stride`) in place through a transform from `profile` (read as `input_format`)
/// to sRGB RGBA8 (`output_format`); `expected` is the colour space the profile must describe.
static int32_t api_icc_convert(uint8_t *pixels, uint32_t w, uint32_t h, size_t stride,
                               const uint8_t *profile, size_t profile_length,
                               cmsUInt32Number input_format, cmsUInt32Number output_format,
                               cmsColorSpaceSignature expected, api_report *report) {
    api_report_clear(report);
    if (pixels == NULL || profile == NULL || w == 0 || h == 0 || stride < (size_t)w * 4 ||
        profile_length < 128 || profile_length > 0x7fffffff) {
        api_report_set(report, "invalid arguments to the colour conversion");
        return API_ERR_INVALID_ARGUMENT;
    }
    cmsContext context = cmsCreateContext(NULL, report);
    if (context == NULL) {
        api_report_set(report, "cannot create a colour management context");
        return API_ERR_FAILED;
    }
    cmsSetLogErrorHandlerTHR(context, api_lcms_log);
    int32_t status = API_OK;
    cmsHPROFILE source = cmsOpenProfileFromMemTHR(context, profile, (cmsUInt32Number)profile_length);
    cmsHPROFILE srgb = cmsCreate_sRGBProfileTHR(context);
    cmsHTRANSFORM transform = NULL;
    if (source == NULL || srgb == NULL) {
        if (report != NULL && report->message[0] == 0) api_report_set(report, "the ICC profile cannot be read");
        status = API_ERR_FAILED;
        goto done;
    }
    if (cmsGetColorSpace(source) != expected) {
        char message[96];
        cmsColorSpaceSignature space = cmsGetColorSpace(source);
        snprintf(message, sizeof message, "the ICC profile describes colour space '%c%c%c%c', not the image's",
                 (char)(space >> 24), (char)(space >> 16), (char)(space >> 8), (char)space);
        api_report_set(report, message);
        status = API_ERR_UNSUPPORTED;
        goto done;
    }
    transform = cmsCreateTransformTHR(context, source, input_format, srgb, output_format,
                                      INTENT_RELATIVE_COLORIMETRIC,
                                      0);
    if (transform == NULL) {
        if (report != NULL && report->message[0] == 0) api_report_set(report, "lcms2 cannot build the colour transform");
        status = API_ERR_FAILED;
        goto done;
    }
    // In place: lcms2 leaves the extra (alpha) bytes of the output untouched.
    cmsDoTransformLineStride(transform, pixels, pixels, w, h, (cmsUInt32Number)stride, (cmsUInt32Number)stride, 0, 0);
    if (report != NULL) report->message[0] = 0;
done:
    if (transform != NULL) cmsDeleteTransform(transform);
    if (source != NULL) cmsCloseProfile(source);
    if (srgb != NULL) cmsCloseProfile(srgb);
    cmsDeleteContext(context);
    return status;
}

int32_t api_icc_rgba_to_srgb(uint8_t *pixels, uint32_t w, uint32_t h, size_t stride,
                             const uint8_t *profile, size_t profile_length, api_report *report) {
    uint32_t space = api_icc_color_space(profile, profile_length);
    if (space == cmsSigGrayData) {
        // Gray pixels are stored as R=G=B: convert the gray channel (R) and copy it out.
        return api_icc_convert(pixels, w, h, stride, profile, profile_length,
                               COLORSPACE_SH(PT_GRAY) | CHANNELS_SH(1) | BYTES_SH(1) | EXTRA_SH(3),
                               TYPE_RGBA_8, cmsSigGrayData, report);
    }
    return api_icc_convert(pixels, w, h, stride, profile, profile_length, TYPE_RGBA_8, TYPE_RGBA_8,
                           cmsSigRgbData, report);
}

int32_t api_icc_cmyk_to_srgb(uint8_t *pixels, uint32_t w, uint32_t h, size_t stride, int32_t inverted,
                             const uint8_t *profile, size_t profile_length, api_report *report) {
    // Adobe writes CMYK inverted (0 = full ink); lcms2's FLAVOR_SH(1) reads it that way.
    cmsUInt32Number input = inverted ? TYPE_CMYK_8_REV : TYPE_CMYK_8;
    // lcms2 writes RGB into the first three bytes of each pixel (EXTRA_SH(1)); alpha is set after.
    int32_t status = api_icc_convert(pixels, w, h, stride, profile, profile_length, input,
                                     COLORSPACE_SH(PT_RGB) | CHANNELS_SH(3) | BYTES_SH(1) | EXTRA_SH(1),
                                     cmsSigCmykData, report);
    if (status != API_OK) return status;
    for (uint32_t y = 0; y < h; y++) {
        uint8_t *row = pixels + (size_t)y * stride;
        for (uint32_t x = 0; x < w; x++) row[4 * x + 3] = 255;
    }
    return API_OK;
}
