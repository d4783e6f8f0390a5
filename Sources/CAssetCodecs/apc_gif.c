// GIF with the output of libvips' loader (libnsgif): the first frame composited onto libvips'
// canvas. giflib (DGifOpen over memory, DGifGetImageHeader) reads the screen descriptor and the
// colour tables; the LZW data are decoded here, as libnsgif reads them (apc_gif_lzw: giflib's
// DGifGetLine decodes some codes libnsgif refuses into other pixels). giflib never longjmps and
// prints nothing.
//
// The records (extensions, image descriptors, sub-blocks) are walked in memory, as libnsgif's scan
// walks them (apc_gif_next_frame), and giflib is positioned at a frame's descriptor for its colour
// table (apc_gif_enter_frame): giflib's own record calls read a few malformed files otherwise than
// libnsgif, and they cost more per frame (DGifGetImageHeader clears a 16 KB LZW table). DGifSlurp
// is not used (it keeps every frame's pixels: a GIF of 100,000 frames would cost gigabytes), nor
// DGifGetImageDesc (it appends every frame's descriptor and colour table to SavedImages). The walk
// keeps one frame's facts at a time; a later frame iterator reuses it, apc_gif_enter_frame and
// apc_gif_draw_frame.
//
// What libvips 8.18 does, and so does this file (each checked against pyvips on crafted files):
// - The canvas is the logical screen, except that a screen of 0 in either dimension, wider or
//   higher than 2048, or of one of the sizes 640x480, 640x512, 800x600, 1024x768, 1280x1024 and
//   1600x1200 (libnsgif takes these for "the creator's screen") counts as 1x1; the canvas then
//   grows to cover the first frame (its left + width, top + height). Later frames are clipped.
// - Pixels the first frame does not cover, its transparent index, and indices past its colour
//   table are (0,0,0,0). Without a global or local table the table is black, white, then nothing.
// - The output has alpha only when some frame of the file has a transparent index (a graphic
//   control extension's flag), or the first frame's data are cut short; else libvips gives three
//   bands and every pixel is opaque, (0,0,0,0) becoming opaque black.
// - The first frame's LZW data end early: at an end-of-information code or at the end of the
//   data. Either way the pixels that arrived are kept; a frame whose data run off the end of the
//   file is kept with a warning, as libvips does ("Unexpected end of GIF source data").
// - A bad LZW code before the last pixel fails the decode (libvips: "Invalid frame data"); the
//   pixels before it are decoded in the same pass (apc_gif_lzw).
// - The frame count is that of the image descriptors up to the trailer, the first record that is
//   not an extension or an image, or the end of the data (a last frame whose data have begun
//   counts), capped at APC_GIF_MAX_FRAMES.
// - The data start "GIF8" (libvips' test; giflib checks "GIF" only).
#include "CAssetCodecs.h"
#include "apc_checks.h"
#include "apc_library.h"
#include "apc_report.h"

#include <gif_lib.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/// The walk stops counting here: a count this high only says "very many".
#define APC_GIF_MAX_FRAMES 100000u
/// libvips refuses a canvas past 65536 pixels a side ("bad image dimensions").
#define APC_GIF_MAX_CANVAS 65536u

#define APC_GIF_STRING2(x) #x
#define APC_GIF_STRING(x) APC_GIF_STRING2(x)

const char *apc_gif_library_version(void) {
    return "giflib " APC_GIF_STRING(GIFLIB_MAJOR) "." APC_GIF_STRING(GIFLIB_MINOR) "." APC_GIF_STRING(GIFLIB_RELEASE);
}

// MARK: - Input

/// The input giflib reads through apc_gif_input: the caller's bytes, read up to `end`. When a
/// frame's data run off the end of the file, `end` is set to the end of its last whole sub-block
/// and `terminate` makes the next read see a 0 (the end of the sub-blocks), so that giflib reads
/// what libnsgif reads and stops cleanly there.
typedef struct {
    const uint8_t *data;
    size_t length;
    size_t offset;
    size_t end;
    int terminate;   // serve one 0x00 at `end`
    int ran_out;     // a read wanted bytes past the end of the data
} apc_gif_cursor;

static int apc_gif_input(GifFileType *gif, GifByteType *out, int count) {
    apc_gif_cursor *cursor = (apc_gif_cursor *)gif->UserData;
    if (count <= 0) return 0;
    size_t left = cursor->end - cursor->offset;
    if ((size_t)count <= left) {
        memcpy(out, cursor->data + cursor->offset, (size_t)count);
        cursor->offset += (size_t)count;
        return count;
    }
    if (left == 0 && cursor->terminate && count == 1) {
        cursor->terminate = 0;
        out[0] = 0;
        return 1;
    }
    memcpy(out, cursor->data + cursor->offset, left);
    cursor->offset += left;
    cursor->ran_out = 1;
    return (int)left;
}

// MARK: - The record walk

/// One frame as the walk finds it: its graphic control and its image descriptor.
typedef struct {
    uint32_t left, top, width, height;
    int interlaced;
    int has_transparency;     // a graphic control extension before it set the transparent flag
    uint32_t transparent;     // its index (the last flagged one), when has_transparency
    uint32_t disposal;        // 0-7 as written (libnsgif reads 4 as 3)
    uint32_t delay;           // centiseconds
    int has_control;          // a graphic control extension came before it
    size_t descriptor;        // just past its image separator: where DGifGetImageHeader reads
    uint8_t code_size;        // LZW minimum code size
    size_t data_offset;       // the first sub-block of its LZW data
    size_t data_end;          // the end of its last whole sub-block (its terminator's included)
    int complete;             // its sub-blocks end (with a 0) within the data
} apc_gif_frame;

/// A GIF being walked: giflib's handle over the cursor, the screen and canvas, and what the walk
/// has learned of the frames so far.
typedef struct {
    GifFileType *gif;
    apc_gif_cursor cursor;
    apc_report *report;
    uint32_t screen_width, screen_height;   // as declared
    uint32_t canvas_width, canvas_height;   // libvips' canvas (see the top of the file)
    size_t position;                        // where the walk reads the next record
    uint32_t frames;                        // frames met so far
    int any_transparency;                   // some frame met so far has a transparent index
    int stopped;                            // the walk has reached its end
    int truncated;                          // ... because the data ran out
    int capped;                             // ... because of APC_GIF_MAX_FRAMES
    int has_loop;                           // a NETSCAPE2.0 (or ANIMEXTS1.0) loop extension was met
    uint32_t loop;                          // ... and its count: 0 forever, n repeats after the first play
} apc_gif_reader;

