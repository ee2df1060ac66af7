// SPDX-License-Identifier: GPL-3.0-or-later
/* The stack stash (private) and SysprofCallgraph on captures written here:
 * their symbols come from an embedded `__symbols__` table, so every name is
 * known and the counts can be checked exactly; local files are not used. */
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "sysprof-analysis.h"
#include "sysprof-stack-stash-private.h"

/* ------------------------------------------------------------------------ */
/* Stack stash */

static guint32
stash_add (SysprofStackStash *stash, const guint64 *keys, guint n, guint64 weight)
{
  guint32 node = SYSPROF_STACK_STASH_ROOT;

  for (guint i = 0; i < n; i++)
    node = _sysprof_stack_stash_child (stash, node, keys[i], 0, NULL);
  _sysprof_stack_stash_get_nodes (stash)[node].self += weight;
  return node;
}

static void
test_stash_collapse (void)
{
  g_autoptr (SysprofStackStash) stash = _sysprof_stack_stash_new ();
  const guint64     abc[] = { 1, 2, 3 };
  const guint64     abd[] = { 1, 2, 4 };
  const guint64     ab[] = { 1, 2 };
  SysprofStackNode *nodes;
  guint32           leaf1, leaf2, leaf3;
  gboolean          created;

  leaf1 = stash_add (stash, abc, 3, 1);
  leaf2 = stash_add (stash, abc, 3, 2);
  g_assert_cmpuint (leaf1, ==, leaf2);
  leaf3 = stash_add (stash, abd, 3, 5);
  g_assert_cmpuint (leaf3, !=, leaf1);
  stash_add (stash, ab, 2, 7);
  /* root, 1, 2, 3, 4 */
  g_assert_cmpuint (_sysprof_stack_stash_get_n_nodes (stash), ==, 5);

  /* The same key with another tag is another child. */
  _sysprof_stack_stash_child (stash, SYSPROF_STACK_STASH_ROOT, 1, 9, &created);
  g_assert_true (created);
  _sysprof_stack_stash_child (stash, SYSPROF_STACK_STASH_ROOT, 1, 9, &created);
  g_assert_false (created);
  g_assert_cmpuint (_sysprof_stack_stash_get_n_nodes (stash), ==, 6);

  _sysprof_stack_stash_compute_totals (stash);
  nodes = _sysprof_stack_stash_get_nodes (stash);
  g_assert_cmpuint (nodes[leaf1].self, ==, 3);
  g_assert_cmpuint (nodes[leaf1].total, ==, 3);
  g_assert_cmpuint (nodes[leaf1].depth, ==, 3);
  g_assert_cmpuint (nodes[nodes[leaf1].parent].self, ==, 7);
  g_assert_cmpuint (nodes[nodes[leaf1].parent].total, ==, 15);
  g_assert_cmpuint (nodes[SYSPROF_STACK_STASH_ROOT].total, ==, 15);
  g_assert_cmpuint (nodes[nodes[leaf1].parent].parent, ==, nodes[nodes[leaf3].parent].parent);
}

static void
test_stash_many_children (void)
{
  g_autoptr (SysprofStackStash) stash = _sysprof_stack_stash_new ();
  const guint         n = 50000;
  g_autofree guint32 *ids = g_new (guint32, n);

  /* Far more children than the first table holds, under two parents, in an
   * order that defeats the most-recent-child shortcut. */
  for (guint round = 0; round < 2; round++)
    for (guint i = 0; i < n; i++)
      {
        guint64 keys[2] = { i & 1, (guint64) i * 0x10 + G_GUINT64_CONSTANT (0x7f0000000000) };
        guint32 node = stash_add (stash, keys, 2, 1);

        if (round == 0)
          ids[i] = node;
        else
          g_assert_cmpuint (ids[i], ==, node);
      }
  g_assert_cmpuint (_sysprof_stack_stash_get_n_nodes (stash), ==, 1 + 2 + n);
  _sysprof_stack_stash_compute_totals (stash);
  g_assert_cmpuint (_sysprof_stack_stash_get_nodes (stash)[0].total, ==, 2 * n);
}

typedef struct
{
  GString *trace;
} WalkTrace;

static void
walk_enter (SysprofStackStash *stash, guint32 node, gpointer user_data)
{
  WalkTrace *t = user_data;

  g_string_append_printf (t->trace, "(%" G_GUINT64_FORMAT, _sysprof_stack_stash_get_nodes (stash)[node].key);
}

static void
walk_leave (SysprofStackStash *stash, guint32 node, gpointer user_data)
{
  WalkTrace *t = user_data;

  (void) stash;
  (void) node;
  g_string_append_c (t->trace, ')');
}

static gint
compare_keys (gconstpointer a, gconstpointer b, gpointer user_data)
{
  const SysprofStackNode *nodes = user_data;
  guint64                 ka = nodes[GPOINTER_TO_UINT (a)].key;
  guint64                 kb = nodes[GPOINTER_TO_UINT (b)].key;

  return ka < kb ? -1 : ka > kb;
}

static void
test_stash_walk (void)
{
  g_autoptr (SysprofStackStash) stash = _sysprof_stack_stash_new ();
  g_autoptr (GString) trace = g_string_new (NULL);
  const guint64 s1[] = { 1, 3 };
  const guint64 s2[] = { 1, 2 };
  const guint64 s3[] = { 5 };
  const guint64 s4[] = { 4, 6, 7 };
  WalkTrace     t = { trace };

  stash_add (stash, s1, 2, 1);
  stash_add (stash, s2, 2, 1);
  stash_add (stash, s3, 1, 1);
  stash_add (stash, s4, 3, 1);
  _sysprof_stack_stash_sort_children (stash, compare_keys, _sysprof_stack_stash_get_nodes (stash));
  _sysprof_stack_stash_walk (stash, walk_enter, walk_leave, &t);
  g_assert_cmpstr (trace->str, ==, "(0(1(2)(3))(4(6(7)))(5))");
}

/* ------------------------------------------------------------------------ */
/* Captures for the callgraph */

#define PID_APP      100 /* PROCESS "app" */
#define PID_OTHER    200 /* PROCESS "/usr/bin/other --flag" */
#define PID_NAMELESS 300 /* no PROCESS frame */

/* Functions are 0x1000-byte ranges; U(i, off) is an address inside user
 * function i, K(i, off) inside kernel function i. */
static const char *const user_names[] = { "main", "a", "b", "c", "d", "e", "malloc" };
static const char *const kernel_names[] = { "entry_SYSCALL_64", "do_syscall_64", "k_leaf" };
#define U(i, off) (G_GUINT64_CONSTANT (0x400000) + (guint64) (i) *0x1000 + (off))
#define K(i, off) (G_GUINT64_CONSTANT (0xffffffff81000000) + (guint64) (i) *0x1000 + (off))
#define MAIN      0
#define FA        1
#define FB        2
#define FC        3
#define FD        4
#define FE        5
#define FMALLOC   6
#define KENTRY    0
#define KSYSCALL  1
#define KLEAF     2
#define KMARK     SYSPROF_CAPTURE_ADDRESS_KERNEL
#define UMARK     SYSPROF_CAPTURE_ADDRESS_USER

typedef struct
{
  char                 *path;
  SysprofCaptureWriter *writer;
  gint64                base; /* sample times are base + offset */
} Capture;

static void
append_u32 (GByteArray *bytes, guint32 value)
{
  g_byte_array_append (bytes, (const guint8 *) &value, sizeof value);
}

static void
append_u64 (GByteArray *bytes, guint64 value)
{
  g_byte_array_append (bytes, (const guint8 *) &value, sizeof value);
}

/* The `__symbols__` table (sysprof-symbol-map.h): 32-byte records sorted by
 * (pid, begin), a zero record, then the strings, offsets from the start.
 * Like Sysprof 3.46's, the ranges include their end address. */
static void
add_symbols (SysprofCaptureWriter *writer)
{
  const gint32 pids[] = { PID_APP, PID_OTHER, PID_NAMELESS };
  const guint  n_records = G_N_ELEMENTS (pids) * (G_N_ELEMENTS (user_names) + G_N_ELEMENTS (kernel_names));
  g_autoptr (GByteArray) table = g_byte_array_new ();
  g_autoptr (GByteArray) strings = g_byte_array_new ();
  const guint32 strings_start = (n_records + 1) * 32;
  guint32       user_offsets[G_N_ELEMENTS (user_names)];
  guint32       kernel_offsets[G_N_ELEMENTS (kernel_names)];
  guint32       app_tag, kernel_tag;

#define ADD_STRING(s)                                                           \
  (g_byte_array_append (strings, (const guint8 *) (s), (guint) strlen (s) + 1), \
   strings_start + strings->len - (guint32) strlen (s) - 1)
  app_tag = ADD_STRING ("app.so");
  kernel_tag = ADD_STRING ("kernel");
  for (guint i = 0; i < G_N_ELEMENTS (user_names); i++)
    user_offsets[i] = ADD_STRING (user_names[i]);
  for (guint i = 0; i < G_N_ELEMENTS (kernel_names); i++)
    kernel_offsets[i] = ADD_STRING (kernel_names[i]);
#undef ADD_STRING

  for (guint p = 0; p < G_N_ELEMENTS (pids); p++)
    {
      for (guint i = 0; i < G_N_ELEMENTS (user_names); i++)
        {
          append_u64 (table, U (i, 0));
          append_u64 (table, U (i + 1, 0) - 1);
          append_u32 (table, (guint32) pids[p]);
          append_u32 (table, user_offsets[i]);
          append_u32 (table, app_tag);
          append_u32 (table, 0);
        }
      for (guint i = 0; i < G_N_ELEMENTS (kernel_names); i++)
        {
          append_u64 (table, K (i, 0));
          append_u64 (table, K (i + 1, 0) - 1);
          append_u32 (table, (guint32) pids[p]);
          append_u32 (table, kernel_offsets[i]);
          append_u32 (table, kernel_tag);
          append_u32 (table, 0);
        }
    }
  for (guint i = 0; i < 32; i++)
    g_byte_array_append (table, (const guint8 *) "", 1);
  g_assert_cmpuint (table->len, ==, strings_start);
  g_byte_array_append (table, strings->data, strings->len);
  g_assert_true (sysprof_capture_writer_add_file (writer, 0, -1, -1, "__symbols__", TRUE, table->data, table->len));
}

static void
capture_init (Capture *capture)
{
  g_autoptr (GError) error = NULL;
  int fd = g_file_open_tmp ("test-callgraph-XXXXXX.syscap", &capture->path, &error);

  g_assert_no_error (error);
  capture->writer = sysprof_capture_writer_new_from_fd (fd, 0);
  g_assert_nonnull (capture->writer);
  capture->base = sysprof_clock_get_current_time () + 1000;
  g_assert_true (sysprof_capture_writer_add_process (capture->writer, capture->base, 0, PID_APP, "app"));
  g_assert_true (
      sysprof_capture_writer_add_process (capture->writer, capture->base, 0, PID_OTHER, "/usr/bin/other --flag"));
  add_symbols (capture->writer);
}

static void
capture_add (Capture *capture, gint32 pid, gint32 tid, gint64 offset, const guint64 *addrs, guint n_addrs)
{
  g_assert_true (
      sysprof_capture_writer_add_sample (capture->writer, capture->base + offset, 0, pid, tid, addrs, n_addrs));
}

/* Innermost address first, as perf gives them. */
#define ADD(capture, pid, tid, offset, ...)                                 \
  capture_add (capture, pid, tid, offset, (const guint64[]){ __VA_ARGS__ }, \
               G_N_ELEMENTS (((const guint64[]){ __VA_ARGS__ })))

static void
capture_finish (Capture *capture)
{
  g_assert_true (sysprof_capture_writer_flush (capture->writer));
  g_clear_pointer (&capture->writer, sysprof_capture_writer_unref);
}

static void
capture_clear (Capture *capture)
{
  g_clear_pointer (&capture->writer, sysprof_capture_writer_unref);
  if (capture->path != NULL)
    g_unlink (capture->path);
  g_clear_pointer (&capture->path, g_free);
}

typedef struct
{
  guint   n_calls;
  guint64 last_read;
  guint64 last_total;
} ProgressLog;

