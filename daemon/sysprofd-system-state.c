// SPDX-License-Identifier: GPL-3.0-or-later
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "sysprofd-dispatcher.h"
#include "sysprofd-system-state.h"

#define PARANOID_PATH "/proc/sys/kernel/perf_event_paranoid"
#define CPU_DIR       "/sys/devices/system/cpu"
#define STATE_FILE    "saved-settings"
#define VALUE_MAX     4096

typedef enum
{
  SETTING_PARANOID,
  SETTING_GOVERNOR,
  N_SETTINGS
} Setting;

static GMutex lock;
static char  *state_path;
/* The original values, while changed. */
static gboolean    paranoid_saved;
static int         paranoid_original;
static GHashTable *governors_original; /* "cpuN" -> governor, while changed */
/* Bus names that changed a setting -> name watch id, per setting. */
static GHashTable *holders[N_SETTINGS];

static gboolean
read_value (const char *path, char **value, GError **error)
{
  g_autofree char *contents = NULL;
  gsize            len;

  if (!g_file_get_contents (path, &contents, &len, error))
    return FALSE;
  if (len > VALUE_MAX)
    {
      g_set_error (error, G_DBUS_ERROR, G_DBUS_ERROR_FAILED, "%s is unexpectedly large", path);
      return FALSE;
    }
  *value = g_strdup (g_strstrip (contents));
  return TRUE;
}

/* In place: sysfs and procfs files cannot be replaced by a rename. */
static gboolean
write_value (const char *path, const char *value, GError **error)
{
  g_autofree char *line = g_strdup_printf ("%s\n", value);
  gsize            len = strlen (line);
  int              fd = open (path, O_WRONLY | O_CLOEXEC | O_NOCTTY);
  ssize_t          n = -1;

  if (fd >= 0)
    {
      do
        n = write (fd, line, len);
      while (n < 0 && errno == EINTR);
    }
  if (fd < 0 || n != (ssize_t) len)
    {
      int saved = errno;

      if (fd >= 0)
        close (fd);
      g_set_error (error, G_DBUS_ERROR, G_DBUS_ERROR_FAILED, "Cannot write %s: %s", path, g_strerror (saved));
      return FALSE;
    }
  close (fd);
  return TRUE;
}

static char *
governor_path (const char *cpu)
{
  return g_strdup_printf (CPU_DIR "/%s/cpufreq/scaling_governor", cpu);
}

/* "cpuN" of every CPU with frequency scaling. */
static GPtrArray *
list_scaling_cpus (void)
{
  g_autoptr (GDir) dir = g_dir_open (CPU_DIR, 0, NULL);
  GPtrArray  *cpus = g_ptr_array_new_with_free_func (g_free);
  const char *name;

  while (dir && (name = g_dir_read_name (dir)))
    {
      g_autofree char *path = NULL;
      const char      *p;

      if (!g_str_has_prefix (name, "cpu") || name[3] == 0)
        continue;
      for (p = name + 3; *p && g_ascii_isdigit (*p); p++)
        ;
      if (*p != 0)
        continue;
      path = governor_path (name);
      if (g_file_test (path, G_FILE_TEST_EXISTS))
        g_ptr_array_add (cpus, g_strdup (name));
    }
  return cpus;
}

/* The state file says what to put back if we die: written before a change,
 * removed once nothing is changed any more.  Under the lock. */
static void
save_state_locked (void)
{
  g_autoptr (GKeyFile) keys = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *data = NULL;
  GHashTableIter   iter;
  gpointer         key, value;

  if (state_path == NULL)
    return;
  if (!paranoid_saved && (governors_original == NULL || g_hash_table_size (governors_original) == 0))
    {
      if (g_unlink (state_path) != 0 && errno != ENOENT)
        g_warning ("Cannot remove %s: %s", state_path, g_strerror (errno));
      return;
    }
  keys = g_key_file_new ();
  if (paranoid_saved)
    g_key_file_set_integer (keys, "paranoid", "original", paranoid_original);
  if (governors_original != NULL)
    {
      g_hash_table_iter_init (&iter, governors_original);
      while (g_hash_table_iter_next (&iter, &key, &value))
        g_key_file_set_string (keys, "governor", key, value);
    }
  data = g_key_file_to_data (keys, NULL, NULL);
  if (!g_file_set_contents_full (state_path, data, -1, G_FILE_SET_CONTENTS_CONSISTENT, 0600, &error))
    g_warning ("Cannot save the original settings in %s: %s (a crash would leave them changed)", state_path,
               error->message);
}

static void
restore_paranoid_locked (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *value = NULL;

  if (!paranoid_saved)
    return;
  value = g_strdup_printf ("%d", paranoid_original);
  if (!write_value (PARANOID_PATH, value, &error))
    g_warning ("Cannot restore kernel.perf_event_paranoid: %s", error->message);
  else
    g_message ("Restored kernel.perf_event_paranoid to %d", paranoid_original);
  paranoid_saved = FALSE;
}

