// SPDX-License-Identifier: GPL-3.0-or-later
#include <string.h>

#include "ipc-host-generated.h"
#include "sysprof-dbus-contract.h"
#include "sysprof-host-resolver-private.h"

#define CALL_TIMEOUT 5000
/* Arguments of one batched call, below the daemon's limit of
 * SYSPROF_DBUS_MAX_CALL_BYTES with room for the framing. */
#define BATCH_BYTES (SYSPROF_DBUS_MAX_CALL_BYTES - 4096)
#define GONE_ERROR  "org.freedesktop.DBus.Error.UnixProcessIdUnknown"

typedef struct
{
  IpcHost *host;
  gboolean no_batches; /* an older sysprofd: one question per call */
} Resolver;

static void
resolver_free (gpointer data)
{
  Resolver *resolver = data;

  g_object_unref (resolver->host);
  g_free (resolver);
}

/* A failed call (the process ended, polkit said no, an old daemon) only
 * means the symbolizer falls back to what the capture tells. */

static char *
resolve_path (gint32 pid, const char *path, gpointer user_data)
{
  g_autoptr (GVariant) reply = NULL;
  Resolver   *resolver = user_data;
  const char *host_path;

  if (!ipc_host_call_resolve_path_sync (resolver->host, pid, g_variant_new_bytestring (path), G_DBUS_CALL_FLAGS_NONE,
                                        CALL_TIMEOUT, &reply, NULL, NULL))
    return NULL;
  host_path = g_variant_get_bytestring (reply);
  return host_path[0] == '/' ? g_strdup (host_path) : NULL;
}

/* Whether a batched method failed because the daemon predates it. */
static gboolean
is_unknown_method (Resolver *resolver, const GError *error)
{
  if (!g_error_matches (error, G_DBUS_ERROR, G_DBUS_ERROR_UNKNOWN_METHOD))
    return FALSE;
  resolver->no_batches = TRUE;
  return TRUE;
}

static char **
dirs_from_variant (GVariant *directories)
{
  g_autoptr (GPtrArray) dirs = g_ptr_array_new_with_free_func (g_free);
  GVariantIter iter;
  const char  *dir;

  g_variant_iter_init (&iter, directories);
  while (g_variant_iter_next (&iter, "^&ay", &dir))
    g_ptr_array_add (dirs, g_strdup (dir));
  g_ptr_array_add (dirs, NULL);
  return (char **) g_ptr_array_free (g_steal_pointer (&dirs), FALSE);
}

static char **
list_debug_dirs (gint32 pid, gpointer user_data)
{
  g_autoptr (GVariant) directories = NULL;
  Resolver *resolver = user_data;

  if (!ipc_host_call_list_debug_directories_sync (resolver->host, pid, G_DBUS_CALL_FLAGS_NONE, CALL_TIMEOUT,
                                                  &directories, NULL, NULL))
    return NULL;
  return dirs_from_variant (directories);
}

static void
list_debug_dirs_batch (SysprofSymbolizerHostQuery *queries, guint n_queries, gpointer user_data)
{
  Resolver *resolver = user_data;

  for (guint first = 0; first < n_queries;)
    {
      g_autoptr (GVariant) answers = NULL;
      g_autoptr (GError) error = NULL;
      GVariantBuilder builder;
      guint           n = MIN (n_queries - first, SYSPROF_DBUS_MAX_BATCH);

      if (resolver->no_batches)
        {
          for (guint i = first; i < n_queries; i++)
            queries[i].dirs = list_debug_dirs (queries[i].pid, resolver);
          return;
        }
      g_variant_builder_init (&builder, G_VARIANT_TYPE ("ai"));
      for (guint i = first; i < first + n; i++)
        g_variant_builder_add (&builder, "i", queries[i].pid);
      if (!ipc_host_call_list_debug_directories_for_pids_sync (resolver->host, g_variant_builder_end (&builder),
                                                               G_DBUS_CALL_FLAGS_NONE, CALL_TIMEOUT, &answers, NULL,
                                                               &error))
        {
          if (is_unknown_method (resolver, error))
            continue;
          return;
        }
      for (guint i = 0; i < n && i < g_variant_n_children (answers); i++)
        {
          g_autoptr (GVariant) directories = NULL;
          const char *name;

          g_variant_get_child (answers, i, "(@aay&s&s)", &directories, &name, NULL);
          if (name[0] == '\0')
            queries[first + i].dirs = dirs_from_variant (directories);
          queries[first + i].gone = strcmp (name, GONE_ERROR) == 0;
        }
      first += n;
    }
}

static void
resolve_paths (SysprofSymbolizerHostQuery *queries, guint n_queries, gpointer user_data)
{
  Resolver *resolver = user_data;

  for (guint first = 0; first < n_queries;)
    {
      g_autoptr (GVariant) answers = NULL;
      g_autoptr (GError) error = NULL;
      GVariantBuilder builder;
      gsize           bytes = 0;
      guint           n = 0;

      if (resolver->no_batches)
        {
          for (guint i = first; i < n_queries; i++)
            queries[i].host_path = resolve_path (queries[i].pid, queries[i].path, resolver);
          return;
        }
      g_variant_builder_init (&builder, G_VARIANT_TYPE ("a(iay)"));
      /* Within both limits; a path too long for a call of its own is
       * asked alone, and the daemon says what it thinks of it. */
      while (first + n < n_queries && n < SYSPROF_DBUS_MAX_BATCH)
        {
          const SysprofSymbolizerHostQuery *q = &queries[first + n];
          gsize                             size = strlen (q->path) + 16;

          if (n > 0 && bytes + size > BATCH_BYTES)
            break;
          bytes += size;
          g_variant_builder_add (&builder, "(i@ay)", q->pid, g_variant_new_bytestring (q->path));
          n++;
        }
      if (!ipc_host_call_resolve_paths_sync (resolver->host, g_variant_builder_end (&builder), G_DBUS_CALL_FLAGS_NONE,
                                             CALL_TIMEOUT, &answers, NULL, &error))
        {
          if (is_unknown_method (resolver, error))
            continue;
          return;
        }
      for (guint i = 0; i < n && i < g_variant_n_children (answers); i++)
        {
          const char *host_path, *name;

          g_variant_get_child (answers, i, "(^&ay&s&s)", &host_path, &name, NULL);
          if (name[0] == '\0' && host_path[0] == '/')
            queries[first + i].host_path = g_strdup (host_path);
          queries[first + i].gone = strcmp (name, GONE_ERROR) == 0;
        }
      first += n;
    }
}

void
_sysprof_host_resolver_attach (SysprofSymbolizer *symbolizer, GDBusConnection *connection)
{
  static const SysprofSymbolizerHost host_calls = { list_debug_dirs, resolve_path, list_debug_dirs_batch,
                                                    resolve_paths };
  IpcHost                           *host;
  Resolver                          *resolver;

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
  resolver = g_new0 (Resolver, 1);
  resolver->host = host;
  g_object_set_data_full (G_OBJECT (symbolizer), "sysprof-host", resolver, resolver_free);
  sysprof_symbolizer_set_host (symbolizer, &host_calls, resolver);
}
