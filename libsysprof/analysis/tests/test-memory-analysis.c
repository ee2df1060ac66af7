// SPDX-License-Identifier: GPL-3.0-or-later
/* SysprofMemoryAnalysis and the callgraph of allocations on captures written
 * here with exactly known events.  The stacks are made of addresses of
 * functions of this very program, of libc and of GLib, and MAP frames copied
 * from /proc/self/maps give the symbolizer the real ELF files; one more map
 * stands for Sysprof's preload library (a file that need not exist).
 *
 * Every test runs twice: on ALLOCATION frames, and (/streams/) on the same
 * events as memory streams (memory-streams-of.c), with the same expected
 * results; /streams/same-as-frames compares every result of both forms,
 * Sysprof 3.46's capture included. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "memory-streams-of.h"
#include "sysprof-analysis.h"

#define PID_A 1000
#define PID_B 2000
#define PID_C 3000
#define MAIN  PID_A
#define W1    1001
#define W2    1002
#define W3    1003

#define MS              G_GINT64_CONSTANT (1000000)
#define PRELOAD_START   G_GUINT64_CONSTANT (0x200000)
#define PRELOAD_FRAME   (PRELOAD_START + 0x120)
#define PRELOAD_LIBRARY "libsysprof-memory-4.so"

/* The functions the stacks point into.  Each has a body of its own so
 * that an address a few bytes in is still inside it. */