static void apc_gif_message(apc_report *report, const char *what, int error) {
    const char *reason = GifErrorString(error);
    char message[APC_MESSAGE_CAPACITY];
    snprintf(message, sizeof message, "%s (%s)", what, reason ? reason : "unknown giflib error");
    apc_report_set_message(report, message);
}

/// libnsgif's canvas for a declared screen, before the first frame grows it.
static void apc_gif_screen_canvas(uint32_t width, uint32_t height, uint32_t *canvas_width, uint32_t *canvas_height) {
    static const uint16_t creator_screens[][2] = {
        {640, 480}, {640, 512}, {800, 600}, {1024, 768}, {1280, 1024}, {1600, 1200},
    };
    int replace = width == 0 || height == 0 || width > 2048 || height > 2048;
    for (size_t i = 0; i < sizeof creator_screens / sizeof creator_screens[0]; i++) {
        if (width == creator_screens[i][0] && height == creator_screens[i][1]) replace = 1;
    }
    *canvas_width = replace ? 1 : width;
    *canvas_height = replace ? 1 : height;
}

/// Whether a canvas of this size is over the caller's limits.
static int apc_gif_over_limits(const apc_limits *limits, uint32_t width, uint32_t height) {
    if (apc_too_many_pixels(limits, width, height)) return 1;
    if (limits == NULL) return 0;
    return (limits->max_width != 0 && width > limits->max_width) ||
           (limits->max_height != 0 && height > limits->max_height);
}

/// Opens the GIF and reads its screen descriptor (and global colour table); checks the canvas the
/// screen gives against the limits before anything else is read.
static int32_t apc_gif_open(apc_gif_reader *reader, const uint8_t *data, size_t length,
                            const apc_limits *limits, apc_report *report) {
    memset(reader, 0, sizeof *reader);
    reader->cursor = (apc_gif_cursor){data, length, 0, length, 0, 0};
    reader->report = report;
    // giflib checks "GIF" only; libvips takes "GIF8" (GIF87a, GIF89a) for a GIF.
    if (length < 4 || memcmp(data, "GIF8", 4) != 0) {
        int cut = length < 4 && memcmp(data, "GIF8", length) == 0;
        apc_report_set_message(report, cut ? "the GIF ends in its signature" : "not a GIF (no GIF87a or GIF89a signature)");
        return cut ? APC_ERR_TRUNCATED : APC_ERR_CORRUPT;
    }
    int error = 0;
    reader->gif = DGifOpen(&reader->cursor, apc_gif_input, &error);
    if (reader->gif == NULL) {
        if (error == D_GIF_ERR_NOT_ENOUGH_MEM) {
            apc_gif_message(report, "cannot open the GIF", error);
            return APC_ERR_TOO_LARGE;
        }
        apc_gif_message(report, "cannot read the GIF's screen descriptor", error);
        return reader->cursor.ran_out ? APC_ERR_TRUNCATED : APC_ERR_CORRUPT;
    }
    reader->position = reader->cursor.offset;
    reader->screen_width = (uint32_t)reader->gif->SWidth;
    reader->screen_height = (uint32_t)reader->gif->SHeight;
    apc_gif_screen_canvas(reader->screen_width, reader->screen_height, &reader->canvas_width, &reader->canvas_height);
    if (apc_gif_over_limits(limits, reader->canvas_width, reader->canvas_height)) {
        apc_report_set_message(report, "the GIF's screen exceeds the pixel budget");
        return APC_ERR_TOO_LARGE;
    }
    return APC_OK;
}

static void apc_gif_close(apc_gif_reader *reader) {
    if (reader->gif != NULL) {
        int error = 0;
        DGifCloseFile(reader->gif, &error);
        reader->gif = NULL;
    }
}

/// Ends the walk; `truncated` when the data ran out.
static int apc_gif_stop(apc_gif_reader *reader, int truncated) {
    reader->stopped = 1;
    reader->truncated = truncated;
    return 0;
}

