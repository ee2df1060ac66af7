// SPDX-License-Identifier: GPL-3.0-or-later
#include <gio/gio.h>
#include <string.h>

#include "sysprof-mount-namespace.h"

/* As the kernel's PATH_MAX: longer paths cannot come from it. */
#define PATH_MAX_LEN 4096
/* Six fixed fields, the optional ones (shared:N, master:N, propagate_from:N,
 * unbindable: a handful), "-" and three more. */
#define MAX_FIELDS 64
/* mountinfo prints MAJOR() and MINOR() of the kernel's 32-bit dev_t. */
#define MINOR_BITS 20
#define MAJOR_MAX  ((1u << (32 - MINOR_BITS)) - 1)
#define MINOR_MAX  ((1u << MINOR_BITS) - 1)

typedef struct
{
  SysprofMount m;
  guint        dev; /* major << MINOR_BITS | minor */
  /* Index + 1 of the next mount, in text order, on the same mount point /
   * the same device; 0 ends the chain.  The heads are in by_point / by_dev. */
  guint next_at_point;
  guint next_on_dev;
} Mount;

struct _SysprofMountTable
{
  gatomicrefcount ref_count;
  GBytes         *text; /* the key in live_tables */
  GArray         *mounts;
  GStringChunk   *strings;
  GHashTable     *by_point; /* mount point → GUINT_TO_POINTER (index + 1) */
  GHashTable     *by_dev;   /* GUINT_TO_POINTER (dev) → GUINT_TO_POINTER (index + 1) */
};

struct _SysprofMountNamespace
{
  gatomicrefcount        ref_count;
  SysprofMountTable     *process;
  SysprofMountTable     *host;
  SysprofMountExistsFunc exists;
  gpointer               exists_data;
  GDestroyNotify         exists_destroy;
};

/* Tables interned by their text, without owning them: a table leaves when
 * its last reference goes.  Both the last unref and every lookup that refs a
 * found table hold the lock, so a table is never revived after its count
 * reached zero. */
G_LOCK_DEFINE_STATIC (live_tables);
static GHashTable *live_tables;

static inline const Mount *
get_mount (const SysprofMountTable *table, guint index)
{
  return &g_array_index (table->mounts, Mount, index);
}

static gboolean
parse_u64 (const char *s, gsize len, guint64 max, guint64 *out)
{
  guint64 v = 0;

  if (len == 0 || len > 20)
    return FALSE;
  for (gsize i = 0; i < len; i++)
    {
      guint digit;

      if (s[i] < '0' || s[i] > '9')
        return FALSE;
      digit = (guint) (s[i] - '0');
      if (v > (max - digit) / 10)
        return FALSE;
      v = v * 10 + digit;
    }
  *out = v;
  return TRUE;
}

static gboolean
parse_dev (const char *s, gsize len, guint *dev)
{
  const char *colon = memchr (s, ':', len);
  guint64     major;
  guint64     minor;

  if (colon == NULL || !parse_u64 (s, (gsize) (colon - s), MAJOR_MAX, &major) ||
      !parse_u64 (colon + 1, len - (gsize) (colon - s) - 1, MINOR_MAX, &minor))
    return FALSE;
  *dev = (guint) (major << MINOR_BITS | minor);
  return TRUE;
}

/* The kernel escapes space, tab, newline and backslash as \ooo.  Anything
 * else after a backslash is kept as written, and so is \000, which would cut
 * the string short. */
static const char *
unescape (SysprofMountTable *table, GString *scratch, const char *s, gsize len)
{
  g_string_truncate (scratch, 0);
  for (gsize i = 0; i < len; i++)
    {
      if (s[i] == '\\' && i + 3 < len && s[i + 1] >= '0' && s[i + 1] <= '3' && s[i + 2] >= '0' && s[i + 2] <= '7' &&
          s[i + 3] >= '0' && s[i + 3] <= '7')
        {
          int c = (s[i + 1] - '0') * 64 + (s[i + 2] - '0') * 8 + (s[i + 3] - '0');

          if (c != 0)
            {
              g_string_append_c (scratch, (char) c);
              i += 3;
              continue;
            }
        }
      g_string_append_c (scratch, s[i]);
    }
  return g_string_chunk_insert_const (table->strings, scratch->str);
}

