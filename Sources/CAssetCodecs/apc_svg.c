// SVG (and gzip-compressed SVGZ) through librsvg 2.54 and cairo, opened on demand: the document is
// drawn by cairo straight into the caller's rows, at whatever size the caller asks for, and the
// premultiplied pixels are then turned into straight RGBA in place. The pixels are those of
// `rsvg-convert` fed the SVG on standard input (same library, same drawing calls, same
// unpremultiplication as cairo's PNG writer): exact, at the natural size and scaled.
//
// Safety: the handle is made from memory with no base file or URL and without
// RSVG_HANDLE_FLAG_UNLIMITED. librsvg then refuses every external reference (http:, file:,
// absolute and relative paths, XInclude, CSS @import) and loads only data: URLs, and libxml2
// keeps its limits. Those limits are far too loose for a server (see "The pre-scan" below), so
// this file adds its own: a pre-scan of the input (elements, entity expansion, data: URLs) and a
// size check inside gdk-pixbuf, through which librsvg decodes embedded images.
//
// Not done: metadata (an SVG has no ICC profile or EXIF block: the blocks come back empty),
// animation, scripting, <foreignObject>, page selection (one image: page -1 or 0).
#include "CAssetCodecs.h"
#include "apc_checks.h"
#include "apc_library.h"
#include "apc_report.h"

#include <ctype.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <zlib.h>

// --- The few declarations of librsvg 2.54's, cairo's and GLib's stable C ABI used here. Their
// headers need include paths (glib-2.0, cairo, gdk-pixbuf) that the Swift package cannot add
// portably, so the types this file touches are declared as those headers declare them, and the
// functions are resolved with dlsym through librsvg's handle (cairo, GObject and GLib are its
// dependencies, so the same handle finds them). The prototypes exist only for __typeof__ in
// apc_library.h: nothing here links against them.

typedef int gboolean;                      // glib: gint
typedef struct _RsvgHandle RsvgHandle;     // opaque GObject
typedef struct _cairo cairo_t;             // opaque
typedef struct _cairo_surface cairo_surface_t; // opaque
typedef int cairo_status_t;                // enum: 0 is CAIRO_STATUS_SUCCESS
typedef int cairo_format_t;                // enum
#define APC_CAIRO_FORMAT_ARGB32 0
#define APC_CAIRO_STATUS_SUCCESS 0

/// GLib's GError: { GQuark domain (guint32); gint code; gchar *message; }.
typedef struct {
    uint32_t domain;
    int code;
    char *message;
} GError;

/// librsvg's RsvgRectangle.
typedef struct {
    double x, y, width, height;
} RsvgRectangle;

/// librsvg's RsvgDimensionData (deprecated API, used for its floating-point `em`/`ex`: see below).
typedef struct {
    int width;
    int height;
    double em;
    double ex;
} RsvgDimensionData;

/// GLib's log handler type (GLogFunc) and level flags (GLogLevelFlags).
typedef void (*GLogFunc)(const char *log_domain, int log_level, const char *message, void *user_data);
#define APC_G_LOG_FLAG_RECURSION (1 << 0)
#define APC_G_LOG_FLAG_FATAL (1 << 1)
#define APC_G_LOG_LEVEL_ERROR (1 << 2)
#define APC_G_LOG_LEVEL_MASK (~(APC_G_LOG_FLAG_RECURSION | APC_G_LOG_FLAG_FATAL))

RsvgHandle *rsvg_handle_new_from_data(const uint8_t *data, size_t data_len, GError **error);
void rsvg_handle_set_dpi(RsvgHandle *handle, double dpi);
gboolean rsvg_handle_get_intrinsic_size_in_pixels(RsvgHandle *handle, double *out_width, double *out_height);
void rsvg_handle_get_dimensions(RsvgHandle *handle, RsvgDimensionData *dimension_data);
gboolean rsvg_handle_render_document(RsvgHandle *handle, cairo_t *cr, const RsvgRectangle *viewport,
                                     GError **error);
extern const unsigned int rsvg_major_version;
extern const unsigned int rsvg_minor_version;
extern const unsigned int rsvg_micro_version;

cairo_surface_t *cairo_image_surface_create_for_data(unsigned char *data, cairo_format_t format, int width,
                                                     int height, int stride);
cairo_status_t cairo_surface_status(cairo_surface_t *surface);
void cairo_surface_flush(cairo_surface_t *surface);
void cairo_surface_destroy(cairo_surface_t *surface);
cairo_t *cairo_create(cairo_surface_t *target);
cairo_status_t cairo_status(cairo_t *cr);
void cairo_scale(cairo_t *cr, double sx, double sy);
void cairo_destroy(cairo_t *cr);
const char *cairo_status_to_string(cairo_status_t status);
const char *cairo_version_string(void);

void g_object_unref(void *object);
void g_error_free(GError *error);
unsigned int g_log_set_handler(const char *log_domain, int log_levels, GLogFunc log_func, void *user_data);

// GObject's type system and gdk-pixbuf's loader, through which librsvg decodes every raster image
// (and every SVG image) referenced by a data: URL.
typedef size_t GType;
typedef struct _GdkPixbufLoader GdkPixbufLoader; // opaque GObject
typedef void (*GCallback)(void);
GType gdk_pixbuf_loader_get_type(void);
void gdk_pixbuf_loader_set_size(GdkPixbufLoader *loader, int width, int height);
void *g_type_class_ref(GType type);
void g_signal_override_class_handler(const char *signal_name, GType instance_type, GCallback class_handler);

#define SVG_FUNCTIONS(X)                                                                             \
    X(rsvg_handle_new_from_data) X(rsvg_handle_set_dpi) X(rsvg_handle_get_intrinsic_size_in_pixels)  \
    X(rsvg_handle_get_dimensions) X(rsvg_handle_render_document) X(rsvg_major_version)               \
    X(rsvg_minor_version) X(rsvg_micro_version) X(cairo_image_surface_create_for_data)               \
    X(cairo_surface_status) X(cairo_surface_flush) X(cairo_surface_destroy) X(cairo_create)          \
    X(cairo_status) X(cairo_scale) X(cairo_destroy) X(cairo_status_to_string) X(cairo_version_string) \
    X(g_object_unref) X(g_error_free) X(g_log_set_handler) X(gdk_pixbuf_loader_get_type)             \
    X(gdk_pixbuf_loader_set_size) X(g_type_class_ref) X(g_signal_override_class_handler)

