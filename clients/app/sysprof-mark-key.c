// SPDX-License-Identifier: GPL-3.0-or-later
#include <string.h>

#include "sysprof-mark-key.h"

guint
sysprof_mark_key_hash (gconstpointer data)
{
  const SysprofMarkKey *key = data;

  return g_str_hash (key->group) * 33 + g_str_hash (key->name);
}

gboolean
sysprof_mark_key_equal (gconstpointer a, gconstpointer b)
{
  const SysprofMarkKey *ka = a;
  const SysprofMarkKey *kb = b;

  return strcmp (ka->group, kb->group) == 0 && strcmp (ka->name, kb->name) == 0;
}
