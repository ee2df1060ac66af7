// SPDX-License-Identifier: GPL-3.0-or-later
/* The ELF layer of the symbolizer, on real binaries: the fixtures of elf/
 * run and report where their functions are and their /proc/self/maps, so
 * each address goes through the same (map, file offset) → vaddr → symbol path
 * as a MAP frame.  Debug files are split off, stripped and linked with
 * objcopy in a temporary directory. */

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gio/gio.h>
#include <glib/gstdio.h>
#include <zlib.h>

#include "sysprof-demangle-private.h"
#include "sysprof-elf-loader-private.h"
#include "sysprof-elf-private.h"

typedef struct
{
  guint64 start;
  guint64 end;
  guint64 offset;
  char   *path;
} Map;

typedef struct
{
  GHashTable *funcs; /* name -> guint64 * (runtime address) */
  GArray     *maps;
} FixtureRun;

static void
map_clear (gpointer data)
{
  Map *map = data;
  g_free (map->path);
}

static void
fixture_run_free (FixtureRun *run)
{
  g_hash_table_unref (run->funcs);
  g_array_unref (run->maps);
  g_free (run);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (FixtureRun, fixture_run_free)

static char *
fixture_path (const char *name)
{
  g_autofree char *path = g_test_build_filename (G_TEST_BUILT, "elf", name, NULL);
  char            *real = realpath (path, NULL);

  g_assert_nonnull (real);
  return real;
}

/* Runs a fixture program and reads what it reports. */
static FixtureRun *
run_fixture (const char *program)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *out = NULL;
  g_auto (GStrv) lines = NULL;
  const char *argv[] = { program, NULL };
  FixtureRun *run = g_new0 (FixtureRun, 1);
  int         status = 0;

  g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL, &out, NULL, &status, &error);
  g_assert_no_error (error);
  g_spawn_check_wait_status (status, &error);
  g_assert_no_error (error);

  run->funcs = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  run->maps = g_array_new (FALSE, TRUE, sizeof (Map));
  g_array_set_clear_func (run->maps, map_clear);

  lines = g_strsplit (out, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      if (g_str_has_prefix (lines[i], "func "))
        {
          g_auto (GStrv) parts = g_strsplit (lines[i] + 5, " ", 2);
          guint64 *addr = g_new (guint64, 1);

          g_assert_cmpuint (g_strv_length (parts), ==, 2);
          *addr = g_ascii_strtoull (parts[1], NULL, 16);
          g_hash_table_insert (run->funcs, g_strdup (parts[0]), addr);
        }
      else if (g_str_has_prefix (lines[i], "map "))
        {
          /* start-end perms offset dev inode path (which may hold spaces) */
          unsigned long long start = 0;
          unsigned long long end = 0;
          unsigned long long offset = 0;
          Map                map = { 0 };
          int                path_at = -1;

          if (sscanf (lines[i] + 4, "%llx-%llx %*s %llx %*s %*s %n", &start, &end, &offset, &path_at) < 3 ||
              path_at < 0 || lines[i][4 + path_at] == '\0')
            continue;
          map.start = start;
          map.end = end;
          map.offset = offset;
          map.path = g_strdup (lines[i] + 4 + path_at);
          g_array_append_val (run->maps, map);
        }
    }

  return run;
}

static gboolean
run_has_func (FixtureRun *run, const char *func)
{
  return g_hash_table_contains (run->funcs, func);
}

static guint64
run_get_address (FixtureRun *run, const char *func)
{
  const guint64 *addr = g_hash_table_lookup (run->funcs, func);

  g_assert_nonnull (addr);
  return *addr;
}

/* The file offset of @func in @file, from the mapping holding its address. */
static guint64
run_get_file_offset (FixtureRun *run, const char *func, const char *file)
{
  guint64 addr = run_get_address (run, func);

  for (guint i = 0; i < run->maps->len; i++)
    {
      const Map *map = &g_array_index (run->maps, Map, i);

      if (map->start <= addr && addr < map->end && g_strcmp0 (map->path, file) == 0)
        return addr - map->start + map->offset;
    }

  g_error ("%s at %#" G_GINT64_MODIFIER "x is not in a mapping of %s", func, addr, file);
  return 0;
}

static guint64
get_vaddr (SysprofElf *elf, FixtureRun *run, const char *func, const char *file)
{
  guint64 vaddr = 0;

  g_assert_true (sysprof_elf_file_offset_to_vaddr (elf, run_get_file_offset (run, func, file), &vaddr));
  return vaddr;
}

