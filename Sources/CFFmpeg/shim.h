#ifndef ASSETPIPELINE_CFFMPEG_SHIM_H
#define ASSETPIPELINE_CFFMPEG_SHIM_H
// FFmpeg's headers (Debian's libavformat-dev, libavcodec-dev, libswscale-dev, libavutil-dev).
// Swift calls FFmpeg only through CAssetVideoFrame, which does one whole frame decode per call and
// opens the libraries themselves on its first one (nothing links them).
#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
#include <libswscale/swscale.h>
#include <libavutil/display.h>
#endif
