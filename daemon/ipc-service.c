// SPDX-License-Identifier: GPL-3.0-or-later
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include <gio/gunixfdlist.h>

#include "ipc-service.h"
#include "sysprof-dbus-contract.h"
#include "sysprofd-dispatcher.h"
#include "sysprofd-perf.h"
#include "sysprofd-proc.h"
#include "sysprofd-system-state.h"

/* Every method runs on a worker (see sysprofd-dispatcher.h): the skeleton
 * only hands the invocation on, and the work reads its arguments back from
 * the invocation. */

/* Answers @invocation with @fd (closed here), or with @error when @fd is -1. */
static void
return_fd (GDBusMethodInvocation *invocation, int fd, GError *error)
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
  g_dbus_method_invocation_return_value_with_unix_fd_list (invocation, g_variant_new ("(h)", idx), out_fds);
}

static void
do_perf_event_open (SysprofdCall *call)
{
  GDBusMethodInvocation *invocation = sysprofd_call_get_invocation (call);
  GUnixFDList           *in_fds = g_dbus_message_get_unix_fd_list (g_dbus_method_invocation_get_message (invocation));
  g_autoptr (GVariant) options = NULL;
  g_autoptr (GError) error = NULL;
  gint32  pid, cpu, handle;
  guint64 flags;
  int     group_fd = -1;
  int     fd;

  g_variant_get (g_dbus_method_invocation_get_parameters (invocation), "(@a{sv}iiht)", &options, &pid, &cpu, &handle,
                 &flags);
  if (handle >= 0)
    {
      if (in_fds == NULL || handle >= g_unix_fd_list_get_length (in_fds) ||
          (group_fd = g_unix_fd_list_get (in_fds, handle, &error)) < 0)
        {
          g_dbus_method_invocation_return_error (invocation, G_DBUS_ERROR, G_DBUS_ERROR_INVALID_ARGS,
                                                 "group_fd handle %d does not name a passed file descriptor", handle);
          return;
        }
    }

  fd = sysprofd_perf_event_open (options, pid, cpu, group_fd, flags, &error);
  if (group_fd >= 0)
    close (group_fd);
  return_fd (invocation, fd, error);
}

static int
open_path_argument (SysprofdCall *call, GError **error)
{
  GDBusMethodInvocation *invocation = sysprofd_call_get_invocation (call);
  g_autoptr (GVariant) path = g_variant_get_child_value (g_dbus_method_invocation_get_parameters (invocation), 0);
  gsize         len;
  const guint8 *data = g_variant_get_fixed_array (path, &len, 1);

  int fd = sysprofd_proc_open (data, len, sysprofd_call_get_uid (call), error);

  /* For the administrator, and for the test that Sysprof's own client never
   * asks for anything refused. */
  if (fd < 0 && g_error_matches (*error, G_DBUS_ERROR, G_DBUS_ERROR_ACCESS_DENIED))
    g_message ("%s of uid %u refused: %s", g_dbus_method_invocation_get_method_name (invocation),
               sysprofd_call_get_uid (call), (*error)->message);
  return fd;
}

static void
do_get_proc_file (SysprofdCall *call)
{
  GDBusMethodInvocation *invocation = sysprofd_call_get_invocation (call);
  g_autoptr (GError) error = NULL;
  g_autoptr (GBytes) bytes = NULL;
  int fd = open_path_argument (call, &error);

  if (fd < 0)
    {
      g_dbus_method_invocation_return_gerror (invocation, error);
      return;
    }
  bytes = sysprofd_read_fd (fd, SYSPROF_DBUS_PROC_FILE_MAX, &error);
  close (fd);
  if (bytes == NULL)
    {
      g_dbus_method_invocation_return_gerror (invocation, error);
      return;
    }
  g_dbus_method_invocation_return_value (
      invocation, g_variant_new ("(@ay)", g_variant_new_from_bytes (G_VARIANT_TYPE_BYTESTRING, bytes, TRUE)));
}

static void
do_get_proc_fd (SysprofdCall *call)
{
  g_autoptr (GError) error = NULL;
  int fd = open_path_argument (call, &error);

  return_fd (sysprofd_call_get_invocation (call), fd, error);
}

static void
do_list_processes (SysprofdCall *call)
{
  GDBusMethodInvocation *invocation = sysprofd_call_get_invocation (call);
  g_autoptr (GError) error = NULL;
  g_autoptr (GArray) pids = sysprofd_list_processes (&error);

  if (pids == NULL)
    {
      g_dbus_method_invocation_return_gerror (invocation, error);
      return;
    }
  g_dbus_method_invocation_return_value (
      invocation, g_variant_new ("(@ai)", g_variant_new_fixed_array (G_VARIANT_TYPE_INT32, pids->data, pids->len,
                                                                     sizeof (gint32))));
}