/* A field kept as written (the option lists). */
static const char *
field_string (SysprofMountTable *table, GString *scratch, const char *s, gsize len)
{
  g_string_truncate (scratch, 0);
  g_string_append_len (scratch, s, (gssize) len);
  return g_string_chunk_insert_const (table->strings, scratch->str);
}

typedef struct
{
  const char *s;
  gsize       len;
} Span;

/* "36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 - ext3 /dev/root rw,errors=continue":
 * six fixed fields, optional fields up to a lone "-", then exactly three more.
 * Fields are separated by one space each; an empty one (an empty source) is a
 * field. */
static void
parse_line (SysprofMountTable *table, GString *scratch, const char *line, gsize len)
{
  Span        fields[MAX_FIELDS];
  const char *end = line + len;
  const char *p = line;
  guint       n_fields = 0;
  guint       sep;
  Mount       mount = { 0 };

  /* A NUL cannot be in a path the kernel wrote. */
  if (len == 0 || memchr (line, 0, len) != NULL)
    return;

  for (;;)
    {
      const char *space = memchr (p, ' ', (gsize) (end - p));
      const char *field_end = space ? space : end;

      if (n_fields == MAX_FIELDS)
        return;
      fields[n_fields].s = p;
      fields[n_fields].len = (gsize) (field_end - p);
      n_fields++;
      if (space == NULL)
        break;
      p = space + 1;
    }

  if (n_fields < 10)
    return;
  for (sep = 6; sep < n_fields; sep++)
    if (fields[sep].len == 1 && fields[sep].s[0] == '-')
      break;
  if (sep + 4 != n_fields)
    return;

  /* The kernel prints mount ids as ints. */
  if (!parse_u64 (fields[0].s, fields[0].len, G_MAXINT32, &mount.m.mount_id) ||
      !parse_u64 (fields[1].s, fields[1].len, G_MAXINT32, &mount.m.parent_id) ||
      !parse_dev (fields[2].s, fields[2].len, &mount.dev))
    return;
  if (fields[3].len == 0 || fields[4].len == 0 || fields[4].s[0] != '/' || fields[sep + 1].len == 0)
    return;

  mount.m.major = mount.dev >> MINOR_BITS;
  mount.m.minor = mount.dev & MINOR_MAX;
  mount.m.root = unescape (table, scratch, fields[3].s, fields[3].len);
  mount.m.mount_point = unescape (table, scratch, fields[4].s, fields[4].len);
  mount.m.options = field_string (table, scratch, fields[5].s, fields[5].len);
  mount.m.fstype = unescape (table, scratch, fields[sep + 1].s, fields[sep + 1].len);
  mount.m.source = unescape (table, scratch, fields[sep + 2].s, fields[sep + 2].len);
  mount.m.super_options = field_string (table, scratch, fields[sep + 3].s, fields[sep + 3].len);
  g_array_append_val (table->mounts, mount);
}

/* Chains are built backwards so that each one runs in text order. */
static void
build_indexes (SysprofMountTable *table)
{
  for (guint i = table->mounts->len; i > 0; i--)
    {
      Mount   *mount = &g_array_index (table->mounts, Mount, i - 1);
      gpointer dev_key = GUINT_TO_POINTER (mount->dev);

      mount->next_at_point = GPOINTER_TO_UINT (g_hash_table_lookup (table->by_point, mount->m.mount_point));
      g_hash_table_insert (table->by_point, (gpointer) mount->m.mount_point, GUINT_TO_POINTER (i));
      mount->next_on_dev = GPOINTER_TO_UINT (g_hash_table_lookup (table->by_dev, dev_key));
      g_hash_table_insert (table->by_dev, dev_key, GUINT_TO_POINTER (i));
    }
}

