// SPDX-License-Identifier: GPL-3.0-or-later
/* SysprofDocumentScan: what one pass over a capture tells the app's views
 * (frame counts, the samples' times, counters, marks, logs, processes,
 * embedded files, metadata), so they can decide whether they have data and
 * draw their charts without reading the capture again.  Filled by one
 * thread, then only read.  Times are nanoseconds from the capture's start.
 */
#pragma once

#include <gio/gio.h>
#include <sysprof-capture.h>

G_BEGIN_DECLS

/* Every time in a scan is within [-LIMIT, LIMIT] nanoseconds of the capture's
 * start (73 years) and every duration within [0, LIMIT], whatever the file
 * says: the sum or difference of any two then fits in a gint64, so the views
 * can add and subtract them without overflow checks. */
#define SYSPROF_DOCUMENT_TIME_LIMIT (G_GINT64_CONSTANT (1) << 61)

typedef struct
{
  gint64 time_ns;
  gint32 cpu;
  gint32 pid;
  gint32 tid;
} SysprofDocumentSample;

typedef struct
{
  gint64 time_ns;
  double value;
} SysprofDocumentCounterValue;

typedef struct
{
  guint    id;
  char    *category;
  char    *name;
  char    *description;
  gboolean is_double;
  /* SysprofDocumentCounterValue, in time order. */
  GArray *values;
  double  min;
  double  max;
} SysprofDocumentCounter;

typedef struct
{
  gint64 time_ns;
  gint64 duration_ns;
  gint32 pid;
  char  *group;
  char  *name;
  char  *message;
} SysprofDocumentMark;

typedef struct
{
  gint64 time_ns;
  gint32 pid;
  guint  severity; /* GLogLevelFlags, as the LOG frame carries it */
  char  *domain;
  char  *message;
} SysprofDocumentLog;

typedef struct
{
  gint32   pid;
  char    *cmdline;  /* "" when the capture names none */
  gint64   begin_ns; /* its PROCESS or FORK frame, or its first frame */
  gint64   end_ns;   /* its EXIT frame, else its last frame */
  gboolean exited;
  guint64  n_samples;
  guint64  n_allocations;
} SysprofDocumentProcess;

typedef struct
{
  char   *path;
  guint64 size;
} SysprofDocumentFile;

typedef struct
{
  char *id;
  char *text;
} SysprofDocumentMetadata;

/* The allocations of one millisecond of the capture. */
typedef struct
{
  gint64  ms; /* from the start, >= 0 */
  guint64 count;
} SysprofDocumentAllocationBucket;

typedef struct
{
  gint64     start_time; /* the header's: the origin of every time here */
  gint64     duration;   /* to the header's end time or the last frame, whichever is later */
  guint64    n_frames[SYSPROF_CAPTURE_FRAME_LAST];
  guint64    n_frames_total;
  guint64    n_lost_events;
  guint64    n_allocations;
  guint      n_cpus;
  GArray    *samples;            /* SysprofDocumentSample, in time order */
  GPtrArray *counters;           /* SysprofDocumentCounter *, in definition order */
  char     **counter_categories; /* sorted, NULL-terminated */
  GArray    *marks;              /* SysprofDocumentMark, in time order */
  GArray    *logs;               /* SysprofDocumentLog, in time order */
  GArray    *processes;          /* SysprofDocumentProcess, by begin time */
  GArray    *files;              /* SysprofDocumentFile, by path */
  GArray    *metadata;           /* SysprofDocumentMetadata, in capture order */
  char      *host;
  /* SysprofDocumentAllocationBucket by ms, only the milliseconds with
   * allocations: the timeline's density for captures without samples.  At
   * most one per millisecond, where a time per allocation would be too big,
   * and nothing for the empty ones, so one frame far in the future costs
   * nothing. */
  GArray *allocation_buckets;
} SysprofDocumentScan;

/* @fraction of the file read. */
typedef void (*SysprofDocumentScanProgress) (double fraction, gpointer user_data);

/* @end_time: the header's end time (0 or before @start_time: unknown). */
SysprofDocumentScan *sysprof_document_scan_new (gint64 start_time, gint64 end_time);
void                 sysprof_document_scan_free (SysprofDocumentScan *scan);
/* Reads @reader (rewound) to its end.  Damage in the middle of the file is
 * not an error: what precedes it is kept, and a "sysprof-app.damage"
 * metadata entry says where it is.  FALSE only when cancelled. */
gboolean sysprof_document_scan_read (SysprofDocumentScan        *scan,
                                     SysprofCaptureReader       *reader,
                                     guint64                     file_size,
                                     SysprofDocumentScanProgress progress,
                                     gpointer                    user_data,
                                     GCancellable               *cancellable,
                                     GError                    **error);
/* Adds a metadata entry of the app's own ("sysprof-app.symbols"). */
void sysprof_document_scan_add_metadata (SysprofDocumentScan *scan, const char *id, const char *text);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SysprofDocumentScan, sysprof_document_scan_free)

G_END_DECLS
