// SPDX-License-Identifier: GPL-3.0-or-later
/* Finds and caches ELF files and their separate debug files, the way GDB and
 * the distributions lay them out (build-id tree first, then .gnu_debuglink).
 * A debuglink candidate is trusted only when the CRC-32 of the whole file is
 * the one the binary recorded: a stale debug file left next to a rebuilt
 * binary would otherwise give wrong names without any sign of it. */

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sysprof-debuginfod-private.h"
#include "sysprof-elf-loader-private.h"

typedef struct
{
  SysprofElf *elf;   /* NULL when loading failed */
  GError     *error; /* why, when it failed */
  struct stat st;    /* the file that failed */
} CacheEntry;

struct _SysprofElfLoader
{
  grefcount          ref_count;
  GStrv              debug_dirs;
  GHashTable        *cache;      /* host path -> CacheEntry */
  SysprofDebuginfod *debuginfod; /* or NULL */
};

static void
cache_entry_free (gpointer data)
{
  CacheEntry *entry = data;

  g_clear_pointer (&entry->elf, sysprof_elf_unref);
  g_clear_error (&entry->error);
  g_free (entry);
}

SysprofElfLoader *
sysprof_elf_loader_new (void)
{
  static const char *const default_dirs[] = { "/usr/lib/debug", NULL };
  SysprofElfLoader        *self = g_new0 (SysprofElfLoader, 1);

  g_ref_count_init (&self->ref_count);
  self->debug_dirs = g_strdupv ((char **) default_dirs);
  self->cache = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, cache_entry_free);
  return self;
}

SysprofElfLoader *
sysprof_elf_loader_ref (SysprofElfLoader *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  g_ref_count_inc (&self->ref_count);
  return self;
}

void
sysprof_elf_loader_unref (SysprofElfLoader *self)
{
  if (self == NULL || !g_ref_count_dec (&self->ref_count))
    return;

  g_strfreev (self->debug_dirs);
  g_hash_table_unref (self->cache);
  g_clear_pointer (&self->debuginfod, sysprof_debuginfod_unref);
  g_free (self);
}

void
sysprof_elf_loader_set_debug_dirs (SysprofElfLoader *self, const char *const *dirs)
{
  static const char *const no_dirs[] = { NULL };

  g_return_if_fail (self != NULL);

  g_strfreev (self->debug_dirs);
  self->debug_dirs = g_strdupv ((char **) (dirs != NULL ? dirs : no_dirs));
  /* Debug files found with the old list may not be the ones to use now. */
  g_hash_table_remove_all (self->cache);
}

const char *const *
sysprof_elf_loader_get_debug_dirs (SysprofElfLoader *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  return (const char *const *) self->debug_dirs;
}

void
sysprof_elf_loader_set_debuginfod (SysprofElfLoader *self, SysprofDebuginfod *debuginfod)
{
  g_return_if_fail (self != NULL);

  if (debuginfod != NULL)
    sysprof_debuginfod_ref (debuginfod);
  g_clear_pointer (&self->debuginfod, sysprof_debuginfod_unref);
  self->debuginfod = debuginfod;
  g_hash_table_remove_all (self->cache);
}

SysprofDebuginfod *
sysprof_elf_loader_get_debuginfod (SysprofElfLoader *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return self->debuginfod;
}

static gboolean
same_stat (const struct stat *a, const struct stat *b)
{
  return a->st_dev == b->st_dev && a->st_ino == b->st_ino && a->st_size == b->st_size &&
         a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec;
}

