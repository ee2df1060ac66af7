// SPDX-License-Identifier: GPL-3.0-or-later
/* SysprofCaptureSummary: what one pass over a capture tells (frame counts,
 * the samples' times, counters, marks, logs, processes, embedded files,
 * metadata, D-Bus messages), so that a viewer (the app) can decide which views have data and
 * draw their charts without reading the capture again, and a command-line
 * tool can list what a capture holds.  Filled by one thread, then only read.
 * Times are nanoseconds from the capture's start.
 */
#pragma once

#if !defined(SYSPROF_INSIDE) && !defined(SYSPROF_COMPILATION)
#error "Only <sysprof.h> or <sysprof-analysis.h> can be included directly."
#endif

#include <gio/gio.h>
#include <sysprof-capture.h>

G_BEGIN_DECLS

/* Every time in a scan is within [-LIMIT, LIMIT] nanoseconds of the capture's
 * start (73 years) and every duration within [0, LIMIT], whatever the file
 * says: the sum or difference of any two then fits in a gint64, so the views
 * can add and subtract them without overflow checks. */
#define SYSPROF_SUMMARY_TIME_LIMIT (G_GINT64_CONSTANT (1) << 61)

typedef struct
{
  gint64 time_ns;
  gint32 cpu;
  gint32 pid;
  gint32 tid;
} SysprofSummarySample;

/* A thread off the CPU (an off-CPU sample of the scheduler details): from
 * @time_ns, for @duration_ns. */
typedef struct
{
  gint64 time_ns;
  gint64 duration_ns;
  gint32 pid;
  gint32 tid;
} SysprofSummaryWait;

typedef struct
{
  gint64 time_ns;
  double value;
} SysprofSummaryCounterValue;

typedef struct
{
  guint    id;
  char    *category;
  char    *name;
  char    *description;
  gboolean is_double;
  /* SysprofSummaryCounterValue, in time order. */
  GArray *values;
  double  min;
  double  max;
} SysprofSummaryCounter;

typedef struct
{
  gint64 time_ns;
  gint64 duration_ns;
  gint32 pid;
  char  *group;
  char  *name;
  char  *message;
} SysprofSummaryMark;

typedef struct
{
  gint64 time_ns;
  gint32 pid;
  guint  severity; /* GLogLevelFlags, as the LOG frame carries it */
  char  *domain;
  char  *message;
} SysprofSummaryLog;

typedef struct
{
  gint32   pid;
  char    *cmdline;  /* "" when the capture names none */
  gint64   begin_ns; /* its PROCESS or FORK frame, or its first frame */
  gint64   end_ns;   /* its EXIT frame, else its last frame */
  gboolean exited;
  guint64  n_samples;
  guint64  n_allocations;
} SysprofSummaryProcess;

typedef struct
{
  char   *path;
  guint64 size;
} SysprofSummaryFile;

typedef struct
{
  char *id;
  char *text;
} SysprofSummaryMetadata;

/* A D-Bus message (a DBUS_MESSAGE frame): when, on which bus, what kind,
 * and where its bytes are kept.  The type is the header's second byte, read
 * without decoding the rest (SysprofDbusMessages decodes the bytes). */
typedef struct
{
  gint64  time_ns;
  guint32 offset;   /* of its bytes in dbus_bytes, when kept */
  guint16 length;   /* of its bytes in the frame (0 when too large) */
  guint8  bus_type; /* SYSPROF_CAPTURE_DBUS_TYPE_* */
  /* GDBusMessageType: CALL, RETURN, ERROR or SIGNAL; INVALID when the bytes
   * cannot be a message's (short, no endianness mark, another type) or
   * the message was recorded without them (too_large). */
  guint8 type;
  guint8 too_large; /* MESSAGE_TOO_LARGE: no bytes recorded */
  guint8 kept;      /* its bytes are in dbus_bytes */
} SysprofSummaryDbusMessage;

/* The bytes of the D-Bus messages a summary keeps, at most (and then the
 * times, buses and types only: the D-Bus view reads the capture again). */
#define SYSPROF_SUMMARY_DBUS_BYTES_LIMIT (256u << 20)

/* The allocations of one millisecond of the capture. */
typedef struct
{
  gint64  ms; /* from the start, >= 0 */
  guint64 count;
} SysprofSummaryAllocationBucket;

typedef struct
{
  gint64  start_time; /* the header's: the origin of every time here */
  gint64  duration;   /* to the header's end time or the last frame, whichever is later */
  guint64 n_frames[SYSPROF_CAPTURE_FRAME_LAST];
  guint64 n_frames_total;
  guint64 n_lost_events;
  guint64 n_allocations; /* from ALLOCATION frames and memory streams */
  /* Memory streams: their blocks and their events (allocations and
   * releases), which n_frames does not count. */
  guint64    n_stream_blocks;
  guint64    n_stream_events;
  guint      n_cpus;
  GArray    *samples;            /* SysprofSummarySample (on the CPU), in time order */
  GArray    *waits;              /* SysprofSummaryWait, in time order */
  GPtrArray *counters;           /* SysprofSummaryCounter *, in definition order */
  char     **counter_categories; /* sorted, NULL-terminated */
  GArray    *marks;              /* SysprofSummaryMark, in time order */
  GArray    *logs;               /* SysprofSummaryLog, in time order */
  GArray    *processes;          /* SysprofSummaryProcess, by begin time */
  GArray    *files;              /* SysprofSummaryFile, by path */
  GArray    *metadata;           /* SysprofSummaryMetadata, in capture order */
  char      *host;
  /* SysprofSummaryAllocationBucket by ms, only the milliseconds with
   * allocations: the timeline's density for captures without samples.  At
   * most one per millisecond, where a time per allocation would be too big,
   * and nothing for the empty ones, so one frame far in the future costs
   * nothing. */
  GArray *allocation_buckets;
  GArray *dbus_messages; /* SysprofSummaryDbusMessage, in time order */
  /* The D-Bus messages' bytes, one after the other, up to
   * SYSPROF_SUMMARY_DBUS_BYTES_LIMIT; n_dbus_dropped messages (with bytes)
   * beyond it are not kept. */
  GByteArray *dbus_bytes;
  guint64     n_dbus_dropped;
} SysprofCaptureSummary;

/* @fraction of the file read. */
typedef void (*SysprofCaptureSummaryProgress) (double fraction, gpointer user_data);

/* @end_time: the header's end time (0 or before @start_time: unknown). */
SysprofCaptureSummary *sysprof_capture_summary_new (gint64 start_time, gint64 end_time);
void                   sysprof_capture_summary_free (SysprofCaptureSummary *scan);
/* Reads @reader (rewound) to its end.  Damage in the middle of the file is
 * not an error: what precedes it is kept, and a "sysprof-app.damage"
 * metadata entry says where it is.  FALSE only when cancelled. */
gboolean sysprof_capture_summary_read (SysprofCaptureSummary        *scan,
                                       SysprofCaptureReader         *reader,
                                       guint64                       file_size,
                                       SysprofCaptureSummaryProgress progress,
                                       gpointer                      user_data,
                                       GCancellable                 *cancellable,
                                       GError                      **error);
/* Adds a metadata entry of the app's own ("sysprof-app.symbols"). */
void sysprof_capture_summary_add_metadata (SysprofCaptureSummary *scan, const char *id, const char *text);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SysprofCaptureSummary, sysprof_capture_summary_free)

G_END_DECLS