/// Walks to the next frame in memory, as libnsgif's scan does (its reading of extensions is not
/// quite giflib's: it skips an extension's label, size byte and first block, then sub-blocks up
/// to a 0, so a first block of size 0 is followed by one more 0 there), and past its LZW data.
/// Returns 1 with the frame, or 0 at the end of the walk: the trailer, a record that is not an
/// extension or an image, a code size libnsgif refuses, or the end of the data (reader->truncated).
/// A frame whose data begin (two bytes past its code size) but run off the end counts, and ends
/// the walk. giflib reads nothing here: its handle is only positioned at a frame to decode it.
static int apc_gif_next_frame(apc_gif_reader *reader, apc_gif_frame *frame) {
    memset(frame, 0, sizeof *frame);
    if (reader->stopped) return 0;
    if (reader->frames >= APC_GIF_MAX_FRAMES) {
        reader->capped = 1;
        return apc_gif_stop(reader, 0);
    }
    const uint8_t *d = reader->cursor.data;
    size_t n = reader->cursor.length, p = reader->position;
    if (p < n && d[p] == 0x3b) return apc_gif_stop(reader, 0);
    while (p < n && d[p] == 0x21) {
        p += 1;
        if (p >= n) return apc_gif_stop(reader, 1);
        int first_block = 1;
        if (d[p] == 0xf9) {
            // The graphic control: bytes at fixed places after the label, whatever its size says.
            if (n - p < 6) return apc_gif_stop(reader, 1);
            frame->delay = (uint32_t)d[p + 3] | ((uint32_t)d[p + 4] << 8);
            frame->has_control = 1;
            frame->disposal = (d[p + 2] >> 2) & 0x07;
            if (d[p + 2] & 0x01) {
                frame->has_transparency = 1;
                frame->transparent = d[p + 5];
            }
        } else if (d[p] == 0xff) {
            if (n - p < 17) return apc_gif_stop(reader, 1);  // libnsgif reads a loop count there
            // The loop extension: an 11-byte application block, then a sub-block of 3 bytes, 1
            // and the count (little-endian). The last one met counts, as in libnsgif.
            if (d[p + 1] == 11 &&
                (memcmp(d + p + 2, "NETSCAPE2.0", 11) == 0 || memcmp(d + p + 2, "ANIMEXTS1.0", 11) == 0) &&
                d[p + 13] >= 3 && d[p + 14] == 1) {
                reader->has_loop = 1;
                reader->loop = (uint32_t)d[p + 15] | ((uint32_t)d[p + 16] << 8);
            }
        } else if (d[p] == 0xfe) {
            p += 1;  // a comment: sub-blocks right after the label
            first_block = 0;
        }
        if (first_block) {
            if (n - p < 2) return apc_gif_stop(reader, 1);
            p += 2 + (size_t)d[p + 1];
        }
        while (p < n && d[p] != 0) {
            p += (size_t)d[p] + 1;
            if (p >= n) return apc_gif_stop(reader, 1);
        }
        p += 1;
    }
    if (p > n) p = n;
    if (n - p < 10) return apc_gif_stop(reader, 1);
    if (d[p] != 0x2c) return apc_gif_stop(reader, 0);
    frame->descriptor = p + 1;
    frame->left = (uint32_t)d[p + 1] | ((uint32_t)d[p + 2] << 8);
    frame->top = (uint32_t)d[p + 3] | ((uint32_t)d[p + 4] << 8);
    frame->width = (uint32_t)d[p + 5] | ((uint32_t)d[p + 6] << 8);
    frame->height = (uint32_t)d[p + 7] | ((uint32_t)d[p + 8] << 8);
    uint8_t flags = d[p + 9];
    frame->interlaced = (flags & 0x40) != 0;
    p += 10;
    if (flags & 0x80) {
        size_t table = (size_t)3 << ((flags & 0x07) + 1);
        if (n - p < table) return apc_gif_stop(reader, 1);
        p += table;
    }
    // The code size, then at least two bytes: else libnsgif takes the frame for none (a trailer
    // there ends the walk quietly).
    if (n - p < 3) {
        int trailer = (n - p >= 1 && d[p] == 0x3b) || (n - p == 2 && d[p + 1] == 0x3b);
        return apc_gif_stop(reader, !trailer);
    }
    if (d[p] == 0x3b || d[p] >= 12) return apc_gif_stop(reader, 0);
    frame->code_size = d[p];
    p += 1;
    frame->data_offset = p;
    while (p < n) {
        size_t size = d[p];
        if (size == 0) {
            frame->complete = 1;
            p += 1;
            break;
        }
        if (size > n - p - 1) break;  // this sub-block runs off the end
        p += 1 + size;
    }
    frame->data_end = p;
    reader->frames += 1;
    if (frame->has_transparency) reader->any_transparency = 1;
    reader->position = p;
    if (!frame->complete) apc_gif_stop(reader, 1);
    return 1;
}

/// Walks every frame after the ones met so far, to count them and learn whether any has a
/// transparent index.
static void apc_gif_walk_rest(apc_gif_reader *reader) {
    apc_gif_frame frame;
    while (apc_gif_next_frame(reader, &frame)) {}
}

/// Walks to the first frame and sets the canvas from it; checks the canvas against the limits.
static int32_t apc_gif_first_frame(apc_gif_reader *reader, const apc_limits *limits, apc_gif_frame *frame) {
    if (!apc_gif_next_frame(reader, frame)) {
        if (reader->truncated) {
            apc_report_set_message(reader->report, "the GIF ends before its first image");
            return APC_ERR_TRUNCATED;
        }
        apc_report_set_message(reader->report, "the GIF has no image (a record that is not one, or a bad LZW code size)");
        return APC_ERR_CORRUPT;
    }
    uint64_t right = (uint64_t)frame->left + frame->width;
    uint64_t bottom = (uint64_t)frame->top + frame->height;
    if (right > APC_GIF_MAX_CANVAS || bottom > APC_GIF_MAX_CANVAS) {
        apc_report_set_message(reader->report, "the GIF's first frame extends past 65536 pixels");
        return APC_ERR_CORRUPT;
    }
    if (right > reader->canvas_width) reader->canvas_width = (uint32_t)right;
    if (bottom > reader->canvas_height) reader->canvas_height = (uint32_t)bottom;
    if (apc_gif_over_limits(limits, reader->canvas_width, reader->canvas_height)) {
        apc_report_set_message(reader->report, "the GIF's canvas exceeds the pixel budget");
        return APC_ERR_TOO_LARGE;
    }
    return APC_OK;
}

/// Positions giflib at a frame the walk found and reads its descriptor, colour table and code
/// size (DGifGetImageHeader), for the colour table apc_gif_put_row draws with. giflib reads none of
/// the LZW data; its input still ends where libnsgif's reading ends (a frame whose data run off the
/// end: its last whole sub-block, then an end of sub-blocks).
static int32_t apc_gif_enter_frame(apc_gif_reader *reader, const apc_gif_frame *frame) {
    reader->cursor.offset = frame->descriptor;
    reader->cursor.end = frame->complete ? reader->cursor.length : frame->data_end;
    reader->cursor.terminate = !frame->complete;
    reader->cursor.ran_out = 0;
    if (frame->code_size > 8) {
        // libnsgif reads code sizes up to 11; giflib stops at 8, the most a palette needs.
        apc_report_set_message(reader->report, "the GIF frame's LZW code size is over 8");
        return APC_ERR_CORRUPT;
    }
    if (DGifGetImageHeader(reader->gif) == GIF_ERROR) {
        apc_gif_message(reader->report, "cannot read the GIF frame's descriptor", reader->gif->Error);
        return reader->gif->Error == D_GIF_ERR_NOT_ENOUGH_MEM ? APC_ERR_TOO_LARGE : APC_ERR_CORRUPT;
    }
    if (reader->cursor.offset != frame->data_offset) {
        apc_report_set_message(reader->report, "giflib read the GIF frame's descriptor differently");
        return APC_ERR_CORRUPT;
    }
    return APC_OK;
}

static int32_t apc_gif_check_page(const apc_gif_reader *reader, int32_t page, apc_report *report) {
    if (page == -1 || page == 0) return APC_OK;
    if (page < 0 || (uint32_t)page >= reader->frames) {
        apc_report_set_message(report, "the GIF has no such frame");
        return APC_ERR_INVALID_ARGUMENT;
    }
    apc_report_set_message(report, "only the first frame of a GIF is decoded");
    return APC_ERR_UNSUPPORTED;
}

