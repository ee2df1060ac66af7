// SPDX-License-Identifier: GPL-3.0-or-later
/* SysprofSymbolizer and the embedded `__symbols__` table on a capture of this
 * very process: a /proc snapshot (its real maps and mountinfo), a kallsyms
 * file with made-up kernel symbols, and samples whose addresses are functions
 * of this program, of GLib and of nothing. */
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "sysprof-instruments.h"
#include "sysprof-symbols.h"

#define FAKE_KALLSYMS                       \
  "ffffffff81000000 T fake_kernel_entry\n"  \
  "ffffffff81000100 t fake_kernel_helper\n" \
  "ffffffff81000200 d some_data\n"          \
  "ffffffffc0000000 t fake_module_func\t[fakemod]\n"

static const char rodata_blob[64] = "not code";

__attribute__ ((noinline)) int symbolizer_test_leaf (int x);
__attribute__ ((noinline)) int symbolizer_test_caller (int x);

__attribute__ ((noinline)) int
symbolizer_test_leaf (int x)
{
  return x * 3 + 1;
}

__attribute__ ((noinline)) int
symbolizer_test_caller (int x)
{
  return symbolizer_test_leaf (x) + 2;
}

typedef struct
{
  SysprofCaptureAddress address;
  SysprofAddressContext context;
  const char           *name; /* NULL: check only the prefix below */
  const char           *prefix;
  const char           *library;
  SysprofSymbolKind     kind;
} Expected;

static char *
write_capture (SysprofCaptureAddress *addrs, guint n_addrs)
{
  g_autoptr (GError) error = NULL;
  g_autofree char      *path = NULL;
  int                   fd = g_file_open_tmp ("test-symbolizer-XXXXXX.syscap", &path, &error);
  SysprofCaptureWriter *writer;
  gint64                now = SYSPROF_CAPTURE_CURRENT_TIME;

  g_assert_no_error (error);
  writer = sysprof_capture_writer_new_from_fd (fd, 0);
  g_assert_nonnull (writer);
  g_assert_true (sysprof_proc_snapshot_write (writer, &error));
  g_assert_no_error (error);
  g_assert_true (sysprof_capture_writer_add_file (writer, now, -1, -1, "/proc/kallsyms", true,
                                                  (const guint8 *) FAKE_KALLSYMS, strlen (FAKE_KALLSYMS)));
  g_assert_true (sysprof_capture_writer_add_sample (writer, now + 1000, 0, getpid (), getpid (), addrs, n_addrs));
  g_assert_true (sysprof_capture_writer_flush (writer));
  sysprof_capture_writer_unref (writer);
  return g_steal_pointer (&path);
}

static void
check_all (SysprofSymbolizer *symbolizer, const Expected *expected, guint n)
{
  for (guint i = 0; i < n; i++)
    {
      const SysprofSymbol *sym = sysprof_symbolizer_lookup (symbolizer, getpid (), SYSPROF_CAPTURE_CURRENT_TIME,
                                                            expected[i].context, expected[i].address);
      g_assert_nonnull (sym);
      if (expected[i].name != NULL)
        g_assert_cmpstr (sym->name, ==, expected[i].name);
      else
        g_assert_true (g_str_has_prefix (sym->name, expected[i].prefix));
      g_assert_cmpstr (sym->library, ==, expected[i].library);
      g_assert_cmpint (sym->kind, ==, expected[i].kind);
      /* Interned: a second lookup gives the very same symbol. */
      g_assert_true (sym == sysprof_symbolizer_lookup (symbolizer, getpid (), SYSPROF_CAPTURE_CURRENT_TIME,
                                                       expected[i].context, expected[i].address));
    }
}