/* Looks @func up through its map and checks what comes back. */
static void
assert_lookup (SysprofElf *elf, FixtureRun *run, const char *func, const char *file)
{
  guint64     vaddr = get_vaddr (elf, run, func, file);
  guint64     begin = 0;
  guint64     end = 0;
  const char *name;

  name = sysprof_elf_lookup (elf, vaddr, &begin, &end);
  g_assert_cmpstr (name, ==, func);
  g_assert_cmpuint (begin, ==, vaddr);
  g_assert_cmpuint (end, >, vaddr);
  g_assert_cmpstr (sysprof_elf_lookup (elf, vaddr + 1, NULL, NULL), ==, func);
  g_assert_cmpstr (sysprof_elf_lookup (elf, end - 1, NULL, NULL), ==, func);
  g_assert_cmpstr (sysprof_elf_lookup (elf, end, NULL, NULL), !=, func);
}

static void
assert_build_id_valid (SysprofElf *elf)
{
  const char *build_id = sysprof_elf_get_build_id (elf);

  g_assert_nonnull (build_id);
  g_assert_cmpuint (strlen (build_id), >=, 16);
  g_assert_cmpuint (strlen (build_id) % 2, ==, 0);
  for (const char *p = build_id; *p; p++)
    g_assert_true (g_ascii_isdigit (*p) || (*p >= 'a' && *p <= 'f'));
}

static void
test_pie (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *prog = fixture_path ("elf-testprog");
  g_autofree char *lib = fixture_path ("libelf-testlib.so");
  g_autofree char *demangled = NULL;
  g_autoptr (FixtureRun) run = run_fixture (prog);
  g_autoptr (SysprofElf) elf = sysprof_elf_new (prog, &error);
  g_autoptr (SysprofElf) lib_elf = NULL;
  struct stat st;
  guint64     vaddr;
  guint32     crc = 1;

  g_assert_no_error (error);
  g_assert_nonnull (elf);
  g_assert_cmpstr (sysprof_elf_get_path (elf), ==, prog);
  assert_build_id_valid (elf);
  g_assert_null (sysprof_elf_get_debuglink (elf, &crc));
  g_assert_true (sysprof_elf_has_symbols (elf));
  g_assert_cmpint (stat (prog, &st), ==, 0);
  g_assert_cmpuint (sysprof_elf_get_inode (elf), ==, st.st_ino);
  g_assert_true (sysprof_elf_is_same_file (elf, &st));
  g_assert_null (sysprof_elf_get_debug_file (elf));
  g_assert_null (sysprof_elf_get_debug_path (elf));

  assert_lookup (elf, run, "elf_testprog_static", prog);
  assert_lookup (elf, run, "elf_testprog_global", prog);
  assert_lookup (elf, run, "_ZN7sysprof4test7mangledEv", prog);
  demangled =
      sysprof_demangle (sysprof_elf_lookup (elf, get_vaddr (elf, run, "_ZN7sysprof4test7mangledEv", prog), NULL, NULL));
  g_assert_cmpstr (demangled, ==, "sysprof::test::mangled()");

  /* Outside every executable segment. */
  g_assert_false (sysprof_elf_file_offset_to_vaddr (elf, st.st_size + 4096, &vaddr));
  g_assert_false (sysprof_elf_file_offset_to_vaddr (elf, G_MAXUINT64, &vaddr));
  g_assert_null (sysprof_elf_lookup (elf, 0, NULL, NULL));
  g_assert_null (sysprof_elf_lookup (elf, G_MAXUINT64, NULL, NULL));

  if (run_has_func (run, "elf_testprog_nosize"))
    {
      guint64 nosize = get_vaddr (elf, run, "elf_testprog_nosize", prog);
      guint64 outer = get_vaddr (elf, run, "elf_testprog_outer", prog);
      guint64 inner = get_vaddr (elf, run, "elf_testprog_inner", prog);
      guint64 begin = 0;
      guint64 end = 0;

      /* Size 0: up to the next symbol. */
      g_assert_cmpuint (outer, ==, nosize + 3);
      g_assert_cmpstr (sysprof_elf_lookup (elf, nosize + 2, &begin, &end), ==, "elf_testprog_nosize");
      g_assert_cmpuint (begin, ==, nosize);
      g_assert_cmpuint (end, ==, outer);

      /* Nested: the inner symbol wins inside it, the outer one around it. */
      g_assert_cmpuint (inner, ==, outer + 2);
      g_assert_cmpstr (sysprof_elf_lookup (elf, outer + 1, &begin, &end), ==, "elf_testprog_outer");
      g_assert_cmpuint (begin, ==, outer);
      g_assert_cmpuint (end, ==, inner);
      g_assert_cmpstr (sysprof_elf_lookup (elf, inner + 2, &begin, &end), ==, "elf_testprog_inner");
      g_assert_cmpuint (begin, ==, inner);
      g_assert_cmpuint (end, ==, inner + 3);
      g_assert_cmpstr (sysprof_elf_lookup (elf, inner + 3, &begin, &end), ==, "elf_testprog_outer");
      g_assert_cmpuint (begin, ==, inner + 3);
      g_assert_cmpuint (end, ==, outer + 8);
    }

  lib_elf = sysprof_elf_new (lib, &error);
  g_assert_no_error (error);
  assert_build_id_valid (lib_elf);
  g_assert_cmpstr (sysprof_elf_get_build_id (lib_elf), !=, sysprof_elf_get_build_id (elf));
  assert_lookup (lib_elf, run, "elf_testlib_static", lib);
  assert_lookup (lib_elf, run, "elf_testlib_global", lib);
}

