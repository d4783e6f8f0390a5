#ifndef ASSETPIPELINE_CXXHASH_SHIM_H
#define ASSETPIPELINE_CXXHASH_SHIM_H
// xxHash (Debian's libxxhash-dev): XXH3-128 is the disk cache's content checksum.
#include <xxhash.h>
#endif