static SysprofSymbolizer *
load (const char *path, gboolean local)
{
  g_autoptr (GError) error = NULL;
  SysprofSymbolizer    *symbolizer = sysprof_symbolizer_new ();
  SysprofCaptureReader *reader = sysprof_capture_reader_new (path);

  g_assert_nonnull (reader);
  sysprof_symbolizer_set_use_local_files (symbolizer, local);
  g_assert_true (sysprof_symbolizer_load (symbolizer, reader, &error));
  g_assert_no_error (error);
  sysprof_capture_reader_unref (reader);
  return symbolizer;
}

static gboolean
has_file (const char *path, const char *name)
{
  SysprofCaptureReader *reader = sysprof_capture_reader_new (path);
  const char          **files = sysprof_capture_reader_list_files (reader);
  gboolean              found = FALSE;

  for (guint i = 0; files[i] != NULL; i++)
    found |= g_str_equal (files[i], name);
  free (files);
  sysprof_capture_reader_unref (reader);
  return found;
}

static void
test_resolve_and_embed (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char      *self_name = g_path_get_basename (g_test_get_filename (G_TEST_BUILT, "test-symbolizer", NULL));
  g_autofree char      *glib_path = NULL;
  SysprofCaptureAddress addrs[] = {
    SYSPROF_CAPTURE_ADDRESS_KERNEL,
    G_GUINT64_CONSTANT (0xffffffff81000010),
    G_GUINT64_CONSTANT (0xffffffff81000150),
    G_GUINT64_CONSTANT (0xffffffffc0000008),
    SYSPROF_CAPTURE_ADDRESS_USER,
    GPOINTER_TO_SIZE (symbolizer_test_leaf) + 1,
    GPOINTER_TO_SIZE (symbolizer_test_caller) + 1,
    GPOINTER_TO_SIZE (g_main_loop_run) + 1,
    GPOINTER_TO_SIZE (rodata_blob),
    0x10,
  };
  Expected expected[] = {
    { addrs[1], SYSPROF_ADDRESS_CONTEXT_KERNEL, "fake_kernel_entry", NULL, "kernel", SYSPROF_SYMBOL_KERNEL },
    { addrs[2], SYSPROF_ADDRESS_CONTEXT_KERNEL, "fake_kernel_helper", NULL, "kernel", SYSPROF_SYMBOL_KERNEL },
    { addrs[3], SYSPROF_ADDRESS_CONTEXT_KERNEL, "fake_module_func", NULL, "fakemod", SYSPROF_SYMBOL_KERNEL },
    { addrs[5], SYSPROF_ADDRESS_CONTEXT_USER, "symbolizer_test_leaf", NULL, self_name, SYSPROF_SYMBOL_USER },
    { addrs[6], SYSPROF_ADDRESS_CONTEXT_USER, "symbolizer_test_caller", NULL, self_name, SYSPROF_SYMBOL_USER },
    { addrs[7], SYSPROF_ADDRESS_CONTEXT_USER, "g_main_loop_run", NULL, NULL, SYSPROF_SYMBOL_USER },
    { addrs[8], SYSPROF_ADDRESS_CONTEXT_USER, NULL, NULL, self_name, SYSPROF_SYMBOL_UNRESOLVED },
    { addrs[9], SYSPROF_ADDRESS_CONTEXT_USER, "0x10", NULL, "", SYSPROF_SYMBOL_UNRESOLVED },
  };
  g_autofree char *path = write_capture (addrs, G_N_ELEMENTS (addrs));
  g_autofree char *rodata_prefix = g_strdup_printf ("%s+0x", self_name);
  g_autoptr (SysprofSymbolizer) local = NULL;
  g_autoptr (SysprofSymbolizer) embedded = NULL;
  int fd;

  /* GLib's library name is whatever file the loader mapped. */
  {
    Dl_info info;
    g_assert_true (dladdr ((void *) g_main_loop_run, &info) != 0);
    /* /proc/PID/maps names the file the symlink points to. */
    glib_path = realpath (info.dli_fname, NULL);
    g_assert_nonnull (glib_path);
    expected[5].library = strrchr (glib_path, '/') + 1;
  }
  expected[6].prefix = rodata_prefix;

  local = load (path, TRUE);
  check_all (local, expected, G_N_ELEMENTS (expected));
  g_assert_cmpstr (sysprof_symbolizer_get_process_name (local, getpid ()), !=, NULL);

  fd = open (path, O_RDWR | O_CLOEXEC);
  g_assert_cmpint (fd, >=, 0);
  g_assert_true (sysprof_symbol_map_append_to_fd (fd, NULL, NULL, NULL, NULL, &error));
  g_assert_no_error (error);
  /* Twice is once: the table is already there. */
  g_assert_true (sysprof_symbol_map_append_to_fd (fd, NULL, NULL, NULL, NULL, &error));
  g_assert_no_error (error);
  close (fd);
  g_assert_true (has_file (path, "__symbols__"));

  /* Without any local file, the embedded table alone gives the same answers. */
  embedded = load (path, FALSE);
  check_all (embedded, expected, G_N_ELEMENTS (expected));

  /* The samples are untouched by the append and the file still reads to
   * its end without an error. */
  {
    SysprofCaptureReader   *reader = sysprof_capture_reader_new (path);
    SysprofCaptureFrameType type;
    guint                   n_samples = 0;

    while (sysprof_capture_reader_peek_type (reader, &type))
      {
        n_samples += type == SYSPROF_CAPTURE_FRAME_SAMPLE;
        g_assert_true (sysprof_capture_reader_skip (reader));
      }
    g_assert_cmpint (sysprof_capture_reader_get_error (reader)->code, ==, 0);
    g_assert_cmpuint (n_samples, ==, 1);
    sysprof_capture_reader_unref (reader);
  }
  g_unlink (path);
}

