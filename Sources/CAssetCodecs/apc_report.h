// Internal helpers shared by the codec files: filling an apc_report.
#ifndef APC_REPORT_H
#define APC_REPORT_H

#include "CAssetCodecs.h"

/// Clears the report.
void apc_report_reset(apc_report *report);
/// Copies `message` into the report's error message (truncated to fit).
void apc_report_set_message(apc_report *report, const char *message);
/// Appends a warning if it fits, and counts it either way.
void apc_report_add_warning(apc_report *report, const char *warning);

#endif
