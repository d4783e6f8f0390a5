// One frame of a Lottie animation with rlottie's C++ API, which, unlike its C API, lets the caller
// name the key of rlottie's model cache: we key it by the JSON's bytes themselves, so that a
// cached model is only ever found for the very same JSON (the C API keys it by a caller's string).
#include "CAssetLottieRender.h"

#include <rlottie.h>

#include <cstdio>
#include <cstring>
#include <exception>
#include <memory>
#include <mutex>
#include <string>

namespace {

void set_message(char *message, const char *text)
{
    if (message == nullptr) return;
    std::snprintf(message, ALR_MESSAGE_CAPACITY, "%s", text);
}

// How many parsed models rlottie keeps (its cache, process-wide, behind a mutex of its own; a full
// cache drops one entry to take another). The frames of one animation are asked for one after the
// other, so one entry per animation being made at once is what counts; a few cover a service's
// concurrent animations. Each entry holds the JSON (its key) and rlottie's model of it, within
// the renderer's limits on the JSON.
constexpr size_t ALR_MODEL_CACHE_ENTRIES = 4;

// The animation for `json`: rlottie's model parsed once per JSON and kept in its cache, a new
// `rlottie::Animation` (its own render tree) made on it for every call. Measured on all 172
// renderable Lottie files of Fixtures, frames asked for in any order: every frame byte-identical
// to one rendered from a fresh parse. A kept `rlottie::Animation` is not: rlottie 0.1 carries
// state from frame to frame (pr_2286.json: 79 of its frames differ when rendered in turn), so
// the render tree is never reused. Parsing is most of a frame's cost on small drawings
// (LottieLogo1 at 512 px: 1.09 ms parse, 0.36 ms render, 0.85 ms render on a fresh tree).
std::unique_ptr<rlottie::Animation> load_animation(const char *json, size_t length)
{
    static std::once_flag configured;
    std::call_once(configured, [] { rlottie::configureModelCacheSize(ALR_MODEL_CACHE_ENTRIES); });
    const std::string key(json, length);
    // rlottie parses its argument in place, so the data is a copy of its own, not the key.
    return rlottie::Animation::loadFromData(std::string(json, length), key, std::string(), true);
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

// One pixel through the table (any alpha).
static inline void alr_unpremultiply_pixel(uint8_t *pixel, const uint8_t *table)
{
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

extern "C" void alr_unpremultiply_argb32(uint8_t *pixels, size_t pixel_count)
{
    const uint8_t *table = alr_unpremultiply_table();
    constexpr size_t block = 8;
    size_t i = 0;
    // Most of a frame is runs of clear pixels (all four bytes 0, which stay 0) or of opaque ones
    // (only R and B change places, which the compiler does 8 at a time in vector registers); a
    // block of 8 that is all one or all the other is done so, any other block pixel by pixel.
    for (; i + block <= pixel_count; i += block) {
        uint8_t *run = pixels + i * 4;
        uint32_t words[block];
        std::memcpy(words, run, sizeof words);
        uint32_t all = 0xFFFFFFFFu, any = 0;
        for (size_t k = 0; k < block; k++) {
            all &= words[k];
            any |= words[k];
        }
        if (any == 0) continue;
        if ((all >> 24) == 0xFF) {
            for (size_t k = 0; k < block; k++) {
                const uint32_t w = words[k];
                words[k] = (w & 0xFF00FF00u) | ((w >> 16) & 0xFFu) | ((w & 0xFFu) << 16);
            }
            std::memcpy(run, words, sizeof words);
            continue;
        }
        for (size_t k = 0; k < block; k++) alr_unpremultiply_pixel(run + k * 4, table);
    }
    for (; i < pixel_count; i++) alr_unpremultiply_pixel(pixels + i * 4, table);
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
        std::unique_ptr<rlottie::Animation> animation = load_animation(json, length);
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
