// Internal: a library opened on demand (dlopen by soname, once) and its functions resolved by name.
//
// A format file lists the functions it calls in an X-macro and keeps them in a struct of typed
// pointers, so that a call reads as `heif.heif_context_alloc()` and the compiler checks every call
// against the library's own header:
//
//   #define HEIF_FUNCTIONS(X) X(heif_context_alloc) X(heif_context_free)
//   static struct { HEIF_FUNCTIONS(APC_LIBRARY_POINTER) } heif;
//   static const char *const heif_names[] = { HEIF_FUNCTIONS(APC_LIBRARY_NAME) };
//   static apc_library heif_library = APC_LIBRARY("libheif.so.1", heif_names, heif);
//   if (!apc_library_open(&heif_library, report)) return APC_ERR_UNSUPPORTED;
#ifndef APC_LIBRARY_H
#define APC_LIBRARY_H

#include "CAssetCodecs.h"

#include <pthread.h>

#define APC_LIBRARY_POINTER(name) __typeof__(&name) name;
#define APC_LIBRARY_NAME(name) #name,
#define APC_LIBRARY(soname, names, table)                                                     \
    {soname, names, (void **)&(table), sizeof(names) / sizeof((names)[0]), PTHREAD_ONCE_INIT, \
     0, {0}};                                                                                 \
    _Static_assert(sizeof(table) == sizeof(names) / sizeof((names)[0]) * sizeof(void *),      \
                   "one name per function pointer")

typedef struct {
    const char *soname;
    const char *const *names;
    void **slots;
    size_t count;
    pthread_once_t once;
    int opened;           // 1 once every function resolved
    char failure[200];    // why not, else empty
} apc_library;

/// Opens the library and resolves its functions on the first call (thread-safe); later calls
/// return the first outcome. 1 when usable; else 0 with the reason in the report's message.
int apc_library_open(apc_library *library, apc_report *report);

/// The per-format version strings behind apc_library_version.
const char *apc_webp_library_version(void);
const char *apc_avif_library_version(void);
const char *apc_heif_library_version(void);
const char *apc_gif_library_version(void);
const char *apc_tiff_library_version(void);
const char *apc_svg_library_version(void);
const char *apc_jxl_library_version(void);

#endif
