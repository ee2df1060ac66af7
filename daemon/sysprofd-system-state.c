// SPDX-License-Identifier: GPL-3.0-or-later
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "sysprofd-system-state.h"

#define PARANOID_PATH "/proc/sys/kernel/perf_event_paranoid"
#define PARANOID_NAME "kernel.perf_event_paranoid"
#define CPU_DIR       "/sys/devices/system/cpu"
#define STATE_FILE    "saved-settings"
/* A procfs or sysfs value is one short line. */
#define VALUE_MAX 4096
/* A line per CPU: far below this even with thousands of CPUs. */
#define STATE_MAX (1024 * 1024)
/* The kernel's CPUFREQ_NAME_LEN, which counts the NUL. */
#define GOVERNOR_NAME_MAX 16

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
/* Bus names that asked for a setting -> their name watch id, per setting.
 * A name is added under the lock by the call that changed the setting; its
 * watch, which belongs to the main context, follows (0 until then). */
static GHashTable *holders[N_SETTINGS];

/* "cpu" and a CPU number: the only directory names ever used below CPU_DIR. */
static gboolean
is_cpu_name (const char *name)
{
  const char *p;

  if (!g_str_has_prefix (name, "cpu") || name[3] == 0 || strlen (name) > 3 + 10)
    return FALSE;
  for (p = name + 3; g_ascii_isdigit (*p); p++)
    ;
  return *p == 0;
}

/* A word as the kernel names governors; never a path, a space or a newline. */
static gboolean
is_governor_name (const char *name)
{
  gsize len = strlen (name);

  if (len == 0 || len >= GOVERNOR_NAME_MAX)
    return FALSE;
  for (const char *p = name; *p; p++)
    if (!g_ascii_isalnum (*p) && *p != '_' && *p != '-')
      return FALSE;
  return TRUE;
}

/* Opens @attr of @cpu's cpufreq beneath CPU_DIR.  The kernel links cpuN/cpufreq
 * to ../cpufreq/policyM, which stays beneath it; a link leading anywhere else
 * is refused, so no write can land outside CPU_DIR. */
static int
open_cpu_attr (const char *cpu, const char *attr, int flags)
{
  g_autofree char *below = g_strdup_printf ("%s/cpufreq/%s", cpu, attr);
  struct open_how  how = {
     .flags = (guint64) flags | O_CLOEXEC,
     .resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV,
  };
  int dir_fd, fd, saved;

  g_assert (is_cpu_name (cpu));
  dir_fd = open (CPU_DIR, O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd < 0)
    return -1;
  fd = (int) syscall (SYS_openat2, dir_fd, below, &how, sizeof how);
  saved = errno;
  close (dir_fd);
  errno = saved;
  return fd;
}

/* Reads the one-line value of the open @fd (closed here), stripped. */
static gboolean
read_fd_value (int fd, const char *what, char **value, GError **error)
{
  char  buf[VALUE_MAX + 1];
  gsize len = 0;

  if (fd < 0)
    {
      int saved = errno;

      g_set_error (error, G_DBUS_ERROR, G_DBUS_ERROR_FAILED, "Cannot open %s: %s", what, g_strerror (saved));
      return FALSE;
    }
  while (len < sizeof buf)
    {
      ssize_t n = read (fd, buf + len, sizeof buf - len);

      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        {
          int saved = errno;

          close (fd);
          g_set_error (error, G_DBUS_ERROR, G_DBUS_ERROR_FAILED, "Cannot read %s: %s", what, g_strerror (saved));
          return FALSE;
        }
      if (n == 0)
        break;
      len += (gsize) n;
    }
  close (fd);
  if (len > VALUE_MAX)
    {
      g_set_error (error, G_DBUS_ERROR, G_DBUS_ERROR_FAILED, "%s is unexpectedly large", what);
      return FALSE;
    }
  buf[len] = 0;
  *value = g_strdup (g_strstrip (buf));
  return TRUE;
}

