// SPDX-License-Identifier: GPL-3.0-or-later
/* A profile in pprof's format (profile.proto of github.com/google/pprof, the
 * format Google's pprof, Parca, Pyroscope, Grafana and Datadog read): the
 * string table, mappings (with build-ids), functions, locations (an
 * address and its lines, the inlined functions first), samples with their
 * values and labels, encoded by hand as protocol buffers and gzipped as
 * pprof writes them.  Mappings, functions and locations are interned by
 * their contents. */
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
/* A mapping: [@start, @limit) of a process mapping @filename ("" for
 * none) from its @offset, with @build_id (NULL: unknown).  The same id for
 * the same values. */
guint64 report_pprof_mapping (
    ReportPprof *self, guint64 start, guint64 limit, guint64 offset, const char *filename, const char *build_id);
/* A function named @name, of source file @filename (NULL: unknown).  The
 * same id for the same values. */
guint64 report_pprof_function (ReportPprof *self, const char *name, const char *filename);

/* One line of a location: a function, and the line in it (0: unknown). */
typedef struct
{
  guint64 function;
  guint64 line;
} ReportPprofLine;

/* What a location's lines know, which its mapping's has_* fields say of
 * all its locations (pprof symbolizes a mapping that says nothing). */
typedef enum
{
  REPORT_PPROF_FUNCTIONS = 1 << 0,     /* its functions are named by symbols */
  REPORT_PPROF_FILENAMES = 1 << 1,     /* and have their source files */
  REPORT_PPROF_LINE_NUMBERS = 1 << 2,  /* every line is known */
  REPORT_PPROF_INLINE_FRAMES = 1 << 3, /* the functions inlined at the address were looked for */
} ReportPprofSymbolic;

/* A location: @address in @mapping (0: in none), with @lines innermost
 * first (profile.proto: "the last entry is the caller").  The same id for
 * the same mapping, address and lines. */
guint64 report_pprof_location (ReportPprof           *self,
                               guint64                mapping,
                               guint64                address,
                               const ReportPprofLine *lines,
                               guint                  n_lines,
                               ReportPprofSymbolic    symbolic);

/* A label of a sample: a string (@str), or a number (@str NULL) with an
 * optional unit. */
typedef struct
{
  const char *key;
  const char *str;
  gint64      num;
  const char *num_unit;
} ReportPprofLabel;

/* A sample: @locations innermost first, one value per sample type, and its
 * labels. */
void report_pprof_add_sample (ReportPprof            *self,
                              const guint64          *locations,
                              guint                   n_locations,
                              const gint64           *values,
                              const ReportPprofLabel *labels,
                              guint                   n_labels);
/* The gzipped profile; FALSE with @error when compressing failed. */
GBytes *report_pprof_encode (ReportPprof *self, GError **error);

G_END_DECLS
