// SPDX-License-Identifier: GPL-3.0-or-later
/* The callgraph's frames from real binaries: the inline workload of
 * libsysprof/symbols/tests/elf (-O2 -g, an always_inline function, known
 * lines) and its library stripped to .dynsym.  Captures are written here,
 * with the maps of a real run of the workload and stacks made of its real
 * addresses: where addr2line puts the inlined function, the return
 * addresses objdump shows after its calls, and data a frame-pointer walk
 * would read as return addresses.  Checked: inline frames as frames of
 * their own, source lines (the call's line for a return address), the
 * stripped library's functions one row each, garbage cut; then the same
 * after the tables are embedded, without the files. */

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gio/gio.h>
#include <glib/gstdio.h>

#include "sysprof-analysis.h"
#include "sysprof-symbols.h"

#include "inline-oracle.h"

#define PID     4242
#define GARBAGE G_GUINT64_CONSTANT (0x6e6572617020676e) /* "ng paren", from an input text */

typedef struct
{
  char   *dir;      /* temporary: the stripped copy of the library */
  char   *workload; /* the real paths */
  char   *lib_copy;
  GArray *maps; /* Map */
  /* Run-time addresses. */
  guint64 mix[3];     /* in inline_outer, inside inline_mix at lines mix-a, -b, -c */
  guint64 outer_ret;  /* after the call of inline_outer in inline_middle */
  guint64 middle_ret; /* after the call of inline_middle in main */
  guint64 grouped[3]; /* static functions of the library: start */
  guint64 grouped_size[3];
  guint64 grouped_offset[3]; /* their file offsets */
  guint   lines[5];          /* mix-a, mix-b, mix-c, mix-call, outer-call */
  guint   middle_call;
} Fixture;

typedef struct
{
  guint64  start, end, offset;
  gboolean exec;
  char    *path;
} Map;

static char *
run (const char *const *argv)
{
  return oracle_run (argv, NULL);
}

static guint
marker_line (const char *marker)
{
  return oracle_marker_line (g_getenv ("INLINE_WORKLOAD_SOURCE"), marker);
}

static const Map *
data_map_of (Fixture *fx, const char *path_suffix)
{
  for (guint i = 0; i < fx->maps->len; i++)
    {
      const Map *m = &g_array_index (fx->maps, Map, i);
      if (g_str_has_suffix (m->path, path_suffix) && m->offset != 0 && !m->exec)
        return m;
    }
  g_error ("no data map of %s", path_suffix);
  return NULL;
}

static const Map *
map_of (Fixture *fx, const char *path_suffix)
{
  for (guint i = 0; i < fx->maps->len; i++)
    {
      const Map *m = &g_array_index (fx->maps, Map, i);
      if (g_str_has_suffix (m->path, path_suffix) && m->offset == 0)
        return m;
    }
  g_error ("no map of %s", path_suffix);
  return NULL;
}

/* nm's address of @name in @path (file-relative for our PIE and library). */
static guint64
nm_address (const char *path, const char *name, guint64 *size)
{
  return oracle_nm (path, name, size);
}

/* The address after the first call of <@callee> inside @caller (objdump). */
static guint64
return_address (const char *path, const char *caller, const char *callee)
{
  const char      *argv[] = { "objdump", "-d", "--no-show-raw-insn", path, NULL };
  g_autofree char *out = run (argv);
  g_auto (GStrv) lines = g_strsplit (out, "\n", -1);
  g_autofree char *in_caller = g_strdup_printf ("<%s>:", caller);
  g_autofree char *call = g_strdup_printf ("<%s>", callee);
  gboolean         inside = FALSE;

  for (guint i = 0; lines[i] != NULL; i++)
    {
      if (strstr (lines[i], ">:") != NULL)
        inside = strstr (lines[i], in_caller) != NULL;
      else if (inside && strstr (lines[i], "call") != NULL && strstr (lines[i], call) != NULL && lines[i + 1] != NULL)
        return g_ascii_strtoull (lines[i + 1], NULL, 16);
    }
  g_error ("no call of %s in %s", callee, caller);
  return 0;
}