#define SITE_FUNCTION(name)                    \
  __attribute__ ((noinline)) int name (int x); \
  __attribute__ ((noinline)) int name (int x)  \
  {                                            \
    volatile int v = x;                        \
    for (int i = 0; i < 3; i++)                \
      v = v * 7 + i + (int) sizeof (#name);    \
    return v;                                  \
  }
SITE_FUNCTION (site_main)
SITE_FUNCTION (site_worker)
SITE_FUNCTION (site_leak)
SITE_FUNCTION (site_temp)
SITE_FUNCTION (site_other)
SITE_FUNCTION (site_cross)
SITE_FUNCTION (site_grow)
SITE_FUNCTION (site_shrink)
SITE_FUNCTION (site_realloc)

#define AT(function) ((guint64) (guintptr) (function) + 4)

static guint64 libc_malloc;
static guint64 glib_malloc;
/* The tests' captures are turned into memory streams when they are written. */
static gboolean as_streams;

/* @path's events as memory streams, in place. */
static void
convert_to_streams (const char *path, guint block_events, guint64 lost)
{
  g_autofree char *streams = g_strconcat (path, ".streams", NULL);

  memory_streams_of (path, streams, block_events, lost);
  g_assert_cmpint (g_rename (streams, path), ==, 0);
}

typedef struct
{
  char                 *path;
  SysprofCaptureWriter *writer;
  gint64                base; /* event times are base + offset */
} Capture;

static void
add_maps (SysprofCaptureWriter *writer, gint32 pid, gint64 time)
{
  g_autofree char *maps = NULL;
  g_auto (GStrv) lines = NULL;

  g_assert_true (g_file_get_contents ("/proc/self/maps", &maps, NULL, NULL));
  lines = g_strsplit (maps, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      guint64 start, end, offset, inode;
      char    perms[8], dev[16], path[512];

      if (sscanf (lines[i],
                  "%" G_GINT64_MODIFIER "x-%" G_GINT64_MODIFIER "x %7s %" G_GINT64_MODIFIER "x %15s %" G_GINT64_MODIFIER
                  "u %511s",
                  &start, &end, perms, &offset, dev, &inode, path) != 7)
        continue;
      if (path[0] != '/' || perms[2] != 'x')
        continue;
      g_assert_true (sysprof_capture_writer_add_map (writer, time, 0, pid, start, end, offset, inode, path));
    }
  /* A path no machine has: where Debian's tracker is installed, the file
   * would be read, and a made-up offset in its headers is no code. */
  g_assert_true (sysprof_capture_writer_add_map (writer, time, 0, pid, PRELOAD_START, PRELOAD_START + 0x10000, 0, 0,
                                                 "/nonexistent/lib/x86_64-linux-gnu/" PRELOAD_LIBRARY));
}

static void
capture_init (Capture *capture)
{
  g_autoptr (GError) error = NULL;
  int fd = g_file_open_tmp ("test-memory-XXXXXX.syscap", &capture->path, &error);

  g_assert_no_error (error);
  capture->writer = sysprof_capture_writer_new_from_fd (fd, 0);
  g_assert_nonnull (capture->writer);
  capture->base = sysprof_clock_get_current_time () + 1000;
}

static void
capture_process (Capture *capture, gint32 pid, const char *name)
{
  g_assert_true (sysprof_capture_writer_add_process (capture->writer, capture->base, 0, pid, name));
  add_maps (capture->writer, pid, capture->base);
}

static void
capture_finish (Capture *capture)
{
  g_assert_true (sysprof_capture_writer_flush (capture->writer));
  g_clear_pointer (&capture->writer, sysprof_capture_writer_unref);
  /* Blocks of 5 events: several per thread, flushed out of time order. */
  if (as_streams)
    convert_to_streams (capture->path, 5, 0);
}

static void
capture_clear (Capture *capture)
{
  g_clear_pointer (&capture->writer, sysprof_capture_writer_unref);
  if (capture->path != NULL)
    g_unlink (capture->path);
  g_clear_pointer (&capture->path, g_free);
}

static void
record (Capture       *capture,
        gint64         ms,
        gint32         pid,
        gint32         tid,
        guint64        address,
        gint64         size,
        const guint64 *addrs,
        guint          n_addrs)
{
  g_assert_true (sysprof_capture_writer_add_allocation_copy (capture->writer, capture->base + ms * MS, 0, pid, tid,
                                                             address, size, addrs, n_addrs));
}

/* Innermost first. */
#define ALLOC(capture, ms, pid, tid, address, size, ...)                          \
  record (capture, ms, pid, tid, address, size, (const guint64[]){ __VA_ARGS__ }, \
          G_N_ELEMENTS (((const guint64[]){ __VA_ARGS__ })))
#define FREE(capture, ms, pid, tid, address) record (capture, ms, pid, tid, address, 0, NULL, 0)

/* The main capture (see the expected numbers in test_summary):
 *  before T1 = 10 ms: 3 workers × 4 blocks of 100 (site_worker), 5 leaks of
 *    1000 (site_leak, under the preload, malloc and g_malloc frames), 4
 *    blocks of 200 (site_cross), 2 of 256 (site_grow), 3 of 10 (site_shrink);
 *  between T1 and T2 = 20 ms: the workers free their blocks (the last of
 *    each is temporary), two workers free the site_cross blocks (cross-thread),
 *    10 more site_grow blocks, 1 site_shrink block freed, 6 temporaries at
 *    site_temp, then alloc Q (site_other), alloc P (site_temp), free Q, free P
 *    (P is temporary, Q not), realloc twice (site_realloc: 300 → 600 →
 *    1200), 3 unmatched frees, the same address allocated twice (site_other,
 *    64: one unmatched allocation), one allocation without a stack (8);
 *  after T2: process B allocates 3 × 4096 at site_leak, one at an address
 *    process A also uses, and frees that one.
 * Lost events: 7 for A, 100 for B, 5 for no process. */
static void
write_main_capture (Capture *capture)
{
  const gint32          workers[] = { W1, W2, W3 };
  SysprofCaptureWriter *w;

  capture_init (capture);
  w = capture->writer;
  capture_process (capture, PID_A, "memtest-a");
  capture_process (capture, PID_B, "memtest-b");

  g_assert_true (sysprof_capture_writer_add_metadata (w, capture->base, 0, PID_A, SYSPROF_LOST_EVENTS_METADATA_ID,
                                                      "7 collector: ring full", -1));
  g_assert_true (
      sysprof_capture_writer_add_metadata (w, capture->base, 0, -1, SYSPROF_LOST_EVENTS_METADATA_ID, "5", -1));
  g_assert_true (sysprof_capture_writer_add_metadata (w, capture->base, 0, PID_B, SYSPROF_LOST_EVENTS_METADATA_ID,
                                                      "100 daemon", -1));
  g_assert_true (sysprof_capture_writer_add_metadata (w, capture->base, 0, PID_A, "other", "42", -1));

  for (guint k = 0; k < 3; k++)
    for (guint j = 0; j < 4; j++)
      ALLOC (capture, 1, PID_A, workers[k], 0x10000 + k * 0x1000 + j * 0x100, 100, AT (site_worker), AT (site_main));
  for (guint i = 0; i < 5; i++)
    ALLOC (capture, 2, PID_A, MAIN, 0x30000 + i * 0x1000, 1000, PRELOAD_FRAME, libc_malloc, glib_malloc, AT (site_leak),
           AT (site_main));
  for (guint i = 0; i < 4; i++)
    ALLOC (capture, 3, PID_A, MAIN, 0x40000 + i * 0x100, 200, AT (site_cross), AT (site_main));
  for (guint i = 0; i < 2; i++)
    ALLOC (capture, 4, PID_A, MAIN, 0x60000 + i * 0x100, 256, AT (site_grow), AT (site_main));
  for (guint i = 0; i < 3; i++)
    ALLOC (capture, 5, PID_A, MAIN, 0x70000 + i * 0x100, 10, libc_malloc, AT (site_shrink), AT (site_main));

  for (guint k = 0; k < 3; k++)
    for (guint j = 0; j < 4; j++)
      FREE (capture, 11, PID_A, workers[k], 0x10000 + k * 0x1000 + j * 0x100);
  FREE (capture, 12, PID_A, W1, 0x40000);
  FREE (capture, 12, PID_A, W1, 0x40100);
  FREE (capture, 12, PID_A, W2, 0x40200);
  FREE (capture, 12, PID_A, W2, 0x40300);
  for (guint i = 2; i < 12; i++)
    ALLOC (capture, 13, PID_A, MAIN, 0x60000 + i * 0x100, 256, AT (site_grow), AT (site_main));
  FREE (capture, 14, PID_A, MAIN, 0x70000);
  for (guint i = 0; i < 6; i++)
    {
      ALLOC (capture, 15, PID_A, MAIN, 0x20000, 50, libc_malloc, AT (site_temp), AT (site_main));
      FREE (capture, 15, PID_A, MAIN, 0x20000);
    }
  ALLOC (capture, 15, PID_A, MAIN, 0x22000, 70, AT (site_other), AT (site_main));
  ALLOC (capture, 15, PID_A, MAIN, 0x21000, 50, libc_malloc, AT (site_temp), AT (site_main));
  FREE (capture, 15, PID_A, MAIN, 0x22000);
  FREE (capture, 15, PID_A, MAIN, 0x21000);
  ALLOC (capture, 16, PID_A, MAIN, 0x50000, 300, AT (site_realloc), AT (site_main));
  FREE (capture, 16, PID_A, MAIN, 0x50000);
  ALLOC (capture, 16, PID_A, MAIN, 0x51000, 600, AT (site_realloc), AT (site_main));
  FREE (capture, 16, PID_A, MAIN, 0x51000);
  ALLOC (capture, 16, PID_A, MAIN, 0x52000, 1200, AT (site_realloc), AT (site_main));
  for (guint i = 0; i < 3; i++)
    FREE (capture, 17, PID_A, MAIN, 0x90000 + i * 0x1000);
  ALLOC (capture, 18, PID_A, MAIN, 0xa0000, 64, AT (site_other), AT (site_main));
  ALLOC (capture, 18, PID_A, MAIN, 0xa0000, 64, AT (site_other), AT (site_main));
  record (capture, 19, PID_A, MAIN, 0xb0000, 8, NULL, 0);
  /* Not records: address 0. */
  FREE (capture, 19, PID_A, MAIN, 0);

  for (guint i = 0; i < 3; i++)
    ALLOC (capture, 25, PID_B, PID_B, 0x30000 + i * 0x10000, 4096, PRELOAD_FRAME, libc_malloc, glib_malloc,
           AT (site_leak), AT (site_main));
  FREE (capture, 26, PID_B, PID_B, 0x30000);

  capture_finish (capture);
}

static SysprofSymbolizer *
load_symbolizer (SysprofCaptureReader *reader)
{
  g_autoptr (GError) error = NULL;
  SysprofSymbolizer *symbolizer = sysprof_symbolizer_new ();

  g_assert_true (sysprof_symbolizer_load (symbolizer, reader, &error));
  g_assert_no_error (error);
  return symbolizer;
}

static SysprofMemoryAnalysis *
analyze (const char *path, const SysprofMemoryOptions *options)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (SysprofSymbolizer) symbolizer = NULL;
  SysprofCaptureReader  *reader = sysprof_capture_reader_new (path);
  SysprofMemoryAnalysis *analysis;

  g_assert_nonnull (reader);
  symbolizer = load_symbolizer (reader);
  analysis = sysprof_memory_analysis_new (reader, symbolizer, options, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (analysis);
  sysprof_capture_reader_unref (reader);
  return analysis;
}

/* Nanoseconds from the capture's start of base + @ms. */
static gint64
rel (Capture *capture, SysprofMemoryAnalysis *analysis, gint64 ms)
{
  return capture->base + ms * MS - sysprof_memory_analysis_get_start_time (analysis);
}

static const SysprofMemorySite *
site_row (GArray *rows, const char *name)
{
  for (guint i = 0; i < rows->len; i++)
    if (g_str_equal (g_array_index (rows, SysprofMemorySite, i).site->name, name))
      return &g_array_index (rows, SysprofMemorySite, i);
  return NULL;
}

static void
assert_site (GArray *rows, const char *name, guint64 allocations, guint64 bytes)
{
  const SysprofMemorySite *row = site_row (rows, name);

  if (row == NULL)
    g_error ("no row for %s", name);
  g_assert_cmpuint (row->allocations, ==, allocations);
  g_assert_cmpuint (row->bytes, ==, bytes);
}

/* The analysis loads the symbolizer itself, beside its own pass. */
static void
test_load_symbolizer (void)
{
  Capture capture = { 0 };
  g_autoptr (GError) error = NULL;
  g_autoptr (SysprofSymbolizer) symbolizer = sysprof_symbolizer_new ();
  g_autoptr (SysprofMemoryAnalysis) analysis = NULL;
  g_autoptr (GArray) leaks = NULL;
  SysprofMemoryOptions  options = SYSPROF_MEMORY_OPTIONS_INIT;
  SysprofCaptureReader *reader;

  write_main_capture (&capture);
  reader = sysprof_capture_reader_new (capture.path);
  options.load_symbolizer = TRUE;
  analysis = sysprof_memory_analysis_new (reader, symbolizer, &options, NULL, NULL, &error);
  g_assert_no_error (error);
  leaks = sysprof_memory_analysis_list_leaks (analysis);
  assert_site (leaks, "site_leak", 7, 13192);
  assert_site (leaks, "site_grow", 12, 3072);
  g_assert_cmpuint (sysprof_memory_analysis_get_summary (analysis)->live_bytes, ==, 17556);
  sysprof_capture_reader_unref (reader);
  capture_clear (&capture);
}

static void
test_allocator_rule (void)
{
  static const struct
  {
    const char *name;
    const char *library;
    gboolean    allocator;
  } cases[] = {
    { "malloc", "libc.so.6", TRUE },
    { "__libc_malloc", "libc.so.6", TRUE },
    { "g_malloc0_n", "libglib-2.0.so.0", TRUE },
    { "g_slice_alloc", "libglib-2.0.so.0", TRUE },
    { "_Znwm", "libstdc++.so.6", TRUE },
    { "_ZnwmRKSt9nothrow_t", "libstdc++.so.6", TRUE },
    { "_ZnwmSt11align_val_t", "libstdc++.so.6", TRUE },
    { "_ZdaPv", "libstdc++.so.6", TRUE },
    { "operator new(unsigned long)", "libstdc++.so.6", TRUE },
    { "operator new[](unsigned long, std::nothrow_t const&)", "libstdc++.so.6", TRUE },
    { "operator delete(void*, unsigned long)", "libstdc++.so.6", TRUE },
    { "libsysprof-memory-4.so+0x1234", "libsysprof-memory-4.so", TRUE },
    { "backtrace_hook", "libsysprof-memory-6.so", TRUE },
    { "operator newline", "app", FALSE },
    { "mallocate", "app", FALSE },
    { "g_malloc_helper", "app", FALSE },
    { "_Zn", "app", FALSE },
    { "main", "app", FALSE },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      SysprofSymbol symbol = { cases[i].name, cases[i].library, SYSPROF_SYMBOL_USER };

      g_assert_cmpint (sysprof_memory_symbol_is_allocator (&symbol), ==, cases[i].allocator);
    }
}

static void
test_summary (void)
{
  Capture capture = { 0 };
  g_autoptr (SysprofMemoryAnalysis) analysis = NULL;
  const SysprofMemorySummary *s;
  guint64                     classes = 0;

  write_main_capture (&capture);
  analysis = analyze (capture.path, NULL);
  s = sysprof_memory_analysis_get_summary (analysis);

  g_assert_cmpuint (s->records_read, ==, 53 + 28 + 3 + 1);
  g_assert_cmpuint (s->allocations, ==, 53);
  g_assert_cmpuint (s->frees, ==, 28);
  g_assert_cmpuint (s->bytes_allocated, ==, 25046);
  g_assert_cmpuint (s->bytes_freed, ==, 7426);
  g_assert_cmpuint (s->unmatched_frees, ==, 3);
  g_assert_cmpuint (s->unmatched_allocations, ==, 1);
  g_assert_cmpuint (s->unmatched_allocation_bytes, ==, 64);
  g_assert_cmpuint (s->live_allocations, ==, 24);
  g_assert_cmpuint (s->live_bytes, ==, 17556);
  g_assert_cmpuint (s->allocations, ==, s->frees + s->unmatched_allocations + s->live_allocations);
  g_assert_cmpuint (s->bytes_allocated, ==, s->bytes_freed + s->unmatched_allocation_bytes + s->live_bytes);
  g_assert_cmpuint (s->peak_bytes, ==, 21652);
  g_assert_cmpuint (s->peak_allocations, ==, 25);
  g_assert_cmpint (s->peak_time_ns, ==, rel (&capture, analysis, 25));
  g_assert_cmpuint (s->temporary_allocations, ==, 12);
  g_assert_cmpuint (s->temporary_bytes, ==, 1550);
  g_assert_cmpuint (s->cross_thread_frees, ==, 4);
  g_assert_cmpuint (s->cross_thread_bytes, ==, 800);
  g_assert_cmpuint (s->lost_events, ==, 112);
  g_assert_cmpuint (s->n_threads, ==, 5);
  g_assert_cmpuint (s->n_processes, ==, 2);

  g_assert_cmpuint (s->class_allocations[3], ==, 4); /* 10 ×3, 8 */
  g_assert_cmpuint (s->class_bytes[3], ==, 38);
  g_assert_cmpuint (s->class_allocations[5], ==, 7);  /* 50 */
  g_assert_cmpuint (s->class_allocations[6], ==, 15); /* 100 ×12, 70, 64 ×2 */
  g_assert_cmpuint (s->class_bytes[6], ==, 1398);
  g_assert_cmpuint (s->class_allocations[7], ==, 4);  /* 200 */
  g_assert_cmpuint (s->class_allocations[8], ==, 13); /* 256 ×12, 300 */
  g_assert_cmpuint (s->class_allocations[9], ==, 6);  /* 1000 ×5, 600 */
  g_assert_cmpuint (s->class_allocations[10], ==, 1); /* 1200 */
  g_assert_cmpuint (s->class_allocations[12], ==, 3); /* 4096 */
  for (guint i = 0; i < SYSPROF_MEMORY_N_SIZE_CLASSES; i++)
    classes += s->class_allocations[i];
  g_assert_cmpuint (classes, ==, 53);

  capture_clear (&capture);
}

static void
test_leaks_temporary_cross (void)
{
  Capture capture = { 0 };
  g_autoptr (SysprofMemoryAnalysis) analysis = NULL;
  g_autoptr (GArray) leaks = NULL;
  g_autoptr (GArray) temporary = NULL;
  g_autoptr (GArray) cross = NULL;
  const SysprofMemorySite        *first;
  const SysprofMemoryCrossThread *c;

  write_main_capture (&capture);
  analysis = analyze (capture.path, NULL);

  leaks = sysprof_memory_analysis_list_leaks (analysis);
  g_assert_cmpuint (leaks->len, ==, 6);
  /* Past the preload, malloc and g_malloc frames; both processes. */
  first = &g_array_index (leaks, SysprofMemorySite, 0);
  g_assert_cmpstr (first->site->name, ==, "site_leak");
  g_assert_true (g_str_has_prefix (first->site->library, "test-memory-analysis"));
  g_assert_cmpuint (first->allocations, ==, 7);
  g_assert_cmpuint (first->bytes, ==, 5000 + 8192);
  assert_site (leaks, "site_grow", 12, 3072);
  assert_site (leaks, "site_realloc", 1, 1200);
  assert_site (leaks, "site_other", 1, 64);
  assert_site (leaks, "site_shrink", 2, 20);
  assert_site (leaks, "[no stack]", 1, 8);
  g_assert_cmpstr (g_array_index (leaks, SysprofMemorySite, 1).site->name, ==, "site_grow");
  g_assert_cmpstr (g_array_index (leaks, SysprofMemorySite, 5).site->name, ==, "[no stack]");

  temporary = sysprof_memory_analysis_list_temporary (analysis);
  g_assert_cmpuint (temporary->len, ==, 3);
  assert_site (temporary, "site_realloc", 2, 900);
  assert_site (temporary, "site_temp", 7, 350);
  assert_site (temporary, "site_worker", 3, 300);
  g_assert_cmpstr (g_array_index (temporary, SysprofMemorySite, 0).site->name, ==, "site_realloc");

  cross = sysprof_memory_analysis_list_cross_thread (analysis);
  g_assert_cmpuint (cross->len, ==, 2);
  c = &g_array_index (cross, SysprofMemoryCrossThread, 0);
  g_assert_cmpstr (c->site->name, ==, "site_cross");
  g_assert_cmpint (c->alloc_tid, ==, MAIN);
  g_assert_cmpint (c->free_tid, ==, W1);
  g_assert_cmpuint (c->frees, ==, 2);
  g_assert_cmpuint (c->bytes, ==, 400);
  c = &g_array_index (cross, SysprofMemoryCrossThread, 1);
  g_assert_cmpint (c->free_tid, ==, W2);
  g_assert_cmpuint (c->frees, ==, 2);
  g_assert_cmpuint (c->bytes, ==, 400);

  capture_clear (&capture);
}

static void
test_filters (void)
{
  Capture capture = { 0 };

  write_main_capture (&capture);

  {
    const gint32         pids[] = { PID_A };
    SysprofMemoryOptions options = SYSPROF_MEMORY_OPTIONS_INIT;
    g_autoptr (SysprofMemoryAnalysis) analysis = NULL;
    g_autoptr (GArray) leaks = NULL;
    const SysprofMemorySummary *s;

    options.pids = pids;
    options.n_pids = 1;
    analysis = analyze (capture.path, &options);
    s = sysprof_memory_analysis_get_summary (analysis);
    g_assert_cmpuint (s->allocations, ==, 50);
    g_assert_cmpuint (s->frees, ==, 27);
    g_assert_cmpuint (s->live_allocations, ==, 22);
    g_assert_cmpuint (s->lost_events, ==, 12);
    g_assert_cmpuint (s->n_processes, ==, 1);
    g_assert_cmpuint (s->n_threads, ==, 4);
    g_assert_cmpuint (s->peak_bytes, ==, 9364);
    leaks = sysprof_memory_analysis_list_leaks (analysis);
    assert_site (leaks, "site_leak", 5, 5000);
  }

  {
    /* W1's own allocations, and the frees of them; its cross-thread frees
     * of main's blocks are frees of blocks it does not know. */
    const gint32         tids[] = { W1 };
    SysprofMemoryOptions options = SYSPROF_MEMORY_OPTIONS_INIT;
    g_autoptr (SysprofMemoryAnalysis) analysis = NULL;
    const SysprofMemorySummary *s;

    options.tids = tids;
    options.n_tids = 1;
    analysis = analyze (capture.path, &options);
    s = sysprof_memory_analysis_get_summary (analysis);
    g_assert_cmpuint (s->allocations, ==, 4);
    g_assert_cmpuint (s->frees, ==, 4);
    g_assert_cmpuint (s->unmatched_frees, ==, 2);
    g_assert_cmpuint (s->temporary_allocations, ==, 1);
    g_assert_cmpuint (s->live_allocations, ==, 0);
    g_assert_cmpuint (s->n_threads, ==, 1);
  }

  {
    /* The window between T1 and T2: the frees of older blocks are
     * unmatched, the blocks live at T2 are the leaks. */
    SysprofMemoryOptions options = SYSPROF_MEMORY_OPTIONS_INIT;
    g_autoptr (SysprofMemoryAnalysis) probe = analyze (capture.path, NULL);
    g_autoptr (SysprofMemoryAnalysis) analysis = NULL;
    g_autoptr (GArray) leaks = NULL;
    const SysprofMemorySummary *s;

    options.begin_ns = rel (&capture, probe, 10);
    options.end_ns = rel (&capture, probe, 20);
    analysis = analyze (capture.path, &options);
    s = sysprof_memory_analysis_get_summary (analysis);
    g_assert_cmpuint (s->allocations, ==, 24);
    g_assert_cmpuint (s->unmatched_frees, ==, 20);
    g_assert_cmpuint (s->frees, ==, 10);
    g_assert_cmpuint (s->unmatched_allocations, ==, 1);
    g_assert_cmpuint (s->live_allocations, ==, 13);
    g_assert_cmpuint (s->live_bytes, ==, 2560 + 1200 + 64 + 8);
    leaks = sysprof_memory_analysis_list_leaks (analysis);
    g_assert_cmpuint (leaks->len, ==, 4);
    assert_site (leaks, "site_grow", 10, 2560);
  }

  capture_clear (&capture);
}

static void
test_over_time (void)
{
  Capture capture = { 0 };
  g_autoptr (SysprofMemoryAnalysis) probe = NULL;
  g_autoptr (SysprofMemoryAnalysis) analysis = NULL;
  SysprofMemoryOptions      options = SYSPROF_MEMORY_OPTIONS_INIT;
  const SysprofMemoryPoint *points;
  guint                     n_points = 0;
  static const guint64      bytes[] = { 0, 7542, 9364, 17556 };
  static const guint64      allocations[] = { 0, 26, 22, 24 };
  static const guint64      peaks[] = { 0, 7542, 9364, 21652 };

  write_main_capture (&capture);
  probe = analyze (capture.path, NULL);
  options.begin_ns = rel (&capture, probe, 0);
  options.end_ns = rel (&capture, probe, 30);
  options.n_points = 4;
  analysis = analyze (capture.path, &options);

  points = sysprof_memory_analysis_get_points (analysis, &n_points);
  g_assert_cmpuint (n_points, ==, 4);
  for (guint i = 0; i < 4; i++)
    {
      g_assert_cmpint (points[i].time_ns, ==, rel (&capture, analysis, 10 * (gint64) i));
      g_assert_cmpuint (points[i].live_bytes, ==, bytes[i]);
      g_assert_cmpuint (points[i].live_allocations, ==, allocations[i]);
      g_assert_cmpuint (points[i].peak_bytes, ==, peaks[i]);
    }
  capture_clear (&capture);
}

static const SysprofMemoryDiffRow *
diff_row (GArray *rows, const char *name)
{
  for (guint i = 0; i < rows->len; i++)
    if (g_str_equal (g_array_index (rows, SysprofMemoryDiffRow, i).site->name, name))
      return &g_array_index (rows, SysprofMemoryDiffRow, i);
  g_error ("no diff row for %s", name);
  return NULL;
}

static void
assert_diff (GArray *rows, const char *name, guint64 na, guint64 ba, guint64 nb, guint64 bb, const char *status)
{
  const SysprofMemoryDiffRow *row = diff_row (rows, name);

  g_assert_cmpuint (row->allocations_a, ==, na);
  g_assert_cmpuint (row->bytes_a, ==, ba);
  g_assert_cmpuint (row->allocations_b, ==, nb);
  g_assert_cmpuint (row->bytes_b, ==, bb);
  g_assert_cmpint (row->delta_allocations, ==, (gint64) nb - (gint64) na);
  g_assert_cmpint (row->delta_bytes, ==, (gint64) bb - (gint64) ba);
  g_assert_cmpstr (sysprof_memory_diff_status_to_string (row->status), ==, status);
}

static void
test_diff_times (void)
{
  Capture capture = { 0 };
  g_autoptr (SysprofMemoryAnalysis) probe = NULL;
  g_autoptr (SysprofMemoryAnalysis) analysis = NULL;
  g_autoptr (GArray) rows = NULL;
  g_autoptr (GArray) same = NULL;
  SysprofMemoryOptions options = SYSPROF_MEMORY_OPTIONS_INIT;
  gint64               times[2];

  write_main_capture (&capture);
  probe = analyze (capture.path, NULL);
  /* Given in the other order: snapshots are taken in time order but keep
   * their index. */
  times[0] = rel (&capture, probe, 20);
  times[1] = rel (&capture, probe, 10);
  options.snapshot_ns = times;
  options.n_snapshots = 2;
  analysis = analyze (capture.path, &options);

  rows = sysprof_memory_analysis_diff_snapshots (analysis, 1, 0);
  g_assert_cmpuint (rows->len, ==, 8);
  assert_diff (rows, "site_leak", 5, 5000, 5, 5000, "unchanged");
  assert_diff (rows, "site_grow", 2, 512, 12, 3072, "grown");
  assert_diff (rows, "site_shrink", 3, 30, 2, 20, "shrunk");
  assert_diff (rows, "site_worker", 12, 1200, 0, 0, "gone");
  assert_diff (rows, "site_cross", 4, 800, 0, 0, "gone");
  assert_diff (rows, "site_realloc", 0, 0, 1, 1200, "new");
  assert_diff (rows, "site_other", 0, 0, 1, 64, "new");
  assert_diff (rows, "[no stack]", 0, 0, 1, 8, "new");
  /* Largest change first. */
  g_assert_cmpstr (g_array_index (rows, SysprofMemoryDiffRow, 0).site->name, ==, "site_grow");
  g_assert_cmpstr (g_array_index (rows, SysprofMemoryDiffRow, 7).site->name, ==, "site_leak");

  same = sysprof_memory_analysis_diff_snapshots (analysis, 0, 0);
  for (guint i = 0; i < same->len; i++)
    g_assert_cmpint (g_array_index (same, SysprofMemoryDiffRow, i).status, ==, SYSPROF_MEMORY_DIFF_UNCHANGED);
  capture_clear (&capture);
}

static void
test_diff_captures (void)
{
  Capture capture = { 0 };
  Capture other = { 0 };
  g_autoptr (SysprofMemoryAnalysis) a = NULL;
  g_autoptr (SysprofMemoryAnalysis) b = NULL;
  g_autoptr (GArray) rows = NULL;

  write_main_capture (&capture);
  /* Another process, another symbolizer: sites match by name and library. */
  capture_init (&other);
  capture_process (&other, PID_C, "memtest-c");
  for (guint i = 0; i < 3; i++)
    ALLOC (&other, 1, PID_C, PID_C, 0x1000 + i * 0x100, 1000, libc_malloc, AT (site_leak), AT (site_main));
  for (guint i = 0; i < 20; i++)
    ALLOC (&other, 2, PID_C, PID_C, 0x8000 + i * 0x100, 256, AT (site_grow), AT (site_main));
  ALLOC (&other, 3, PID_C, PID_C, 0xf0000, 10, AT (site_temp), AT (site_main));
  capture_finish (&other);

  a = analyze (capture.path, NULL);
  b = analyze (other.path, NULL);
  rows = sysprof_memory_analysis_diff (a, b);
  g_assert_cmpuint (rows->len, ==, 7);
  assert_diff (rows, "site_leak", 7, 13192, 3, 3000, "shrunk");
  assert_diff (rows, "site_grow", 12, 3072, 20, 5120, "grown");
  assert_diff (rows, "site_temp", 0, 0, 1, 10, "new");
  assert_diff (rows, "site_realloc", 1, 1200, 0, 0, "gone");
  assert_diff (rows, "site_shrink", 2, 20, 0, 0, "gone");
  g_assert_cmpstr (g_array_index (rows, SysprofMemoryDiffRow, 0).site->name, ==, "site_leak");

  capture_clear (&capture);
  capture_clear (&other);
}

static void
test_no_allocations (void)
{
  Capture capture = { 0 };
  g_autoptr (GError) error = NULL;
  g_autoptr (SysprofSymbolizer) symbolizer = NULL;
  SysprofCaptureReader  *reader;
  SysprofMemoryAnalysis *analysis;
  SysprofCallgraph      *callgraph;
  SysprofCallgraphFilter filter = SYSPROF_CALLGRAPH_FILTER_INIT;
  const guint64          addrs[] = { AT (site_main) };

  capture_init (&capture);
  capture_process (&capture, PID_A, "memtest-a");
  g_assert_true (sysprof_capture_writer_add_sample (capture.writer, capture.base, 0, PID_A, PID_A, addrs, 1));
  capture_finish (&capture);

  reader = sysprof_capture_reader_new (capture.path);
  symbolizer = load_symbolizer (reader);
  analysis = sysprof_memory_analysis_new (reader, symbolizer, NULL, NULL, NULL, &error);
  g_assert_null (analysis);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);
  g_assert_nonnull (strstr (error->message, "sysprof-cli --memprof"));
  g_clear_error (&error);

  filter.source = SYSPROF_CALLGRAPH_SOURCE_ALLOCATIONS;
  callgraph = sysprof_callgraph_new (reader, symbolizer, &filter, NULL, NULL, &error);
  g_assert_null (callgraph);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);

  sysprof_capture_reader_unref (reader);
  capture_clear (&capture);
}