static void
test_non_pie (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *prog = fixture_path ("elf-testprog-nopie");
  g_autoptr (FixtureRun) run = run_fixture (prog);
  g_autoptr (SysprofElf) elf = sysprof_elf_new (prog, &error);

  g_assert_no_error (error);
  assert_lookup (elf, run, "elf_testprog_static", prog);
  assert_lookup (elf, run, "elf_testprog_global", prog);
  /* ET_EXEC runs at its link-time addresses. */
  g_assert_cmpuint (get_vaddr (elf, run, "elf_testprog_global", prog), ==,
                    run_get_address (run, "elf_testprog_global"));
}

static void
test_from_data (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *prog = fixture_path ("elf-testprog");
  g_autofree char *contents = NULL;
  g_autoptr (FixtureRun) run = run_fixture (prog);
  g_autoptr (SysprofElf) file_elf = sysprof_elf_new (prog, &error);
  g_autoptr (SysprofElf) elf = NULL;
  g_autoptr (GBytes) bytes = NULL;
  gsize len = 0;

  g_assert_no_error (error);
  g_file_get_contents (prog, &contents, &len, &error);
  g_assert_no_error (error);
  bytes = g_bytes_new (contents, len);

  elf = sysprof_elf_new_from_data (bytes, &error);
  g_assert_no_error (error);
  g_assert_null (sysprof_elf_get_path (elf));
  g_assert_cmpuint (sysprof_elf_get_inode (elf), ==, 0);
  g_assert_cmpstr (sysprof_elf_get_build_id (elf), ==, sysprof_elf_get_build_id (file_elf));
  assert_lookup (elf, run, "elf_testprog_static", prog);
  assert_lookup (elf, run, "elf_testprog_global", prog);
}

/* Helpers for the debug-file tests. */

static char *
find_objcopy (void)
{
  char *objcopy = g_find_program_in_path ("objcopy");

  if (objcopy == NULL)
    g_test_skip ("objcopy (binutils) is not installed");
  return objcopy;
}

static void
run_tool (const char *tool, const char *arg1, const char *arg2, const char *arg3)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *err = NULL;
  const char      *argv[] = { tool, arg1, arg2, arg3, NULL };
  int              status = 0;

  g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL, &err, &status, &error);
  g_assert_no_error (error);
  if (!g_spawn_check_wait_status (status, &error))
    g_error ("%s %s %s: %s: %s", tool, arg1, arg2, error->message, err);
}

static void
copy_file (const char *from, const char *to)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *contents = NULL;
  gsize            len = 0;

  g_file_get_contents (from, &contents, &len, &error);
  g_assert_no_error (error);
  g_file_set_contents (to, contents, len, &error);
  g_assert_no_error (error);
}

static void
move_file (const char *from, const char *to)
{
  g_autofree char *dir = g_path_get_dirname (to);

  g_assert_cmpint (g_mkdir_with_parents (dir, 0755), ==, 0);
  g_assert_cmpint (g_rename (from, to), ==, 0);
}

static void
rm_rf (const char *path)
{
  GDir       *dir;
  const char *name;

  if ((dir = g_dir_open (path, 0, NULL)) != NULL)
    {
      while ((name = g_dir_read_name (dir)) != NULL)
        {
          g_autofree char *child = g_build_filename (path, name, NULL);

          if (g_file_test (child, G_FILE_TEST_IS_DIR) && !g_file_test (child, G_FILE_TEST_IS_SYMLINK))
            rm_rf (child);
          else
            g_unlink (child);
        }
      g_dir_close (dir);
    }
  g_rmdir (path);
}