static struct { SVG_FUNCTIONS(APC_LIBRARY_POINTER) } svg;
static const char *const svg_names[] = {SVG_FUNCTIONS(APC_LIBRARY_NAME)};
static apc_library svg_library = APC_LIBRARY("librsvg-2.so.2", svg_names, svg);

/// Rendering resolution: CSS pixels, as rsvg-convert's default.
#define APC_SVG_DPI 96.0
/// cairo's image surfaces are at most 32767 pixels on a side (its MAX_IMAGE_SIZE).
#define APC_SVG_MAX_SIDE 32767u

// --- The call in progress on this thread. librsvg does its work (parsing, loading embedded
// images, drawing) on the calling thread, so the process-wide hooks below find the call they
// serve in a thread-local; outside a call of this file they do nothing.

typedef struct {
    apc_report *report;
    uint64_t max_pixels;       // the caller's pixel budget, 0: none
    uint64_t image_pixels;     // pixels of the embedded images decoded so far
    int image_refused;         // an embedded image was refused against the budget
} apc_svg_call;

static _Thread_local apc_svg_call *apc_svg_current;
static pthread_once_t apc_svg_hooks_once = PTHREAD_ONCE_INIT;

/// g_log handler. librsvg, GLib, GIO, Pango and gdk-pixbuf report some problems through g_log,
/// whose default handler prints to stderr: the messages become warnings of the call on the same
/// thread, and are dropped elsewhere.
static void apc_svg_log(const char *domain, int level, const char *message, void *user_data) {
    (void)user_data;
    (void)level;
    apc_svg_call *call = apc_svg_current;
    if (call == NULL || message == NULL) return;
    char line[APC_MESSAGE_CAPACITY];
    snprintf(line, sizeof line, "%s: %s", domain ? domain : "log", message);
    for (char *c = line; *c; c++) {
        if (*c == '\n') *c = ' ';
    }
    apc_report_add_warning(call->report, line);
}

/// Class handler of GdkPixbufLoader's "size-prepared" signal, emitted by every gdk-pixbuf loader
/// once it knows an image's size and before it allocates the pixels. librsvg decodes each image
/// of a data: URL (PNG, JPEG, GIF, BMP, TIFF, ... and SVG, rasterised at its own size) through
/// such a loader at its full declared size, whatever size it is drawn at: a 1 MB SVG holding a
/// 16000 x 16000 PNG of zeros took 2 GB and 7 s. Images past the pixel budget (each, and all of a
/// call together) are refused by setting the size to 0 x 0, which gdk-pixbuf's loaders take as
/// "stop, allocate nothing"; the call then fails with APC_ERR_TOO_LARGE.
static void apc_svg_size_prepared(GdkPixbufLoader *loader, int width, int height, void *user_data) {
    (void)user_data;
    apc_svg_call *call = apc_svg_current;
    if (call == NULL) return;
    uint64_t pixels = width > 0 && height > 0 ? (uint64_t)width * (uint64_t)height : 0;
    call->image_pixels += pixels;
    if (call->max_pixels != 0 && (pixels > call->max_pixels || call->image_pixels > call->max_pixels)) {
        if (!call->image_refused) {
            char line[APC_MESSAGE_CAPACITY];
            snprintf(line, sizeof line, "an embedded %d x %d image exceeds the pixel budget", width, height);
            apc_report_add_warning(call->report, line);
        }
        call->image_refused = 1;
        svg.gdk_pixbuf_loader_set_size(loader, 0, 0);
    }
}

static void apc_svg_install_hooks(void) {
    static const char *const domains[] = {"librsvg", "GLib", "GLib-GObject", "GLib-GIO", "Pango", "GdkPixbuf"};
    for (size_t i = 0; i < sizeof domains / sizeof domains[0]; i++) {
        svg.g_log_set_handler(domains[i], APC_G_LOG_LEVEL_MASK | APC_G_LOG_FLAG_FATAL | APC_G_LOG_FLAG_RECURSION,
                              apc_svg_log, NULL);
    }
    // The class must exist (its class_init creates the signal) before its handler is replaced;
    // the reference is kept for the life of the process.
    GType loader_type = svg.gdk_pixbuf_loader_get_type();
    svg.g_type_class_ref(loader_type);
    svg.g_signal_override_class_handler("size-prepared", loader_type, (GCallback)apc_svg_size_prepared);
}

/// Opens librsvg (once), installs the hooks (once) and makes `call` this thread's call; 0 when
/// librsvg cannot be opened.
static int apc_svg_enter(apc_svg_call *call, const apc_limits *limits, apc_report *report) {
    memset(call, 0, sizeof *call);
    call->report = report;
    call->max_pixels = limits != NULL ? limits->max_pixels : 0;
    if (!apc_library_open(&svg_library, report)) return 0;
    pthread_once(&apc_svg_hooks_once, apc_svg_install_hooks);
    apc_svg_current = call;
    return 1;
}

/// Ends the call; a refused embedded image turns `status` into APC_ERR_TOO_LARGE.
static int32_t apc_svg_leave(apc_svg_call *call, int32_t status) {
    apc_svg_current = NULL;
    if (call->image_refused) {
        apc_report_set_message(call->report, "an image embedded in the SVG exceeds the pixel budget");
        return APC_ERR_TOO_LARGE;
    }
    return status;
}

/// Copies a GError's message into the report (with `prefix`) and frees it.
static void apc_svg_take_error(GError *error, const char *prefix, apc_report *report) {
    char message[APC_MESSAGE_CAPACITY];
    const char *text = error != NULL && error->message != NULL && error->message[0] != '\0' ? error->message
                                                                                         : "no reason given";
    snprintf(message, sizeof message, "%s: %s", prefix, text);
    for (char *c = message; *c; c++) {
        if (*c == '\n') *c = ' ';
    }
    apc_report_set_message(report, message);
    if (error != NULL) svg.g_error_free(error);
}

