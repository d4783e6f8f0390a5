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

extern "C" void alr_unpremultiply_argb32(uint8_t *pixels, size_t pixel_count)
{
    for (size_t i = 0; i < pixel_count; i++) {
        uint8_t *pixel = pixels + i * 4;
        uint32_t word;
        std::memcpy(&word, pixel, 4);
        const uint32_t a = word >> 24;
        uint32_t r = (word >> 16) & 0xFF, g = (word >> 8) & 0xFF, b = word & 0xFF;
        if (a == 0) {
            r = g = b = 0;
        } else if (a < 255) {
            r = (r * 255 + a / 2) / a;
            g = (g * 255 + a / 2) / a;
            b = (b * 255 + a / 2) / a;
            if (r > 255) r = 255;
            if (g > 255) g = 255;
            if (b > 255) b = 255;
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