/* A scratch directory with bin/elf-testprog stripped of everything and
 * elf-testprog.debug, its debug file; optionally with a debuglink. */
typedef struct
{
  char *objcopy;
  char *tmp;
  char *bin_dir;
  char *binary;
  char *debug;
  char *debug_dir;
} Split;

static void
split_free (Split *split)
{
  if (split->tmp != NULL)
    rm_rf (split->tmp);
  g_free (split->objcopy);
  g_free (split->tmp);
  g_free (split->bin_dir);
  g_free (split->binary);
  g_free (split->debug);
  g_free (split->debug_dir);
  g_free (split);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Split, split_free)

static Split *
split_new (const char *source, gboolean add_debuglink)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (Split) split = g_new0 (Split, 1);
  g_autofree char *base = g_path_get_basename (source);
  g_autofree char *debug_name = g_strconcat (base, ".debug", NULL);
  g_autofree char *arg = NULL;

  if ((split->objcopy = find_objcopy ()) == NULL)
    return NULL;

  split->tmp = g_dir_make_tmp ("sysprof-test-elf-XXXXXX", &error);
  g_assert_no_error (error);
  split->bin_dir = g_build_filename (split->tmp, "bin", NULL);
  split->binary = g_build_filename (split->bin_dir, base, NULL);
  split->debug = g_build_filename (split->tmp, debug_name, NULL);
  split->debug_dir = g_build_filename (split->tmp, "debug", NULL);
  g_assert_cmpint (g_mkdir_with_parents (split->bin_dir, 0755), ==, 0);
  g_assert_cmpint (g_mkdir_with_parents (split->debug_dir, 0755), ==, 0);

  copy_file (source, split->binary);
  run_tool (split->objcopy, "--only-keep-debug", split->binary, split->debug);
  run_tool (split->objcopy, "--strip-all", split->binary, NULL);
  if (add_debuglink)
    {
      arg = g_strconcat ("--add-gnu-debuglink=", split->debug, NULL);
      run_tool (split->objcopy, arg, split->binary, NULL);
    }

  return g_steal_pointer (&split);
}

static SysprofElf *
load_with_debug_dir (const char *path, const char *debug_dir)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (SysprofElfLoader) loader = sysprof_elf_loader_new ();
  const char *dirs[] = { debug_dir, NULL };
  SysprofElf *elf;

  g_assert_cmpstr (sysprof_elf_loader_get_debug_dirs (loader)[0], ==, "/usr/lib/debug");
  sysprof_elf_loader_set_debug_dirs (loader, dirs);
  elf = sysprof_elf_loader_load (loader, path, &error);
  g_assert_no_error (error);
  g_assert_nonnull (elf);
  return elf;
}

