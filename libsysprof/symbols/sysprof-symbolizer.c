// SPDX-License-Identifier: GPL-3.0-or-later
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sysprof-capture-error.h"
#include "sysprof-debuginfod-private.h"
#include "sysprof-demangle-private.h"
#include "sysprof-dwarf-private.h"
#include "sysprof-elf-loader-private.h"
#include "sysprof-elf-private.h"
#include "sysprof-embedded-file.h"
#include "sysprof-frame-table-private.h"
#include "sysprof-mount-namespace.h"
#include "sysprof-perf-map-private.h"
#include "sysprof-mount-view-private.h"
#include "sysprof-symbolizer-private.h"

/* x86-64 and aarch64 kernels live in the upper half of the address space. */
#define KERNEL_ADDRESS_MIN G_GUINT64_CONSTANT (0xffff800000000000)

typedef struct
{
  guint64     start;
  guint64     end;
  guint64     offset;
  guint64     inode;
  gint64      time;
  const char *filename; /* interned */
  const char *build_id; /* interned, as the MAP frame gave it (Sysprof 45+), or NULL */
} Map;

typedef struct
{
  gint32            pid;
  gint32            parent; /* from FORK frames; 0 = none */
  const char       *name;   /* interned */
  GArray           *maps;   /* Map, in capture order */
  GArray           *spans;  /* the union of the maps, sorted (is_code_address), built on first use */
  GByteArray       *mountinfo;
  gboolean          exited; /* an EXIT frame: the host cannot tell about it any more */
  SysprofMountView *view;   /* the namespace it ran in, once needed (owned by views) */
  guint             last_map;
  SysprofPerfMap   *perf_map; /* its /tmp/perf-PID.map: names of JIT code */
} Process;

typedef struct
{
  guint64     addr;
  const char *name;   /* in kallsyms_text */
  const char *module; /* "kernel" or the module name, in kallsyms_text */
} KernelSymbol;

typedef struct
{
  gconstpointer elf;
  guint64       offset;
} ElfKey;

typedef struct
{
  const SysprofSymbol *symbol;
  guint64              begin; /* file-offset range of the symbol */
  guint64              end;
} ElfHit;

/* An interned chain of frames (the array lookup_frames hands out). */
typedef struct
{
  guint                     hash;
  guint                     n;
  const SysprofSymbolFrame *frames[];
} Chain;

typedef struct
{
  const Chain *chain;
  guint64      begin; /* file-offset range with the same chain */
  guint64      end;
} FramesHit;

struct _SysprofSymbolizer
{
  GObject parent_instance;

  GStringChunk *strings;
  GHashTable   *interned; /* string -> its copy in strings */
  GHashTable   *symbols;  /* SysprofSymbol* set, hashed by content */

  GHashTable *processes; /* pid -> Process* */

  SysprofFrameTable *frame_table;  /* `__symbol_frames__`, or NULL */
  const Chain      **frame_chains; /* per record of frame_table, made on first use */

  GBytes                       *embedded; /* `__symbols__`, converted to host order */
  const SysprofSymbolMapRecord *records;
  gsize                         n_records;
  const SysprofSymbol         **embedded_symbols; /* 2 per record: user, kernel context */

  GArray               *kernel;          /* KernelSymbol, sorted by addr */
  char                 *kallsyms_text;   /* what kernel names point into */
  SysprofCaptureReader *kallsyms_reader; /* where the embedded kallsyms are, until parsed */
  gboolean              kallsyms_local;  /* else read this machine's, when first needed */
  GHashTable           *jitmap;          /* guint64* address -> interned name */

  GPtrArray         *debug_dirs;
  SysprofElfLoader  *loader;
  SysprofDebuginfod *debuginfod; /* when $DEBUGINFOD_URLS is set */
  gboolean           use_local_files;
  SysprofMountTable *host_mounts;
  SysprofMountViews *views;        /* with loader, when local files are used */
  const Map         *last_planned; /* by _sysprof_symbolizer_plan_lookup */

  SysprofSymbolizerHost host;
  gpointer              host_data;

  GHashTable *elf_cache; /* ElfKey -> ElfHit */
  GHashTable *pinned;    /* SysprofElf* kept alive for elf_cache keys */

  GPtrArray  *perf_map_paths;    /* perf maps read from this machine, to embed: path */
  GPtrArray  *perf_map_contents; /* and contents (GBytes) */
  GHashTable *frame_set;         /* SysprofSymbolFrame* set, hashed by content */
  GHashTable *chain_set;         /* Chain* set, hashed by content */
  GHashTable *frames_cache;      /* ElfKey -> FramesHit */
  GHashTable *single_chains;     /* SysprofSymbol* -> its chain of one frame */
  GArray     *dwarf_frames;      /* SysprofDwarfFrame, scratch */
};

G_DEFINE_FINAL_TYPE (SysprofSymbolizer, sysprof_symbolizer, G_TYPE_OBJECT)

static void
process_free (gpointer data)
{
  Process *process = data;

  g_clear_pointer (&process->maps, g_array_unref);
  g_clear_pointer (&process->spans, g_array_unref);
  if (process->mountinfo != NULL)
    g_byte_array_unref (process->mountinfo);
  g_clear_pointer (&process->perf_map, sysprof_perf_map_free);
  g_free (process);
}

static guint
symbol_hash (gconstpointer data)
{
  const SysprofSymbol *symbol = data;

  return g_direct_hash (symbol->name) ^ (g_direct_hash (symbol->library) * 31) ^ symbol->kind;
}

static gboolean
symbol_equal (gconstpointer a, gconstpointer b)
{
  const SysprofSymbol *sa = a, *sb = b;

  return sa->name == sb->name && sa->library == sb->library && sa->kind == sb->kind;
}

static guint
elf_key_hash (gconstpointer data)
{
  const ElfKey *key = data;

  return g_direct_hash (key->elf) ^ (guint) (key->offset ^ (key->offset >> 32)) * 2654435761u;
}

static gboolean
elf_key_equal (gconstpointer a, gconstpointer b)
{
  const ElfKey *ka = a, *kb = b;

  return ka->elf == kb->elf && ka->offset == kb->offset;
}

static guint
frame_hash (gconstpointer data)
{
  const SysprofSymbolFrame *frame = data;

  return g_direct_hash (frame->symbol) ^ (g_direct_hash (frame->file) * 31) ^ (frame->line * 2654435761u);
}

static gboolean
frame_equal (gconstpointer a, gconstpointer b)
{
  const SysprofSymbolFrame *fa = a, *fb = b;

  return fa->symbol == fb->symbol && fa->file == fb->file && fa->line == fb->line;
}

static guint
chain_hash (gconstpointer data)
{
  return ((const Chain *) data)->hash;
}

static gboolean
chain_equal (gconstpointer a, gconstpointer b)
{
  const Chain *ca = a, *cb = b;

  return ca->n == cb->n && memcmp (ca->frames, cb->frames, ca->n * sizeof ca->frames[0]) == 0;
}

