// HEIF/HEIC through libheif 1.15, opened on demand (HEVC by libavcodec through apc_hevc.c, else by
// libde265): libheif.so.1 is dlopen'ed on the first call (apc_library.h) and <libheif/heif.h> gives only the types and prototypes.
//
// Every call parses the whole container again (heif_context_read_from_memory_without_copy: the
// caller's bytes, no copy), picks the image (page -1: the primary image; page N: the N-th
// top-level image in file order), and frees everything before it returns. libheif never jumps
// and never prints: failures come back as struct heif_error and are turned into apc statuses.
//
// - Geometry: libheif applies the file's irot/imir/clap itself (ignore_transformations = 0), so
//   width and height are the transformed size and the orientation is 0. An EXIF orientation in
//   a HEIF is informative only (HEIF spec: the transformative properties rule; libvips ignores it
//   too), and is not reported.
// - Pixels: 8-bit images are decoded as interleaved RGB (RGBA with alpha), the conversion
//   heif-convert uses, and copied into the caller's rows (libheif 1.15 has no way to decode into
//   caller memory: the image is decoded whole into its own planes first). A conversion of our own
//   from the decoded 4:2:0 planes, straight into the caller's rows, would save libheif's RGB image
//   (36 MB at 12 MP) and was tried (2026-11-29), but libheif 1.15's RGB is not a per-pixel function
//   of its 4:2:0 planes: nearest-neighbour BT.601 in libheif's 8.8 fixed point (what its later
//   releases do) differs from it on every HEIC of Fixtures but two greyscale ones (example.heic:
//   1.1 M samples, by up to 37), bilinear chroma comes no closer, and libheif's own 4:4:4 output
//   has chroma that is not the nearest sample at 155,829 of example.heic's pixels. Without
//   heif-convert's pixels exactly it was dropped. Deeper images (10/12
//   bits) are decoded at their depth as little-endian RRGGBB(AA) and rounded here as
//   (v * 255 + max / 2) / max, which gives heif-convert's pixels exactly; libheif's own
//   convert_hdr_to_8bit option differs from that rounding by +-1 on about 10% of the samples.
//   Premultiplied alpha is divided out. Grids, overlays and alpha planes are assembled by libheif;
//   thumbnails, depth and auxiliary images are ignored.
// - Limits: the pixel budget is checked against the declared size (both the transformed size and
//   the coded 'ispe' size, which a 'clap' can make much larger) before anything is decoded, and
//   libheif's own per-side limit is tightened to the caller's (libheif checks it on every image
//   item while it parses the container).
// - Thread safety: heif_init runs once, under a pthread_once, right after the library is opened
//   (it builds libheif's colour-conversion tables, which a first decode would otherwise build
//   lazily and unguarded); heif_deinit is never called. Contexts are per call.
#include "CAssetCodecs.h"
#include "apc_checks.h"
#include "apc_hevc.h"
#include "apc_library.h"
#include "apc_report.h"

#include <libheif/heif.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HEIF_FUNCTIONS(X)                                                                                 \
    X(heif_get_version) X(heif_init) X(heif_context_alloc) X(heif_context_free)                           \
    X(heif_context_read_from_memory_without_copy) X(heif_context_set_maximum_image_size_limit)            \
    X(heif_context_get_number_of_top_level_images) X(heif_context_get_list_of_top_level_image_IDs)        \
    X(heif_context_get_primary_image_ID) X(heif_context_get_image_handle)                                \
    X(heif_image_handle_release) X(heif_image_handle_get_width) X(heif_image_handle_get_height)           \
    X(heif_image_handle_get_ispe_width) X(heif_image_handle_get_ispe_height)                             \
    X(heif_image_handle_has_alpha_channel) X(heif_image_handle_is_premultiplied_alpha)                   \
    X(heif_image_handle_get_luma_bits_per_pixel) X(heif_image_handle_get_chroma_bits_per_pixel)          \
    X(heif_image_handle_get_raw_color_profile_size) X(heif_image_handle_get_raw_color_profile)           \
    X(heif_image_handle_get_nclx_color_profile) X(heif_nclx_color_profile_free)                          \
    X(heif_image_handle_get_list_of_metadata_block_IDs) X(heif_image_handle_get_metadata_size)           \
    X(heif_image_handle_get_metadata) X(heif_decoding_options_alloc) X(heif_decoding_options_free)       \
    X(heif_decode_image) X(heif_image_get_width) X(heif_image_get_height)                                \
    X(heif_image_get_bits_per_pixel_range) X(heif_image_get_plane_readonly)                              \
    X(heif_image_get_decoding_warnings) X(heif_image_release) X(heif_register_decoder_plugin)            \
    X(heif_image_create) X(heif_image_add_plane) X(heif_image_get_plane) X(heif_nclx_color_profile_alloc)  \
    X(heif_image_set_nclx_color_profile)

static struct { HEIF_FUNCTIONS(APC_LIBRARY_POINTER) } heif;
static const char *const heif_names[] = { HEIF_FUNCTIONS(APC_LIBRARY_NAME) };
static apc_library heif_library = APC_LIBRARY("libheif.so.1", heif_names, heif);

/// heif_init's outcome, written once under heif_init_once.
static pthread_once_t heif_init_once = PTHREAD_ONCE_INIT;
static int heif_init_failed;
static char heif_init_message[160];

/// libheif's functions that the HEVC plugin calls (apc_hevc.c).
static apc_hevc_heif_functions heif_for_hevc;

static void apc_heif_init(void) {
    struct heif_error error = heif.heif_init(NULL);
    if (error.code != heif_error_Ok) {
        heif_init_failed = 1;
        snprintf(heif_init_message, sizeof heif_init_message, "libheif could not be initialised: %s",
                 error.message ? error.message : "no reason given");
        return;
    }
    // HEVC by libavcodec where it is installed, else by libheif's libde265.
    heif_for_hevc = (apc_hevc_heif_functions){
        heif.heif_register_decoder_plugin, heif.heif_image_create, heif.heif_image_add_plane,
        heif.heif_image_get_plane, heif.heif_image_release, heif.heif_nclx_color_profile_alloc,
        heif.heif_image_set_nclx_color_profile, heif.heif_nclx_color_profile_free,
    };
    apc_hevc_register(&heif_for_hevc);
}