static void
on_progress (guint64 bytes_read, guint64 bytes_total, gpointer user_data)
{
  ProgressLog *log = user_data;

  log->n_calls++;
  log->last_read = bytes_read;
  log->last_total = bytes_total;
}

typedef struct
{
  SysprofCallgraph *callgraph;
  guint64          *self; /* per function index */
  guint64          *total;
  guint64          *self_bytes;
  guint            *seen; /* the sample that last counted the function's total, + 1 */
  guint             n_samples;
  guint64           weights;
  GHashTable       *stacks;     /* stack id -> its frames as a string */
  GHashTable       *by_content; /* outermost-first names -> weight, as foreach_stack gives them */
} SampleSums;

static gboolean
sum_sample (const SysprofCallgraphSample *sample, gpointer user_data)
{
  SampleSums *sums = user_data;
  g_autoptr (GString) key = g_string_new (NULL);
  g_autoptr (GString) names = g_string_new (NULL);
  const char *seen_key;

  sums->n_samples++;
  sums->weights += sample->weight;
  g_assert_cmpuint (sample->n_frames, >, 0);
  sums->self[sample->frames[0].function->index] += sample->weight;
  sums->self_bytes[sample->frames[0].function->index] += sample->bytes;
  g_string_append_printf (key, "%d", sample->pid);
  for (guint i = 0; i < sample->n_frames; i++)
    {
      const SysprofCallgraphSampleFrame *f = &sample->frames[i];
      guint                              index = f->function->index;

      /* The frame is the callgraph's own function. */
      g_assert_true (sysprof_callgraph_get_function (sums->callgraph, index) == f->function);
      if (sums->seen[index] != sums->n_samples)
        {
          sums->seen[index] = sums->n_samples;
          sums->total[index] += sample->weight;
        }
      if (f->inlined)
        {
          g_assert_cmpuint (i + 1, <, sample->n_frames);
          g_assert_cmpuint (f->address, ==, sample->frames[i + 1].address);
        }
      if (f->function->kind != SYSPROF_CALLGRAPH_FUNCTION_CODE)
        g_assert_cmpuint (f->address, ==, 0);
      g_string_append_printf (key, ";%u@%" G_GINT64_MODIFIER "x", index, f->address);
      g_string_prepend (names, f->function->symbol->name);
      if (i + 1 < sample->n_frames)
        g_string_prepend_c (names, ';');
    }
  /* Samples of one stack id have the same frames. */
  seen_key = g_hash_table_lookup (sums->stacks, GUINT_TO_POINTER (sample->stack));
  if (seen_key != NULL)
    g_assert_cmpstr (seen_key, ==, key->str);
  else
    g_hash_table_insert (sums->stacks, GUINT_TO_POINTER (sample->stack), g_strdup (key->str));
  /* foreach_stack leaves the root out, except alone. */
  if (g_str_has_prefix (names->str, "[Everything];"))
    g_string_erase (names, 0, strlen ("[Everything];"));
  g_hash_table_insert (sums->by_content, g_strdup (names->str),
                       GSIZE_TO_POINTER (GPOINTER_TO_SIZE (g_hash_table_lookup (sums->by_content, names->str)) +
                                         (gsize) sample->weight));
  return TRUE;
}

static gboolean
sum_stack (const SysprofCallgraphFunction *const *frames, guint n_frames, guint64 n_samples, gpointer user_data)
{
  GHashTable *by_stack = user_data;
  g_autoptr (GString) names = g_string_new (NULL);

  for (guint i = 0; i < n_frames; i++)
    g_string_append_printf (names, "%s%s", i ? ";" : "", frames[i]->symbol->name);
  g_hash_table_insert (
      by_stack, g_strdup (names->str),
      GSIZE_TO_POINTER (GPOINTER_TO_SIZE (g_hash_table_lookup (by_stack, names->str)) + (gsize) n_samples));
  return TRUE;
}

/* A sample as foreach_sample gives it, for comparing two iterations. */
typedef struct
{
  gint32  pid, tid;
  gint64  time;
  guint64 weight, bytes;
  guint32 stack;
  guint   n_frames;
} SeenSample;

typedef struct
{
  GArray     *all;    /* SeenSample, the default iteration */
  guint       next;   /* in the FRAMES_ONCE iteration */
  GHashTable *stacks; /* stacks whose frames were given */
} OnceCheck;

static gboolean
record_sample (const SysprofCallgraphSample *sample, gpointer user_data)
{
  OnceCheck *check = user_data;
  SeenSample seen = { sample->pid,   sample->tid,   sample->time,    sample->weight,
                      sample->bytes, sample->stack, sample->n_frames };

  g_array_append_val (check->all, seen);
  return TRUE;
}

static gboolean
check_once_sample (const SysprofCallgraphSample *sample, gpointer user_data)
{
  OnceCheck        *check = user_data;
  const SeenSample *want;

  g_assert_cmpuint (check->next, <, check->all->len);
  want = &g_array_index (check->all, SeenSample, check->next++);
  g_assert_cmpint (sample->pid, ==, want->pid);
  g_assert_cmpint (sample->tid, ==, want->tid);
  g_assert_cmpint (sample->time, ==, want->time);
  g_assert_cmpuint (sample->weight, ==, want->weight);
  g_assert_cmpuint (sample->bytes, ==, want->bytes);
  g_assert_cmpuint (sample->stack, ==, want->stack);
  if (g_hash_table_add (check->stacks, GUINT_TO_POINTER (sample->stack + 1)))
    g_assert_cmpuint (sample->n_frames, ==, want->n_frames);
  else
    {
      g_assert_cmpuint (sample->n_frames, ==, 0);
      g_assert_null (sample->frames);
    }
  return TRUE;
}

/* FRAMES_ONCE: the same samples in the same order, each stack's frames
 * with its first sample only. */
static void
check_frames_once (SysprofCallgraph *callgraph)
{
  OnceCheck check = { g_array_new (FALSE, FALSE, sizeof (SeenSample)), 0, g_hash_table_new (NULL, NULL) };

  sysprof_callgraph_foreach_sample (callgraph, record_sample, &check);
  sysprof_callgraph_foreach_sample_full (callgraph, SYSPROF_CALLGRAPH_SAMPLE_FRAMES_ONCE, check_once_sample, &check);
  g_assert_cmpuint (check.next, ==, check.all->len);
  g_array_unref (check.all);
  g_hash_table_unref (check.stacks);
}

/* The same capture and filter with keep_samples: the same callgraph, and
 * its samples one by one add up to every function's self and total, and
 * to foreach_stack's stacks. */
static void
check_samples (SysprofCaptureReader         *reader,
               SysprofSymbolizer            *symbolizer,
               const SysprofCallgraphFilter *filter,
               SysprofCallgraph             *plain)
{
  g_autoptr (GError) error = NULL;
  SysprofCallgraphFilter full = SYSPROF_CALLGRAPH_FILTER_INIT;
  g_autoptr (SysprofCallgraph) callgraph = NULL;
  g_autoptr (GHashTable) by_stack = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  SampleSums     sums = { 0 };
  guint          n;
  GHashTableIter iter;
  gpointer       key, value;

  if (filter != NULL)
    memcpy (&full, filter, MIN (filter->size, sizeof full));
  full.size = sizeof full;
  full.keep_samples = TRUE;
  callgraph = sysprof_callgraph_new (reader, symbolizer, &full, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (sysprof_callgraph_get_symbolizer (callgraph) == symbolizer);

  n = sysprof_callgraph_get_n_functions (callgraph);
  g_assert_cmpuint (n, ==, sysprof_callgraph_get_n_functions (plain));
  g_assert_cmpuint (sysprof_callgraph_get_n_samples (callgraph), ==, sysprof_callgraph_get_n_samples (plain));
  for (guint i = 0; i < n; i++)
    {
      const SysprofCallgraphFunction *a = sysprof_callgraph_get_function (callgraph, i);
      const SysprofCallgraphFunction *b = sysprof_callgraph_get_function (plain, i);

      g_assert_cmpstr (a->symbol->name, ==, b->symbol->name);
      g_assert_cmpuint (a->self, ==, b->self);
      g_assert_cmpuint (a->total, ==, b->total);
    }

  sums.callgraph = callgraph;
  sums.self = g_new0 (guint64, n);
  sums.total = g_new0 (guint64, n);
  sums.self_bytes = g_new0 (guint64, n);
  sums.seen = g_new0 (guint, n);
  sums.stacks = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  sums.by_content = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  sysprof_callgraph_foreach_sample (callgraph, sum_sample, &sums);
  g_assert_cmpuint (sums.weights, ==, sysprof_callgraph_get_n_samples (callgraph));
  check_frames_once (callgraph);
  for (guint i = 1; i < n; i++)
    {
      const SysprofCallgraphFunction *f = sysprof_callgraph_get_function (callgraph, i);

      g_assert_cmpuint (sums.self[i], ==, f->self);
      g_assert_cmpuint (sums.total[i], ==, f->total);
      /* Bytes are self_bytes only when they are not the weight. */
      if (sysprof_callgraph_get_n_bytes (callgraph) != sysprof_callgraph_get_n_samples (callgraph))
        g_assert_cmpuint (sums.self_bytes[i], ==, f->self_bytes);
    }
  sysprof_callgraph_foreach_stack (callgraph, sum_stack, by_stack);
  g_assert_cmpuint (g_hash_table_size (by_stack), ==, g_hash_table_size (sums.by_content));
  g_hash_table_iter_init (&iter, by_stack);
  while (g_hash_table_iter_next (&iter, &key, &value))
    g_assert_cmpuint (GPOINTER_TO_SIZE (g_hash_table_lookup (sums.by_content, key)), ==, GPOINTER_TO_SIZE (value));

  g_free (sums.self);
  g_free (sums.total);
  g_free (sums.self_bytes);
  g_free (sums.seen);
  g_hash_table_unref (sums.stacks);
  g_hash_table_unref (sums.by_content);
}

/* Every callgraph of these tests is built twice: the second time keeping
 * its samples, which check_samples() checks against the first. */
static SysprofCallgraph *
build_with_progress (const char *path, const SysprofCallgraphFilter *filter, ProgressLog *log)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (SysprofSymbolizer) symbolizer = sysprof_symbolizer_new ();
  SysprofCaptureReader *reader = sysprof_capture_reader_new (path);
  SysprofCallgraph     *callgraph;

  g_assert_nonnull (reader);
  sysprof_symbolizer_set_use_local_files (symbolizer, FALSE);
  g_assert_true (sysprof_symbolizer_load (symbolizer, reader, &error));
  g_assert_no_error (error);
  callgraph = sysprof_callgraph_new (reader, symbolizer, filter, log ? on_progress : NULL, log, &error);
  g_assert_no_error (error);
  g_assert_nonnull (callgraph);
  check_samples (reader, symbolizer, filter, callgraph);
  sysprof_capture_reader_unref (reader);
  return callgraph;
}

static SysprofCallgraph *
build (const char *path, const SysprofCallgraphFilter *filter)
{
  return build_with_progress (path, filter, NULL);
}

static const SysprofCallgraphFunction *
function (SysprofCallgraph *callgraph, const char *name)
{
  const SysprofCallgraphFunction *f = sysprof_callgraph_find_function (callgraph, name, NULL);

  if (f == NULL)
    g_error ("no function %s", name);
  return f;
}

static guint64
edge (GArray *edges, const char *name)
{
  for (guint i = 0; i < edges->len; i++)
    {
      const SysprofCallgraphEdge *e = &g_array_index (edges, SysprofCallgraphEdge, i);

      if (g_str_equal (e->function->symbol->name, name))
        return e->samples;
    }
  return 0;
}

static const SysprofCallgraphNode *
child (const SysprofCallgraphNode *node, const char *name)
{
  for (const SysprofCallgraphNode *c = node->first_child; c != NULL; c = c->next_sibling)
    if (g_str_equal (c->function->symbol->name, name))
      return c;
  g_error ("no child %s under %s", name, node->function->symbol->name);
  return NULL;
}