static void
fixture_init (Fixture *fx)
{
  g_autoptr (GError) error = NULL;
  const char      *dir = g_getenv ("INLINE_WORKLOAD_DIR");
  g_autofree char *lib = NULL;
  g_autofree char *report = NULL;
  g_autofree char *a2l_out = NULL;
  g_auto (GStrv) lines = NULL;
  g_autoptr (GString) input = g_string_new (NULL);
  const char *statics[] = { "grouped_crc_step", "grouped_match_len", "grouped_range_encode" };
  const char *markers[] = { "mix-a", "mix-b", "mix-c", "mix-call", "outer-call" };
  guint64     outer, outer_size, base_prog, base_lib;

  g_assert_nonnull (dir);
  fx->workload = g_build_filename (dir, "inline-workload", NULL);
  lib = g_build_filename (dir, "libgrouped.so", NULL);
  fx->dir = g_dir_make_tmp ("test-callgraph-frames-XXXXXX", &error);
  g_assert_no_error (error);
  fx->lib_copy = g_build_filename (fx->dir, "libgrouped.so", NULL);
  {
    const char *strip[] = { "objcopy", "--strip-all", lib, fx->lib_copy, NULL };
    g_free (run (strip));
  }
  for (guint i = 0; i < G_N_ELEMENTS (markers); i++)
    fx->lines[i] = marker_line (markers[i]);
  fx->middle_call = marker_line ("middle-call");

  /* A real run: where the binary and the library were mapped. */
  {
    const char *argv[] = { fx->workload, "--report", NULL };
    report = run (argv);
  }
  fx->maps = g_array_new (FALSE, FALSE, sizeof (Map));
  lines = g_strsplit (report, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      unsigned long long start, end, offset;
      char               perms[8] = "";
      int                path_at = -1;
      Map                m;

      if (!g_str_has_prefix (lines[i], "map ") ||
          sscanf (lines[i] + 4, "%llx-%llx %7s %llx %*s %*s %n", &start, &end, perms, &offset, &path_at) < 4 ||
          path_at < 0 || lines[i][4 + path_at] != '/')
        continue;
      m = (Map){ start, end, offset, perms[2] == 'x', g_strdup (lines[i] + 4 + path_at) };
      g_array_append_val (fx->maps, m);
    }
  base_prog = map_of (fx, "/inline-workload")->start;
  base_lib = map_of (fx, "/libgrouped.so")->start;

  outer = nm_address (fx->workload, "inline_outer", &outer_size);
  fx->outer_ret = base_prog + return_address (fx->workload, "inline_middle", "inline_outer");
  fx->middle_ret = base_prog + return_address (fx->workload, "main", "inline_middle");
  for (guint i = 0; i < G_N_ELEMENTS (statics); i++)
    {
      fx->grouped_offset[i] = nm_address (lib, statics[i], &fx->grouped_size[i]);
      fx->grouped[i] = base_lib + fx->grouped_offset[i];
    }

  /* addr2line: an address of inline_outer inside inline_mix at each line. */
  for (guint64 a = outer; a < outer + outer_size; a++)
    g_string_append_printf (input, "%#" G_GINT64_MODIFIER "x\n", a);
  {
    g_autofree char *in_path = g_build_filename (fx->dir, "addrs", NULL);
    g_autofree char *argv_s = NULL;
    g_file_set_contents (in_path, input->str, -1, &error);
    g_assert_no_error (error);
    argv_s = g_strdup_printf ("addr2line -f -i -a -e '%s' < '%s'", fx->workload, in_path);
    {
      const char *argv[] = { "sh", "-c", argv_s, NULL };
      a2l_out = run (argv);
    }
    g_unlink (in_path);
  }
  {
    g_auto (GStrv) out = g_strsplit (a2l_out, "\n", -1);
    guint64 current = 0;

    for (guint i = 0; out[i] != NULL; i++)
      {
        if (g_str_has_prefix (out[i], "0x"))
          {
            current = g_ascii_strtoull (out[i], NULL, 16);
            /* The innermost frame comes right after the address. */
            if (out[i + 1] != NULL && g_str_equal (out[i + 1], "inline_mix") && out[i + 2] != NULL)
              for (guint m = 0; m < 3; m++)
                {
                  g_autofree char *suffix = g_strdup_printf (":%u", fx->lines[m]);
                  if (fx->mix[m] == 0 && (g_str_has_suffix (out[i + 2], suffix)))
                    fx->mix[m] = base_prog + current;
                }
          }
      }
  }
  for (guint m = 0; m < 3; m++)
    if (fx->mix[m] == 0)
      g_test_message ("no address of line %u", fx->lines[m]);
  g_assert_true (fx->mix[0] || fx->mix[1] || fx->mix[2]);
}