/// Opens libheif and initialises it, once. 0 (with the reason in the report) when it cannot be used.
static int apc_heif_open(apc_report *report) {
    if (!apc_library_open(&heif_library, report)) return 0;
    pthread_once(&heif_init_once, apc_heif_init);
    if (heif_init_failed) {
        apc_report_set_message(report, heif_init_message);
        return 0;
    }
    return 1;
}

/// "libheif " and the runtime version, built once; never changes after.
static pthread_once_t heif_version_once = PTHREAD_ONCE_INIT;
static char heif_version[64];

static void apc_heif_version_fill(void) {
    const char *version = heif.heif_get_version();
    const char *hevc = apc_hevc_version();
    snprintf(heif_version, sizeof heif_version, "libheif %s (HEVC: %s)", version != NULL ? version : "?",
             hevc[0] != '\0' ? hevc : "libde265");
}

const char *apc_heif_library_version(void) {
    apc_report ignored;
    if (!apc_heif_open(&ignored)) return "";
    pthread_once(&heif_version_once, apc_heif_version_fill);
    return heif_version;
}

// ---- A little ISOBMFF reading, only to explain a failure --------------------------------------
//
// libheif 1.15 skips items whose coding it does not know (unci, avc1, jpeg, j2k1, vvc1) and then
// reports that 'pitm' names a missing image, and fails a compact-form ('mini') file as having no
// 'meta' box. Both are valid files it cannot read: this walk finds which, so that they fail as
// APC_ERR_UNSUPPORTED with the coding named rather than as corrupt data.

typedef struct {
    const uint8_t *start;   // the box's payload
    size_t size;            // payload bytes
    uint32_t type;
} apc_heif_box;

static uint32_t apc_heif_be32(const uint8_t *p) {
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | (uint32_t)p[3];
}

static uint32_t apc_heif_be16(const uint8_t *p) { return ((uint32_t)p[0] << 8) | (uint32_t)p[1]; }

#define APC_FOURCC(a, b, c, d) (((uint32_t)(a) << 24) | ((uint32_t)(b) << 16) | ((uint32_t)(c) << 8) | (uint32_t)(d))

/// The next box of [*cursor, end): 1 with the box, else 0 (no complete box left).
static int apc_heif_next_box(const uint8_t **cursor, const uint8_t *end, apc_heif_box *box) {
    const uint8_t *p = *cursor;
    if (end - p < 8) return 0;
    uint64_t size = apc_heif_be32(p);
    size_t header = 8;
    if (size == 1) {
        if (end - p < 16) return 0;
        size = ((uint64_t)apc_heif_be32(p + 8) << 32) | apc_heif_be32(p + 12);
        header = 16;
    } else if (size == 0) {
        size = (uint64_t)(end - p);
    }
    if (size < header || size > (uint64_t)(end - p)) return 0;
    box->type = apc_heif_be32(p + 4);
    box->start = p + header;
    box->size = (size_t)size - header;
    *cursor = p + size;
    return 1;
}

/// The first top-level 'meta' box (the one libheif reads): 1 with it in *meta, else 0 (none, or one
/// too short for its version and flags).
static int apc_heif_first_meta(const uint8_t *data, size_t length, apc_heif_box *meta) {
    const uint8_t *cursor = data, *end = data + length;
    apc_heif_box box;
    while (apc_heif_next_box(&cursor, end, &box)) {
        if (box.type == APC_FOURCC('m', 'e', 't', 'a')) {
            *meta = box;
            return box.size >= 4;
        }
    }
    return 0;
}

/// The item ID and type of an 'infe' box of version 2 or 3 (payload of at least 4 bytes): 1 with
/// them, else 0 (another version, or too short).
static int apc_heif_infe_item(const apc_heif_box *box, uint32_t *id, uint32_t *type) {
    const uint8_t *p = box->start + 4;
    size_t left = box->size - 4;
    if (box->start[0] == 2 && left >= 8) {
        *id = apc_heif_be16(p);
        *type = apc_heif_be32(p + 4);
        return 1;
    }
    if (box->start[0] == 3 && left >= 10) {
        *id = apc_heif_be32(p);
        *type = apc_heif_be32(p + 6);
        return 1;
    }
    return 0;
}

/// The item type of the primary item (its 'infe'), or 0 when the container does not say; sets
/// *mini when the file uses the compact 'mini' box instead of 'meta'.
static uint32_t apc_heif_primary_item_type(const uint8_t *data, size_t length, int *mini) {
    *mini = 0;
    const uint8_t *cursor = data, *end = data + length;
    apc_heif_box box, meta = {NULL, 0, 0};
    while (apc_heif_next_box(&cursor, end, &box)) {
        if (box.type == APC_FOURCC('m', 'i', 'n', 'i')) *mini = 1;
        if (box.type == APC_FOURCC('m', 'e', 't', 'a') && meta.start == NULL) meta = box;
    }
    if (meta.start == NULL || meta.size < 4) return 0;
    uint32_t primary = 0;
    int have_primary = 0;
    apc_heif_box iinf = {NULL, 0, 0};
    cursor = meta.start + 4;  // full box: version and flags
    end = meta.start + meta.size;
    while (apc_heif_next_box(&cursor, end, &box)) {
        if (box.type == APC_FOURCC('p', 'i', 't', 'm') && box.size >= 6) {
            primary = box.start[0] == 0 ? apc_heif_be16(box.start + 4)
                                        : (box.size >= 8 ? apc_heif_be32(box.start + 4) : 0);
            have_primary = 1;
        }
        if (box.type == APC_FOURCC('i', 'i', 'n', 'f')) iinf = box;
    }
    if (!have_primary || iinf.start == NULL || iinf.size < 6) return 0;
    cursor = iinf.start + (iinf.start[0] == 0 ? 6 : 8);  // version, flags, entry count
    end = iinf.start + iinf.size;
    if (cursor > end) return 0;
    while (apc_heif_next_box(&cursor, end, &box)) {
        if (box.type != APC_FOURCC('i', 'n', 'f', 'e') || box.size < 4) continue;
        uint32_t id, type;
        if (apc_heif_infe_item(&box, &id, &type) && id == primary) return type;
    }
    return 0;
}

/// Whether libheif 1.15 decodes items of this type.
static int apc_heif_known_item_type(uint32_t type) {
    return type == APC_FOURCC('h', 'v', 'c', '1') || type == APC_FOURCC('g', 'r', 'i', 'd') ||
           type == APC_FOURCC('i', 'd', 'e', 'n') || type == APC_FOURCC('i', 'o', 'v', 'l') ||
           type == APC_FOURCC('a', 'v', '0', '1');
}