/* Writes @value and a newline to the open @fd (closed here) in one write, as
 * procfs and sysfs want.  @fd was opened with O_TRUNC, as `echo >` does:
 * nothing to those files, but a regular file (a test's stand-in for sysfs)
 * would otherwise keep the tail of a longer value. */
static gboolean
write_fd_value (int fd, const char *what, const char *value, GError **error)
{
  g_autofree char *line = g_strdup_printf ("%s\n", value);
  gsize            len = strlen (line);
  ssize_t          n;
  int              saved;

  if (fd < 0)
    {
      saved = errno;
      g_set_error (error, G_DBUS_ERROR, G_DBUS_ERROR_FAILED, "Cannot open %s: %s", what, g_strerror (saved));
      return FALSE;
    }
  do
    n = write (fd, line, len);
  while (n < 0 && errno == EINTR);
  saved = n < 0 ? errno : EIO;
  close (fd);
  if (n != (ssize_t) len)
    {
      g_set_error (error, G_DBUS_ERROR, G_DBUS_ERROR_FAILED, "Cannot write %s: %s", what, g_strerror (saved));
      return FALSE;
    }
  return TRUE;
}

static gboolean
read_paranoid (int *value, GError **error)
{
  g_autofree char *text = NULL;
  gint64           v;

  if (!read_fd_value (open (PARANOID_PATH, O_RDONLY | O_CLOEXEC | O_NOCTTY), PARANOID_PATH, &text, error))
    return FALSE;
  if (!g_ascii_string_to_signed (text, 10, G_MININT, G_MAXINT, &v, NULL))
    {
      g_set_error (error, G_DBUS_ERROR, G_DBUS_ERROR_FAILED, "%s does not hold a number", PARANOID_PATH);
      return FALSE;
    }
  *value = (int) v;
  return TRUE;
}

static gboolean
write_paranoid (int value, GError **error)
{
  g_autofree char *text = g_strdup_printf ("%d", value);

  return write_fd_value (open (PARANOID_PATH, O_WRONLY | O_TRUNC | O_CLOEXEC | O_NOCTTY), PARANOID_PATH, text, error);
}

static gboolean
read_cpu_attr (const char *cpu, const char *attr, char **value, GError **error)
{
  g_autofree char *what = g_strdup_printf (CPU_DIR "/%s/cpufreq/%s", cpu, attr);

  return read_fd_value (open_cpu_attr (cpu, attr, O_RDONLY), what, value, error);
}

static gboolean
write_governor (const char *cpu, const char *governor, GError **error)
{
  g_autofree char *what = g_strdup_printf (CPU_DIR "/%s/cpufreq/scaling_governor", cpu);

  g_assert (is_governor_name (governor));
  return write_fd_value (open_cpu_attr (cpu, "scaling_governor", O_WRONLY | O_TRUNC), what, governor, error);
}

/* Whether @governor is one of those @cpu offers. */
static gboolean
cpu_offers (const char *cpu, const char *governor, char **available, GError **error)
{
  g_autofree char *text = NULL;
  g_auto (GStrv) names = NULL;

  if (!read_cpu_attr (cpu, "scaling_available_governors", &text, error))
    return FALSE;
  names = g_strsplit_set (text, " \t\n", -1);
  if (available != NULL)
    *available = g_steal_pointer (&text);
  return g_strv_contains ((const char *const *) names, governor);
}

static int
compare_cpus (gconstpointer a, gconstpointer b)
{
  guint64 x = g_ascii_strtoull (*(const char *const *) a + 3, NULL, 10);
  guint64 y = g_ascii_strtoull (*(const char *const *) b + 3, NULL, 10);

  return x < y ? -1 : x > y;
}

