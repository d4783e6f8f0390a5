#ifndef ASSETPIPELINE_CRLOTTIE_SHIM_H
#define ASSETPIPELINE_CRLOTTIE_SHIM_H
// rlottie (Debian's librlottie-dev): its C API. Swift calls rlottie only through
// CAssetLottieRender, whose C++ entry point catches the library's exceptions.
#include <rlottie_capi.h>
#endif