/// The rotation ('irot': quarter turns anti-clockwise, 1-3) that is the only transformative
/// property ('irot', 'imir', 'clap') of item `id`, as its 'ipma' associations list them, or 0: no
/// transformation, another one, more than one, or boxes that do not parse. libheif 1.15 turns a
/// decoded image a byte at a time down each column of each plane (on a 12 MP iPhone photo about a
/// third of the whole decode, by perf); the one-rotation case, an iPhone's, is turned here instead
/// (apc_heif_copy8_turned).
static uint32_t apc_heif_single_rotation(const uint8_t *data, size_t length, uint32_t id) {
    apc_heif_box box, meta, iprp = {NULL, 0, 0};
    if (!apc_heif_first_meta(data, length, &meta)) return 0;
    const uint8_t *cursor = meta.start + 4;  // full box: version and flags
    const uint8_t *end = meta.start + meta.size;
    while (apc_heif_next_box(&cursor, end, &box)) {
        if (box.type == APC_FOURCC('i', 'p', 'r', 'p')) {
            iprp = box;
            break;
        }
    }
    if (iprp.start == NULL) return 0;
    // The properties, numbered from 1 in the order of 'ipco' (the first 'ipco' only).
    enum { MAX_PROPERTIES = 1024 };
    uint32_t types[MAX_PROPERTIES];
    uint8_t first_byte[MAX_PROPERTIES];
    uint32_t count = 0;
    int have_ipco = 0;
    cursor = iprp.start;
    end = iprp.start + iprp.size;
    while (apc_heif_next_box(&cursor, end, &box)) {
        if (box.type != APC_FOURCC('i', 'p', 'c', 'o') || have_ipco) continue;
        have_ipco = 1;
        const uint8_t *p = box.start, *e = box.start + box.size;
        apc_heif_box property;
        while (count < MAX_PROPERTIES && apc_heif_next_box(&p, e, &property)) {
            types[count] = property.type;
            first_byte[count] = property.size > 0 ? property.start[0] : 0;
            count++;
        }
    }
    if (!have_ipco) return 0;
    uint32_t rotation = 0, transforms = 0;
    cursor = iprp.start;
    while (apc_heif_next_box(&cursor, end, &box)) {
        if (box.type != APC_FOURCC('i', 'p', 'm', 'a')) continue;
        if (box.size < 8) return 0;
        uint8_t version = box.start[0];
        int wide_index = (box.start[3] & 1) != 0;
        uint32_t entries = apc_heif_be32(box.start + 4);
        const uint8_t *p = box.start + 8, *e = box.start + box.size;
        for (uint32_t i = 0; i < entries; i++) {
            size_t id_bytes = version < 1 ? 2 : 4;
            if ((size_t)(e - p) < id_bytes + 1) return 0;
            uint32_t item = version < 1 ? apc_heif_be16(p) : apc_heif_be32(p);
            p += id_bytes;
            uint32_t associations = *p++;
            size_t index_bytes = wide_index ? 2 : 1;
            if ((size_t)(e - p) < associations * index_bytes) return 0;
            for (uint32_t a = 0; a < associations; a++, p += index_bytes) {
                if (item != id) continue;
                uint32_t index = wide_index ? (apc_heif_be16(p) & 0x7fff) : (p[0] & 0x7f);
                if (index == 0) continue;
                if (index > count) return 0;
                uint32_t type = types[index - 1];
                if (type == APC_FOURCC('i', 'r', 'o', 't')) {
                    transforms++;
                    rotation = first_byte[index - 1] & 3;
                } else if (type == APC_FOURCC('i', 'm', 'i', 'r') || type == APC_FOURCC('c', 'l', 'a', 'p')) {
                    transforms++;
                }
            }
        }
    }
    return transforms == 1 ? rotation : 0;
}

/// Whether every reference list in the first 'meta' box's 'iref' fits in its box. libheif 1.15 reads
/// a list that declares more references than its box holds, and a grid whose tiles are then not
/// what it expects trips an assertion in its tile threads: an abort (`scripts/fuzz heif-c`, the input
/// in Fixtures/fuzz/heif/crashes). libheif 1.23 refuses such a file, and so do we, before libheif
/// reads it. 1 when the lists fit, or when there is no 'meta' or 'iref' (libheif judges those).
static int apc_heif_iref_fits(const uint8_t *data, size_t length) {
    apc_heif_box box, meta;
    if (!apc_heif_first_meta(data, length, &meta)) return 1;
    const uint8_t *cursor = meta.start + 4;  // full box: version and flags
    const uint8_t *end = meta.start + meta.size;
    while (apc_heif_next_box(&cursor, end, &box)) {
        if (box.type != APC_FOURCC('i', 'r', 'e', 'f')) continue;
        if (box.size < 4) return 0;
        size_t id_bytes = box.start[0] == 0 ? 2 : 4;  // version 0: 16-bit item IDs
        const uint8_t *p = box.start + 4, *e = box.start + box.size;
        apc_heif_box list;
        while (apc_heif_next_box(&p, e, &list)) {
            // from_item_ID, reference_count, then reference_count to_item_IDs
            if (list.size < id_bytes + 2) return 0;
            uint64_t count = apc_heif_be16(list.start + id_bytes);
            if (count * id_bytes > list.size - id_bytes - 2) return 0;
        }
    }
    return 1;
}

