// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#if !defined(SYSPROF_INSIDE) && !defined(SYSPROF_COMPILATION)
#error "Only <sysprof.h> or <sysprof-symbols.h> can be included directly."
#endif

#include <gio/gio.h>
#include <sysprof-capture.h>

G_BEGIN_DECLS

typedef enum
{
  SYSPROF_SYMBOL_USER,       /* a function of a user-space binary */
  SYSPROF_SYMBOL_KERNEL,     /* a kernel function */
  SYSPROF_SYMBOL_UNRESOLVED, /* no name: "library+0xoffset" or "0x…" */
  SYSPROF_SYMBOL_CONTEXT,    /* a perf context marker ("- - kernel - -") */
} SysprofSymbolKind;

/* What an address resolved to.  Symbols are interned by the symbolizer that
 * returned them and live as long as it: equal (name, library, kind) give the
 * same pointer, so callers may key tables by the pointer. */
typedef struct
{
  const char       *name;    /* demangled function name; never NULL */
  const char       *library; /* basename of the binary, "kernel", or "" */
  SysprofSymbolKind kind;
} SysprofSymbol;

#define SYSPROF_TYPE_SYMBOLIZER (sysprof_symbolizer_get_type ())
SYSPROF_AVAILABLE_IN_ALL
G_DECLARE_FINAL_TYPE (SysprofSymbolizer, sysprof_symbolizer, SYSPROF, SYMBOLIZER, GObject)

/* Resolution order for an address: the capture's embedded `__symbols__`
 * table, the embedded /proc/kallsyms for kernel addresses, the ELF files
 * named by the capture's MAP frames (with their debug files), JIT maps; the
 * first answer wins and an address nothing resolves becomes
 * "library+0xoffset". */
SYSPROF_AVAILABLE_IN_ALL
SysprofSymbolizer *sysprof_symbolizer_new (void);
/* Extra directories searched for separate debug files (host paths), after
 * /usr/lib/debug.  Call before load. */
SYSPROF_AVAILABLE_IN_ALL
void sysprof_symbolizer_add_debug_dir (SysprofSymbolizer *self, const char *directory);
/* FALSE: never read local ELF files, only what the capture embeds (to check
 * that a capture is self-contained).  Default TRUE. */
SYSPROF_AVAILABLE_IN_ALL
void sysprof_symbolizer_set_use_local_files (SysprofSymbolizer *self, gboolean use_local_files);
/* Reads what the capture holds for decoding: PROCESS, MAP, JITMAP frames and
 * the embedded files (`__symbols__`, /proc/kallsyms, mountinfo).  Rewinds the
 * reader before and after. */
SYSPROF_AVAILABLE_IN_ALL
gboolean sysprof_symbolizer_load (SysprofSymbolizer *self, SysprofCaptureReader *reader, GError **error);
/* @context: the perf context the address was sampled in (kernel or user).
 * @time: the sample's time, to pick the mapping in effect then.  Never NULL. */
SYSPROF_AVAILABLE_IN_ALL
const SysprofSymbol *sysprof_symbolizer_lookup (
    SysprofSymbolizer *self, gint32 pid, gint64 time, SysprofAddressContext context, SysprofCaptureAddress address);
/* The command name of @pid from the capture's PROCESS frames, or NULL. */
SYSPROF_AVAILABLE_IN_ALL
const char *sysprof_symbolizer_get_process_name (SysprofSymbolizer *self, gint32 pid);

/* Like sysprof_symbolizer_lookup, and also gives the range of run-time
 * addresses of @pid known to resolve to the same symbol, [*begin, *end)
 * (the whole function for an ELF symbol, the address alone otherwise). */
SYSPROF_AVAILABLE_IN_ALL
const SysprofSymbol *sysprof_symbolizer_lookup_range (SysprofSymbolizer    *self,
                                                      gint32                pid,
                                                      gint64                time,
                                                      SysprofAddressContext context,
                                                      SysprofCaptureAddress address,
                                                      guint64              *begin,
                                                      guint64              *end);

/* One frame an address stands for: a function, and the source line
 * executing in it.  Interned by the symbolizer like symbols: equal frames
 * give the same pointer, valid as long as the symbolizer. */
typedef struct
{
  const SysprofSymbol *symbol;
  /* The source file as the debug info names it (mostly an absolute path),
   * or NULL when unknown; @line is 0 then too. */
  const char *file;
  guint       line;
} SysprofSymbolFrame;

/* The frames @address stands for, innermost first: the functions inlined
 * at it (from the DWARF debug info of its binary or debug file, or from the
 * capture's embedded frame table), then the function
 * sysprof_symbolizer_lookup_range() returns, which is always the last.
 * Each frame carries its source line when the debug info gives one: the
 * line executing in the innermost frame, and in each outer frame the line
 * of the call that was inlined.  Returns the number of frames (at least 1)
 * and in *@frames the array, valid as long as @self; in @begin/@end the
 * range of run-time addresses of @pid with the same frames.  Answers are
 * cached per address. */
SYSPROF_AVAILABLE_IN_ALL
guint sysprof_symbolizer_lookup_frames (SysprofSymbolizer                *self,
                                        gint32                            pid,
                                        gint64                            time,
                                        SysprofAddressContext             context,
                                        SysprofCaptureAddress             address,
                                        const SysprofSymbolFrame *const **frames,
                                        guint64                          *begin,
                                        guint64                          *end);

/* Whether a user-space @address of @pid can be code: it lies in a mapping
 * of the process that the capture shows (MAP frames) and, when the mapped
 * file can be read, in an executable segment of it; or in a JIT map.  TRUE
 * when the capture shows no mapping of @pid at all (nothing to judge by).
 * A frame-pointer walk through code built without frame pointers reads
 * data as return addresses: those addresses are what this rejects. */
SYSPROF_AVAILABLE_IN_ALL
gboolean
sysprof_symbolizer_is_code_address (SysprofSymbolizer *self, gint32 pid, gint64 time, SysprofCaptureAddress address);

/* What only the live host can tell about a process (sysprofd's Host
 * interface, libsysprof/recording's host resolver).  Both may be NULL; both are
 * called at most once per question and may return NULL. */
typedef struct
{
  /* Host paths of the directories holding @pid's separate debug files. */
  char **(*list_debug_dirs) (gint32 pid, gpointer user_data);
  /* A host path naming the file @pid sees at @path. */
  char *(*resolve_path) (gint32 pid, const char *path, gpointer user_data);
} SysprofSymbolizerHost;

/* Used for processes the capture shows in a mount namespace other than
 * ours, while symbolizing (e.g. right after recording, when the processes
 * may still run); @host is copied, @user_data must outlive @self. */
SYSPROF_AVAILABLE_IN_ALL
void sysprof_symbolizer_set_host (SysprofSymbolizer *self, const SysprofSymbolizerHost *host, gpointer user_data);

G_END_DECLS
