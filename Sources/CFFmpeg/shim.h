#ifndef ASSETPIPELINE_CFFMPEG_SHIM_H
#define ASSETPIPELINE_CFFMPEG_SHIM_H
// FFmpeg's libraries (Debian's libavformat-dev, libavcodec-dev, libswscale-dev, libavutil-dev).
// Swift calls them only through CAssetVideoFrame, which does one whole frame decode per call.
#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
#include <libswscale/swscale.h>
#include <libavutil/display.h>
#endif
