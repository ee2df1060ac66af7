// SPDX-License-Identifier: GPL-3.0-or-later
/* SysprofMarkKey: the (group, name) of a mark, as a hash table key: the
 * marks view groups its marks by it, both for the waterfall's rows and for
 * the summary's statistics. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Borrowed strings: grouping a million marks allocates nothing per mark. */
typedef struct
{
  const char *group;
  const char *name;
} SysprofMarkKey;

guint    sysprof_mark_key_hash (gconstpointer data);
gboolean sysprof_mark_key_equal (gconstpointer a, gconstpointer b);

G_END_DECLS