static void
do_get_process_info (SysprofdCall *call)
{
  GDBusMethodInvocation *invocation = sysprofd_call_get_invocation (call);
  g_autoptr (GError) error = NULL;
  g_autoptr (GArray) pids = sysprofd_list_processes (&error);
  GVariantBuilder builder;
  const char     *attributes;
  gsize           total = 0;

  if (pids == NULL)
    {
      g_dbus_method_invocation_return_gerror (invocation, error);
      return;
    }
  g_variant_get (g_dbus_method_invocation_get_parameters (invocation), "(&s)", &attributes);
  g_variant_builder_init (&builder, G_VARIANT_TYPE ("aa{sv}"));
  for (guint i = 0; i < pids->len; i++)
    {
      GVariant *info = sysprofd_process_info (g_array_index (pids, gint32, i), attributes);

      if (info == NULL)
        continue;
      /* Processes control how big their maps are: the answer must fit a
       * message, and the daemon's memory. */
      total += g_variant_get_size (g_variant_ref_sink (info));
      g_variant_builder_add_value (&builder, info);
      g_variant_unref (info);
      if (total > SYSPROF_DBUS_PROC_INFO_MAX)
        {
          g_variant_builder_clear (&builder);
          g_dbus_method_invocation_return_error (
              invocation, G_DBUS_ERROR, G_DBUS_ERROR_LIMITS_EXCEEDED,
              "The processes' %s take more than %u MiB, more than an answer can carry: ask for fewer attributes",
              attributes, SYSPROF_DBUS_PROC_INFO_MAX >> 20);
          return;
        }
    }
  g_dbus_method_invocation_return_value (invocation, g_variant_new ("(@aa{sv})", g_variant_builder_end (&builder)));
}

static void
do_set_governor (SysprofdCall *call)
{
  GDBusMethodInvocation *invocation = sysprofd_call_get_invocation (call);
  g_autoptr (GError) error = NULL;
  g_autofree char *old = NULL;
  const char      *governor;

  g_variant_get (g_dbus_method_invocation_get_parameters (invocation), "(&s)", &governor);
  if (!sysprofd_system_state_set_governor (g_dbus_method_invocation_get_connection (invocation),
                                           g_dbus_method_invocation_get_sender (invocation), governor, &old, &error))
    g_dbus_method_invocation_return_gerror (invocation, error);
  else
    g_dbus_method_invocation_return_value (invocation, g_variant_new ("(s)", old));
}

static void
do_set_paranoid (SysprofdCall *call)
{
  GDBusMethodInvocation *invocation = sysprofd_call_get_invocation (call);
  g_autoptr (GError) error = NULL;
  gint32 paranoid;
  int    old;

  g_variant_get (g_dbus_method_invocation_get_parameters (invocation), "(i)", &paranoid);
  if (!sysprofd_system_state_set_paranoid (g_dbus_method_invocation_get_connection (invocation),
                                           g_dbus_method_invocation_get_sender (invocation), paranoid, &old, &error))
    g_dbus_method_invocation_return_gerror (invocation, error);
  else
    g_dbus_method_invocation_return_value (invocation, g_variant_new ("(i)", old));
}

static void
dispatch (GDBusMethodInvocation *invocation, SysprofdCallFunc func)
{
  sysprofd_dispatch (invocation, SYSPROFD_CALL_IN_WORKER, NULL, func, NULL, NULL);
}

static gboolean
handle_perf_event_open (IpcService            *service,
                        GDBusMethodInvocation *invocation,
                        GUnixFDList           *fds,
                        GVariant              *options,
                        gint                   pid,
                        gint                   cpu,
                        GVariant              *group_fd,
                        guint64                flags)
{
  (void) service, (void) fds, (void) options, (void) pid, (void) cpu, (void) group_fd, (void) flags;
  dispatch (invocation, do_perf_event_open);
  return TRUE;
}

static gboolean
handle_get_proc_file (IpcService *service, GDBusMethodInvocation *invocation, GVariant *path)
{
  (void) service, (void) path;
  dispatch (invocation, do_get_proc_file);
  return TRUE;
}

static gboolean
handle_get_proc_fd (IpcService *service, GDBusMethodInvocation *invocation, GUnixFDList *fds, GVariant *path)
{
  (void) service, (void) fds, (void) path;
  dispatch (invocation, do_get_proc_fd);
  return TRUE;
}

static gboolean
handle_list_processes (IpcService *service, GDBusMethodInvocation *invocation)
{
  (void) service;
  dispatch (invocation, do_list_processes);
  return TRUE;
}

static gboolean
handle_get_process_info (IpcService *service, GDBusMethodInvocation *invocation, const char *attributes)
{
  (void) service, (void) attributes;
  dispatch (invocation, do_get_process_info);
  return TRUE;
}

static gboolean
handle_set_governor (IpcService *service, GDBusMethodInvocation *invocation, const char *governor)
{
  (void) service, (void) governor;
  dispatch (invocation, do_set_governor);
  return TRUE;
}

static gboolean
handle_set_paranoid (IpcService *service, GDBusMethodInvocation *invocation, gint paranoid)
{
  (void) service, (void) paranoid;
  dispatch (invocation, do_set_paranoid);
  return TRUE;
}

IpcService *
ipc_service_impl_new (void)
{
  IpcService *service = ipc_service_skeleton_new ();

  g_signal_connect (service, "handle-perf-event-open", G_CALLBACK (handle_perf_event_open), NULL);
  g_signal_connect (service, "handle-get-proc-file", G_CALLBACK (handle_get_proc_file), NULL);
  g_signal_connect (service, "handle-get-proc-fd", G_CALLBACK (handle_get_proc_fd), NULL);
  g_signal_connect (service, "handle-list-processes", G_CALLBACK (handle_list_processes), NULL);
  g_signal_connect (service, "handle-get-process-info", G_CALLBACK (handle_get_process_info), NULL);
  g_signal_connect (service, "handle-set-governor", G_CALLBACK (handle_set_governor), NULL);
  g_signal_connect (service, "handle-set-paranoid", G_CALLBACK (handle_set_paranoid), NULL);
  return service;
}
