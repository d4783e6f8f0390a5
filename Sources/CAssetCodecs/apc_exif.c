// EXIF orientation: tag 0x0112 of IFD0 in a TIFF-structured block. Bounds-checked; never jumps.
#include "CAssetCodecs.h"

static uint32_t apc_read16(const uint8_t *p, int little) {
    return little ? (uint32_t)(p[0] | (p[1] << 8)) : (uint32_t)((p[0] << 8) | p[1]);
}

static uint32_t apc_read32(const uint8_t *p, int little) {
    return little
        ? ((uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24))
        : (((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | (uint32_t)p[3]);
}

uint32_t apc_exif_orientation(const uint8_t *tiff, size_t length) {
    if (tiff == NULL || length < 8) return 0;
    int little;
    if (tiff[0] == 'I' && tiff[1] == 'I') little = 1;
    else if (tiff[0] == 'M' && tiff[1] == 'M') little = 0;
    else return 0;
    if (apc_read16(tiff + 2, little) != 42) return 0;
    uint32_t ifd = apc_read32(tiff + 4, little);
    if (ifd > length || length - ifd < 2) return 0;
    uint32_t count = apc_read16(tiff + ifd, little);
    size_t entry = (size_t)ifd + 2;
    for (uint32_t i = 0; i < count; i++, entry += 12) {
        if (entry > length || length - entry < 12) return 0;
        const uint8_t *e = tiff + entry;
        if (apc_read16(e, little) != 0x0112) continue;
        uint32_t type = apc_read16(e + 2, little);
        uint32_t n = apc_read32(e + 4, little);
        if (type != 3 || n < 1) return 0;  // SHORT, stored in the value field
        uint32_t value = apc_read16(e + 8, little);
        return (value >= 1 && value <= 8) ? value : 0;
    }
    return 0;
}