/* "cpuN" of every CPU with frequency scaling, by number: cpu0 first. */
static GPtrArray *
list_scaling_cpus (void)
{
  g_autoptr (GDir) dir = g_dir_open (CPU_DIR, 0, NULL);
  GPtrArray  *cpus = g_ptr_array_new_with_free_func (g_free);
  const char *name;

  while (dir && (name = g_dir_read_name (dir)))
    {
      int fd;

      if (!is_cpu_name (name))
        continue;
      /* Only what open_cpu_attr () will open: not a CPU whose link leads away. */
      fd = open_cpu_attr (name, "scaling_governor", O_PATH);
      if (fd < 0)
        continue;
      close (fd);
      g_ptr_array_add (cpus, g_strdup (name));
    }
  g_ptr_array_sort (cpus, compare_cpus);
  return cpus;
}

/* The state file says what to put back if we die: written before a change,
 * removed once nothing is changed any more.  Under the lock. */
static gboolean
save_state_locked (GError **error)
{
  g_autoptr (GKeyFile) keys = NULL;
  g_autofree char *data = NULL;
  GHashTableIter   iter;
  gpointer         key, value;

  if (!paranoid_saved && g_hash_table_size (governors_original) == 0)
    {
      if (state_path != NULL && g_unlink (state_path) != 0 && errno != ENOENT)
        {
          int saved = errno;

          g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved), "Cannot remove %s: %s", state_path,
                       g_strerror (saved));
          return FALSE;
        }
      return TRUE;
    }
  if (state_path == NULL)
    {
      g_set_error_literal (error, G_FILE_ERROR, G_FILE_ERROR_NOENT, "sysprofd has no usable state directory");
      return FALSE;
    }
  keys = g_key_file_new ();
  if (paranoid_saved)
    g_key_file_set_integer (keys, "paranoid", "original", paranoid_original);
  g_hash_table_iter_init (&iter, governors_original);
  while (g_hash_table_iter_next (&iter, &key, &value))
    g_key_file_set_string (keys, "governor", key, value);
  data = g_key_file_to_data (keys, NULL, NULL);
  /* A new file renamed over the old one: the next daemon finds one or the
   * other, whole, and only root may read it. */
  return g_file_set_contents_full (state_path, data, -1, G_FILE_SET_CONTENTS_CONSISTENT, 0600, error);
}

static void
save_state_or_warn_locked (void)
{
  g_autoptr (GError) error = NULL;

  if (!save_state_locked (&error))
    g_warning ("Cannot update the saved settings: %s", error->message);
}

static void
restore_paranoid_locked (void)
{
  g_autoptr (GError) error = NULL;

  if (!paranoid_saved)
    return;
  if (!write_paranoid (paranoid_original, &error))
    {
      /* Kept, with the state file: the exit and the next start try again. */
      g_warning ("Cannot restore " PARANOID_NAME " to %d: %s", paranoid_original, error->message);
      return;
    }
  g_message ("Restored " PARANOID_NAME " to %d", paranoid_original);
  paranoid_saved = FALSE;
}

static void
restore_governors_locked (void)
{
  GHashTableIter iter;
  gpointer       key, value;

  g_hash_table_iter_init (&iter, governors_original);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      g_autoptr (GError) error = NULL;

      /* A CPU that went offline or away keeps what it has. */
      if (!write_governor (key, value, &error))
        g_warning ("Cannot restore the governor of %s to %s: %s", (char *) key, (char *) value, error->message);
      else
        g_message ("Restored the governor of %s to %s", (char *) key, (char *) value);
    }
  g_hash_table_remove_all (governors_original);
}

static void
unwatch (gpointer id)
{
  if (GPOINTER_TO_UINT (id) != 0)
    g_bus_unwatch_name (GPOINTER_TO_UINT (id));
}

