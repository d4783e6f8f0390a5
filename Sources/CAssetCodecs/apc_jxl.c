// JPEG XL through libjxl's decoder API (libjxl 0.7, Debian 12), opened on demand by its soname.
// <jxl/decode.h> is included for the types and prototypes only: every call goes through the
// function table filled by apc_library_open.
//
// Choices:
// - One thread: no parallel runner is set, so libjxl decodes on the calling thread. The pipeline
//   runs several decodes at once and owns the parallelism; libjxl_threads would start a pool per
//   decode, and would be a second library to open.
// - Stored orientation: JxlDecoderSetKeepOrientation keeps the pixels in bitstream order and the
//   header reports the codestream's orientation (1-8), which the pipeline applies as it does a
//   JPEG's or a TIFF's EXIF orientation. Width and height are the stored (unoriented) size.
// - Colour: 8-bit RGBA as libjxl converts it. An image stored in its own colour space (lossless,
//   a recompressed JPEG), or a lossy (XYB) one whose colour space is an enumerated one (sRGB,
//   Display P3, PQ...), comes out in that colour space. A lossy
//   (XYB) image whose colour space is an ICC profile would come out in linear sRGB, which 8 bits
//   band badly; we ask for sRGB instead (JxlDecoderSetPreferredColorProfile), as
//   `djxl --color_space=RGB_D65_SRG_Rel_SRG` does. *_read_metadata returns the profile of the
//   pixels we output (libjxl's TARGET_DATA), and none when that is plain sRGB.
// - HDR (PQ, HLG) comes out as its 8-bit code values, not tone mapped; the profile describes them.
// - A CMYK image (a black extra channel) is APC_ERR_UNSUPPORTED: libjxl 0.7 does not composite the
//   black channel, so the colour channels alone would be wrong. Spot colours are rendered into the
//   colour channels (libjxl's default, as djxl).
// - An animation decodes its first frame, coalesced (blended onto the canvas). The header's frame
//   count comes from a pass over the frame headers, which libjxl reads without decoding frames.
// - Limits: the canvas and every layer (frames before blending may exceed the canvas) are checked
//   against the pixel budget before libjxl allocates them. libjxl's working memory is some 3 float
//   planes on top of the output: about 16 bytes a pixel with our buffer (11 MP: 164 MB peak).
// - Truncation: the input is never closed for the image (see apc_jxl_start), so that data that end
//   early are APC_ERR_TRUNCATED and bad data APC_ERR_CORRUPT. A container box with a 64-bit length
//   (valid, but misread by libjxl 0.7) is APC_ERR_UNSUPPORTED.
//
// libjxl 0.7 has no error strings and no way to silence it: Debian's build prints its internal
// failure trace ("./lib/jxl/...: JXL_FAILURE: ...") to stderr when a file is bad. Our messages
// name the stage that failed.
#include "CAssetCodecs.h"
#include "apc_checks.h"
#include "apc_library.h"
#include "apc_report.h"

#include <jxl/decode.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/// Default cap on a metadata block (ICC profile, EXIF box), as the PNG decoder's chunk cap.
#define APC_JXL_DEFAULT_BLOCK_MAX 8000000u

#define JXL_FUNCTIONS(X)                                                                              \
    X(JxlDecoderVersion) X(JxlSignatureCheck) X(JxlDecoderCreate) X(JxlDecoderDestroy)                \
    X(JxlDecoderSubscribeEvents) X(JxlDecoderSetKeepOrientation) X(JxlDecoderSetUnpremultiplyAlpha)   \
    X(JxlDecoderSetInput) X(JxlDecoderCloseInput) X(JxlDecoderProcessInput) X(JxlDecoderGetBasicInfo) \
    X(JxlDecoderGetExtraChannelInfo) X(JxlDecoderGetColorAsEncodedProfile)                            \
    X(JxlDecoderGetICCProfileSize) X(JxlDecoderGetColorAsICCProfile)                                  \
    X(JxlDecoderSetPreferredColorProfile) X(JxlDecoderImageOutBufferSize)                             \
    X(JxlDecoderSetImageOutBuffer) X(JxlDecoderSetImageOutCallback) X(JxlDecoderSetBoxBuffer)         \
    X(JxlDecoderReleaseBoxBuffer) X(JxlDecoderSetDecompressBoxes) X(JxlDecoderGetBoxType)            \
    X(JxlDecoderSetCoalescing) X(JxlDecoderGetFrameHeader)