static SysprofCallgraph *
callgraph_of (const char *path, SysprofCallgraphSource source, SysprofCallgraphWeight weight, gboolean keep)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (SysprofSymbolizer) symbolizer = NULL;
  SysprofCaptureReader  *reader = sysprof_capture_reader_new (path);
  SysprofCallgraphFilter filter = SYSPROF_CALLGRAPH_FILTER_INIT;
  SysprofCallgraph      *callgraph;

  filter.source = source;
  filter.weight = weight;
  filter.keep_allocator_frames = keep;
  symbolizer = load_symbolizer (reader);
  callgraph = sysprof_callgraph_new (reader, symbolizer, &filter, NULL, NULL, &error);
  g_assert_no_error (error);
  sysprof_capture_reader_unref (reader);
  return callgraph;
}

static const SysprofCallgraphFunction *
function (SysprofCallgraph *callgraph, const char *name)
{
  const SysprofCallgraphFunction *f = sysprof_callgraph_find_function (callgraph, name, NULL);

  if (f == NULL)
    g_error ("no function %s", name);
  return f;
}

static gboolean
sum_stacks (const SysprofCallgraphFunction *const *frames, guint n_frames, guint64 n, gpointer user_data)
{
  (void) frames;
  (void) n_frames;
  *(guint64 *) user_data += n;
  return TRUE;
}

