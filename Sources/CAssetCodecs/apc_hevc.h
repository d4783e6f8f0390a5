// Internal: libavcodec's HEVC decoder as a libheif decoder plugin (apc_hevc.c).
#ifndef APC_HEVC_H
#define APC_HEVC_H

#include <libheif/heif.h>
#include <libheif/heif_plugin.h>

/// The libheif functions the plugin calls, resolved by apc_heif.c from the libheif it opened.
typedef struct {
    __typeof__(&heif_register_decoder_plugin) heif_register_decoder_plugin;
    __typeof__(&heif_image_create) heif_image_create;
    __typeof__(&heif_image_add_plane) heif_image_add_plane;
    __typeof__(&heif_image_get_plane) heif_image_get_plane;
    __typeof__(&heif_image_release) heif_image_release;
    __typeof__(&heif_nclx_color_profile_alloc) heif_nclx_color_profile_alloc;
    __typeof__(&heif_image_set_nclx_color_profile) heif_image_set_nclx_color_profile;
    __typeof__(&heif_nclx_color_profile_free) heif_nclx_color_profile_free;
} apc_hevc_heif_functions;

/// Opens libavcodec and registers its HEVC decoder with libheif, ahead of libde265; call once,
/// after heif_init. 1 when registered; 0 when libavcodec or its HEVC decoder is missing, or when
/// ASSETPIPE_HEVC_LIBDE265 is set (libde265 then decodes, as before).
int apc_hevc_register(const apc_hevc_heif_functions *functions);

/// "libavcodec 59.37.100" once registered, else "".
const char *apc_hevc_version(void);

#endif