/// The largest output size that a 'grid' or 'iovl' item of the first 'meta' box declares in its
/// data, in pixels (0 when there is none, or when the boxes do not parse: libheif judges those).
/// libheif 1.15 allocates a derived image's canvas from that size, not from the item's 'ispe' that
/// the pixel budget is checked against: a 26 KB file whose overlay declares 27,974 x 29,285 made it
/// allocate 2.46 GB, and `assetpipe decode` crashed after 4.5 GB (`scripts/fuzz heif-c`, the input
/// in Fixtures/fuzz/heif/crashes).
static uint64_t apc_heif_largest_derived_canvas(const uint8_t *data, size_t length) {
    apc_heif_box box, meta, iinf = {NULL, 0, 0}, iloc = {NULL, 0, 0}, idat = {NULL, 0, 0};
    if (!apc_heif_first_meta(data, length, &meta)) return 0;
    const uint8_t *cursor = meta.start + 4;  // full box: version and flags
    const uint8_t *end = meta.start + meta.size;
    while (apc_heif_next_box(&cursor, end, &box)) {
        if (box.type == APC_FOURCC('i', 'i', 'n', 'f') && iinf.start == NULL) iinf = box;
        if (box.type == APC_FOURCC('i', 'l', 'o', 'c') && iloc.start == NULL) iloc = box;
        if (box.type == APC_FOURCC('i', 'd', 'a', 't') && idat.start == NULL) idat = box;
    }
    if (iinf.start == NULL || iloc.start == NULL || iinf.size < 6 || iloc.size < 8) return 0;
    // The derived items: 'grid' and 'iovl', by ID (infe versions 2 and 3).
    enum { MAX_DERIVED = 256 };
    uint32_t ids[MAX_DERIVED], types[MAX_DERIVED], count = 0;
    cursor = iinf.start + (iinf.start[0] == 0 ? 6 : 8);
    end = iinf.start + iinf.size;
    if (cursor > end) return 0;
    while (count < MAX_DERIVED && apc_heif_next_box(&cursor, end, &box)) {
        if (box.type != APC_FOURCC('i', 'n', 'f', 'e') || box.size < 4) continue;
        uint32_t id = 0, type = 0;
        if (!apc_heif_infe_item(&box, &id, &type)) continue;
        if (type == APC_FOURCC('g', 'r', 'i', 'd') || type == APC_FOURCC('i', 'o', 'v', 'l')) {
            ids[count] = id;
            types[count++] = type;
        }
    }
    if (count == 0) return 0;
    // iloc: version, flags, the field sizes, the item count, then each item's extents.
    const uint8_t *p = iloc.start, *e = iloc.start + iloc.size;
    uint8_t version = p[0];
    if (version > 2) return 0;
    size_t offset_size = p[4] >> 4, length_size = p[4] & 15, base_size = p[5] >> 4;
    size_t index_size = version >= 1 ? (p[5] & 15) : 0;
    p += 6;
    size_t id_bytes = version < 2 ? 2 : 4;
    if ((size_t)(e - p) < id_bytes) return 0;
    uint32_t items = version < 2 ? apc_heif_be16(p) : apc_heif_be32(p);
    p += id_bytes;
    uint64_t largest = 0;
    for (uint32_t i = 0; i < items; i++) {
        #define APC_HEIF_READ(field, bytes)                                         \
            do {                                                                    \
                if ((size_t)(e - p) < (bytes)) return largest;                     \
                field = 0;                                                          \
                for (size_t b_ = 0; b_ < (bytes); b_++) field = (field << 8) | *p++; \
            } while (0)
        uint64_t id = 0, method = 0, reference = 0, base = 0, extents = 0;
        APC_HEIF_READ(id, id_bytes);
        if (version >= 1) APC_HEIF_READ(method, 2);
        APC_HEIF_READ(reference, 2);
        APC_HEIF_READ(base, base_size);
        APC_HEIF_READ(extents, 2);
        uint64_t first_offset = 0, first_length = 0;
        for (uint64_t x = 0; x < extents; x++) {
            uint64_t index = 0, offset = 0, size = 0;
            if (index_size > 0) APC_HEIF_READ(index, index_size);
            APC_HEIF_READ(offset, offset_size);
            APC_HEIF_READ(size, length_size);
            if (x == 0) {
                first_offset = offset;
                first_length = size;
            }
        }
        #undef APC_HEIF_READ
        (void)reference;
        uint32_t type = 0;
        for (uint32_t k = 0; k < count; k++) {
            if (ids[k] == id) type = types[k];
        }
        if (type == 0 || extents == 0) continue;
        // The item's data: in the file (method 0) or in 'idat' (method 1).
        const uint8_t *source = method == 0 ? data : (method == 1 ? idat.start : NULL);
        size_t source_size = method == 0 ? length : (method == 1 ? idat.size : 0);
        uint64_t at = base + first_offset;
        if (source == NULL || at >= source_size) continue;
        const uint8_t *q = source + at;
        size_t available = source_size - (size_t)at;
        if (first_length > 0 && first_length < available) available = (size_t)first_length;
        // grid: version, flags, rows - 1, columns - 1, then width and height; iovl: version, flags,
        // four 16-bit fill values, then width and height. 32-bit sizes when flags bit 0 is set.
        if (available < 2) continue;
        int wide = (q[1] & 1) != 0;
        size_t at_size = type == APC_FOURCC('g', 'r', 'i', 'd') ? 4 : 10;
        size_t need = at_size + (wide ? 8 : 4);
        if (available < need) continue;
        uint64_t width = wide ? apc_heif_be32(q + at_size) : apc_heif_be16(q + at_size);
        uint64_t height = wide ? apc_heif_be32(q + at_size + 4) : apc_heif_be16(q + at_size + 2);
        if (width * height > largest) largest = width * height;
    }
    return largest;
}

// ---- Errors ------------------------------------------------------------------------------------

/// The apc status of a libheif error.
static int32_t apc_heif_status(struct heif_error error) {
    switch (error.code) {
    case heif_error_Ok: return APC_OK;
    case heif_error_Invalid_input:
    case heif_error_Decoder_plugin_error:  // the HEVC stream did not decode
        return error.subcode == heif_suberror_End_of_data ? APC_ERR_TRUNCATED : APC_ERR_CORRUPT;
    case heif_error_Unsupported_filetype:
    case heif_error_Unsupported_feature:
    case heif_error_Plugin_loading_error:
        return APC_ERR_UNSUPPORTED;
    case heif_error_Memory_allocation_error:
        return APC_ERR_TOO_LARGE;
    default:  // Usage_error (an item the container names but does not hold), anything newer
        return APC_ERR_CORRUPT;
    }
}

/// Reports a libheif error ("<what>: <libheif's message>") and returns its status.
static int32_t apc_heif_fail(struct heif_error error, const char *what, apc_report *report) {
    char message[APC_MESSAGE_CAPACITY];
    snprintf(message, sizeof message, "%s: %s", what,
             error.message != NULL && error.message[0] != '\0' ? error.message : "libheif gave no reason");
    apc_report_set_message(report, message);
    int32_t status = apc_heif_status(error);
    return status == APC_OK ? APC_ERR_CORRUPT : status;
}