static struct { JXL_FUNCTIONS(APC_LIBRARY_POINTER) } jxl;
static const char *const jxl_names[] = {JXL_FUNCTIONS(APC_LIBRARY_NAME)};
static apc_library jxl_library = APC_LIBRARY("libjxl.so.0.7", jxl_names, jxl);

static pthread_once_t apc_jxl_version_once = PTHREAD_ONCE_INIT;
static char apc_jxl_version[32];

static void apc_jxl_version_load(void) {
    apc_report scratch;
    if (!apc_library_open(&jxl_library, &scratch)) return;
    uint32_t v = jxl.JxlDecoderVersion();  // major * 1000000 + minor * 1000 + patch
    snprintf(apc_jxl_version, sizeof apc_jxl_version, "libjxl %u.%u.%u", v / 1000000, v / 1000 % 1000, v % 1000);
}

const char *apc_jxl_library_version(void) {
    pthread_once(&apc_jxl_version_once, apc_jxl_version_load);
    return apc_jxl_version;
}

/// Where a decode has got to, for the message of a failure (libjxl gives none).
typedef enum {
    APC_JXL_STAGE_HEADER,   // before the basic info: signature, container, image header
    APC_JXL_STAGE_COLOR,    // before the colour encoding: the rest of the image header, ICC profile
    APC_JXL_STAGE_FRAMES,   // frame headers and image data
    APC_JXL_STAGE_BOXES,    // container boxes after the codestream
} apc_jxl_stage;

static uint64_t apc_jxl_be(const uint8_t *p, int bytes) {
    uint64_t v = 0;
    for (int i = 0; i < bytes; i++) v = (v << 8) | p[i];
    return v;
}

/// Whether the data are a container whose boxes all fit the data, at least one of them with a
/// 64-bit ("largesize") length: libjxl 0.7 misreads such a box's length (it fails with "missing
/// input" on a valid file).
static int apc_jxl_has_large_box(const uint8_t *data, size_t length) {
    if (length < 12 || memcmp(data + 4, "JXL ", 4) != 0) return 0;
    size_t offset = 0;
    int large = 0;
    while (offset < length) {
        if (length - offset < 8) return 0;
        uint64_t size = apc_jxl_be(data + offset, 4);
        size_t header = 8;
        if (size == 1) {
            if (length - offset < 16) return 0;
            size = apc_jxl_be(data + offset + 8, 8);
            header = 16;
            large = 1;
        } else if (size == 0) {
            size = length - offset;  // the last box runs to the end
        }
        if (size < header || size > length - offset) return 0;
        offset += (size_t)size;
    }
    return large;
}

/// The status and message of a decoder failure at `stage`.
static int32_t apc_jxl_failure(JxlDecoderStatus status, apc_jxl_stage stage, const uint8_t *data, size_t length,
                               apc_report *report) {
    if ((status == JXL_DEC_NEED_MORE_INPUT || status == JXL_DEC_ERROR) && apc_jxl_has_large_box(data, length)) {
        apc_report_set_message(report, "JPEG XL: a container box with a 64-bit length, which libjxl 0.7 misreads");
        return APC_ERR_UNSUPPORTED;
    }
    if (status == JXL_DEC_NEED_MORE_INPUT) {
        switch (stage) {
        case APC_JXL_STAGE_HEADER: apc_report_set_message(report, "JPEG XL: the data end inside the image header"); break;
        case APC_JXL_STAGE_COLOR: apc_report_set_message(report, "JPEG XL: the data end inside the colour profile"); break;
        case APC_JXL_STAGE_FRAMES: apc_report_set_message(report, "JPEG XL: the data end inside the image data"); break;
        case APC_JXL_STAGE_BOXES: apc_report_set_message(report, "JPEG XL: the data end inside a container box"); break;
        }
        return APC_ERR_TRUNCATED;
    }
    if (status == JXL_DEC_ERROR) {
        switch (stage) {
        case APC_JXL_STAGE_HEADER:
            apc_report_set_message(report, "JPEG XL: the container or the image header is invalid");
            break;
        case APC_JXL_STAGE_COLOR:
            apc_report_set_message(report, "JPEG XL: the image header or the colour profile is invalid");
            break;
        case APC_JXL_STAGE_FRAMES:
            apc_report_set_message(report, "JPEG XL: a frame header or the image data are invalid");
            break;
        case APC_JXL_STAGE_BOXES:
            apc_report_set_message(report, "JPEG XL: a container box is invalid");
            break;
        }
        return APC_ERR_CORRUPT;
    }
    char message[96];
    snprintf(message, sizeof message, "JPEG XL: unexpected decoder status %d", (int)status);
    apc_report_set_message(report, message);
    return APC_ERR_CORRUPT;
}

