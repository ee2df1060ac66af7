// SPDX-License-Identifier: GPL-3.0-or-later
/* A profile in pprof's format (profile.proto of github.com/google/pprof, the
 * format Google's pprof, Parca, Pyroscope, Grafana and Datadog read): the
 * string table, functions, mappings (one per library), locations (one per
 * function: no addresses, the functions are already named), samples with
 * their values and labels, encoded by hand as protocol buffers and gzipped
 * as pprof writes them. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct _ReportPprof ReportPprof;

ReportPprof *report_pprof_new (void);
void         report_pprof_free (ReportPprof *self);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (ReportPprof, report_pprof_free)

/* Each sample's values, in this order ("samples", "count"). */
void report_pprof_add_sample_type (ReportPprof *self, const char *type, const char *unit);
/* What one unit of the sampling is ("cpu", "nanoseconds", 1003009). */
void report_pprof_set_period (ReportPprof *self, const char *type, const char *unit, gint64 period);
void report_pprof_set_time (ReportPprof *self, gint64 time_nanos, gint64 duration_nanos);
void report_pprof_add_comment (ReportPprof *self, const char *comment);
/* The location of a function (the same id for the same @key), named @name,
 * in @library (a mapping of its own; "" for none), from @filename at @line
 * (NULL and 0 when unknown). */
guint64 report_pprof_location (
    ReportPprof *self, gconstpointer key, const char *name, const char *library, const char *filename, guint line);
/* A sample: @locations innermost first, one value per sample type, and a
 * string label (@label_key NULL for none). */
void report_pprof_add_sample (ReportPprof   *self,
                              const guint64 *locations,
                              guint          n_locations,
                              const gint64  *values,
                              const char    *label_key,
                              const char    *label_value);
/* The gzipped profile; FALSE with @error when compressing failed. */
GBytes *report_pprof_encode (ReportPprof *self, GError **error);

G_END_DECLS
