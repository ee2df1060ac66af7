// SPDX-License-Identifier: GPL-3.0-or-later
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include <gio/gunixfdlist.h>

#include "ipc-service.h"
#include "sysprofd-auth.h"
#include "sysprofd-perf.h"
#include "sysprofd-proc.h"

#define PROC_FILE_MAX (64 * 1024 * 1024)
#define PARANOID_PATH "/proc/sys/kernel/perf_event_paranoid"
#define CPUFREQ_DIR   "/sys/devices/system/cpu"

/* kernel.perf_event_paranoid as found before the first change, and the bus
 * names that changed it: the value comes back when the last of them leaves. */
static GMutex      paranoid_lock;
static gboolean    paranoid_saved;
static int         paranoid_original;
static GHashTable *paranoid_holders; /* sender -> watch id */

static gboolean
read_int_file (const char *path, int *value, GError **error)
{
  g_autofree char *contents = NULL;
  char            *end;
  gint64           v;

  if (!g_file_get_contents (path, &contents, NULL, error))
    return FALSE;
  v = g_ascii_strtoll (contents, &end, 10);
  if (end == contents)
    {
      g_set_error (error, G_DBUS_ERROR, G_DBUS_ERROR_FAILED, "%s does not hold a number", path);
      return FALSE;
    }
  *value = (int) v;
  return TRUE;
}

static gboolean
write_paranoid (int value, GError **error)
{
  g_autofree char *str = g_strdup_printf ("%d\n", value);
  int              fd = open (PARANOID_PATH, O_WRONLY | O_CLOEXEC);
  ssize_t          n;

  if (fd < 0 || (n = write (fd, str, strlen (str))) != (ssize_t) strlen (str))
    {
      int saved = errno;
      if (fd >= 0)
        close (fd);
      g_set_error (error, G_DBUS_ERROR, G_DBUS_ERROR_FAILED, "Cannot write %s: %s", PARANOID_PATH, g_strerror (saved));
      return FALSE;
    }
  close (fd);
  return TRUE;
}

void
ipc_service_impl_restore_system (void)
{
  g_autoptr (GError) error = NULL;

  g_mutex_lock (&paranoid_lock);
  if (paranoid_saved)
    {
      if (!write_paranoid (paranoid_original, &error))
        g_warning ("Cannot restore perf_event_paranoid: %s", error->message);
      else
        g_message ("Restored kernel.perf_event_paranoid to %d", paranoid_original);
      paranoid_saved = FALSE;
    }
  if (paranoid_holders)
    g_hash_table_remove_all (paranoid_holders);
  g_mutex_unlock (&paranoid_lock);
}

static void
paranoid_holder_vanished (GDBusConnection *connection, const char *name, gpointer user_data)
{
  gboolean last;

  (void) connection;
  (void) user_data;

  g_mutex_lock (&paranoid_lock);
  g_hash_table_remove (paranoid_holders, name);
  last = g_hash_table_size (paranoid_holders) == 0;
  g_mutex_unlock (&paranoid_lock);

  if (last)
    ipc_service_impl_restore_system ();
}

typedef struct
{
  GDBusConnection *connection;
  char            *sender;
} WatchRequest;

/* Name watches belong to the main context; invocations run in worker threads. */
static gboolean
add_paranoid_holder_cb (gpointer data)
{
  WatchRequest *req = data;

  g_mutex_lock (&paranoid_lock);
  if (paranoid_saved && !g_hash_table_contains (paranoid_holders, req->sender))
    {
      guint id = g_bus_watch_name_on_connection (req->connection, req->sender, G_BUS_NAME_WATCHER_FLAGS_NONE, NULL,
                                                 paranoid_holder_vanished, NULL, NULL);
      g_hash_table_insert (paranoid_holders, g_strdup (req->sender), GUINT_TO_POINTER (id));
    }
  g_mutex_unlock (&paranoid_lock);

  g_object_unref (req->connection);
  g_free (req->sender);
  g_free (req);
  return G_SOURCE_REMOVE;
}

static void
unwatch (gpointer id)
{
  g_bus_unwatch_name (GPOINTER_TO_UINT (id));
}

