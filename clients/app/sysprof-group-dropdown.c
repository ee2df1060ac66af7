// SPDX-License-Identifier: GPL-3.0-or-later
#include "sysprof-group-dropdown.h"

/* The group of each entry after the first, in entry order: the labels carry
 * counts and a placeholder for the empty group, so they cannot be parsed
 * back. */
#define GROUPS_KEY "sysprof-group-dropdown-groups"

GtkWidget *
sysprof_group_dropdown_new (const char *all_label, const char *accessible_label)
{
  const char *labels[] = { all_label, NULL };
  GtkWidget  *dropdown = gtk_drop_down_new_from_strings (labels);

  g_object_set_data_full (G_OBJECT (dropdown), "sysprof-group-dropdown-all", g_strdup (all_label), g_free);
  gtk_widget_set_tooltip_text (dropdown, "Show only this source");
  gtk_accessible_update_property (GTK_ACCESSIBLE (dropdown), GTK_ACCESSIBLE_PROPERTY_LABEL, accessible_label, -1);
  /* Nothing to choose until the groups are known. */
  gtk_widget_set_sensitive (dropdown, FALSE);
  return dropdown;
}

void
sysprof_group_dropdown_count (GHashTable *counts, const char *group)
{
  g_hash_table_insert (counts, (gpointer) group,
                       GUINT_TO_POINTER (GPOINTER_TO_UINT (g_hash_table_lookup (counts, group)) + 1));
}

typedef struct
{
  const char *group;
  guint       count;
} Entry;

static int
compare_entries (gconstpointer a, gconstpointer b)
{
  const Entry *ea = a;
  const Entry *eb = b;

  if (ea->count != eb->count)
    return ea->count > eb->count ? -1 : 1;
  return strcmp (ea->group, eb->group);
}

void
sysprof_group_dropdown_set_groups (GtkWidget *dropdown, GHashTable *counts)
{
  g_autoptr (GArray) entries = g_array_new (FALSE, FALSE, sizeof (Entry));
  g_autoptr (GtkStringList) labels = gtk_string_list_new (NULL);
  GStrv          groups = g_new0 (char *, g_hash_table_size (counts) + 1);
  GHashTableIter iter;
  gpointer       key, value;

  g_hash_table_iter_init (&iter, counts);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      Entry entry = { key, GPOINTER_TO_UINT (value) };

      g_array_append_val (entries, entry);
    }
  g_array_sort (entries, compare_entries);

  gtk_string_list_append (labels, g_object_get_data (G_OBJECT (dropdown), "sysprof-group-dropdown-all"));
  for (guint i = 0; i < entries->len; i++)
    {
      const Entry     *entry = &g_array_index (entries, Entry, i);
      g_autofree char *label =
          g_strdup_printf ("%s (%u)", entry->group[0] != '\0' ? entry->group : "(no name)", entry->count);

      gtk_string_list_append (labels, label);
      groups[i] = g_strdup (entry->group);
    }
  g_object_set_data_full (G_OBJECT (dropdown), GROUPS_KEY, groups, (GDestroyNotify) g_strfreev);
  gtk_drop_down_set_model (GTK_DROP_DOWN (dropdown), G_LIST_MODEL (labels));
  gtk_drop_down_set_selected (GTK_DROP_DOWN (dropdown), 0);
  /* One source only: "All" is the same as it. */
  gtk_widget_set_sensitive (dropdown, entries->len > 1);
}

const char *
sysprof_group_dropdown_get_group (GtkWidget *dropdown)
{
  GStrv groups = g_object_get_data (G_OBJECT (dropdown), GROUPS_KEY);
  guint selected = gtk_drop_down_get_selected (GTK_DROP_DOWN (dropdown));

  if (groups == NULL || selected == 0 || selected == GTK_INVALID_LIST_POSITION)
    return NULL;
  if (selected - 1 >= g_strv_length (groups))
    return NULL;
  return groups[selected - 1];
}