static guint
n_children (const SysprofCallgraphNode *node)
{
  guint n = 0;

  for (const SysprofCallgraphNode *c = node->first_child; c != NULL; c = c->next_sibling)
    n++;
  return n;
}

static gboolean
collect_stack (const SysprofCallgraphFunction *const *frames, guint n_frames, guint64 n_samples, gpointer user_data)
{
  GHashTable *stacks = user_data;
  g_autoptr (GString) key = g_string_new (NULL);

  for (guint i = 0; i < n_frames; i++)
    g_string_append_printf (key, "%s%s", i ? ";" : "", frames[i]->symbol->name);
  g_assert_false (g_hash_table_contains (stacks, key->str));
  g_hash_table_insert (stacks, g_strdup (key->str), GSIZE_TO_POINTER ((gsize) n_samples));
  return TRUE;
}

static GHashTable *
stacks_of (SysprofCallgraph *callgraph)
{
  GHashTable *stacks = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);

  sysprof_callgraph_foreach_stack (callgraph, collect_stack, stacks);
  return stacks;
}

static guint64
stack_count (GHashTable *stacks, const char *key)
{
  return GPOINTER_TO_SIZE (g_hash_table_lookup (stacks, key));
}

/* ------------------------------------------------------------------------ */
/* Callgraph */

static void
test_self_total (void)
{
  Capture capture = { 0 };
  g_autoptr (SysprofCallgraph) callgraph = NULL;
  g_autoptr (GArray) callers = NULL;
  g_autoptr (GArray) callees = NULL;
  const SysprofCallgraphNode *root, *app, *a, *b;
  ProgressLog                 log = { 0 };
  GStatBuf                    st;

  capture_init (&capture);
  /* main → a → b → c (3 samples, different addresses inside each function),
   * main → a → b (2), main → a → d (1), main (1). */
  ADD (&capture, PID_APP, PID_APP, 10, U (FC, 0x10), U (FB, 0x20), U (FA, 0x30), U (MAIN, 0x40));
  ADD (&capture, PID_APP, PID_APP, 20, U (FC, 0x11), U (FB, 0x20), U (FA, 0x30), U (MAIN, 0x40));
  ADD (&capture, PID_APP, PID_APP, 30, U (FC, 0x12), U (FB, 0x28), U (FA, 0x30), U (MAIN, 0x48));
  ADD (&capture, PID_APP, PID_APP, 40, U (FB, 0x10), U (FA, 0x30), U (MAIN, 0x40));
  ADD (&capture, PID_APP, PID_APP, 50, U (FB, 0x14), U (FA, 0x34), U (MAIN, 0x40));
  ADD (&capture, PID_APP, PID_APP, 60, U (FD, 0x10), U (FA, 0x38), U (MAIN, 0x40));
  ADD (&capture, PID_APP, PID_APP, 70, U (MAIN, 0x50));
  capture_finish (&capture);

  callgraph = build_with_progress (capture.path, NULL, &log);
  g_assert_cmpuint (sysprof_callgraph_get_n_samples (callgraph), ==, 7);
  g_assert_cmpuint (sysprof_callgraph_get_n_samples_read (callgraph), ==, 7);
  g_assert_cmpuint (log.n_calls, >=, 1);
  g_assert_cmpint (g_stat (capture.path, &st), ==, 0);
  g_assert_cmpuint (log.last_read, ==, (guint64) st.st_size);
  g_assert_cmpuint (log.last_total, ==, (guint64) st.st_size);

  g_assert_cmpuint (function (callgraph, "main")->self, ==, 1);
  g_assert_cmpuint (function (callgraph, "main")->total, ==, 7);
  g_assert_cmpuint (function (callgraph, "a")->self, ==, 0);
  g_assert_cmpuint (function (callgraph, "a")->total, ==, 6);
  g_assert_cmpuint (function (callgraph, "b")->self, ==, 2);
  g_assert_cmpuint (function (callgraph, "b")->total, ==, 5);
  g_assert_cmpuint (function (callgraph, "c")->self, ==, 3);
  g_assert_cmpuint (function (callgraph, "c")->total, ==, 3);
  g_assert_cmpuint (function (callgraph, "d")->self, ==, 1);
  g_assert_cmpuint (function (callgraph, "d")->total, ==, 1);
  g_assert_cmpstr (function (callgraph, "c")->symbol->library, ==, "app.so");
  g_assert_cmpint (function (callgraph, "c")->kind, ==, SYSPROF_CALLGRAPH_FUNCTION_CODE);
  g_assert_cmpint (function (callgraph, "[app]")->kind, ==, SYSPROF_CALLGRAPH_FUNCTION_PROCESS);
  g_assert_cmpuint (function (callgraph, "[app]")->total, ==, 7);
  g_assert_null (sysprof_callgraph_find_function (callgraph, "e", NULL));
  g_assert_null (sysprof_callgraph_find_function (callgraph, "c", "libother.so"));
  g_assert_nonnull (sysprof_callgraph_find_function (callgraph, "c", "app.so"));
  g_assert_true (sysprof_callgraph_get_function (callgraph, 0) == sysprof_callgraph_get_root (callgraph)->function);
  g_assert_cmpint (sysprof_callgraph_get_function (callgraph, 0)->kind, ==, SYSPROF_CALLGRAPH_FUNCTION_ROOT);

  callers = sysprof_callgraph_list_callers (callgraph, function (callgraph, "b"));
  g_assert_cmpuint (callers->len, ==, 1);
  g_assert_cmpuint (edge (callers, "a"), ==, 5);
  g_clear_pointer (&callers, g_array_unref);
  callers = sysprof_callgraph_list_callers (callgraph, function (callgraph, "main"));
  g_assert_cmpuint (callers->len, ==, 1);
  g_assert_cmpuint (edge (callers, "[app]"), ==, 7);

  callees = sysprof_callgraph_list_callees (callgraph, function (callgraph, "a"));
  g_assert_cmpuint (callees->len, ==, 2);
  /* Most samples first. */
  g_assert_cmpstr (g_array_index (callees, SysprofCallgraphEdge, 0).function->symbol->name, ==, "b");
  g_assert_cmpuint (edge (callees, "b"), ==, 5);
  g_assert_cmpuint (edge (callees, "d"), ==, 1);
  g_clear_pointer (&callees, g_array_unref);
  callees = sysprof_callgraph_list_callees (callgraph, function (callgraph, "c"));
  g_assert_cmpuint (callees->len, ==, 0);

  root = sysprof_callgraph_get_root (callgraph);
  g_assert_null (root->parent);
  g_assert_cmpuint (root->total, ==, 7);
  g_assert_cmpuint (root->depth, ==, 0);
  g_assert_cmpstr (root->function->symbol->name, ==, "[Everything]");
  g_assert_cmpuint (n_children (root), ==, 1);
  app = child (root, "[app]");
  g_assert_cmpuint (app->depth, ==, 1);
  g_assert_cmpuint (app->total, ==, 7);
  a = child (child (app, "main"), "a");
  g_assert_cmpuint (a->total, ==, 6);
  g_assert_cmpuint (n_children (a), ==, 2);
  /* Children by total, largest first. */
  g_assert_cmpstr (a->first_child->function->symbol->name, ==, "b");
  b = child (a, "b");
  g_assert_true (b->parent == a);
  g_assert_cmpuint (b->self, ==, 2);
  g_assert_cmpuint (b->total, ==, 5);
  g_assert_cmpuint (child (b, "c")->self, ==, 3);
  g_assert_cmpuint (child (b, "c")->depth, ==, 5);
  g_assert_cmpuint (child (child (app, "main"), "a")->total, ==, 6);

  capture_clear (&capture);
}

static void
test_recursion (void)
{
  Capture capture = { 0 };
  g_autoptr (SysprofCallgraph) callgraph = NULL;
  g_autoptr (GArray) edges = NULL;
  g_autoptr (GHashTable) stacks = NULL;

  capture_init (&capture);
  /* main → a → b → a → b → c (2), main → a → a → a (3), main → b (1). */
  for (int i = 0; i < 2; i++)
    ADD (&capture, PID_APP, PID_APP, i, U (FC, 0), U (FB, 0), U (FA, 0), U (FB, 0), U (FA, 0), U (MAIN, 0));
  for (int i = 0; i < 3; i++)
    ADD (&capture, PID_APP, PID_APP, 10 + i, U (FA, 1), U (FA, 2), U (FA, 3), U (MAIN, 0));
  ADD (&capture, PID_APP, PID_APP, 20, U (FB, 0), U (MAIN, 0));
  capture_finish (&capture);

  callgraph = build (capture.path, NULL);
  g_assert_cmpuint (sysprof_callgraph_get_n_samples (callgraph), ==, 6);
  /* Once per sample, however deep the recursion. */
  g_assert_cmpuint (function (callgraph, "a")->total, ==, 5);
  g_assert_cmpuint (function (callgraph, "a")->self, ==, 3);
  g_assert_cmpuint (function (callgraph, "b")->total, ==, 3);
  g_assert_cmpuint (function (callgraph, "b")->self, ==, 1);
  g_assert_cmpuint (function (callgraph, "c")->total, ==, 2);
  g_assert_cmpuint (function (callgraph, "main")->total, ==, 6);

  edges = sysprof_callgraph_list_callers (callgraph, function (callgraph, "a"));
  g_assert_cmpuint (edges->len, ==, 3);
  g_assert_cmpuint (edge (edges, "main"), ==, 5);
  g_assert_cmpuint (edge (edges, "b"), ==, 2);
  g_assert_cmpuint (edge (edges, "a"), ==, 3);
  g_clear_pointer (&edges, g_array_unref);

  /* a → b is on the path twice in the first two samples: counted once. */
  edges = sysprof_callgraph_list_callers (callgraph, function (callgraph, "b"));
  g_assert_cmpuint (edges->len, ==, 2);
  g_assert_cmpuint (edge (edges, "a"), ==, 2);
  g_assert_cmpuint (edge (edges, "main"), ==, 1);
  g_clear_pointer (&edges, g_array_unref);

  edges = sysprof_callgraph_list_callees (callgraph, function (callgraph, "a"));
  g_assert_cmpuint (edges->len, ==, 2);
  g_assert_cmpuint (edge (edges, "b"), ==, 2);
  g_assert_cmpuint (edge (edges, "a"), ==, 3);
  g_clear_pointer (&edges, g_array_unref);

  edges = sysprof_callgraph_list_callees (callgraph, function (callgraph, "b"));
  g_assert_cmpuint (edges->len, ==, 2);
  g_assert_cmpuint (edge (edges, "a"), ==, 2);
  g_assert_cmpuint (edge (edges, "c"), ==, 2);

  stacks = stacks_of (callgraph);
  g_assert_cmpuint (g_hash_table_size (stacks), ==, 3);
  g_assert_cmpuint (stack_count (stacks, "[app];main;a;b;a;b;c"), ==, 2);
  g_assert_cmpuint (stack_count (stacks, "[app];main;a;a;a"), ==, 3);
  g_assert_cmpuint (stack_count (stacks, "[app];main;b"), ==, 1);

  capture_clear (&capture);
}

