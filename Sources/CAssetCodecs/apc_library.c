// Libraries opened on demand. See apc_library.h.
#include "apc_library.h"
#include "apc_report.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

// pthread_once takes no argument: the library being opened is handed over in a thread-local.
static _Thread_local apc_library *apc_library_opening;

static void apc_library_load(void) {
    apc_library *library = apc_library_opening;
    void *handle = dlopen(library->soname, RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) {
        const char *reason = dlerror();
        snprintf(library->failure, sizeof library->failure, "%s could not be opened (%s)", library->soname,
                 reason ? reason : "no reason given");
        return;
    }
    for (size_t i = 0; i < library->count; i++) {
        library->slots[i] = dlsym(handle, library->names[i]);
        if (library->slots[i] == NULL) {
            snprintf(library->failure, sizeof library->failure, "%s has no %s", library->soname, library->names[i]);
            return;
        }
    }
    library->opened = 1;
}

int apc_library_open(apc_library *library, apc_report *report) {
    apc_library_opening = library;
    pthread_once(&library->once, apc_library_load);
    apc_library_opening = NULL;
    if (library->opened) return 1;
    apc_report_set_message(report, library->failure);
    return 0;
}

const char *apc_library_version(const char *name) {
    if (name == NULL) return "";
    if (strcmp(name, "webp") == 0) return apc_webp_library_version();
    if (strcmp(name, "avif") == 0) return apc_avif_library_version();
    if (strcmp(name, "heif") == 0) return apc_heif_library_version();
    if (strcmp(name, "gif") == 0) return apc_gif_library_version();
    if (strcmp(name, "tiff") == 0) return apc_tiff_library_version();
    if (strcmp(name, "svg") == 0) return apc_svg_library_version();
    if (strcmp(name, "jxl") == 0) return apc_jxl_library_version();
    return "";
}
