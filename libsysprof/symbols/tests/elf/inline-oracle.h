// SPDX-License-Identifier: GPL-3.0-or-later
/* What the tests of the inline workload ask binutils and its source, shared
 * by libsysprof/symbols/tests/test-dwarf.c and
 * libsysprof/analysis/tests/test-callgraph-frames.c (header-only: tests of
 * two layers, no library of their own). */
#pragma once

#include <stdlib.h>
#include <string.h>

#include <gio/gio.h>

/* The real path of the fixture @name of elf/ (built), for a test of
 * libsysprof/symbols/tests. */
static inline char *
oracle_fixture_path (const char *name)
{
  g_autofree char *path = g_test_build_filename (G_TEST_BUILT, "elf", name, NULL);
  char            *real = realpath (path, NULL);

  g_assert_nonnull (real);
  return real;
}

/* The standard output of @argv fed @input (may be NULL); the test fails
 * unless it succeeds. */
static inline char *
oracle_run (const char *const *argv, const char *input)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GSubprocess) proc = g_subprocess_newv (
      argv, G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDIN_PIPE | G_SUBPROCESS_FLAGS_STDERR_SILENCE, &error);
  char *out = NULL;

  g_assert_no_error (error);
  g_subprocess_communicate_utf8 (proc, input, NULL, &out, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (g_subprocess_get_successful (proc));
  return out;
}

/* nm's address of the symbol @name of @path, and its size in @size
 * (optional). */
static inline guint64
oracle_nm (const char *path, const char *name, guint64 *size)
{
  const char      *argv[] = { "nm", "-S", "--defined-only", path, NULL };
  g_autofree char *out = oracle_run (argv, NULL);
  g_auto (GStrv) lines = g_strsplit (out, "\n", -1);

  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_auto (GStrv) f = g_strsplit (lines[i], " ", -1);

      if (g_strv_length (f) == 4 && g_str_equal (f[3], name))
        {
          if (size != NULL)
            *size = g_ascii_strtoull (f[1], NULL, 16);
          return g_ascii_strtoull (f[0], NULL, 16);
        }
    }
  g_error ("nm: no %s in %s", name, path);
  return 0;
}

/* The line of @source holding the marker comment "LINE:@marker". */
static inline guint
oracle_marker_line (const char *source, const char *marker)
{
  g_autofree char *text = NULL;
  g_autofree char *needle = g_strdup_printf ("LINE:%s ", marker);
  g_auto (GStrv) lines = NULL;

  g_assert_true (g_file_get_contents (source, &text, NULL, NULL));
  lines = g_strsplit (text, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    if (strstr (lines[i], needle) != NULL)
      return i + 1;
  g_error ("no marker %s in %s", marker, source);
  return 0;
}