/* Sysprof 45+ stores kallsyms and mountinfo gzipped (PATH.gz): the kernel
 * names come from there the same; a damaged one only loses them. */
static void
test_gzipped_files (void)
{
  const char *kinds[] = { "gzipped", "damaged" };

  for (guint k = 0; k < G_N_ELEMENTS (kinds); k++)
    {
      g_autoptr (GError) error = NULL;
      g_autofree char *path = NULL;
      int              fd = g_file_open_tmp ("test-symbolizer-gz-XXXXXX.syscap", &path, &error);
      g_autoptr (GZlibCompressor) compressor = g_zlib_compressor_new (G_ZLIB_COMPRESSOR_FORMAT_GZIP, 6);
      g_autoptr (GOutputStream) memory = g_memory_output_stream_new_resizable ();
      g_autoptr (GOutputStream) out = g_converter_output_stream_new (memory, G_CONVERTER (compressor));
      g_autoptr (GBytes) packed = NULL;
      g_autoptr (SysprofSymbolizer) symbolizer = NULL;
      SysprofCaptureAddress addrs[] = { SYSPROF_CAPTURE_ADDRESS_KERNEL, G_GUINT64_CONSTANT (0xffffffff81000010) };
      SysprofCaptureWriter *writer;
      const SysprofSymbol  *sym;
      gint64                now = SYSPROF_CAPTURE_CURRENT_TIME;
      gsize                 len, half;
      guint8               *data;

      g_assert_no_error (error);
      g_assert_true (g_output_stream_write_all (out, FAKE_KALLSYMS, strlen (FAKE_KALLSYMS), NULL, NULL, NULL));
      g_assert_true (g_output_stream_close (out, NULL, NULL));
      packed = g_memory_output_stream_steal_as_bytes (G_MEMORY_OUTPUT_STREAM (memory));
      len = g_bytes_get_size (packed);
      data = g_memdup2 (g_bytes_get_data (packed, NULL), len);
      if (k == 1)
        memset (data + 10, 0x55, len - 18); /* the deflate stream, not the header */
      half = len / 2;

      writer = sysprof_capture_writer_new_from_fd (fd, 0);
      g_assert_nonnull (writer);
      g_assert_true (sysprof_capture_writer_add_file (writer, now, -1, -1, "/proc/kallsyms.gz", false, data, half));
      g_assert_true (
          sysprof_capture_writer_add_sample (writer, now + 1000, 0, 4242, 4242, addrs, G_N_ELEMENTS (addrs)));
      g_assert_true (
          sysprof_capture_writer_add_file (writer, now, -1, -1, "/proc/kallsyms.gz", true, data + half, len - half));
      g_assert_true (sysprof_capture_writer_flush (writer));
      sysprof_capture_writer_unref (writer);
      g_free (data);

      symbolizer = load (path, FALSE);
      sym = sysprof_symbolizer_lookup (symbolizer, 4242, now + 1000, SYSPROF_ADDRESS_CONTEXT_KERNEL, addrs[1]);
      if (k == 0)
        {
          g_assert_cmpstr (sym->name, ==, "fake_kernel_entry");
          g_assert_cmpint (sym->kind, ==, SYSPROF_SYMBOL_KERNEL);
        }
      else
        {
          /* No kernel names: the address, as a kernel frame. */
          g_assert_cmpstr (sym->name, ==, "kernel+0xffffffff81000010");
          g_assert_cmpint (sym->kind, ==, SYSPROF_SYMBOL_KERNEL);
        }
      g_unlink (path);
    }
}