static SysprofMountTable *
table_parse (const char *text, gsize len)
{
  SysprofMountTable *table = g_new0 (SysprofMountTable, 1);
  g_autoptr (GString) scratch = g_string_new (NULL);
  const char *end = text + len;
  const char *line = text;

  g_atomic_ref_count_init (&table->ref_count);
  table->text = g_bytes_new (text, len);
  table->mounts = g_array_new (FALSE, FALSE, sizeof (Mount));
  table->strings = g_string_chunk_new (1024);
  table->by_point = g_hash_table_new (g_str_hash, g_str_equal);
  table->by_dev = g_hash_table_new (NULL, NULL);

  while (line < end)
    {
      const char *nl = memchr (line, '\n', (gsize) (end - line));
      const char *line_end = nl ? nl : end;

      parse_line (table, scratch, line, (gsize) (line_end - line));
      line = line_end + 1;
    }
  build_indexes (table);
  return table;
}

static void
table_free (SysprofMountTable *table)
{
  g_bytes_unref (table->text);
  g_array_unref (table->mounts);
  g_string_chunk_free (table->strings);
  g_hash_table_unref (table->by_point);
  g_hash_table_unref (table->by_dev);
  g_free (table);
}

SysprofMountTable *
sysprof_mount_table_new (const char *mountinfo, gsize len)
{
  g_autoptr (GBytes) key = NULL;
  SysprofMountTable *table;
  SysprofMountTable *other;

  g_return_val_if_fail (mountinfo != NULL || len == 0, NULL);

  if (mountinfo == NULL)
    mountinfo = "";
  key = g_bytes_new_static (mountinfo, len);

  G_LOCK (live_tables);
  if (live_tables != NULL && (table = g_hash_table_lookup (live_tables, key)) != NULL)
    {
      g_atomic_ref_count_inc (&table->ref_count);
      G_UNLOCK (live_tables);
      return table;
    }
  G_UNLOCK (live_tables);

  /* Parsed outside the lock; another thread may have interned the same text
   * meanwhile, and then its table wins. */
  table = table_parse (mountinfo, len);

  G_LOCK (live_tables);
  if (live_tables == NULL)
    live_tables = g_hash_table_new (g_bytes_hash, g_bytes_equal);
  if ((other = g_hash_table_lookup (live_tables, key)) != NULL)
    g_atomic_ref_count_inc (&other->ref_count);
  else
    g_hash_table_insert (live_tables, table->text, table);
  G_UNLOCK (live_tables);

  if (other != NULL)
    {
      table_free (table);
      return other;
    }
  return table;
}

SysprofMountTable *
sysprof_mount_table_new_for_self (GError **error)
{
  g_autoptr (GError) local_error = NULL;
  g_autofree char *text = NULL;
  gsize            len = 0;

  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!g_file_get_contents ("/proc/self/mountinfo", &text, &len, &local_error))
    {
      g_set_error (error, G_IO_ERROR, g_io_error_from_file_error (local_error->code),
                   "Cannot read /proc/self/mountinfo: %s", local_error->message);
      return NULL;
    }
  return sysprof_mount_table_new (text, len);
}

SysprofMountTable *
sysprof_mount_table_ref (SysprofMountTable *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  g_atomic_ref_count_inc (&self->ref_count);
  return self;
}

void
sysprof_mount_table_unref (SysprofMountTable *self)
{
  if (self == NULL)
    return;

  G_LOCK (live_tables);
  if (!g_atomic_ref_count_dec (&self->ref_count))
    {
      G_UNLOCK (live_tables);
      return;
    }
  if (live_tables != NULL && g_hash_table_lookup (live_tables, self->text) == self)
    {
      g_hash_table_remove (live_tables, self->text);
      if (g_hash_table_size (live_tables) == 0)
        g_clear_pointer (&live_tables, g_hash_table_unref);
    }
  G_UNLOCK (live_tables);
  table_free (self);
}