// MARK: - The LZW data

/// How libnsgif's reading of a frame's LZW data ends.
typedef enum {
    APC_GIF_LZW_DONE,       // every pixel arrived
    APC_GIF_LZW_SHORT,      // an end-of-information code, or the end of the data, came first
    APC_GIF_LZW_BAD_CODE,   // a code libnsgif refuses came first
} apc_gif_lzw_end;

/// The LZW string table: entry `i` is the string of entry `prefix[i]` followed by `last[i]`;
/// `first` is its first index and `length` its length. The literal entries are one index each.
/// `head` holds a string's first 8 indices (little-endian), whole when it is 8 long or shorter:
/// most strings are, and one 8-byte store writes them.
typedef struct {
    uint64_t head[4096];
    uint16_t prefix[4096];
    uint16_t length[4096];
    uint8_t first[4096];
    uint8_t last[4096];
} apc_gif_lzw_table;

/// Where decoded indices go: a row of the frame at a time, then drawn (apc_gif_put_row).
typedef struct apc_gif_rows apc_gif_rows;
static int32_t apc_gif_put_row(apc_gif_rows *rows);

struct apc_gif_rows {
    uint8_t *line;              // one row of indices, the frame's width, and 8 bytes more
    uint32_t width;
    uint32_t filled;            // indices in `line`
    int32_t status;             // APC_OK, or why drawing stopped
    // the drawing's own state (apc_gif_put_row)
    apc_gif_reader *reader;
    const apc_gif_frame *frame;
    uint8_t *canvas;
    size_t row_bytes;
    int opaque;
    int entered;                // giflib positioned at the frame and the colour table made
    uint32_t row;               // the next row, in file order
    uint8_t table[256][4];
};

/// Appends the first `count` indices of the string of entry `code` to the rows, drawing each row
/// as it fills: the case apc_gif_lzw does not write itself (a string that crosses a row's end, or
/// is cut at the last pixel). Returns 0 when drawing failed.
static int apc_gif_emit(apc_gif_rows *rows, const apc_gif_lzw_table *table, uint32_t code, uint32_t count) {
    uint8_t string[4096];
    uint32_t entry = code;
    for (uint32_t i = table->length[code]; i > 0; i--) {
        string[i - 1] = table->last[entry];
        entry = table->prefix[entry];
    }
    const uint8_t *from = string;
    while (count > 0) {
        uint32_t take = rows->width - rows->filled;
        if (take > count) take = count;
        memcpy(rows->line + rows->filled, from, take);
        rows->filled += take;
        from += take;
        count -= take;
        if (rows->filled == rows->width && apc_gif_put_row(rows) != APC_OK) return 0;
    }
    return 1;
}

/// The bytes of a frame's LZW sub-blocks, joined, as far as libnsgif reads them: up to the 0 that
/// ends them, a sub-block the data do not hold whole, or the end of the frame's data. Padded with
/// 8 zero bytes past `length`, so that a code is read with one 8-byte load.
typedef struct {
    uint8_t *bytes;
    size_t length;
} apc_gif_lzw_stream;

static int apc_gif_lzw_join(const apc_gif_cursor *cursor, const apc_gif_frame *frame, apc_gif_lzw_stream *stream) {
    const uint8_t *data = cursor->data;
    size_t capacity = frame->data_end - frame->data_offset;
    stream->length = 0;
    stream->bytes = (uint8_t *)malloc(capacity + 8);
    if (stream->bytes == NULL) return 0;
    size_t block = frame->data_offset;
    while (block < frame->data_end && data[block] != 0 && data[block] <= frame->data_end - block - 1) {
        memcpy(stream->bytes + stream->length, data + block + 1, data[block]);
        stream->length += data[block];
        block += 1 + (size_t)data[block];
    }
    memset(stream->bytes + stream->length, 0, 8);
    return 1;
}