/* The state directory: ours alone.  FALSE when it cannot be. */
static gboolean
prepare_state_dir (const char *state_dir)
{
  struct stat st;
  int         fd;

  if (g_mkdir_with_parents (state_dir, 0700) != 0)
    {
      g_warning ("Cannot create %s: %s", state_dir, g_strerror (errno));
      return FALSE;
    }
  fd = open (state_dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0 || fstat (fd, &st) != 0)
    {
      g_warning ("Cannot open %s: %s", state_dir, g_strerror (errno));
      if (fd >= 0)
        close (fd);
      return FALSE;
    }
  if (st.st_uid != geteuid ())
    {
      g_warning ("%s belongs to uid %u, not to sysprofd: not used", state_dir, (guint) st.st_uid);
      close (fd);
      return FALSE;
    }
  if ((st.st_mode & 077) != 0)
    {
      if (fchmod (fd, 0700) != 0)
        {
          g_warning ("Cannot make %s private: %s", state_dir, g_strerror (errno));
          close (fd);
          return FALSE;
        }
      g_message ("Made %s private (it was %03o)", state_dir, (guint) (st.st_mode & 0777));
    }
  close (fd);
  return TRUE;
}

/* The state file's contents, or NULL with *@reason when it is not one the
 * daemon wrote: it must be a small regular file of ours.  O_NONBLOCK so that
 * a FIFO does not stall the start-up, O_NOFOLLOW so that a link is not read. */
static char *
read_state_file (gboolean *missing, char **reason)
{
  g_autofree char *data = NULL;
  struct stat      st;
  gsize            len = 0;
  int              fd = open (state_path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);

  *missing = FALSE;
  *reason = NULL;
  if (fd < 0)
    {
      *missing = errno == ENOENT;
      *reason = g_strdup (errno == ELOOP ? "a symbolic link" : g_strerror (errno));
      return NULL;
    }
  if (fstat (fd, &st) != 0)
    *reason = g_strdup (g_strerror (errno));
  else if (!S_ISREG (st.st_mode))
    *reason = g_strdup ("not a regular file");
  else if (st.st_uid != geteuid ())
    *reason = g_strdup ("not written by sysprofd's user");
  else if (st.st_size > STATE_MAX)
    *reason = g_strdup ("larger than a state file can be");
  if (*reason != NULL)
    {
      close (fd);
      return NULL;
    }
  data = g_malloc (STATE_MAX + 1);
  while (len <= STATE_MAX)
    {
      ssize_t n = read (fd, data + len, STATE_MAX + 1 - len);

      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        break;
      len += (gsize) n;
    }
  close (fd);
  if (len > STATE_MAX)
    {
      *reason = g_strdup ("larger than a state file can be");
      return NULL;
    }
  data[len] = 0;
  if (strlen (data) != len)
    {
      *reason = g_strdup ("not text");
      return NULL;
    }
  return g_steal_pointer (&data);
}

/* The saved perf_event_paranoid comes back only if that makes it stricter:
 * a file is all that says what the value was, and one that could lower it
 * would open system-wide perf events to every user.  (A crash after a caller
 * raised it therefore leaves it raised.) */
static void
load_saved_paranoid_locked (GKeyFile *keys)
{
  g_autoptr (GError) error = NULL;
  int value, current;

  if (!g_key_file_has_key (keys, "paranoid", "original", NULL))
    return;
  value = g_key_file_get_integer (keys, "paranoid", "original", &error);
  if (error != NULL)
    {
      g_warning ("Ignoring the saved " PARANOID_NAME ": %s", error->message);
      return;
    }
  if (!read_paranoid (&current, &error))
    {
      g_warning ("Ignoring the saved " PARANOID_NAME ": %s", error->message);
      return;
    }
  if (value < current)
    g_warning ("Not lowering " PARANOID_NAME " from %d to %d as %s says: a saved value may only make it stricter",
               current, value, state_path);
  else if (value > current)
    {
      paranoid_saved = TRUE;
      paranoid_original = value;
    }
}

/* A saved governor comes back to a cpuN the kernel lists, beneath CPU_DIR,
 * and only if that CPU offers it. */
