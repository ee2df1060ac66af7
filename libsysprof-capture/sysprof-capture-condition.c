// SPDX-License-Identifier: BSD-2-Clause-Patent
#define SYSPROF_CAPTURE_COMPILATION 1

#include <stdatomic.h>

#include "sysprof-capture-condition.h"
#include "sysprof-capture-util-private.h"

typedef enum
{
  COND_AND,
  COND_OR,
  COND_TYPE_IN,
  COND_TIME_BETWEEN,
  COND_PID_IN,
  COND_COUNTER_IN,
  COND_FILE,
} ConditionKind;

struct _SysprofCaptureCondition
{
  atomic_int    ref_count;
  ConditionKind kind;
  union
  {
    struct
    {
      SysprofCaptureCondition *left, *right;
    } pair;
    struct
    {
      int64_t begin, end;
    } time;
    struct
    {
      unsigned int n;
      int32_t     *items;
    } ints; /* types, pids or counter ids */
    char *path;
  } u;
};

static SysprofCaptureCondition *
condition_new (ConditionKind kind)
{
  SysprofCaptureCondition *self = calloc (1, sizeof *self);

  if (self != NULL)
    {
      atomic_init (&self->ref_count, 1);
      self->kind = kind;
    }
  return self;
}

static SysprofCaptureCondition *
condition_new_pair (ConditionKind kind, SysprofCaptureCondition *left, SysprofCaptureCondition *right)
{
  SysprofCaptureCondition *self;

  if (left == NULL || right == NULL || !(self = condition_new (kind)))
    {
      sysprof_capture_condition_unref (left);
      sysprof_capture_condition_unref (right);
      errno = left == NULL || right == NULL ? EINVAL : ENOMEM;
      return NULL;
    }
  self->u.pair.left = left;
  self->u.pair.right = right;
  return self;
}

SysprofCaptureCondition *
sysprof_capture_condition_new_and (SysprofCaptureCondition *left, SysprofCaptureCondition *right)
{
  return condition_new_pair (COND_AND, left, right);
}

SysprofCaptureCondition *
sysprof_capture_condition_new_or (SysprofCaptureCondition *left, SysprofCaptureCondition *right)
{
  return condition_new_pair (COND_OR, left, right);
}

static SysprofCaptureCondition *
condition_new_ints (ConditionKind kind, unsigned int n, const void *items)
{
  SysprofCaptureCondition *self;

  sysprof_return_val_if_fail (items != NULL || n == 0, NULL);

  if (!(self = condition_new (kind)))
    return NULL;
  self->u.ints.n = n;
  if (n > 0)
    {
      if (!(self->u.ints.items = malloc ((size_t) n * sizeof (int32_t))))
        {
          free (self);
          return NULL;
        }
      memcpy (self->u.ints.items, items, (size_t) n * sizeof (int32_t));
    }
  return self;
}

SysprofCaptureCondition *
sysprof_capture_condition_new_where_type_in (unsigned int n_types, const SysprofCaptureFrameType *types)
{
  SysprofCaptureCondition *self;

  sysprof_return_val_if_fail (types != NULL || n_types == 0, NULL);

  if (!(self = condition_new_ints (COND_TYPE_IN, 0, NULL)))
    return NULL;
  if (n_types > 0 && !(self->u.ints.items = malloc ((size_t) n_types * sizeof (int32_t))))
    {
      free (self);
      return NULL;
    }
  for (unsigned int i = 0; i < n_types; i++)
    self->u.ints.items[i] = (int32_t) types[i];
  self->u.ints.n = n_types;
  return self;
}

SysprofCaptureCondition *
sysprof_capture_condition_new_where_time_between (int64_t begin_time, int64_t end_time)
{
  SysprofCaptureCondition *self;

  if (begin_time > end_time)
    {
      int64_t tmp = begin_time;
      begin_time = end_time;
      end_time = tmp;
    }

  if (!(self = condition_new (COND_TIME_BETWEEN)))
    return NULL;
  self->u.time.begin = begin_time;
  self->u.time.end = end_time;
  return self;
}

SysprofCaptureCondition *
sysprof_capture_condition_new_where_pid_in (unsigned int n_pids, const int32_t *pids)
{
  return condition_new_ints (COND_PID_IN, n_pids, pids);
}

SysprofCaptureCondition *
sysprof_capture_condition_new_where_counter_in (unsigned int n_counters, const unsigned int *counters)
{
  return condition_new_ints (COND_COUNTER_IN, n_counters, counters);
}