static void
fixture_clear (Fixture *fx)
{
  for (guint i = 0; i < fx->maps->len; i++)
    g_free (g_array_index (fx->maps, Map, i).path);
  g_array_unref (fx->maps);
  g_unlink (fx->lib_copy);
  g_rmdir (fx->dir);
  g_free (fx->lib_copy);
  g_free (fx->workload);
  g_free (fx->dir);
}

static guint64
any_mix (Fixture *fx)
{
  for (guint m = 0; m < 3; m++)
    if (fx->mix[m] != 0)
      return fx->mix[m];
  return 0;
}

/* A capture of one process of the workload: its maps (the library's
 * pointing at the stripped copy) and @stacks, each ended by 0. */
static char *
write_capture (Fixture *fx, const guint64 *stacks, guint n)
{
  g_autoptr (GError) error = NULL;
  char                 *path = NULL;
  int                   fd = g_file_open_tmp ("test-callgraph-frames-XXXXXX.syscap", &path, &error);
  SysprofCaptureWriter *writer;
  gint64                t = SYSPROF_CAPTURE_CURRENT_TIME;
  guint                 start = 0;

  g_assert_no_error (error);
  writer = sysprof_capture_writer_new_from_fd (fd, 0);
  g_assert_true (sysprof_capture_writer_add_process (writer, t, 0, PID, "inline-workload"));
  for (guint i = 0; i < fx->maps->len; i++)
    {
      const Map  *m = &g_array_index (fx->maps, Map, i);
      const char *file = g_str_has_suffix (m->path, "/libgrouped.so") ? fx->lib_copy : m->path;

      g_assert_true (sysprof_capture_writer_add_map (writer, t, 0, PID, m->start, m->end, m->offset, 0, file));
    }
  for (guint i = 0; i < n; i++)
    if (stacks[i] == 0)
      {
        g_assert_true (
            sysprof_capture_writer_add_sample (writer, t + 1000 + i, 0, PID, PID, &stacks[start], i - start));
        start = i + 1;
      }
  g_assert_true (sysprof_capture_writer_flush (writer));
  sysprof_capture_writer_unref (writer);
  return path;
}

static SysprofCallgraph *
build (const char *path, gboolean local, gboolean lines)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (SysprofSymbolizer) symbolizer = sysprof_symbolizer_new ();
  SysprofCaptureReader  *reader = sysprof_capture_reader_new (path);
  SysprofCallgraphFilter filter = SYSPROF_CALLGRAPH_FILTER_INIT;
  SysprofCallgraph      *callgraph;

  g_assert_nonnull (reader);
  filter.lines = lines;
  filter.keep_samples = TRUE;
  sysprof_symbolizer_set_use_local_files (symbolizer, local);
  g_assert_true (sysprof_symbolizer_load (symbolizer, reader, &error));
  g_assert_no_error (error);
  callgraph = sysprof_callgraph_new (reader, symbolizer, &filter, NULL, NULL, &error);
  g_assert_no_error (error);
  sysprof_capture_reader_unref (reader);
  return callgraph;
}

static gboolean
collect (const SysprofCallgraphFunction *const *frames, guint n, guint64 n_samples, gpointer user_data)
{
  GHashTable *stacks = user_data;
  GString    *key = g_string_new (NULL);

  for (guint i = 0; i < n; i++)
    {
      g_string_append_printf (key, "%s%s", i ? ";" : "", frames[i]->symbol->name);
      if (frames[i]->file != NULL)
        {
          g_autofree char *base = g_path_get_basename (frames[i]->file);
          g_string_append_printf (key, "@%s:%u", base, frames[i]->line);
        }
    }
  g_hash_table_insert (stacks, g_string_free (key, FALSE),
                       GSIZE_TO_POINTER (GPOINTER_TO_SIZE (g_hash_table_lookup (stacks, key)) + n_samples));
  return TRUE;
}

static GHashTable *
stacks_of (SysprofCallgraph *callgraph)
{
  GHashTable *stacks = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);

  sysprof_callgraph_foreach_stack (callgraph, collect, stacks);
  return stacks;
}

static void
assert_stack (GHashTable *stacks, const char *stack, guint64 count)
{
  guint64 got = GPOINTER_TO_SIZE (g_hash_table_lookup (stacks, stack));

  if (got != count)
    {
      GHashTableIter iter;
      gpointer       key, value;

      g_hash_table_iter_init (&iter, stacks);
      while (g_hash_table_iter_next (&iter, &key, &value))
        g_printerr ("  have %s = %" G_GSIZE_FORMAT "\n", (const char *) key, GPOINTER_TO_SIZE (value));
      g_error ("stack %s: %" G_GUINT64_FORMAT " samples, expected %" G_GUINT64_FORMAT, stack, got, count);
    }
}

