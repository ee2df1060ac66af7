// SPDX-License-Identifier: GPL-3.0-or-later
/* Fuzz target: the sched_switch tracepoint's format file (tracefs), parsed
 * by the recorder of scheduler details, and the RAW records read with what
 * it found.  The input is split at its first NUL: the format text, then a
 * RAW record.  A format accepted must keep every field inside min_size, and
 * reading any record shorter than that must fail. */

#include <stdint.h>
#include <string.h>

#include "sysprof-sched-switch-private.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  const uint8_t           *nul = memchr (data, 0, size);
  size_t                   text_len = nul ? (size_t) (nul - data) : size;
  SysprofSchedSwitchFormat format;
  SysprofSchedSwitch       sw;
  g_autoptr (GError) error = NULL;

  if (!_sysprof_sched_switch_format_parse ((const char *) data, text_len, &format, &error))
    {
      if (error == NULL || error->message[0] == 0)
        __builtin_trap ();
      return 0;
    }
  if (format.prev_comm_offset + format.prev_comm_size > format.min_size ||
      format.prev_pid_offset + 4 > format.min_size || format.next_pid_offset + 4 > format.min_size ||
      format.prev_state_offset + format.prev_state_size > format.min_size || format.prev_comm_size > 16)
    __builtin_trap ();
  if (nul != NULL)
    {
      /* The rest, copied so that a read past it is caught. */
      size_t   raw_len = size - text_len - 1;
      uint8_t *raw = g_memdup2 (nul + 1, raw_len);
      gboolean read = _sysprof_sched_switch_read (&format, raw, raw_len, &sw);

      if (read != (raw_len >= format.min_size) || (read && strlen (sw.prev_comm) > 16))
        __builtin_trap ();
      g_free (raw);
    }
  return 0;
}
