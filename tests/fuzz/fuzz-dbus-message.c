// SPDX-License-Identifier: GPL-3.0-or-later
/* Fuzz target: the D-Bus messages of DBUS_MESSAGE frames, as
 * libsysprof/analysis/sysprof-dbus-messages.c decodes them (a length check,
 * then GDBus's own parser) and pairs calls with replies.  The input is a
 * series of messages, each preceded by its length (2 bytes, little endian),
 * as frames carry them.  Beyond not crashing: a decoded message's strings
 * are valid UTF-8, the body prints, and the statistics count no more
 * replies than calls. */

#include <stdint.h>

#include "sysprof-analysis.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  g_autoptr (GPtrArray) messages = g_ptr_array_new_with_free_func ((GDestroyNotify) sysprof_dbus_message_free);
  g_autoptr (GArray) stats = NULL;
  size_t at = 0;

  while (at + 2 <= size && messages->len < 256)
    {
      size_t              len = (size_t) data[at] | (size_t) data[at + 1] << 8;
      SysprofDbusMessage *message;
      g_autofree char    *body = NULL;

      at += 2;
      len = MIN (len, size - at);
      message = sysprof_dbus_message_decode (data + at, len);
      at += len;
      message->time_ns = (gint64) messages->len * 1000;
      g_assert (message->size == len);
      if (message->state == SYSPROF_DBUS_MESSAGE_DECODED)
        {
          const char *texts[] = { message->sender,    message->destination, message->path,
                                  message->interface, message->member,      message->error_name };

          for (guint i = 0; i < G_N_ELEMENTS (texts); i++)
            g_assert (texts[i] == NULL || g_utf8_validate (texts[i], -1, NULL));
          body = sysprof_dbus_message_dup_body_text (message);
          g_assert_nonnull (body);
        }
      g_assert_nonnull (sysprof_dbus_message_type_name (message));
      g_ptr_array_add (messages, message);
    }
  stats = sysprof_dbus_call_stats (messages);
  for (guint i = 0; i < stats->len; i++)
    {
      const SysprofDbusCallStat *s = &g_array_index (stats, SysprofDbusCallStat, i);

      g_assert_cmpuint (s->replies + s->no_reply, <=, s->count);
      g_assert_cmpuint (s->errors, <=, s->replies);
      g_assert_cmpint (s->min_ns, <=, s->max_ns);
    }
  return 0;
}
