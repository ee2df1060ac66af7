// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#if !defined(SYSPROF_INSIDE) && !defined(SYSPROF_COMPILATION)
#error "Only <sysprof.h> or <sysprof-symbols.h> can be included directly."
#endif

#include <gio/gio.h>

G_BEGIN_DECLS

/* The user registers a sample carries, in DWARF numbering for x86-64: rax,
 * rdx, rcx, rbx, rsi, rdi, rbp, rsp, r8..r15, then the return address column
 * (16), which holds the instruction pointer. */
#define SYSPROF_DWARF_UNWINDER_N_REGS 17
#define SYSPROF_DWARF_UNWINDER_REG_SP 7
#define SYSPROF_DWARF_UNWINDER_REG_IP 16

/* Limits on what one caller can make us hold: a process's executable
 * mappings, the files, the processes with a live DWARF state (the least
 * recently used one is dropped beyond that: its state is rebuilt on demand). */
#define SYSPROF_DWARF_UNWINDER_MAX_MAPS      4096
#define SYSPROF_DWARF_UNWINDER_MAX_FILES     16384
#define SYSPROF_DWARF_UNWINDER_MAX_PROCESSES 65536
#define SYSPROF_DWARF_UNWINDER_MAX_LIVE      64

typedef enum
{
  /* Unwound up to the outermost frame (_start, clone: the CFI says the
   * return address is undefined there). */
  SYSPROF_DWARF_UNWIND_COMPLETE,
  /* Frames were found, then unwinding stopped early: the copied stack ended,
   * a frame has no CFI, or the depth limit was reached. */
  SYSPROF_DWARF_UNWIND_TRUNCATED,
  /* The next return address lies in no executable mapping of the process:
   * the frames before it are kept, nothing after (no garbage frame). */
  SYSPROF_DWARF_UNWIND_OUTSIDE_MAPPINGS,
  /* Not even the first frame: the process's mappings are unknown or the
   * instruction pointer is in none of them. */
  SYSPROF_DWARF_UNWIND_FAILED,
} SysprofDwarfUnwindStatus;

/* Unwinds copies of user stacks (perf's PERF_SAMPLE_REGS_USER and
 * PERF_SAMPLE_STACK_USER) with libdwfl's CFI unwinder (.eh_frame, and
 * .debug_frame when the file itself has it).  It never opens a file: the
 * mapped files are handed over as descriptors (so that it can run in a
 * process that may not open anything) and the stack is whatever bytes the
 * caller copied.  It never maps a file either: each is read through pread,
 * once for all the processes that map it, while one of them has a live
 * state.  Everything it is given is treated as hostile: a malformed ELF
 * file, one truncated or rewritten meanwhile, absurd registers or a garbage
 * stack give a short or failed stack, never a crash or an unbounded loop.
 * Not thread-safe. */
typedef struct _SysprofDwarfUnwinder SysprofDwarfUnwinder;

SysprofDwarfUnwinder *sysprof_dwarf_unwinder_new (void);
void                  sysprof_dwarf_unwinder_free (SysprofDwarfUnwinder *self);

/* Takes @fd (closed here on failure too), the file known as @file_id from
 * now on (a new file under a known id replaces the old one for mappings made
 * afterwards).  @name is for messages.  FALSE with G_IO_ERROR_INVALID_DATA
 * when it is not an ELF file of this machine, G_IO_ERROR_TOO_MANY_OPEN_FILES
 * beyond the limit. */
gboolean
sysprof_dwarf_unwinder_add_file (SysprofDwarfUnwinder *self, guint32 file_id, int fd, const char *name, GError **error);
/* An executable mapping [@start, @end) of @pid showing @file_id from file
 * offset @pgoff.  A mapping that overlaps known ones replaces them (the
 * kernel did the same).  FALSE for an unknown file, an empty range or beyond
 * the limits. */
gboolean sysprof_dwarf_unwinder_add_map (
    SysprofDwarfUnwinder *self, gint32 pid, guint64 start, guint64 end, guint64 pgoff, guint32 file_id, GError **error);
/* @child was forked by @parent: it has the same mappings (until it execs).
 * Nothing happens when @parent is unknown. */
void sysprof_dwarf_unwinder_fork (SysprofDwarfUnwinder *self, gint32 parent, gint32 child);
/* Forgets @pid's mappings (an exec, an exit). */
void     sysprof_dwarf_unwinder_forget_process (SysprofDwarfUnwinder *self, gint32 pid);
gboolean sysprof_dwarf_unwinder_has_process (SysprofDwarfUnwinder *self, gint32 pid);

/* Unwinds the thread @tid of @pid from @regs (SYSPROF_DWARF_UNWINDER_N_REGS
 * values) and the copy of its stack @stack (@stack_len bytes from the stack
 * pointer up).  Writes at most @max_addrs instruction addresses to @addrs,
 * innermost first (the instruction pointer, then return addresses), in
 * *@n_addrs. */
SysprofDwarfUnwindStatus sysprof_dwarf_unwinder_unwind (SysprofDwarfUnwinder *self,
                                                        gint32                pid,
                                                        gint32                tid,
                                                        const guint64        *regs,
                                                        const guint8         *stack,
                                                        gsize                 stack_len,
                                                        guint64              *addrs,
                                                        guint                 max_addrs,
                                                        guint                *n_addrs);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SysprofDwarfUnwinder, sysprof_dwarf_unwinder_free)

G_END_DECLS