static void
test_kernel_context (void)
{
  Capture capture = { 0 };
  g_autoptr (SysprofCallgraph) callgraph = NULL;
  g_autoptr (SysprofCallgraph) user_only = NULL;
  g_autoptr (GHashTable) stacks = NULL;
  g_autoptr (GArray) edges = NULL;
  SysprofCallgraphFilter          filter = SYSPROF_CALLGRAPH_FILTER_INIT;
  const SysprofCallgraphFunction *kernel;

  capture_init (&capture);
  /* A system call from main → a (2), a kernel-only sample (1), a marker
   * with no kernel frame (1), and a user sample with markers (1). */
  for (int i = 0; i < 2; i++)
    ADD (&capture, PID_APP, PID_APP, i, KMARK, K (KLEAF, 4), K (KSYSCALL, 8), K (KENTRY, 0), UMARK, U (FA, 0),
         U (MAIN, 0));
  ADD (&capture, PID_APP, PID_APP, 10, KMARK, K (KLEAF, 0), K (KENTRY, 0));
  ADD (&capture, PID_APP, PID_APP, 11, KMARK, UMARK, U (FB, 0), U (MAIN, 0));
  ADD (&capture, PID_APP, PID_APP, 12, UMARK, U (FC, 0), U (MAIN, 0));
  capture_finish (&capture);

  callgraph = build (capture.path, NULL);
  g_assert_cmpuint (sysprof_callgraph_get_n_samples (callgraph), ==, 5);
  stacks = stacks_of (callgraph);
  g_assert_cmpuint (g_hash_table_size (stacks), ==, 4);
  g_assert_cmpuint (stack_count (stacks, "[app];main;a;- - kernel - -;entry_SYSCALL_64;do_syscall_64;k_leaf"), ==, 2);
  g_assert_cmpuint (stack_count (stacks, "[app];- - kernel - -;entry_SYSCALL_64;k_leaf"), ==, 1);
  g_assert_cmpuint (stack_count (stacks, "[app];main;b;- - kernel - -"), ==, 1);
  g_assert_cmpuint (stack_count (stacks, "[app];main;c"), ==, 1);

  kernel = function (callgraph, "- - kernel - -");
  g_assert_cmpint (kernel->kind, ==, SYSPROF_CALLGRAPH_FUNCTION_CONTEXT);
  g_assert_cmpuint (kernel->total, ==, 4);
  g_assert_cmpuint (kernel->self, ==, 1);
  g_assert_cmpuint (function (callgraph, "k_leaf")->self, ==, 3);
  g_assert_cmpint (function (callgraph, "k_leaf")->symbol->kind, ==, SYSPROF_SYMBOL_KERNEL);
  g_assert_cmpint (function (callgraph, "a")->symbol->kind, ==, SYSPROF_SYMBOL_USER);
  g_assert_cmpuint (function (callgraph, "entry_SYSCALL_64")->total, ==, 3);

  edges = sysprof_callgraph_list_callers (callgraph, function (callgraph, "entry_SYSCALL_64"));
  g_assert_cmpuint (edges->len, ==, 1);
  g_assert_cmpuint (edge (edges, "- - kernel - -"), ==, 3);
  g_clear_pointer (&edges, g_array_unref);
  edges = sysprof_callgraph_list_callers (callgraph, kernel);
  g_assert_cmpuint (edge (edges, "a"), ==, 2);
  g_assert_cmpuint (edge (edges, "b"), ==, 1);
  g_assert_cmpuint (edge (edges, "[app]"), ==, 1);

  /* --no-kernel: the kernel frames go, their samples stay on the context node. */
  filter.no_kernel = TRUE;
  user_only = build (capture.path, &filter);
  g_clear_pointer (&stacks, g_hash_table_unref);
  stacks = stacks_of (user_only);
  g_assert_cmpuint (sysprof_callgraph_get_n_samples (user_only), ==, 5);
  g_assert_cmpuint (g_hash_table_size (stacks), ==, 4);
  g_assert_cmpuint (stack_count (stacks, "[app];main;a;- - kernel - -"), ==, 2);
  g_assert_cmpuint (stack_count (stacks, "[app];- - kernel - -"), ==, 1);
  g_assert_cmpuint (stack_count (stacks, "[app];main;b;- - kernel - -"), ==, 1);
  g_assert_cmpuint (stack_count (stacks, "[app];main;c"), ==, 1);
  g_assert_null (sysprof_callgraph_find_function (user_only, "k_leaf", NULL));
  g_assert_cmpuint (function (user_only, "- - kernel - -")->self, ==, 4);

  capture_clear (&capture);
}

static void
test_filters (void)
{
  Capture                capture = { 0 };
  SysprofCallgraphFilter filter;
  const gint32           other_pid[] = { PID_OTHER };
  const gint32           tids[] = { PID_APP + 1, PID_OTHER };
  const char *const      other_comm[] = { "other" };
  const char *const      full_comm[] = { "/usr/bin/other --flag" };
  const char *const      no_comm[] = { "othe" };

  capture_init (&capture);
  /* app: 3 samples in thread 100, 2 in thread 101; other: 4; nameless: 1. */
  for (int i = 0; i < 3; i++)
    ADD (&capture, PID_APP, PID_APP, i, U (FA, 0), U (MAIN, 0));
  for (int i = 0; i < 2; i++)
    ADD (&capture, PID_APP, PID_APP + 1, 10 + i, U (FB, 0), U (MAIN, 0));
  for (int i = 0; i < 4; i++)
    ADD (&capture, PID_OTHER, PID_OTHER, 20 + i, U (FC, 0), U (MAIN, 0));
  ADD (&capture, PID_NAMELESS, PID_NAMELESS, 30, U (FD, 0));
  capture_finish (&capture);

  {
    g_autoptr (SysprofCallgraph) all = build (capture.path, NULL);
    const SysprofCallgraphNode *root = sysprof_callgraph_get_root (all);

    g_assert_cmpuint (sysprof_callgraph_get_n_samples (all), ==, 10);
    g_assert_cmpuint (n_children (root), ==, 3);
    g_assert_cmpuint (child (root, "[app]")->total, ==, 5);
    g_assert_cmpuint (child (root, "[/usr/bin/other --flag]")->total, ==, 4);
    g_assert_cmpuint (child (root, "[Process 300]")->total, ==, 1);
    /* Processes are sorted by total too. */
    g_assert_cmpstr (root->first_child->function->symbol->name, ==, "[app]");
    g_assert_cmpuint (function (all, "main")->total, ==, 9);
  }

  sysprof_callgraph_filter_init (&filter);
  filter.pids = other_pid;
  filter.n_pids = 1;
  {
    g_autoptr (SysprofCallgraph) cg = build (capture.path, &filter);

    g_assert_cmpuint (sysprof_callgraph_get_n_samples (cg), ==, 4);
    g_assert_cmpuint (sysprof_callgraph_get_n_samples_read (cg), ==, 10);
    g_assert_cmpuint (function (cg, "c")->self, ==, 4);
    g_assert_null (sysprof_callgraph_find_function (cg, "a", NULL));
    g_assert_null (sysprof_callgraph_find_function (cg, "[app]", NULL));
  }

  sysprof_callgraph_filter_init (&filter);
  filter.comms = other_comm;
  filter.n_comms = 1;
  {
    g_autoptr (SysprofCallgraph) cg = build (capture.path, &filter);

    g_assert_cmpuint (sysprof_callgraph_get_n_samples (cg), ==, 4);
  }
  filter.comms = full_comm;
  {
    g_autoptr (SysprofCallgraph) cg = build (capture.path, &filter);

    g_assert_cmpuint (sysprof_callgraph_get_n_samples (cg), ==, 4);
  }
  filter.comms = no_comm;
  {
    g_autoptr (SysprofCallgraph) cg = build (capture.path, &filter);
    const SysprofCallgraphNode *root = sysprof_callgraph_get_root (cg);

    g_assert_cmpuint (sysprof_callgraph_get_n_samples (cg), ==, 0);
    g_assert_null (root->first_child);
    g_assert_cmpuint (root->total, ==, 0);
  }

  sysprof_callgraph_filter_init (&filter);
  filter.tids = tids;
  filter.n_tids = G_N_ELEMENTS (tids);
  {
    g_autoptr (SysprofCallgraph) cg = build (capture.path, &filter);

    g_assert_cmpuint (sysprof_callgraph_get_n_samples (cg), ==, 6);
    g_assert_cmpuint (function (cg, "b")->self, ==, 2);
    g_assert_cmpuint (function (cg, "c")->self, ==, 4);
    g_assert_null (sysprof_callgraph_find_function (cg, "a", NULL));
  }

  /* Conditions combine: pid of app and a thread of other → nothing. */
  filter.pids = (const gint32[]){ PID_APP };
  filter.n_pids = 1;
  filter.tids = (const gint32[]){ PID_OTHER };
  filter.n_tids = 1;
  {
    g_autoptr (SysprofCallgraph) cg = build (capture.path, &filter);

    g_assert_cmpuint (sysprof_callgraph_get_n_samples (cg), ==, 0);
  }

  capture_clear (&capture);
}

/* The sample cache keys on the pid too: one stack in two processes stays
 * two stacks. */
static void
test_same_stack_two_processes (void)
{
  Capture capture = { 0 };
  g_autoptr (SysprofCallgraph) callgraph = NULL;
  g_autoptr (GHashTable) stacks = NULL;

  capture_init (&capture);
  for (int i = 0; i < 5; i++)
    ADD (&capture, i < 2 ? PID_APP : PID_OTHER, 1, i, U (FA, 4), U (MAIN, 8));
  capture_finish (&capture);

  callgraph = build (capture.path, NULL);
  stacks = stacks_of (callgraph);
  g_assert_cmpuint (g_hash_table_size (stacks), ==, 2);
  g_assert_cmpuint (stack_count (stacks, "[app];main;a"), ==, 2);
  g_assert_cmpuint (stack_count (stacks, "[/usr/bin/other --flag];main;a"), ==, 3);
  g_assert_cmpuint (function (callgraph, "a")->self, ==, 5);

  capture_clear (&capture);
}

static void
test_time_range (void)
{
  Capture                capture = { 0 };
  SysprofCallgraphFilter filter = SYSPROF_CALLGRAPH_FILTER_INIT;
  SysprofCaptureReader  *reader;
  gint64                 start;

  capture_init (&capture);
  /* One sample per millisecond, function a before 5 ms, b from then on. */
  for (int i = 0; i < 10; i++)
    ADD (&capture, PID_APP, PID_APP, i * 1000000, U (i < 5 ? FA : FB, 0), U (MAIN, 0));
  capture_finish (&capture);

  reader = sysprof_capture_reader_new (capture.path);
  start = sysprof_capture_reader_get_start_time (reader);
  sysprof_capture_reader_unref (reader);
  g_assert_cmpint (start, <=, capture.base);

  /* [3 ms, 6 ms] from the first sample, both ends included. */
  filter.begin_ns = capture.base - start + 3000000;
  filter.end_ns = capture.base - start + 6000000;
  {
    g_autoptr (SysprofCallgraph) cg = build (capture.path, &filter);

    g_assert_cmpuint (sysprof_callgraph_get_n_samples (cg), ==, 4);
    g_assert_cmpuint (function (cg, "a")->self, ==, 2);
    g_assert_cmpuint (function (cg, "b")->self, ==, 2);
  }

  filter.begin_ns = capture.base - start + 3000001;
  filter.end_ns = G_MAXINT64;
  {
    g_autoptr (SysprofCallgraph) cg = build (capture.path, &filter);

    g_assert_cmpuint (sysprof_callgraph_get_n_samples (cg), ==, 6);
    g_assert_cmpuint (function (cg, "a")->self, ==, 1);
  }

  filter.begin_ns = G_MININT64;
  filter.end_ns = capture.base - start - 1;
  {
    g_autoptr (SysprofCallgraph) cg = build (capture.path, &filter);

    g_assert_cmpuint (sysprof_callgraph_get_n_samples (cg), ==, 0);
  }

  capture_clear (&capture);
}

static void
test_empty_samples (void)
{
  Capture capture = { 0 };
  g_autoptr (SysprofCallgraph) callgraph = NULL;
  g_autoptr (GHashTable) stacks = NULL;
  guint64        sum = 0;
  GHashTableIter iter;
  gpointer       value;

  capture_init (&capture);
  capture_add (&capture, PID_APP, PID_APP, 0, NULL, 0);
  capture_add (&capture, PID_APP, PID_APP, 1, NULL, 0);
  ADD (&capture, PID_APP, PID_APP, 2, U (MAIN, 0));
  /* An address no symbol covers. */
  ADD (&capture, PID_APP, PID_APP, 3, G_GUINT64_CONSTANT (0x9000), U (MAIN, 0));
  capture_finish (&capture);

  callgraph = build (capture.path, NULL);
  g_assert_cmpuint (sysprof_callgraph_get_n_samples (callgraph), ==, 4);
  /* A sample without frames ends at its process. */
  g_assert_cmpuint (function (callgraph, "[app]")->self, ==, 2);
  g_assert_cmpuint (function (callgraph, "main")->self, ==, 1);
  stacks = stacks_of (callgraph);
  g_assert_cmpuint (stack_count (stacks, "[app]"), ==, 2);
  g_assert_cmpuint (g_hash_table_size (stacks), ==, 3);
  g_hash_table_iter_init (&iter, stacks);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    sum += GPOINTER_TO_SIZE (value);
  g_assert_cmpuint (sum, ==, 4);

  for (guint i = 0; i < sysprof_callgraph_get_n_functions (callgraph); i++)
    {
      const SysprofCallgraphFunction *f = sysprof_callgraph_get_function (callgraph, i);

      g_assert_cmpuint (f->index, ==, i);
      g_assert_nonnull (f->symbol->name);
      if (f->kind == SYSPROF_CALLGRAPH_FUNCTION_CODE && f->symbol != function (callgraph, "main")->symbol)
        g_assert_cmpint (f->symbol->kind, ==, SYSPROF_SYMBOL_UNRESOLVED);
    }

  capture_clear (&capture);
}