static void
sysprof_symbolizer_finalize (GObject *object)
{
  SysprofSymbolizer *self = SYSPROF_SYMBOLIZER (object);

  g_clear_pointer (&self->frame_table, _sysprof_frame_table_free);
  g_clear_pointer (&self->frame_chains, g_free);
  g_clear_pointer (&self->frames_cache, g_hash_table_unref);
  g_clear_pointer (&self->single_chains, g_hash_table_unref);
  g_clear_pointer (&self->chain_set, g_hash_table_unref);
  g_clear_pointer (&self->frame_set, g_hash_table_unref);
  g_clear_pointer (&self->dwarf_frames, g_array_unref);

  g_clear_pointer (&self->elf_cache, g_hash_table_unref);
  g_clear_pointer (&self->pinned, g_hash_table_unref);
  g_clear_pointer (&self->perf_map_paths, g_ptr_array_unref);
  g_clear_pointer (&self->perf_map_contents, g_ptr_array_unref);
  g_clear_pointer (&self->processes, g_hash_table_unref);
  g_clear_pointer (&self->views, sysprof_mount_views_free);
  g_clear_pointer (&self->symbols, g_hash_table_unref);
  g_clear_pointer (&self->interned, g_hash_table_unref);
  g_clear_pointer (&self->strings, g_string_chunk_free);
  g_clear_pointer (&self->embedded, g_bytes_unref);
  g_clear_pointer (&self->embedded_symbols, g_free);
  g_clear_pointer (&self->kernel, g_array_unref);
  g_clear_pointer (&self->kallsyms_text, g_free);
  g_clear_pointer (&self->kallsyms_reader, sysprof_capture_reader_unref);
  g_clear_pointer (&self->jitmap, g_hash_table_unref);
  g_clear_pointer (&self->debug_dirs, g_ptr_array_unref);
  g_clear_pointer (&self->loader, sysprof_elf_loader_unref);
  g_clear_pointer (&self->debuginfod, sysprof_debuginfod_unref);
  g_clear_pointer (&self->host_mounts, sysprof_mount_table_unref);

  G_OBJECT_CLASS (sysprof_symbolizer_parent_class)->finalize (object);
}

static void
sysprof_symbolizer_class_init (SysprofSymbolizerClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = sysprof_symbolizer_finalize;
}

static void
sysprof_symbolizer_init (SysprofSymbolizer *self)
{
  self->strings = g_string_chunk_new (64 * 1024);
  self->interned = g_hash_table_new (g_str_hash, g_str_equal);
  self->symbols = g_hash_table_new_full (symbol_hash, symbol_equal, g_free, NULL);
  self->processes = g_hash_table_new_full (NULL, NULL, NULL, process_free);
  self->kernel = g_array_new (FALSE, FALSE, sizeof (KernelSymbol));
  self->jitmap = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  self->debug_dirs = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (self->debug_dirs, g_strdup ("/usr/lib/debug"));
  self->use_local_files = TRUE;
  self->debuginfod = sysprof_debuginfod_new_from_environment ();
  self->elf_cache = g_hash_table_new_full (elf_key_hash, elf_key_equal, g_free, g_free);
  self->pinned = g_hash_table_new_full (NULL, NULL, (GDestroyNotify) sysprof_elf_unref, NULL);
  self->perf_map_paths = g_ptr_array_new_with_free_func (g_free);
  self->perf_map_contents = g_ptr_array_new_with_free_func ((GDestroyNotify) g_bytes_unref);
  self->frame_set = g_hash_table_new_full (frame_hash, frame_equal, g_free, NULL);
  self->chain_set = g_hash_table_new_full (chain_hash, chain_equal, g_free, NULL);
  self->frames_cache = g_hash_table_new_full (elf_key_hash, elf_key_equal, g_free, g_free);
  self->single_chains = g_hash_table_new (NULL, NULL);
  self->dwarf_frames = g_array_new (FALSE, FALSE, sizeof (SysprofDwarfFrame));
}

SysprofSymbolizer *
sysprof_symbolizer_new (void)
{
  return g_object_new (SYSPROF_TYPE_SYMBOLIZER, NULL);
}

void
sysprof_symbolizer_add_debug_dir (SysprofSymbolizer *self, const char *directory)
{
  g_return_if_fail (SYSPROF_IS_SYMBOLIZER (self));
  g_return_if_fail (directory != NULL);

  g_ptr_array_add (self->debug_dirs, g_strdup (directory));
}

void
sysprof_symbolizer_set_use_local_files (SysprofSymbolizer *self, gboolean use_local_files)
{
  g_return_if_fail (SYSPROF_IS_SYMBOLIZER (self));

  self->use_local_files = !!use_local_files;
}

static const char *
intern (SysprofSymbolizer *self, const char *str)
{
  const char *found = g_hash_table_lookup (self->interned, str);

  if (found == NULL)
    {
      found = g_string_chunk_insert (self->strings, str);
      g_hash_table_add (self->interned, (gpointer) found);
    }
  return found;
}

static const SysprofSymbol *
make_symbol (SysprofSymbolizer *self, const char *name, const char *library, SysprofSymbolKind kind)
{
  SysprofSymbol  key = { intern (self, name), intern (self, library ? library : ""), kind };
  SysprofSymbol *found = g_hash_table_lookup (self->symbols, &key);

  if (found == NULL)
    {
      found = g_memdup2 (&key, sizeof key);
      g_hash_table_add (self->symbols, found);
    }
  return found;
}

static const SysprofSymbolFrame *
make_frame (SysprofSymbolizer *self, const SysprofSymbol *symbol, const char *file, guint line)
{
  SysprofSymbolFrame  key = { symbol, file != NULL && line > 0 ? intern (self, file) : NULL, file != NULL ? line : 0 };
  SysprofSymbolFrame *found = g_hash_table_lookup (self->frame_set, &key);

  if (found == NULL)
    {
      found = g_memdup2 (&key, sizeof key);
      g_hash_table_add (self->frame_set, found);
    }
  return found;
}

/* The interned chain of the @n frames of @frames. */
static const Chain *
make_chain (SysprofSymbolizer *self, const SysprofSymbolFrame *const *frames, guint n)
{
  Chain *key = g_malloc (sizeof *key + n * sizeof key->frames[0]);
  Chain *found;
  guint  hash = n;

  for (guint i = 0; i < n; i++)
    hash = hash * 31 + g_direct_hash (frames[i]);
  key->hash = hash;
  key->n = n;
  memcpy (key->frames, frames, n * sizeof key->frames[0]);
  if ((found = g_hash_table_lookup (self->chain_set, key)) != NULL)
    {
      g_free (key);
      return found;
    }
  g_hash_table_add (self->chain_set, key);
  return key;
}

/* The chain of @symbol alone: what most addresses (code without debug
 * info) give, so it is found with one probe. */
static const Chain *
single_chain (SysprofSymbolizer *self, const SysprofSymbol *symbol)
{
  const Chain *chain = g_hash_table_lookup (self->single_chains, symbol);

  if (chain == NULL)
    {
      const SysprofSymbolFrame *frame = make_frame (self, symbol, NULL, 0);

      chain = make_chain (self, &frame, 1);
      g_hash_table_insert (self->single_chains, (gpointer) symbol, (gpointer) chain);
    }
  return chain;
}

static Process *
get_process (SysprofSymbolizer *self, gint32 pid, gboolean create)
{
  Process *process = g_hash_table_lookup (self->processes, GINT_TO_POINTER (pid));

  if (process == NULL && create)
    {
      process = g_new0 (Process, 1);
      process->pid = pid;
      process->maps = g_array_new (FALSE, FALSE, sizeof (Map));
      g_hash_table_insert (self->processes, GINT_TO_POINTER (pid), process);
    }
  return process;
}

/* ------------------------------------------------------------------ */
/* Loading                                                              */

static gboolean
has_prefix_and_suffix (const char *str, const char *prefix, const char *suffix)
{
  return g_str_has_prefix (str, prefix) && g_str_has_suffix (str, suffix);
}

static int
compare_kernel_symbol (gconstpointer a, gconstpointer b)
{
  const KernelSymbol *ka = a, *kb = b;

  return ka->addr < kb->addr ? -1 : ka->addr > kb->addr;
}

/* /proc/kallsyms lines: "ADDRESS TYPE NAME [MODULE]".  Only text symbols
 * name code; an all-zero table (kptr_restrict) is useless and dropped.  The
 * text (5 MB, 200,000 lines) is split in place and names point into it: they
 * are interned only when a lookup returns them. */