guint
sysprof_mount_table_get_n_mounts (SysprofMountTable *self)
{
  g_return_val_if_fail (self != NULL, 0);

  return self->mounts->len;
}

const SysprofMount *
sysprof_mount_table_get_mount (SysprofMountTable *self, guint index)
{
  g_return_val_if_fail (self != NULL, NULL);
  g_return_val_if_fail (index < self->mounts->len, NULL);

  return &get_mount (self, index)->m;
}

/* Which of the mounts on @point the walk enters, coming from the mount
 * @current (-1: none yet).  Coming from a mount, only one attached to it
 * counts (the latest if several); any other is covered.  Coming from none
 * (the top of the walk, or a chroot whose root is no mount of its own), the
 * bottom of the stack: one not attached to another mount on @point.  Then up
 * the stack of mounts attached to the one entered, on the same point.  Every
 * step is bounded by the chain's length, whatever cycles a hostile text
 * makes of parent ids. */
static int
enter_mount_point (const SysprofMountTable *table, const char *point, int current)
{
  guint head = GPOINTER_TO_UINT (g_hash_table_lookup (table->by_point, point));
  guint chain_len = 0;
  int   entered = -1;

  if (head == 0)
    return current;
  for (guint i = head; i != 0; i = get_mount (table, i - 1)->next_at_point)
    chain_len++;

  if (current < 0)
    {
      for (guint i = head; i != 0 && entered < 0; i = get_mount (table, i - 1)->next_at_point)
        {
          gboolean attached = FALSE;

          for (guint j = head; j != 0 && !attached; j = get_mount (table, j - 1)->next_at_point)
            attached = j != i && get_mount (table, j - 1)->m.mount_id == get_mount (table, i - 1)->m.parent_id;
          if (!attached)
            entered = (int) i - 1;
        }
      if (entered < 0)
        entered = (int) head - 1;
    }
  else
    entered = current;

  for (guint step = 0; step <= chain_len; step++)
    {
      guint64 below_id = get_mount (table, (guint) entered)->m.mount_id;
      int     above = -1;

      for (guint i = head; i != 0; i = get_mount (table, i - 1)->next_at_point)
        if ((int) i - 1 != entered && get_mount (table, i - 1)->m.parent_id == below_id)
          above = (int) i - 1;
      if (above < 0)
        break;
      entered = above;
    }
  return entered;
}

/* The index of the mount that @path (normalized, absolute) lies on as the
 * table's owner sees it, or -1. */
static int
find_holder (const SysprofMountTable *table, const char *path)
{
  g_autofree char *prefix = NULL;
  int              current;

  if (table->mounts->len == 0)
    return -1;

  current = enter_mount_point (table, "/", -1);
  prefix = g_strdup (path);
  for (char *p = prefix + 1;; p++)
    {
      char c = *p;

      if (c != '/' && c != 0)
        continue;
      if (p > prefix + 1)
        {
          *p = 0;
          current = enter_mount_point (table, prefix, current);
          *p = c;
        }
      if (c == 0)
        break;
    }
  return current;
}

/* @path without repeated slashes, "." and ".." (lexically; never above
 * "/"), or NULL when it is not absolute or longer than the kernel allows. */
static char *
normalize (const char *path)
{
  GString *out;

  if (path[0] != '/' || strlen (path) >= PATH_MAX_LEN)
    return NULL;

  out = g_string_sized_new (strlen (path));
  for (const char *p = path; *p;)
    {
      const char *name;
      gsize       len;

      while (*p == '/')
        p++;
      name = p;
      while (*p && *p != '/')
        p++;
      len = (gsize) (p - name);

      if (len == 0 || (len == 1 && name[0] == '.'))
        continue;
      if (len == 2 && name[0] == '.' && name[1] == '.')
        {
          const char *slash = strrchr (out->str, '/');

          g_string_truncate (out, slash ? (gsize) (slash - out->str) : 0);
          continue;
        }
      g_string_append_c (out, '/');
      g_string_append_len (out, name, (gssize) len);
    }
  if (out->len == 0)
    g_string_append_c (out, '/');
  return g_string_free (out, FALSE);
}