/// Reads the codes of `frame`'s LZW data as libnsgif's lzw.c does, up to `needed` pixels: the pixel
/// count they yield (at most `needed`) and how the reading ends. With `rows`, the indices are
/// decoded and drawn a row at a time as they come (the last row as far as it goes); without, they
/// are only counted. The data end where the joined sub-blocks end (apc_gif_lzw_join); a code that
/// ends exactly there ends them too, since libnsgif then reads the byte after it. libnsgif refuses
/// a first code after a clear code that is above the clear code (the end-of-information code
/// included), and a code above the next free table entry. When drawing fails, `rows->status` says
/// why and the reading stops there.
///
/// giflib's DGifGetLine is not used for the pixels: it decodes some codes libnsgif refuses (a code
/// past the next free entry) into other pixels without an error, so every code had to be read here
/// first anyway, and giflib's own decoding then cost twice as much again.
static apc_gif_lzw_end apc_gif_lzw(const apc_gif_cursor *cursor, const apc_gif_frame *frame, uint64_t needed,
                                   uint64_t *pixels, apc_gif_rows *rows) {
    apc_gif_lzw_stream stream;
    uint32_t code_size, code_max, table_size, clear, eoi, code = 0, previous = 0;
    uint64_t total = 0, bit = 0, bits_end;
    apc_gif_lzw_end end;
    *pixels = 0;
    if (frame->code_size >= 12) return APC_GIF_LZW_BAD_CODE;
    // The table (56 KB) lives on the heap: the decoder runs on threads with small stacks too.
    apc_gif_lzw_table *table = (apc_gif_lzw_table *)malloc(sizeof *table);
    if (table == NULL || !apc_gif_lzw_join(cursor, frame, &stream)) {
        free(table);
        if (rows != NULL) {
            apc_report_set_message(rows->reader->report, "cannot allocate the GIF frame's data");
            rows->status = APC_ERR_TOO_LARGE;
        }
        return APC_GIF_LZW_SHORT;
    }
    bits_end = (uint64_t)stream.length * 8;
    clear = 1u << frame->code_size;
    eoi = clear + 1;
    for (uint32_t i = 0; i < clear; i++) {
        table->prefix[i] = 0;
        table->length[i] = 1;
        table->first[i] = table->last[i] = (uint8_t)i;
        table->head[i] = (uint8_t)i;
    }

// Reads the next code into `code`; leaves through short_data when the data end before it or with it.
#define APC_GIF_READ_CODE()                                                                       \
    do {                                                                                          \
        if (bit + code_size >= bits_end) goto short_data;                                         \
        uint64_t word_;                                                                           \
        memcpy(&word_, stream.bytes + (bit >> 3), 8);                                             \
        code = (uint32_t)(word_ >> (bit & 7)) & ((1u << code_size) - 1);                          \
        bit += code_size;                                                                         \
    } while (0)

// Gives the string of `code` (the pixels still needed of it) to the rows: written from its end
// straight into the row when it fits there whole.
#define APC_GIF_EMIT()                                                                            \
    do {                                                                                          \
        uint32_t length_ = table->length[code];                                                    \
        if (rows != NULL) {                                                                       \
            if (length_ <= 8 && length_ <= rows->width - rows->filled && length_ <= needed - total) { \
                memcpy(rows->line + rows->filled, &table->head[code], 8);                          \
                rows->filled += length_;                                                          \
                if (rows->filled == rows->width && apc_gif_put_row(rows) != APC_OK) goto stopped; \
            } else if (length_ <= rows->width - rows->filled && length_ <= needed - total) {      \
                uint8_t *out_ = rows->line + rows->filled + length_;                              \
                uint32_t entry_ = code;                                                           \
                for (uint32_t i_ = 0; i_ < length_; i_++) {                                       \
                    *--out_ = table->last[entry_];                                                 \
                    entry_ = table->prefix[entry_];                                                \
                }                                                                                 \
                rows->filled += length_;                                                          \
                if (rows->filled == rows->width && apc_gif_put_row(rows) != APC_OK) goto stopped; \
            } else {                                                                              \
                uint32_t count_ = needed - total < length_ ? (uint32_t)(needed - total) : length_; \
                if (!apc_gif_emit(rows, table, code, count_)) goto stopped;                      \
            }                                                                                     \
        }                                                                                         \
        total += length_;                                                                         \
    } while (0)

    for (;;) {
        // A clear code (the data start with one): reset the table, then the first code.
        code_size = frame->code_size + 1u;
        code_max = (1u << code_size) - 1;
        table_size = eoi + 1;
        do {
            APC_GIF_READ_CODE();
        } while (code == clear);
        // An end-of-information code first: a frame without pixel data, drawn as nothing (libvips
        // 8.14 and browsers show it; libnsgif 1.0 refuses it as above the clear code).
        if (code == eoi && total == 0) goto short_data;
        if (code > clear) goto bad_code;
        APC_GIF_EMIT();
        previous = code;
        for (;;) {
            if (total >= needed) goto done;
            APC_GIF_READ_CODE();
            if (code == eoi) goto short_data;
            if (code > table_size) goto bad_code;
            if (code == clear) break;
            if (table_size < 4096) {
                // The new entry: the previous string and the first index of this one (of the
                // previous one when this code is the entry being made).
                uint32_t entry = table_size;
                table->prefix[entry] = (uint16_t)previous;
                table->first[entry] = table->first[previous];
                table->last[entry] = code < entry ? table->first[code] : table->first[previous];
                table->length[entry] = (uint16_t)(table->length[previous] + 1);
                table->head[entry] = table->length[previous] < 8
                    ? table->head[previous] | ((uint64_t)table->last[entry] << (8 * table->length[previous]))
                    : table->head[previous];
                table_size += 1;
                if (entry == code_max && code_size < 12) {
                    code_size += 1;
                    code_max = (1u << code_size) - 1;
                }
            }
            APC_GIF_EMIT();
            previous = code;
        }
    }
#undef APC_GIF_EMIT
#undef APC_GIF_READ_CODE
done:
    end = APC_GIF_LZW_DONE;
    goto out;
short_data:
    end = total >= needed ? APC_GIF_LZW_DONE : APC_GIF_LZW_SHORT;
    goto out;
bad_code:
    end = total >= needed ? APC_GIF_LZW_DONE : APC_GIF_LZW_BAD_CODE;
    goto out;
stopped:
    end = APC_GIF_LZW_DONE;
out:
    free(table);
    free(stream.bytes);
    *pixels = total < needed ? total : needed;
    return end;
}

// MARK: - Compositing

/// A frame's colour table as libnsgif holds it for the first frame: the local table, else the
/// global one, else black and white; entries past the table are (0,0,0,0), or opaque black when
/// the output is `opaque`. RGBA bytes.
static void apc_gif_colour_table(const GifFileType *gif, int opaque, uint8_t table[256][4]) {
    memset(table, 0, 256 * 4);
    if (opaque) {
        for (int i = 0; i < 256; i++) table[i][3] = 255;
    }
    const ColorMapObject *map = gif->Image.ColorMap != NULL ? gif->Image.ColorMap : gif->SColorMap;
    if (map == NULL || map->Colors == NULL) {
        table[1][0] = table[1][1] = table[1][2] = 255;
        table[0][3] = table[1][3] = 255;
        return;
    }
    int count = map->ColorCount < 256 ? map->ColorCount : 256;
    for (int i = 0; i < count; i++) {
        table[i][0] = map->Colors[i].Red;
        table[i][1] = map->Colors[i].Green;
        table[i][2] = map->Colors[i].Blue;
        table[i][3] = 255;
    }
}

/// The canvas row of a frame's `index`-th row in file order: the four passes of an interlaced
/// frame (every 8th row from 0, every 8th from 4, every 4th from 2, every 2nd from 1).
static uint32_t apc_gif_frame_row(uint32_t index, uint32_t height, int interlaced) {
    if (!interlaced) return index;
    uint32_t pass = (height + 7) / 8;
    if (index < pass) return index * 8;
    index -= pass;
    pass = (height + 3) / 8;
    if (index < pass) return 4 + index * 8;
    index -= pass;
    pass = (height + 1) / 4;
    if (index < pass) return 2 + index * 4;
    index -= pass;
    return 1 + index * 2;
}

/// Fills the canvas with (0,0,0,0), or opaque black when the output is `opaque`.
static void apc_gif_clear_canvas(uint8_t *canvas, uint32_t width, uint32_t height, size_t row_bytes, int opaque) {
    static const uint8_t black[4] = {0, 0, 0, 255};
    for (uint32_t y = 0; y < height; y++) {
        uint8_t *row = canvas + (size_t)y * row_bytes;
        if (!opaque) {
            memset(row, 0, (size_t)width * 4);
        } else {
            for (uint32_t x = 0; x < width; x++) memcpy(row + (size_t)x * 4, black, 4);
        }
    }
}

