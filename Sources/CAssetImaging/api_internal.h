// Internal helpers shared by the imaging files.
#ifndef API_INTERNAL_H
#define API_INTERNAL_H

#include "CAssetImaging.h"

/// Copies `message` into the report (truncated to fit); NULL reports are allowed.
void api_report_set(api_report *report, const char *message);
/// Clears the report.
void api_report_clear(api_report *report);
/// Appends `count` bytes; 0 on success, -1 when the limit or memory refuses them (the buffer is
/// left as it was, `overflowed` set for the limit).
int api_buffer_append(api_buffer *buffer, const void *bytes, size_t count);

#endif