static void
test_callgraph (void)
{
  Capture capture = { 0 };

  write_main_capture (&capture);

  {
    g_autoptr (SysprofCallgraph) cg =
        callgraph_of (capture.path, SYSPROF_CALLGRAPH_SOURCE_ALLOCATIONS, SYSPROF_CALLGRAPH_WEIGHT_COUNT, FALSE);
    const SysprofCallgraphFunction *leak = function (cg, "site_leak");
    g_autoptr (GArray) callers = NULL;
    guint64 sum = 0;

    g_assert_cmpint (sysprof_callgraph_get_source (cg), ==, SYSPROF_CALLGRAPH_SOURCE_ALLOCATIONS);
    g_assert_cmpuint (sysprof_callgraph_get_n_samples (cg), ==, 53);
    g_assert_cmpuint (sysprof_callgraph_get_n_samples_read (cg), ==, 53);
    g_assert_cmpuint (sysprof_callgraph_get_n_bytes (cg), ==, 25046);
    g_assert_cmpuint (sysprof_callgraph_get_root (cg)->total_bytes, ==, 25046);
    /* The allocator frames are gone: the site is the innermost frame. */
    g_assert_cmpuint (leak->self, ==, 8);
    g_assert_cmpuint (leak->total, ==, 8);
    g_assert_cmpuint (leak->self_bytes, ==, 5000 + 12288);
    /* Resolved, but folded into the sites. */
    g_assert_true (sysprof_callgraph_find_function (cg, "g_malloc", NULL) == NULL ||
                   sysprof_callgraph_find_function (cg, "g_malloc", NULL)->total == 0);
    g_assert_cmpuint (function (cg, "site_main")->total, ==, 52);
    g_assert_cmpuint (function (cg, "site_main")->self, ==, 0);
    g_assert_cmpuint (function (cg, "site_main")->total_bytes, ==, 25046 - 8);
    g_assert_cmpuint (function (cg, "site_temp")->self, ==, 7);
    g_assert_cmpuint (function (cg, "[memtest-a]")->self, ==, 1); /* the record without a stack */
    g_assert_cmpuint (function (cg, "[memtest-b]")->total_bytes, ==, 12288);
    callers = sysprof_callgraph_list_callers (cg, leak);
    g_assert_cmpuint (callers->len, ==, 1);
    g_assert_cmpuint (g_array_index (callers, SysprofCallgraphEdge, 0).samples, ==, 8);
    g_assert_cmpuint (g_array_index (callers, SysprofCallgraphEdge, 0).bytes, ==, 17288);
    sysprof_callgraph_foreach_stack (cg, sum_stacks, &sum);
    g_assert_cmpuint (sum, ==, 53);
  }

  {
    g_autoptr (SysprofCallgraph) cg =
        callgraph_of (capture.path, SYSPROF_CALLGRAPH_SOURCE_ALLOCATIONS, SYSPROF_CALLGRAPH_WEIGHT_BYTES, FALSE);
    guint64 sum = 0;

    g_assert_cmpuint (sysprof_callgraph_get_n_samples (cg), ==, 25046);
    g_assert_cmpuint (function (cg, "site_leak")->self, ==, 17288);
    g_assert_cmpuint (function (cg, "site_realloc")->self, ==, 2100);
    sysprof_callgraph_foreach_stack (cg, sum_stacks, &sum);
    g_assert_cmpuint (sum, ==, 25046);
  }

  {
    g_autoptr (SysprofCallgraph) cg =
        callgraph_of (capture.path, SYSPROF_CALLGRAPH_SOURCE_LEAKED_ALLOCATIONS, SYSPROF_CALLGRAPH_WEIGHT_COUNT, FALSE);

    g_assert_cmpuint (sysprof_callgraph_get_n_samples (cg), ==, 24);
    g_assert_cmpuint (sysprof_callgraph_get_n_bytes (cg), ==, 17556);
    g_assert_cmpuint (function (cg, "site_leak")->self, ==, 7);
    g_assert_cmpuint (function (cg, "site_leak")->self_bytes, ==, 13192);
    g_assert_cmpuint (function (cg, "site_grow")->self, ==, 12);
    /* Functions whose allocations were all freed are not in it. */
    g_assert_null (sysprof_callgraph_find_function (cg, "site_worker", NULL));
    g_assert_null (sysprof_callgraph_find_function (cg, "site_temp", NULL));
  }

  {
    g_autoptr (SysprofCallgraph) cg =
        callgraph_of (capture.path, SYSPROF_CALLGRAPH_SOURCE_ALLOCATIONS, SYSPROF_CALLGRAPH_WEIGHT_COUNT, TRUE);
    const SysprofCallgraphFunction *preload = NULL;

    for (guint i = 0; i < sysprof_callgraph_get_n_functions (cg); i++)
      if (g_str_equal (sysprof_callgraph_get_function (cg, i)->symbol->library, PRELOAD_LIBRARY))
        preload = sysprof_callgraph_get_function (cg, i);
    g_assert_nonnull (preload);
    g_assert_cmpuint (preload->self, ==, 8);
    g_assert_cmpuint (function (cg, "site_leak")->self, ==, 0);
    g_assert_cmpuint (function (cg, "site_leak")->total, ==, 8);
    g_assert_cmpuint (function (cg, "site_temp")->self, ==, 0);
  }

  capture_clear (&capture);
}