static gboolean
handle_set_paranoid (IpcService *service, GDBusMethodInvocation *invocation, gint paranoid)
{
  g_autoptr (GError) error = NULL;
  WatchRequest *req;
  int           old;

  paranoid = CLAMP (paranoid, -1, 2);

  g_mutex_lock (&paranoid_lock);
  if (!read_int_file (PARANOID_PATH, &old, &error) || (old != paranoid && !write_paranoid (paranoid, &error)))
    {
      g_mutex_unlock (&paranoid_lock);
      g_dbus_method_invocation_return_gerror (invocation, error);
      return TRUE;
    }
  if (!paranoid_saved && old != paranoid)
    {
      paranoid_saved = TRUE;
      paranoid_original = old;
      g_message ("kernel.perf_event_paranoid %d -> %d for %s", old, paranoid,
                 g_dbus_method_invocation_get_sender (invocation));
    }
  if (paranoid_holders == NULL)
    paranoid_holders = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, unwatch);
  g_mutex_unlock (&paranoid_lock);

  req = g_new0 (WatchRequest, 1);
  req->connection = g_object_ref (g_dbus_method_invocation_get_connection (invocation));
  req->sender = g_strdup (g_dbus_method_invocation_get_sender (invocation));
  g_main_context_invoke (NULL, add_paranoid_holder_cb, req);

  ipc_service_complete_set_paranoid (service, invocation, old);
  return TRUE;
}

static gboolean
handle_set_governor (IpcService *service, GDBusMethodInvocation *invocation, const char *governor)
{
  g_autofree char *available = NULL;
  g_autofree char *old = NULL;
  g_auto (GStrv) names = NULL;
  gboolean valid = FALSE;

  if (!g_file_get_contents (CPUFREQ_DIR "/cpu0/cpufreq/scaling_available_governors", &available, NULL, NULL) ||
      !g_file_get_contents (CPUFREQ_DIR "/cpu0/cpufreq/scaling_governor", &old, NULL, NULL))
    {
      /* No frequency scaling (as in most VMs): nothing to change. */
      ipc_service_complete_set_governor (service, invocation, "unknown");
      return TRUE;
    }
  g_strstrip (old);
  names = g_strsplit_set (g_strstrip (available), " \t\n", -1);
  for (guint i = 0; names[i]; i++)
    valid |= names[i][0] && g_strcmp0 (names[i], governor) == 0;
  if (!valid)
    {
      g_dbus_method_invocation_return_error (invocation, G_DBUS_ERROR, G_DBUS_ERROR_INVALID_ARGS,
                                             "Unknown CPU governor \"%s\"; available: %s", governor, available);
      return TRUE;
    }

  for (guint cpu = 0;; cpu++)
    {
      g_autofree char *path = g_strdup_printf (CPUFREQ_DIR "/cpu%u/cpufreq/scaling_governor", cpu);
      g_autoptr (GError) error = NULL;

      if (!g_file_test (path, G_FILE_TEST_EXISTS))
        break;
      if (!g_file_set_contents_full (path, governor, -1, G_FILE_SET_CONTENTS_NONE, 0644, &error))
        {
          g_dbus_method_invocation_return_error (invocation, G_DBUS_ERROR, G_DBUS_ERROR_FAILED, "Cannot set %s: %s",
                                                 path, error->message);
          return TRUE;
        }
    }

  ipc_service_complete_set_governor (service, invocation, old);
  return TRUE;
}

typedef void (*CompleteWithFd) (IpcService *, GDBusMethodInvocation *, GUnixFDList *, GVariant *);

/* Answers @invocation with @fd (closed here), or with @error when @fd is -1. */
static void
return_fd (IpcService *service, GDBusMethodInvocation *invocation, int fd, GError *error, CompleteWithFd complete)
{
  g_autoptr (GUnixFDList) out_fds = NULL;
  g_autoptr (GError) append_error = NULL;
  int idx;

  if (fd < 0)
    {
      g_dbus_method_invocation_return_gerror (invocation, error);
      return;
    }
  out_fds = g_unix_fd_list_new ();
  idx = g_unix_fd_list_append (out_fds, fd, &append_error);
  close (fd);
  if (idx < 0)
    {
      g_dbus_method_invocation_return_gerror (invocation, append_error);
      return;
    }
  complete (service, invocation, out_fds, g_variant_new_handle (idx));
}

