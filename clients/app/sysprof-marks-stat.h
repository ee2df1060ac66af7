// SPDX-License-Identifier: GPL-3.0-or-later
/* SysprofMarksStat: a row of the marks view's summary, the marks of one
 * (group, name) in the selection and their durations.  Its fields are read
 * directly by the summary's cells and sorters. */
#pragma once

#include <glib-object.h>

G_BEGIN_DECLS

#define SYSPROF_TYPE_MARKS_STAT (sysprof_marks_stat_get_type ())
G_DECLARE_FINAL_TYPE (SysprofMarksStat, sysprof_marks_stat, SYSPROF, MARKS_STAT, GObject)

struct _SysprofMarksStat
{
  GObject parent_instance;

  char *group;
  char *name;
  guint count;
  /* A double: the sum of many long marks does not fit in a gint64. */
  double total_ns;
  gint64 min_ns;
  gint64 max_ns;
  double mean_ns;
  double median_ns;
};

G_END_DECLS