static void
restore_governors_locked (void)
{
  GHashTableIter iter;
  gpointer       key, value;

  if (governors_original == NULL)
    return;
  g_hash_table_iter_init (&iter, governors_original);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      g_autoptr (GError) error = NULL;
      g_autofree char *path = governor_path (key);

      if (!write_value (path, value, &error))
        g_warning ("Cannot restore the governor of %s: %s", (char *) key, error->message);
    }
  if (g_hash_table_size (governors_original) > 0)
    g_message ("Restored the CPU frequency governors");
  g_hash_table_remove_all (governors_original);
}

static void
unwatch (gpointer id)
{
  g_bus_unwatch_name (GPOINTER_TO_UINT (id));
}

void
sysprofd_system_state_init (const char *state_dir)
{
  g_autoptr (GKeyFile) keys = g_key_file_new ();
  g_autoptr (GError) error = NULL;

  g_mutex_lock (&lock);
  for (guint i = 0; i < N_SETTINGS; i++)
    if (holders[i] == NULL)
      holders[i] = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, unwatch);
  if (governors_original == NULL)
    governors_original = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  g_clear_pointer (&state_path, g_free);
  if (state_dir != NULL)
    {
      if (g_mkdir_with_parents (state_dir, 0700) != 0)
        g_warning ("Cannot create %s: %s (settings changed for callers could not be restored after a crash)", state_dir,
                   g_strerror (errno));
      state_path = g_build_filename (state_dir, STATE_FILE, NULL);
    }

  /* What a daemon that died left changed. */
  if (state_path != NULL && g_key_file_load_from_file (keys, state_path, G_KEY_FILE_NONE, &error))
    {
      g_auto (GStrv) cpus = NULL;
      g_autoptr (GError) int_error = NULL;
      int value = g_key_file_get_integer (keys, "paranoid", "original", &int_error);

      g_message ("Restoring the settings an earlier sysprofd changed and did not restore (%s)", state_path);
      if (int_error == NULL)
        {
          paranoid_saved = TRUE;
          paranoid_original = CLAMP (value, -1, 4);
        }
      cpus = g_key_file_get_keys (keys, "governor", NULL, NULL);
      for (guint i = 0; cpus && cpus[i]; i++)
        {
          g_autofree char *governor = g_key_file_get_string (keys, "governor", cpus[i], NULL);

          /* The file is ours, but a name is only a CPU and a governor only a word. */
          if (governor != NULL && g_str_has_prefix (cpus[i], "cpu") && strchr (cpus[i], '/') == NULL &&
              strpbrk (governor, "/\n") == NULL)
            g_hash_table_insert (governors_original, g_strdup (cpus[i]), g_steal_pointer (&governor));
        }
      restore_paranoid_locked ();
      restore_governors_locked ();
      save_state_locked ();
    }
  else if (error != NULL && !g_error_matches (error, G_FILE_ERROR, G_FILE_ERROR_NOENT))
    g_warning ("Cannot read %s: %s", state_path, error->message);
  g_mutex_unlock (&lock);
}

void
sysprofd_system_state_restore_all (void)
{
  g_mutex_lock (&lock);
  restore_paranoid_locked ();
  restore_governors_locked ();
  for (guint i = 0; i < N_SETTINGS; i++)
    if (holders[i] != NULL)
      g_hash_table_remove_all (holders[i]);
  save_state_locked ();
  g_mutex_unlock (&lock);
}

typedef struct
{
  GDBusConnection *connection;
  char            *holder;
  Setting          setting;
} WatchRequest;

static void
holder_vanished (GDBusConnection *connection, const char *name, gpointer data)
{
  Setting setting = GPOINTER_TO_UINT (data);

  (void) connection;
  g_mutex_lock (&lock);
  /* Removing the watch from within its own callback is allowed. */
  g_hash_table_remove (holders[setting], name);
  if (g_hash_table_size (holders[setting]) == 0)
    {
      if (setting == SETTING_PARANOID)
        restore_paranoid_locked ();
      else
        restore_governors_locked ();
      save_state_locked ();
    }
  g_mutex_unlock (&lock);
}

