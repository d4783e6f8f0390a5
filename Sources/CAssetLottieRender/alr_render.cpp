// One frame of a Lottie animation with rlottie's C++ API, which, unlike its C API, lets the model
// cache be bypassed per load (the cache is keyed by a caller's string, not by the bytes).
#include "CAssetLottieRender.h"

#include <rlottie.h>

#include <cstdio>
#include <cstring>
#include <exception>
#include <memory>
#include <string>

namespace {

void set_message(char *message, const char *text)
{
    if (message == nullptr) return;
    std::snprintf(message, ALR_MESSAGE_CAPACITY, "%s", text);
}

}  // namespace

// (c * 255 + a / 2) / a, at most 255, for every alpha a (1...255) and channel c: the division the
// loop below did per channel, looked up (64 KB, made once), so that a frame with many
// half-transparent pixels (a gradient's edges) costs a load where it cost three divisions.
static const uint8_t *alr_unpremultiply_table()
{
    static const uint8_t *table = [] {
        static uint8_t values[256 * 256];
        for (uint32_t a = 1; a < 256; a++) {
            for (uint32_t c = 0; c < 256; c++) {
                const uint32_t v = (c * 255 + a / 2) / a;
                values[a * 256 + c] = uint8_t(v > 255 ? 255 : v);
            }
        }
        return values;
    }();
    return table;
}

extern "C" void alr_unpremultiply_argb32(uint8_t *pixels, size_t pixel_count)
{
    const uint8_t *table = alr_unpremultiply_table();
    for (size_t i = 0; i < pixel_count; i++) {
        uint8_t *pixel = pixels + i * 4;
        uint32_t word;
        std::memcpy(&word, pixel, 4);
        const uint32_t a = word >> 24;
        uint32_t r = (word >> 16) & 0xFF, g = (word >> 8) & 0xFF, b = word & 0xFF;
        if (a == 0) {
            r = g = b = 0;
        } else if (a < 255) {
            const uint8_t *row = table + a * 256;
            r = row[r];
            g = row[g];
            b = row[b];
        }
        pixel[0] = uint8_t(r);
        pixel[1] = uint8_t(g);
        pixel[2] = uint8_t(b);
        pixel[3] = uint8_t(a);
    }
}

extern "C" int32_t alr_render_rgba(const char *json, size_t length, const alr_facts *expected, size_t frame,
                                   uint8_t *rgba, size_t width, size_t height, size_t capacity,
                                   alr_facts *read, char message[ALR_MESSAGE_CAPACITY])
{
    if (message != nullptr) message[0] = '\0';
    if (json == nullptr || length == 0 || expected == nullptr || rgba == nullptr || width == 0 || height == 0) {
        set_message(message, "missing input, expectations or output");
        return ALR_ERR_INVALID_ARGUMENT;
    }
    if (width > capacity / 4 / height || reinterpret_cast<uintptr_t>(rgba) % 4 != 0) {
        set_message(message, "the output buffer is too small or not aligned to 4 bytes");
        return ALR_ERR_INVALID_ARGUMENT;
    }
    try {
        std::unique_ptr<rlottie::Animation> animation =
            rlottie::Animation::loadFromData(std::string(json, length), std::string(), std::string(), false);
        if (!animation) {
            set_message(message, "rlottie could not load the animation");
            return ALR_ERR_LOAD;
        }
        alr_facts facts{};
        animation->size(facts.width, facts.height);
        facts.frame_count = animation->totalFrame();
        if (read != nullptr) *read = facts;
        if (facts.width != expected->width || facts.height != expected->height
            || facts.frame_count != expected->frame_count) {
            char text[ALR_MESSAGE_CAPACITY];
            std::snprintf(text, sizeof text, "rlottie read %zux%zu with %zu frames; expected %zux%zu with %zu",
                          facts.width, facts.height, facts.frame_count,
                          expected->width, expected->height, expected->frame_count);
            set_message(message, text);
            return ALR_ERR_MISMATCH;
        }
        if (frame >= facts.frame_count) {
            set_message(message, "frame beyond the animation's frame count");
            return ALR_ERR_INVALID_ARGUMENT;
        }
        rlottie::Surface surface(reinterpret_cast<uint32_t *>(rgba), width, height, width * 4);
        animation->renderSync(frame, surface, true);
    } catch (const std::exception &error) {
        char text[ALR_MESSAGE_CAPACITY];
        std::snprintf(text, sizeof text, "rlottie threw: %s", error.what());
        set_message(message, text);
        return ALR_ERR_EXCEPTION;
    } catch (...) {
        set_message(message, "rlottie threw an exception");
        return ALR_ERR_EXCEPTION;
    }
    alr_unpremultiply_argb32(rgba, width * height);
    return ALR_OK;
}