static gboolean
handle_perf_event_open (IpcService            *service,
                        GDBusMethodInvocation *invocation,
                        GUnixFDList           *in_fds,
                        GVariant              *options,
                        gint                   pid,
                        gint                   cpu,
                        GVariant              *group_fd_handle,
                        guint64                flags)
{
  g_autoptr (GError) error = NULL;
  gint32 handle = g_variant_get_handle (group_fd_handle);
  int    group_fd = -1;
  int    fd;

  if (handle >= 0)
    {
      if (in_fds == NULL || handle >= g_unix_fd_list_get_length (in_fds) ||
          (group_fd = g_unix_fd_list_get (in_fds, handle, &error)) < 0)
        {
          g_dbus_method_invocation_return_error (invocation, G_DBUS_ERROR, G_DBUS_ERROR_INVALID_ARGS,
                                                 "group_fd handle %d does not name a passed file descriptor", handle);
          return TRUE;
        }
    }

  fd = sysprofd_perf_event_open (options, pid, cpu, group_fd, flags, &error);
  if (group_fd >= 0)
    close (group_fd);
  return_fd (service, invocation, fd, error, ipc_service_complete_perf_event_open);
  return TRUE;
}

static gboolean
handle_get_proc_file (IpcService *service, GDBusMethodInvocation *invocation, GVariant *path)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GBytes) bytes = NULL;
  gsize         len;
  const guint8 *data = g_variant_get_fixed_array (path, &len, 1);
  int           fd = sysprofd_proc_open (data, len, &error);

  if (fd < 0)
    {
      g_dbus_method_invocation_return_gerror (invocation, error);
      return TRUE;
    }
  bytes = sysprofd_read_fd (fd, PROC_FILE_MAX, &error);
  close (fd);
  if (bytes == NULL)
    {
      g_dbus_method_invocation_return_gerror (invocation, error);
      return TRUE;
    }

  ipc_service_complete_get_proc_file (service, invocation,
                                      g_variant_new_from_bytes (G_VARIANT_TYPE_BYTESTRING, bytes, TRUE));
  return TRUE;
}

static gboolean
handle_get_proc_fd (IpcService *service, GDBusMethodInvocation *invocation, GUnixFDList *in_fds, GVariant *path)
{
  g_autoptr (GError) error = NULL;
  gsize         len;
  const guint8 *data = g_variant_get_fixed_array (path, &len, 1);
  int           fd = sysprofd_proc_open (data, len, &error);

  (void) in_fds;

  return_fd (service, invocation, fd, error, ipc_service_complete_get_proc_fd);
  return TRUE;
}

static gboolean
handle_list_processes (IpcService *service, GDBusMethodInvocation *invocation)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GArray) pids = sysprofd_list_processes (&error);

  if (pids == NULL)
    {
      g_dbus_method_invocation_return_gerror (invocation, error);
      return TRUE;
    }
  ipc_service_complete_list_processes (
      service, invocation, g_variant_new_fixed_array (G_VARIANT_TYPE_INT32, pids->data, pids->len, sizeof (gint32)));
  return TRUE;
}

static gboolean
handle_get_process_info (IpcService *service, GDBusMethodInvocation *invocation, const char *attributes)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GArray) pids = sysprofd_list_processes (&error);
  GVariantBuilder builder;

  if (pids == NULL)
    {
      g_dbus_method_invocation_return_gerror (invocation, error);
      return TRUE;
    }

  g_variant_builder_init (&builder, G_VARIANT_TYPE ("aa{sv}"));
  for (guint i = 0; i < pids->len; i++)
    {
      GVariant *info = sysprofd_process_info (g_array_index (pids, gint32, i), attributes);

      if (info != NULL)
        g_variant_builder_add_value (&builder, info);
    }
  ipc_service_complete_get_process_info (service, invocation, g_variant_builder_end (&builder));
  return TRUE;
}

IpcService *
ipc_service_impl_new (void)
{
  IpcService *service = ipc_service_skeleton_new ();

  sysprofd_authorize_skeleton (service);
  g_signal_connect (service, "handle-perf-event-open", G_CALLBACK (handle_perf_event_open), NULL);
  g_signal_connect (service, "handle-get-proc-file", G_CALLBACK (handle_get_proc_file), NULL);
  g_signal_connect (service, "handle-get-proc-fd", G_CALLBACK (handle_get_proc_fd), NULL);
  g_signal_connect (service, "handle-list-processes", G_CALLBACK (handle_list_processes), NULL);
  g_signal_connect (service, "handle-get-process-info", G_CALLBACK (handle_get_process_info), NULL);
  g_signal_connect (service, "handle-set-governor", G_CALLBACK (handle_set_governor), NULL);
  g_signal_connect (service, "handle-set-paranoid", G_CALLBACK (handle_set_paranoid), NULL);

  return service;
}