static void
test_corrupt (void)
{
  Capture capture = { 0 };
  g_autoptr (GError) error = NULL;
  g_autoptr (SysprofSymbolizer) symbolizer = sysprof_symbolizer_new ();
  g_autoptr (SysprofCallgraph) callgraph = NULL;
  SysprofCaptureReader *reader;
  GStatBuf              st;

  capture_init (&capture);
  for (int i = 0; i < 100; i++)
    ADD (&capture, PID_APP, PID_APP, i, U (FA, 0), U (MAIN, 0));
  capture_finish (&capture);

  /* The symbolizer reads the whole capture too (and refuses a damaged one):
   * load it before the damage to see what the callgraph does. */
  reader = sysprof_capture_reader_new (capture.path);
  g_assert_nonnull (reader);
  sysprof_symbolizer_set_use_local_files (symbolizer, FALSE);
  g_assert_true (sysprof_symbolizer_load (symbolizer, reader, NULL));
  sysprof_capture_reader_unref (reader);

  g_assert_cmpint (g_stat (capture.path, &st), ==, 0);
  g_assert_cmpint (truncate (capture.path, st.st_size - 20), ==, 0);
  reader = sysprof_capture_reader_new (capture.path);
  g_assert_nonnull (reader);
  callgraph = sysprof_callgraph_new (reader, symbolizer, NULL, NULL, NULL, &error);
  g_assert_null (callgraph);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
  g_assert_nonnull (strstr (error->message, "offset"));
  sysprof_capture_reader_unref (reader);

  capture_clear (&capture);
}

/* The Sysprof 3.46 stack-sampling fixture: per-process sample counts of
 * tests/data/README.md. */
static void
test_fixture (void)
{
  g_autofree char *path =
      g_test_build_filename (G_TEST_DIST, "..", "..", "..", "tests", "data", "sysprof-3.46-perf.syscap", NULL);
  SysprofCallgraphFilter filter = SYSPROF_CALLGRAPH_FILTER_INIT;
  const gint32           busy[] = { 17, 18 };
  guint64                total_self = 0;

  {
    g_autoptr (SysprofCallgraph) cg = build (path, NULL);
    g_autoptr (GHashTable) stacks = stacks_of (cg);
    GHashTableIter iter;
    gpointer       value;
    guint64        sum = 0;

    g_assert_cmpuint (sysprof_callgraph_get_n_samples (cg), ==, 874);
    g_hash_table_iter_init (&iter, stacks);
    while (g_hash_table_iter_next (&iter, NULL, &value))
      sum += GPOINTER_TO_SIZE (value);
    g_assert_cmpuint (sum, ==, 874);
    for (guint i = 0; i < sysprof_callgraph_get_n_functions (cg); i++)
      total_self += sysprof_callgraph_get_function (cg, i)->self;
    g_assert_cmpuint (total_self, ==, 874);
  }

  filter.pids = busy;
  filter.n_pids = 1;
  {
    g_autoptr (SysprofCallgraph) cg = build (path, &filter);

    g_assert_cmpuint (sysprof_callgraph_get_n_samples (cg), ==, 517);
  }
  filter.n_pids = 2;
  {
    g_autoptr (SysprofCallgraph) cg = build (path, &filter);

    g_assert_cmpuint (sysprof_callgraph_get_n_samples (cg), ==, 857);
  }
}

/* ------------------------------------------------------------------------ */
/* Focus and hide */

/* The stacks of @callgraph are exactly @expected ("frame;frame count"),
 * they add up to its samples, and every function it lists is in the tree. */
static void
assert_stacks (SysprofCallgraph *callgraph, const char *const *expected, guint n_expected)
{
  g_autoptr (GHashTable) stacks = stacks_of (callgraph);
  guint64 sum = 0;

  for (guint i = 0; i < n_expected; i++)
    {
      const char      *space = strrchr (expected[i], ' ');
      g_autofree char *key = g_strndup (expected[i], (gsize) (space - expected[i]));

      if (!g_hash_table_contains (stacks, key))
        g_error ("no stack %s", key);
      g_assert_cmpuint (stack_count (stacks, key), ==, g_ascii_strtoull (space + 1, NULL, 10));
      sum += stack_count (stacks, key);
    }
  g_assert_cmpuint (g_hash_table_size (stacks), ==, n_expected);
  g_assert_cmpuint (sum, ==, sysprof_callgraph_get_n_samples (callgraph));
  g_assert_cmpuint (sysprof_callgraph_get_root (callgraph)->total, ==, sysprof_callgraph_get_n_samples (callgraph));
  for (guint i = 1; i < sysprof_callgraph_get_n_functions (callgraph); i++)
    g_assert_cmpuint (sysprof_callgraph_get_function (callgraph, i)->total, >, 0);
}

#define ASSERT_STACKS(callgraph, ...) \
  assert_stacks (callgraph, (const char *const[]){ __VA_ARGS__ }, G_N_ELEMENTS (((const char *const[]){ __VA_ARGS__ })))

static void
capture_add_repeated (Capture *capture, gint32 pid, guint times, const guint64 *addrs, guint n_addrs)
{
  static gint64 offset;

  for (guint i = 0; i < times; i++)
    capture_add (capture, pid, pid, ++offset, addrs, n_addrs);
}

#define ADDN(capture, pid, times, ...)                                         \
  capture_add_repeated (capture, pid, times, (const guint64[]){ __VA_ARGS__ }, \
                        G_N_ELEMENTS (((const guint64[]){ __VA_ARGS__ })))

/* 13 samples with known stacks (outermost first):
 *   app:   main;a;b;c ×3, main;a;b ×2, main;d;b;e, main;b, main;a;d, main,
 *          main;a;- - kernel - -;entry_SYSCALL_64;k_leaf, main;a;b;a;b;c
 *   other: main;b;c ×2 */
static void
write_focus_capture (Capture *capture)
{
  capture_init (capture);
  ADDN (capture, PID_APP, 3, U (FC, 0), U (FB, 0), U (FA, 0), U (MAIN, 0));
  ADDN (capture, PID_APP, 2, U (FB, 4), U (FA, 4), U (MAIN, 4));
  ADDN (capture, PID_APP, 1, U (FE, 0), U (FB, 8), U (FD, 0), U (MAIN, 8));
  ADDN (capture, PID_APP, 1, U (FB, 0), U (MAIN, 12));
  ADDN (capture, PID_APP, 1, U (FD, 4), U (FA, 8), U (MAIN, 16));
  ADDN (capture, PID_APP, 1, U (MAIN, 20));
  ADDN (capture, PID_APP, 1, KMARK, K (KLEAF, 0), K (KENTRY, 0), UMARK, U (FA, 12), U (MAIN, 24));
  ADDN (capture, PID_APP, 1, U (FC, 0), U (FB, 0), U (FA, 0), U (FB, 0), U (FA, 0), U (MAIN, 0));
  ADDN (capture, PID_OTHER, 2, U (FC, 0), U (FB, 0), U (MAIN, 0));
  capture_finish (capture);
}

static SysprofCallgraph *
build_focus_hide (const char *path, const char *focus, const char *hide)
{
  SysprofCallgraphFilter filter = SYSPROF_CALLGRAPH_FILTER_INIT;
  g_auto (GStrv) focus_names = focus != NULL ? g_strsplit (focus, ",", -1) : NULL;
  g_auto (GStrv) hide_names = hide != NULL ? g_strsplit (hide, ",", -1) : NULL;

  filter.focus = (const char *const *) focus_names;
  filter.n_focus = focus_names != NULL ? g_strv_length (focus_names) : 0;
  filter.hide = (const char *const *) hide_names;
  filter.n_hide = hide_names != NULL ? g_strv_length (hide_names) : 0;
  return build (path, &filter);
}

static void
test_focus (void)
{
  Capture capture = { 0 };

  write_focus_capture (&capture);

  {
    g_autoptr (SysprofCallgraph) cg = build_focus_hide (capture.path, "b", NULL);
    g_autoptr (GArray) callers = NULL;
    g_autoptr (GArray) callees = NULL;
    const SysprofCallgraphNode *root = sysprof_callgraph_get_root (cg);
    const SysprofCallgraphNode *b;

    /* Every stack through b, from its outermost b on; the process nodes
     * and the callers (main, d) are gone, the recursion below stays. */
    ASSERT_STACKS (cg, "b;c 5", "b 3", "b;e 1", "b;a;b;c 1");
    g_assert_cmpuint (sysprof_callgraph_get_n_samples (cg), ==, 10);
    g_assert_cmpuint (sysprof_callgraph_get_n_samples_read (cg), ==, 13);
    g_assert_cmpuint (root->total, ==, 10);
    g_assert_cmpuint (root->self, ==, 0);
    g_assert_cmpuint (n_children (root), ==, 1);
    b = child (root, "b");
    g_assert_cmpuint (b->depth, ==, 1);
    g_assert_cmpuint (b->total, ==, 10);
    g_assert_cmpuint (b->self, ==, 3);
    g_assert_cmpuint (function (cg, "b")->total, ==, 10);
    g_assert_cmpuint (function (cg, "b")->self, ==, 3);
    g_assert_cmpuint (function (cg, "c")->total, ==, 6);
    g_assert_cmpuint (function (cg, "a")->total, ==, 1);
    g_assert_null (sysprof_callgraph_find_function (cg, "main", NULL));
    g_assert_null (sysprof_callgraph_find_function (cg, "d", NULL));
    g_assert_null (sysprof_callgraph_find_function (cg, "[app]", NULL));
    g_assert_null (sysprof_callgraph_find_function (cg, "k_leaf", NULL));

    callers = sysprof_callgraph_list_callers (cg, function (cg, "b"));
    g_assert_cmpuint (callers->len, ==, 2);
    g_assert_cmpuint (edge (callers, "[Everything]"), ==, 10);
    g_assert_cmpuint (edge (callers, "a"), ==, 1);
    callees = sysprof_callgraph_list_callees (cg, function (cg, "b"));
    g_assert_cmpuint (callees->len, ==, 3);
    g_assert_cmpuint (edge (callees, "c"), ==, 6);
    g_assert_cmpuint (edge (callees, "e"), ==, 1);
    g_assert_cmpuint (edge (callees, "a"), ==, 1);
  }

  /* Two focused functions: each stack starts at the outermost of either. */
  {
    g_autoptr (SysprofCallgraph) cg = build_focus_hide (capture.path, "b,d", NULL);

    ASSERT_STACKS (cg, "b;c 5", "b 3", "d;b;e 1", "d 1", "b;a;b;c 1");
    g_assert_cmpuint (child (sysprof_callgraph_get_root (cg), "b")->total, ==, 9);
    g_assert_cmpuint (child (sysprof_callgraph_get_root (cg), "d")->total, ==, 2);
    g_assert_cmpuint (function (cg, "b")->total, ==, 10);
  }

  /* The context node is above the cut: dropped with the callers. */
  {
    g_autoptr (SysprofCallgraph) cg = build_focus_hide (capture.path, "a", NULL);

    ASSERT_STACKS (cg, "a;b;c 3", "a;b 2", "a;d 1", "a;- - kernel - -;entry_SYSCALL_64;k_leaf 1", "a;b;a;b;c 1");
  }
  {
    g_autoptr (SysprofCallgraph) cg = build_focus_hide (capture.path, "entry_SYSCALL_64", NULL);

    ASSERT_STACKS (cg, "entry_SYSCALL_64;k_leaf 1");
  }

  /* Only code frames match: processes, contexts and the root do not, nor
   * an unknown name. */
  {
    const char *const names[] = { "[app]", "- - kernel - -", "[Everything]", "no_such_function" };

    for (guint i = 0; i < G_N_ELEMENTS (names); i++)
      {
        g_autoptr (SysprofCallgraph) cg = build_focus_hide (capture.path, names[i], NULL);

        g_assert_cmpuint (sysprof_callgraph_get_n_samples (cg), ==, 0);
        g_assert_null (sysprof_callgraph_get_root (cg)->first_child);
        g_assert_cmpuint (sysprof_callgraph_get_n_functions (cg), ==, 1);
      }
  }

  /* With the other conditions: the frames they drop are not there to
   * focus on. */
  {
    SysprofCallgraphFilter filter = SYSPROF_CALLGRAPH_FILTER_INIT;
    const char *const      focus[] = { "k_leaf" };
    const char *const      focus_b[] = { "b" };
    const gint32           other[] = { PID_OTHER };

    filter.focus = focus;
    filter.n_focus = 1;
    {
      g_autoptr (SysprofCallgraph) cg = build (capture.path, &filter);

      ASSERT_STACKS (cg, "k_leaf 1");
    }
    filter.no_kernel = TRUE;
    {
      g_autoptr (SysprofCallgraph) cg = build (capture.path, &filter);

      g_assert_cmpuint (sysprof_callgraph_get_n_samples (cg), ==, 0);
    }
    filter.no_kernel = FALSE;
    filter.focus = focus_b;
    filter.pids = other;
    filter.n_pids = 1;
    {
      g_autoptr (SysprofCallgraph) cg = build (capture.path, &filter);

      ASSERT_STACKS (cg, "b;c 2");
    }
  }

  capture_clear (&capture);
}

