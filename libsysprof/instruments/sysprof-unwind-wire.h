// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#if !defined(SYSPROF_INSIDE) && !defined(SYSPROF_COMPILATION)
#error "Only <sysprof.h> or <sysprof-instruments.h> can be included directly."
#endif

#include <glib.h>

G_BEGIN_DECLS

/* The messages between a recorder (SysprofUnwindClient, in sysprofd or a
 * root client) and its unwinding helper (daemon/unwinder/sysprof-unwinder),
 * one per SOCK_SEQPACKET datagram, in host byte order (both ends run on the
 * same machine, from the same build).
 *
 * The helper parses ELF files and unwinds stacks that the profiled programs
 * control, so it is the side that must survive anything: it checks each
 * message's type and exact size and ignores what does not fit.  It answers
 * every well-formed SAMPLE with one FRAMES, in order, and nothing else. */

/* perf's own bound for PERF_SAMPLE_STACK_USER: the size is a u16 in the
 * record, rounded down to 8 bytes. */
#define SYSPROF_UNWIND_MAX_STACK 65528
/* perf's default stack copy for --call-graph dwarf. */
#define SYSPROF_UNWIND_DEFAULT_STACK 8192
/* User frames returned per sample at most. */
#define SYSPROF_UNWIND_MAX_FRAMES 128
/* Same numbering as SysprofDwarfUnwinder: DWARF registers 0..16 of x86-64. */
#define SYSPROF_UNWIND_N_REGS 17

typedef enum
{
  /* A mapped file; its descriptor (exactly one, read-only) rides along as
   * SCM_RIGHTS.  Ids are the client's; a file is sent once per session. */
  SYSPROF_UNWIND_MSG_FILE = 1,
  /* An executable mapping of a process. */
  SYSPROF_UNWIND_MSG_MAP = 2,
  /* A process exec'd or exited: its mappings are gone. */
  SYSPROF_UNWIND_MSG_FORGET = 3,
  /* A sample to unwind; answered by FRAMES. */
  SYSPROF_UNWIND_MSG_SAMPLE = 4,
  /* A process forked: the child has its parent's mappings until it execs. */
  SYSPROF_UNWIND_MSG_FORK = 5,
  /* helper -> client. */
  SYSPROF_UNWIND_MSG_FRAMES = 0x80,
} SysprofUnwindMsgType;

/* Values of SysprofUnwindFrames.status: SysprofDwarfUnwindStatus's. */
typedef enum
{
  SYSPROF_UNWIND_STATUS_COMPLETE = 0,
  SYSPROF_UNWIND_STATUS_TRUNCATED = 1,
  SYSPROF_UNWIND_STATUS_OUTSIDE_MAPPINGS = 2,
  SYSPROF_UNWIND_STATUS_FAILED = 3,
} SysprofUnwindStatus;

typedef struct
{
  guint32 type;
  guint32 file_id;
  /* For the helper's messages only; NUL-terminated within. */
  char name[248];
} SysprofUnwindFile;

typedef struct
{
  guint32 type;
  gint32  pid;
  guint32 file_id;
  guint32 padding;
  guint64 start;
  guint64 end;
  guint64 pgoff;
} SysprofUnwindMap;

typedef struct
{
  guint32 type;
  gint32  pid;
} SysprofUnwindForget;

typedef struct
{
  guint32 type;
  gint32  parent;
  gint32  child;
} SysprofUnwindFork;

typedef struct
{
  guint32 type;
  gint32  pid;
  gint32  tid;
  /* Bytes of stack that follow the header, at most SYSPROF_UNWIND_MAX_STACK. */
  guint32 stack_len;
  guint64 seq;
  guint64 regs[SYSPROF_UNWIND_N_REGS];
  /* guint8 stack[stack_len]; */
} SysprofUnwindSample;

typedef struct
{
  guint32 type;
  guint32 status;
  guint64 seq;
  guint32 n_addrs;
  guint32 padding;
  /* guint64 addrs[n_addrs], innermost first; at most SYSPROF_UNWIND_MAX_FRAMES. */
} SysprofUnwindFrames;

G_STATIC_ASSERT (sizeof (SysprofUnwindFile) == 256);
G_STATIC_ASSERT (sizeof (SysprofUnwindMap) == 40);
G_STATIC_ASSERT (sizeof (SysprofUnwindForget) == 8);
G_STATIC_ASSERT (sizeof (SysprofUnwindFork) == 12);
G_STATIC_ASSERT (sizeof (SysprofUnwindSample) == 24 + 8 * SYSPROF_UNWIND_N_REGS);
G_STATIC_ASSERT (sizeof (SysprofUnwindFrames) == 24);

/* The largest datagram either side sends. */
#define SYSPROF_UNWIND_MAX_MESSAGE (sizeof (SysprofUnwindSample) + SYSPROF_UNWIND_MAX_STACK)

G_END_DECLS