static void
load_saved_governors_locked (GKeyFile *keys)
{
  g_auto (GStrv) cpus = g_key_file_get_keys (keys, "governor", NULL, NULL);

  for (guint i = 0; cpus != NULL && cpus[i] != NULL; i++)
    {
      g_autofree char *shown = g_strescape (cpus[i], NULL);
      g_autofree char *governor = g_key_file_get_string (keys, "governor", cpus[i], NULL);
      g_autoptr (GError) error = NULL;

      if (!is_cpu_name (cpus[i]))
        g_warning ("Ignoring the saved governor of \"%s\": not a CPU name", shown);
      else if (governor == NULL || !is_governor_name (governor))
        {
          g_autofree char *shown_governor = governor ? g_strescape (governor, NULL) : NULL;

          g_warning ("Ignoring the saved governor of \"%s\": \"%s\" is not a governor name", shown,
                     shown_governor ? shown_governor : "");
        }
      else if (!cpu_offers (cpus[i], governor, NULL, &error))
        g_warning ("Ignoring the saved governor of \"%s\": %s", shown,
                   error ? error->message : "the CPU does not offer it");
      else
        g_hash_table_insert (governors_original, g_strdup (cpus[i]), g_steal_pointer (&governor));
    }
}

/* What a daemon that died left changed.  A state file is only ever written
 * by sysprofd, but one that is broken or planted must not make the start-up
 * hang, lower anything or write outside the two places we change. */
static void
load_saved_locked (void)
{
  g_autoptr (GKeyFile) keys = g_key_file_new ();
  g_autofree char *reason = NULL;
  g_autofree char *data = NULL;
  gboolean         missing;

  data = read_state_file (&missing, &reason);
  if (missing)
    return;
  if (data != NULL && !g_key_file_load_from_data (keys, data, (gsize) -1, G_KEY_FILE_NONE, NULL))
    reason = g_strdup ("not a key file");
  if (reason != NULL)
    {
      g_warning ("Ignoring %s: %s; removing it", state_path, reason);
      if (g_unlink (state_path) != 0)
        g_warning ("Cannot remove %s: %s", state_path, g_strerror (errno));
      return;
    }

  g_message ("Restoring what an earlier sysprofd left changed (%s)", state_path);
  load_saved_paranoid_locked (keys);
  load_saved_governors_locked (keys);
  restore_paranoid_locked ();
  restore_governors_locked ();
  save_state_or_warn_locked ();
}

void
sysprofd_system_state_init (const char *state_dir)
{
  g_mutex_lock (&lock);
  for (guint i = 0; i < N_SETTINGS; i++)
    if (holders[i] == NULL)
      holders[i] = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, unwatch);
  if (governors_original == NULL)
    governors_original = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  g_clear_pointer (&state_path, g_free);
  if (state_dir != NULL && prepare_state_dir (state_dir))
    state_path = g_build_filename (state_dir, STATE_FILE, NULL);
  else
    g_warning ("No state directory: the kernel settings will not be changed for callers, as a crash could "
               "not undo that");
  if (state_path != NULL)
    load_saved_locked ();
  g_mutex_unlock (&lock);
}

void
sysprofd_system_state_restore_all (void)
{
  g_mutex_lock (&lock);
  restore_paranoid_locked ();
  restore_governors_locked ();
  for (guint i = 0; i < N_SETTINGS; i++)
    g_hash_table_remove_all (holders[i]);
  save_state_or_warn_locked ();
  g_mutex_unlock (&lock);
}

static void
holder_vanished (GDBusConnection *connection, const char *name, gpointer data)
{
  Setting setting = GPOINTER_TO_UINT (data);

  (void) connection;
  g_mutex_lock (&lock);
  /* Removing the watch from within its own callback is allowed. */
  if (g_hash_table_remove (holders[setting], name) && g_hash_table_size (holders[setting]) == 0)
    {
      if (setting == SETTING_PARANOID)
        restore_paranoid_locked ();
      else
        restore_governors_locked ();
      save_state_or_warn_locked ();
    }
  g_mutex_unlock (&lock);
}