static void
test_hide (void)
{
  Capture capture = { 0 };

  write_focus_capture (&capture);

  {
    g_autoptr (SysprofCallgraph) cg = build_focus_hide (capture.path, NULL, "b");
    g_autoptr (GArray) callers = NULL;

    /* b's callees join its caller, b's own samples go to it: main;b is now
     * main (with the sample of main alone), main;a;b is main;a. */
    ASSERT_STACKS (cg, "[app];main;a;c 3", "[app];main;a 2", "[app];main;d;e 1", "[app];main 2", "[app];main;a;d 1",
                   "[app];main;a;- - kernel - -;entry_SYSCALL_64;k_leaf 1", "[app];main;a;a;c 1",
                   "[/usr/bin/other --flag];main;c 2");
    g_assert_cmpuint (sysprof_callgraph_get_n_samples (cg), ==, 13);
    g_assert_null (sysprof_callgraph_find_function (cg, "b", NULL));
    g_assert_cmpuint (function (cg, "main")->self, ==, 2);
    g_assert_cmpuint (function (cg, "a")->self, ==, 2);
    g_assert_cmpuint (function (cg, "a")->total, ==, 8);
    g_assert_cmpuint (function (cg, "c")->total, ==, 6);
    callers = sysprof_callgraph_list_callers (cg, function (cg, "c"));
    g_assert_cmpuint (callers->len, ==, 2);
    g_assert_cmpuint (edge (callers, "a"), ==, 4);
    g_assert_cmpuint (edge (callers, "main"), ==, 2);
  }

  /* The outermost frame hidden: its samples go to the process node. */
  {
    g_autoptr (SysprofCallgraph) cg = build_focus_hide (capture.path, NULL, "main");

    ASSERT_STACKS (cg, "[app];a;b;c 3", "[app];a;b 2", "[app];d;b;e 1", "[app];b 1", "[app];a;d 1", "[app] 1",
                   "[app];a;- - kernel - -;entry_SYSCALL_64;k_leaf 1", "[app];a;b;a;b;c 1",
                   "[/usr/bin/other --flag];b;c 2");
    g_assert_cmpuint (function (cg, "[app]")->self, ==, 1);
  }

  /* Every kernel frame hidden: the context node keeps their samples. */
  {
    g_autoptr (SysprofCallgraph) cg = build_focus_hide (capture.path, NULL, "entry_SYSCALL_64,k_leaf,c,e");

    ASSERT_STACKS (cg, "[app];main;a;b 5", "[app];main;d;b 1", "[app];main;b 1", "[app];main;a;d 1", "[app];main 1",
                   "[app];main;a;- - kernel - - 1", "[app];main;a;b;a;b 1", "[/usr/bin/other --flag];main;b 2");
    g_assert_cmpuint (function (cg, "- - kernel - -")->self, ==, 1);
  }

  /* Every code frame hidden: all the samples stay, on the processes. */
  {
    g_autoptr (SysprofCallgraph) cg =
        build_focus_hide (capture.path, NULL, "main,a,b,c,d,e,entry_SYSCALL_64,k_leaf,[app],- - kernel - -");

    ASSERT_STACKS (cg, "[app] 10", "[app];- - kernel - - 1", "[/usr/bin/other --flag] 2");
    g_assert_cmpuint (sysprof_callgraph_get_n_functions (cg), ==, 4);
  }

  capture_clear (&capture);
}

static void
test_focus_and_hide (void)
{
  Capture capture = { 0 };

  write_focus_capture (&capture);

  /* The focus picks the samples and the cut, then the hidden frames go. */
  {
    g_autoptr (SysprofCallgraph) cg = build_focus_hide (capture.path, "a", "b");

    ASSERT_STACKS (cg, "a;c 3", "a 2", "a;d 1", "a;- - kernel - -;entry_SYSCALL_64;k_leaf 1", "a;a;c 1");
    g_assert_cmpuint (function (cg, "a")->self, ==, 2);
  }
  {
    g_autoptr (SysprofCallgraph) cg = build_focus_hide (capture.path, "b", "c");

    ASSERT_STACKS (cg, "b 8", "b;e 1", "b;a;b 1");
  }
  /* Hiding a caller above the cut changes nothing. */
  {
    g_autoptr (SysprofCallgraph) cg = build_focus_hide (capture.path, "b", "main,d");

    ASSERT_STACKS (cg, "b;c 5", "b 3", "b;e 1", "b;a;b;c 1");
  }

  /* Focused and hidden: the cut is made at b, then every frame of b goes;
   * the samples that ended in b have no frame left and stay on the root. */
  {
    g_autoptr (SysprofCallgraph) cg = build_focus_hide (capture.path, "b", "b");
    const SysprofCallgraphNode *root = sysprof_callgraph_get_root (cg);

    ASSERT_STACKS (cg, "c 5", "e 1", "a;c 1", "[Everything] 3");
    g_assert_cmpuint (sysprof_callgraph_get_n_samples (cg), ==, 10);
    g_assert_cmpuint (root->self, ==, 3);
    g_assert_cmpuint (root->total, ==, 10);
    g_assert_cmpuint (n_children (root), ==, 3);
    g_assert_cmpuint (child (root, "c")->total, ==, 5);
    g_assert_cmpuint (function (cg, "c")->total, ==, 6);
    g_assert_cmpuint (function (cg, "[Everything]")->self, ==, 3);
    g_assert_null (sysprof_callgraph_find_function (cg, "b", NULL));
  }

  capture_clear (&capture);
}

/* A caller built against the struct before focus and hide: its size ends
 * before them, and whatever follows in memory is not read. */
static void
test_filter_old_size (void)
{
  Capture                capture = { 0 };
  SysprofCallgraphFilter filter = SYSPROF_CALLGRAPH_FILTER_INIT;
  const char *const      names[] = { "b" };

  write_focus_capture (&capture);
  filter.size = G_STRUCT_OFFSET (SysprofCallgraphFilter, focus);
  filter.focus = names;
  filter.n_focus = 1;
  filter.hide = names;
  filter.n_hide = 1;
  {
    g_autoptr (SysprofCallgraph) cg = build (capture.path, &filter);

    g_assert_cmpuint (sysprof_callgraph_get_n_samples (cg), ==, 13);
    g_assert_cmpuint (function (cg, "b")->total, ==, 10);
  }
  filter.size = sizeof filter;
  {
    g_autoptr (SysprofCallgraph) cg = build (capture.path, &filter);

    g_assert_cmpuint (sysprof_callgraph_get_n_samples (cg), ==, 10);
  }

  capture_clear (&capture);
}

static void
capture_add_allocation (Capture *capture, gint64 offset, guint64 address, gint64 size, const guint64 *addrs, guint n)
{
  g_assert_true (sysprof_capture_writer_add_allocation_copy (capture->writer, capture->base + offset, 0, PID_APP,
                                                             PID_APP, address, size, addrs, n));
}

#define ALLOC(capture, offset, address, size, ...)                                          \
  capture_add_allocation (capture, offset, address, size, (const guint64[]){ __VA_ARGS__ }, \
                          G_N_ELEMENTS (((const guint64[]){ __VA_ARGS__ })))

static SysprofCallgraph *
build_allocations (const char            *path,
                   SysprofCallgraphSource source,
                   SysprofCallgraphWeight weight,
                   gboolean               keep_allocator_frames,
                   const char            *focus,
                   const char            *hide)
{
  SysprofCallgraphFilter filter = SYSPROF_CALLGRAPH_FILTER_INIT;
  const char *const      focus_names[] = { focus };
  const char *const      hide_names[] = { hide };

  filter.source = source;
  filter.weight = weight;
  filter.keep_allocator_frames = keep_allocator_frames;
  filter.focus = focus_names;
  filter.n_focus = focus != NULL;
  filter.hide = hide_names;
  filter.n_hide = hide != NULL;
  return build (path, &filter);
}

static void
test_focus_allocations (void)
{
  Capture                capture = { 0 };
  SysprofCallgraphSource all = SYSPROF_CALLGRAPH_SOURCE_ALLOCATIONS;
  SysprofCallgraphSource leaked = SYSPROF_CALLGRAPH_SOURCE_LEAKED_ALLOCATIONS;
  SysprofCallgraphWeight count = SYSPROF_CALLGRAPH_WEIGHT_COUNT;
  SysprofCallgraphWeight bytes = SYSPROF_CALLGRAPH_WEIGHT_BYTES;

  capture_init (&capture);
  /* main;a;b 100 bytes (freed) and 200, main;d 50, main;b 10, each through
   * malloc. */
  ALLOC (&capture, 1, 0x1000, 100, U (FMALLOC, 0), U (FB, 0), U (FA, 0), U (MAIN, 0));
  ALLOC (&capture, 2, 0x2000, 200, U (FMALLOC, 0), U (FB, 0), U (FA, 0), U (MAIN, 0));
  ALLOC (&capture, 3, 0x3000, 50, U (FMALLOC, 0), U (FD, 0), U (MAIN, 0));
  ALLOC (&capture, 4, 0x4000, 10, U (FMALLOC, 0), U (FB, 0), U (MAIN, 4));
  ALLOC (&capture, 5, 0x1000, 0, U (FMALLOC, 0), U (FA, 0), U (MAIN, 0));
  capture_finish (&capture);

  {
    g_autoptr (SysprofCallgraph) cg = build_allocations (capture.path, all, count, FALSE, "b", NULL);

    ASSERT_STACKS (cg, "b 3");
    g_assert_cmpuint (sysprof_callgraph_get_n_bytes (cg), ==, 310);
    g_assert_cmpuint (sysprof_callgraph_get_root (cg)->total_bytes, ==, 310);
    g_assert_cmpuint (function (cg, "b")->self_bytes, ==, 310);
    g_assert_null (sysprof_callgraph_find_function (cg, "malloc", NULL));
  }
  {
    g_autoptr (SysprofCallgraph) cg = build_allocations (capture.path, all, bytes, FALSE, "b", NULL);

    ASSERT_STACKS (cg, "b 310");
    g_assert_cmpuint (sysprof_callgraph_get_n_bytes (cg), ==, 310);
  }
  {
    g_autoptr (SysprofCallgraph) cg = build_allocations (capture.path, leaked, count, FALSE, "b", NULL);

    ASSERT_STACKS (cg, "b 2");
    g_assert_cmpuint (sysprof_callgraph_get_n_bytes (cg), ==, 210);
  }
  {
    g_autoptr (SysprofCallgraph) cg = build_allocations (capture.path, all, count, FALSE, NULL, "b");

    ASSERT_STACKS (cg, "[app];main;a 2", "[app];main;d 1", "[app];main 1");
    g_assert_cmpuint (sysprof_callgraph_get_n_bytes (cg), ==, 360);
    g_assert_cmpuint (function (cg, "a")->self_bytes, ==, 300);
    g_assert_cmpuint (function (cg, "main")->self_bytes, ==, 10);
  }
  {
    g_autoptr (SysprofCallgraph) cg = build_allocations (capture.path, leaked, bytes, FALSE, "a", "b");

    ASSERT_STACKS (cg, "a 200");
  }

  /* The allocator frames folded into the sites are not there to focus on,
   * unless they are kept. */
  {
    g_autoptr (SysprofCallgraph) cg = build_allocations (capture.path, all, count, FALSE, "malloc", NULL);

    g_assert_cmpuint (sysprof_callgraph_get_n_samples (cg), ==, 0);
    g_assert_cmpuint (sysprof_callgraph_get_n_bytes (cg), ==, 0);
  }
  {
    g_autoptr (SysprofCallgraph) cg = build_allocations (capture.path, all, count, TRUE, "malloc", NULL);

    ASSERT_STACKS (cg, "malloc 4");
    g_assert_cmpuint (sysprof_callgraph_get_n_bytes (cg), ==, 360);
  }
  {
    g_autoptr (SysprofCallgraph) cg = build_allocations (capture.path, all, count, TRUE, NULL, "malloc");

    ASSERT_STACKS (cg, "[app];main;a;b 2", "[app];main;d 1", "[app];main;b 1");
  }

  capture_clear (&capture);
}