static void
test_debug_by_build_id (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *prog = fixture_path ("elf-testprog");
  g_autofree char *lib = fixture_path ("libelf-testlib.so");
  g_autoptr (FixtureRun) run = run_fixture (prog);
  g_autoptr (SysprofElf) original = sysprof_elf_new (prog, &error);
  g_autoptr (Split) split = split_new (prog, FALSE);
  g_autoptr (Split) lib_split = NULL;
  g_autoptr (SysprofElf) stripped = NULL;
  g_autoptr (SysprofElf) debug = NULL;
  g_autoptr (SysprofElf) elf = NULL;
  g_autoptr (SysprofElf) wrong = NULL;
  g_autofree char *build_id_path = NULL;
  const char      *build_id;
  guint64          static_vaddr;

  if (split == NULL)
    return;
  g_assert_no_error (error);
  static_vaddr = get_vaddr (original, run, "elf_testprog_static", prog);

  /* Stripped, the binary knows nothing of its static function. */
  stripped = sysprof_elf_new (split->binary, &error);
  g_assert_no_error (error);
  build_id = sysprof_elf_get_build_id (stripped);
  g_assert_cmpstr (build_id, ==, sysprof_elf_get_build_id (original));
  g_assert_null (sysprof_elf_lookup (stripped, static_vaddr, NULL, NULL));
  g_assert_null (sysprof_elf_get_debuglink (stripped, NULL));
  /* Stripping keeps the segments where they were. */
  g_assert_cmpuint (get_vaddr (stripped, run, "elf_testprog_static", prog), ==, static_vaddr);

  /* Attached by hand. */
  debug = sysprof_elf_new (split->debug, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (sysprof_elf_get_build_id (debug), ==, build_id);
  sysprof_elf_set_debug_file (stripped, debug);
  g_assert_true (sysprof_elf_get_debug_file (stripped) == debug);
  g_assert_cmpstr (sysprof_elf_get_debug_path (stripped), ==, split->debug);
  g_assert_cmpstr (sysprof_elf_lookup (stripped, static_vaddr, NULL, NULL), ==, "elf_testprog_static");
  sysprof_elf_set_debug_file (stripped, NULL);
  g_assert_null (sysprof_elf_lookup (stripped, static_vaddr, NULL, NULL));

  /* Found by the loader in <dir>/.build-id/xx/rest.debug. */
  build_id_path = g_strdup_printf ("%s/.build-id/%.2s/%s.debug", split->debug_dir, build_id, build_id + 2);
  move_file (split->debug, build_id_path);
  elf = load_with_debug_dir (split->binary, split->debug_dir);
  g_assert_cmpstr (sysprof_elf_get_debug_path (elf), ==, build_id_path);
  g_assert_cmpstr (sysprof_elf_lookup (elf, static_vaddr, NULL, NULL), ==, "elf_testprog_static");
  g_assert_cmpstr (sysprof_elf_lookup (elf, get_vaddr (elf, run, "elf_testprog_global", prog), NULL, NULL), ==,
                   "elf_testprog_global");

  /* Another file's debug file at that path is refused. */
  lib_split = split_new (lib, FALSE);
  move_file (lib_split->debug, build_id_path);
  wrong = load_with_debug_dir (split->binary, split->debug_dir);
  g_assert_null (sysprof_elf_get_debug_path (wrong));
  g_assert_null (sysprof_elf_lookup (wrong, static_vaddr, NULL, NULL));
}

static void
test_debug_by_debuglink (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *prog = fixture_path ("elf-testprog");
  g_autoptr (FixtureRun) run = run_fixture (prog);
  g_autoptr (SysprofElf) original = sysprof_elf_new (prog, &error);
  g_autoptr (Split) split = split_new (prog, TRUE);
  g_autoptr (SysprofElf) stripped = NULL;
  g_autofree char *location0 = NULL;
  g_autofree char *location1 = NULL;
  g_autofree char *location2 = NULL;
  const char      *locations[3];
  const char      *current;
  guint64          static_vaddr;
  guint32          link_crc = 0;
  guint32          file_crc = 0;
  int              fd;

  if (split == NULL)
    return;
  g_assert_no_error (error);
  static_vaddr = get_vaddr (original, run, "elf_testprog_static", prog);

  stripped = sysprof_elf_new (split->binary, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (sysprof_elf_get_debuglink (stripped, &link_crc), ==, "elf-testprog.debug");
  g_assert_null (sysprof_elf_lookup (stripped, static_vaddr, NULL, NULL));

  /* Our CRC is objcopy's. */
  fd = open (split->debug, O_RDONLY | O_CLOEXEC);
  g_assert_cmpint (fd, >=, 0);
  g_assert_true (sysprof_elf_crc32_file (fd, &file_crc, &error));
  g_assert_no_error (error);
  g_assert_cmphex (file_crc, ==, link_crc);
  close (fd);

  /* No build-id tree in the debug dir: each debuglink location in turn. */
  locations[0] = location0 = g_build_filename (split->bin_dir, "elf-testprog.debug", NULL);
  locations[1] = location1 = g_build_filename (split->bin_dir, ".debug", "elf-testprog.debug", NULL);
  locations[2] = location2 = g_build_filename (split->debug_dir, split->bin_dir, "elf-testprog.debug", NULL);
  current = split->debug;
  for (guint i = 0; i < G_N_ELEMENTS (locations); i++)
    {
      g_autoptr (SysprofElf) elf = NULL;

      move_file (current, locations[i]);
      current = locations[i];
      elf = load_with_debug_dir (split->binary, split->debug_dir);
      g_assert_cmpstr (sysprof_elf_get_debug_path (elf), ==, locations[i]);
      g_assert_cmpstr (sysprof_elf_lookup (elf, static_vaddr, NULL, NULL), ==, "elf_testprog_static");
    }
}

static void
append_byte (const char *path)
{
  int fd = open (path, O_WRONLY | O_APPEND | O_CLOEXEC);

  g_assert_cmpint (fd, >=, 0);
  g_assert_cmpint (write (fd, "x", 1), ==, 1);
  close (fd);
}

static void
test_debuglink_wrong_crc (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *prog = fixture_path ("elf-testprog");
  g_autoptr (FixtureRun) run = run_fixture (prog);
  g_autoptr (SysprofElf) original = sysprof_elf_new (prog, &error);
  g_autoptr (Split) split = split_new (prog, TRUE);
  g_autoptr (SysprofElf) elf = NULL;
  g_autoptr (SysprofElf) fixed = NULL;
  g_autoptr (SysprofElf) debug = NULL;
  g_autofree char *good = NULL;
  g_autofree char *bad = NULL;
  guint64          static_vaddr;

  if (split == NULL)
    return;
  g_assert_no_error (error);
  static_vaddr = get_vaddr (original, run, "elf_testprog_static", prog);

  /* Changed after the debuglink recorded its CRC: still a fine ELF file
   * with the right build-id, but not the file the link names. */
  bad = g_build_filename (split->bin_dir, "elf-testprog.debug", NULL);
  good = g_build_filename (split->bin_dir, ".debug", "elf-testprog.debug", NULL);
  copy_file (split->debug, bad);
  append_byte (bad);
  debug = sysprof_elf_new (bad, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (sysprof_elf_get_build_id (debug), ==, sysprof_elf_get_build_id (original));

  elf = load_with_debug_dir (split->binary, split->debug_dir);
  g_assert_null (sysprof_elf_get_debug_path (elf));
  g_assert_null (sysprof_elf_get_debug_file (elf));
  g_assert_null (sysprof_elf_lookup (elf, static_vaddr, NULL, NULL));

  /* The next candidate is tried after a refused one. */
  move_file (split->debug, good);
  fixed = load_with_debug_dir (split->binary, split->debug_dir);
  g_assert_cmpstr (sysprof_elf_get_debug_path (fixed), ==, good);
  g_assert_cmpstr (sysprof_elf_lookup (fixed, static_vaddr, NULL, NULL), ==, "elf_testprog_static");
}

static void
test_loader_cache (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (SysprofElfLoader) loader = sysprof_elf_loader_new ();
  g_autofree char *prog = fixture_path ("elf-testprog");
  g_autofree char *tmp = g_dir_make_tmp ("sysprof-test-elf-XXXXXX", &error);
  g_autofree char *path = g_build_filename (tmp, "elf-testprog", NULL);
  g_autofree char *next = g_build_filename (tmp, "elf-testprog.new", NULL);
  g_autofree char *junk = g_build_filename (tmp, "junk", NULL);
  g_autoptr (SysprofElf) first = NULL;
  g_autoptr (SysprofElf) again = NULL;
  g_autoptr (SysprofElf) replaced = NULL;
  g_autoptr (SysprofElf) nothing = NULL;
  struct stat st;

  g_assert_no_error (error);
  sysprof_elf_loader_set_debug_dirs (loader, NULL);
  g_assert_null (sysprof_elf_loader_get_debug_dirs (loader)[0]);

  copy_file (prog, path);
  first = sysprof_elf_loader_load (loader, path, &error);
  g_assert_no_error (error);
  again = sysprof_elf_loader_load (loader, path, &error);
  g_assert_no_error (error);
  g_assert_true (first == again);

  /* Replaced by another file: a new inode, so a new load. */
  copy_file (prog, next);
  g_assert_cmpint (g_rename (next, path), ==, 0);
  g_assert_cmpint (stat (path, &st), ==, 0);
  replaced = sysprof_elf_loader_load (loader, path, &error);
  g_assert_no_error (error);
  g_assert_true (replaced != first);
  g_assert_cmpuint (sysprof_elf_get_inode (replaced), ==, st.st_ino);
  g_assert_cmpstr (sysprof_elf_get_build_id (replaced), ==, sysprof_elf_get_build_id (first));

  /* Failures are remembered and reported again. */
  g_file_set_contents (junk, "not an ELF file", -1, &error);
  g_assert_no_error (error);
  for (guint i = 0; i < 2; i++)
    {
      nothing = sysprof_elf_loader_load (loader, junk, &error);
      g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
      g_assert_null (nothing);
      g_clear_error (&error);
    }
  nothing = sysprof_elf_loader_load (loader, "/nonexistent/libfoo.so", &error);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);
  g_assert_null (nothing);

  rm_rf (tmp);
}

static void
assert_refused (const char *tmp, const guint8 *data, gsize len, const char *what)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GBytes) bytes = g_bytes_new (data, len);
  g_autoptr (SysprofElf) from_data = NULL;
  g_autoptr (SysprofElf) from_file = NULL;
  g_autofree char *path = g_build_filename (tmp, "malformed", NULL);

  g_test_message ("%s (%" G_GSIZE_FORMAT " bytes)", what, len);

  from_data = sysprof_elf_new_from_data (bytes, &error);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
  g_assert_null (from_data);
  g_clear_error (&error);

  g_file_set_contents (path, (const char *) data, len, &error);
  g_assert_no_error (error);
  from_file = sysprof_elf_new (path, &error);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
  g_assert_null (from_file);
  g_assert_nonnull (strstr (error->message, path));
}

