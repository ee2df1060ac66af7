// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#if !defined(SYSPROF_INSIDE) && !defined(SYSPROF_COMPILATION)
#error "Only <sysprof.h> or <sysprof-instruments.h> can be included directly."
#endif

#include <gio/gio.h>
#include <sysprof-capture.h>

G_BEGIN_DECLS

#define SYSPROF_COUNTER_RECORDER_DEFAULT_INTERVAL_MS 250

#define SYSPROF_TYPE_COUNTER_RECORDER (sysprof_counter_recorder_get_type ())

/* Samples system-wide counters from /proc (no privileges needed) into a
 * capture writer, with the categories and names Sysprof's UI looks for.  Every
 * frame has pid -1 and cpu -1.  Counter sets, by name given to start():
 *  - "cpu": "CPU Percent" / "Total CPU N" for each CPU online at start and
 *    "Combined" (DOUBLE, 0 to 100: busy share of the time elapsed since the
 *    previous sample, from /proc/stat; idle and iowait count as idle);
 *  - "memory": "Memory" / "Used" (MemTotal - MemAvailable), "Total" and
 *    "Available" (DOUBLE, bytes, from /proc/meminfo);
 *  - "disk": "Disk" / "Total Reads (dev)" and "Total Writes (dev)" for each
 *    whole disk of /proc/diskstats (at most 32; loop and ram devices without
 *    any I/O are left out), and "Total Reads (Combined)" / "Total Writes
 *    (Combined)", their sums (INT64, cumulative bytes: sectors × 512);
 *  - "network": "Network" / "RX Bytes" and "TX Bytes", description "Combined"
 *    (INT64, cumulative bytes summed over the interfaces of /proc/net/dev but
 *    "lo").
 * The CTRDEF frames carry the values read at start (0 for CPU percentages);
 * a CTRSET frame with every value follows each interval and stop(). */
SYSPROF_AVAILABLE_IN_ALL
G_DECLARE_FINAL_TYPE (SysprofCounterRecorder, sysprof_counter_recorder, SYSPROF, COUNTER_RECORDER, GObject)

/* Keeps a reference on @writer. */
SYSPROF_AVAILABLE_IN_ALL
SysprofCounterRecorder *sysprof_counter_recorder_new (SysprofCaptureWriter *writer);
/* Defines the counters of @counters ("cpu", "memory", "disk", "network"; NULL
 * or empty for none, duplicates are ignored), then samples them every
 * @interval_ms (0 for SYSPROF_COUNTER_RECORDER_DEFAULT_INTERVAL_MS) from a
 * timer on the thread-default main context.  An unknown name fails with
 * G_IO_ERROR_INVALID_ARGUMENT; an unreadable /proc file or an unwritable
 * capture fails too.  On failure nothing is left running and start may be
 * called again; after a successful start the recorder records once. */
SYSPROF_AVAILABLE_IN_ALL
gboolean sysprof_counter_recorder_start (SysprofCounterRecorder *self,
                                         const char *const      *counters,
                                         guint                   interval_ms,
                                         GError                **error);
/* Writes a last sample and removes the timer.  Does nothing when not
 * recording; disposing a recorder stops it. */
/* Writes the counters' definitions again, with their last values, ids
 * unchanged: for a writer that went on in a new capture
 * (sysprof_capture_writer_switch_fd).  FALSE with errno when they could not
 * be written; TRUE when there is nothing to define. */
SYSPROF_AVAILABLE_IN_ALL
gboolean sysprof_counter_recorder_define_again (SysprofCounterRecorder *self);
SYSPROF_AVAILABLE_IN_ALL
void sysprof_counter_recorder_stop (SysprofCounterRecorder *self);
SYSPROF_AVAILABLE_IN_ALL
gboolean sysprof_counter_recorder_is_running (SysprofCounterRecorder *self);
/* Counters defined by start(). */
SYSPROF_AVAILABLE_IN_ALL
guint sysprof_counter_recorder_get_n_counters (SysprofCounterRecorder *self);
/* CTRSET frames added to the writer. */
SYSPROF_AVAILABLE_IN_ALL
guint64 sysprof_counter_recorder_get_n_samples (SysprofCounterRecorder *self);
/* Frames the writer refused (capture full or unwritable). */
SYSPROF_AVAILABLE_IN_ALL
guint64 sysprof_counter_recorder_get_n_write_errors (SysprofCounterRecorder *self);

#ifdef SYSPROF_INSTRUMENTS_COMPILATION
/* Parsers, exposed for the tests.  They take the whole NUL-terminated file
 * and skip whatever they do not understand. */
typedef struct
{
  int     cpu; /* -1: the "cpu" line (all CPUs) */
  guint64 total;
  guint64 idle;
} SysprofCpuTimes;

typedef struct
{
  char    name[32];
  guint64 read_bytes;
  guint64 write_bytes;
} SysprofDiskBytes;

/* Appends SysprofCpuTimes, at most 4097 (the "cpu" line and 4096 CPUs). */
void _sysprof_counter_parse_stat (const char *contents, GArray *times);
/* Bytes; FALSE when MemTotal is missing. */
gboolean _sysprof_counter_parse_meminfo (const char *contents, guint64 *total, guint64 *available);
/* Appends SysprofDiskBytes of every line (whole disks or not), at most 4096. */
void _sysprof_counter_parse_diskstats (const char *contents, GArray *disks);
/* Sums over every interface but "lo". */
void _sysprof_counter_parse_net_dev (const char *contents, guint64 *rx_bytes, guint64 *tx_bytes);
#endif

G_END_DECLS