/// After a failure to read the container or find the image: a valid file with an image coding or
/// box layout libheif 1.15 does not know fails as unsupported, naming it.
static int32_t apc_heif_explain(const uint8_t *data, size_t length, int32_t status, apc_report *report) {
    if (status != APC_ERR_CORRUPT) return status;
    int mini = 0;
    uint32_t type = apc_heif_primary_item_type(data, length, &mini);
    char message[APC_MESSAGE_CAPACITY];
    if (mini) {
        snprintf(message, sizeof message,
                 "the file uses the compact 'mini' box (HEIF 2nd edition), which libheif 1.15 cannot read");
    } else if (type != 0 && !apc_heif_known_item_type(type)) {
        char code[5];
        for (int i = 0; i < 4; i++) {
            char c = (char)(type >> (24 - 8 * i));
            code[i] = (c >= 0x20 && c <= 0x7e) ? c : '?';
        }
        code[4] = '\0';
        snprintf(message, sizeof message, "the primary image is coded as '%s', which libheif 1.15 cannot decode", code);
    } else {
        return status;
    }
    apc_report_set_message(report, message);
    return APC_ERR_UNSUPPORTED;
}

// ---- Opening a file and choosing its image ------------------------------------------------------

typedef struct {
    struct heif_context *context;
    struct heif_image_handle *handle;
    heif_item_id id;   // the handle's item
    int count;         // top-level images
} apc_heif_file;

static void apc_heif_close(apc_heif_file *file) {
    if (file->handle != NULL) heif.heif_image_handle_release(file->handle);
    if (file->context != NULL) heif.heif_context_free(file->context);
    file->handle = NULL;
    file->context = NULL;
}

/// libheif's per-side limit for the caller's limits: the larger side limit (libheif has one
/// value for both sides; each is checked here after), no more than the pixel budget (no side
/// exceeds it), and never looser than libheif's default (32768: left alone when the caller allows
/// more). 0: keep the default. libheif 1.15 allows a side equal to the limit while it parses the
/// container but refuses it when it assembles a grid, hence the + 1.
static int apc_heif_side_limit(const apc_limits *limits) {
    if (limits == NULL) return 0;
    uint64_t side = 0;
    if (limits->max_width != 0 && limits->max_height != 0)
        side = limits->max_width > limits->max_height ? limits->max_width : limits->max_height;
    if (limits->max_pixels != 0 && (side == 0 || limits->max_pixels < side)) side = limits->max_pixels;
    if (side == 0 || side >= 32767) return 0;
    return (int)side + 1;
}

/// Reads the container and gets the handle of the image `page` selects.
static int32_t apc_heif_open_file(const uint8_t *data, size_t length, const apc_limits *limits, int32_t page,
                                  apc_heif_file *file, apc_report *report) {
    memset(file, 0, sizeof *file);
    if (page < -1) {
        apc_report_set_message(report, "the page must be -1 (the primary image) or an image index");
        return APC_ERR_INVALID_ARGUMENT;
    }
    if (length < 12) {
        apc_report_set_message(report, length == 0 ? "the input is empty" : "the input ends inside the 'ftyp' box");
        return APC_ERR_TRUNCATED;
    }
    if (!apc_heif_iref_fits(data, length)) {
        apc_report_set_message(report, "an 'iref' reference list declares more references than its box holds");
        return APC_ERR_CORRUPT;
    }
    uint64_t canvas = apc_heif_largest_derived_canvas(data, length);
    if (limits != NULL && limits->max_pixels > 0 && canvas > limits->max_pixels) {
        apc_report_set_message(report, "a grid or overlay declares a canvas larger than the pixel budget");
        return APC_ERR_TOO_LARGE;
    }
    if (!apc_heif_open(report)) return APC_ERR_UNSUPPORTED;
    file->context = heif.heif_context_alloc();
    if (file->context == NULL) {
        apc_report_set_message(report, "cannot create the libheif context");
        return APC_ERR_TOO_LARGE;
    }
    int side = apc_heif_side_limit(limits);
    if (side != 0) heif.heif_context_set_maximum_image_size_limit(file->context, side);
    struct heif_error read = heif.heif_context_read_from_memory_without_copy(file->context, data, length, NULL);
    if (read.code != heif_error_Ok) {
        int32_t status = apc_heif_fail(read, "libheif could not read the file", report);
        if (read.code == heif_error_Memory_allocation_error && read.subcode == heif_suberror_Security_limit_exceeded)
            status = APC_ERR_TOO_LARGE;
        apc_heif_close(file);
        return apc_heif_explain(data, length, status, report);
    }
    file->count = heif.heif_context_get_number_of_top_level_images(file->context);
    if (file->count <= 0) {
        apc_heif_close(file);
        apc_report_set_message(report, "the file has no image");
        return apc_heif_explain(data, length, APC_ERR_CORRUPT, report);
    }
    if (page >= file->count) {
        char message[96];
        snprintf(message, sizeof message, "page %d is past the file's %d images", (int)page, file->count);
        apc_heif_close(file);
        apc_report_set_message(report, message);
        return APC_ERR_NO_SUCH_PAGE;
    }
    heif_item_id *ids = calloc((size_t)file->count, sizeof *ids);
    if (ids == NULL) {
        apc_heif_close(file);
        apc_report_set_message(report, "out of memory");
        return APC_ERR_TOO_LARGE;
    }
    int listed = heif.heif_context_get_list_of_top_level_image_IDs(file->context, ids, file->count);
    int index = page;
    if (page == -1) {
        // The primary image, when 'pitm' names a top-level image; libheif hands out whatever
        // 'pitm' names, even a thumbnail (pillow-heif's invalid_id.heic): then the first
        // top-level image, as heif-convert and libvips show.
        heif_item_id primary = 0;
        index = 0;
        if (heif.heif_context_get_primary_image_ID(file->context, &primary).code == heif_error_Ok) {
            int found = -1;
            for (int i = 0; i < listed; i++) {
                if (ids[i] == primary) found = i;
            }
            if (found >= 0) index = found;
            else apc_report_add_warning(report, "the primary item is not a top-level image: the first image is shown");
        }
    }
    struct heif_error error;
    if (index < listed) {
        file->id = ids[index];
        error = heif.heif_context_get_image_handle(file->context, ids[index], &file->handle);
    } else {
        error.code = heif_error_Invalid_input;
        error.subcode = heif_suberror_Unspecified;
        error.message = "the list of top-level images is shorter than their count";
    }
    free(ids);
    if (error.code != heif_error_Ok || file->handle == NULL) {
        int32_t status = apc_heif_fail(error, "libheif could not find the image", report);
        file->handle = NULL;
        apc_heif_close(file);
        return apc_heif_explain(data, length, status, report);
    }
    return APC_OK;
}