/// Opens libjxl, checks the arguments and the signature, and creates a decoder subscribed to
/// `events` with the whole input set. The input is not closed: libjxl 0.7 then reports data that
/// end early as JXL_DEC_NEED_MORE_INPUT, where after JxlDecoderCloseInput it fails with the same
/// JXL_DEC_ERROR as for bad data. On failure returns the status with the message set.
static int32_t apc_jxl_start(const uint8_t *data, size_t length, int32_t page, int events, JxlDecoder **out,
                             apc_report *report) {
    *out = NULL;
    if (!apc_library_open(&jxl_library, report)) return APC_ERR_UNSUPPORTED;
    if (page != -1 && page != 0) {
        apc_report_set_message(report, "JPEG XL: page must be -1 or 0 (the first frame)");
        return APC_ERR_INVALID_ARGUMENT;
    }
    JxlSignature signature = jxl.JxlSignatureCheck(data, length);
    if (signature == JXL_SIG_NOT_ENOUGH_BYTES) {
        apc_report_set_message(report, "JPEG XL: the data end inside the signature");
        return APC_ERR_TRUNCATED;
    }
    if (signature != JXL_SIG_CODESTREAM && signature != JXL_SIG_CONTAINER) {
        apc_report_set_message(report, "JPEG XL: not a JPEG XL codestream or container");
        return APC_ERR_CORRUPT;
    }
    JxlDecoder *decoder = jxl.JxlDecoderCreate(NULL);
    if (decoder == NULL) {
        apc_report_set_message(report, "JPEG XL: cannot create the decoder");
        return APC_ERR_TOO_LARGE;
    }
    if (jxl.JxlDecoderSubscribeEvents(decoder, events) != JXL_DEC_SUCCESS ||
        jxl.JxlDecoderSetKeepOrientation(decoder, JXL_TRUE) != JXL_DEC_SUCCESS ||
        jxl.JxlDecoderSetUnpremultiplyAlpha(decoder, JXL_TRUE) != JXL_DEC_SUCCESS ||
        jxl.JxlDecoderSetInput(decoder, data, length) != JXL_DEC_SUCCESS) {
        jxl.JxlDecoderDestroy(decoder);
        apc_report_set_message(report, "JPEG XL: cannot set up the decoder");
        return APC_ERR_CORRUPT;
    }
    *out = decoder;
    return APC_OK;
}

/// Checks the basic info against the limits.
static int32_t apc_jxl_check_size(const JxlBasicInfo *info, const apc_limits *limits, apc_report *report) {
    if (apc_too_many_pixels(limits, info->xsize, info->ysize) ||
        (limits != NULL && limits->max_width != 0 && info->xsize > limits->max_width) ||
        (limits != NULL && limits->max_height != 0 && info->ysize > limits->max_height)) {
        apc_report_set_message(report, "the image's declared size exceeds the pixel budget");
        return APC_ERR_TOO_LARGE;
    }
    return APC_OK;
}

