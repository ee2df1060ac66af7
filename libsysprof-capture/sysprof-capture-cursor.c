// SPDX-License-Identifier: BSD-2-Clause-Patent
#define SYSPROF_CAPTURE_COMPILATION 1

#include <stdatomic.h>

#include "sysprof-capture-condition.h"
#include "sysprof-capture-cursor.h"
#include "sysprof-capture-reader-private.h"
#include "sysprof-capture-util-private.h"

struct _SysprofCaptureCursor
{
  atomic_int ref_count;
  bool       reversed;
  /* Where the next forward foreach starts; a stop requested by the callback
   * leaves the cursor after the last delivered frame. */
  SysprofCaptureReader     *reader;
  SysprofCaptureCondition **conditions;
  unsigned int              n_conditions;
  /* Offsets of every frame, filled by the first reverse walk. */
  uint64_t *offsets;
  size_t    n_offsets;
  size_t    rpos; /* reverse: frames still to visit */
  bool      rpos_valid;
};

SysprofCaptureCursor *
sysprof_capture_cursor_new (SysprofCaptureReader *reader)
{
  SysprofCaptureCursor *self;

  if (!(self = calloc (1, sizeof *self)))
    return NULL;
  atomic_init (&self->ref_count, 1);
  /* Without a reader, as upstream: a cursor over nothing. */
  if (reader == NULL)
    return self;
  if (!(self->reader = sysprof_capture_reader_copy (reader)))
    {
      free (self);
      return NULL;
    }
  sysprof_capture_reader_reset (self->reader);
  return self;
}

SysprofCaptureCursor *
sysprof_capture_cursor_ref (SysprofCaptureCursor *self)
{
  sysprof_return_val_if_fail (self != NULL, NULL);

  atomic_fetch_add (&self->ref_count, 1);
  return self;
}

void
sysprof_capture_cursor_unref (SysprofCaptureCursor *self)
{
  if (self == NULL || atomic_fetch_sub (&self->ref_count, 1) != 1)
    return;

  for (unsigned int i = 0; i < self->n_conditions; i++)
    sysprof_capture_condition_unref (self->conditions[i]);
  free (self->conditions);
  free (self->offsets);
  sysprof_capture_reader_unref (self->reader);
  free (self);
}

SysprofCaptureReader *
sysprof_capture_cursor_get_reader (SysprofCaptureCursor *self)
{
  sysprof_return_val_if_fail (self != NULL, NULL);
  return self->reader;
}

void
sysprof_capture_cursor_add_condition (SysprofCaptureCursor *self, SysprofCaptureCondition *condition)
{
  SysprofCaptureCondition **conditions;

  if (self == NULL || condition == NULL)
    {
      sysprof_capture_condition_unref (condition);
      errno = EINVAL;
      return;
    }

  conditions = realloc (self->conditions, (self->n_conditions + 1) * sizeof *conditions);
  if (conditions == NULL)
    {
      sysprof_capture_condition_unref (condition);
      return;
    }
  self->conditions = conditions;
  self->conditions[self->n_conditions++] = condition;
}

void
sysprof_capture_cursor_reset (SysprofCaptureCursor *self)
{
  sysprof_return_if_fail (self != NULL);

  if (self->reader != NULL)
    sysprof_capture_reader_reset (self->reader);
  self->rpos_valid = false;
}

void
sysprof_capture_cursor_reverse (SysprofCaptureCursor *self)
{
  sysprof_return_if_fail (self != NULL);

  self->reversed = !self->reversed;
  self->rpos_valid = false;
}

static bool
cursor_matches (SysprofCaptureCursor *self, const SysprofCaptureFrame *frame)
{
  if (self->n_conditions == 0)
    return true;
  for (unsigned int i = 0; i < self->n_conditions; i++)
    if (sysprof_capture_condition_match (self->conditions[i], frame))
      return true;
  return false;
}

/* Returns 1 to continue, 0 when the callback stopped, -1 on a read error. */
static int
cursor_visit_next (SysprofCaptureCursor *self, SysprofCaptureCursorCallback callback, void *user_data)
{
  SysprofCaptureFrameType    type;
  const SysprofCaptureFrame *frame;

  if (!sysprof_capture_reader_peek_type (self->reader, &type))
    return sysprof_capture_reader_get_error (self->reader)->code ? -1 : 0;

  /* Unknown types and corrupt payloads are stepped over, not delivered. */
  if (type <= 0 || type >= SYSPROF_CAPTURE_FRAME_LAST || !(frame = sysprof_capture_reader_read_frame (self->reader)))
    {
      sysprof_capture_reader_skip (self->reader);
      return 1;
    }

  if (cursor_matches (self, frame) && !callback (frame, user_data))
    return 0;
  return 1;
}

static bool
cursor_collect_offsets (SysprofCaptureCursor *self)
{
  size_t size = 0;

  free (self->offsets);
  self->offsets = NULL;
  self->n_offsets = 0;

  sysprof_capture_reader_reset (self->reader);
  for (;;)
    {
      uint64_t                offset = sysprof_capture_reader_get_offset (self->reader);
      SysprofCaptureFrameType type;

      if (!sysprof_capture_reader_peek_type (self->reader, &type))
        break;
      /* peek skipped any index frame; the offset is now the real frame's. */
      offset = sysprof_capture_reader_get_offset (self->reader);
      if (self->n_offsets == size)
        {
          size_t    new_size = size ? size * 2 : 1024;
          uint64_t *offsets = realloc (self->offsets, new_size * sizeof *offsets);

          if (offsets == NULL)
            return false;
          self->offsets = offsets;
          size = new_size;
        }
      self->offsets[self->n_offsets++] = offset;
      sysprof_capture_reader_skip (self->reader);
    }

  self->rpos = self->n_offsets;
  self->rpos_valid = true;
  return sysprof_capture_reader_get_error (self->reader)->code == 0;
}

void
sysprof_capture_cursor_foreach (SysprofCaptureCursor *self, SysprofCaptureCursorCallback callback, void *user_data)
{
  (void) sysprof_capture_cursor_foreach_checked (self, callback, user_data);
}

bool
sysprof_capture_cursor_foreach_checked (SysprofCaptureCursor        *self,
                                        SysprofCaptureCursorCallback callback,
                                        void                        *user_data)
{
  int r;

  sysprof_return_val_if_fail (self != NULL, false);
  sysprof_return_val_if_fail (callback != NULL, false);

  if (self->reader == NULL)
    return true;

  if (!self->reversed)
    {
      while ((r = cursor_visit_next (self, callback, user_data)) > 0)
        ;
      if (r < 0)
        {
          errno = sysprof_capture_reader_get_error (self->reader)->code;
          return false;
        }
      return true;
    }

  /* Reverse: index the frame offsets once, then visit them from the end.
   * Frames past a corruption point cannot be located and are not visited. */
  {
    bool complete = true;

    if (!self->rpos_valid)
      complete = cursor_collect_offsets (self);

    while (self->rpos > 0)
      {
        uint64_t offset = self->offsets[--self->rpos];

        if (!_sysprof_capture_reader_seek (self->reader, offset))
          return false;
        r = cursor_visit_next (self, callback, user_data);
        if (r == 0)
          return true;
        if (r < 0)
          {
            errno = sysprof_capture_reader_get_error (self->reader)->code;
            return false;
          }
      }

    if (!complete)
      {
        errno = EBADMSG;
        return false;
      }
    return true;
  }
}