/// Draws the row of indices the rows hold (the frame's next row in file order, as far as it goes)
/// over the canvas: its colour table, its transparent index left undrawn, clipped to the canvas;
/// every pixel opaque when the output is `opaque` (libvips' three bands). giflib is positioned at
/// the frame for its colour table when the first row comes, so that a frame with no pixel data
/// reads nothing more.
static int32_t apc_gif_put_row(apc_gif_rows *rows) {
    apc_gif_reader *reader = rows->reader;
    const apc_gif_frame *frame = rows->frame;
    if (!rows->entered) {
        int32_t status = apc_gif_enter_frame(reader, frame);
        if (status != APC_OK) {
            rows->status = status;
            return status;
        }
        apc_gif_colour_table(reader->gif, rows->opaque, rows->table);
        rows->entered = 1;
    }
    uint32_t count = rows->filled;
    rows->filled = 0;
    uint32_t y = frame->top + apc_gif_frame_row(rows->row++, frame->height, frame->interlaced);
    if (y >= reader->canvas_height || frame->left >= reader->canvas_width) return APC_OK;
    uint32_t visible = reader->canvas_width - frame->left;  // columns inside the canvas
    uint32_t columns = count < visible ? count : visible;
    uint8_t *out = rows->canvas + (size_t)y * rows->row_bytes + (size_t)frame->left * 4;
    const uint8_t *line = rows->line;
    if (!frame->has_transparency) {
        for (uint32_t x = 0; x < columns; x++) memcpy(out + (size_t)x * 4, rows->table[line[x]], 4);
    } else {
        uint32_t transparent = frame->transparent;
        for (uint32_t x = 0; x < columns; x++) {
            if (line[x] != transparent) memcpy(out + (size_t)x * 4, rows->table[line[x]], 4);
        }
    }
    return APC_OK;
}

/// Decodes a frame the walk found and draws it over the canvas as far as its data go (apc_gif_lzw,
/// apc_gif_put_row): how its data end in `end`, the pixels drawn (in file order) in `drawn`.
/// libnsgif draws nothing of an empty frame, and reads none of its data.
static int32_t apc_gif_draw_frame(apc_gif_reader *reader, const apc_gif_frame *frame, int opaque, uint8_t *canvas,
                                  size_t row_bytes, apc_gif_lzw_end *end, uint64_t *drawn) {
    uint64_t needed = (uint64_t)frame->width * frame->height;
    *end = APC_GIF_LZW_DONE;
    *drawn = 0;
    if (needed == 0) return APC_OK;
    if (frame->code_size > 8) {
        // Indices past 255: counted only; a frame that has pixels is refused (apc_gif_enter_frame).
        *end = apc_gif_lzw(&reader->cursor, frame, needed, drawn, NULL);
        return *drawn > 0 ? apc_gif_enter_frame(reader, frame) : APC_OK;
    }
    apc_gif_rows rows;
    memset(&rows, 0, sizeof rows);
    rows.line = (uint8_t *)malloc((size_t)frame->width + 8);
    if (rows.line == NULL) {
        apc_report_set_message(reader->report, "cannot allocate a GIF row");
        return APC_ERR_TOO_LARGE;
    }
    rows.width = frame->width;
    rows.status = APC_OK;
    rows.reader = reader;
    rows.frame = frame;
    rows.canvas = canvas;
    rows.row_bytes = row_bytes;
    rows.opaque = opaque;
    *end = apc_gif_lzw(&reader->cursor, frame, needed, drawn, &rows);
    if (rows.status == APC_OK && rows.filled > 0) apc_gif_put_row(&rows);
    free(rows.line);
    return rows.status;
}

// MARK: - Entry points

/// Opens the GIF and walks it whole: the first frame (in `first`) and every frame after it.
static int32_t apc_gif_walk(apc_gif_reader *reader, const uint8_t *data, size_t length, const apc_limits *limits,
                            apc_gif_frame *first, apc_report *report) {
    int32_t status = apc_gif_open(reader, data, length, limits, report);
    if (status == APC_OK) status = apc_gif_first_frame(reader, limits, first);
    if (status == APC_OK) apc_gif_walk_rest(reader);
    return status;
}

/// Whether the output has alpha, as libvips decides its band count.
static int apc_gif_output_has_alpha(const apc_gif_reader *reader, const apc_gif_frame *first) {
    return reader->any_transparency || !first->complete;
}

int32_t apc_gif_read_header(const uint8_t *data, size_t length, const apc_limits *limits,
                            int32_t page, apc_header *header, apc_report *report) {
    apc_report_reset(report);
    if (data == NULL || header == NULL) {
        apc_report_set_message(report, "invalid arguments to the GIF header reader");
        return APC_ERR_INVALID_ARGUMENT;
    }
    memset(header, 0, sizeof *header);
    apc_gif_reader reader;
    apc_gif_frame first;
    int32_t status = apc_gif_walk(&reader, data, length, limits, &first, report);
    if (status == APC_OK) status = apc_gif_check_page(&reader, page, report);
    if (status == APC_OK) {
        int alpha = apc_gif_output_has_alpha(&reader, &first);
        header->format = APC_FORMAT_GIF;
        header->width = reader.canvas_width;
        header->height = reader.canvas_height;
        header->output_width = reader.canvas_width;
        header->output_height = reader.canvas_height;
        header->channels = alpha ? 4 : 3;
        header->bit_depth = 8;
        header->interlaced = (uint32_t)first.interlaced;
        header->color_space = APC_COLOR_PALETTE;
        header->has_alpha = (uint32_t)alpha;
        header->frames = reader.frames;
        if (!first.complete) apc_report_add_warning(report, "Unexpected end of GIF source data");
    }
    apc_gif_close(&reader);
    return status;
}