/// Checks every layer (frame before blending) against the pixel budget: a layer may be larger than
/// the canvas (sunset_logo's are 2048x1024 on 1386x924), and libjxl allocates it whole. A pass over
/// the frame headers only, which libjxl reads without decoding the frames (milliseconds for a
/// 48-frame animation). Frames that are only references for others (patches, LF frames) are not
/// reported by libjxl and go unchecked. A failure to read the headers is left to the decode.
static int32_t apc_jxl_check_layers(const uint8_t *data, size_t length, const apc_limits *limits,
                                    apc_report *report) {
    if (limits == NULL || (limits->max_pixels == 0 && limits->max_width == 0 && limits->max_height == 0)) {
        return APC_OK;
    }
    JxlDecoder *decoder = jxl.JxlDecoderCreate(NULL);
    if (decoder == NULL) return APC_OK;
    int32_t status = APC_OK;
    if (jxl.JxlDecoderSubscribeEvents(decoder, JXL_DEC_FRAME) == JXL_DEC_SUCCESS &&
        jxl.JxlDecoderSetCoalescing(decoder, JXL_FALSE) == JXL_DEC_SUCCESS &&
        jxl.JxlDecoderSetInput(decoder, data, length) == JXL_DEC_SUCCESS) {
        while (jxl.JxlDecoderProcessInput(decoder) == JXL_DEC_FRAME) {
            JxlFrameHeader frame;
            if (jxl.JxlDecoderGetFrameHeader(decoder, &frame) != JXL_DEC_SUCCESS) break;
            JxlBasicInfo layer;
            memset(&layer, 0, sizeof layer);
            layer.xsize = frame.layer_info.xsize;
            layer.ysize = frame.layer_info.ysize;
            if (apc_jxl_check_size(&layer, limits, report) != APC_OK) {
                apc_report_set_message(report, "a layer of the image exceeds the pixel budget");
                status = APC_ERR_TOO_LARGE;
                break;
            }
        }
    }
    jxl.JxlDecoderDestroy(decoder);
    return status;
}

/// Whether an extra channel is CMYK's black (JXL_CHANNEL_BLACK), which libjxl 0.7 does not composite.
static int apc_jxl_has_black(JxlDecoder *decoder, const JxlBasicInfo *info) {
    for (uint32_t i = 0; i < info->num_extra_channels; i++) {
        JxlExtraChannelInfo extra;
        if (jxl.JxlDecoderGetExtraChannelInfo(decoder, i, &extra) == JXL_DEC_SUCCESS &&
            extra.type == JXL_CHANNEL_BLACK) {
            return 1;
        }
    }
    return 0;
}

/// At the colour-encoding event: a lossy (XYB) image whose colour space is an ICC profile is asked
/// for in sRGB rather than libjxl's default of linear sRGB (see the top of the file).
static void apc_jxl_prefer_srgb(JxlDecoder *decoder, const JxlBasicInfo *info) {
    if (info->uses_original_profile) return;
    JxlColorEncoding original;
    if (jxl.JxlDecoderGetColorAsEncodedProfile(decoder, NULL, JXL_COLOR_PROFILE_TARGET_ORIGINAL, &original) ==
        JXL_DEC_SUCCESS) {
        return;  // an enumerated colour space: libjxl outputs it as it is
    }
    JxlColorEncoding srgb;
    memset(&srgb, 0, sizeof srgb);
    srgb.color_space = info->num_color_channels == 1 ? JXL_COLOR_SPACE_GRAY : JXL_COLOR_SPACE_RGB;
    srgb.white_point = JXL_WHITE_POINT_D65;
    srgb.primaries = JXL_PRIMARIES_SRGB;
    srgb.transfer_function = JXL_TRANSFER_FUNCTION_SRGB;
    srgb.rendering_intent = JXL_RENDERING_INTENT_RELATIVE;
    // A refusal leaves libjxl's default, which TARGET_DATA then describes.
    (void)jxl.JxlDecoderSetPreferredColorProfile(decoder, &srgb);
}

/// Whether the pixels libjxl outputs (TARGET_DATA) are plain sRGB, for which no profile is returned.
static int apc_jxl_data_is_srgb(JxlDecoder *decoder) {
    JxlColorEncoding data;
    if (jxl.JxlDecoderGetColorAsEncodedProfile(decoder, NULL, JXL_COLOR_PROFILE_TARGET_DATA, &data) !=
        JXL_DEC_SUCCESS) {
        return 0;
    }
    if (data.white_point != JXL_WHITE_POINT_D65 || data.transfer_function != JXL_TRANSFER_FUNCTION_SRGB) return 0;
    if (data.color_space == JXL_COLOR_SPACE_GRAY) return 1;
    return data.color_space == JXL_COLOR_SPACE_RGB && data.primaries == JXL_PRIMARIES_SRGB;
}

