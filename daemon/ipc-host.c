// SPDX-License-Identifier: GPL-3.0-or-later
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "ipc-host.h"
#include "sysprofd-auth.h"

static gboolean
handle_get_kernel_symbols (IpcHost *host, GDBusMethodInvocation *invocation)
{
  g_autofree char *contents = NULL;
  g_autoptr (GError) error = NULL;
  GVariantBuilder builder;
  char           *line;
  char           *save = NULL;

  if (!g_file_get_contents ("/proc/kallsyms", &contents, NULL, &error))
    {
      g_dbus_method_invocation_return_error (invocation, G_DBUS_ERROR, G_DBUS_ERROR_FAILED,
                                             "Cannot read /proc/kallsyms: %s", error->message);
      return TRUE;
    }

  g_variant_builder_init (&builder, G_VARIANT_TYPE ("a(tys)"));
  for (line = strtok_r (contents, "\n", &save); line; line = strtok_r (NULL, "\n", &save))
    {
      char   *end;
      guint64 addr = g_ascii_strtoull (line, &end, 16);
      char    type;
      char   *name;
      char   *tab;

      if (end == line || end[0] != ' ' || end[1] == 0 || end[2] != ' ')
        continue;
      type = end[1];
      name = end + 3;
      /* Module symbols carry "\t[module]": keep the module as part of the name. */
      if ((tab = strchr (name, '\t')))
        *tab = ' ';
      if (!g_utf8_validate (name, -1, NULL))
        continue;
      g_variant_builder_add (&builder, "(tys)", addr, (guchar) type, name);
    }

  ipc_host_complete_get_kernel_symbols (host, invocation, g_variant_builder_end (&builder));
  return TRUE;
}

IpcHost *
ipc_host_impl_new (void)
{
  IpcHost *host = ipc_host_skeleton_new ();

  g_dbus_interface_skeleton_set_flags (G_DBUS_INTERFACE_SKELETON (host),
                                       G_DBUS_INTERFACE_SKELETON_FLAGS_HANDLE_METHOD_INVOCATIONS_IN_THREAD);
  g_signal_connect (host, "g-authorize-method", G_CALLBACK (sysprofd_authorize_method), NULL);
  g_signal_connect (host, "handle-get-kernel-symbols", G_CALLBACK (handle_get_kernel_symbols), NULL);
  return host;
}
