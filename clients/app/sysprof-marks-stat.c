// SPDX-License-Identifier: GPL-3.0-or-later

#include "sysprof-marks-stat.h"

G_DEFINE_FINAL_TYPE (SysprofMarksStat, sysprof_marks_stat, G_TYPE_OBJECT)

static void
sysprof_marks_stat_finalize (GObject *object)
{
  SysprofMarksStat *self = SYSPROF_MARKS_STAT (object);

  g_free (self->group);
  g_free (self->name);

  G_OBJECT_CLASS (sysprof_marks_stat_parent_class)->finalize (object);
}

static void
sysprof_marks_stat_class_init (SysprofMarksStatClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = sysprof_marks_stat_finalize;
}

static void
sysprof_marks_stat_init (SysprofMarksStat *self)
{
  (void) self;
}
