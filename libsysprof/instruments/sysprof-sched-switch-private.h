// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#ifndef SYSPROF_INSTRUMENTS_COMPILATION
#error "sysprof-sched-switch-private.h is private to libsysprof/instruments."
#endif

#include <gio/gio.h>

G_BEGIN_DECLS

/* The sched:sched_switch tracepoint: its id for perf_event_open(2)
 * (PERF_TYPE_TRACEPOINT) and where its fields lie in a sample's RAW data,
 * read from tracefs (events/sched/sched_switch/format) rather than assumed:
 * the layout changed between kernels (prev_state's type and place). */
typedef struct
{
  guint64 id;
  guint   prev_comm_offset;
  guint   prev_comm_size;
  guint   prev_pid_offset;
  guint   prev_state_offset;
  guint   prev_state_size; /* 4 or 8 */
  guint   next_pid_offset;
  /* The smallest RAW record holding every field above. */
  guint min_size;
} SysprofSchedSwitchFormat;

/* One switch, from a sample's RAW data. */
typedef struct
{
  char    prev_comm[17]; /* NUL-terminated, as the kernel had it (up to 16 bytes) */
  gint32  prev_pid;      /* the task leaving the CPU (a thread id; 0: idle) */
  guint64 prev_state;    /* 0: still runnable (preempted); else why it sleeps */
  gint32  next_pid;      /* the task taking the CPU */
} SysprofSchedSwitch;

/* Parses the text of a tracepoint's format file (untrusted in the sense that
 * it is a kernel's text we do not control: any content gives FALSE and a
 * G_IO_ERROR_INVALID_DATA message, never a read out of bounds). */
gboolean
_sysprof_sched_switch_format_parse (const char *text, gsize length, SysprofSchedSwitchFormat *format, GError **error);
/* Reads the format from the mounted tracefs (/sys/kernel/tracing, then
 * /sys/kernel/debug/tracing): G_IO_ERROR_NOT_FOUND naming the mount command
 * when neither is mounted. */
gboolean _sysprof_sched_switch_format_load (SysprofSchedSwitchFormat *format, GError **error);
/* Reads the fields of one RAW record; FALSE when it is too short. */
gboolean _sysprof_sched_switch_read (const SysprofSchedSwitchFormat *format,
                                     const guint8                   *raw,
                                     gsize                           size,
                                     SysprofSchedSwitch             *out);

G_END_DECLS