/* Sysprof 3.46's own recording of `ls -lR` under its preload library. */
static void
test_fixture (void)
{
  g_autofree char *path =
      g_test_build_filename (G_TEST_DIST, "..", "..", "..", "tests", "data", "sysprof-3.46-memprof.syscap", NULL);
  g_autoptr (SysprofMemoryAnalysis) analysis = NULL;
  g_autoptr (GArray) leaks = NULL;
  const SysprofMemorySummary *s;
  g_autofree char            *copy = NULL;

  if (as_streams)
    {
      g_autoptr (GError) error = NULL;
      int fd = g_file_open_tmp ("test-memory-fixture-XXXXXX.syscap", &copy, &error);

      g_assert_no_error (error);
      close (fd);
      memory_streams_of (path, copy, 7, 0);
      g_free (path);
      path = g_strdup (copy);
    }
  analysis = analyze (path, NULL);
  s = sysprof_memory_analysis_get_summary (analysis);
  g_assert_cmpuint (s->records_read, ==, 290);
  g_assert_cmpuint (s->allocations, ==, 164);
  g_assert_cmpuint (s->frees + s->unmatched_frees, <=, 126);
  g_assert_cmpuint (s->allocations, ==, s->frees + s->unmatched_allocations + s->live_allocations);
  g_assert_cmpuint (s->n_processes, ==, 1);
  g_assert_cmpuint (s->lost_events, ==, 0);
  leaks = sysprof_memory_analysis_list_leaks (analysis);
  g_assert_cmpuint (leaks->len, >, 0);
  /* The preload's and the allocator's frames are never sites. */
  for (guint i = 0; i < leaks->len; i++)
    {
      const SysprofSymbol *site = g_array_index (leaks, SysprofMemorySite, i).site;

      g_assert_false (g_str_has_prefix (site->library, "libsysprof-memory"));
      g_assert_false (sysprof_memory_symbol_is_allocator (site));
    }
  if (copy != NULL)
    g_unlink (copy);
}