int32_t apc_gif_decode_rgba(const uint8_t *data, size_t length, const apc_limits *limits,
                            int32_t page, uint32_t width, uint32_t height, uint8_t *pixels,
                            size_t row_bytes, size_t capacity, apc_report *report) {
    apc_report_reset(report);
    if (data == NULL || pixels == NULL || !apc_output_fits(width, height, row_bytes, capacity)) {
        apc_report_set_message(report, "the output buffer does not fit the image");
        return APC_ERR_INVALID_ARGUMENT;
    }
    apc_gif_reader reader;
    apc_gif_frame first;
    int32_t status = apc_gif_walk(&reader, data, length, limits, &first, report);
    if (status == APC_OK && (width != reader.canvas_width || height != reader.canvas_height)) {
        apc_report_set_message(report, "the image size differs from the header read before");
        status = APC_ERR_INVALID_ARGUMENT;
    }
    if (status == APC_OK) status = apc_gif_check_page(&reader, page, report);
    if (status == APC_OK) {
        int opaque = !apc_gif_output_has_alpha(&reader, &first);
        apc_gif_clear_canvas(pixels, width, height, row_bytes, opaque);
        apc_gif_lzw_end end;
        uint64_t drawn = 0;
        status = apc_gif_draw_frame(&reader, &first, opaque, pixels, row_bytes, &end, &drawn);
        if (status == APC_OK && end == APC_GIF_LZW_BAD_CODE) {
            apc_report_set_message(report, "the GIF's first frame has an invalid LZW code");
            status = APC_ERR_CORRUPT;
        }
        if (status == APC_OK && drawn == 0 && (uint64_t)first.width * first.height > 0) {
            apc_report_add_warning(report, "the GIF's first frame holds no pixel data");
        }
    }
    if (status == APC_OK && !first.complete) apc_report_add_warning(report, "Unexpected end of GIF source data");
    apc_gif_close(&reader);
    return status;
}

int32_t apc_gif_read_metadata(const uint8_t *data, size_t length, const apc_limits *limits,
                              int32_t page, apc_metadata *metadata, apc_report *report) {
    apc_report_reset(report);
    if (data == NULL || metadata == NULL) {
        apc_report_set_message(report, "invalid arguments to the GIF metadata reader");
        return APC_ERR_INVALID_ARGUMENT;
    }
    // libvips reads no ICC profile or EXIF block from a GIF: the blocks stay empty. The walk checks
    // that the data are a GIF with the page asked for.
    memset(metadata, 0, sizeof *metadata);
    apc_gif_reader reader;
    apc_gif_frame first;
    int32_t status = apc_gif_walk(&reader, data, length, limits, &first, report);
    if (status == APC_OK) status = apc_gif_check_page(&reader, page, report);
    apc_gif_close(&reader);
    return status;
}

// MARK: - Animation (apc_animation.h)
//
// Every frame composited as libnsgif 1.0 (libvips 8.18's loader with n=-1) composites it: before a
// frame is drawn, the frame before it is disposed of as it asked (2: its rectangle cleared to
// transparent when it had a transparent index, else to the screen's background colour; 3, and 4
// which libnsgif reads as 3: the canvas as it was before that frame was drawn), then the frame is
// drawn over the canvas with its own colour table, its transparent index left undrawn. The first
// frame is drawn as the still decode draws it. A later frame whose LZW data hold a bad code or end
// early is drawn as far as they go, with a warning.

struct apc_gif_animation {
    apc_gif_reader reader;
    uint8_t *data;             // the caller's file, copied
    size_t start;              // where the walk reads the first record after the screen
    int opaque;                // the output has no alpha (no frame has a transparent index)
    uint8_t background[4];     // the screen's background colour, opaque
    uint8_t *canvas;           // the canvas as shown, RGBA rows of width * 4
    uint8_t *saved;            // the canvas before a frame of disposal 3 was drawn, or NULL
    int saved_valid;
    apc_gif_frame previous;    // the frame given last
    uint32_t given;            // frames given so far
};

void apc_gif_animation_close(apc_gif_animation *animation) {
    if (animation == NULL) return;
    apc_gif_close(&animation->reader);
    free(animation->canvas);
    free(animation->saved);
    free(animation->data);
    free(animation);
}

/// libnsgif's background: the global table's entry at the screen's background index, else its
/// first entry, else black.
static void apc_gif_background(const GifFileType *gif, uint8_t out[4]) {
    out[0] = out[1] = out[2] = 0;
    out[3] = 255;
    const ColorMapObject *map = gif->SColorMap;
    if (map == NULL || map->Colors == NULL || map->ColorCount <= 0) return;
    int index = gif->SBackGroundColor < map->ColorCount ? gif->SBackGroundColor : 0;
    out[0] = map->Colors[index].Red;
    out[1] = map->Colors[index].Green;
    out[2] = map->Colors[index].Blue;
}

int32_t apc_gif_animation_open(const uint8_t *data, size_t length, const apc_limits *limits, uint32_t max_frames,
                               apc_gif_animation **out, apc_animation_info *info, apc_report *report) {
    apc_report_reset(report);
    if (data == NULL || out == NULL || info == NULL) {
        apc_report_set_message(report, "invalid arguments to the GIF animation reader");
        return APC_ERR_INVALID_ARGUMENT;
    }
    *out = NULL;
    memset(info, 0, sizeof *info);
    apc_gif_animation *animation = (apc_gif_animation *)calloc(1, sizeof *animation);
    if (animation == NULL || (animation->data = (uint8_t *)malloc(length ? length : 1)) == NULL) {
        free(animation);
        apc_report_set_message(report, "cannot allocate the GIF animation reader");
        return APC_ERR_TOO_LARGE;
    }
    memcpy(animation->data, data, length);
    apc_gif_reader *reader = &animation->reader;
    apc_gif_frame first;
    int32_t status = apc_gif_open(reader, animation->data, length, limits, report);
    animation->start = reader->position;
    if (status == APC_OK) status = apc_gif_first_frame(reader, limits, &first);
    if (status == APC_OK) apc_gif_walk_rest(reader);
    if (status == APC_OK && (reader->capped || (max_frames != 0 && reader->frames > max_frames))) {
        char message[APC_MESSAGE_CAPACITY];
        snprintf(message, sizeof message, "the GIF has %s%u frames, the limit is %u", reader->capped ? "at least " : "",
                 reader->frames, max_frames);
        apc_report_set_message(report, message);
        status = APC_ERR_TOO_LARGE;
    }
    uint64_t drawn = 0;
    if (status == APC_OK && (uint64_t)first.width * first.height > 0 &&
        apc_gif_lzw(&reader->cursor, &first, (uint64_t)first.width * first.height, &drawn, NULL) == APC_GIF_LZW_BAD_CODE) {
        apc_report_set_message(report, "the GIF's first frame has an invalid LZW code");
        status = APC_ERR_CORRUPT;
    }
    size_t canvas_bytes = (size_t)reader->canvas_width * reader->canvas_height * 4;
    if (status == APC_OK && (animation->canvas = (uint8_t *)malloc(canvas_bytes ? canvas_bytes : 4)) == NULL) {
        apc_report_set_message(report, "cannot allocate the GIF canvas");
        status = APC_ERR_TOO_LARGE;
    }
    if (status != APC_OK) {
        apc_gif_animation_close(animation);
        return status;
    }
    animation->opaque = !apc_gif_output_has_alpha(reader, &first);
    apc_gif_background(reader->gif, animation->background);
    info->width = reader->canvas_width;
    info->height = reader->canvas_height;
    info->frames = reader->frames;
    info->plays = !reader->has_loop ? 1 : reader->loop == 0 ? 0 : reader->loop + 1;
    info->has_alpha = (uint32_t)!animation->opaque;
    // The walk starts again for the frames.
    reader->position = animation->start;
    reader->frames = 0;
    reader->stopped = reader->truncated = reader->capped = 0;
    *out = animation;
    return APC_OK;
}

