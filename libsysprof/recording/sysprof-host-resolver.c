// SPDX-License-Identifier: GPL-3.0-or-later
#include <string.h>

#include "sysprof-dbus-contract.h"
#include "sysprof-host-resolver-private.h"

#define SERVICE_NAME   SYSPROF_DBUS_NAME
#define SERVICE_PATH   SYSPROF_DBUS_PATH
#define HOST_INTERFACE SYSPROF_DBUS_HOST_INTERFACE
#define CALL_TIMEOUT   5000

/* A failed call (the process ended, polkit said no, an old daemon) only
 * means the symbolizer falls back to what the capture tells. */
static GVariant *
call (GDBusConnection *connection, const char *method, GVariant *args, const char *reply_type)
{
  return g_dbus_connection_call_sync (connection, SERVICE_NAME, SERVICE_PATH, HOST_INTERFACE, method, args,
                                      G_VARIANT_TYPE (reply_type), G_DBUS_CALL_FLAGS_NONE, CALL_TIMEOUT, NULL, NULL);
}

static char **
list_debug_dirs (gint32 pid, gpointer user_data)
{
  g_autoptr (GVariant) reply = call (user_data, "ListDebugDirectories", g_variant_new ("(i)", pid), "(aay)");
  g_autoptr (GVariantIter) iter = NULL;
  g_autoptr (GPtrArray) dirs = NULL;
  const char *dir;

  if (reply == NULL)
    return NULL;
  dirs = g_ptr_array_new_with_free_func (g_free);
  g_variant_get (reply, "(aay)", &iter);
  while (g_variant_iter_next (iter, "^&ay", &dir))
    g_ptr_array_add (dirs, g_strdup (dir));
  g_ptr_array_add (dirs, NULL);
  return (char **) g_ptr_array_free (g_steal_pointer (&dirs), FALSE);
}

static char *
resolve_path (gint32 pid, const char *path, gpointer user_data)
{
  g_autoptr (GVariant) reply = call (user_data, "ResolvePath", g_variant_new ("(i^ay)", pid, path), "(ay)");
  const char *host_path = NULL;

  if (reply == NULL)
    return NULL;
  g_variant_get (reply, "(^&ay)", &host_path);
  return host_path && host_path[0] == '/' ? g_strdup (host_path) : NULL;
}

void
_sysprof_host_resolver_attach (SysprofSymbolizer *symbolizer, GDBusConnection *connection)
{
  static const SysprofSymbolizerHost host = { list_debug_dirs, resolve_path };

  g_return_if_fail (SYSPROF_IS_SYMBOLIZER (symbolizer));
  g_return_if_fail (G_IS_DBUS_CONNECTION (connection));

  g_object_set_data_full (G_OBJECT (symbolizer), "sysprof-host-connection", g_object_ref (connection), g_object_unref);
  sysprof_symbolizer_set_host (symbolizer, &host, connection);
}