/// CICP values (H.273) of an enumerated colour space; libjxl's enums use H.273's numbers.
static void apc_jxl_fill_cicp(JxlDecoder *decoder, apc_header *header) {
    JxlColorEncoding original;
    if (jxl.JxlDecoderGetColorAsEncodedProfile(decoder, NULL, JXL_COLOR_PROFILE_TARGET_ORIGINAL, &original) !=
        JXL_DEC_SUCCESS) {
        header->has_icc = 1;
        return;
    }
    if (original.color_space == JXL_COLOR_SPACE_RGB) {
        if (original.primaries == JXL_PRIMARIES_SRGB && original.white_point == JXL_WHITE_POINT_D65) {
            header->color_primaries = 1;   // BT.709 / sRGB
        } else if (original.primaries == JXL_PRIMARIES_2100 && original.white_point == JXL_WHITE_POINT_D65) {
            header->color_primaries = 9;   // BT.2020 / BT.2100
        } else if (original.primaries == JXL_PRIMARIES_P3 && original.white_point == JXL_WHITE_POINT_DCI) {
            header->color_primaries = 11;  // DCI-P3
        } else if (original.primaries == JXL_PRIMARIES_P3 && original.white_point == JXL_WHITE_POINT_D65) {
            header->color_primaries = 12;  // Display P3
        }
    }
    switch (original.transfer_function) {
    case JXL_TRANSFER_FUNCTION_709:
    case JXL_TRANSFER_FUNCTION_LINEAR:
    case JXL_TRANSFER_FUNCTION_SRGB:
    case JXL_TRANSFER_FUNCTION_PQ:
    case JXL_TRANSFER_FUNCTION_DCI:
    case JXL_TRANSFER_FUNCTION_HLG:
        header->transfer_characteristics = (uint32_t)original.transfer_function;
        break;
    default: break;
    }
}

int32_t apc_jxl_read_header(const uint8_t *data, size_t length, const apc_limits *limits, int32_t page,
                            apc_header *header, apc_report *report) {
    apc_report_reset(report);
    if (data == NULL || header == NULL) return APC_ERR_INVALID_ARGUMENT;
    memset(header, 0, sizeof *header);
    JxlDecoder *decoder = NULL;
    int32_t status = apc_jxl_start(data, length, page, JXL_DEC_BASIC_INFO | JXL_DEC_COLOR_ENCODING | JXL_DEC_FRAME,
                                   &decoder, report);
    if (status != APC_OK) return status;

    apc_jxl_stage stage = APC_JXL_STAGE_HEADER;
    JxlBasicInfo info;
    memset(&info, 0, sizeof info);
    uint32_t frames = 0;
    for (;;) {
        JxlDecoderStatus event = jxl.JxlDecoderProcessInput(decoder);
        if (event == JXL_DEC_BASIC_INFO) {
            if (jxl.JxlDecoderGetBasicInfo(decoder, &info) != JXL_DEC_SUCCESS) {
                status = apc_jxl_failure(JXL_DEC_ERROR, stage, data, length, report);
                break;
            }
            header->format = APC_FORMAT_JXL;
            header->width = info.xsize;
            header->height = info.ysize;
            header->output_width = info.xsize;
            header->output_height = info.ysize;
            header->channels = info.num_color_channels + info.num_extra_channels;
            header->bit_depth = info.bits_per_sample;
            header->has_alpha = info.alpha_bits != 0;
            header->orientation = (uint32_t)info.orientation;
            int black = apc_jxl_has_black(decoder, &info);
            if (black) header->color_space = APC_COLOR_CMYK;
            else if (info.num_color_channels == 1) header->color_space = header->has_alpha ? APC_COLOR_GRAY_ALPHA : APC_COLOR_GRAY;
            else header->color_space = header->has_alpha ? APC_COLOR_RGBA : APC_COLOR_RGB;
            header->frames = 1;
            status = apc_jxl_check_size(&info, limits, report);
            if (status == APC_OK) status = apc_jxl_check_layers(data, length, limits, report);
            if (status != APC_OK) break;
            stage = APC_JXL_STAGE_COLOR;
        } else if (event == JXL_DEC_COLOR_ENCODING) {
            apc_jxl_fill_cicp(decoder, header);
            // A still image has one frame; an animation's frames are counted from their headers,
            // which costs little: without an image-out event libjxl skips each frame's data.
            if (!info.have_animation) break;
            stage = APC_JXL_STAGE_FRAMES;
        } else if (event == JXL_DEC_FRAME) {
            frames += 1;
        } else if (event == JXL_DEC_SUCCESS) {
            if (stage != APC_JXL_STAGE_FRAMES) status = apc_jxl_failure(JXL_DEC_ERROR, stage, data, length, report);
            else header->frames = frames;
            break;
        } else if (stage == APC_JXL_STAGE_FRAMES && (event == JXL_DEC_ERROR || event == JXL_DEC_NEED_MORE_INPUT)) {
            // The header itself is whole: report the frames whose headers could be read.
            header->frames = frames > 0 ? frames : 1;
            apc_report_add_warning(report, "JPEG XL: the animation's frames could not all be counted");
            break;
        } else {
            status = apc_jxl_failure(event, stage, data, length, report);
            break;
        }
    }
    jxl.JxlDecoderDestroy(decoder);
    return status;
}

