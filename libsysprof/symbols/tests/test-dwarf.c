// SPDX-License-Identifier: GPL-3.0-or-later
/* Inline frames, source lines and the functions of stripped code, on the
 * inline workload of elf/ (built -O2 -g without frame pointers) and its
 * library of static functions.  The oracle is binutils, an implementation
 * of its own: nm for where functions are, addr2line -i for the inline chain
 * and the lines of every address of the workload's functions.  Stripped
 * copies and debug files are made with objcopy in a temporary directory. */

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gio/gio.h>
#include <glib/gstdio.h>

#include "sysprof-symbols.h"

#include "sysprof-dwarf-private.h"
#include "sysprof-elf-loader-private.h"
#include "sysprof-elf-private.h"
#include "sysprof-frame-table-private.h"

#include "elf/inline-oracle.h"

typedef struct
{
  char   *name;
  guint64 begin;
  guint64 end;
} Func;

static char *
fixture_path (const char *name)
{
  return oracle_fixture_path (name);
}

/* The functions of @path named @name (nm: address and size). */
static Func
nm_function (const char *path, const char *name)
{
  guint64 size = 0;
  Func    func = { g_strdup (name), oracle_nm (path, name, &size), 0 };

  func.end = func.begin + size;
  g_assert_cmpuint (func.end, >, func.begin);
  return func;
}

static guint
marker_line (const char *marker)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "elf", "inline-workload.c", NULL);

  return oracle_marker_line (path, marker);
}

/* "name file:line" per frame, innermost first, joined by " | ", from our
 * lookup; the outermost function's name as the debug info gives it. */
static char *
our_chain (SysprofDwarf *dwarf, guint64 vaddr)
{
  g_autoptr (GArray) frames = g_array_new (FALSE, FALSE, sizeof (SysprofDwarfFrame));
  g_autoptr (GString) out = g_string_new (NULL);
  guint n = sysprof_dwarf_lookup (dwarf, vaddr, frames, NULL, NULL);

  for (guint i = 0; i < n; i++)
    {
      const SysprofDwarfFrame *f = &g_array_index (frames, SysprofDwarfFrame, i);
      g_autofree char         *base = f->file ? g_path_get_basename (f->file) : g_strdup ("??");

      g_string_append_printf (out, "%s%s %s:%u", i ? " | " : "", f->name ? f->name : "??", base, f->line);
    }
  return g_string_free (g_steal_pointer (&out), FALSE);
}

/* The same from addr2line -f -i, for each address of @addrs. */
static GPtrArray *
addr2line_chains (const char *path, GArray *addrs)
{
  const char *argv[] = { "addr2line", "-f", "-i", "-a", "-e", path, NULL };
  g_autoptr (GString) input = g_string_new (NULL);
  g_autofree char *out = NULL;
  g_auto (GStrv) lines = NULL;
  GPtrArray *chains = g_ptr_array_new_with_free_func (g_free);
  GString   *current = NULL;

  for (guint i = 0; i < addrs->len; i++)
    g_string_append_printf (input, "%#" G_GINT64_MODIFIER "x\n", g_array_index (addrs, guint64, i));
  out = oracle_run (argv, input->str);
  lines = g_strsplit (out, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      if (g_str_has_prefix (lines[i], "0x"))
        {
          if (current != NULL)
            g_ptr_array_add (chains, g_string_free (current, FALSE));
          current = g_string_new (NULL);
        }
      else if (current != NULL && lines[i][0] != '\0' && lines[i + 1] != NULL)
        {
          g_autofree char *loc = g_strdup (lines[i + 1]);
          g_autofree char *base = NULL;
          char            *disc = strstr (loc, " (discriminator");
          char            *colon;

          if (disc != NULL)
            *disc = '\0';
          colon = strrchr (loc, ':');
          g_assert_nonnull (colon);
          *colon = '\0';
          base = g_path_get_basename (loc);
          g_string_append_printf (current, "%s%s %s:%s", current->len ? " | " : "", lines[i], base,
                                  g_str_equal (colon + 1, "?") ? "0" : colon + 1);
          i++;
        }
    }
  if (current != NULL)
    g_ptr_array_add (chains, g_string_free (current, FALSE));
  g_assert_cmpuint (chains->len, ==, addrs->len);
  return chains;
}