typedef struct
{
  GDBusConnection *connection;
  char            *holder;
  Setting          setting;
} WatchRequest;

static void
watch_request_free (gpointer data)
{
  WatchRequest *req = data;

  g_object_unref (req->connection);
  g_free (req->holder);
  g_free (req);
}

/* In the main context, which name watches belong to. */
static gboolean
watch_holder_cb (gpointer data)
{
  WatchRequest *req = data;
  gpointer      id = NULL;
  guint         watch;

  g_mutex_lock (&lock);
  if (!g_hash_table_lookup_extended (holders[req->setting], req->holder, NULL, &id) || id != NULL)
    {
      g_mutex_unlock (&lock);
      return G_SOURCE_REMOVE;
    }
  g_mutex_unlock (&lock);

  /* Not under the lock: when the connection is closed, the watch reports
   * the name gone at once, from this very call, and holder_vanished takes
   * the lock. */
  watch = g_bus_watch_name_on_connection (req->connection, req->holder, G_BUS_NAME_WATCHER_FLAGS_NONE, NULL,
                                          holder_vanished, GUINT_TO_POINTER (req->setting), NULL);

  g_mutex_lock (&lock);
  if (g_hash_table_lookup_extended (holders[req->setting], req->holder, NULL, &id) && id == NULL)
    {
      g_hash_table_insert (holders[req->setting], g_strdup (req->holder), GUINT_TO_POINTER (watch));
      watch = 0;
    }
  g_mutex_unlock (&lock);
  /* The name left (or everything was restored) meanwhile. */
  if (watch != 0)
    g_bus_unwatch_name (watch);
  return G_SOURCE_REMOVE;
}

/* Counts @holder as keeping @setting, now, under the lock: a holder that
 * leaves meanwhile must not find the setting without this one and restore it
 * under its feet.  The watch that notices it leaving follows from the main
 * context (and reports it gone if it already left). */
static void
add_holder_locked (GDBusConnection *connection, const char *holder, Setting setting)
{
  WatchRequest *req;

  if (g_hash_table_contains (holders[setting], holder))
    return;
  g_hash_table_insert (holders[setting], g_strdup (holder), NULL);
  req = g_new0 (WatchRequest, 1);
  req->connection = g_object_ref (connection);
  req->holder = g_strdup (holder);
  req->setting = setting;
  /* An idle, never a direct call: we hold the lock, which the callback takes. */
  g_idle_add_full (G_PRIORITY_DEFAULT, watch_holder_cb, req, watch_request_free);
}

gboolean
sysprofd_system_state_set_paranoid (
    GDBusConnection *connection, const char *holder, int value, int *old, GError **error)
{
  g_autoptr (GError) save_error = NULL;

  g_return_val_if_fail (G_IS_DBUS_CONNECTION (connection), FALSE);
  g_return_val_if_fail (holder != NULL, FALSE);

  value = CLAMP (value, -1, 2);
  g_mutex_lock (&lock);
  if (!read_paranoid (old, error))
    {
      g_mutex_unlock (&lock);
      return FALSE;
    }
  if (*old != value)
    {
      /* Saved before the change, or no change: a crash right after it must
       * still be undone. */
      if (!paranoid_saved)
        {
          paranoid_saved = TRUE;
          paranoid_original = *old;
          if (!save_state_locked (&save_error))
            {
              paranoid_saved = FALSE;
              g_mutex_unlock (&lock);
              g_set_error (error, G_DBUS_ERROR, G_DBUS_ERROR_FAILED,
                           "Not changing " PARANOID_NAME ": its value could not be saved to be restored after a "
                           "crash (%s)",
                           save_error->message);
              return FALSE;
            }
        }
      if (!write_paranoid (value, error))
        {
          /* Nothing changed; unless someone holds it, nothing to restore. */
          if (g_hash_table_size (holders[SETTING_PARANOID]) == 0)
            {
              paranoid_saved = FALSE;
              save_state_or_warn_locked ();
            }
          g_mutex_unlock (&lock);
          return FALSE;
        }
      g_message (PARANOID_NAME " %d -> %d for %s", *old, value, holder);
    }
  if (paranoid_saved)
    add_holder_locked (connection, holder, SETTING_PARANOID);
  g_mutex_unlock (&lock);
  return TRUE;
}