/// Fills a frame's rectangle (clipped to the canvas) with one colour.
static void apc_gif_fill_rect(apc_gif_animation *animation, const apc_gif_frame *frame, const uint8_t colour[4]) {
    const apc_gif_reader *reader = &animation->reader;
    if (frame->left >= reader->canvas_width || frame->top >= reader->canvas_height) return;
    uint32_t right = frame->left + frame->width, bottom = frame->top + frame->height;
    if (right > reader->canvas_width || right < frame->left) right = reader->canvas_width;
    if (bottom > reader->canvas_height || bottom < frame->top) bottom = reader->canvas_height;
    size_t row_bytes = (size_t)reader->canvas_width * 4;
    for (uint32_t y = frame->top; y < bottom; y++) {
        uint8_t *row = animation->canvas + (size_t)y * row_bytes;
        for (uint32_t x = frame->left; x < right; x++) memcpy(row + (size_t)x * 4, colour, 4);
    }
}

uint32_t apc_gif_animation_durations(apc_gif_animation *animation, uint32_t *durations, uint32_t capacity) {
    if (animation == NULL || durations == NULL) return 0;
    apc_gif_reader saved = animation->reader;  // the walk's place, put back after
    apc_gif_reader *reader = &animation->reader;
    reader->position = animation->start;
    reader->frames = 0;
    reader->stopped = reader->truncated = reader->capped = 0;
    uint32_t count = 0;
    apc_gif_frame frame;
    while (count < capacity && apc_gif_next_frame(reader, &frame)) {
        // as apc_gif_animation_next gives them
        durations[count++] = frame.has_control ? frame.delay * 10 : 100;
    }
    animation->reader = saved;
    return count;
}

int32_t apc_gif_animation_next(apc_gif_animation *animation, uint8_t *pixels, size_t row_bytes, size_t capacity,
                               uint32_t *duration_ms, apc_report *report) {
    apc_report_reset(report);
    if (animation == NULL || pixels == NULL || duration_ms == NULL) {
        apc_report_set_message(report, "invalid arguments to the GIF animation reader");
        return APC_ERR_INVALID_ARGUMENT;
    }
    apc_gif_reader *reader = &animation->reader;
    reader->report = report;
    uint32_t width = reader->canvas_width, height = reader->canvas_height;
    size_t canvas_row = (size_t)width * 4;
    if (!apc_output_fits(width, height, row_bytes, capacity)) {
        apc_report_set_message(report, "the output buffer does not fit the canvas");
        return APC_ERR_INVALID_ARGUMENT;
    }
    apc_gif_frame frame;
    if (!apc_gif_next_frame(reader, &frame)) {
        apc_report_set_message(report, "the GIF has no more frames");
        return APC_ERR_NO_SUCH_PAGE;
    }
    if (animation->given == 0) {
        apc_gif_clear_canvas(animation->canvas, width, height, canvas_row, animation->opaque);
    } else {
        const apc_gif_frame *previous = &animation->previous;
        if (previous->disposal == 2) {
            static const uint8_t clear[4] = {0, 0, 0, 0};
            apc_gif_fill_rect(animation, previous, previous->has_transparency && !animation->opaque ? clear : animation->background);
        } else if ((previous->disposal == 3 || previous->disposal == 4) && animation->saved_valid) {
            memcpy(animation->canvas, animation->saved, canvas_row * height);
        }
    }
    animation->saved_valid = 0;
    if (frame.disposal == 3 || frame.disposal == 4) {
        if (animation->saved == NULL && (animation->saved = (uint8_t *)malloc(canvas_row * height)) == NULL) {
            apc_report_set_message(report, "cannot allocate the GIF's saved canvas");
            return APC_ERR_TOO_LARGE;
        }
        memcpy(animation->saved, animation->canvas, canvas_row * height);
        animation->saved_valid = 1;
    }
    uint64_t needed = (uint64_t)frame.width * frame.height, drawn = 0;
    int32_t status = APC_OK;
    if (needed > 0) {
        apc_gif_lzw_end end;
        status = apc_gif_draw_frame(reader, &frame, animation->opaque, animation->canvas, canvas_row, &end, &drawn);
        if (status == APC_OK && end == APC_GIF_LZW_BAD_CODE) {
            apc_report_add_warning(report, "a GIF frame has an invalid LZW code: drawn up to it");
        } else if (status == APC_OK && end == APC_GIF_LZW_SHORT) {
            apc_report_add_warning(report, "a GIF frame's data end early: drawn as far as they go");
        }
    }
    if (status != APC_OK) return status;
    if (!frame.complete) apc_report_add_warning(report, "Unexpected end of GIF source data");
    for (uint32_t y = 0; y < height; y++) memcpy(pixels + (size_t)y * row_bytes, animation->canvas + (size_t)y * canvas_row, canvas_row);
    // libvips gives a frame without a graphic control extension 100 ms (browsers' default); the
    // same rule is apc_gif_animation_durations'.
    *duration_ms = frame.has_control ? frame.delay * 10 : 100;
    animation->previous = frame;
    animation->given += 1;
    return APC_OK;
}