/* The part of @path below @dir ("" or "/x/y"), or NULL when @path is neither
 * @dir nor inside it.  Roots that are not paths (nsfs's "net:[4026531840]")
 * never match. */
const char *
sysprof_mount_path_below (const char *path, const char *dir)
{
  gsize len;

  if (dir[0] == '/' && dir[1] == 0)
    return path[0] == '/' ? path + (path[1] == 0) : NULL;
  len = strlen (dir);
  if (strncmp (path, dir, len) != 0 || (path[len] != 0 && path[len] != '/'))
    return NULL;
  return path + len;
}

char *
sysprof_mount_path_join (const char *dir, const char *rest)
{
  if (rest[0] == 0)
    return g_strdup (dir);
  if (dir[0] == '/' && dir[1] == 0)
    return g_strdup (rest);
  return g_strconcat (dir, rest, NULL);
}

SysprofMountNamespace *
sysprof_mount_namespace_new_with_host (const char *process_mountinfo, gsize process_len, SysprofMountTable *host)
{
  SysprofMountNamespace *self;

  g_return_val_if_fail (process_mountinfo != NULL || process_len == 0, NULL);
  g_return_val_if_fail (host != NULL, NULL);

  self = g_new0 (SysprofMountNamespace, 1);
  g_atomic_ref_count_init (&self->ref_count);
  self->process = sysprof_mount_table_new (process_mountinfo, process_len);
  self->host = sysprof_mount_table_ref (host);
  return self;
}

SysprofMountNamespace *
sysprof_mount_namespace_new (const char *process_mountinfo,
                             gsize       process_len,
                             const char *host_mountinfo,
                             gsize       host_len)
{
  g_autoptr (SysprofMountTable) host = NULL;

  g_return_val_if_fail (process_mountinfo != NULL || process_len == 0, NULL);

  if (host_mountinfo != NULL)
    host = sysprof_mount_table_new (host_mountinfo, host_len);
  else if ((host = sysprof_mount_table_new_for_self (NULL)) == NULL)
    host = sysprof_mount_table_new ("", 0);
  return sysprof_mount_namespace_new_with_host (process_mountinfo, process_len, host);
}

SysprofMountNamespace *
sysprof_mount_namespace_ref (SysprofMountNamespace *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  g_atomic_ref_count_inc (&self->ref_count);
  return self;
}

void
sysprof_mount_namespace_unref (SysprofMountNamespace *self)
{
  if (self == NULL || !g_atomic_ref_count_dec (&self->ref_count))
    return;
  if (self->exists_destroy != NULL)
    self->exists_destroy (self->exists_data);
  sysprof_mount_table_unref (self->process);
  sysprof_mount_table_unref (self->host);
  g_free (self);
}

void
sysprof_mount_namespace_set_exists_func (SysprofMountNamespace *self,
                                         SysprofMountExistsFunc func,
                                         gpointer               user_data,
                                         GDestroyNotify         destroy)
{
  GDestroyNotify old_destroy;
  gpointer       old_data;

  g_return_if_fail (self != NULL);

  old_destroy = self->exists_destroy;
  old_data = self->exists_data;
  self->exists = func;
  self->exists_data = user_data;
  self->exists_destroy = destroy;
  if (old_destroy != NULL)
    old_destroy (old_data);
}

typedef struct
{
  guint    index;
  gsize    root_len;
  gboolean same_mount;
} Candidate;

