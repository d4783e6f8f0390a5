#ifndef ASSETPIPELINE_CLCMS2_SHIM_H
#define ASSETPIPELINE_CLCMS2_SHIM_H
#include <lcms2.h>
#endif