/* ------------------------------------------------------------------------ */
/* Two callgraphs compared */

static const SysprofCallgraphDiffRow *
diff_row (SysprofCallgraphDiff *diff, const char *name, guint *position)
{
  for (guint i = 0; i < sysprof_callgraph_diff_get_n_rows (diff); i++)
    {
      const SysprofCallgraphDiffRow *row = sysprof_callgraph_diff_get_row (diff, i);

      if (g_str_equal (sysprof_callgraph_diff_row_get_function (row)->symbol->name, name))
        {
          if (position != NULL)
            *position = i;
          return row;
        }
    }
  g_error ("no row %s", name);
  return NULL;
}

static void
test_diff (void)
{
  Capture before = { 0 }, after = { 0 };
  g_autoptr (SysprofCallgraph) cg_before = NULL;
  g_autoptr (SysprofCallgraph) cg_after = NULL;
  g_autoptr (SysprofCallgraphDiff) diff = NULL;
  g_autoptr (SysprofCallgraphDiff) by_total = NULL;
  const SysprofCallgraphDiffRow *row;
  const SysprofCallgraphNode    *main_node, *a, *d;
  double                         b_percent, a_percent;
  guint                          position;

  /* BEFORE, 10 samples: main;a;b 4, main;a;c 3, main;d 2, main 1.
   * AFTER, 20 samples: main;a;b 4, main;a;c 6, main;d 6, main;d;b 2,
   * main;e 2. */
  capture_init (&before);
  for (guint i = 0; i < 10; i++)
    {
      gint64 t = 10 * (gint64) (i + 1);

      if (i < 4)
        ADD (&before, PID_APP, PID_APP, t, U (FB, i), U (FA, 0x30), U (MAIN, 0x40));
      else if (i < 7)
        ADD (&before, PID_APP, PID_APP, t, U (FC, i), U (FA, 0x30), U (MAIN, 0x40));
      else if (i < 9)
        ADD (&before, PID_APP, PID_APP, t, U (FD, i), U (MAIN, 0x44));
      else
        ADD (&before, PID_APP, PID_APP, t, U (MAIN, 0x50));
    }
  capture_finish (&before);
  capture_init (&after);
  for (guint i = 0; i < 20; i++)
    {
      gint64 t = 10 * (gint64) (i + 1);

      if (i < 4)
        ADD (&after, PID_APP, PID_APP, t, U (FB, i), U (FA, 0x30), U (MAIN, 0x40));
      else if (i < 10)
        ADD (&after, PID_APP, PID_APP, t, U (FC, i), U (FA, 0x30), U (MAIN, 0x40));
      else if (i < 16)
        ADD (&after, PID_APP, PID_APP, t, U (FD, i), U (MAIN, 0x44));
      else if (i < 18)
        ADD (&after, PID_APP, PID_APP, t, U (FB, i), U (FD, 0x20), U (MAIN, 0x44));
      else
        ADD (&after, PID_APP, PID_APP, t, U (FE, i), U (MAIN, 0x48));
    }
  capture_finish (&after);

  cg_before = build (before.path, NULL);
  cg_after = build (after.path, NULL);
  diff = sysprof_callgraph_diff_new (cg_before, cg_after, SYSPROF_CALLGRAPH_DIFF_SORT_SELF);
  g_assert_true (sysprof_callgraph_diff_get_before (diff) == cg_before);
  g_assert_true (sysprof_callgraph_diff_get_after (diff) == cg_after);

  /* Functions: main, a, b, c, d, e; never the root or [app]. */
  g_assert_cmpuint (sysprof_callgraph_diff_get_n_rows (diff), ==, 6);
  row = diff_row (diff, "b", &position);
  g_assert_cmpuint (row->self[0], ==, 4);
  g_assert_cmpuint (row->self[1], ==, 6);
  g_assert_cmpfloat_with_epsilon (row->self_percent[0], 40.0, 1e-9);
  g_assert_cmpfloat_with_epsilon (row->self_percent[1], 30.0, 1e-9);
  g_assert_cmpfloat_with_epsilon (row->self_change, -10.0, 1e-9);
  g_assert_cmpfloat_with_epsilon (row->total_change, -10.0, 1e-9);
  g_assert_true (row->function[0] == function (cg_before, "b"));
  g_assert_true (row->function[1] == function (cg_after, "b"));
  /* Changes of 10 points (b, d, e, main; ties by name), then none. */
  g_assert_cmpuint (position, ==, 0);
  g_assert_cmpuint ((diff_row (diff, "d", &position), position), ==, 1);
  g_assert_cmpuint ((diff_row (diff, "e", &position), position), ==, 2);
  g_assert_cmpuint ((diff_row (diff, "main", &position), position), ==, 3);
  g_assert_cmpfloat_with_epsilon (diff_row (diff, "main", NULL)->self_change, -10.0, 1e-9);
  g_assert_cmpfloat_with_epsilon (diff_row (diff, "main", NULL)->total_change, 0.0, 1e-9);
  g_assert_cmpfloat_with_epsilon (diff_row (diff, "c", NULL)->self_change, 0.0, 1e-9);
  g_assert_cmpfloat_with_epsilon (diff_row (diff, "a", NULL)->total_change, -20.0, 1e-9);
  /* A function of one side only: 0 on the other. */
  row = diff_row (diff, "e", NULL);
  g_assert_null (row->function[0]);
  g_assert_true (sysprof_callgraph_diff_row_get_function (row) == function (cg_after, "e"));
  g_assert_cmpuint (row->self[0], ==, 0);
  g_assert_cmpfloat_with_epsilon (row->self_change, 10.0, 1e-9);

  /* By total: a and d (20 points) first. */
  by_total = sysprof_callgraph_diff_new (cg_before, cg_after, SYSPROF_CALLGRAPH_DIFF_SORT_TOTAL);
  g_assert_cmpstr (sysprof_callgraph_diff_row_get_function (sysprof_callgraph_diff_get_row (by_total, 0))->symbol->name,
                   ==, "a");
  g_assert_cmpstr (sysprof_callgraph_diff_row_get_function (sysprof_callgraph_diff_get_row (by_total, 1))->symbol->name,
                   ==, "d");

  /* Frames, matched by path. */
  main_node = child (child (sysprof_callgraph_get_root (cg_after), "[app]"), "main");
  a = child (main_node, "a");
  d = child (main_node, "d");
  g_assert_true (sysprof_callgraph_diff_get_before_node (diff, sysprof_callgraph_get_root (cg_after)) ==
                 sysprof_callgraph_get_root (cg_before));
  g_assert_true (sysprof_callgraph_diff_get_before_node (diff, a) ==
                 child (child (child (sysprof_callgraph_get_root (cg_before), "[app]"), "main"), "a"));
  g_assert_cmpfloat_with_epsilon (sysprof_callgraph_diff_get_node_change (diff, main_node, &b_percent, &a_percent), 0.0,
                                  1e-9);
  g_assert_cmpfloat_with_epsilon (b_percent, 100.0, 1e-9);
  g_assert_cmpfloat_with_epsilon (sysprof_callgraph_diff_get_node_change (diff, a, &b_percent, &a_percent), -20.0,
                                  1e-9);
  g_assert_cmpfloat_with_epsilon (b_percent, 70.0, 1e-9);
  g_assert_cmpfloat_with_epsilon (a_percent, 50.0, 1e-9);
  g_assert_cmpfloat_with_epsilon (sysprof_callgraph_diff_get_node_change (diff, child (a, "b"), NULL, NULL), -20.0,
                                  1e-9);
  g_assert_cmpfloat_with_epsilon (sysprof_callgraph_diff_get_node_change (diff, child (a, "c"), NULL, NULL), 0.0, 1e-9);
  g_assert_cmpfloat_with_epsilon (sysprof_callgraph_diff_get_node_change (diff, d, NULL, NULL), 20.0, 1e-9);
  /* main;d;b is b's name on another path: a new frame. */
  g_assert_null (sysprof_callgraph_diff_get_before_node (diff, child (d, "b")));
  g_assert_cmpfloat_with_epsilon (sysprof_callgraph_diff_get_node_change (diff, child (d, "b"), &b_percent, NULL), 10.0,
                                  1e-9);
  g_assert_cmpfloat_with_epsilon (b_percent, 0.0, 1e-9);
  g_assert_null (sysprof_callgraph_diff_get_before_node (diff, child (main_node, "e")));
  g_assert_cmpfloat_with_epsilon (sysprof_callgraph_diff_get_max_node_change (diff), 20.0, 1e-9);

  /* Colours: grey unchanged, full red and blue at the largest change, in
   * between in proportion; a change beyond the largest stays full. */
  {
    guint8 rgb[3];

    sysprof_callgraph_diff_colour_for_change (0.0, 20.0, rgb);
    g_assert_cmpuint (rgb[0], ==, 226);
    g_assert_cmpuint (rgb[2], ==, 222);
    sysprof_callgraph_diff_colour_for_change (20.0, 20.0, rgb);
    g_assert_cmpuint (rgb[0], ==, 222);
    g_assert_cmpuint (rgb[1], ==, 40);
    g_assert_cmpuint (rgb[2], ==, 32);
    sysprof_callgraph_diff_colour_for_change (-25.0, 20.0, rgb);
    g_assert_cmpuint (rgb[0], ==, 40);
    g_assert_cmpuint (rgb[1], ==, 96);
    g_assert_cmpuint (rgb[2], ==, 228);
    sysprof_callgraph_diff_colour_for_change (-10.0, 20.0, rgb);
    g_assert_cmpuint (rgb[0], ==, 133);
    g_assert_cmpuint (rgb[2], ==, 225);
    sysprof_callgraph_diff_colour_for_change (5.0, 0.0, rgb);
    g_assert_cmpuint (rgb[1], ==, 226);
  }

  /* A side without samples: every share there is 0, nothing divides by 0. */
  {
    const gint32           nobody[] = { 999 };
    SysprofCallgraphFilter filter = SYSPROF_CALLGRAPH_FILTER_INIT;
    g_autoptr (SysprofCallgraph) empty = NULL;
    g_autoptr (SysprofCallgraphDiff) from_nothing = NULL;

    filter.pids = nobody;
    filter.n_pids = 1;
    empty = build (before.path, &filter);
    from_nothing = sysprof_callgraph_diff_new (empty, cg_after, SYSPROF_CALLGRAPH_DIFF_SORT_SELF);
    row = diff_row (from_nothing, "c", NULL);
    g_assert_cmpfloat_with_epsilon (row->self_percent[0], 0.0, 1e-9);
    g_assert_cmpfloat_with_epsilon (row->self_change, 30.0, 1e-9);
    g_assert_cmpfloat_with_epsilon (sysprof_callgraph_diff_get_max_node_change (from_nothing), 100.0, 1e-9);
  }

  capture_clear (&before);
  capture_clear (&after);
}