static int
compare_candidates (gconstpointer a, gconstpointer b)
{
  const Candidate *ca = a;
  const Candidate *cb = b;

  if (ca->same_mount != cb->same_mount)
    return ca->same_mount ? -1 : 1;
  if (ca->root_len != cb->root_len)
    return ca->root_len > cb->root_len ? -1 : 1;
  /* A later mount of the same directory is the one in use. */
  return ca->index > cb->index ? -1 : (ca->index < cb->index ? 1 : 0);
}

char **
sysprof_mount_table_find_host_paths (SysprofMountTable     *host,
                                     const SysprofMount    *holder,
                                     const char            *fs_path,
                                     SysprofMountExistsFunc exists,
                                     gpointer               user_data)
{
  g_autoptr (GPtrArray) out = g_ptr_array_new_null_terminated (0, g_free, TRUE);
  g_autoptr (GArray) candidates = g_array_new (FALSE, FALSE, sizeof (Candidate));
  guint dev;

  g_return_val_if_fail (host != NULL, NULL);
  g_return_val_if_fail (holder != NULL, NULL);
  g_return_val_if_fail (fs_path != NULL, NULL);

  if (holder->major > MAJOR_MAX || holder->minor > MINOR_MAX)
    return (char **) g_ptr_array_free (g_steal_pointer (&out), FALSE);
  dev = holder->major << MINOR_BITS | holder->minor;
  /* Host mounts of that file system showing a directory above it. */
  for (guint i = GPOINTER_TO_UINT (g_hash_table_lookup (host->by_dev, GUINT_TO_POINTER (dev))); i != 0;
       i = get_mount (host, i - 1)->next_on_dev)
    {
      const Mount *mount = get_mount (host, i - 1);
      Candidate    candidate = { i - 1, strlen (mount->m.root), mount->m.mount_id == holder->mount_id };

      if (sysprof_mount_path_below (fs_path, mount->m.root) != NULL)
        g_array_append_val (candidates, candidate);
    }
  g_array_sort (candidates, compare_candidates);

  for (guint i = 0; i < candidates->len; i++)
    {
      guint            index = g_array_index (candidates, Candidate, i).index;
      const Mount     *mount = get_mount (host, index);
      g_autofree char *host_path =
          sysprof_mount_path_join (mount->m.mount_point, sysprof_mount_path_below (fs_path, mount->m.root));

      /* Where the host would look it up: through another mount covering
       * this one, it is another file.  This also leaves each host path once,
       * as it has one holder. */
      if (find_holder (host, host_path) != (int) index)
        continue;
      if (exists != NULL && !exists (host_path, user_data))
        continue;
      g_ptr_array_add (out, g_steal_pointer (&host_path));
    }
  return (char **) g_ptr_array_free (g_steal_pointer (&out), FALSE);
}

char **
sysprof_mount_namespace_translate (SysprofMountNamespace *self, const char *path)
{
  g_autoptr (GPtrArray) out = g_ptr_array_new_null_terminated (0, g_free, TRUE);
  g_autofree char *normalized = NULL;
  g_autofree char *fs_path = NULL;
  const Mount     *holder;
  int              holder_index;

  g_return_val_if_fail (self != NULL, NULL);
  g_return_val_if_fail (path != NULL, NULL);

  /* Step 2: the process's mount and the path inside its file system. */
  if ((normalized = normalize (path)) == NULL || (holder_index = find_holder (self->process, normalized)) < 0)
    return (char **) g_ptr_array_free (g_steal_pointer (&out), FALSE);
  holder = get_mount (self->process, (guint) holder_index);
  if (holder->m.root[0] != '/')
    return (char **) g_ptr_array_free (g_steal_pointer (&out), FALSE);
  fs_path = sysprof_mount_path_join (holder->m.root, sysprof_mount_path_below (normalized, holder->m.mount_point));

  /* Step 3. */
  return sysprof_mount_table_find_host_paths (self->host, &holder->m, fs_path, self->exists, self->exists_data);
}
