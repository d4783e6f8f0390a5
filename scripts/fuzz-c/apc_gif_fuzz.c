// libFuzzer entry for the GIF decoder's C alone (Sources/CAssetCodecs/apc_gif.c: the record walk,
// the LZW decoder, the compositing of every frame), built by `scripts/fuzz gif-c` with clang,
// AddressSanitizer and UndefinedBehaviorSanitizer and no Swift around it, so that it runs at
// thousands of inputs a second where the `gif` target (the Swift decoder and a transform) runs at
// hundreds. Each input: the header, the still decode under a 4 MP budget, then up to 50 frames of
// the animation reader. giflib is Debian's, not instrumented.
#include "CAssetCodecs.h"
#include "apc_animation.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

// apc_library.c names every format's library version; only giflib is linked here.
const char *apc_heif_library_version(void) { return ""; }
const char *apc_webp_library_version(void) { return ""; }
const char *apc_avif_library_version(void) { return ""; }
const char *apc_tiff_library_version(void) { return ""; }
const char *apc_svg_library_version(void) { return ""; }
const char *apc_jxl_library_version(void) { return ""; }

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    apc_report report;
    apc_header header;
    apc_limits limits;
    memset(&limits, 0, sizeof limits);
    limits.max_pixels = 4000000;
    if (apc_gif_read_header(data, size, &limits, 0, &header, &report) == APC_OK) {
        size_t row_bytes = (size_t)header.width * 4;
        uint8_t *pixels = malloc(row_bytes * header.height + 1);
        if (pixels != NULL) {
            apc_gif_decode_rgba(data, size, &limits, 0, header.width, header.height, pixels, row_bytes,
                                row_bytes * header.height, &report);
            free(pixels);
        }
    }
    apc_gif_animation *animation = NULL;
    apc_animation_info info;
    if (apc_gif_animation_open(data, size, &limits, 50, &animation, &info, &report) == APC_OK) {
        size_t row_bytes = (size_t)info.width * 4;
        uint8_t *pixels = malloc(row_bytes * info.height + 1);
        for (int frame = 0; pixels != NULL && frame < 50; frame++) {
            uint32_t duration = 0;
            if (apc_gif_animation_next(animation, pixels, row_bytes, row_bytes * info.height, &duration, &report) != APC_OK) break;
        }
        free(pixels);
        apc_gif_animation_close(animation);
    }
    return 0;
}
