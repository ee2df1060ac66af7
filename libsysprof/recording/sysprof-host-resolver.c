// SPDX-License-Identifier: GPL-3.0-or-later
#include <string.h>

#include "ipc-host-generated.h"
#include "sysprof-dbus-contract.h"
#include "sysprof-host-resolver-private.h"

#define CALL_TIMEOUT 5000

/* A failed call (the process ended, polkit said no, an old daemon) only
 * means the symbolizer falls back to what the capture tells. */

static char **
list_debug_dirs (gint32 pid, gpointer user_data)
{
  g_autoptr (GVariant) directories = NULL;
  g_autoptr (GPtrArray) dirs = NULL;
  GVariantIter iter;
  const char  *dir;

  if (!ipc_host_call_list_debug_directories_sync (user_data, pid, G_DBUS_CALL_FLAGS_NONE, CALL_TIMEOUT, &directories,
                                                  NULL, NULL))
    return NULL;
  dirs = g_ptr_array_new_with_free_func (g_free);
  g_variant_iter_init (&iter, directories);
  while (g_variant_iter_next (&iter, "^&ay", &dir))
    g_ptr_array_add (dirs, g_strdup (dir));
  g_ptr_array_add (dirs, NULL);
  return (char **) g_ptr_array_free (g_steal_pointer (&dirs), FALSE);
}

static char *
resolve_path (gint32 pid, const char *path, gpointer user_data)
{
  g_autoptr (GVariant) reply = NULL;
  const char *host_path;

  if (!ipc_host_call_resolve_path_sync (user_data, pid, g_variant_new_bytestring (path), G_DBUS_CALL_FLAGS_NONE,
                                        CALL_TIMEOUT, &reply, NULL, NULL))
    return NULL;
  host_path = g_variant_get_bytestring (reply);
  return host_path[0] == '/' ? g_strdup (host_path) : NULL;
}

void
_sysprof_host_resolver_attach (SysprofSymbolizer *symbolizer, GDBusConnection *connection)
{
  static const SysprofSymbolizerHost host_calls = { list_debug_dirs, resolve_path };
  IpcHost                           *host;

  g_return_if_fail (SYSPROF_IS_SYMBOLIZER (symbolizer));
  g_return_if_fail (G_IS_DBUS_CONNECTION (connection));

  /* On the well-known name, as whichever sysprofd owns it then (or is
   * started for it) answers.  Constructing asks the bus for the owner, which
   * blocks the decoding thread we are in, not the main loop.  The bus refuses
   * that only when the connection is gone, and then every call would fail. */
  host =
      ipc_host_proxy_new_sync (connection,
                               G_DBUS_PROXY_FLAGS_DO_NOT_LOAD_PROPERTIES | G_DBUS_PROXY_FLAGS_DO_NOT_CONNECT_SIGNALS |
                                   G_DBUS_PROXY_FLAGS_DO_NOT_AUTO_START_AT_CONSTRUCTION,
                               SYSPROF_DBUS_NAME, SYSPROF_DBUS_PATH, NULL, NULL);
  if (host == NULL)
    return;
  g_object_set_data_full (G_OBJECT (symbolizer), "sysprof-host", host, g_object_unref);
  sysprof_symbolizer_set_host (symbolizer, &host_calls, host);
}
