// SPDX-License-Identifier: GPL-3.0-or-later
/* SysprofGroupDropdown: a drop-down that narrows a view to one source of
 * marks or logs: their group or domain ("gtk", "glib", "gjs", a program's
 * own).  "All …" first, then one entry per group with its count, most
 * frequent first, so the platform's sources are told apart at a glance. */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* @all_label: the first entry ("All groups"); @accessible_label names the
 * control for screen readers. */
GtkWidget *sysprof_group_dropdown_new (const char *all_label, const char *accessible_label);
/* Counts one more item of @group in @counts (group -> GUINT_TO_POINTER
 * (count), keys borrowed). */
void sysprof_group_dropdown_count (GHashTable *counts, const char *group);
/* Replaces the entries with the keys of @counts (group -> GUINT_TO_POINTER
 * (count)) and selects "All …". */
void sysprof_group_dropdown_set_groups (GtkWidget *dropdown, GHashTable *counts);
/* The selected group, NULL for "All …"; valid until the next set_groups. */
const char *sysprof_group_dropdown_get_group (GtkWidget *dropdown);

G_END_DECLS
