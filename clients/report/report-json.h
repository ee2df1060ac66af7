// SPDX-License-Identifier: GPL-3.0-or-later
/* A JSON text written in one pass into memory: objects, arrays, keys,
 * strings, integers.  The writer puts the commas and colons; strings are
 * untrusted bytes (symbol names, process names, paths): invalid UTF-8
 * becomes U+FFFD and control characters are escaped, so the text is always
 * valid JSON.  Nesting mistakes are programmer errors (g_return_if_fail). */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct _ReportJson ReportJson;

ReportJson *report_json_new (void);
void        report_json_free (ReportJson *self);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (ReportJson, report_json_free)

void report_json_begin_object (ReportJson *self);
void report_json_end_object (ReportJson *self);
void report_json_begin_array (ReportJson *self);
void report_json_end_array (ReportJson *self);
/* The name of the next member of the object being written. */
void report_json_key (ReportJson *self, const char *key);
void report_json_string (ReportJson *self, const char *value);
void report_json_int (ReportJson *self, gint64 value);
void report_json_uint (ReportJson *self, guint64 value);
void report_json_bool (ReportJson *self, gboolean value);
/* A line break before the next value or key (after its comma): long arrays stay readable with a
 * line-oriented tool. */
void report_json_newline (ReportJson *self);

/* The text, once every object and array is closed (NULL before). */
GBytes *report_json_finish (ReportJson *self);

/* Appends @value as a JSON string literal (quotes included) to @out. */
void report_json_append_string (GString *out, const char *value);

G_END_DECLS
