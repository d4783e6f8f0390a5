// The FFmpeg side shared by CAssetVideoFrame's entry points (avf_frame.c: one frame;
// avf_storyboard.c: a sheet of tiles): the libraries opened on first use, the caller's reads as an
// AVIOContext, and a session that opens a container's video stream and its decoder. Private to
// this target (not in include/).
#ifndef AVF_FFMPEG_H
#define AVF_FFMPEG_H

#include "avf_frame.h"

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/display.h>
#include <libavutil/imgutils.h>
#include <libavutil/log.h>
#include <libavutil/macros.h>
#include <libavutil/pixdesc.h>
#include <libswscale/swscale.h>

#define AVF_FUNCTIONS(X) \
    X(avformat, avformat_alloc_context) \
    X(avformat, avformat_close_input) \
    X(avformat, avformat_find_stream_info) \
    X(avformat, avformat_open_input) \
    X(avformat, avformat_seek_file) \
    X(avformat, avio_alloc_context) \
    X(avformat, avio_context_free) \
    X(avformat, av_read_frame) \
    X(avformat, av_stream_get_side_data) \
    X(avcodec, avcodec_alloc_context3) \
    X(avcodec, avcodec_find_decoder) \
    X(avcodec, avcodec_free_context) \
    X(avcodec, avcodec_get_name) \
    X(avcodec, avcodec_open2) \
    X(avcodec, avcodec_parameters_to_context) \
    X(avcodec, avcodec_receive_frame) \
    X(avcodec, avcodec_send_packet) \
    X(avcodec, av_packet_alloc) \
    X(avcodec, av_packet_free) \
    X(avcodec, av_packet_unref) \
    X(swscale, sws_freeContext) \
    X(swscale, sws_getCoefficients) \
    X(swscale, sws_getColorspaceDetails) \
    X(swscale, sws_getContext) \
    X(swscale, sws_scale) \
    X(swscale, sws_setColorspaceDetails) \
    X(avutil, av_display_rotation_get) \
    X(avutil, av_frame_alloc) \
    X(avutil, av_frame_free) \
    X(avutil, av_frame_move_ref) \
    X(avutil, av_frame_unref) \
    X(avutil, av_free) \
    X(avutil, av_freep) \
    X(avutil, av_get_pix_fmt_name) \
    X(avutil, av_log_set_level) \
    X(avutil, av_malloc) \
    X(avutil, av_rescale_q) \
    X(avutil, av_strdup) \
    X(avutil, av_strerror) \
    X(avcodec, avcodec_flush_buffers) \
    X(avformat, avformat_alloc_output_context2) \
    X(avformat, avformat_free_context) \
    X(avformat, avformat_new_stream) \
    X(avformat, avformat_write_header) \
    X(avformat, av_interleaved_write_frame) \
    X(avformat, av_write_trailer) \
    X(avcodec, avcodec_find_encoder_by_name) \
    X(avcodec, avcodec_parameters_from_context) \
    X(avcodec, avcodec_receive_packet) \
    X(avcodec, avcodec_send_frame) \
    X(avcodec, av_packet_rescale_ts) \
    X(avutil, av_dict_free) \
    X(avutil, av_dict_set) \
    X(avutil, av_frame_get_buffer)

/// FFmpeg's functions, resolved by `avf_session_open` on the first use.
struct avf_functions {
#define AVF_MEMBER(library, name) __typeof__(&name) name;
    AVF_FUNCTIONS(AVF_MEMBER)
#undef AVF_MEMBER
};
extern struct avf_functions avf_ff;

// av_err2str without the header's inline helper, which would call av_strerror directly.
#define avf_error_text(code) avf_error_string((char[AV_ERROR_MAX_STRING_SIZE]){0}, (code))
const char *avf_error_string(char *buffer, int code);

// The AVIO buffer: each read of the caller's asks for at most this much.
#define AVF_IO_BUFFER (64 * 1024)

typedef struct {
    const avf_source *source;
    int64_t position;
    int64_t bytes_read;
    int failed;
} avf_io;

/// An open container: its video stream and that stream's decoder, with a packet and two frames.
typedef struct {
    avf_io io;
    AVFormatContext *format;
    AVIOContext *avio;
    AVCodecContext *decoder;
    const AVCodec *codec;
    AVStream *stream;
    int index;
    AVPacket *packet;
    AVFrame *frame;
    AVFrame *kept;
    /// The video's own duration in seconds when the container gives it, else the container's; 0
    /// unknown.
    double duration;
} avf_session;

/// Opens `source` (the MP4/QuickTime and Matroska/WebM demuxers only), picks the video stream
/// ffmpeg picks, checks its declared size against `max_pixels` and opens its decoder (on the list
/// only) with `threads`. Writes the demuxer's and codec's names. On failure the session is still
/// to be closed.
int32_t avf_session_open(avf_session *session, const avf_source *source, int64_t max_pixels, int32_t threads,
                         char container[64], char codec[32], char message[AVF_MESSAGE_CAPACITY]);
/// Frees what `avf_session_open` made (a session never opened, zeroed, is fine).
void avf_session_close(avf_session *session);

/// Opens FFmpeg's libraries on the first call: AVF_OK, or AVF_ERR_UNAVAILABLE with why not.
int32_t avf_libraries(char message[AVF_MESSAGE_CAPACITY]);

int32_t avf_fail(char *message, int32_t status, const char *format, ...);
int32_t avf_rotation(AVStream *stream);
uint8_t *avf_rotate(const uint8_t *pixels, int32_t width, int32_t height, int32_t rotation);
int32_t avf_scaled(int32_t side, int32_t numerator, int32_t denominator);
int32_t avf_convert(const AVFrame *frame, int32_t width, int32_t height, uint8_t **out, char *message);

#endif