static void
parse_kallsyms (SysprofSymbolizer *self, char *text, gsize len)
{
  char    *p, *end;
  gboolean any_nonzero = FALSE;

  g_array_set_size (self->kernel, 0);
  g_clear_pointer (&self->kallsyms_text, g_free);
  self->kallsyms_text = text; /* NUL-terminated, ours now */
  p = self->kallsyms_text;
  end = p + len;

  while (p < end)
    {
      char        *eol = memchr (p, '\n', (gsize) (end - p));
      char        *line = p;
      char        *endptr = NULL;
      char        *name, *module;
      KernelSymbol sym;
      char         type;

      if (eol == NULL)
        eol = end;
      *eol = '\0';
      p = eol + 1;

      sym.addr = g_ascii_strtoull (line, &endptr, 16);
      if (endptr == line || *endptr != ' ')
        continue;
      type = endptr[1];
      if (type == '\0' || endptr[2] != ' ' || strchr ("tTwW", type) == NULL)
        continue;
      name = endptr + 3;
      if (*name == '\0')
        continue;
      module = strchr (name, '\t');
      if (module != NULL)
        {
          char *close;
          *module++ = '\0';
          if (*module == '[' && (close = strchr (module, ']')) != NULL)
            {
              *close = '\0';
              module++;
            }
          else
            module = NULL;
        }
      name[strcspn (name, " ")] = '\0';
      sym.name = name;
      sym.module = module != NULL ? module : "kernel";
      any_nonzero |= sym.addr != 0;
      g_array_append_val (self->kernel, sym);
    }
  if (!any_nonzero)
    g_array_set_size (self->kernel, 0);
  g_array_sort (self->kernel, compare_kernel_symbol);
}

/* The kernel symbols, the first time a kernel address needs them: a capture
 * whose `__symbols__` table answers every address never pays for them. */
static void
ensure_kallsyms (SysprofSymbolizer *self)
{
  g_autoptr (GByteArray) text = NULL;
  SysprofCaptureReader *reader = g_steal_pointer (&self->kallsyms_reader);

  if (reader != NULL)
    {
      /* As it is, or gzipped by Sysprof 45+. */
      g_autoptr (GBytes) contents = sysprof_embedded_file_read (reader, "/proc/kallsyms", NULL);

      if (contents != NULL)
        {
          text = g_bytes_unref_to_array (g_steal_pointer (&contents));
          self->kallsyms_local = FALSE;
        }
      sysprof_capture_reader_unref (reader);
    }
  /* Damaged: this machine's, when local files may be used. */
  if (text == NULL && self->kallsyms_local)
    {
      g_autofree char *contents = NULL;
      gsize            len = 0;

      self->kallsyms_local = FALSE;
      if (g_file_get_contents ("/proc/kallsyms", &contents, &len, NULL))
        {
          text = g_byte_array_new_take ((guint8 *) g_steal_pointer (&contents), len);
        }
    }
  if (text != NULL)
    {
      gsize len = text->len;
      g_byte_array_append (text, (const guint8 *) "", 1);
      parse_kallsyms (self, (char *) g_byte_array_free (g_steal_pointer (&text), FALSE), len);
    }
}

/* Takes @data rather than copying it again: the table is 16 MB in a
 * capture of 180,000 functions. */
static void
load_embedded_symbols (SysprofSymbolizer *self, GByteArray *data, gboolean swap)
{
  gsize                   n_max = data->len / sizeof (SysprofSymbolMapRecord);
  gsize                   n = 0;
  SysprofSymbolMapRecord *records;

  g_clear_pointer (&self->embedded, g_bytes_unref);
  self->embedded = g_byte_array_free_to_bytes (data);
  /* Ours alone: converted in place. */
  records = (SysprofSymbolMapRecord *) g_bytes_get_data (self->embedded, NULL);

  /* Up to the all-zero terminator (zero in either byte order); a table
   * without one is used up to its last whole record. */
  for (; n < n_max; n++)
    {
      const SysprofSymbolMapRecord *r = &records[n];
      if (r->addr_begin == 0 && r->addr_end == 0 && r->pid == 0 && r->name_offset == 0 && r->tag_offset == 0)
        break;
    }
  if (swap)
    for (gsize i = 0; i < n; i++)
      {
        records[i].addr_begin = GUINT64_SWAP_LE_BE (records[i].addr_begin);
        records[i].addr_end = GUINT64_SWAP_LE_BE (records[i].addr_end);
        records[i].pid = GUINT32_SWAP_LE_BE (records[i].pid);
        records[i].name_offset = GUINT32_SWAP_LE_BE (records[i].name_offset);
        records[i].tag_offset = GUINT32_SWAP_LE_BE (records[i].tag_offset);
      }
  self->records = records;
  self->n_records = n;
  g_free (self->embedded_symbols);
  self->embedded_symbols = g_new0 (const SysprofSymbol *, n * 2 + 1);
}

/* A string of the embedded table, or NULL when the offset is out of it. */
static const char *
embedded_string (SysprofSymbolizer *self, guint32 offset)
{
  gsize       size;
  const char *base = g_bytes_get_data (self->embedded, &size);

  if (offset == 0 || offset >= size || memchr (base + offset, '\0', size - offset) == NULL)
    return NULL;
  return base + offset;
}

/* A file written again later in the capture (the mountinfo of a process
 * that entered another mount namespace) replaces the earlier copy: @complete
 * holds the paths whose last chunk was seen. */
static void
append_chunk (GHashTable *files, GHashTable *complete, const SysprofCaptureFileChunk *chunk)
{
  GByteArray *bytes = g_hash_table_lookup (files, chunk->path);

  if (bytes == NULL)
    {
      bytes = g_byte_array_new ();
      g_hash_table_insert (files, g_strdup (chunk->path), bytes);
    }
  else if (g_hash_table_remove (complete, chunk->path))
    g_byte_array_set_size (bytes, 0);
  g_byte_array_append (bytes, chunk->data, chunk->len);
  if (chunk->is_last)
    g_hash_table_add (complete, g_strdup (chunk->path));
}

/* The pid of a perf map's name, /tmp/perf-PID.map (PID as the capture's
 * frames give it), or 0. */
static gint32
perf_map_pid (const char *path)
{
  char  *endptr = NULL;
  gint64 pid;

  if (!has_prefix_and_suffix (path, "/tmp/perf-", ".map"))
    return 0;
  pid = g_ascii_strtoll (path + strlen ("/tmp/perf-"), &endptr, 10);
  if (endptr == NULL || strcmp (endptr, ".map") != 0 || pid <= 0 || pid > G_MAXINT32)
    return 0;
  return (gint32) pid;
}

static gboolean
wanted_file (const char *path)
{
  return strcmp (path, "__symbols__") == 0 || strcmp (path, "__symbols__.gz") == 0 || perf_map_pid (path) != 0 ||
         strcmp (path, SYSPROF_FRAME_TABLE_PATH) == 0 || has_prefix_and_suffix (path, "/proc/", "/mountinfo") ||
         has_prefix_and_suffix (path, "/proc/", "/mountinfo.gz");
}

/* Sysprof 45+ stores the files gzipped as PATH.gz: each becomes PATH,
 * unless the capture also has PATH as it is, which wins.  A damaged one is
 * left out (its names fall back to the binaries of this machine).  Gzip
 * bombs: a mountinfo may not exceed 16 MiB, and all of them together with
 * the symbol table SYSPROF_EMBEDDED_FILES_BUDGET. */
static void
gunzip_files (GHashTable *files)
{
  g_autoptr (GPtrArray) gzipped = g_ptr_array_new_with_free_func (g_free);
  GHashTableIter iter;
  gpointer       key, value;
  gsize          budget = SYSPROF_EMBEDDED_FILES_BUDGET;

  g_hash_table_iter_init (&iter, files);
  while (g_hash_table_iter_next (&iter, &key, &value))
    if (sysprof_embedded_file_is_gzipped (key))
      g_ptr_array_add (gzipped, g_strdup (key));
  for (guint i = 0; i < gzipped->len; i++)
    {
      const char      *gz_path = g_ptr_array_index (gzipped, i);
      g_autofree char *path = g_strndup (gz_path, strlen (gz_path) - 3);
      GByteArray      *packed = g_hash_table_lookup (files, gz_path);
      gsize            limit = g_str_has_prefix (path, "/proc/") ? 16 << 20 : SYSPROF_EMBEDDED_FILE_MAX_SIZE;
      GBytes          *contents;

      if (!g_hash_table_contains (files, path) &&
          (contents = sysprof_gunzip (packed->data, packed->len, MIN (limit, budget), gz_path, NULL)))
        {
          budget -= g_bytes_get_size (contents);
          g_hash_table_insert (files, g_steal_pointer (&path), g_bytes_unref_to_array (contents));
        }
      g_hash_table_remove (files, gz_path);
    }
}

