// libFuzzer entry for one format's decoder C alone (Sources/CAssetCodecs/apc_FORMAT.c), built by
// `scripts/fuzz FORMAT-c` with clang, AddressSanitizer and UndefinedBehaviorSanitizer and no Swift
// around it, so that it runs at hundreds to thousands of inputs a second where the Swift targets
// (the decoder and a transform) run at tens to hundreds; one build per format, with -DAPC_FUZZ_GIF
// (or _WEBP, _TIFF, _HEIF, _AVIF, _JXL, _SVG). Each input goes through every entry point whatever
// its signature says, as `CodecFuzzing.decode` does from Swift: the metadata, the header, the
// decode at the header's size under a 4 MP budget (SVG: at most 0.25 MP, the declared size halved
// until it fits), a second decode at a small size where the format scales on load (WebP, SVG),
// page 1's header and decode; and for GIF and WebP the animation reader (up to 50 frames). The libraries are Debian's, not instrumented.
#include "CAssetCodecs.h"
#include "apc_animation.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if defined(APC_FUZZ_GIF)
#define APC_FUZZ_FORMAT gif
#elif defined(APC_FUZZ_WEBP)
#define APC_FUZZ_FORMAT webp
#elif defined(APC_FUZZ_TIFF)
#define APC_FUZZ_FORMAT tiff
#elif defined(APC_FUZZ_HEIF)
#define APC_FUZZ_FORMAT heif
#elif defined(APC_FUZZ_AVIF)
#define APC_FUZZ_FORMAT avif
#elif defined(APC_FUZZ_JXL)
#define APC_FUZZ_FORMAT jxl
#elif defined(APC_FUZZ_SVG)
#define APC_FUZZ_FORMAT svg
#else
#error "build with -DAPC_FUZZ_GIF, _WEBP, _TIFF, _HEIF, _AVIF, _JXL or _SVG"
#endif

#define APC_CONCAT(a, b, c) a##b##c
#define APC_ENTRY(format, name) APC_CONCAT(apc_, format, name)
#define apc_fuzz_read_header APC_ENTRY(APC_FUZZ_FORMAT, _read_header)
#define apc_fuzz_decode_rgba APC_ENTRY(APC_FUZZ_FORMAT, _decode_rgba)
#define apc_fuzz_read_metadata APC_ENTRY(APC_FUZZ_FORMAT, _read_metadata)
#if defined(APC_FUZZ_GIF) || defined(APC_FUZZ_WEBP)
#define APC_FUZZ_ANIMATED 1
#define apc_fuzz_animation APC_ENTRY(APC_FUZZ_FORMAT, _animation)
#define apc_fuzz_animation_open APC_ENTRY(APC_FUZZ_FORMAT, _animation_open)
#define apc_fuzz_animation_next APC_ENTRY(APC_FUZZ_FORMAT, _animation_next)
#define apc_fuzz_animation_close APC_ENTRY(APC_FUZZ_FORMAT, _animation_close)
#endif

// apc_library.c names every format's library version; only the fuzzed format's file is linked.
#ifndef APC_FUZZ_WEBP
const char *apc_webp_library_version(void) { return ""; }
#endif
#ifndef APC_FUZZ_TIFF
const char *apc_tiff_library_version(void) { return ""; }
#endif
#if !defined(APC_FUZZ_HEIF) && !defined(APC_FUZZ_AVIF)  // apc_avif.c hands some files to apc_heif.c
const char *apc_heif_library_version(void) { return ""; }
#endif
#ifndef APC_FUZZ_AVIF
const char *apc_avif_library_version(void) { return ""; }
#endif
#ifndef APC_FUZZ_JXL
const char *apc_jxl_library_version(void) { return ""; }
#endif
#ifndef APC_FUZZ_SVG
const char *apc_svg_library_version(void) { return ""; }
#endif
#ifndef APC_FUZZ_GIF
const char *apc_gif_library_version(void) { return ""; }
#endif

/// apc_jpeg.c's, which this build does not link.
void apc_metadata_free(apc_metadata *metadata) {
    if (metadata == NULL) return;
    free(metadata->icc);
    free(metadata->exif);
    memset(metadata, 0, sizeof *metadata);
}

static void decode_at(const uint8_t *data, size_t size, const apc_limits *limits, int32_t page, uint32_t width,
                      uint32_t height) {
    apc_report report;
    size_t row_bytes = (size_t)width * 4;
    uint8_t *pixels = malloc(row_bytes * height + 1);
    if (pixels == NULL) return;
    apc_fuzz_decode_rgba(data, size, limits, page, width, height, pixels, row_bytes, row_bytes * height, &report);
    free(pixels);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    apc_report report;
    apc_header header;
    apc_limits limits;
    memset(&limits, 0, sizeof limits);
    limits.max_pixels = 4000000;
    apc_metadata metadata;
    memset(&metadata, 0, sizeof metadata);
    if (apc_fuzz_read_metadata(data, size, &limits, -1, &metadata, &report) == APC_OK) apc_metadata_free(&metadata);
    if (apc_fuzz_read_header(data, size, &limits, -1, &header, &report) == APC_OK && header.width > 0 && header.height > 0) {
#if defined(APC_FUZZ_SVG)
        // A vector drawn at any size: the declared size when it is at most 0.25 MP, else that size
        // shrunk to fit 0.25 MP (rendering up to 4 MP under ASan held the rate at about 50 inputs
        // a second; our code's paths do not depend on the size).
        uint32_t w = header.width, h = header.height;
        while ((uint64_t)w * h > 262144) {
            w = w > 1 ? w / 2 : 1;
            h = h > 1 ? h / 2 : 1;
        }
        decode_at(data, size, &limits, -1, w, h);
#else
        decode_at(data, size, &limits, -1, header.width, header.height);
#endif
#if defined(APC_FUZZ_WEBP) || defined(APC_FUZZ_SVG)
        decode_at(data, size, &limits, -1, header.width > 7 ? header.width / 8 : 1, header.height > 7 ? header.height / 8 : 1);
#endif
    }
    apc_header second;
    if (apc_fuzz_read_header(data, size, &limits, 1, &second, &report) == APC_OK && second.width > 0 && second.height > 0) {
        decode_at(data, size, &limits, 1, second.width, second.height);
    }
#ifdef APC_FUZZ_ANIMATED
    apc_fuzz_animation *animation = NULL;
    apc_animation_info info;
    if (apc_fuzz_animation_open(data, size, &limits, 50, &animation, &info, &report) == APC_OK) {
        size_t row_bytes = (size_t)info.width * 4;
        uint8_t *pixels = malloc(row_bytes * info.height + 1);
        for (int frame = 0; pixels != NULL && frame < 50; frame++) {
            uint32_t duration = 0;
            if (apc_fuzz_animation_next(animation, pixels, row_bytes, row_bytes * info.height, &duration, &report) != APC_OK) break;
        }
        free(pixels);
        apc_fuzz_animation_close(animation);
    }
#endif
    return 0;
}
