#ifndef ASSETPIPELINE_CWEBP_SHIM_H
#define ASSETPIPELINE_CWEBP_SHIM_H
#include <webp/encode.h>
#include <webp/mux.h>
#include <webp/decode.h>
#endif