/* The build-id a MAP frame carries (Sysprof 45+ writes it after the file
 * name), when it is what a build-id looks like: it is passed on to other
 * tools as it is. */
static const char *
recorded_build_id (SysprofSymbolizer *self, const SysprofCaptureMap *frame)
{
  const char *build_id = sysprof_capture_map_get_build_id (frame);
  gsize       len;

  if (build_id == NULL || (len = strlen (build_id)) < 2 || len > 128 || len % 2 != 0 ||
      strspn (build_id, "0123456789abcdef") != len)
    return NULL;
  return intern (self, build_id);
}

/* JITMAP payload: n_jitmaps entries of {u64 address (unaligned), name NUL}. */
static void
add_jitmap (SysprofSymbolizer *self, const SysprofCaptureJitmap *frame)
{
  const guint8 *p = (const guint8 *) frame + sizeof *frame;
  const guint8 *end = (const guint8 *) frame + frame->frame.len;

  for (guint i = 0; i < frame->n_jitmaps && p + 8 < end; i++)
    {
      guint64       addr;
      const guint8 *nul;

      memcpy (&addr, p, sizeof addr);
      p += sizeof addr;
      if ((nul = memchr (p, '\0', (gsize) (end - p))) == NULL)
        break;
      {
        guint64 *k = g_new (guint64, 1);
        *k = addr;
        g_hash_table_replace (self->jitmap, k, (gpointer) intern (self, (const char *) p));
      }
      p = nul + 1;
    }
}

gboolean
sysprof_symbolizer_load (SysprofSymbolizer *self, SysprofCaptureReader *reader, GError **error)
{
  g_autoptr (GHashTable) files = NULL;
  g_autoptr (GHashTable) complete = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  SysprofCaptureFrameType type;
  gboolean                swap;
  GHashTableIter          iter;
  gpointer                key, value;
  gboolean                has_kallsyms = FALSE;

  g_return_val_if_fail (SYSPROF_IS_SYMBOLIZER (self), FALSE);
  g_return_val_if_fail (reader != NULL, FALSE);

  files = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) g_byte_array_unref);
  swap = sysprof_capture_reader_get_byte_order (reader) != (G_BYTE_ORDER == G_LITTLE_ENDIAN
                                                                ? SYSPROF_CAPTURE_BYTE_ORDER_LITTLE_ENDIAN
                                                                : SYSPROF_CAPTURE_BYTE_ORDER_BIG_ENDIAN);

  sysprof_capture_reader_reset (reader);
  while (sysprof_capture_reader_peek_type (reader, &type))
    {
      switch (type)
        {
        case SYSPROF_CAPTURE_FRAME_PROCESS:
          {
            const SysprofCaptureProcess *frame = sysprof_capture_reader_read_process (reader);
            if (frame == NULL)
              goto failed;
            get_process (self, frame->frame.pid, TRUE)->name = intern (self, frame->cmdline);
            break;
          }
        case SYSPROF_CAPTURE_FRAME_MAP:
          {
            const SysprofCaptureMap *frame = sysprof_capture_reader_read_map (reader);
            Map                      map;
            if (frame == NULL)
              goto failed;
            if (frame->end <= frame->start)
              break;
            map.start = frame->start;
            map.end = frame->end;
            map.offset = frame->offset;
            map.inode = frame->inode;
            map.time = frame->frame.time;
            map.filename = intern (self, frame->filename);
            map.build_id = recorded_build_id (self, frame);
            g_array_append_val (get_process (self, frame->frame.pid, TRUE)->maps, map);
            break;
          }
        case SYSPROF_CAPTURE_FRAME_FORK:
          {
            const SysprofCaptureFork *frame = sysprof_capture_reader_read_fork (reader);
            Process                  *child;
            if (frame == NULL)
              goto failed;
            child = get_process (self, frame->child_pid, TRUE);
            if (child->parent == 0 && frame->child_pid != frame->frame.pid)
              child->parent = frame->frame.pid;
            break;
          }
        case SYSPROF_CAPTURE_FRAME_EXIT:
          {
            const SysprofCaptureExit *frame = sysprof_capture_reader_read_exit (reader);
            if (frame == NULL)
              goto failed;
            get_process (self, frame->frame.pid, TRUE)->exited = TRUE;
            break;
          }
        case SYSPROF_CAPTURE_FRAME_JITMAP:
          {
            const SysprofCaptureJitmap *frame = sysprof_capture_reader_read_jitmap (reader);
            if (frame == NULL)
              goto failed;
            add_jitmap (self, frame);
            break;
          }
        case SYSPROF_CAPTURE_FRAME_FILE_CHUNK:
          {
            const SysprofCaptureFileChunk *chunk = sysprof_capture_reader_read_file (reader);
            if (chunk == NULL)
              goto failed;
            if (strcmp (chunk->path, "/proc/kallsyms") == 0 || strcmp (chunk->path, "/proc/kallsyms.gz") == 0)
              has_kallsyms = TRUE; /* read when first needed: ensure_kallsyms */
            else if (wanted_file (chunk->path))
              append_chunk (files, complete, chunk);
            break;
          }
        default:
          if (!sysprof_capture_reader_skip (reader))
            goto failed;
          break;
        }
    }
  if (sysprof_capture_reader_get_error (reader)->code != 0)
    goto failed;
  gunzip_files (files);

  if (g_hash_table_steal_extended (files, "__symbols__", &key, &value))
    {
      g_free (key);
      load_embedded_symbols (self, value, swap);
    }
  g_clear_pointer (&self->frame_table, _sysprof_frame_table_free);
  g_clear_pointer (&self->frame_chains, g_free);
  if ((value = g_hash_table_lookup (files, SYSPROF_FRAME_TABLE_PATH)) != NULL)
    {
      g_autoptr (GBytes) bytes = g_bytes_new (((GByteArray *) value)->data, ((GByteArray *) value)->len);

      /* A damaged or newer table is left out: the names of `__symbols__`
       * remain, without inlines and lines. */
      self->frame_table = _sysprof_frame_table_new (bytes, swap, NULL);
      if (self->frame_table != NULL)
        self->frame_chains = g_new0 (const Chain *, _sysprof_frame_table_get_n_records (self->frame_table) + 1);
    }
  g_clear_pointer (&self->kallsyms_reader, sysprof_capture_reader_unref);
  g_array_set_size (self->kernel, 0);
  if (has_kallsyms)
    self->kallsyms_reader = sysprof_capture_reader_copy (reader);
  /* Also with an embedded kallsyms, in case it cannot be read. */
  self->kallsyms_local = self->use_local_files;

  g_hash_table_iter_init (&iter, files);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      const char *path = key;
      gint64      pid;
      char       *endptr = NULL;

      if ((pid = perf_map_pid (path)) != 0)
        {
          GByteArray *text = value;
          Process    *process = get_process (self, (gint32) pid, TRUE);

          g_clear_pointer (&process->perf_map, sysprof_perf_map_free);
          process->perf_map = sysprof_perf_map_new ((const char *) text->data, text->len);
          continue;
        }
      if (!has_prefix_and_suffix (path, "/proc/", "/mountinfo"))
        continue;
      pid = g_ascii_strtoll (path + strlen ("/proc/"), &endptr, 10);
      if (endptr == NULL || strcmp (endptr, "/mountinfo") != 0 || pid <= 0 || pid > G_MAXINT32)
        continue;
      get_process (self, (gint32) pid, TRUE)->mountinfo = g_byte_array_ref (value);
    }

  if (self->use_local_files)
    {
      g_clear_pointer (&self->loader, sysprof_elf_loader_unref);
      g_ptr_array_add (self->debug_dirs, NULL);
      self->loader = sysprof_elf_loader_new ();
      sysprof_elf_loader_set_debug_dirs (self->loader, (const char *const *) self->debug_dirs->pdata);
      sysprof_elf_loader_set_debuginfod (self->loader, self->debuginfod);
      g_clear_pointer (&self->host_mounts, sysprof_mount_table_unref);
      self->host_mounts = sysprof_mount_table_new_for_self (NULL);
      g_clear_pointer (&self->views, sysprof_mount_views_free);
      self->views =
          sysprof_mount_views_new (self->host_mounts, self->loader, (const char *const *) self->debug_dirs->pdata);
      g_ptr_array_remove_index (self->debug_dirs, self->debug_dirs->len - 1);
      sysprof_mount_views_set_host (self->views, &self->host, self->host_data);
      /* Every process that shows its namespace is one the host may be asked
       * about: the views know them all before the first question. */
      g_hash_table_iter_init (&iter, self->processes);
      while (g_hash_table_iter_next (&iter, NULL, &value))
        {
          Process *process = value;
          if (process->mountinfo != NULL)
            process->view = sysprof_mount_views_get (self->views, process->mountinfo->data, process->mountinfo->len,
                                                     process->pid, process->exited);
        }
    }

  sysprof_capture_reader_reset (reader);
  return TRUE;