static void
test_malformed (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char   *prog = fixture_path ("elf-testprog");
  g_autofree char   *tmp = g_dir_make_tmp ("sysprof-test-elf-XXXXXX", &error);
  g_autofree char   *contents = NULL;
  g_autofree guint8 *patched = NULL;
  g_autoptr (SysprofElf) elf = NULL;
  g_autoptr (GRand) rand = g_rand_new_with_seed (1234);
  guint8 garbage[4096];
  gsize  len = 0;
  gsize  cuts[] = { 1, 4, 16, 52, 63, 64, 100, 1000, 0, 0, 0 };

  g_assert_no_error (error);
  g_file_get_contents (prog, &contents, &len, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (len, >, 4096);

  assert_refused (tmp, (const guint8 *) "", 0, "empty");
  for (guint i = 0; i < sizeof garbage; i++)
    garbage[i] = g_rand_int (rand);
  assert_refused (tmp, garbage, sizeof garbage, "garbage");
  memcpy (garbage, "\177ELF", 4);
  assert_refused (tmp, garbage, sizeof garbage, "garbage after an ELF magic");
  memcpy (garbage, contents, 16);
  assert_refused (tmp, garbage, sizeof garbage, "garbage after a real e_ident");

  /* Truncated anywhere, including inside the section headers at the end. */
  cuts[8] = len / 2;
  cuts[9] = len - 64;
  cuts[10] = len - 1;
  for (guint i = 0; i < G_N_ELEMENTS (cuts); i++)
    assert_refused (tmp, (const guint8 *) contents, cuts[i], "truncated");

  /* Section headers far beyond the end of the file. */
  patched = g_memdup2 (contents, len);
  if (patched[4] == 2 /* ELFCLASS64 */ && patched[5] == 1 /* little endian */)
    {
      const guint64 far = G_GUINT64_CONSTANT (0xfffffffffff00000);

      memcpy (patched + 0x28, &far, 8); /* e_shoff */
      assert_refused (tmp, patched, len, "e_shoff out of the file");
      memcpy (patched, contents, len);
      memcpy (patched + 0x20, &far, 8); /* e_phoff */
      assert_refused (tmp, patched, len, "e_phoff out of the file");
    }

  /* Random damage may or may not be refused, but never crashes. */
  for (guint round = 0; round < 200; round++)
    {
      g_autoptr (GBytes) bytes = NULL;
      g_autoptr (SysprofElf) damaged = NULL;

      memcpy (patched, contents, len);
      for (guint k = 0; k < 1 + round % 16; k++)
        patched[g_rand_int_range (rand, 0, MIN (len, 8192) - 1)] = g_rand_int (rand);
      bytes = g_bytes_new (patched, len);
      if ((damaged = sysprof_elf_new_from_data (bytes, NULL)) != NULL)
        {
          (void) sysprof_elf_get_build_id (damaged);
          for (guint64 off = 0; off < 8192; off += 61)
            {
              guint64 vaddr;
              if (sysprof_elf_file_offset_to_vaddr (damaged, off, &vaddr))
                (void) sysprof_elf_lookup (damaged, vaddr, NULL, NULL);
            }
        }
    }

  /* Not files at all. */
  elf = sysprof_elf_new (tmp, &error);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_IS_DIRECTORY);
  g_assert_null (elf);
  g_clear_error (&error);
  elf = sysprof_elf_new ("/nonexistent/elf", &error);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);
  g_assert_null (elf);
  g_clear_error (&error);
  elf = sysprof_elf_new ("/dev/null", &error);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_REGULAR_FILE);
  g_assert_null (elf);
  g_clear_error (&error);

  rm_rf (tmp);
}