/* Without kallsyms or maps, addresses still get a stable readable name. */
static void
test_unresolvable (void)
{
  SysprofCaptureAddress addrs[] = { SYSPROF_CAPTURE_ADDRESS_USER, 0x1234 };
  g_autofree char      *path = write_capture (addrs, G_N_ELEMENTS (addrs));
  g_autoptr (SysprofSymbolizer) symbolizer = load (path, FALSE);
  const SysprofSymbol *sym;

  sym = sysprof_symbolizer_lookup (symbolizer, 999999, 0, SYSPROF_ADDRESS_CONTEXT_USER, 0x1234);
  g_assert_cmpstr (sym->name, ==, "0x1234");
  g_assert_cmpint (sym->kind, ==, SYSPROF_SYMBOL_UNRESOLVED);
  sym = sysprof_symbolizer_lookup (symbolizer, 999999, 0, SYSPROF_ADDRESS_CONTEXT_NONE, SYSPROF_CAPTURE_ADDRESS_KERNEL);
  g_assert_cmpstr (sym->name, ==, "- - kernel - -");
  g_assert_cmpint (sym->kind, ==, SYSPROF_SYMBOL_CONTEXT);
  g_assert_null (sysprof_symbolizer_get_process_name (symbolizer, 999999));
  g_unlink (path);
}

/* JIT-compiled code names its addresses in JITMAP frames; the embedded table
 * keeps those names too. */
static void
test_jitmap (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char      *path = NULL;
  int                   fd = g_file_open_tmp ("test-symbolizer-jit-XXXXXX.syscap", &path, &error);
  SysprofCaptureWriter *writer;
  SysprofCaptureAddress addrs[3];
  gint64                now = SYSPROF_CAPTURE_CURRENT_TIME;

  g_assert_no_error (error);
  writer = sysprof_capture_writer_new_from_fd (fd, 0);
  addrs[0] = SYSPROF_CAPTURE_ADDRESS_USER;
  addrs[1] = sysprof_capture_writer_add_jitmap (writer, "js::Interpret");
  addrs[2] = sysprof_capture_writer_add_jitmap (writer, "wasm-function[7]");
  g_assert_cmpuint (addrs[1], !=, 0);
  g_assert_true (sysprof_capture_writer_add_sample (writer, now, 0, 4242, 4242, addrs, G_N_ELEMENTS (addrs)));
  g_assert_true (sysprof_capture_writer_flush (writer));
  sysprof_capture_writer_unref (writer);

  for (guint pass = 0; pass < 2; pass++)
    {
      g_autoptr (SysprofSymbolizer) symbolizer = load (path, pass == 0);
      const SysprofSymbol *sym;

      sym = sysprof_symbolizer_lookup (symbolizer, 4242, now, SYSPROF_ADDRESS_CONTEXT_USER, addrs[1]);
      g_assert_cmpstr (sym->name, ==, "js::Interpret");
      g_assert_cmpint (sym->kind, ==, SYSPROF_SYMBOL_USER);
      sym = sysprof_symbolizer_lookup (symbolizer, 4242, now, SYSPROF_ADDRESS_CONTEXT_USER, addrs[2]);
      g_assert_cmpstr (sym->name, ==, "wasm-function[7]");
      if (pass == 0)
        {
          int rw = open (path, O_RDWR | O_CLOEXEC);
          g_assert_true (sysprof_symbol_map_append_to_fd (rw, NULL, NULL, NULL, NULL, &error));
          g_assert_no_error (error);
          close (rw);
        }
    }
  g_assert_true (has_file (path, "__symbols__"));
  g_unlink (path);
}