/* Every address of the workload's functions: our frames are addr2line's. */
static void
assert_like_addr2line (SysprofElf *elf, const char *oracle_path, const char *unstripped)
{
  const char   *names[] = { "inline_outer", "inline_middle", "main" };
  SysprofDwarf *dwarf = sysprof_elf_get_dwarf (elf);
  g_autoptr (GArray) addrs = g_array_new (FALSE, FALSE, sizeof (guint64));
  g_autoptr (GPtrArray) expected = NULL;
  g_autoptr (GHashTable) seen_lines = g_hash_table_new (NULL, NULL);
  guint mix_frames = 0;

  g_assert_nonnull (dwarf);
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      Func func = nm_function (unstripped, names[i]);

      for (guint64 a = func.begin; a < func.end; a++)
        g_array_append_val (addrs, a);
      g_free (func.name);
    }
  expected = addr2line_chains (oracle_path, addrs);
  /* Backwards: the first lookup of a function is then in its middle (in an
   * inline, where dwarf_getscopes would not find the function). */
  for (guint i = addrs->len; i-- > 0;)
    {
      guint64          vaddr = g_array_index (addrs, guint64, i);
      g_autofree char *ours = our_chain (dwarf, vaddr);

      if (g_strcmp0 (ours, g_ptr_array_index (expected, i)) != 0)
        g_error ("at %#" G_GINT64_MODIFIER "x: ours “%s”, addr2line “%s”", vaddr, ours,
                 (const char *) g_ptr_array_index (expected, i));
      if (g_str_has_prefix (ours, "inline_mix "))
        {
          g_autofree char *call = g_strdup_printf ("| inline_outer inline-workload.c:%u", marker_line ("mix-call"));
          g_autofree char *first = g_strndup (ours, strcspn (ours, "|"));

          mix_frames++;
          g_assert_nonnull (strstr (ours, call));
          g_hash_table_add (seen_lines, GUINT_TO_POINTER (atoi (strrchr (first, ':') + 1)));
        }
    }
  /* The inlined function's own lines are among the answers. */
  g_assert_cmpuint (mix_frames, >, 0);
  g_assert_true (g_hash_table_contains (seen_lines, GUINT_TO_POINTER (marker_line ("mix-a"))) ||
                 g_hash_table_contains (seen_lines, GUINT_TO_POINTER (marker_line ("mix-b"))) ||
                 g_hash_table_contains (seen_lines, GUINT_TO_POINTER (marker_line ("mix-c"))));
}

static void
test_inline_frames (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *prog = fixture_path ("inline-workload");
  g_autoptr (SysprofElf) elf = sysprof_elf_new (prog, &error);

  g_assert_no_error (error);
  assert_like_addr2line (elf, prog, prog);
}

static void
spawn_ok (const char *const *argv)
{
  /* oracle_run() fails the test when the command fails; its output is not
   * needed here. */
  g_free (oracle_run (argv, NULL));
}

/* A stripped copy whose debug file is only in <dir>/.build-id/: the frames
 * and lines come from there, and are the same. */