static int
open_candidate (const char *path)
{
  /* O_NONBLOCK: never hang on a FIFO planted in a debug directory. */
  return open (path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
}

/* Takes @fd. */
static SysprofElf *
try_build_id_fd (SysprofElf *elf, int fd, const char *path)
{
  g_autoptr (SysprofElf) debug = NULL;

  if (fd < 0)
    return NULL;
  debug = sysprof_elf_new_from_fd (fd, path, NULL);
  close (fd);

  if (debug == NULL || g_strcmp0 (sysprof_elf_get_build_id (debug), sysprof_elf_get_build_id (elf)) != 0)
    return NULL;
  return g_steal_pointer (&debug);
}

static SysprofElf *
try_build_id_path (SysprofElf *elf, const char *path)
{
  return try_build_id_fd (elf, open_candidate (path), path);
}

static SysprofElf *
try_debuglink_path (SysprofElf *elf, const char *path, guint32 expected_crc)
{
  g_autoptr (SysprofElf) debug = NULL;
  struct stat st;
  guint32     crc = 0;
  gboolean    ok = FALSE;
  int         fd;

  if ((fd = open_candidate (path)) < 0)
    return NULL;

  /* <dir>/<link> may name the binary itself. */
  if (fstat (fd, &st) == 0 && !sysprof_elf_is_same_file (elf, &st) &&
      (debug = sysprof_elf_new_from_fd (fd, path, NULL)) != NULL)
    {
      const char *build_id = sysprof_elf_get_build_id (elf);
      const char *debug_build_id = sysprof_elf_get_build_id (debug);

      if ((build_id == NULL || debug_build_id == NULL || strcmp (build_id, debug_build_id) == 0) &&
          sysprof_elf_crc32_file (fd, &crc, NULL) && crc == expected_crc)
        ok = TRUE;
    }
  close (fd);

  return ok ? g_steal_pointer (&debug) : NULL;
}

static void
attach_debug_file (SysprofElfLoader *self, SysprofElf *elf, const char *host_path)
{
  const char *build_id = sysprof_elf_get_build_id (elf);
  const char *link;
  guint32     crc = 0;

  if (build_id != NULL && strlen (build_id) > 2)
    {
      for (guint i = 0; self->debug_dirs[i] != NULL; i++)
        {
          g_autofree char *path =
              g_strdup_printf ("%s/.build-id/%.2s/%s.debug", self->debug_dirs[i], build_id, build_id + 2);
          g_autoptr (SysprofElf) debug = try_build_id_path (elf, path);

          if (debug != NULL)
            {
              sysprof_elf_set_debug_file (elf, debug);
              return;
            }
        }
    }

  if ((link = sysprof_elf_get_debuglink (elf, &crc)) != NULL)
    {
      g_autofree char *dir = g_path_get_dirname (host_path);
      g_autoptr (GPtrArray) candidates = g_ptr_array_new_with_free_func (g_free);

      g_ptr_array_add (candidates, g_build_filename (dir, link, NULL));
      g_ptr_array_add (candidates, g_build_filename (dir, ".debug", link, NULL));
      for (guint i = 0; self->debug_dirs[i] != NULL; i++)
        g_ptr_array_add (candidates, g_build_filename (self->debug_dirs[i], dir, link, NULL));

      for (guint i = 0; i < candidates->len; i++)
        {
          g_autoptr (SysprofElf) debug = try_debuglink_path (elf, g_ptr_array_index (candidates, i), crc);

          if (debug != NULL)
            {
              sysprof_elf_set_debug_file (elf, debug);
              return;
            }
        }
    }

  /* Last: over the network, only when nothing local answered. */
  if (self->debuginfod != NULL && build_id != NULL)
    {
      g_autofree char *path = NULL;
      int              fd = sysprof_debuginfod_find_debuginfo (self->debuginfod, build_id, host_path, &path, NULL);
      g_autoptr (SysprofElf) debug = try_build_id_fd (elf, fd, path);

      if (debug != NULL)
        sysprof_elf_set_debug_file (elf, debug);
    }
}

SysprofElf *
sysprof_elf_loader_load (SysprofElfLoader *self, const char *host_path, GError **error)
{
  g_autoptr (SysprofElf) elf = NULL;
  GError     *local_error = NULL;
  CacheEntry *entry;
  struct stat st;
  int         fd;

  g_return_val_if_fail (self != NULL, NULL);
  g_return_val_if_fail (host_path != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (stat (host_path, &st) != 0)
    {
      int errsv = errno;
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errsv), "%s: %s", host_path, g_strerror (errsv));
      return NULL;
    }

  if ((entry = g_hash_table_lookup (self->cache, host_path)) != NULL)
    {
      if (entry->elf != NULL && sysprof_elf_is_same_file (entry->elf, &st))
        return sysprof_elf_ref (entry->elf);
      if (entry->elf == NULL && same_stat (&entry->st, &st))
        {
          g_propagate_error (error, g_error_copy (entry->error));
          return NULL;
        }
    }

  if ((fd = open_candidate (host_path)) < 0)
    {
      int errsv = errno;
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errsv), "%s: %s", host_path, g_strerror (errsv));
      return NULL;
    }
  /* The file now open is the one to remember, should the path have changed
   * since the stat above. */
  if (fstat (fd, &st) != 0)
    memset (&st, 0, sizeof st);
  elf = sysprof_elf_new_from_fd (fd, host_path, &local_error);
  close (fd);

  entry = g_new0 (CacheEntry, 1);
  if (elf == NULL)
    {
      entry->error = g_error_copy (local_error);
      entry->st = st;
      g_hash_table_replace (self->cache, g_strdup (host_path), entry);
      g_propagate_error (error, local_error);
      return NULL;
    }

  attach_debug_file (self, elf, host_path);
  entry->elf = sysprof_elf_ref (elf);
  g_hash_table_replace (self->cache, g_strdup (host_path), entry);

  return g_steal_pointer (&elf);
}