failed:
  {
    sysprof_set_capture_error (error, sysprof_capture_reader_get_error (reader), "Cannot read the capture");
    sysprof_capture_reader_reset (reader);
    return FALSE;
  }
}

/* ------------------------------------------------------------------ */
/* Lookups                                                              */

typedef struct
{
  guint64 start;
  guint64 end;
} Span;

static int
compare_span (gconstpointer a, gconstpointer b)
{
  const Span *sa = a, *sb = b;

  return sa->start < sb->start ? -1 : sa->start > sb->start;
}

/* The union of the process's maps, sorted and merged. */
static GArray *
process_spans (Process *process)
{
  if (process->spans == NULL)
    {
      GArray *spans = g_array_sized_new (FALSE, FALSE, sizeof (Span), process->maps->len);
      guint   n = 0;
      Span   *v;

      for (guint i = 0; i < process->maps->len; i++)
        {
          const Map *m = &g_array_index (process->maps, Map, i);
          Span       span = { m->start, m->end };
          g_array_append_val (spans, span);
        }
      g_array_sort (spans, compare_span);
      v = (Span *) (gpointer) spans->data;
      for (guint i = 0; i < spans->len; i++)
        {
          if (n > 0 && v[i].start <= v[n - 1].end)
            v[n - 1].end = MAX (v[n - 1].end, v[i].end);
          else
            v[n++] = v[i];
        }
      g_array_set_size (spans, n);
      process->spans = spans;
    }
  return process->spans;
}

static gboolean
in_spans (GArray *spans, guint64 address)
{
  const Span *v = (const Span *) (gpointer) spans->data;
  guint       lo = 0, hi = spans->len;

  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;

      if (v[mid].start <= address)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo > 0 && address < v[lo - 1].end;
}

static const Map *
find_map_in (Process *process, guint64 address, gint64 time)
{
  const Map *best = NULL;

  if (process->last_map < process->maps->len)
    {
      const Map *m = &g_array_index (process->maps, Map, process->last_map);
      if (m->start <= address && address < m->end && m->time <= time)
        {
          /* Still the newest one in effect?  Check later maps only. */
          best = m;
          for (guint i = process->last_map + 1; i < process->maps->len; i++)
            {
              const Map *n = &g_array_index (process->maps, Map, i);
              if (n->start <= address && address < n->end && n->time <= time)
                {
                  best = n;
                  process->last_map = i;
                }
            }
          return best;
        }
    }

  /* The newest map in effect at @time; failing that the oldest one (a
   * sample can precede the MAP frame of the snapshot by a few ms). */
  for (guint i = 0; i < process->maps->len; i++)
    {
      const Map *m = &g_array_index (process->maps, Map, i);
      if (m->start <= address && address < m->end)
        {
          if (m->time <= time || best == NULL || best->time > time)
            {
              if (best == NULL || m->time <= time || m->time < best->time)
                {
                  best = m;
                  process->last_map = i;
                }
            }
        }
    }
  return best;
}

static const Map *
find_map (SysprofSymbolizer *self, gint32 pid, guint64 address, gint64 time, Process **owner)
{
  Process *process = get_process (self, pid, FALSE);

  /* A child without MAP frames of its own runs its parent's mappings. */
  for (guint depth = 0; process != NULL && depth < 64; depth++)
    {
      const Map *map = find_map_in (process, address, time);
      if (map != NULL)
        {
          *owner = process;
          return map;
        }
      process = process->parent ? get_process (self, process->parent, FALSE) : NULL;
    }
  return NULL;
}

/* The table has no kind: names we write for unresolved addresses are
 * "0xHEX" and "LIBRARY+0xHEX" ("kernel+0xHEX" stays a kernel frame). */
static gboolean
looks_unresolved (const char *name)
{
  const char *hex = g_str_has_prefix (name, "0x") ? name : strstr (name, "+0x");

  if (hex == NULL || g_str_has_prefix (name, "kernel+0x"))
    return FALSE;
  hex += hex == name ? 2 : 3;
  if (*hex == '\0')
    return FALSE;
  for (; *hex; hex++)
    if (!g_ascii_isxdigit (*hex))
      return FALSE;
  return TRUE;
}

static const SysprofSymbol *
lookup_embedded (
    SysprofSymbolizer *self, gint32 pid, SysprofAddressContext context, guint64 address, guint64 *begin, guint64 *end)
{
  gsize lo = 0, hi = self->n_records;

  while (lo < hi)
    {
      gsize                         mid = lo + (hi - lo) / 2;
      const SysprofSymbolMapRecord *r = &self->records[mid];
      gint64                        rpid = (gint32) r->pid;

      /* Both ends inclusive, as Sysprof 3.46 writes them (a single address
       * is begin == end). */
      if (rpid < pid || (rpid == pid && r->addr_end < address))
        lo = mid + 1;
      else if (rpid > pid || r->addr_begin > address)
        hi = mid;
      else
        {
          /* Many addresses share a record: its symbol is made once (per
           * context, which decides the kind). */
          const SysprofSymbol **slot = &self->embedded_symbols[mid * 2 + (context == SYSPROF_ADDRESS_CONTEXT_KERNEL)];
          const char           *name, *tag;
          SysprofSymbolKind     kind;

          *begin = r->addr_begin;
          *end = r->addr_end + 1;
          if (*slot != NULL)
            return *slot;
          name = embedded_string (self, r->name_offset);
          tag = embedded_string (self, r->tag_offset);
          if (name == NULL)
            return NULL;
          if (g_str_has_prefix (name, "- -"))
            kind = SYSPROF_SYMBOL_CONTEXT;
          else if (looks_unresolved (name))
            kind = SYSPROF_SYMBOL_UNRESOLVED;
          else if (context == SYSPROF_ADDRESS_CONTEXT_KERNEL)
            kind = SYSPROF_SYMBOL_KERNEL;
          else
            kind = SYSPROF_SYMBOL_USER;
          return *slot = make_symbol (self, name, tag, kind);
        }
    }
  return NULL;
}

static const SysprofSymbol *
lookup_kernel (SysprofSymbolizer *self, guint64 address, guint64 *begin, guint64 *end)
{
  const KernelSymbol *syms;
  guint               lo = 0, hi;

  if (self->kallsyms_reader != NULL || self->kallsyms_local)
    ensure_kallsyms (self);
  syms = (const KernelSymbol *) (void *) self->kernel->data;
  hi = self->kernel->len;

  if (hi == 0 || address < syms[0].addr)
    return NULL;
  while (hi - lo > 1)
    {
      guint mid = lo + (hi - lo) / 2;
      if (syms[mid].addr <= address)
        lo = mid;
      else
        hi = mid;
    }
  /* Several names can share an address (aliases): any of them will do, but
   * the range ends at the next different address. */
  *begin = syms[lo].addr;
  *end = G_MAXUINT64;
  for (guint i = lo + 1; i < self->kernel->len; i++)
    if (syms[i].addr > syms[lo].addr)
      {
        *end = syms[i].addr;
        break;
      }
  return make_symbol (self, syms[lo].name, syms[lo].module, SYSPROF_SYMBOL_KERNEL);
}

