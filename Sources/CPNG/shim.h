#ifndef ASSETPIPELINE_CPNG_SHIM_H
#define ASSETPIPELINE_CPNG_SHIM_H
#include <png.h>
#endif