/// Where the image-out callback copies rows when the caller's rows are padded.
typedef struct {
    uint8_t *pixels;
    size_t row_bytes;
    uint32_t width;
    uint32_t height;
} apc_jxl_target;

static void apc_jxl_copy_row(void *opaque, size_t x, size_t y, size_t count, const void *pixels) {
    const apc_jxl_target *target = (const apc_jxl_target *)opaque;
    if (y >= target->height || x >= target->width || count > target->width - x) return;
    memcpy(target->pixels + y * target->row_bytes + x * 4, pixels, count * 4);
}

int32_t apc_jxl_decode_rgba(const uint8_t *data, size_t length, const apc_limits *limits, int32_t page,
                            uint32_t width, uint32_t height, uint8_t *pixels, size_t row_bytes, size_t capacity,
                            apc_report *report) {
    apc_report_reset(report);
    if (data == NULL || pixels == NULL || !apc_output_fits(width, height, row_bytes, capacity)) {
        apc_report_set_message(report, "the output buffer does not fit the requested size");
        return APC_ERR_INVALID_ARGUMENT;
    }
    JxlDecoder *decoder = NULL;
    int32_t status = apc_jxl_start(data, length, page, JXL_DEC_BASIC_INFO | JXL_DEC_COLOR_ENCODING | JXL_DEC_FULL_IMAGE,
                                   &decoder, report);
    if (status != APC_OK) return status;

    // 8-bit RGBA whatever the image: libjxl expands gray to R=G=B, fills a missing alpha with 255
    // and rounds deeper samples to nearest.
    const JxlPixelFormat format = {4, JXL_TYPE_UINT8, JXL_NATIVE_ENDIAN, 0};
    apc_jxl_target target = {pixels, row_bytes, width, height};
    apc_jxl_stage stage = APC_JXL_STAGE_HEADER;
    JxlBasicInfo info;
    memset(&info, 0, sizeof info);
    for (;;) {
        JxlDecoderStatus event = jxl.JxlDecoderProcessInput(decoder);
        if (event == JXL_DEC_BASIC_INFO) {
            if (jxl.JxlDecoderGetBasicInfo(decoder, &info) != JXL_DEC_SUCCESS) {
                status = apc_jxl_failure(JXL_DEC_ERROR, stage, data, length, report);
                break;
            }
            status = apc_jxl_check_size(&info, limits, report);
            if (status == APC_OK) status = apc_jxl_check_layers(data, length, limits, report);
            if (status != APC_OK) break;
            if (info.xsize != width || info.ysize != height) {
                apc_report_set_message(report, "the image size differs from the header read before");
                status = APC_ERR_INVALID_ARGUMENT;
                break;
            }
            if (apc_jxl_has_black(decoder, &info)) {
                apc_report_set_message(report, "JPEG XL: CMYK (a black extra channel) is not supported by libjxl 0.7");
                status = APC_ERR_UNSUPPORTED;
                break;
            }
            stage = APC_JXL_STAGE_COLOR;
        } else if (event == JXL_DEC_COLOR_ENCODING) {
            apc_jxl_prefer_srgb(decoder, &info);
            stage = APC_JXL_STAGE_FRAMES;
        } else if (event == JXL_DEC_NEED_IMAGE_OUT_BUFFER) {
            size_t needed = 0;
            JxlDecoderStatus set;
            if (jxl.JxlDecoderImageOutBufferSize(decoder, &format, &needed) != JXL_DEC_SUCCESS) {
                set = JXL_DEC_ERROR;
            } else if (row_bytes == (size_t)width * 4 && needed <= capacity) {
                set = jxl.JxlDecoderSetImageOutBuffer(decoder, &format, pixels, needed);
            } else {
                set = jxl.JxlDecoderSetImageOutCallback(decoder, &format, apc_jxl_copy_row, &target);
            }
            if (set != JXL_DEC_SUCCESS) {
                apc_report_set_message(report, "JPEG XL: libjxl refused the 8-bit RGBA output");
                status = APC_ERR_CORRUPT;
                break;
            }
        } else if (event == JXL_DEC_FULL_IMAGE) {
            break;  // the first frame: an animation's later frames are not decoded
        } else if (event == JXL_DEC_SUCCESS) {
            apc_report_set_message(report, "JPEG XL: the codestream ends without a frame");
            status = APC_ERR_CORRUPT;
            break;
        } else {
            status = apc_jxl_failure(event, stage, data, length, report);
            break;
        }
    }
    jxl.JxlDecoderDestroy(decoder);
    return status;
}