// --- The pre-scan. librsvg's own limits are far past what a server can afford: a document of
// 1,000,000 elements (its limit) takes 5.6 s and 2.3 GB to refuse; internal entities multiply
// elements (33 KB of "&a;" references to a 1000-element entity took 29 s and 1.7 GB, below every
// libxml2 and librsvg limit); an SVG in a data: URL is parsed by a nested librsvg with the same
// limits; a PNG in a data: URL is inflated whole even when gdk-pixbuf refuses its size (a 1 MB
// payload inflating to 1 GB took 4 s). Before librsvg sees the input, this file therefore reads
// it as libxml2 will: SVGZ inflated, internal general entities expanded (their literals' character
// references decoded, as XML does at declaration), start tags counted, and every data: URL
// decoded; an XML or gzip payload is scanned the same way (nesting counts against the same
// limits), a PNG's IHDR size is checked against the budget. What it cannot follow it refuses:
// parameter entities (they can declare entities this reading would miss) and documents nested
// too deeply. The count is an upper bound (a '<' in a comment or CDATA counts too).

/// Elements of a document, entity expansions and nested data: documents included.
#define APC_SVG_MAX_ELEMENTS 100000u
/// Elements that come from entity expansions (librsvg parses them about ten times slower).
#define APC_SVG_MAX_ENTITY_ELEMENTS 20000u
/// Bytes of XML read in all: inflated SVGZ, expanded entities, nested documents.
#define APC_SVG_MAX_TEXT (64u << 20)
/// Nested data: documents and entity references within entity values.
#define APC_SVG_MAX_DEPTH 8
#define APC_SVG_MAX_ENTITIES 1024

typedef struct {
    apc_report *report;
    uint64_t max_pixels;
    uint64_t elements;
    uint64_t entity_elements;
    uint64_t text;            // bytes read or made so far
} apc_svg_scan;

typedef struct {
    const uint8_t *name;
    size_t name_length;
    uint8_t *value;           // replacement text (character references decoded), malloc'ed
    size_t value_length;
    int external;             // SYSTEM/PUBLIC: never loaded without a base URL
} apc_svg_entity;

typedef struct {
    uint8_t *bytes;
    size_t length;
    size_t capacity;
} apc_svg_buffer;

static int32_t apc_svg_fail(apc_svg_scan *scan, int32_t status, const char *message) {
    apc_report_set_message(scan->report, message);
    return status;
}

static int32_t apc_svg_append(apc_svg_scan *scan, apc_svg_buffer *buffer, const uint8_t *bytes, size_t length) {
    // Nothing to add (an empty run of text): memcpy must not see the NULL of a buffer not grown yet
    // (found by `scripts/fuzz svg-c` under UndefinedBehaviorSanitizer).
    if (length == 0) return APC_OK;
    if (length > APC_SVG_MAX_TEXT - buffer->length || scan->text + length > APC_SVG_MAX_TEXT) {
        return apc_svg_fail(scan, APC_ERR_TOO_LARGE, "the SVG expands to more than 64 MB of XML");
    }
    if (buffer->length + length > buffer->capacity) {
        size_t capacity = buffer->capacity ? buffer->capacity : 4096;
        while (capacity < buffer->length + length) capacity *= 2;
        uint8_t *grown = realloc(buffer->bytes, capacity);
        if (grown == NULL) return apc_svg_fail(scan, APC_ERR_TOO_LARGE, "out of memory reading the SVG");
        buffer->bytes = grown;
        buffer->capacity = capacity;
    }
    memcpy(buffer->bytes + buffer->length, bytes, length);
    buffer->length += length;
    scan->text += length;
    return APC_OK;
}

static int apc_svg_is_name_char(uint8_t c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == ':' ||
           c == '-' || c == '.' || c >= 0x80;
}