/* The view of the file system @process had: its own mountinfo's, else its
 * parent's (a fork shares its parent's namespace), else one of its own. */
static SysprofMountView *
process_view (SysprofSymbolizer *self, Process *process)
{
  Process *ancestor = process;

  for (guint depth = 0; process->view == NULL && depth < 64 && ancestor->parent != 0; depth++)
    {
      if ((ancestor = get_process (self, ancestor->parent, FALSE)) == NULL)
        break;
      process->view = ancestor->view;
    }
  if (process->view == NULL)
    process->view = sysprof_mount_views_get (self->views, NULL, 0, process->pid, process->exited);
  return process->view;
}

/* The ELF file behind @map as this machine can open it, or NULL. */
static SysprofElf *
get_elf (SysprofSymbolizer *self, Process *process, const Map *map)
{
  SysprofElf *elf;

  if (!self->use_local_files || self->views == NULL || map->filename[0] != '/')
    return NULL;
  elf = sysprof_mount_view_load (self->views, process_view (self, process), map->filename, map->inode);
  if (elf != NULL && !g_hash_table_contains (self->pinned, elf))
    g_hash_table_add (self->pinned, sysprof_elf_ref (elf));
  return elf;
}

static const char *
basename_of (const char *path)
{
  const char *slash = strrchr (path, '/');

  return slash && slash[1] ? slash + 1 : path;
}

/* A mapping of no file: where JIT compilers put their code ("//anon" and
 * "[anon:...]" as perf and /proc name them, memfds for double mappings). */
static gboolean
is_anonymous (const Map *map)
{
  return map->filename[0] != '/' || map->filename[1] == '/' || g_str_has_prefix (map->filename, "/memfd:");
}

/* JIT code named by the perf map of @pid or of the parent whose memory it
 * runs (a child without MAP frames of its own). */
static const SysprofSymbol *
lookup_perf_map (SysprofSymbolizer *self, gint32 pid, guint64 address, guint64 *begin, guint64 *end)
{
  Process *process = get_process (self, pid, FALSE);

  for (guint depth = 0; process != NULL && depth < 64; depth++)
    {
      const char *name;

      if (process->perf_map != NULL &&
          (name = sysprof_perf_map_lookup (process->perf_map, address, begin, end)) != NULL)
        return make_symbol (self, name, "JIT", SYSPROF_SYMBOL_USER);
      if (process->maps->len > 0)
        break;
      process = process->parent ? get_process (self, process->parent, FALSE) : NULL;
    }
  return NULL;
}

static const SysprofSymbol *
lookup_user (SysprofSymbolizer *self, gint32 pid, gint64 time, guint64 address, guint64 *begin, guint64 *end)
{
  Process             *process = NULL;
  const Map           *map = find_map (self, pid, address, time, &process);
  const SysprofSymbol *jit;
  SysprofElf          *elf;
  guint64              offset;
  ElfKey               key;
  ElfHit              *hit;

  /* Code generated at run time lies in anonymous memory, never in a file's
   * mapping: a perf map claiming a library's code is not believed. */
  if ((map == NULL || is_anonymous (map)) && (jit = lookup_perf_map (self, pid, address, begin, end)) != NULL)
    return jit;
  if (map == NULL)
    return NULL;
  offset = address - map->start + map->offset;
  elf = get_elf (self, process, map);
  if (elf != NULL)
    {
      key.elf = elf;
      key.offset = offset;
      hit = g_hash_table_lookup (self->elf_cache, &key);
      if (hit == NULL)
        {
          guint64     vaddr, sbegin = 0, send = 0;
          const char *raw = NULL;

          hit = g_new0 (ElfHit, 1);
          if (sysprof_elf_file_offset_to_vaddr (elf, offset, &vaddr) &&
              (raw = sysprof_elf_lookup (elf, vaddr, &sbegin, &send)) != NULL)
            {
              g_autofree char *demangled = sysprof_demangle (raw);
              hit->symbol =
                  make_symbol (self, demangled ? demangled : raw, basename_of (map->filename), SYSPROF_SYMBOL_USER);
              hit->begin = offset - (vaddr - sbegin);
              hit->end = offset + (send - vaddr);
            }
          else if (raw == NULL && sysprof_elf_file_offset_to_vaddr (elf, offset, &vaddr) &&
                   sysprof_elf_lookup_unnamed (elf, vaddr, &sbegin, &send))
            {
              /* Stripped code: one row per function, named after where the
               * function starts in the file, whichever address was hit. */
              g_autofree char *name = NULL;

              hit->begin = offset - (vaddr - sbegin);
              hit->end = offset + (send - vaddr);
              name = g_strdup_printf ("%s+0x%" G_GINT64_MODIFIER "x", basename_of (map->filename), hit->begin);
              hit->symbol = make_symbol (self, name, basename_of (map->filename), SYSPROF_SYMBOL_UNRESOLVED);
            }
          g_hash_table_insert (self->elf_cache, g_memdup2 (&key, sizeof key), hit);
        }
      if (hit->symbol != NULL)
        {
          /* The function's range, clipped to this mapping. */
          guint64 rb = map->start + (hit->begin - map->offset);
          guint64 re = map->start + (hit->end - map->offset);
          *begin = MAX (rb, map->start);
          *end = MIN (re, map->end);
          if (*begin > address || *end <= address)
            {
              *begin = address;
              *end = address + 1;
            }
          return hit->symbol;
        }
    }

  {
    g_autofree char *name = g_strdup_printf ("%s+0x%" G_GINT64_MODIFIER "x", basename_of (map->filename), offset);
    *begin = address;
    *end = address + 1;
    return make_symbol (self, name, basename_of (map->filename), SYSPROF_SYMBOL_UNRESOLVED);
  }
}

const SysprofSymbol *
sysprof_symbolizer_lookup_range (SysprofSymbolizer    *self,
                                 gint32                pid,
                                 gint64                time,
                                 SysprofAddressContext context,
                                 SysprofCaptureAddress address,
                                 guint64              *begin,
                                 guint64              *end)
{
  const SysprofSymbol  *symbol;
  SysprofAddressContext marker;

  g_return_val_if_fail (SYSPROF_IS_SYMBOLIZER (self), NULL);

  *begin = address;
  *end = address + 1;

  if (sysprof_address_is_context_switch (address, &marker))
    return make_symbol (self, sysprof_address_context_to_string (marker), "", SYSPROF_SYMBOL_CONTEXT);

  if (context == SYSPROF_ADDRESS_CONTEXT_NONE)
    context = address >= KERNEL_ADDRESS_MIN ? SYSPROF_ADDRESS_CONTEXT_KERNEL : SYSPROF_ADDRESS_CONTEXT_USER;

  if (self->n_records > 0 && (symbol = lookup_embedded (self, pid, context, address, begin, end)))
    return symbol;

  if (context == SYSPROF_ADDRESS_CONTEXT_KERNEL || context == SYSPROF_ADDRESS_CONTEXT_GUEST_KERNEL)
    {
      if ((symbol = lookup_kernel (self, address, begin, end)))
        return symbol;
      *begin = address;
      *end = address + 1;
      {
        g_autofree char *name = g_strdup_printf ("kernel+0x%" G_GINT64_MODIFIER "x", address);
        return make_symbol (self, name, "kernel", SYSPROF_SYMBOL_KERNEL);
      }
    }

  if ((symbol = lookup_user (self, pid, time, address, begin, end)))
    return symbol;

  {
    const char *jit = g_hash_table_lookup (self->jitmap, &address);
    if (jit != NULL)
      return make_symbol (self, jit, "JIT", SYSPROF_SYMBOL_USER);
  }

  {
    g_autofree char *name = g_strdup_printf ("0x%" G_GINT64_MODIFIER "x", address);
    return make_symbol (self, name, "", SYSPROF_SYMBOL_UNRESOLVED);
  }
}

