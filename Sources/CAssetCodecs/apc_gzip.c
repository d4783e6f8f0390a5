// The start of gzip data, inflated for sniffing an .svgz. See apc_formats.h.
#include "CAssetCodecs.h"

#include <string.h>
#include <zlib.h>

size_t apc_gunzip_head(const uint8_t *data, size_t length, uint8_t *out, size_t capacity) {
    if (data == NULL || out == NULL || capacity == 0 || length < 3) return 0;
    if (data[0] != 0x1F || data[1] != 0x8B || data[2] != 8) return 0;
    z_stream stream;
    memset(&stream, 0, sizeof stream);
    if (inflateInit2(&stream, 16 + MAX_WBITS) != Z_OK) return 0;  // 16: gzip framing
    stream.next_in = (Bytef *)data;
    stream.avail_in = length > 0xFFFFFFFFu ? 0xFFFFFFFFu : (uInt)length;
    stream.next_out = out;
    stream.avail_out = capacity > 0xFFFFFFFFu ? 0xFFFFFFFFu : (uInt)capacity;
    int status = inflate(&stream, Z_SYNC_FLUSH);
    size_t produced = (status == Z_OK || status == Z_STREAM_END || status == Z_BUF_ERROR) ? stream.total_out : 0;
    inflateEnd(&stream);
    return produced;
}