gboolean
sysprofd_system_state_set_governor (
    GDBusConnection *connection, const char *holder, const char *governor, char **old, GError **error)
{
  g_autoptr (GPtrArray) cpus = NULL;
  g_autoptr (GPtrArray) current = NULL;
  g_autoptr (GPtrArray) added = NULL;
  g_autoptr (GError) save_error = NULL;
  g_autofree char *available = NULL;
  gboolean         ok = TRUE;

  g_return_val_if_fail (G_IS_DBUS_CONNECTION (connection), FALSE);
  g_return_val_if_fail (holder != NULL && governor != NULL, FALSE);

  if (!is_governor_name (governor))
    {
      g_autofree char *shown = g_strescape (governor, NULL);

      g_set_error (error, G_DBUS_ERROR, G_DBUS_ERROR_INVALID_ARGS, "\"%s\" is not a CPU governor name", shown);
      return FALSE;
    }
  cpus = list_scaling_cpus ();
  if (cpus->len == 0)
    {
      /* No frequency scaling (as in most VMs): nothing to change. */
      *old = g_strdup ("unknown");
      return TRUE;
    }
  if (!cpu_offers (cpus->pdata[0], governor, &available, error))
    {
      if (available != NULL)
        g_set_error (error, G_DBUS_ERROR, G_DBUS_ERROR_INVALID_ARGS, "Unknown CPU governor \"%s\"; available: %s",
                     governor, available);
      return FALSE;
    }

  g_mutex_lock (&lock);
  current = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 0; i < cpus->len; i++)
    {
      char *value = NULL;

      if (!read_cpu_attr (cpus->pdata[i], "scaling_governor", &value, error))
        {
          g_mutex_unlock (&lock);
          return FALSE;
        }
      g_ptr_array_add (current, value);
    }

  /* Every original saved, once, before the first change. */
  added = g_ptr_array_new ();
  for (guint i = 0; i < cpus->len; i++)
    if (!g_str_equal (current->pdata[i], governor) && !g_hash_table_contains (governors_original, cpus->pdata[i]))
      {
        g_hash_table_insert (governors_original, g_strdup (cpus->pdata[i]), g_strdup (current->pdata[i]));
        g_ptr_array_add (added, cpus->pdata[i]);
      }
  if (added->len > 0 && !save_state_locked (&save_error))
    {
      for (guint i = 0; i < added->len; i++)
        g_hash_table_remove (governors_original, added->pdata[i]);
      g_mutex_unlock (&lock);
      g_set_error (error, G_DBUS_ERROR, G_DBUS_ERROR_FAILED,
                   "Not changing the CPU governors: they could not be saved to be restored after a crash (%s)",
                   save_error->message);
      return FALSE;
    }

  for (guint i = 0; i < cpus->len && ok; i++)
    if (!g_str_equal (current->pdata[i], governor))
      ok = write_governor (cpus->pdata[i], governor, error);
  if (ok && added->len > 0)
    g_message ("CPU frequency governors -> %s for %s", governor, holder);
  /* Even after a failure some CPUs may have changed. */
  if (g_hash_table_size (governors_original) > 0)
    add_holder_locked (connection, holder, SETTING_GOVERNOR);
  g_mutex_unlock (&lock);
  if (ok)
    *old = g_strdup (current->pdata[0]);
  return ok;
}