/// Copies the profile of the output pixels into the metadata (none when they are plain sRGB).
static void apc_jxl_copy_icc(JxlDecoder *decoder, uint64_t cap, apc_metadata *metadata, apc_report *report) {
    if (apc_jxl_data_is_srgb(decoder)) return;
    size_t size = 0;
    if (jxl.JxlDecoderGetICCProfileSize(decoder, NULL, JXL_COLOR_PROFILE_TARGET_DATA, &size) != JXL_DEC_SUCCESS ||
        size == 0) {
        apc_report_add_warning(report, "JPEG XL: libjxl gives no ICC profile for the decoded pixels");
        return;
    }
    if (size > cap) {
        apc_report_add_warning(report, "JPEG XL: the ICC profile exceeds the metadata size limit and is left out");
        return;
    }
    uint8_t *icc = malloc(size);
    if (icc == NULL) {
        apc_report_add_warning(report, "JPEG XL: no memory for the ICC profile");
        return;
    }
    if (jxl.JxlDecoderGetColorAsICCProfile(decoder, NULL, JXL_COLOR_PROFILE_TARGET_DATA, icc, size) !=
        JXL_DEC_SUCCESS) {
        free(icc);
        apc_report_add_warning(report, "JPEG XL: libjxl could not write the ICC profile");
        return;
    }
    metadata->icc = icc;
    metadata->icc_length = size;
}

/// A box being collected into a growing buffer.
typedef struct {
    uint8_t *bytes;
    size_t capacity;
    int active;
} apc_jxl_box;

/// Gives libjxl the free part of the box buffer, doubling it (up to `cap` bytes) when `grow`.
static int apc_jxl_box_offer(JxlDecoder *decoder, apc_jxl_box *box, size_t used, uint64_t cap, int grow) {
    if (grow || box->bytes == NULL) {
        size_t next = box->capacity == 0 ? 4096 : box->capacity * 2;
        if (next > cap) next = (size_t)cap;
        if (next <= box->capacity) return 0;
        uint8_t *bytes = realloc(box->bytes, next);
        if (bytes == NULL) return 0;
        box->bytes = bytes;
        box->capacity = next;
    }
    return jxl.JxlDecoderSetBoxBuffer(decoder, box->bytes + used, box->capacity - used) == JXL_DEC_SUCCESS;
}

/// Ends the current Exif box: keeps the TIFF structure after its 4-byte offset field.
static void apc_jxl_box_finish(JxlDecoder *decoder, apc_jxl_box *box, apc_metadata *metadata, apc_report *report) {
    if (!box->active) return;
    box->active = 0;
    size_t used = box->capacity - jxl.JxlDecoderReleaseBoxBuffer(decoder);
    if (metadata->exif != NULL) return;  // the first Exif box only
    uint64_t skip = used >= 4 ? apc_jxl_be(box->bytes, 4) : UINT64_MAX;
    if (skip > used - 4 || used - 4 - skip < 8) {
        apc_report_add_warning(report, "JPEG XL: the Exif box is too short or its offset is wrong, left out");
        return;
    }
    size_t size = used - 4 - (size_t)skip;
    uint8_t *exif = malloc(size);
    if (exif == NULL) return;
    memcpy(exif, box->bytes + 4 + skip, size);
    metadata->exif = exif;
    metadata->exif_length = size;
}