/* ------------------------------------------------------------------------ */
/* Samples one by one */

static gboolean
describe_sample (const SysprofCallgraphSample *sample, gpointer user_data)
{
  GPtrArray *lines = user_data;
  GString   *line = g_string_new (NULL);

  g_string_append_printf (line, "%d/%d cpu%d t%" G_GINT64_FORMAT " w%" G_GUINT64_FORMAT " b%" G_GUINT64_FORMAT ":",
                          sample->pid, sample->tid, sample->cpu, sample->time, sample->weight, sample->bytes);
  for (guint i = 0; i < sample->n_frames; i++)
    {
      const SysprofCallgraphSampleFrame *f = &sample->frames[i];

      g_string_append_printf (line, " %s", f->function->symbol->name);
      if (f->address != 0)
        g_string_append_printf (line, "@%" G_GINT64_MODIFIER "x/%d", f->address, f->context);
    }
  g_ptr_array_add (lines, g_string_free (line, FALSE));
  return TRUE;
}

/* @expected: one line per sample, times relative to the capture's base. */
static void
assert_samples (Capture *capture, const SysprofCallgraphFilter *filter, const char *const *expected, guint n)
{
  SysprofCallgraphFilter keeping = *filter;
  g_autoptr (SysprofCallgraph) cg = NULL;
  g_autoptr (GPtrArray) got = g_ptr_array_new_with_free_func (g_free);

  keeping.keep_samples = TRUE;
  cg = build (capture->path, &keeping);
  sysprof_callgraph_foreach_sample (cg, describe_sample, got);
  for (guint i = 0; i < got->len; i++)
    {
      /* "t<base + offset>" becomes "t+<offset>". */
      char            *line = got->pdata[i];
      char            *t = strstr (line, " t");
      char            *rest = NULL;
      gint64           time = g_ascii_strtoll (t + 2, &rest, 10);
      g_autofree char *head = g_strndup (line, (gsize) (t - line));

      got->pdata[i] = g_strdup_printf ("%s t+%" G_GINT64_FORMAT "%s", head, time - capture->base, rest);
      g_free (line);
    }
  for (guint i = 0; i < MAX (n, got->len); i++)
    if (i >= n || i >= got->len || !g_str_equal (expected[i], got->pdata[i]))
      {
        for (guint j = 0; j < got->len; j++)
          g_printerr ("  got %s\n", (const char *) got->pdata[j]);
        g_error ("sample %u: %s, expected %s", i, i < got->len ? (const char *) got->pdata[i] : "none",
                 i < n ? expected[i] : "none");
      }
}

#define ASSERT_SAMPLES(capture, filter, ...)                             \
  assert_samples (capture, filter, (const char *const[]){ __VA_ARGS__ }, \
                  G_N_ELEMENTS (((const char *const[]){ __VA_ARGS__ })))

/* Each sample with its process, thread, CPU, time, weight and frames,
 * innermost first with their addresses and contexts, as the callgraph
 * counts it: through --no-kernel, focus and hide, the off-CPU and
 * wall-clock weights; allocations with their bytes, the leaks only those
 * still live (a live address allocated again loses its first allocation). */
static void
test_samples (void)
{
  Capture                capture = { 0 };
  SysprofCallgraphFilter filter = SYSPROF_CALLGRAPH_FILTER_INIT;
  const char *const      a[] = { "a" };
  const char *const      b[] = { "b" };
  const guint64          off_cpu[] = { U (FB, 3), U (FA, 7), U (MAIN, 1) };
  g_autofree char       *wall_off_cpu = NULL;

  capture_init (&capture);
  ADD (&capture, PID_APP, 101, 10, KMARK, K (KLEAF, 5), K (KENTRY, 1), UMARK, U (FB, 3), U (FA, 7), U (MAIN, 1));
  ADD (&capture, PID_OTHER, 201, 20, U (FC, 2), U (MAIN, 9));
  ADD (&capture, PID_APP, 102, 30, KMARK, K (KLEAF, 5), K (KENTRY, 1), UMARK, U (FB, 3), U (FA, 7), U (MAIN, 1));
  g_assert_true (sysprof_capture_writer_add_off_cpu_sample (capture.writer, capture.base + 40, 1, PID_APP, 101, off_cpu,
                                                            G_N_ELEMENTS (off_cpu), 500));
  capture_finish (&capture);

#define KERNEL " k_leaf@ffffffff81002005/2 entry_SYSCALL_64@ffffffff81000001/2 - - kernel - -"
#define USER   " b@402003/3 a@401007/3 main@400001/3 [app]"
#define OTHER  "200/201 cpu0 t+20 w1 b0: c@403002/0 main@400009/0 [/usr/bin/other --flag]"
  ASSERT_SAMPLES (&capture, &filter, "100/101 cpu0 t+10 w1 b0:" KERNEL USER, OTHER,
                  "100/102 cpu0 t+30 w1 b0:" KERNEL USER);
  filter.no_kernel = TRUE;
  ASSERT_SAMPLES (&capture, &filter, "100/101 cpu0 t+10 w1 b0: - - kernel - -" USER, OTHER,
                  "100/102 cpu0 t+30 w1 b0: - - kernel - -" USER);
  filter.no_kernel = FALSE;
  filter.focus = a;
  filter.n_focus = 1;
  ASSERT_SAMPLES (&capture, &filter, "100/101 cpu0 t+10 w1 b0:" KERNEL " b@402003/3 a@401007/3",
                  "100/102 cpu0 t+30 w1 b0:" KERNEL " b@402003/3 a@401007/3");
  filter.n_focus = 0;
  filter.hide = b;
  filter.n_hide = 1;
  ASSERT_SAMPLES (&capture, &filter, "100/101 cpu0 t+10 w1 b0:" KERNEL " a@401007/3 main@400001/3 [app]", OTHER,
                  "100/102 cpu0 t+30 w1 b0:" KERNEL " a@401007/3 main@400001/3 [app]");
  filter.n_hide = 0;
  filter.source = SYSPROF_CALLGRAPH_SOURCE_OFF_CPU;
  /* Off-CPU stacks have no context marker of their own. */
  ASSERT_SAMPLES (&capture, &filter, "100/101 cpu1 t+40 w500 b0: b@402003/0 a@401007/0 main@400001/0 [app]");
  /* Wall-clock: the samples on the CPU weigh the period (1 s / 997 in
   * microseconds), the off-CPU one keeps its "[off-CPU]" frame. */
  filter.source = SYSPROF_CALLGRAPH_SOURCE_WALL_CLOCK;
  wall_off_cpu = g_strdup_printf (
      "100/101 cpu1 t+40 w500 b0: b@402003/0 a@401007/0 main@400001/0 [off-CPU]@%" G_GINT64_MODIFIER "x/3 [app]",
      (guint64) (SYSPROF_CAPTURE_JITMAP_MARK | 1));
  ASSERT_SAMPLES (&capture, &filter, "100/101 cpu0 t+10 w1003 b0:" KERNEL USER,
                  "200/201 cpu0 t+20 w1003 b0: c@403002/0 main@400009/0 [/usr/bin/other --flag]",
                  "100/102 cpu0 t+30 w1003 b0:" KERNEL USER, wall_off_cpu);
#undef KERNEL
#undef USER
#undef OTHER
  capture_clear (&capture);

  capture_init (&capture);
  ALLOC (&capture, 1, 0x5000, 10, U (FMALLOC, 0), U (FB, 0), U (MAIN, 0));
  ALLOC (&capture, 2, 0x5000, 20, U (FMALLOC, 0), U (FA, 0), U (MAIN, 0));
  ALLOC (&capture, 3, 0x6000, 30, U (FMALLOC, 0), U (FB, 0), U (MAIN, 0));
  ALLOC (&capture, 4, 0x6000, 0, U (FMALLOC, 0), U (FC, 0), U (MAIN, 0));
  capture_finish (&capture);
  filter = (SysprofCallgraphFilter) SYSPROF_CALLGRAPH_FILTER_INIT;
  filter.source = SYSPROF_CALLGRAPH_SOURCE_ALLOCATIONS;
  ASSERT_SAMPLES (&capture, &filter, "100/100 cpu0 t+1 w1 b10: b@402000/0 main@400000/0 [app]",
                  "100/100 cpu0 t+2 w1 b20: a@401000/0 main@400000/0 [app]",
                  "100/100 cpu0 t+3 w1 b30: b@402000/0 main@400000/0 [app]");
  filter.source = SYSPROF_CALLGRAPH_SOURCE_LEAKED_ALLOCATIONS;
  filter.weight = SYSPROF_CALLGRAPH_WEIGHT_BYTES;
  ASSERT_SAMPLES (&capture, &filter, "100/100 cpu0 t+2 w20 b20: a@401000/0 main@400000/0 [app]");
  capture_clear (&capture);

  /* Written out of order (as Sysprof 3.46 wrote its CPUs' samples in
   * turns): given in time order, equal times as written. */
  capture_init (&capture);
  ADD (&capture, PID_APP, 103, 30, U (FC, 0), U (MAIN, 0));
  ADD (&capture, PID_APP, 101, 10, U (FA, 0), U (MAIN, 0));
  ADD (&capture, PID_APP, 104, 30, U (FD, 0), U (MAIN, 0));
  ADD (&capture, PID_APP, 102, 20, U (FB, 0), U (MAIN, 0));
  capture_finish (&capture);
  filter = (SysprofCallgraphFilter) SYSPROF_CALLGRAPH_FILTER_INIT;
  ASSERT_SAMPLES (&capture, &filter, "100/101 cpu0 t+10 w1 b0: a@401000/0 main@400000/0 [app]",
                  "100/102 cpu0 t+20 w1 b0: b@402000/0 main@400000/0 [app]",
                  "100/103 cpu0 t+30 w1 b0: c@403000/0 main@400000/0 [app]",
                  "100/104 cpu0 t+30 w1 b0: d@404000/0 main@400000/0 [app]");
  capture_clear (&capture);
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/Libsysprof/StackStash/collapse", test_stash_collapse);
  g_test_add_func ("/Libsysprof/StackStash/many-children", test_stash_many_children);
  g_test_add_func ("/Libsysprof/StackStash/walk", test_stash_walk);
  g_test_add_func ("/Libsysprof/Callgraph/self-total", test_self_total);
  g_test_add_func ("/Libsysprof/Callgraph/recursion", test_recursion);
  g_test_add_func ("/Libsysprof/Callgraph/kernel-context", test_kernel_context);
  g_test_add_func ("/Libsysprof/Callgraph/filters", test_filters);
  g_test_add_func ("/Libsysprof/Callgraph/same-stack-two-processes", test_same_stack_two_processes);
  g_test_add_func ("/Libsysprof/Callgraph/time-range", test_time_range);
  g_test_add_func ("/Libsysprof/Callgraph/empty-samples", test_empty_samples);
  g_test_add_func ("/Libsysprof/Callgraph/corrupt", test_corrupt);
  g_test_add_func ("/Libsysprof/Callgraph/fixture", test_fixture);
  g_test_add_func ("/Libsysprof/Callgraph/focus", test_focus);
  g_test_add_func ("/Libsysprof/Callgraph/hide", test_hide);
  g_test_add_func ("/Libsysprof/Callgraph/focus-and-hide", test_focus_and_hide);
  g_test_add_func ("/Libsysprof/Callgraph/filter-old-size", test_filter_old_size);
  g_test_add_func ("/Libsysprof/Callgraph/focus-allocations", test_focus_allocations);
  g_test_add_func ("/Libsysprof/Callgraph/samples", test_samples);
  g_test_add_func ("/Libsysprof/CallgraphDiff/functions-and-frames", test_diff);

  return g_test_run ();
}