/// The declared size of the chosen image, checked against the limits.
static int32_t apc_heif_check_size(const apc_heif_file *file, const apc_limits *limits, uint32_t *width,
                                   uint32_t *height, apc_report *report) {
    int w = heif.heif_image_handle_get_width(file->handle);
    int h = heif.heif_image_handle_get_height(file->handle);
    if (w <= 0 || h <= 0) {
        apc_report_set_message(report, "the image has no size");
        return APC_ERR_CORRUPT;
    }
    *width = (uint32_t)w;
    *height = (uint32_t)h;
    if (limits != NULL && ((limits->max_width != 0 && *width > limits->max_width) ||
                           (limits->max_height != 0 && *height > limits->max_height))) {
        apc_report_set_message(report, "the image's declared size exceeds the size limits");
        return APC_ERR_TOO_LARGE;
    }
    // The coded size ('ispe', before clap and rotation) is what libheif allocates.
    int coded_w = heif.heif_image_handle_get_ispe_width(file->handle);
    int coded_h = heif.heif_image_handle_get_ispe_height(file->handle);
    if (apc_too_many_pixels(limits, *width, *height) ||
        (coded_w > 0 && coded_h > 0 && apc_too_many_pixels(limits, (uint32_t)coded_w, (uint32_t)coded_h))) {
        apc_report_set_message(report, "the image's declared size exceeds the pixel budget");
        return APC_ERR_TOO_LARGE;
    }
    return APC_OK;
}

// ---- Entry points -------------------------------------------------------------------------------

int32_t apc_heif_read_header(const uint8_t *data, size_t length, const apc_limits *limits, int32_t page,
                             apc_header *header, apc_report *report) {
    apc_report_reset(report);
    if (data == NULL || header == NULL) {
        apc_report_set_message(report, "no data or no header");
        return APC_ERR_INVALID_ARGUMENT;
    }
    memset(header, 0, sizeof *header);
    apc_heif_file file;
    int32_t status = apc_heif_open_file(data, length, limits, page, &file, report);
    if (status != APC_OK) return status;

    const struct heif_image_handle *handle = file.handle;
    uint32_t width = (uint32_t)heif.heif_image_handle_get_width(handle);
    uint32_t height = (uint32_t)heif.heif_image_handle_get_height(handle);
    int alpha = heif.heif_image_handle_has_alpha_channel(handle) != 0;
    int luma = heif.heif_image_handle_get_luma_bits_per_pixel(handle);
    header->format = APC_FORMAT_HEIF;
    header->width = width;
    header->height = height;
    header->output_width = width;
    header->output_height = height;
    // libheif 1.15 does not tell a monochrome coding from the handle (only by decoding it): the
    // colour model is that of the coded image, YCbCr.
    header->channels = alpha ? 4 : 3;
    header->bit_depth = luma > 0 ? (uint32_t)luma : 8;
    header->color_space = APC_COLOR_YCBCR;
    header->has_alpha = (uint32_t)alpha;
    header->orientation = 0;  // libheif applies irot/imir; an EXIF orientation is informative only
    header->frames = (uint32_t)file.count;
    header->has_icc = heif.heif_image_handle_get_raw_color_profile_size(handle) > 0;
    struct heif_color_profile_nclx *nclx = NULL;
    struct heif_error error = heif.heif_image_handle_get_nclx_color_profile(handle, &nclx);
    if (error.code == heif_error_Ok && nclx != NULL) {
        header->color_primaries = (uint32_t)nclx->color_primaries;
        header->transfer_characteristics = (uint32_t)nclx->transfer_characteristics;
        header->matrix_coefficients = (uint32_t)nclx->matrix_coefficients;
    }
    if (nclx != NULL) heif.heif_nclx_color_profile_free(nclx);

    status = apc_heif_check_size(&file, limits, &width, &height, report);
    apc_heif_close(&file);
    return status;
}

/// Copies libheif's decoding warnings into the report: how many there are, and the last one's
/// message. libheif's heif_image_get_decoding_warnings writes every warning from the index asked
/// for to the last, whatever the size of the buffer it is given (a batch of 8 overflowed ours when
/// there were more), and it writes each message into one string of the image's, so the message of
/// every warning but the last it wrote may already be freed: ours were read after free
/// (`scripts/fuzz avif-c`, the input in Fixtures/fuzz/avif/crashes). Asked from the last index,
/// it writes one warning, whose message is still there.
static void apc_heif_warnings(struct heif_image *image, apc_report *report) {
    int count = heif.heif_image_get_decoding_warnings(image, 0, NULL, 0);
    if (count <= 0) return;
    struct heif_error last;
    if (heif.heif_image_get_decoding_warnings(image, count - 1, &last, 1) != 1) return;
    const char *text = last.message ? last.message : "warning";
    char message[APC_MESSAGE_CAPACITY];
    if (count == 1) {
        snprintf(message, sizeof message, "libheif: %s", text);
    } else {
        snprintf(message, sizeof message, "libheif: %d decoding warnings, the last: %s", count, text);
    }
    apc_report_add_warning(report, message);
}

/// Divides premultiplied colour by alpha, rounding, for 8-bit RGBA pixels.
static void apc_heif_unpremultiply8(uint8_t *row, uint32_t width) {
    for (uint32_t x = 0; x < width; x++, row += 4) {
        uint32_t a = row[3];
        if (a == 255) continue;
        for (int c = 0; c < 3; c++) {
            uint32_t v = a == 0 ? 0 : (row[c] * 255u + a / 2) / a;
            row[c] = (uint8_t)(v > 255 ? 255 : v);
        }
    }
}

/// Copies an 8-bit interleaved RGB(A) plane into the caller's RGBA rows.
static void apc_heif_copy8(const uint8_t *plane, size_t stride, int alpha, int premultiplied, uint32_t width,
                           uint32_t height, uint8_t *pixels, size_t row_bytes) {
    for (uint32_t y = 0; y < height; y++) {
        const uint8_t *in = plane + (size_t)y * stride;
        uint8_t *out = pixels + (size_t)y * row_bytes;
        if (alpha) {
            memcpy(out, in, (size_t)width * 4);
            if (premultiplied) apc_heif_unpremultiply8(out, width);
        } else {
            for (uint32_t x = 0; x < width; x++, in += 3, out += 4) {
                out[0] = in[0];
                out[1] = in[1];
                out[2] = in[2];
                out[3] = 255;
            }
        }
    }
}