static void
test_split_debug (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *prog = fixture_path ("inline-workload");
  g_autofree char *dir = g_dir_make_tmp ("test-dwarf-XXXXXX", &error);
  g_autofree char *copy = g_build_filename (dir, "inline-workload", NULL);
  g_autofree char *debug = g_build_filename (dir, "inline-workload.debug", NULL);
  g_autofree char *debug_dir = g_build_filename (dir, "debug", NULL);
  g_autofree char *id_path = NULL;
  g_autoptr (SysprofElf) plain = NULL;
  g_autoptr (SysprofElf) elf = NULL;
  g_autoptr (SysprofElfLoader) loader = sysprof_elf_loader_new ();
  const char *dirs[] = { debug_dir, NULL };
  const char *build_id;

  g_assert_no_error (error);
  {
    const char *keep[] = { "objcopy", "--only-keep-debug", prog, debug, NULL };
    const char *strip[] = { "objcopy", "--strip-all", prog, copy, NULL };
    spawn_ok (keep);
    spawn_ok (strip);
  }
  plain = sysprof_elf_new (copy, &error);
  g_assert_no_error (error);
  g_assert_null (sysprof_elf_get_dwarf (plain));
  build_id = sysprof_elf_get_build_id (plain);
  g_assert_nonnull (build_id);
  id_path = g_strdup_printf ("%s/.build-id/%.2s/%s.debug", debug_dir, build_id, build_id + 2);
  {
    g_autofree char *id_dir = g_path_get_dirname (id_path);
    g_assert_cmpint (g_mkdir_with_parents (id_dir, 0755), ==, 0);
  }
  g_assert_cmpint (g_rename (debug, id_path), ==, 0);

  sysprof_elf_loader_set_debug_dirs (loader, dirs);
  elf = sysprof_elf_loader_load (loader, copy, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (sysprof_elf_get_debug_path (elf), ==, id_path);
  assert_like_addr2line (elf, prog, prog);

  g_unlink (id_path);
  g_unlink (copy);
}

/* Stripped to .dynsym: the static functions have no name, and every
 * address of one falls in the one range of its FDE, from its first byte. */
static void
test_stripped_grouped (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *lib = fixture_path ("libgrouped.so");
  g_autofree char *dir = g_dir_make_tmp ("test-dwarf-XXXXXX", &error);
  g_autofree char *copy = g_build_filename (dir, "libgrouped.so", NULL);
  const char      *statics[] = { "grouped_crc_step", "grouped_match_len", "grouped_range_encode" };
  g_autoptr (SysprofElf) elf = NULL;
  g_autoptr (GHashTable) starts = g_hash_table_new (NULL, NULL);
  Func exported;

  g_assert_no_error (error);
  {
    const char *strip[] = { "objcopy", "--strip-all", lib, copy, NULL };
    spawn_ok (strip);
  }
  elf = sysprof_elf_new (copy, &error);
  g_assert_no_error (error);
  g_assert_true (sysprof_elf_has_symbols (elf)); /* .dynsym */
  g_assert_null (sysprof_elf_get_dwarf (elf));

  for (guint i = 0; i < G_N_ELEMENTS (statics); i++)
    {
      Func func = nm_function (lib, statics[i]);

      for (guint64 a = func.begin; a < func.end; a++)
        {
          guint64 begin = 0, end = 0;

          g_assert_null (sysprof_elf_lookup (elf, a, NULL, NULL));
          g_assert_true (sysprof_elf_lookup_unnamed (elf, a, &begin, &end));
          g_assert_cmpuint (begin, ==, func.begin);
          g_assert_cmpuint (end, ==, func.end);
        }
      g_hash_table_add (starts, GSIZE_TO_POINTER ((gsize) func.begin));
      g_free (func.name);
    }
  g_assert_cmpuint (g_hash_table_size (starts), ==, G_N_ELEMENTS (statics));

  /* The exported function keeps its name, and is not "unnamed". */
  exported = nm_function (lib, "grouped_lib_run");
  g_assert_cmpstr (sysprof_elf_lookup (elf, exported.begin + 1, NULL, NULL), ==, "grouped_lib_run");
  g_assert_false (sysprof_elf_lookup_unnamed (elf, exported.begin + 1, NULL, NULL));
  g_free (exported.name);
  g_unlink (copy);
  g_rmdir (dir);
}

/* The `__symbol_frames__` table: what the builder writes reads back, in
 * either byte order, and every kind of damage is refused with a reason. */
static void
test_frame_table (void)
{
  g_autoptr (SysprofFrameTableBuilder) builder = _sysprof_frame_table_builder_new ();
  SysprofSymbol             outer = { "outer", "libx.so", SYSPROF_SYMBOL_USER };
  SysprofSymbol             inner = { "inner", "libx.so", SYSPROF_SYMBOL_USER };
  SysprofSymbolFrame        f_inner = { &inner, "/src/x.c", 12 };
  SysprofSymbolFrame        f_outer = { &outer, "/src/x.c", 40 };
  const SysprofSymbolFrame *chain[] = { &f_inner, &f_outer };
  g_autoptr (GBytes) bytes = NULL;
  g_autoptr (SysprofFrameTable) table = NULL;
  g_autoptr (GError) error = NULL;
  guint64           begin, end;
  guint             record, n, line;
  const char       *name, *library, *file;
  SysprofSymbolKind kind;
  const guint8     *data;
  gsize             size;

  _sysprof_frame_table_builder_add (builder, 7, 0x1000, 0x1010, chain, 2);
  /* Continues the range with the same frames: one record. */
  _sysprof_frame_table_builder_add (builder, 7, 0x1010, 0x1020, chain, 2);
  _sysprof_frame_table_builder_add (builder, 7, 0x2000, 0x2001, NULL, 0);
  _sysprof_frame_table_builder_add (builder, 9, 0x1000, 0x1008, chain + 1, 1);
  g_assert_cmpuint (_sysprof_frame_table_builder_get_n_records (builder), ==, 3);
  bytes = _sysprof_frame_table_builder_finish (builder);

  table = _sysprof_frame_table_new (bytes, FALSE, &error);
  g_assert_no_error (error);
  g_assert_true (_sysprof_frame_table_lookup (table, 7, 0x101f, &record, &begin, &end, &n));
  g_assert_cmpuint (begin, ==, 0x1000);
  g_assert_cmpuint (end, ==, 0x1020);
  g_assert_cmpuint (n, ==, 2);
  _sysprof_frame_table_get_frame (table, record, 0, &name, &library, &file, &line, &kind);
  g_assert_cmpstr (name, ==, "inner");
  g_assert_cmpstr (library, ==, "libx.so");
  g_assert_cmpstr (file, ==, "/src/x.c");
  g_assert_cmpuint (line, ==, 12);
  _sysprof_frame_table_get_frame (table, record, 1, &name, &library, &file, &line, &kind);
  g_assert_cmpstr (name, ==, "outer");
  g_assert_cmpuint (line, ==, 40);
  g_assert_false (_sysprof_frame_table_lookup (table, 7, 0x1020, &record, &begin, &end, &n));
  g_assert_true (_sysprof_frame_table_lookup (table, 7, 0x2000, &record, &begin, &end, &n));
  g_assert_cmpuint (n, ==, 0);
  g_assert_false (_sysprof_frame_table_lookup (table, 8, 0x1000, &record, &begin, &end, &n));
  g_assert_true (_sysprof_frame_table_lookup (table, 9, 0x1000, &record, &begin, &end, &n));
  g_assert_cmpuint (n, ==, 1);
  g_clear_pointer (&table, _sysprof_frame_table_free);

  data = g_bytes_get_data (bytes, &size);
  /* Damage, each refused. */
  {
    struct
    {
      gsize   offset;
      guint32 value;
      gint    code;
    } cases[] = {
      { 8, 2, G_IO_ERROR_NOT_SUPPORTED },               /* version */
      { 12, 4, G_IO_ERROR_INVALID_DATA },               /* n_records: size mismatch */
      { 24, 0, G_IO_ERROR_INVALID_DATA },               /* strings_size */
      { 32 + 16, 99, G_IO_ERROR_INVALID_DATA },         /* record 0's pid: order */
      { 32 + 24, 1000, G_IO_ERROR_INVALID_DATA },       /* record 0's n: past the links */
      { 32 + 3 * 32, 0xffff, G_IO_ERROR_INVALID_DATA }, /* frame 0's name: past the strings */
      { 32 + 3 * 32 + 16, 9, G_IO_ERROR_INVALID_DATA }, /* frame 0's kind */
    };
    for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
      {
        g_autofree guint8 *copy = g_memdup2 (data, size);
        g_autoptr (GBytes) damaged = NULL;
        g_autoptr (GError) err = NULL;

        memcpy (copy + cases[i].offset, &cases[i].value, 4);
        damaged = g_bytes_new (copy, size);
        g_assert_null (_sysprof_frame_table_new (damaged, FALSE, &err));
        g_assert_error (err, G_IO_ERROR, cases[i].code);
      }
  }
  /* Truncated anywhere. */
  for (gsize len = 0; len < size; len += 7)
    {
      g_autoptr (GBytes) cut = g_bytes_new (data, len);
      g_autoptr (GError) err = NULL;

      g_assert_null (_sysprof_frame_table_new (cut, FALSE, &err));
      g_assert_nonnull (err);
    }
  /* In the other byte order, read as such. */
  {
    g_autofree guint8 *swapped = g_memdup2 (data, size);
    guint32            header[6];
    gsize              words_end;

    memcpy (header, data + 8, sizeof header);
    /* Header words, records (u64 u64 then 4 u32), frames and links (u32). */
    for (guint i = 0; i < 6; i++)
      {
        guint32 v = GUINT32_SWAP_LE_BE (header[i]);
        memcpy (swapped + 8 + 4 * i, &v, 4);
      }
    for (guint r = 0; r < header[1]; r++)
      {
        guint8 *rec = swapped + 32 + 32 * r;
        guint64 q;
        for (guint k = 0; k < 2; k++)
          {
            memcpy (&q, rec + 8 * k, 8);
            q = GUINT64_SWAP_LE_BE (q);
            memcpy (rec + 8 * k, &q, 8);
          }
        for (guint k = 0; k < 4; k++)
          {
            guint32 v;
            memcpy (&v, rec + 16 + 4 * k, 4);
            v = GUINT32_SWAP_LE_BE (v);
            memcpy (rec + 16 + 4 * k, &v, 4);
          }
      }
    words_end = 32 + 32 * header[1] + 24 * header[2] + 4 * header[3];
    for (gsize o = 32 + 32 * header[1]; o < words_end; o += 4)
      {
        guint32 v;
        memcpy (&v, swapped + o, 4);
        v = GUINT32_SWAP_LE_BE (v);
        memcpy (swapped + o, &v, 4);
      }
    {
      g_autoptr (GBytes) other = g_bytes_new (swapped, size);
      g_autoptr (GError) err = NULL;

      table = _sysprof_frame_table_new (other, TRUE, &err);
      g_assert_no_error (err);
      g_assert_true (_sysprof_frame_table_lookup (table, 7, 0x1005, &record, &begin, &end, &n));
      g_assert_cmpuint (n, ==, 2);
      _sysprof_frame_table_get_frame (table, record, 0, &name, &library, &file, &line, &kind);
      g_assert_cmpuint (line, ==, 12);
    }
  }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/Libsysprof/Dwarf/inline-frames", test_inline_frames);
  g_test_add_func ("/Libsysprof/Dwarf/split-debug-by-build-id", test_split_debug);
  g_test_add_func ("/Libsysprof/Dwarf/stripped-grouped", test_stripped_grouped);
  g_test_add_func ("/Libsysprof/Dwarf/frame-table", test_frame_table);
  return g_test_run ();
}