static void
test_crc32 (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GRand) rand = g_rand_new_with_seed (42);
  g_autofree char *tmp = g_dir_make_tmp ("sysprof-test-elf-XXXXXX", &error);
  g_autofree char *path = g_build_filename (tmp, "data", NULL);
  static guint8    data[600000];
  guint32          whole;
  guint32          from_file = 0;
  int              fd;

  g_assert_no_error (error);
  /* The check value of CRC-32/ISO-HDLC, which .gnu_debuglink uses. */
  g_file_set_contents (path, "123456789", 9, &error);
  g_assert_no_error (error);
  fd = open (path, O_RDONLY | O_CLOEXEC);
  g_assert_cmpint (fd, >=, 0);
  g_assert_true (sysprof_elf_crc32_file (fd, &from_file, &error));
  g_assert_cmphex (from_file, ==, 0xCBF43926);
  close (fd);

  /* Larger than one read of the file (256 KiB), in pieces. */
  for (guint i = 0; i < sizeof data; i++)
    data[i] = g_rand_int (rand);
  whole = (guint32) crc32 (0, data, sizeof data);

  g_file_set_contents (path, (const char *) data, sizeof data, &error);
  g_assert_no_error (error);
  fd = open (path, O_RDONLY | O_CLOEXEC);
  g_assert_cmpint (fd, >=, 0);
  g_assert_true (sysprof_elf_crc32_file (fd, &from_file, &error));
  g_assert_no_error (error);
  g_assert_cmphex (from_file, ==, whole);
  close (fd);

  rm_rf (tmp);
}

