#include "apc_report.h"

#include <string.h>

void apc_report_reset(apc_report *report) {
    if (report == NULL) return;
    report->message[0] = '\0';
    report->warnings[0] = '\0';
    report->warning_count = 0;
}

void apc_report_set_message(apc_report *report, const char *message) {
    if (report == NULL) return;
    size_t n = strlen(message);
    if (n >= APC_MESSAGE_CAPACITY) n = APC_MESSAGE_CAPACITY - 1;
    memcpy(report->message, message, n);
    report->message[n] = '\0';
}

void apc_report_add_warning(apc_report *report, const char *warning) {
    if (report == NULL) return;
    report->warning_count += 1;
    size_t used = strlen(report->warnings);
    size_t n = strlen(warning);
    // Keep whole warnings only: each needs its text, a '\n' and the final NUL.
    if (used + n + 2 > APC_WARNINGS_CAPACITY) return;
    memcpy(report->warnings + used, warning, n);
    report->warnings[used + n] = '\n';
    report->warnings[used + n + 1] = '\0';
}
