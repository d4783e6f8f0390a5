#ifndef ASSETPIPELINE_CAVIF_SHIM_H
#define ASSETPIPELINE_CAVIF_SHIM_H
#include <avif/avif.h>
#endif