static int apc_svg_is_space(uint8_t c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

/// Parses a character reference "&#...;" at `p` (p[0] == '&'); its code point, or -1.
static long apc_svg_char_ref(const uint8_t *p, const uint8_t *end, size_t *consumed) {
    if (end - p < 4 || p[1] != '#') return -1;
    const uint8_t *q = p + 2;
    int hex = 0;
    if (*q == 'x') {
        hex = 1;
        q++;
    }
    long value = 0;
    const uint8_t *digits = q;
    while (q < end && q - digits < 8) {
        uint8_t c = *q;
        int digit = c >= '0' && c <= '9' ? c - '0'
                    : hex && c >= 'a' && c <= 'f' ? c - 'a' + 10
                    : hex && c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
        if (digit < 0) break;
        value = value * (hex ? 16 : 10) + digit;
        q++;
    }
    if (q == digits || q >= end || *q != ';' || value > 0x10FFFF) return -1;
    *consumed = (size_t)(q + 1 - p);
    return value;
}

static size_t apc_svg_utf8(long c, uint8_t out[4]) {
    if (c < 0x80) { out[0] = (uint8_t)c; return 1; }
    if (c < 0x800) { out[0] = (uint8_t)(0xC0 | (c >> 6)); out[1] = (uint8_t)(0x80 | (c & 0x3F)); return 2; }
    if (c < 0x10000) {
        out[0] = (uint8_t)(0xE0 | (c >> 12)); out[1] = (uint8_t)(0x80 | ((c >> 6) & 0x3F));
        out[2] = (uint8_t)(0x80 | (c & 0x3F)); return 3;
    }
    out[0] = (uint8_t)(0xF0 | (c >> 18)); out[1] = (uint8_t)(0x80 | ((c >> 12) & 0x3F));
    out[2] = (uint8_t)(0x80 | ((c >> 6) & 0x3F)); out[3] = (uint8_t)(0x80 | (c & 0x3F)); return 4;
}

/// Reads the internal DTD subset, if any, into `entities`; `*body` is set to where the document
/// after it starts (0 without one).
static int32_t apc_svg_read_dtd(const uint8_t *text, size_t length, apc_svg_entity *entities, size_t *count,
                                size_t *body, apc_svg_scan *scan) {
    *count = 0;
    *body = 0;
    const uint8_t *end = text + length;
    const uint8_t *p = text;
    // The prolog: a DOCTYPE comes before the first element.
    const uint8_t *doctype = NULL;
    while (p < end) {
        const uint8_t *lt = memchr(p, '<', (size_t)(end - p));
        if (lt == NULL || end - lt < 2) return APC_OK;
        if (lt[1] == '?' || (end - lt >= 4 && memcmp(lt, "<!--", 4) == 0)) {
            const char *close = lt[1] == '?' ? "?>" : "-->";
            size_t close_length = strlen(close);
            const uint8_t *q = lt + 2;
            while (q + close_length <= end && memcmp(q, close, close_length) != 0) q++;
            p = q + close_length;
            continue;
        }
        if (end - lt >= 9 && memcmp(lt, "<!DOCTYPE", 9) == 0) doctype = lt + 9;
        break;
    }
    if (doctype == NULL) return APC_OK;
    // Up to '[' or the end of the DOCTYPE, past quoted identifiers.
    p = doctype;
    while (p < end && *p != '[' && *p != '>') {
        if (*p == '"' || *p == '\'') {
            const uint8_t *q = memchr(p + 1, *p, (size_t)(end - p - 1));
            if (q == NULL) return APC_OK;
            p = q;
        }
        p++;
    }
    if (p >= end || *p == '>') {
        *body = p < end ? (size_t)(p + 1 - text) : length;
        return APC_OK;
    }
    p++;  // past '['
    while (p < end) {
        if (apc_svg_is_space(*p)) { p++; continue; }
        if (*p == ']') {
            const uint8_t *q = memchr(p, '>', (size_t)(end - p));
            *body = q ? (size_t)(q + 1 - text) : length;
            return APC_OK;
        }
        if (*p == '%') return apc_svg_fail(scan, APC_ERR_UNSUPPORTED, "SVG with DTD parameter entities are not read");
        if (end - p >= 4 && memcmp(p, "<!--", 4) == 0) {
            const uint8_t *q = p + 4;
            while (q + 3 <= end && memcmp(q, "-->", 3) != 0) q++;
            p = q + 3;
            continue;
        }
        if (end - p >= 2 && memcmp(p, "<?", 2) == 0) {
            const uint8_t *q = p + 2;
            while (q + 2 <= end && memcmp(q, "?>", 2) != 0) q++;
            p = q + 2;
            continue;
        }
        if (*p != '<') { p++; continue; }
        int entity = end - p >= 8 && memcmp(p, "<!ENTITY", 8) == 0;
        const uint8_t *q = p + 2;
        if (entity) {
            q = p + 8;
            while (q < end && apc_svg_is_space(*q)) q++;
            if (q < end && *q == '%') {
                return apc_svg_fail(scan, APC_ERR_UNSUPPORTED, "SVG with DTD parameter entities are not read");
            }
            const uint8_t *name = q;
            while (q < end && apc_svg_is_name_char(*q)) q++;
            size_t name_length = (size_t)(q - name);
            while (q < end && apc_svg_is_space(*q)) q++;
            if (*count >= APC_SVG_MAX_ENTITIES) return apc_svg_fail(scan, APC_ERR_TOO_LARGE, "too many entities in the SVG's DTD");
            apc_svg_entity *e = &entities[*count];
            memset(e, 0, sizeof *e);
            e->name = name;
            e->name_length = name_length;
            if (q < end && (*q == '"' || *q == '\'')) {
                const uint8_t *close = memchr(q + 1, *q, (size_t)(end - q - 1));
                if (close == NULL) return APC_OK;  // libxml2 will fail on it
                // The replacement text: character references decoded, entity references kept.
                apc_svg_buffer value = {NULL, 0, 0};
                const uint8_t *r = q + 1;
                while (r < close) {
                    size_t used = 0;
                    long c = *r == '&' ? apc_svg_char_ref(r, close, &used) : -1;
                    int32_t status;
                    if (c >= 0) {
                        uint8_t utf8[4];
                        status = apc_svg_append(scan, &value, utf8, apc_svg_utf8(c, utf8));
                        r += used;
                    } else {
                        status = apc_svg_append(scan, &value, r, 1);
                        r++;
                    }
                    if (status != APC_OK) { free(value.bytes); return status; }
                }
                e->value = value.bytes;
                e->value_length = value.length;
                q = close + 1;
            } else {
                e->external = 1;
            }
            if (name_length > 0) *count += 1;
            else free(e->value);
        }
        // To the end of the declaration, past quoted strings.
        while (q < end && *q != '>') {
            if (*q == '"' || *q == '\'') {
                const uint8_t *close = memchr(q + 1, *q, (size_t)(end - q - 1));
                if (close == NULL) return APC_OK;
                q = close;
            }
            q++;
        }
        p = q + 1;
    }
    *body = length;
    return APC_OK;
}

/// Appends `text` with every reference to an internal entity replaced by its expansion.
static int32_t apc_svg_expand(const uint8_t *text, size_t length, const apc_svg_entity *entities, size_t count,
                              int depth, apc_svg_buffer *out, apc_svg_scan *scan) {
    if (depth > APC_SVG_MAX_DEPTH) return apc_svg_fail(scan, APC_ERR_CORRUPT, "the SVG's entities nest too deeply");
    const uint8_t *p = text, *end = text + length;
    while (p < end) {
        const uint8_t *amp = count > 0 ? memchr(p, '&', (size_t)(end - p)) : NULL;
        const uint8_t *stop = amp ? amp : end;
        int32_t status = apc_svg_append(scan, out, p, (size_t)(stop - p));
        if (status != APC_OK || amp == NULL) return status;
        const uint8_t *q = amp + 1;
        while (q < end && apc_svg_is_name_char(*q)) q++;
        const apc_svg_entity *found = NULL;
        if (q < end && *q == ';' && q > amp + 1) {
            for (size_t i = 0; i < count && found == NULL; i++) {
                if (entities[i].name_length == (size_t)(q - amp - 1) &&
                    memcmp(entities[i].name, amp + 1, entities[i].name_length) == 0) {
                    found = &entities[i];
                }
            }
        }
        if (found == NULL || found->external) {
            status = apc_svg_append(scan, out, amp, 1);
            p = amp + 1;
        } else {
            status = apc_svg_expand(found->value, found->value_length, entities, count, depth + 1, out, scan);
            p = q + 1;
        }
        if (status != APC_OK) return status;
    }
    return APC_OK;
}

/// Start tags ('<' and a name) in `text`.
static uint64_t apc_svg_count_tags(const uint8_t *text, size_t length) {
    if (length == 0) return 0;  // text may be NULL then, which memchr must not see (scripts/fuzz svg-c, UBSan)
    uint64_t tags = 0;
    const uint8_t *p = text, *end = text + length;
    while ((p = memchr(p, '<', (size_t)(end - p))) != NULL) {
        p++;
        if (p < end && *p != '/' && *p != '!' && *p != '?' && !apc_svg_is_space(*p)) tags++;
    }
    return tags;
}

static int32_t apc_svg_scan_document(const uint8_t *data, size_t length, int depth, apc_svg_scan *scan);

static int apc_svg_base64_value(uint8_t c) {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+' || c == '-') return 62;
    if (c == '/' || c == '_') return 63;
    return -1;
}

/// Decodes the data: URL whose "data:" starts at `p` (within `text`) and scans what it holds.
static int32_t apc_svg_scan_data_url(const uint8_t *text, const uint8_t *p, const uint8_t *end, int depth,
                                     apc_svg_scan *scan) {
    uint8_t closer = 0;  // the attribute's quote, or ')' after "url("
    if (p > text && (p[-1] == '"' || p[-1] == '\'')) closer = p[-1];
    else if (p > text && p[-1] == '(') closer = ')';
    const uint8_t *q = p + 5;
    const uint8_t *comma = NULL;
    for (const uint8_t *r = q; r < end && r - q < 512; r++) {
        if (*r == ',') { comma = r; break; }
        if (*r == '"' || *r == '\'' || *r == '<' || *r == '>') break;
    }
    if (comma == NULL) return APC_OK;
    int base64 = 0;
    for (const uint8_t *r = q; r + 7 <= comma; r++) {
        if (strncasecmp((const char *)r, ";base64", 7) == 0) base64 = 1;
    }
    apc_svg_buffer payload = {NULL, 0, 0};
    uint8_t chunk[256];
    size_t used_chunk = 0;
    uint32_t bits = 0;
    int nbits = 0;
    int32_t status = APC_OK;
    for (const uint8_t *r = comma + 1; r < end && status == APC_OK;) {
        uint8_t c = *r;
        long decoded = -1;
        size_t used = 1;
        if (closer != 0 && c == closer) break;
        if (c == '"' || c == '\'' || c == '<') break;
        if (c == '&') {
            decoded = apc_svg_char_ref(r, end, &used);
            if (decoded < 0) {
                static const struct { const char *name; uint8_t c; } predefined[] = {
                    {"&lt;", '<'}, {"&gt;", '>'}, {"&amp;", '&'}, {"&quot;", '"'}, {"&apos;", '\''}};
                for (size_t i = 0; i < 5 && decoded < 0; i++) {
                    size_t n = strlen(predefined[i].name);
                    if ((size_t)(end - r) >= n && memcmp(r, predefined[i].name, n) == 0) {
                        decoded = predefined[i].c;
                        used = n;
                    }
                }
            }
            if (decoded < 0) break;
        } else {
            decoded = c;
        }
        r += used;
        uint8_t bytes[4];
        size_t n = 0;
        if (base64) {
            if (decoded < 0x80 && apc_svg_is_space((uint8_t)decoded)) continue;
            if (decoded == '=') continue;
            int v = decoded < 0x80 ? apc_svg_base64_value((uint8_t)decoded) : -1;
            if (v < 0) break;
            bits = (bits << 6) | (uint32_t)v;
            nbits += 6;
            if (nbits >= 8) {
                nbits -= 8;
                bytes[n++] = (uint8_t)(bits >> nbits);
            }
        } else if (decoded == '%' && end - r >= 2 && isxdigit(r[0]) && isxdigit(r[1])) {
            char hex[3] = {(char)r[0], (char)r[1], 0};
            bytes[n++] = (uint8_t)strtol(hex, NULL, 16);
            r += 2;
        } else {
            if (closer == ')' && decoded == ')') break;
            n = apc_svg_utf8(decoded, bytes);
        }
        if (used_chunk + n > sizeof chunk) {
            status = apc_svg_append(scan, &payload, chunk, used_chunk);
            used_chunk = 0;
        }
        memcpy(chunk + used_chunk, bytes, n);
        used_chunk += n;
    }
    if (status == APC_OK) status = apc_svg_append(scan, &payload, chunk, used_chunk);
    if (status == APC_OK && payload.length > 0) {
        const uint8_t *b = payload.bytes;
        size_t n = payload.length;
        size_t skip = n >= 3 && b[0] == 0xEF && b[1] == 0xBB && b[2] == 0xBF ? 3 : 0;
        while (skip < n && apc_svg_is_space(b[skip])) skip++;
        if (n >= 24 && memcmp(b, "\x89PNG\r\n\x1a\n", 8) == 0 && memcmp(b + 12, "IHDR", 4) == 0) {
            uint64_t w = ((uint32_t)b[16] << 24) | ((uint32_t)b[17] << 16) | ((uint32_t)b[18] << 8) | b[19];
            uint64_t h = ((uint32_t)b[20] << 24) | ((uint32_t)b[21] << 16) | ((uint32_t)b[22] << 8) | b[23];
            if (scan->max_pixels != 0 && w * h > scan->max_pixels) {
                status = apc_svg_fail(scan, APC_ERR_TOO_LARGE, "a PNG embedded in the SVG exceeds the pixel budget");
            }
        } else if ((n >= 2 && b[0] == 0x1F && b[1] == 0x8B) || (skip < n && b[skip] == '<')) {
            status = apc_svg_scan_document(b, n, depth + 1, scan);
        }
    }
    free(payload.bytes);
    return status;
}

/// Inflates gzip data whole (at most APC_SVG_MAX_TEXT bytes) into `out`.
static int32_t apc_svg_inflate(const uint8_t *data, size_t length, apc_svg_buffer *out, apc_svg_scan *scan) {
    z_stream stream;
    memset(&stream, 0, sizeof stream);
    if (inflateInit2(&stream, 16 + MAX_WBITS) != Z_OK) return apc_svg_fail(scan, APC_ERR_TOO_LARGE, "cannot start zlib");
    stream.next_in = (Bytef *)data;
    stream.avail_in = length > 0xFFFFFFFFu ? 0xFFFFFFFFu : (uInt)length;
    uint8_t chunk[65536];
    int32_t status = APC_OK;
    for (;;) {
        stream.next_out = chunk;
        stream.avail_out = sizeof chunk;
        int z = inflate(&stream, Z_NO_FLUSH);
        status = apc_svg_append(scan, out, chunk, sizeof chunk - stream.avail_out);
        if (status != APC_OK) break;
        if (z == Z_STREAM_END) break;
        if (z == Z_BUF_ERROR || (z == Z_OK && stream.avail_in == 0 && stream.avail_out != 0)) {
            status = apc_svg_fail(scan, APC_ERR_TRUNCATED, "the SVGZ's gzip data ends early");
            break;
        }
        if (z != Z_OK) {
            status = apc_svg_fail(scan, APC_ERR_CORRUPT, "the SVGZ's gzip data is corrupt");
            break;
        }
    }
    inflateEnd(&stream);
    return status;
}

/// Scans a document (SVG text, or gzip-compressed) for the limits above.
static int32_t apc_svg_scan_document(const uint8_t *data, size_t length, int depth, apc_svg_scan *scan) {
    if (depth > APC_SVG_MAX_DEPTH) {
        return apc_svg_fail(scan, APC_ERR_UNSUPPORTED, "data: documents nested too deeply in the SVG");
    }
    if (length >= 2 && data[0] == 0x1F && data[1] == 0x8B) {
        apc_svg_buffer inflated = {NULL, 0, 0};
        int32_t status = apc_svg_inflate(data, length, &inflated, scan);
        if (status == APC_OK) status = apc_svg_scan_document(inflated.bytes, inflated.length, depth + 1, scan);
        free(inflated.bytes);
        return status;
    }
    // The scan reads ASCII-compatible encodings (UTF-8, Latin-1, windows-125x...): a UTF-16 or
    // UTF-32 document (a byte-order mark, or a NUL among its first bytes) would hide its data:
    // URLs from it, and is refused.
    if ((length >= 2 && ((data[0] == 0xFE && data[1] == 0xFF) || (data[0] == 0xFF && data[1] == 0xFE))) ||
        memchr(data, 0, length < 4 ? length : 4) != NULL) {
        return apc_svg_fail(scan, APC_ERR_UNSUPPORTED, "UTF-16 and UTF-32 SVG documents are not read");
    }
    apc_svg_entity *entities = malloc(APC_SVG_MAX_ENTITIES * sizeof *entities);
    if (entities == NULL) return apc_svg_fail(scan, APC_ERR_TOO_LARGE, "out of memory reading the SVG");
    size_t count = 0, body = 0;
    int32_t status = apc_svg_read_dtd(data, length, entities, &count, &body, scan);
    apc_svg_buffer expanded = {NULL, 0, 0};
    const uint8_t *text = data + body;
    size_t text_length = length - body;
    if (status == APC_OK && count > 0) {
        status = apc_svg_expand(text, text_length, entities, count, 0, &expanded, scan);
        text = expanded.bytes;
        text_length = expanded.length;
    }
    if (status == APC_OK) {
        uint64_t direct = apc_svg_count_tags(data + body, length - body);
        uint64_t all = count > 0 ? apc_svg_count_tags(text, text_length) : direct;
        scan->elements += all;
        scan->entity_elements += all - direct;
        if (scan->elements > APC_SVG_MAX_ELEMENTS) {
            status = apc_svg_fail(scan, APC_ERR_TOO_LARGE, "the SVG has more than 100000 elements");
        } else if (scan->entity_elements > APC_SVG_MAX_ENTITY_ELEMENTS) {
            status = apc_svg_fail(scan, APC_ERR_TOO_LARGE, "the SVG's entities expand to more than 20000 elements");
        }
    }
    // Every data: URL (case-insensitive scheme).
    const uint8_t *end = text + text_length;
    for (const uint8_t *p = text; status == APC_OK && p != NULL && end - p >= 5; p++) {
        p = memchr(p, ':', (size_t)(end - p));
        if (p == NULL) break;
        if (p - text >= 4 && strncasecmp((const char *)p - 4, "data", 4) == 0) {
            status = apc_svg_scan_data_url(text, p - 4, end, depth, scan);
        }
    }
    for (size_t i = 0; i < count; i++) free(entities[i].value);
    free(entities);
    free(expanded.bytes);
    return status;
}

/// A loaded document and its natural size in pixels (fractional), as rsvg-convert computes it.
typedef struct {
    RsvgHandle *handle;
    double width;
    double height;
    uint32_t pixel_width;   // ceil(width): the size of rsvg-convert's PNG
    uint32_t pixel_height;
} apc_svg_document;

/// Parses the SVG (or SVGZ) and computes its natural size. On success the caller unrefs
/// `document->handle`.
static int32_t apc_svg_load(const uint8_t *data, size_t length, uint64_t max_pixels, apc_svg_document *document,
                            apc_report *report) {
    memset(document, 0, sizeof *document);
    if (length == 0) {
        apc_report_set_message(report, "empty input");
        return APC_ERR_TRUNCATED;
    }
    apc_svg_scan scan = {report, max_pixels, 0, 0, 0};
    int32_t scanned = apc_svg_scan_document(data, length, 0, &scan);
    if (scanned != APC_OK) return scanned;
    GError *error = NULL;
    RsvgHandle *handle = svg.rsvg_handle_new_from_data(data, length, &error);
    if (handle == NULL) {
        // libxml2 says "Premature end of data" for a document that stops inside an element.
        int ended_early = error != NULL && error->message != NULL &&
                          strstr(error->message, "Premature end of data") != NULL;
        apc_svg_take_error(error, "cannot parse the SVG", report);
        return ended_early ? APC_ERR_TRUNCATED : APC_ERR_CORRUPT;
    }
    if (error != NULL) svg.g_error_free(error);
    svg.rsvg_handle_set_dpi(handle, APC_SVG_DPI);

    // rsvg-convert's natural size (its CairoRenderer::legacy_layer_geometry(None)): the width
    // and height attributes in pixels when both have absolute or font units; else, with a
    // viewBox, its size (both percentages) or the absolute one and the viewBox's aspect ratio;
    // else the ink extents of the whole drawing. The C API's rsvg_handle_get_intrinsic_size_in_pixels
    // is the first step; the deprecated rsvg_handle_get_dimensions runs the whole chain and leaves
    // its unrounded result in the `em` and `ex` fields (0 when it fails).
    double width = 0, height = 0;
    if (!svg.rsvg_handle_get_intrinsic_size_in_pixels(handle, &width, &height)) {
        RsvgDimensionData dimensions = {0, 0, 0, 0};
        svg.rsvg_handle_get_dimensions(handle, &dimensions);
        width = dimensions.em;
        height = dimensions.ex;
    }
    if (!isfinite(width) || !isfinite(height) || !(width > 0) || !(height > 0)) {
        svg.g_object_unref(handle);
        // rsvg-convert: "The SVG has no dimensions" (zero width or height, or a size that
        // librsvg could not measure: past 2^31 pixels, or nothing drawn and no size given).
        apc_report_set_message(report, "the SVG has no usable size (zero, unknown, or past 2^31 pixels)");
        return APC_ERR_CORRUPT;
    }
    // Rounded up as rsvg-convert does (a partly covered last pixel is kept).
    double pixel_width = ceil(width), pixel_height = ceil(height);
    if (pixel_width > UINT32_MAX || pixel_height > UINT32_MAX) {
        svg.g_object_unref(handle);
        apc_report_set_message(report, "the SVG's declared size exceeds the pixel budget");
        return APC_ERR_TOO_LARGE;
    }
    document->handle = handle;
    document->width = width;
    document->height = height;
    document->pixel_width = (uint32_t)pixel_width;
    document->pixel_height = (uint32_t)pixel_height;
    return APC_OK;
}

/// The caller's limits on a side (0: none).
static int apc_svg_exceeds_limits(const apc_limits *limits, uint32_t width, uint32_t height) {
    if (apc_too_many_pixels(limits, width, height)) return 1;
    return limits != NULL && ((limits->max_width != 0 && width > limits->max_width) ||
                              (limits->max_height != 0 && height > limits->max_height));
}

static int32_t apc_svg_check_page(int32_t page, apc_report *report) {
    if (page == -1 || page == 0) return APC_OK;
    apc_report_set_message(report, "an SVG has one image: page must be -1 or 0");
    return APC_ERR_INVALID_ARGUMENT;
}

int32_t apc_svg_read_header(const uint8_t *data, size_t length, const apc_limits *limits, int32_t page,
                            apc_header *header, apc_report *report) {
    apc_report_reset(report);
    if (data == NULL || header == NULL) {
        apc_report_set_message(report, "no input or no header");
        return APC_ERR_INVALID_ARGUMENT;
    }
    memset(header, 0, sizeof *header);
    int32_t status = apc_svg_check_page(page, report);
    if (status != APC_OK) return status;
    apc_svg_call call;
    if (!apc_svg_enter(&call, limits, report)) return APC_ERR_UNSUPPORTED;
    apc_svg_document document;
    status = apc_svg_load(data, length, call.max_pixels, &document, report);
    if (status == APC_OK) svg.g_object_unref(document.handle);
    status = apc_svg_leave(&call, status);
    if (status != APC_OK) return status;

    header->format = APC_FORMAT_SVG;
    header->width = document.pixel_width;
    header->height = document.pixel_height;
    header->output_width = document.pixel_width;
    header->output_height = document.pixel_height;
    header->channels = 4;
    header->bit_depth = 8;
    header->color_space = APC_COLOR_RGBA;
    header->has_alpha = 1;
    if (apc_svg_exceeds_limits(limits, document.pixel_width, document.pixel_height)) {
        apc_report_set_message(report, "the SVG's declared size exceeds the pixel budget");
        return APC_ERR_TOO_LARGE;
    }
    // A decode at this size could not be drawn (rsvg-convert fails the same way); a smaller
    // decode could, but the header is where a caller learns that the size is unusable.
    if (document.pixel_width > APC_SVG_MAX_SIDE || document.pixel_height > APC_SVG_MAX_SIDE) {
        apc_report_set_message(report, "the SVG's size exceeds 32767 pixels on a side, cairo's limit");
        return APC_ERR_TOO_LARGE;
    }
    return APC_OK;
}

/// Premultiplied native-endian ARGB32 to straight RGBA, in place, as cairo's PNG writer
/// (cairo-png.c, unpremultiply_data) does it: (c * 255 + a / 2) / a, and all zero where a is 0.
static void apc_svg_unpremultiply(uint8_t *pixels, size_t row_bytes, uint32_t width, uint32_t height) {
    for (uint32_t y = 0; y < height; y++) {
        uint8_t *p = pixels + (size_t)y * row_bytes;
        for (uint32_t x = 0; x < width; x++, p += 4) {
            uint32_t pixel;
            memcpy(&pixel, p, 4);
            uint32_t alpha = pixel >> 24;
            if (alpha == 0) {
                p[0] = p[1] = p[2] = p[3] = 0;
            } else if (alpha == 255) {
                p[0] = (uint8_t)(pixel >> 16);
                p[1] = (uint8_t)(pixel >> 8);
                p[2] = (uint8_t)pixel;
                p[3] = 255;
            } else {
                p[0] = (uint8_t)((((pixel >> 16) & 0xff) * 255 + alpha / 2) / alpha);
                p[1] = (uint8_t)((((pixel >> 8) & 0xff) * 255 + alpha / 2) / alpha);
                p[2] = (uint8_t)(((pixel & 0xff) * 255 + alpha / 2) / alpha);
                p[3] = (uint8_t)alpha;
            }
        }
    }
}

int32_t apc_svg_decode_rgba(const uint8_t *data, size_t length, const apc_limits *limits, int32_t page,
                            uint32_t width, uint32_t height, uint8_t *pixels, size_t row_bytes, size_t capacity,
                            apc_report *report) {
    apc_report_reset(report);
    if (data == NULL || pixels == NULL || !apc_output_fits(width, height, row_bytes, capacity)) {
        apc_report_set_message(report, "the output buffer does not fit the image");
        return APC_ERR_INVALID_ARGUMENT;
    }
    // cairo draws 32-bit pixels in place: rows must start on 4-byte boundaries.
    if (row_bytes % 4 != 0 || row_bytes > INT32_MAX || ((uintptr_t)pixels & 3) != 0) {
        apc_report_set_message(report, "SVG output rows must be 4-byte aligned (row_bytes a multiple of 4)");
        return APC_ERR_INVALID_ARGUMENT;
    }
    int32_t status = apc_svg_check_page(page, report);
    if (status != APC_OK) return status;
    if (apc_svg_exceeds_limits(limits, width, height)) {
        apc_report_set_message(report, "the requested size exceeds the pixel budget");
        return APC_ERR_TOO_LARGE;
    }
    if (width > APC_SVG_MAX_SIDE || height > APC_SVG_MAX_SIDE) {
        apc_report_set_message(report, "the requested size exceeds 32767 pixels on a side, cairo's limit");
        return APC_ERR_TOO_LARGE;
    }
    apc_svg_call call;
    if (!apc_svg_enter(&call, limits, report)) return APC_ERR_UNSUPPORTED;
    apc_svg_document document;
    status = apc_svg_load(data, length, call.max_pixels, &document, report);
    if (status != APC_OK) return apc_svg_leave(&call, status);

    for (uint32_t y = 0; y < height; y++) memset(pixels + (size_t)y * row_bytes, 0, (size_t)width * 4);
    cairo_surface_t *surface = svg.cairo_image_surface_create_for_data(pixels, APC_CAIRO_FORMAT_ARGB32, (int)width,
                                                                       (int)height, (int)row_bytes);
    cairo_status_t cairo_status = svg.cairo_surface_status(surface);
    cairo_t *cr = NULL;
    if (cairo_status == APC_CAIRO_STATUS_SUCCESS) {
        cr = svg.cairo_create(surface);
        cairo_status = svg.cairo_status(cr);
    }
    if (cairo_status != APC_CAIRO_STATUS_SUCCESS) {
        char message[APC_MESSAGE_CAPACITY];
        snprintf(message, sizeof message, "cairo: %s", svg.cairo_status_to_string(cairo_status));
        apc_report_set_message(report, message);
        if (cr != NULL) svg.cairo_destroy(cr);
        svg.cairo_surface_destroy(surface);
        svg.g_object_unref(document.handle);
        return apc_svg_leave(&call, APC_ERR_TOO_LARGE);
    }
    // As rsvg-convert: the viewport is the natural size and the context's transform stretches it
    // to the output (not proportionally: SVG itself would fit the drawing into the viewport
    // keeping its aspect ratio). At the natural size (the header's) the scale is exactly 1, as
    // rsvg-convert without -w/-h; at any other size it is that of `rsvg-convert -w W -h H`.
    if (width != document.pixel_width || height != document.pixel_height) {
        svg.cairo_scale(cr, (double)width / document.width, (double)height / document.height);
    }
    RsvgRectangle viewport = {0.0, 0.0, document.width, document.height};
    GError *error = NULL;
    gboolean rendered = svg.rsvg_handle_render_document(document.handle, cr, &viewport, &error);
    svg.cairo_destroy(cr);
    svg.cairo_surface_flush(surface);
    svg.cairo_surface_destroy(surface);
    svg.g_object_unref(document.handle);
    if (!rendered) {
        apc_svg_take_error(error, "cannot render the SVG", report);
        return apc_svg_leave(&call, APC_ERR_CORRUPT);
    }
    if (error != NULL) svg.g_error_free(error);
    status = apc_svg_leave(&call, APC_OK);
    if (status != APC_OK) return status;
    apc_svg_unpremultiply(pixels, row_bytes, width, height);
    return APC_OK;
}

int32_t apc_svg_read_metadata(const uint8_t *data, size_t length, const apc_limits *limits, int32_t page,
                              apc_metadata *metadata, apc_report *report) {
    (void)limits;
    apc_report_reset(report);
    if (data == NULL || metadata == NULL) {
        apc_report_set_message(report, "no input or no metadata");
        return APC_ERR_INVALID_ARGUMENT;
    }
    memset(metadata, 0, sizeof *metadata);
    int32_t status = apc_svg_check_page(page, report);
    if (status != APC_OK) return status;
    // An SVG carries no ICC profile or EXIF block: parsing it only to find none would cost a
    // whole XML parse, so nothing is read. (The input is still checked for being a document.)
    if (length == 0) {
        apc_report_set_message(report, "empty input");
        return APC_ERR_TRUNCATED;
    }
    return APC_OK;
}

static char apc_svg_version[64];

static void apc_svg_fill_version(void) {
    snprintf(apc_svg_version, sizeof apc_svg_version, "librsvg %u.%u.%u cairo %s", *svg.rsvg_major_version,
             *svg.rsvg_minor_version, *svg.rsvg_micro_version, svg.cairo_version_string());
}

/// "librsvg 2.54.7 cairo 1.16.0", or "" when librsvg cannot be opened.
const char *apc_svg_library_version(void) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    if (!apc_library_open(&svg_library, NULL)) return "";
    pthread_once(&once, apc_svg_fill_version);
    return apc_svg_version;
}