/* ------------------------------------------------------------------------ */
/* Frames against streams: the same events, every result the same */

static void
assert_same_sites (GArray *a, GArray *b)
{
  g_assert_cmpuint (a->len, ==, b->len);
  for (guint i = 0; i < a->len; i++)
    {
      const SysprofMemorySite *x = &g_array_index (a, SysprofMemorySite, i);
      const SysprofMemorySite *y = &g_array_index (b, SysprofMemorySite, i);

      g_assert_cmpstr (x->site->name, ==, y->site->name);
      g_assert_cmpstr (x->site->library, ==, y->site->library);
      g_assert_cmpuint (x->allocations, ==, y->allocations);
      g_assert_cmpuint (x->bytes, ==, y->bytes);
    }
}

static void
assert_same_analysis (SysprofMemoryAnalysis *a, SysprofMemoryAnalysis *b, guint n_snapshots)
{
  const SysprofMemoryPoint *pa, *pb;
  guint                     na = 0, nb = 0;

  g_assert_cmpmem (sysprof_memory_analysis_get_summary (a), sizeof (SysprofMemorySummary),
                   sysprof_memory_analysis_get_summary (b), sizeof (SysprofMemorySummary));
  {
    g_autoptr (GArray) x = sysprof_memory_analysis_list_leaks (a);
    g_autoptr (GArray) y = sysprof_memory_analysis_list_leaks (b);
    assert_same_sites (x, y);
  }
  {
    g_autoptr (GArray) x = sysprof_memory_analysis_list_temporary (a);
    g_autoptr (GArray) y = sysprof_memory_analysis_list_temporary (b);
    assert_same_sites (x, y);
  }
  {
    g_autoptr (GArray) x = sysprof_memory_analysis_list_cross_thread (a);
    g_autoptr (GArray) y = sysprof_memory_analysis_list_cross_thread (b);

    g_assert_cmpuint (x->len, ==, y->len);
    for (guint i = 0; i < x->len; i++)
      {
        const SysprofMemoryCrossThread *cx = &g_array_index (x, SysprofMemoryCrossThread, i);
        const SysprofMemoryCrossThread *cy = &g_array_index (y, SysprofMemoryCrossThread, i);

        g_assert_cmpstr (cx->site->name, ==, cy->site->name);
        g_assert_true (cx->alloc_tid == cy->alloc_tid && cx->free_tid == cy->free_tid);
        g_assert_true (cx->frees == cy->frees && cx->bytes == cy->bytes);
      }
  }
  pa = sysprof_memory_analysis_get_points (a, &na);
  pb = sysprof_memory_analysis_get_points (b, &nb);
  g_assert_cmpmem (pa, na * sizeof *pa, pb, nb * sizeof *pb);
  for (guint i = 0; i + 1 < n_snapshots; i++)
    {
      g_autoptr (GArray) x = sysprof_memory_analysis_diff_snapshots (a, i, i + 1);
      g_autoptr (GArray) y = sysprof_memory_analysis_diff_snapshots (b, i, i + 1);

      g_assert_cmpuint (x->len, ==, y->len);
      for (guint j = 0; j < x->len; j++)
        {
          const SysprofMemoryDiffRow *rx = &g_array_index (x, SysprofMemoryDiffRow, j);
          const SysprofMemoryDiffRow *ry = &g_array_index (y, SysprofMemoryDiffRow, j);

          g_assert_cmpstr (rx->site->name, ==, ry->site->name);
          g_assert_cmpmem (&rx->allocations_a, sizeof *rx - G_STRUCT_OFFSET (SysprofMemoryDiffRow, allocations_a),
                           &ry->allocations_a, sizeof *ry - G_STRUCT_OFFSET (SysprofMemoryDiffRow, allocations_a));
        }
    }
}