/// Copies an 8-bit interleaved RGB plane of `width` x `height` into the caller's RGBA rows turned by
/// `quarters` quarter turns anti-clockwise (libheif's rotate_ccw), in tiles of 64x64 pixels so that
/// the rows read and the rows written stay in the cache.
static void apc_heif_copy8_turned(const uint8_t *plane, size_t stride, uint32_t width, uint32_t height, uint32_t quarters,
                                  uint8_t *pixels, size_t row_bytes) {
    enum { TILE = 64 };
    for (uint32_t y0 = 0; y0 < height; y0 += TILE) {
        uint32_t y1 = y0 + TILE < height ? y0 + TILE : height;
        for (uint32_t x0 = 0; x0 < width; x0 += TILE) {
            uint32_t x1 = x0 + TILE < width ? x0 + TILE : width;
            if (quarters == 2) {
                for (uint32_t y = y0; y < y1; y++) {
                    const uint8_t *in = plane + (size_t)y * stride + (size_t)x0 * 3;
                    uint8_t *out = pixels + (size_t)(height - 1 - y) * row_bytes + (size_t)(width - 1 - x0) * 4;
                    for (uint32_t x = x0; x < x1; x++, in += 3, out -= 4) {
                        out[0] = in[0];
                        out[1] = in[1];
                        out[2] = in[2];
                        out[3] = 255;
                    }
                }
                continue;
            }
            // A source column becomes an output row: (x, y) goes to (y, width - 1 - x) for a
            // quarter turn, to (height - 1 - y, x) for three.
            for (uint32_t x = x0; x < x1; x++) {
                const uint8_t *in = plane + (size_t)y0 * stride + (size_t)x * 3;
                uint8_t *out;
                ptrdiff_t step;
                if (quarters == 1) {
                    out = pixels + (size_t)(width - 1 - x) * row_bytes + (size_t)y0 * 4;
                    step = 4;
                } else {
                    out = pixels + (size_t)x * row_bytes + (size_t)(height - 1 - y0) * 4;
                    step = -4;
                }
                for (uint32_t y = y0; y < y1; y++, in += stride, out += step) {
                    out[0] = in[0];
                    out[1] = in[1];
                    out[2] = in[2];
                    out[3] = 255;
                }
            }
        }
    }
}

/// Rounds a little-endian RRGGBB(AA) plane of `bits`-bit samples into the caller's RGBA rows,
/// dividing out premultiplied alpha at full depth first.
static int apc_heif_copy16(const uint8_t *plane, size_t stride, int alpha, int premultiplied, int bits,
                           uint32_t width, uint32_t height, uint8_t *pixels, size_t row_bytes) {
    uint32_t max = (1u << bits) - 1;
    uint8_t *table = malloc(65536);  // every 16-bit value, so that no sample can index past it
    if (table == NULL) return 0;
    for (uint32_t v = 0; v < 65536; v++) table[v] = v >= max ? 255 : (uint8_t)((v * 255 + max / 2) / max);
    uint32_t channels = alpha ? 4 : 3;
    for (uint32_t y = 0; y < height; y++) {
        const uint8_t *in = plane + (size_t)y * stride;
        uint8_t *out = pixels + (size_t)y * row_bytes;
        for (uint32_t x = 0; x < width; x++, in += 2 * channels, out += 4) {
            uint32_t r = in[0] | ((uint32_t)in[1] << 8);
            uint32_t g = in[2] | ((uint32_t)in[3] << 8);
            uint32_t b = in[4] | ((uint32_t)in[5] << 8);
            uint32_t a = alpha ? (in[6] | ((uint32_t)in[7] << 8)) : 0xffffu;
            if (alpha && premultiplied && a < max) {
                if (a == 0) {
                    r = g = b = 0;
                } else {
                    r = (uint32_t)(((uint64_t)r * max + a / 2) / a);
                    g = (uint32_t)(((uint64_t)g * max + a / 2) / a);
                    b = (uint32_t)(((uint64_t)b * max + a / 2) / a);
                    if (r > 0xffff) r = 0xffff;
                    if (g > 0xffff) g = 0xffff;
                    if (b > 0xffff) b = 0xffff;
                }
            }
            out[0] = table[r];
            out[1] = table[g];
            out[2] = table[b];
            out[3] = alpha ? table[a] : 255;
        }
    }
    free(table);
    return 1;
}

/// Decodes the handle's image into libheif's own planes (the chroma asked for), with or without
/// its transformations.
static struct heif_error apc_heif_decode_image(struct heif_image_handle *handle, enum heif_chroma chroma,
                                               int ignore_transformations, struct heif_image **image) {
    struct heif_decoding_options *options = heif.heif_decoding_options_alloc();
    if (options == NULL) {
        struct heif_error error = {heif_error_Memory_allocation_error, heif_suberror_Unspecified, "out of memory"};
        return error;
    }
    options->ignore_transformations = (uint8_t)(ignore_transformations != 0);
    options->convert_hdr_to_8bit = 0;
    struct heif_error error = heif.heif_decode_image(handle, image, heif_colorspace_RGB, chroma, options);
    heif.heif_decoding_options_free(options);
    return error;
}