/* The frames the capture's `__symbol_frames__` gives @address, or NULL
 * (none, or a range of no code). */
static const Chain *
lookup_frame_table (SysprofSymbolizer *self, gint32 pid, guint64 address, guint64 *begin, guint64 *end)
{
  guint record, n;

  if (!_sysprof_frame_table_lookup (self->frame_table, pid, address, &record, begin, end, &n) || n == 0)
    return NULL;
  if (self->frame_chains[record] == NULL)
    {
      const SysprofSymbolFrame *frames[SYSPROF_FRAME_TABLE_MAX_FRAMES];

      for (guint i = 0; i < n; i++)
        {
          const char       *name, *library, *file;
          guint             line;
          SysprofSymbolKind kind;

          _sysprof_frame_table_get_frame (self->frame_table, record, i, &name, &library, &file, &line, &kind);
          frames[i] = make_frame (self, make_symbol (self, name, library, kind), file, line);
        }
      self->frame_chains[record] = make_chain (self, frames, n);
    }
  return self->frame_chains[record];
}

/* Whether the capture's `__symbol_frames__` says @address is no code. */
static gboolean
frame_table_not_code (SysprofSymbolizer *self, gint32 pid, guint64 address)
{
  guint64 begin, end;
  guint   record, n;

  return _sysprof_frame_table_lookup (self->frame_table, pid, address, &record, &begin, &end, &n) && n == 0;
}

/* The frames of a user address from the DWARF of its binary, or NULL when
 * there is no such binary here.  The chain ends with the symbol
 * lookup_user gives, over at most its range. */
static const Chain *
lookup_user_frames (SysprofSymbolizer *self, gint32 pid, gint64 time, guint64 address, guint64 *begin, guint64 *end)
{
  Process             *process = NULL;
  const Map           *map = find_map (self, pid, address, time, &process);
  const SysprofSymbol *symbol;
  SysprofElf          *elf;
  FramesHit           *hit;
  ElfKey               key;
  guint64              sbegin, send, rb, re;

  if (map == NULL || (elf = get_elf (self, process, map)) == NULL)
    return NULL;
  if ((symbol = lookup_user (self, pid, time, address, &sbegin, &send)) == NULL)
    return NULL;
  /* No debug info: the symbol alone, over its range. */
  if (sysprof_elf_get_dwarf (elf) == NULL)
    {
      *begin = sbegin;
      *end = send;
      return single_chain (self, symbol);
    }

  key.elf = elf;
  key.offset = address - map->start + map->offset;
  if ((hit = g_hash_table_lookup (self->frames_cache, &key)) == NULL)
    {
      SysprofDwarf *dwarf = sysprof_elf_get_dwarf (elf);
      guint64       vaddr = 0, db = 0, de = 0;
      guint         n = 0;

      hit = g_new0 (FramesHit, 1);
      g_array_set_size (self->dwarf_frames, 0);
      if (dwarf != NULL && sysprof_elf_file_offset_to_vaddr (elf, key.offset, &vaddr))
        n = sysprof_dwarf_lookup (dwarf, vaddr, self->dwarf_frames, &db, &de);
      if (n == 0)
        {
          hit->chain = single_chain (self, symbol);
          hit->begin = 0;
          hit->end = G_MAXUINT64;
        }
      else
        {
          const SysprofSymbolFrame *frames[64];
          const char               *library = symbol->library;

          n = MIN (n, G_N_ELEMENTS (frames));
          for (guint i = 0; i < n; i++)
            {
              const SysprofDwarfFrame *df = &g_array_index (self->dwarf_frames, SysprofDwarfFrame, i);
              const SysprofSymbol     *fs = symbol;

              /* The outermost is the function of the symbol table, as
               * without debug info; the inlined ones are named by it. */
              if (i + 1 < n)
                {
                  g_autofree char *demangled = df->name ? sysprof_demangle (df->name) : NULL;
                  const char      *name = demangled ? demangled : df->name ? df->name : "[inlined function]";
                  fs = make_symbol (self, name, library, SYSPROF_SYMBOL_USER);
                }
              frames[i] = make_frame (self, fs, df->file, df->line);
            }
          hit->chain = make_chain (self, frames, n);
          hit->begin = key.offset - (vaddr - db);
          hit->end = key.offset + (de - vaddr);
        }
      g_hash_table_insert (self->frames_cache, g_memdup2 (&key, sizeof key), hit);
    }

  /* In run-time addresses, within the symbol's range. */
  rb = hit->begin <= map->offset ? map->start : map->start + (hit->begin - map->offset);
  re = hit->end - map->offset >= map->end - map->start ? map->end : map->start + (hit->end - map->offset);
  *begin = MAX (rb, sbegin);
  *end = MIN (re, send);
  if (*begin > address || *end <= address)
    {
      *begin = address;
      *end = address + 1;
    }
  return hit->chain;
}

guint
sysprof_symbolizer_lookup_frames (SysprofSymbolizer                *self,
                                  gint32                            pid,
                                  gint64                            time,
                                  SysprofAddressContext             context,
                                  SysprofCaptureAddress             address,
                                  const SysprofSymbolFrame *const **frames,
                                  guint64                          *begin,
                                  guint64                          *end)
{
  const SysprofSymbol  *symbol;
  const Chain          *chain = NULL;
  SysprofAddressContext marker;
  gboolean              user;

  g_return_val_if_fail (SYSPROF_IS_SYMBOLIZER (self), 0);
  g_return_val_if_fail (frames != NULL, 0);
  g_return_val_if_fail (begin != NULL && end != NULL, 0);

  if (context == SYSPROF_ADDRESS_CONTEXT_NONE && !sysprof_address_is_context_switch (address, &marker))
    context = address >= KERNEL_ADDRESS_MIN ? SYSPROF_ADDRESS_CONTEXT_KERNEL : SYSPROF_ADDRESS_CONTEXT_USER;
  user = context == SYSPROF_ADDRESS_CONTEXT_USER && !sysprof_address_is_context_switch (address, &marker);

  if (user && self->frame_table != NULL)
    chain = lookup_frame_table (self, pid, address, begin, end);
  /* A capture's own table of names wins over the files of this machine,
   * as in lookup_range; it knows no inlines nor lines. */
  if (chain == NULL && user && !(self->n_records > 0 && lookup_embedded (self, pid, context, address, begin, end)))
    chain = lookup_user_frames (self, pid, time, address, begin, end);
  if (chain == NULL)
    {
      symbol = sysprof_symbolizer_lookup_range (self, pid, time, context, address, begin, end);
      chain = single_chain (self, symbol);
    }
  *frames = chain->frames;
  return chain->n;
}

gboolean
sysprof_symbolizer_is_code_address (SysprofSymbolizer *self, gint32 pid, gint64 time, SysprofCaptureAddress address)
{
  Process    *process = get_process (self, pid, FALSE);
  Process    *owner = NULL;
  const Map  *map;
  SysprofElf *elf;
  gboolean    any_maps = FALSE;
  gboolean    inside = FALSE;

  g_return_val_if_fail (SYSPROF_IS_SYMBOLIZER (self), TRUE);

  if (g_hash_table_contains (self->jitmap, &address))
    return TRUE;

  /* The union of the maps first: most garbage lies in none. */
  for (guint depth = 0; process != NULL && depth < 64 && !inside; depth++)
    {
      if (process->maps->len > 0)
        {
          any_maps = TRUE;
          inside = in_spans (process_spans (process), address);
        }
      process = process->parent ? get_process (self, process->parent, FALSE) : NULL;
    }
  if (!any_maps)
    return TRUE;
  if (!inside || (map = find_map (self, pid, address, time, &owner)) == NULL)
    return FALSE;
  /* Sysprof 3.46 recorded every mapping: these never hold code. */
  if (strcmp (map->filename, "[heap]") == 0 || g_str_has_prefix (map->filename, "[stack") ||
      strcmp (map->filename, "[vvar]") == 0)
    return FALSE;
  if (self->frame_table != NULL)
    return !frame_table_not_code (self, pid, address);
  /* A mapping of a file that is here: its executable segments. */
  if ((elf = get_elf (self, owner, map)) == NULL)
    return TRUE;
  return sysprof_elf_file_offset_to_vaddr (elf, address - map->start + map->offset, NULL);
}