static void
assert_same_callgraph (const char            *frames,
                       const char            *streams,
                       SysprofCallgraphSource source,
                       SysprofCallgraphWeight weight)
{
  g_autoptr (SysprofCallgraph) a = callgraph_of (frames, source, weight, FALSE);
  g_autoptr (SysprofCallgraph) b = callgraph_of (streams, source, weight, FALSE);

  g_assert_cmpuint (sysprof_callgraph_get_n_samples (a), ==, sysprof_callgraph_get_n_samples (b));
  g_assert_cmpuint (sysprof_callgraph_get_n_samples_read (a), ==, sysprof_callgraph_get_n_samples_read (b));
  g_assert_cmpuint (sysprof_callgraph_get_n_bytes (a), ==, sysprof_callgraph_get_n_bytes (b));
  g_assert_cmpuint (sysprof_callgraph_get_n_record_errors (b), ==, 0);
  g_assert_cmpuint (sysprof_callgraph_get_n_functions (a), ==, sysprof_callgraph_get_n_functions (b));
  for (guint i = 0; i < sysprof_callgraph_get_n_functions (a); i++)
    {
      const SysprofCallgraphFunction *fa = sysprof_callgraph_get_function (a, i);
      const SysprofCallgraphFunction *fb = sysprof_callgraph_find_function (b, fa->symbol->name, fa->symbol->library);

      g_assert_nonnull (fb);
      g_assert_true (fa->self == fb->self && fa->total == fb->total);
      g_assert_true (fa->self_bytes == fb->self_bytes && fa->total_bytes == fb->total_bytes);
    }
}

/* Every analysis of @frames and of its streams, with several options. */
static void
compare_forms (const char *frames, gint64 start_offset, guint block_events)
{
  g_autofree char     *streams = g_strconcat (frames, ".streams", NULL);
  const gint32         pids[] = { PID_A };
  const gint32         tids[] = { W1 };
  gint64               snapshots[] = { start_offset + 10 * MS, start_offset + 20 * MS, start_offset + 26 * MS };
  SysprofMemoryOptions options[5];

  memory_streams_of (frames, streams, block_events, 0);
  for (guint i = 0; i < G_N_ELEMENTS (options); i++)
    sysprof_memory_options_init (&options[i]);
  options[1].n_points = 7;
  options[1].snapshot_ns = snapshots;
  options[1].n_snapshots = G_N_ELEMENTS (snapshots);
  options[2].pids = pids;
  options[2].n_pids = 1;
  options[3].tids = tids;
  options[3].n_tids = 1;
  options[4].begin_ns = start_offset + 10 * MS;
  options[4].end_ns = start_offset + 20 * MS;
  options[4].n_points = 3;
  for (guint i = 0; i < G_N_ELEMENTS (options); i++)
    {
      g_autoptr (SysprofMemoryAnalysis) a = analyze (frames, &options[i]);
      g_autoptr (SysprofMemoryAnalysis) b = analyze (streams, &options[i]);

      assert_same_analysis (a, b, (guint) options[i].n_snapshots);
    }
  for (guint weight = 0; weight < 2; weight++)
    {
      assert_same_callgraph (frames, streams, SYSPROF_CALLGRAPH_SOURCE_ALLOCATIONS, weight);
      assert_same_callgraph (frames, streams, SYSPROF_CALLGRAPH_SOURCE_LEAKED_ALLOCATIONS, weight);
    }
  g_unlink (streams);
}

static void
test_same_as_frames (void)
{
  Capture          capture = { 0 };
  g_autofree char *fixture =
      g_test_build_filename (G_TEST_DIST, "..", "..", "..", "tests", "data", "sysprof-3.46-memprof.syscap", NULL);
  g_autoptr (SysprofMemoryAnalysis) probe = NULL;

  write_main_capture (&capture);
  probe = analyze (capture.path, NULL);
  /* One event a block, a few, more than fit one block. */
  compare_forms (capture.path, rel (&capture, probe, 0), 1);
  compare_forms (capture.path, rel (&capture, probe, 0), 4);
  compare_forms (capture.path, rel (&capture, probe, 0), 1000);
  capture_clear (&capture);

  /* Sysprof 3.46's own recording: its frees carry stacks, streams not. */
  compare_forms (fixture, 0, 16);
}