static void
assert_demangles (const char *mangled, const char *expected)
{
  g_autofree char *demangled = sysprof_demangle (mangled);

  g_assert_cmpstr (demangled, ==, expected);
}

static void
test_demangle (void)
{
  /* C++ */
  assert_demangles ("_ZN7sysprof4test7mangledEv", "sysprof::test::mangled()");
  assert_demangles ("_Z3fooi", "foo(int)");
  assert_demangles ("_ZNSt6vectorIiSaIiEE9push_backERKi",
                    "std::vector<int, std::allocator<int> >::push_back(int const&)");
  assert_demangles ("_ZN9__gnu_cxx13new_allocatorIcED2Ev", "__gnu_cxx::new_allocator<char>::~new_allocator()");

  /* Rust, legacy: the hash goes. */
  assert_demangles ("_ZN4core3fmt5write17h0123456789abcdefE", "core::fmt::write");
  assert_demangles ("_ZN3std2rt10lang_start28_$u7b$$u7b$closure$u7d$$u7d$17h1234567890abcdefE",
                    "std::rt::lang_start::{{closure}}");
  assert_demangles ("_ZN4core3ptr85drop_in_place$LT$std..rt..lang_start$LT$$LP$$RP$$GT$..$u7b$$u7b$closure$u7d$$u7d$$"
                    "GT$17h0c5f6c1e9e2d3e4fE",
                    "core::ptr::drop_in_place<std::rt::lang_start<()>::{{closure}}>");

  /* Rust, v0. */
  assert_demangles ("_RNvCs1234_7mycrate3foo", "mycrate::foo");
  assert_demangles ("_RNvNtCs1cm7xe7aeXq_4core3fmt5write", "core::fmt::write");
  assert_demangles ("_RNvMs_NtCsabc_5tokio7runtimeNtB4_7Runtime8block_on", "<tokio::runtime::Runtime>::block_on");
  assert_demangles ("_RNCNvCsd4VYzqtBtTs_4main4main0B3_", "main::main::{closure#0}");

  /* Not mangled, or not decodable. */
  assert_demangles ("main", NULL);
  assert_demangles ("g_main_loop_run", NULL);
  assert_demangles ("", NULL);
  assert_demangles ("_", NULL);
  assert_demangles ("_Z", NULL);
  assert_demangles ("_R", NULL);
  assert_demangles ("_Zfoo", NULL);
  assert_demangles ("_RNvC", NULL);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/Libsysprof/Elf/pie", test_pie);
  g_test_add_func ("/Libsysprof/Elf/non-pie", test_non_pie);
  g_test_add_func ("/Libsysprof/Elf/from-data", test_from_data);
  g_test_add_func ("/Libsysprof/Elf/debug-by-build-id", test_debug_by_build_id);
  g_test_add_func ("/Libsysprof/Elf/debug-by-debuglink", test_debug_by_debuglink);
  g_test_add_func ("/Libsysprof/Elf/debuglink-wrong-crc", test_debuglink_wrong_crc);
  g_test_add_func ("/Libsysprof/Elf/loader-cache", test_loader_cache);
  g_test_add_func ("/Libsysprof/Elf/malformed", test_malformed);
  g_test_add_func ("/Libsysprof/Elf/crc32", test_crc32);
  g_test_add_func ("/Libsysprof/Elf/demangle", test_demangle);

  return g_test_run ();
}