int32_t apc_heif_decode_rgba(const uint8_t *data, size_t length, const apc_limits *limits, int32_t page,
                             uint32_t width, uint32_t height, uint8_t *pixels, size_t row_bytes, size_t capacity,
                             apc_report *report) {
    apc_report_reset(report);
    if (data == NULL || pixels == NULL) {
        apc_report_set_message(report, "no data or no output buffer");
        return APC_ERR_INVALID_ARGUMENT;
    }
    if (!apc_output_fits(width, height, row_bytes, capacity)) {
        apc_report_set_message(report, "the output buffer is too small for the requested size");
        return APC_ERR_INVALID_ARGUMENT;
    }
    apc_heif_file file;
    int32_t status = apc_heif_open_file(data, length, limits, page, &file, report);
    if (status != APC_OK) return status;
    uint32_t declared_w = 0, declared_h = 0;
    status = apc_heif_check_size(&file, limits, &declared_w, &declared_h, report);
    if (status != APC_OK) {
        apc_heif_close(&file);
        return status;
    }
    if (declared_w != width || declared_h != height) {
        apc_heif_close(&file);
        apc_report_set_message(report, "the requested size is not the image's size");
        return APC_ERR_INVALID_ARGUMENT;
    }

    int alpha = heif.heif_image_handle_has_alpha_channel(file.handle) != 0;
    int premultiplied = alpha && heif.heif_image_handle_is_premultiplied_alpha(file.handle) != 0;
    int deep = heif.heif_image_handle_get_luma_bits_per_pixel(file.handle) > 8 ||
               heif.heif_image_handle_get_chroma_bits_per_pixel(file.handle) > 8;
    enum heif_chroma chroma = deep ? (alpha ? heif_chroma_interleaved_RRGGBBAA_LE : heif_chroma_interleaved_RRGGBB_LE)
                                   : (alpha ? heif_chroma_interleaved_RGBA : heif_chroma_interleaved_RGB);
    // One rotation and nothing else (an iPhone's photo): decoded as coded and turned while copied.
    uint32_t quarters = !alpha && !deep ? apc_heif_single_rotation(data, length, file.id) : 0;
    struct heif_image *image = NULL;
    struct heif_error error = apc_heif_decode_image(file.handle, chroma, quarters != 0, &image);
    int stride = 0;
    const uint8_t *plane = NULL;
    int plane_w = 0, plane_h = 0;
    for (;;) {
        if (error.code != heif_error_Ok || image == NULL) {
            status = apc_heif_fail(error, "libheif could not decode the image", report);
            if (image != NULL) heif.heif_image_release(image);
            apc_heif_close(&file);
            return status;
        }
        plane = heif.heif_image_get_plane_readonly(image, heif_channel_interleaved, &stride);
        plane_w = heif.heif_image_get_width(image, heif_channel_interleaved);
        plane_h = heif.heif_image_get_height(image, heif_channel_interleaved);
        uint32_t turned_w = quarters % 2 == 1 ? (uint32_t)plane_h : (uint32_t)plane_w;
        uint32_t turned_h = quarters % 2 == 1 ? (uint32_t)plane_w : (uint32_t)plane_h;
        if (quarters == 0 || (turned_w == width && turned_h == height)) break;
        // The coded image is not the declared one turned: libheif read the transformations
        // otherwise than apc_heif_single_rotation. Decoded again, libheif turning it.
        heif.heif_image_release(image);
        image = NULL;
        quarters = 0;
        error = apc_heif_decode_image(file.handle, chroma, 0, &image);
    }
    apc_heif_warnings(image, report);

    int bits = heif.heif_image_get_bits_per_pixel_range(image, heif_channel_interleaved);
    size_t pixel_bytes = (size_t)(alpha ? 4 : 3) * (deep ? 2 : 1);
    if (quarters != 0) {
        if (plane == NULL || stride <= 0 || (size_t)stride < (size_t)plane_w * pixel_bytes || bits != 8) {
            apc_report_set_message(report, "libheif decoded an image of another size or layout than the file declares");
            status = APC_ERR_CORRUPT;
        } else {
            apc_heif_copy8_turned(plane, (size_t)stride, (uint32_t)plane_w, (uint32_t)plane_h, quarters, pixels, row_bytes);
        }
    } else if (plane == NULL || plane_w != (int)width || plane_h != (int)height || stride <= 0 ||
        (size_t)stride < (size_t)width * pixel_bytes || (deep ? (bits < 8 || bits > 16) : bits != 8)) {
        apc_report_set_message(report, "libheif decoded an image of another size or layout than the file declares");
        status = APC_ERR_CORRUPT;
    } else if (deep) {
        if (!apc_heif_copy16(plane, (size_t)stride, alpha, premultiplied, bits, width, height, pixels, row_bytes)) {
            apc_report_set_message(report, "out of memory");
            status = APC_ERR_TOO_LARGE;
        }
    } else {
        apc_heif_copy8(plane, (size_t)stride, alpha, premultiplied, width, height, pixels, row_bytes);
    }
    heif.heif_image_release(image);
    apc_heif_close(&file);
    return status;
}

int32_t apc_heif_read_metadata(const uint8_t *data, size_t length, const apc_limits *limits, int32_t page,
                               apc_metadata *metadata, apc_report *report) {
    apc_report_reset(report);
    if (data == NULL || metadata == NULL) {
        apc_report_set_message(report, "no data or no metadata");
        return APC_ERR_INVALID_ARGUMENT;
    }
    memset(metadata, 0, sizeof *metadata);
    apc_heif_file file;
    int32_t status = apc_heif_open_file(data, length, limits, page, &file, report);
    if (status != APC_OK) return status;

    size_t icc_length = heif.heif_image_handle_get_raw_color_profile_size(file.handle);
    if (icc_length > 0 && icc_length <= length) {
        metadata->icc = malloc(icc_length);
        if (metadata->icc == NULL) goto out_of_memory;
        struct heif_error error = heif.heif_image_handle_get_raw_color_profile(file.handle, metadata->icc);
        if (error.code == heif_error_Ok) {
            metadata->icc_length = icc_length;
        } else {
            free(metadata->icc);
            metadata->icc = NULL;
            apc_report_add_warning(report, "the ICC profile could not be read: left out");
        }
    }

    heif_item_id exif_id = 0;
    if (heif.heif_image_handle_get_list_of_metadata_block_IDs(file.handle, "Exif", &exif_id, 1) == 1) {
        size_t size = heif.heif_image_handle_get_metadata_size(file.handle, exif_id);
        if (size > 0 && size <= length) {
            uint8_t *block = malloc(size);
            if (block == NULL) goto out_of_memory;
            struct heif_error error = heif.heif_image_handle_get_metadata(file.handle, exif_id, block);
            // The block starts with a 4-byte big-endian offset from its end to the TIFF header. A
            // block of fewer than 4 bytes has none (`size - 4` wrapped around and let an offset of
            // 4 GB through: `scripts/fuzz avif-c`, the input in Fixtures/fuzz/avif/crashes).
            int whole = error.code == heif_error_Ok && size >= 4;
            uint32_t skip = whole ? apc_heif_be32(block) : 0;
            if (!whole || skip > size - 4 || size - 4 - skip == 0) {
                apc_report_add_warning(report, "the EXIF block is malformed: left out");
                free(block);
            } else {
                size_t start = 4 + (size_t)skip, tiff = size - start;
                // Some writers leave JPEG's "Exif\0\0" in front of the TIFF header.
                if (tiff > 6 && memcmp(block + start, "Exif\0\0", 6) == 0) {
                    start += 6;
                    tiff -= 6;
                }
                memmove(block, block + start, tiff);
                metadata->exif = block;
                metadata->exif_length = tiff;
            }
        }
    }
    apc_heif_close(&file);
    return APC_OK;

out_of_memory:
    apc_heif_close(&file);
    apc_metadata_free(metadata);
    apc_report_set_message(report, "out of memory");
    return APC_ERR_TOO_LARGE;
}