typedef struct
{
  Fixture *fx;
  guint    n_chains;  /* samples main → inline_middle → inline_outer → inline_mix */
  guint    n_garbage; /* samples cut after inline_outer */
} SampleCheck;

/* Each sample as the callgraph counted it: the inlined function a frame of
 * its own at the address of the function it was inlined into, every frame
 * at its address and line (the callers' at their calls), whether or not the
 * functions are lines. */
static gboolean
check_sample (const SysprofCallgraphSample *sample, gpointer user_data)
{
  SampleCheck                       *check = user_data;
  Fixture                           *fx = check->fx;
  const SysprofCallgraphSampleFrame *f = sample->frames;
  const SysprofCallgraphSampleFrame *last = &f[sample->n_frames - 1];
  g_autofree char                   *base = NULL;

  g_assert_cmpint (sample->pid, ==, PID);
  g_assert_cmpint (sample->tid, ==, PID);
  g_assert_cmpint (sample->cpu, ==, 0);
  g_assert_cmpuint (sample->weight, ==, 1);
  g_assert_cmpuint (sample->bytes, ==, 0);
  g_assert_cmpint (last->function->kind, ==, SYSPROF_CALLGRAPH_FUNCTION_PROCESS);
  g_assert_cmpuint (last->address, ==, 0);
  g_assert_false (last->inlined);
  if (!g_str_equal (f[0].function->symbol->name, "inline_mix"))
    return TRUE;

  g_assert_cmpuint (sample->n_frames, >=, 3);
  g_assert_cmpstr (f[1].function->symbol->name, ==, "inline_outer");
  g_assert_true (f[0].inlined);
  g_assert_false (f[1].inlined);
  g_assert_cmpuint (f[0].address, ==, f[1].address);
  g_assert_true (f[0].address == fx->mix[0] || f[0].address == fx->mix[1] || f[0].address == fx->mix[2]);
  g_assert_nonnull (f[0].file);
  base = g_path_get_basename (f[0].file);
  g_assert_cmpstr (base, ==, "inline-workload.c");
  for (guint m = 0; m < 3; m++)
    if (f[0].address == fx->mix[m])
      g_assert_cmpuint (f[0].line, ==, fx->lines[m]);
  g_assert_cmpuint (f[1].line, ==, fx->lines[3]);
  if (sample->n_frames == 3)
    {
      check->n_garbage++;
      return TRUE;
    }
  g_assert_cmpuint (sample->n_frames, ==, 5);
  g_assert_cmpstr (f[2].function->symbol->name, ==, "inline_middle");
  g_assert_cmpuint (f[2].address, ==, fx->outer_ret);
  g_assert_cmpuint (f[2].line, ==, fx->lines[4]);
  g_assert_false (f[2].inlined);
  g_assert_cmpstr (f[3].function->symbol->name, ==, "main");
  g_assert_cmpuint (f[3].address, ==, fx->middle_ret);
  g_assert_cmpuint (f[3].line, ==, fx->middle_call);
  check->n_chains++;
  return TRUE;
}