gboolean
sysprof_symbolizer_lookup_mapping (
    SysprofSymbolizer *self, gint32 pid, gint64 time, SysprofCaptureAddress address, SysprofSymbolizerMapping *mapping)
{
  SysprofAddressContext marker;
  Process              *owner = NULL;
  const Map            *map;
  SysprofElf           *elf = NULL;

  g_return_val_if_fail (SYSPROF_IS_SYMBOLIZER (self), FALSE);
  g_return_val_if_fail (mapping != NULL, FALSE);

  if (address >= KERNEL_ADDRESS_MIN || sysprof_address_is_context_switch (address, &marker) ||
      (map = find_map (self, pid, address, time, &owner)) == NULL)
    return FALSE;
  /* What the capture says was mapped wins over the file here, which is
   * only known to be the one mapped when the capture gives its inode (the
   * loader checks it): Sysprof 3.46 gave none.  A memfd or an anonymous
   * mapping is no file to read a build-id from. */
  if (map->build_id == NULL && map->inode != 0 && !is_anonymous (map))
    elf = get_elf (self, owner, map);
  mapping->start = map->start;
  mapping->end = map->end;
  mapping->offset = map->offset;
  mapping->filename = map->filename;
  mapping->build_id = map->build_id != NULL ? map->build_id : elf != NULL ? sysprof_elf_get_build_id (elf) : NULL;
  return TRUE;
}

const SysprofSymbol *
sysprof_symbolizer_lookup (
    SysprofSymbolizer *self, gint32 pid, gint64 time, SysprofAddressContext context, SysprofCaptureAddress address)
{
  guint64 begin, end;

  return sysprof_symbolizer_lookup_range (self, pid, time, context, address, &begin, &end);
}

const char *
sysprof_symbolizer_get_process_name (SysprofSymbolizer *self, gint32 pid)
{
  Process *process;

  g_return_val_if_fail (SYSPROF_IS_SYMBOLIZER (self), NULL);

  for (guint depth = 0; depth < 64; depth++)
    {
      process = get_process (self, pid, FALSE);
      if (process == NULL)
        return NULL;
      if (process->name != NULL)
        return process->name;
      if (process->parent == 0)
        return NULL;
      pid = process->parent;
    }
  return NULL;
}

gboolean
_sysprof_symbolizer_has_embedded_symbols (SysprofSymbolizer *self)
{
  g_return_val_if_fail (SYSPROF_IS_SYMBOLIZER (self), FALSE);

  return self->embedded != NULL;
}

void
_sysprof_symbolizer_plan_lookup (
    SysprofSymbolizer *self, gint32 pid, gint64 time, SysprofAddressContext context, SysprofCaptureAddress address)
{
  SysprofAddressContext marker;
  Process              *owner = NULL;
  const Map            *map;

  g_return_if_fail (SYSPROF_IS_SYMBOLIZER (self));

  if (self->views == NULL || !self->use_local_files || sysprof_address_is_context_switch (address, &marker))
    return;
  if (context == SYSPROF_ADDRESS_CONTEXT_NONE)
    context = address >= KERNEL_ADDRESS_MIN ? SYSPROF_ADDRESS_CONTEXT_KERNEL : SYSPROF_ADDRESS_CONTEXT_USER;
  /* As lookup_range: everything but kernel addresses is looked for in the maps. */
  if (context == SYSPROF_ADDRESS_CONTEXT_KERNEL || context == SYSPROF_ADDRESS_CONTEXT_GUEST_KERNEL)
    return;
  /* Sorted addresses come a mapping at a time: one plan for each. */
  if ((map = find_map (self, pid, address, time, &owner)) != NULL && map != self->last_planned &&
      map->filename[0] == '/')
    sysprof_mount_views_plan (self->views, process_view (self, owner), map->filename);
  self->last_planned = map;
}

void
_sysprof_symbolizer_ask_host (SysprofSymbolizer *self)
{
  g_return_if_fail (SYSPROF_IS_SYMBOLIZER (self));

  self->last_planned = NULL;
  if (self->views != NULL)
    sysprof_mount_views_ask (self->views);
}

guint
_sysprof_symbolizer_get_n_host_questions (SysprofSymbolizer *self)
{
  g_return_val_if_fail (SYSPROF_IS_SYMBOLIZER (self), 0);

  return self->views ? sysprof_mount_views_get_n_questions (self->views) : 0;
}

guint
sysprof_symbolizer_read_perf_maps (SysprofSymbolizer *self)
{
  GHashTableIter iter;
  gpointer       value;
  guint          n = 0;

  g_return_val_if_fail (SYSPROF_IS_SYMBOLIZER (self), 0);

  if (!self->use_local_files)
    return 0;
  g_hash_table_iter_init (&iter, self->processes);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    {
      Process         *process = value;
      g_autofree char *path = g_strdup_printf ("/tmp/perf-%d.map", process->pid);
      g_autoptr (GBytes) contents = NULL;
      SysprofMountNamespace *ns;
      gboolean               our_tmp = TRUE;

      if (process->perf_map != NULL)
        continue;
      /* An exited process's /tmp is ours only if the capture shows it saw
       * our /tmp there (or shows nothing else). */
      if (self->views != NULL &&
          (ns = sysprof_mount_view_get_namespace (self->views, process_view (self, process))) != NULL)
        {
          g_auto (GStrv) candidates = sysprof_mount_namespace_translate (ns, path);
          our_tmp = candidates != NULL && candidates[0] != NULL && strcmp (candidates[0], path) == 0;
        }
      if ((contents = sysprof_perf_map_file_read (process->pid, our_tmp, getuid (), NULL)) == NULL)
        continue;
      process->perf_map = sysprof_perf_map_new (g_bytes_get_data (contents, NULL), g_bytes_get_size (contents));
      g_ptr_array_add (self->perf_map_paths, g_steal_pointer (&path));
      g_ptr_array_add (self->perf_map_contents, g_steal_pointer (&contents));
      n++;
    }
  return n;
}

guint
_sysprof_symbolizer_get_files_to_embed (SysprofSymbolizer *self, const char *const **paths, GBytes *const **contents)
{
  g_return_val_if_fail (SYSPROF_IS_SYMBOLIZER (self), 0);

  *paths = (const char *const *) self->perf_map_paths->pdata;
  *contents = (GBytes *const *) self->perf_map_contents->pdata;
  return self->perf_map_paths->len;
}

void
sysprof_symbolizer_set_fetch_progress (SysprofSymbolizer *self, SysprofSymbolizerFetchFunc func, gpointer user_data)
{
  g_return_if_fail (SYSPROF_IS_SYMBOLIZER (self));

  if (self->debuginfod != NULL)
    sysprof_debuginfod_set_progress (self->debuginfod, func, user_data);
}

char *
sysprof_symbolizer_dup_missing_debug_info (SysprofSymbolizer *self)
{
  g_return_val_if_fail (SYSPROF_IS_SYMBOLIZER (self), NULL);

  return self->debuginfod != NULL ? sysprof_debuginfod_dup_failures (self->debuginfod) : NULL;
}

void
sysprof_symbolizer_set_host (SysprofSymbolizer *self, const SysprofSymbolizerHost *host, gpointer user_data)
{
  g_return_if_fail (SYSPROF_IS_SYMBOLIZER (self));

  if (host != NULL)
    self->host = *host;
  else
    memset (&self->host, 0, sizeof self->host);
  self->host_data = user_data;
  if (self->views != NULL)
    sysprof_mount_views_set_host (self->views, &self->host, self->host_data);
}