/* Name watches belong to the main context; the calls run on workers. */
static gboolean
add_holder_cb (gpointer data)
{
  WatchRequest *req = data;
  gboolean      changed;

  g_mutex_lock (&lock);
  changed = req->setting == SETTING_PARANOID ? paranoid_saved : g_hash_table_size (governors_original) > 0;
  if (changed && !g_hash_table_contains (holders[req->setting], req->holder))
    {
      guint id = g_bus_watch_name_on_connection (req->connection, req->holder, G_BUS_NAME_WATCHER_FLAGS_NONE, NULL,
                                                 holder_vanished, GUINT_TO_POINTER (req->setting), NULL);

      g_hash_table_insert (holders[req->setting], g_strdup (req->holder), GUINT_TO_POINTER (id));
    }
  g_mutex_unlock (&lock);

  g_object_unref (req->connection);
  g_free (req->holder);
  g_free (req);
  return G_SOURCE_REMOVE;
}

static void
add_holder (GDBusConnection *connection, const char *holder, Setting setting)
{
  WatchRequest *req = g_new0 (WatchRequest, 1);

  req->connection = g_object_ref (connection);
  req->holder = g_strdup (holder);
  req->setting = setting;
  sysprofd_run_in_main (add_holder_cb, req);
}

gboolean
sysprofd_system_state_set_paranoid (
    GDBusConnection *connection, const char *holder, int value, int *old, GError **error)
{
  g_autofree char *current = NULL;
  g_autofree char *text = NULL;
  char            *end;
  gint64           v;

  value = CLAMP (value, -1, 2);
  g_mutex_lock (&lock);
  if (!read_value (PARANOID_PATH, &current, error))
    {
      g_mutex_unlock (&lock);
      return FALSE;
    }
  v = g_ascii_strtoll (current, &end, 10);
  if (end == current || *end != 0 || v < G_MININT || v > G_MAXINT)
    {
      g_mutex_unlock (&lock);
      g_set_error (error, G_DBUS_ERROR, G_DBUS_ERROR_FAILED, "%s does not hold a number", PARANOID_PATH);
      return FALSE;
    }
  *old = (int) v;
  if (*old != value)
    {
      /* Saved before the change: a crash right after it still restores. */
      if (!paranoid_saved)
        {
          paranoid_saved = TRUE;
          paranoid_original = *old;
          save_state_locked ();
        }
      text = g_strdup_printf ("%d", value);
      if (!write_value (PARANOID_PATH, text, error))
        {
          g_mutex_unlock (&lock);
          return FALSE;
        }
      g_message ("kernel.perf_event_paranoid %d -> %d for %s", *old, value, holder);
    }
  g_mutex_unlock (&lock);
  if (paranoid_saved)
    add_holder (connection, holder, SETTING_PARANOID);
  return TRUE;
}

gboolean
sysprofd_system_state_set_governor (
    GDBusConnection *connection, const char *holder, const char *governor, char **old, GError **error)
{
  g_autoptr (GPtrArray) cpus = list_scaling_cpus ();
  g_autofree char *available = NULL;
  g_autofree char *first = NULL;
  g_autofree char *path = NULL;
  g_auto (GStrv) names = NULL;
  gboolean valid = FALSE;

  if (cpus->len == 0)
    {
      /* No frequency scaling (as in most VMs): nothing to change. */
      *old = g_strdup ("unknown");
      return TRUE;
    }
  path = g_strdup_printf (CPU_DIR "/%s/cpufreq/scaling_available_governors", (char *) cpus->pdata[0]);
  if (!read_value (path, &available, error))
    return FALSE;
  names = g_strsplit_set (available, " \t\n", -1);
  for (guint i = 0; names[i]; i++)
    valid |= names[i][0] && g_strcmp0 (names[i], governor) == 0;
  if (!valid)
    {
      g_autofree char *shown = g_utf8_make_valid (governor, -1);

      g_set_error (error, G_DBUS_ERROR, G_DBUS_ERROR_INVALID_ARGS, "Unknown CPU governor \"%s\"; available: %s", shown,
                   available);
      return FALSE;
    }

  g_mutex_lock (&lock);
  for (guint i = 0; i < cpus->len; i++)
    {
      g_autofree char *gpath = governor_path (cpus->pdata[i]);
      g_autofree char *current = NULL;

      if (!read_value (gpath, &current, error))
        goto fail;
      if (first == NULL)
        first = g_strdup (current);
      if (g_str_equal (current, governor))
        continue;
      if (!g_hash_table_contains (governors_original, cpus->pdata[i]))
        {
          g_hash_table_insert (governors_original, g_strdup (cpus->pdata[i]), g_strdup (current));
          save_state_locked ();
        }
      if (!write_value (gpath, governor, error))
        goto fail;
    }
  g_mutex_unlock (&lock);
  if (g_hash_table_size (governors_original) > 0)
    add_holder (connection, holder, SETTING_GOVERNOR);
  *old = g_steal_pointer (&first);
  return TRUE;

fail:
  g_mutex_unlock (&lock);
  if (g_hash_table_size (governors_original) > 0)
    add_holder (connection, holder, SETTING_GOVERNOR);
  return FALSE;
}