/* A perf map embedded as /tmp/perf-PID.map names the JIT code of anonymous
 * mappings (the later of overlapping lines), never a file's code, and lines
 * that do not parse are skipped; the process's children share it. */
static void
test_perf_map (void)
{
  static const char perf_map[] = "7f0000000000 100 js:fast\n"
                                 "0x7f0000000100 0x80 LazyCompile:~run app.js:12\r\n"
                                 "7f0000000400 zz broken line\n"
                                 "7f0000000500 0 empty range\n"
                                 "ffffffffffffffff 10 wraps\n"
                                 "7f0000000000 40 js:recompiled\n"
                                 "7f0000010000 1000 claims_a_file\n"
                                 "7f0000000800 10 \xff\xfe bad utf8";
  g_autoptr (GError) error = NULL;
  g_autofree char      *path = NULL;
  int                   fd = g_file_open_tmp ("test-symbolizer-perf-map-XXXXXX.syscap", &path, &error);
  SysprofCaptureWriter *writer;
  gint64                now = SYSPROF_CAPTURE_CURRENT_TIME;
  g_autoptr (SysprofSymbolizer) symbolizer = NULL;
  const SysprofSymbol *sym;
  guint64              begin, end;

  g_assert_no_error (error);
  writer = sysprof_capture_writer_new_from_fd (fd, 0);
  g_assert_true (
      sysprof_capture_writer_add_map (writer, now, -1, 4343, 0x7f0000000000, 0x7f0000001000, 0, 0, "//anon"));
  g_assert_true (
      sysprof_capture_writer_add_map (writer, now, -1, 4343, 0x7f0000010000, 0x7f0000011000, 0, 0, "/nonexistent.so"));
  g_assert_true (sysprof_capture_writer_add_fork (writer, now, -1, 4343, 4344));
  g_assert_true (sysprof_capture_writer_add_file (writer, now, -1, -1, "/tmp/perf-4343.map", TRUE,
                                                  (const guint8 *) perf_map, sizeof perf_map - 1));
  g_assert_true (sysprof_capture_writer_flush (writer));
  sysprof_capture_writer_unref (writer);

  symbolizer = load (path, FALSE);
  sym = sysprof_symbolizer_lookup_range (symbolizer, 4343, now, SYSPROF_ADDRESS_CONTEXT_USER, 0x7f0000000010, &begin,
                                         &end);
  g_assert_cmpstr (sym->name, ==, "js:recompiled");
  g_assert_cmpstr (sym->library, ==, "JIT");
  g_assert_cmpuint (begin, ==, 0x7f0000000000);
  g_assert_cmpuint (end, ==, 0x7f0000000040);
  sym = sysprof_symbolizer_lookup (symbolizer, 4343, now, SYSPROF_ADDRESS_CONTEXT_USER, 0x7f0000000050);
  g_assert_cmpstr (sym->name, ==, "js:fast");
  sym = sysprof_symbolizer_lookup (symbolizer, 4344, now, SYSPROF_ADDRESS_CONTEXT_USER, 0x7f000000017f);
  g_assert_cmpstr (sym->name, ==, "LazyCompile:~run app.js:12");
  sym = sysprof_symbolizer_lookup (symbolizer, 4343, now, SYSPROF_ADDRESS_CONTEXT_USER, 0x7f0000000180);
  g_assert_cmpint (sym->kind, ==, SYSPROF_SYMBOL_UNRESOLVED);
  sym = sysprof_symbolizer_lookup (symbolizer, 4343, now, SYSPROF_ADDRESS_CONTEXT_USER, 0x7f0000000400);
  g_assert_cmpint (sym->kind, ==, SYSPROF_SYMBOL_UNRESOLVED);
  sym = sysprof_symbolizer_lookup (symbolizer, 4343, now, SYSPROF_ADDRESS_CONTEXT_USER, 0x7f0000000800);
  g_assert_true (g_utf8_validate (sym->name, -1, NULL));
  g_assert_true (g_str_has_suffix (sym->name, " bad utf8"));
  sym = sysprof_symbolizer_lookup (symbolizer, 4343, now, SYSPROF_ADDRESS_CONTEXT_USER, 0x7f0000010010);
  g_assert_cmpstr (sym->name, !=, "claims_a_file");
  /* Another process's map is not this one's. */
  sym = sysprof_symbolizer_lookup (symbolizer, 4345, now, SYSPROF_ADDRESS_CONTEXT_USER, 0x7f0000000010);
  g_assert_cmpint (sym->kind, ==, SYSPROF_SYMBOL_UNRESOLVED);
  g_unlink (path);
}