SysprofCaptureCondition *
sysprof_capture_condition_new_where_file (const char *path)
{
  SysprofCaptureCondition *self;

  sysprof_return_val_if_fail (path != NULL, NULL);

  if (!(self = condition_new (COND_FILE)))
    return NULL;
  if (!(self->u.path = strdup (path)))
    {
      free (self);
      return NULL;
    }
  return self;
}

SysprofCaptureCondition *
sysprof_capture_condition_copy (const SysprofCaptureCondition *self)
{
  sysprof_return_val_if_fail (self != NULL, NULL);

  switch (self->kind)
    {
    case COND_AND:
    case COND_OR:
      return condition_new_pair (self->kind, sysprof_capture_condition_copy (self->u.pair.left),
                                 sysprof_capture_condition_copy (self->u.pair.right));
    case COND_TIME_BETWEEN:
      return sysprof_capture_condition_new_where_time_between (self->u.time.begin, self->u.time.end);
    case COND_FILE: return sysprof_capture_condition_new_where_file (self->u.path);
    case COND_TYPE_IN:
    case COND_PID_IN:
    case COND_COUNTER_IN:
    default: return condition_new_ints (self->kind, self->u.ints.n, self->u.ints.items);
    }
}

SysprofCaptureCondition *
sysprof_capture_condition_ref (SysprofCaptureCondition *self)
{
  sysprof_return_val_if_fail (self != NULL, NULL);

  atomic_fetch_add (&self->ref_count, 1);
  return self;
}

void
sysprof_capture_condition_unref (SysprofCaptureCondition *self)
{
  if (self == NULL || atomic_fetch_sub (&self->ref_count, 1) != 1)
    return;

  switch (self->kind)
    {
    case COND_AND:
    case COND_OR:
      sysprof_capture_condition_unref (self->u.pair.left);
      sysprof_capture_condition_unref (self->u.pair.right);
      break;
    case COND_FILE: free (self->u.path); break;
    case COND_TYPE_IN:
    case COND_PID_IN:
    case COND_COUNTER_IN: free (self->u.ints.items); break;
    case COND_TIME_BETWEEN:
    default: break;
    }
  free (self);
}

static bool
ints_contain (const SysprofCaptureCondition *self, int32_t value)
{
  for (unsigned int i = 0; i < self->u.ints.n; i++)
    if (self->u.ints.items[i] == value)
      return true;
  return false;
}

bool
sysprof_capture_condition_match (const SysprofCaptureCondition *self, const SysprofCaptureFrame *frame)
{
  sysprof_return_val_if_fail (self != NULL, false);
  sysprof_return_val_if_fail (frame != NULL, false);

  switch (self->kind)
    {
    case COND_AND:
      return sysprof_capture_condition_match (self->u.pair.left, frame) &&
             sysprof_capture_condition_match (self->u.pair.right, frame);

    case COND_OR:
      return sysprof_capture_condition_match (self->u.pair.left, frame) ||
             sysprof_capture_condition_match (self->u.pair.right, frame);

    case COND_TYPE_IN: return ints_contain (self, (int32_t) frame->type);

    case COND_TIME_BETWEEN: return frame->time >= self->u.time.begin && frame->time <= self->u.time.end;

    case COND_PID_IN: return ints_contain (self, frame->pid);

    case COND_COUNTER_IN:
      if (frame->type == SYSPROF_CAPTURE_FRAME_CTRSET)
        {
          const SysprofCaptureCounterSet *set = (const SysprofCaptureCounterSet *) frame;

          for (unsigned int i = 0; i < set->n_values; i++)
            for (unsigned int j = 0; j < 8; j++)
              if (set->values[i].ids[j] != 0 && ints_contain (self, (int32_t) set->values[i].ids[j]))
                return true;
        }
      else if (frame->type == SYSPROF_CAPTURE_FRAME_CTRDEF)
        {
          const SysprofCaptureCounterDefine *def = (const SysprofCaptureCounterDefine *) frame;

          for (unsigned int i = 0; i < def->n_counters; i++)
            if (ints_contain (self, (int32_t) def->counters[i].id))
              return true;
        }
      return false;

    case COND_FILE:
      return frame->type == SYSPROF_CAPTURE_FRAME_FILE_CHUNK &&
             strcmp (((const SysprofCaptureFileChunk *) frame)->path, self->u.path) == 0;

    default: return false;
    }
}
