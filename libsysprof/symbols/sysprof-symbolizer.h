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
 * named by the capture's MAP frames (with their debug files, found by
 * build-id, debug link, and last from the debuginfod servers of
 * $DEBUGINFOD_URLS when it is set), perf maps (/tmp/perf-PID.map, for code
 * outside any file's mapping: JIT compilers'), JITMAP frames; the first
 * answer wins and an address nothing resolves becomes "library+0xoffset". */
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

/* The perf maps (/tmp/perf-PID.map, written by JIT compilers: node
 * --perf-basic-prof, the JVM's perf agents, LuaJIT, ...) of the processes
 * of the loaded capture that it does not embed, read from this machine
 * with this process's rights, right after recording: a running process's
 * from its own /tmp (through /proc/PID/root, if this process may look into
 * it, owned by the process's user); an exited one's from /tmp when the
 * capture shows it used ours, owned by this process's user.  They are used
 * from now on and embedded by sysprof_symbol_map_build.  Returns how many
 * were read. */
SYSPROF_AVAILABLE_IN_ALL
guint sysprof_symbolizer_read_perf_maps (SysprofSymbolizer *self);

/* A debug file is being fetched from debuginfod for the binary @file (a
 * path): @done of @total bytes (@total 0 while unknown).  Called with @file
 * NULL when that fetch ended.  Runs in the thread doing the lookup. */
typedef void (*SysprofSymbolizerFetchFunc) (const char *file, guint64 done, guint64 total, gpointer user_data);

/* Tells about debuginfod fetches (see the resolution order above), about
 * once a second while one waits.  With $DEBUGINFOD_URLS set, a fetch during
 * which no byte arrives for $DEBUGINFOD_TIMEOUT seconds (default 10) is
 * given up, and so is every fetch after it or after the server could not be
 * reached; all of them together take at most 6 times that.  Downloads are
 * kept in libdebuginfod's cache ($DEBUGINFOD_CACHE_PATH). */
SYSPROF_AVAILABLE_IN_ALL
void
sysprof_symbolizer_set_fetch_progress (SysprofSymbolizer *self, SysprofSymbolizerFetchFunc func, gpointer user_data);
/* The binaries whose debug file debuginfod could not give, and why, as one
 * line ("3 files without debug info: a, b, c (debuginfod: timeout)"), or
 * NULL when nothing failed (or debuginfod is not in use). */
SYSPROF_AVAILABLE_IN_ALL
char *sysprof_symbolizer_dup_missing_debug_info (SysprofSymbolizer *self);
/* One question of a batch to the host, and its answer. */
typedef struct
{
  gint32      pid;
  const char *path;      /* resolve_paths: the path as @pid sees it */
  char       *host_path; /* resolve_paths' answer (the symbolizer frees it), or NULL */
  char      **dirs;      /* list_debug_dirs_batch's answer (freed likewise), or NULL */
  gboolean    gone;      /* set when the host knows no process @pid (any more): the
                          * symbolizer may ask about another of the same namespace */
} SysprofSymbolizerHostQuery;

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

/* A mapping of a process, as the capture's MAP frames show it. */
typedef struct
{
  /* Its run-time addresses, [start, end), and the offset in the file that
   * @start maps. */
  guint64 start;
  guint64 end;
  guint64 offset;
  /* The path as the process named it ("/usr/lib/…/libc.so.6"), or what
   * stands for a mapping of no file ("[vdso]", "//anon"); valid as long as
   * the symbolizer. */
  const char *filename;
  /* The GNU build-id of the file, in lowercase hex (as `readelf -n` prints
   * it): the one the MAP frame carries (Sysprof 45+ records it), else read
   * from the file this machine has at that path when it is the one
   * recorded (the MAP frame's inode, which Sysprof 3.46 left 0); NULL when
   * neither says (another machine's capture, no inode,
   * sysprof_symbolizer_set_use_local_files() FALSE, a mapping of no file, a
   * file without one).  Valid as long as the symbolizer. */
  const char *build_id;
} SysprofSymbolizerMapping;

/* The mapping a user-space @address of @pid lay in at @time (a child without
 * MAP frames of its own: its parent's), as sysprof_symbolizer_lookup()
 * picks it.  FALSE for kernel addresses, context markers and addresses in
 * no mapping the capture shows. */
SYSPROF_AVAILABLE_IN_ALL
gboolean sysprof_symbolizer_lookup_mapping (
    SysprofSymbolizer *self, gint32 pid, gint64 time, SysprofCaptureAddress address, SysprofSymbolizerMapping *mapping);

/* What only the live host can tell about a process (sysprofd's Host
 * interface, libsysprof/recording's host resolver).  Any may be NULL; each
 * question is asked at most once per mount namespace the capture shows, and
 * any answer may be NULL. */
typedef struct
{
  /* Host paths of the directories holding @pid's separate debug files. */
  char **(*list_debug_dirs) (gint32 pid, gpointer user_data);
  /* A host path naming the file @pid sees at @path. */
  char *(*resolve_path) (gint32 pid, const char *path, gpointer user_data);
  /* The same for many questions at once, used instead of the two above when
   * set: each fills in the answers of @n_queries @queries. */
  void (*list_debug_dirs_batch) (SysprofSymbolizerHostQuery *queries, guint n_queries, gpointer user_data);
  void (*resolve_paths) (SysprofSymbolizerHostQuery *queries, guint n_queries, gpointer user_data);
} SysprofSymbolizerHost;

/* Used for processes the capture shows in a mount namespace other than
 * ours, while symbolizing (e.g. right after recording, when the processes
 * may still run); @host is copied, @user_data must outlive @self. */
SYSPROF_AVAILABLE_IN_ALL
void sysprof_symbolizer_set_host (SysprofSymbolizer *self, const SysprofSymbolizerHost *host, gpointer user_data);

G_END_DECLS