/* A cancelled decode leaves the file exactly as it was. */
static void
test_cancelled (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GCancellable) cancellable = g_cancellable_new ();
  SysprofCaptureAddress addrs[] = { SYSPROF_CAPTURE_ADDRESS_USER, GPOINTER_TO_SIZE (symbolizer_test_leaf) };
  g_autofree char      *path = write_capture (addrs, G_N_ELEMENTS (addrs));
  struct stat           before, after;
  int                   fd = open (path, O_RDWR | O_CLOEXEC);

  g_assert_cmpint (fstat (fd, &before), ==, 0);
  g_cancellable_cancel (cancellable);
  g_assert_false (sysprof_symbol_map_append_to_fd (fd, NULL, NULL, NULL, cancellable, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_cmpint (fstat (fd, &after), ==, 0);
  g_assert_cmpint (before.st_size, ==, after.st_size);
  close (fd);
  g_assert_false (has_file (path, "__symbols__"));
  g_unlink (path);
}

typedef struct
{
  gconstpointer address; /* in the object whose build-id is wanted */
  char         *build_id;
} BuildIdQuery;

/* The build-id of the loaded object holding an address, from its
 * NT_GNU_BUILD_ID note as the loader mapped it: not through libelf, which
 * the symbolizer uses. */
static int
find_build_id (struct dl_phdr_info *info, size_t size, void *data)
{
  BuildIdQuery *query = data;
  guintptr      address = GPOINTER_TO_SIZE (query->address);
  gboolean      inside = FALSE;

  (void) size;
  for (int i = 0; i < info->dlpi_phnum; i++)
    if (info->dlpi_phdr[i].p_type == PT_LOAD && address >= info->dlpi_addr + info->dlpi_phdr[i].p_vaddr &&
        address < info->dlpi_addr + info->dlpi_phdr[i].p_vaddr + info->dlpi_phdr[i].p_memsz)
      inside = TRUE;
  if (!inside)
    return 0;
  for (int i = 0; i < info->dlpi_phnum; i++)
    {
      const guint8 *p = (const guint8 *) (info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
      const guint8 *end = p + info->dlpi_phdr[i].p_memsz;

      if (info->dlpi_phdr[i].p_type != PT_NOTE)
        continue;
      while (p + sizeof (ElfW (Nhdr)) <= end)
        {
          const ElfW (Nhdr) *note = (const ElfW (Nhdr) *) p;
          const guint8 *desc = p + sizeof *note + ((note->n_namesz + 3) & ~3u);

          if (note->n_type == NT_GNU_BUILD_ID && note->n_namesz == 4 && memcmp (p + sizeof *note, "GNU", 4) == 0)
            {
              GString *hex = g_string_new (NULL);

              for (guint j = 0; j < note->n_descsz; j++)
                g_string_append_printf (hex, "%02x", desc[j]);
              query->build_id = g_string_free (hex, FALSE);
              return 1;
            }
          p = desc + ((note->n_descsz + 3) & ~3u);
        }
    }
  return 1;
}

static char *
build_id_of (gconstpointer address)
{
  BuildIdQuery query = { address, NULL };

  dl_iterate_phdr (find_build_id, &query);
  return query.build_id;
}

/* The mapping of an address and its file's build-id: this program's and
 * GLib's from the files (their notes as loaded say which), none for the
 * kernel, markers and unmapped addresses, none from a file whose inode is
 * not the one recorded or was not recorded, and the one a MAP frame
 * carries (Sysprof 45+) without reading any file. */
static void
test_mapping (void)
{
  g_autoptr (GError) error = NULL;
  SysprofCaptureAddress addrs[] = { SYSPROF_CAPTURE_ADDRESS_USER, GPOINTER_TO_SIZE (symbolizer_test_leaf) };
  g_autofree char      *path = write_capture (addrs, G_N_ELEMENTS (addrs));
  g_autofree char      *self_id = build_id_of (symbolizer_test_leaf);
  g_autofree char      *glib_id = build_id_of (g_main_loop_run);
  g_autofree char      *exe = realpath ("/proc/self/exe", NULL);
  g_autofree char      *other = NULL;
  g_autoptr (SysprofSymbolizer) symbolizer = NULL;
  SysprofSymbolizerMapping mapping;
  SysprofCaptureWriter    *writer;
  struct stat              st;
  gint64                   now = SYSPROF_CAPTURE_CURRENT_TIME;
  int                      fd;

  /* Debian's toolchain gives every binary a build-id. */
  g_assert_nonnull (self_id);
  g_assert_nonnull (glib_id);

  symbolizer = load (path, TRUE);
  g_assert_true (sysprof_symbolizer_lookup_mapping (symbolizer, getpid (), now, addrs[1], &mapping));
  g_assert_cmpstr (mapping.filename, ==, exe);
  g_assert_cmpuint (mapping.start, <=, addrs[1]);
  g_assert_cmpuint (addrs[1], <, mapping.end);
  g_assert_cmpstr (mapping.build_id, ==, self_id);
  g_assert_true (
      sysprof_symbolizer_lookup_mapping (symbolizer, getpid (), now, GPOINTER_TO_SIZE (g_main_loop_run), &mapping));
  g_assert_cmpstr (mapping.build_id, ==, glib_id);
  g_assert_false (sysprof_symbolizer_lookup_mapping (symbolizer, getpid (), now,
                                                     G_GUINT64_CONSTANT (0xffffffff81000010), &mapping));
  g_assert_false (
      sysprof_symbolizer_lookup_mapping (symbolizer, getpid (), now, SYSPROF_CAPTURE_ADDRESS_KERNEL, &mapping));
  g_assert_false (sysprof_symbolizer_lookup_mapping (symbolizer, getpid (), now, 0x10, &mapping));
  g_clear_object (&symbolizer);

  /* Without local files: the mapping, but no build-id. */
  symbolizer = load (path, FALSE);
  g_assert_true (sysprof_symbolizer_lookup_mapping (symbolizer, getpid (), now, addrs[1], &mapping));
  g_assert_cmpstr (mapping.filename, ==, exe);
  g_assert_null (mapping.build_id);
  g_clear_object (&symbolizer);
  g_unlink (path);

  /* Made-up mappings of this program: with its inode, another inode (the
   * path now holds another file), and a build-id the frame carries. */
  g_assert_cmpint (stat (exe, &st), ==, 0);
  fd = g_file_open_tmp ("test-symbolizer-map-XXXXXX.syscap", &other, &error);
  g_assert_no_error (error);
  writer = sysprof_capture_writer_new_from_fd (fd, 0);
  g_assert_true (sysprof_capture_writer_add_map (writer, now, -1, 4545, 0x10000, 0x20000, 0x1000, st.st_ino, exe));
  g_assert_true (sysprof_capture_writer_add_map (writer, now, -1, 4546, 0x10000, 0x20000, 0, st.st_ino + 1, exe));
  g_assert_true (sysprof_capture_writer_add_map (writer, now, -1, 4549, 0x10000, 0x20000, 0, 0, exe));
  g_assert_true (sysprof_capture_writer_add_map_with_build_id (writer, now, -1, 4547, 0x10000, 0x20000, 0, 0,
                                                               "/gone/libfrom45.so", "00112233445566778899aabb"));
  g_assert_true (sysprof_capture_writer_add_map_with_build_id (writer, now, -1, 4548, 0x10000, 0x20000, 0, 0,
                                                               "/gone/libhostile.so", "not hex\n"));
  g_assert_true (sysprof_capture_writer_flush (writer));
  sysprof_capture_writer_unref (writer);
  symbolizer = load (other, TRUE);
  g_assert_true (sysprof_symbolizer_lookup_mapping (symbolizer, 4545, now, 0x10010, &mapping));
  g_assert_cmpuint (mapping.start, ==, 0x10000);
  g_assert_cmpuint (mapping.end, ==, 0x20000);
  g_assert_cmpuint (mapping.offset, ==, 0x1000);
  g_assert_cmpstr (mapping.build_id, ==, self_id);
  g_assert_false (sysprof_symbolizer_lookup_mapping (symbolizer, 4545, now, 0x20000, &mapping));
  g_assert_true (sysprof_symbolizer_lookup_mapping (symbolizer, 4546, now, 0x10010, &mapping));
  g_assert_null (mapping.build_id);
  /* No inode (Sysprof 3.46): nothing says the file here is the one mapped. */
  g_assert_true (sysprof_symbolizer_lookup_mapping (symbolizer, 4549, now, 0x10010, &mapping));
  g_assert_null (mapping.build_id);
  g_assert_true (sysprof_symbolizer_lookup_mapping (symbolizer, 4547, now, 0x10010, &mapping));
  g_assert_cmpstr (mapping.filename, ==, "/gone/libfrom45.so");
  g_assert_cmpstr (mapping.build_id, ==, "00112233445566778899aabb");
  g_assert_true (sysprof_symbolizer_lookup_mapping (symbolizer, 4548, now, 0x10010, &mapping));
  g_assert_null (mapping.build_id);
  g_unlink (other);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/Libsysprof/Symbolizer/resolve-and-embed", test_resolve_and_embed);
  g_test_add_func ("/Libsysprof/Symbolizer/unresolvable", test_unresolvable);
  g_test_add_func ("/Libsysprof/Symbolizer/gzipped-files", test_gzipped_files);
  g_test_add_func ("/Libsysprof/Symbolizer/jitmap", test_jitmap);
  g_test_add_func ("/Libsysprof/Symbolizer/perf-map", test_perf_map);
  g_test_add_func ("/Libsysprof/Symbolizer/cancelled", test_cancelled);
  g_test_add_func ("/Libsysprof/Symbolizer/mapping", test_mapping);
  return g_test_run ();
}