static void
check (Fixture *fx, const char *path, gboolean local)
{
  g_autoptr (SysprofCallgraph) cg = build (path, local, FALSE);
  g_autoptr (SysprofCallgraph) by_line = build (path, local, TRUE);
  g_autoptr (GHashTable) stacks = stacks_of (cg);
  g_autoptr (GHashTable) line_stacks = stacks_of (by_line);
  guint mix_samples = 0;

  for (guint m = 0; m < 3; m++)
    mix_samples += fx->mix[m] != 0 ? 2 : 0;

  /* Every sample counts, garbage or not. */
  g_assert_cmpuint (sysprof_callgraph_get_n_samples (cg), ==, mix_samples + 2 + 1 + 6);

  /* The samples one by one, with functions and with lines. */
  for (guint pass = 0; pass < 2; pass++)
    {
      SampleCheck sample_check = { fx, 0, 0 };

      sysprof_callgraph_foreach_sample (pass == 0 ? cg : by_line, check_sample, &sample_check);
      g_assert_cmpuint (sample_check.n_chains, ==, mix_samples);
      g_assert_cmpuint (sample_check.n_garbage, ==, 2 + 1);
    }

  /* The inlined function is a frame of its own, under its caller. */
  assert_stack (stacks, "[inline-workload];main;inline_middle;inline_outer;inline_mix", mix_samples);
  /* The data a frame-pointer walk read ends the stack: main and
   * inline_middle, beyond it, are gone. */
  assert_stack (stacks, "[inline-workload];inline_outer;inline_mix", 2 + 1);

  /* By line: each sample at the line it was at, the callers at the lines of
   * their calls. */
  for (guint m = 0; m < 3; m++)
    if (fx->mix[m] != 0)
      {
        g_autofree char *stack =
            g_strdup_printf ("[inline-workload];main@inline-workload.c:%u;inline_middle@inline-workload.c:%u;"
                             "inline_outer@inline-workload.c:%u;inline_mix@inline-workload.c:%u",
                             fx->middle_call, fx->lines[4], fx->lines[3], fx->lines[m]);
        assert_stack (line_stacks, stack, 2);
      }
  {
    const SysprofCallgraphFunction *f = sysprof_callgraph_find_function (by_line, "inline_mix", NULL);
    g_assert_nonnull (f);
    g_assert_nonnull (f->file);
    g_assert_true (f->line == fx->lines[0] || f->line == fx->lines[1] || f->line == fx->lines[2]);
    g_assert_null (sysprof_callgraph_find_function (cg, "inline_mix", NULL)->file);
  }

  /* The stripped library: one function per static function, named after
   * its start, whichever of its addresses were sampled. */
  for (guint i = 0; i < 3; i++)
    {
      g_autofree char *name = g_strdup_printf ("libgrouped.so+0x%" G_GINT64_MODIFIER "x", fx->grouped_offset[i]);
      const SysprofCallgraphFunction *f = sysprof_callgraph_find_function (cg, name, "libgrouped.so");

      if (f == NULL)
        g_error ("no function %s", name);
      g_assert_cmpuint (f->self, ==, 2);
      g_assert_cmpint (f->symbol->kind, ==, SYSPROF_SYMBOL_UNRESOLVED);
    }
}

static void
test_frames (void)
{
  Fixture          fx = { 0 };
  g_autofree char *path = NULL;
  g_autoptr (GArray) stacks = g_array_new (FALSE, FALSE, sizeof (guint64));
  int fd;

  fixture_init (&fx);
#define PUSH(...)                                        \
  G_STMT_START                                           \
  {                                                      \
    const guint64 s_[] = { __VA_ARGS__, 0 };             \
    g_array_append_vals (stacks, s_, G_N_ELEMENTS (s_)); \
  }                                                      \
  G_STMT_END
  for (guint m = 0; m < 3; m++)
    if (fx.mix[m] != 0)
      {
        PUSH (fx.mix[m], fx.outer_ret, fx.middle_ret);
        PUSH (fx.mix[m], fx.outer_ret, fx.middle_ret);
      }
  /* Frame-pointer garbage: data, then what lies beyond it. */
  PUSH (any_mix (&fx), GARBAGE, fx.middle_ret);
  PUSH (any_mix (&fx), G_GUINT64_CONSTANT (0x10), fx.outer_ret, fx.middle_ret);
  /* An address of the binary's data: mapped, but in no segment it
   * executes. */
  PUSH (any_mix (&fx), data_map_of (&fx, "/inline-workload")->start + 8, fx.middle_ret);
  for (guint i = 0; i < 3; i++)
    {
      PUSH (fx.grouped[i]);
      PUSH (fx.grouped[i] + fx.grouped_size[i] - 1);
    }
#undef PUSH
  path = write_capture (&fx, (const guint64 *) (gpointer) stacks->data, stacks->len);
  check (&fx, path, TRUE);

  /* Embedded: the same without the files (the stripped copy deleted). */
  {
    g_autoptr (GError) error = NULL;

    fd = open (path, O_RDWR | O_CLOEXEC);
    g_assert_cmpint (fd, >=, 0);
    g_assert_true (sysprof_symbol_map_append_to_fd (fd, NULL, NULL, NULL, NULL, &error));
    g_assert_no_error (error);
    close (fd);
  }
  {
    SysprofCaptureReader *reader = sysprof_capture_reader_new (path);
    const char          **files = sysprof_capture_reader_list_files (reader);
    gboolean              found = FALSE;

    for (guint i = 0; files[i] != NULL; i++)
      found |= g_str_equal (files[i], "__symbol_frames__");
    g_assert_true (found);
    free (files);
    sysprof_capture_reader_unref (reader);
  }
  g_unlink (fx.lib_copy);
  check (&fx, path, FALSE);

  g_unlink (path);
  fixture_clear (&fx);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/Libsysprof/Callgraph/frames", test_frames);
  return g_test_run ();
}