/* The streams' lost records: counted per process, beside METADATA's. */
static void
test_stream_lost (void)
{
  Capture              capture = { 0 };
  const gint32         pids[] = { PID_A };
  SysprofMemoryOptions options = SYSPROF_MEMORY_OPTIONS_INIT;
  g_autoptr (SysprofMemoryAnalysis) all = NULL;
  g_autoptr (SysprofMemoryAnalysis) a = NULL;

  write_main_capture (&capture);
  convert_to_streams (capture.path, 5, 1000);
  all = analyze (capture.path, NULL);
  /* 4 threads of A, one of B. */
  g_assert_cmpuint (sysprof_memory_analysis_get_summary (all)->lost_stream_events, ==, 5000);
  g_assert_cmpuint (sysprof_memory_analysis_get_summary (all)->lost_events, ==, 112 + 5000);
  g_assert_cmpuint (sysprof_memory_analysis_get_summary (all)->record_errors, ==, 0);
  options.pids = pids;
  options.n_pids = 1;
  a = analyze (capture.path, &options);
  g_assert_cmpuint (sysprof_memory_analysis_get_summary (a)->lost_stream_events, ==, 4000);
  g_assert_cmpuint (sysprof_memory_analysis_get_summary (a)->lost_events, ==, 12 + 4000);
  capture_clear (&capture);
}

/* Hostile blocks: counted and named, the sound events kept. */
static void
test_stream_errors (void)
{
  Capture                    capture = { 0 };
  static const guint8        garbage[] = { 'R', 1, 0xfd, 0xfe, 0xff };
  static const guint8        truncated[] = { 'R', 1, SYSPROF_MEMORY_STREAM_TAG_ALLOCATION, 0x80 };
  SysprofMemoryStreamEncoder enc;
  guint8                     buffer[SYSPROF_MEMORY_STREAM_ENCODER_MIN_CAPACITY];
  const guint8              *block;
  gsize                      len;
  g_autoptr (SysprofMemoryAnalysis) analysis = NULL;
  g_autoptr (GArray) leaks = NULL;
  const SysprofMemorySummary *s;
  const guint64               stack[] = { AT (site_leak), AT (site_main) };

  capture_init (&capture);
  capture_process (&capture, PID_A, "memtest-a");
  g_assert_true (sysprof_memory_stream_encoder_init (&enc, buffer, sizeof buffer));
  g_assert_true (sysprof_memory_stream_encoder_add_stack (&enc, 1, stack, 2));
  g_assert_true (sysprof_memory_stream_encoder_add_allocation (&enc, capture.base + MS, 0x1000, 100, 1));
  /* Stack 9 was never defined: the block ends there. */
  g_assert_true (sysprof_memory_stream_encoder_add_allocation (&enc, capture.base + MS, 0x2000, 100, 9));
  block = sysprof_memory_stream_encoder_get_block (&enc, &len);
  g_assert_true (sysprof_capture_writer_add_file (capture.writer, capture.base + MS, -1, PID_A,
                                                  "sysprof/memory-stream/1000", FALSE, block, len));
  g_assert_true (sysprof_capture_writer_add_file (capture.writer, capture.base + 2 * MS, -1, PID_A,
                                                  "sysprof/memory-stream/1000", FALSE, garbage, sizeof garbage));
  g_assert_true (sysprof_capture_writer_add_file (capture.writer, capture.base + 2 * MS, -1, PID_A,
                                                  "sysprof/memory-stream/1001", TRUE, truncated, sizeof truncated));
  sysprof_memory_stream_encoder_clear (&enc);
  g_assert_true (sysprof_memory_stream_encoder_add_allocation (&enc, capture.base + 3 * MS, 0x3000, 50, 1));
  block = sysprof_memory_stream_encoder_get_block (&enc, &len);
  g_assert_true (sysprof_capture_writer_add_file (capture.writer, capture.base + 3 * MS, -1, PID_A,
                                                  "sysprof/memory-stream/1000", TRUE, block, len));
  capture_finish (&capture);

  analysis = analyze (capture.path, NULL);
  s = sysprof_memory_analysis_get_summary (analysis);
  g_assert_cmpuint (s->record_errors, ==, 3);
  g_assert_nonnull (strstr (sysprof_memory_analysis_get_record_error (analysis), "memory stream of thread 100"));
  g_assert_cmpuint (s->allocations, ==, 2);
  leaks = sysprof_memory_analysis_list_leaks (analysis);
  assert_site (leaks, "site_leak", 2, 150);
  capture_clear (&capture);
}

typedef void (*TestFunc) (void);

static void
run_on_streams (gconstpointer data)
{
  as_streams = TRUE;
  ((TestFunc) data) ();
  as_streams = FALSE;
}

int
main (int argc, char *argv[])
{
  void *libc = dlopen ("libc.so.6", RTLD_NOW | RTLD_NOLOAD);

  /* libc's own malloc, not a sanitizer's interceptor. */
  g_assert_nonnull (libc);
  libc_malloc = (guint64) (guintptr) dlsym (libc, "malloc") + 4;
  glib_malloc = (guint64) (guintptr) g_malloc + 4;

  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/Libsysprof/Memory/allocator-rule", test_allocator_rule);
  g_test_add_func ("/Libsysprof/Memory/summary", test_summary);
  g_test_add_func ("/Libsysprof/Memory/leaks-temporary-cross", test_leaks_temporary_cross);
  g_test_add_func ("/Libsysprof/Memory/filters", test_filters);
  g_test_add_func ("/Libsysprof/Memory/over-time", test_over_time);
  g_test_add_func ("/Libsysprof/Memory/load-symbolizer", test_load_symbolizer);
  g_test_add_func ("/Libsysprof/Memory/diff-times", test_diff_times);
  g_test_add_func ("/Libsysprof/Memory/diff-captures", test_diff_captures);
  g_test_add_func ("/Libsysprof/Memory/no-allocations", test_no_allocations);
  g_test_add_func ("/Libsysprof/Memory/callgraph", test_callgraph);
  g_test_add_func ("/Libsysprof/Memory/fixture", test_fixture);

  {
    static const struct
    {
      const char *name;
      TestFunc    func;
    } on_streams[] = {
      { "summary", test_summary },
      { "leaks-temporary-cross", test_leaks_temporary_cross },
      { "filters", test_filters },
      { "over-time", test_over_time },
      { "load-symbolizer", test_load_symbolizer },
      { "diff-times", test_diff_times },
      { "diff-captures", test_diff_captures },
      { "callgraph", test_callgraph },
      { "fixture", test_fixture },
    };

    for (guint i = 0; i < G_N_ELEMENTS (on_streams); i++)
      {
        g_autofree char *path = g_strconcat ("/Libsysprof/Memory/streams/", on_streams[i].name, NULL);

        g_test_add_data_func (path, (gconstpointer) on_streams[i].func, run_on_streams);
      }
  }
  g_test_add_func ("/Libsysprof/Memory/streams/same-as-frames", test_same_as_frames);
  g_test_add_func ("/Libsysprof/Memory/streams/lost", test_stream_lost);
  g_test_add_func ("/Libsysprof/Memory/streams/errors", test_stream_errors);
  return g_test_run ();
}
