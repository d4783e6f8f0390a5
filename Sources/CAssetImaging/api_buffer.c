// The growing output buffer of the encoders, and the report helpers.
#include "api_internal.h"

#include <stdlib.h>
#include <string.h>

void api_report_set(api_report *report, const char *message) {
    if (report == NULL) return;
    if (message == NULL) message = "unknown error";
    size_t n = strlen(message);
    if (n >= API_MESSAGE_CAPACITY) n = API_MESSAGE_CAPACITY - 1;
    memcpy(report->message, message, n);
    report->message[n] = 0;
}

void api_report_clear(api_report *report) {
    if (report != NULL) report->message[0] = 0;
}

void api_buffer_free(api_buffer *buffer) {
    if (buffer == NULL) return;
    free(buffer->data);
    buffer->data = NULL;
    buffer->length = 0;
    buffer->capacity = 0;
    buffer->overflowed = 0;
}

int api_buffer_append(api_buffer *buffer, const void *bytes, size_t count) {
    if (count == 0) return 0;
    if (count > SIZE_MAX - buffer->length) return -1;
    size_t needed = buffer->length + count;
    if (buffer->limit != 0 && needed > buffer->limit) {
        buffer->overflowed = 1;
        return -1;
    }
    if (needed > buffer->capacity) {
        size_t capacity = buffer->capacity < 4096 ? 4096 : buffer->capacity;
        while (capacity < needed) capacity = capacity > SIZE_MAX / 2 ? needed : capacity * 2;
        if (buffer->limit != 0 && capacity > buffer->limit) capacity = buffer->limit;
        uint8_t *grown = realloc(buffer->data, capacity);
        if (grown == NULL) return -1;
        buffer->data = grown;
        buffer->capacity = capacity;
    }
    memcpy(buffer->data + buffer->length, bytes, count);
    buffer->length = needed;
    return 0;
}