int32_t apc_jxl_read_metadata(const uint8_t *data, size_t length, const apc_limits *limits, int32_t page,
                              apc_metadata *metadata, apc_report *report) {
    apc_report_reset(report);
    if (data == NULL || metadata == NULL) return APC_ERR_INVALID_ARGUMENT;
    memset(metadata, 0, sizeof *metadata);
    uint64_t cap = limits != NULL && limits->max_chunk_bytes != 0 ? limits->max_chunk_bytes : APC_JXL_DEFAULT_BLOCK_MAX;
    JxlDecoder *decoder = NULL;
    int32_t status = apc_jxl_start(data, length, page, JXL_DEC_BASIC_INFO | JXL_DEC_COLOR_ENCODING | JXL_DEC_BOX,
                                   &decoder, report);
    if (status != APC_OK) return status;
    // "brob" boxes (Brotli-compressed Exif) come decompressed; a build without Brotli refuses this
    // and leaves them raw, which the type check below then skips.
    (void)jxl.JxlDecoderSetDecompressBoxes(decoder, JXL_TRUE);

    apc_jxl_stage stage = APC_JXL_STAGE_HEADER;
    JxlBasicInfo info;
    memset(&info, 0, sizeof info);
    apc_jxl_box box = {NULL, 0, 0};
    int closed = 0;
    for (;;) {
        JxlDecoderStatus event = jxl.JxlDecoderProcessInput(decoder);
        if (event == JXL_DEC_BASIC_INFO) {
            if (jxl.JxlDecoderGetBasicInfo(decoder, &info) != JXL_DEC_SUCCESS) {
                status = apc_jxl_failure(JXL_DEC_ERROR, stage, data, length, report);
                break;
            }
            stage = APC_JXL_STAGE_COLOR;
        } else if (event == JXL_DEC_COLOR_ENCODING) {
            apc_jxl_prefer_srgb(decoder, &info);
            apc_jxl_copy_icc(decoder, cap, metadata, report);
            stage = APC_JXL_STAGE_BOXES;
        } else if (event == JXL_DEC_BOX) {
            apc_jxl_box_finish(decoder, &box, metadata, report);
            JxlBoxType type;
            if (metadata->exif == NULL && jxl.JxlDecoderGetBoxType(decoder, type, JXL_TRUE) == JXL_DEC_SUCCESS &&
                memcmp(type, "Exif", 4) == 0) {
                if (!apc_jxl_box_offer(decoder, &box, 0, cap, 0)) {
                    apc_report_add_warning(report, "JPEG XL: no memory for the Exif box");
                } else {
                    box.active = 1;
                }
            }
        } else if (event == JXL_DEC_BOX_NEED_MORE_OUTPUT) {
            size_t used = box.capacity - jxl.JxlDecoderReleaseBoxBuffer(decoder);
            if (!apc_jxl_box_offer(decoder, &box, used, cap, 1)) {
                // Without a buffer libjxl skips the rest of the box.
                box.active = 0;
                apc_report_add_warning(report, "JPEG XL: the Exif box exceeds the metadata size limit and is left out");
            }
        } else if (event == JXL_DEC_SUCCESS) {
            apc_jxl_box_finish(decoder, &box, metadata, report);
            if (stage != APC_JXL_STAGE_BOXES) status = apc_jxl_failure(JXL_DEC_ERROR, stage, data, length, report);
            break;
        } else if (event == JXL_DEC_NEED_MORE_INPUT && stage == APC_JXL_STAGE_BOXES && !closed) {
            // The header and profile are whole: the boxes run to the end of the data, which libjxl
            // can only tell once the input is closed (see apc_jxl_start).
            jxl.JxlDecoderCloseInput(decoder);
            closed = 1;
        } else if (stage == APC_JXL_STAGE_BOXES) {
            // Past the profile, damage or a cut costs only the boxes after it; the decode reports it.
            if (box.active) {
                box.active = 0;
                (void)jxl.JxlDecoderReleaseBoxBuffer(decoder);
            }
            apc_report_add_warning(report, "JPEG XL: the data after the colour profile are cut short or damaged; "
                                           "an Exif box there is not read");
            break;
        } else {
            status = apc_jxl_failure(event, stage, data, length, report);
            break;
        }
    }
    jxl.JxlDecoderDestroy(decoder);
    free(box.bytes);
    if (status != APC_OK) apc_metadata_free(metadata);
    return status;
}
