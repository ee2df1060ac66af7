// SPDX-License-Identifier: GPL-3.0-or-later
#include <stdlib.h>
#include <string.h>

#include "sysprof-capture-error.h"
#include "sysprof-dbus-messages.h"

/* A D-Bus message's fixed header: endianness, type, flags, version, body
 * length, serial, header fields' length. */
#define FIXED_HEADER 16

static char *
dup_valid (const char *text)
{
  return text ? g_utf8_make_valid (text, -1) : NULL;
}

SysprofDbusMessage *
sysprof_dbus_message_decode (const guint8 *blob, gsize len)
{
  SysprofDbusMessage *message = g_new0 (SysprofDbusMessage, 1);
  g_autoptr (GDBusMessage) decoded = NULL;
  gssize needed;

  message->size = len;
  message->state = SYSPROF_DBUS_MESSAGE_UNDECODABLE;
  message->type = G_DBUS_MESSAGE_TYPE_INVALID;
  if (blob == NULL || len < FIXED_HEADER)
    return message;
  /* The header says how long the message is: exactly the blob, or the
   * blob is not one message (GDBus would read what the header says). */
  needed = g_dbus_message_bytes_needed ((guchar *) blob, len, NULL);
  if (needed < 0 || (gsize) needed != len)
    return message;
  decoded = g_dbus_message_new_from_blob ((guchar *) blob, len, G_DBUS_CAPABILITY_FLAGS_UNIX_FD_PASSING, NULL);
  if (decoded == NULL)
    return message;

  message->state = SYSPROF_DBUS_MESSAGE_DECODED;
  message->type = g_dbus_message_get_message_type (decoded);
  message->no_reply_expected = (g_dbus_message_get_flags (decoded) & G_DBUS_MESSAGE_FLAGS_NO_REPLY_EXPECTED) != 0;
  message->serial = g_dbus_message_get_serial (decoded);
  message->reply_serial = g_dbus_message_get_reply_serial (decoded);
  message->sender = dup_valid (g_dbus_message_get_sender (decoded));
  message->destination = dup_valid (g_dbus_message_get_destination (decoded));
  message->path = dup_valid (g_dbus_message_get_path (decoded));
  message->interface = dup_valid (g_dbus_message_get_interface (decoded));
  message->member = dup_valid (g_dbus_message_get_member (decoded));
  message->error_name = dup_valid (g_dbus_message_get_error_name (decoded));
  if (g_dbus_message_get_body (decoded) != NULL)
    message->body = g_variant_ref (g_dbus_message_get_body (decoded));
  return message;
}

void
sysprof_dbus_message_free (SysprofDbusMessage *message)
{
  if (message == NULL)
    return;
  g_free (message->sender);
  g_free (message->destination);
  g_free (message->path);
  g_free (message->interface);
  g_free (message->member);
  g_free (message->error_name);
  g_clear_pointer (&message->body, g_variant_unref);
  g_free (message);
}

const char *
sysprof_dbus_bus_name (guint bus_type)
{
  switch (bus_type)
    {
    case SYSPROF_CAPTURE_DBUS_TYPE_SYSTEM: return "system";
    case SYSPROF_CAPTURE_DBUS_TYPE_SESSION: return "session";
    case SYSPROF_CAPTURE_DBUS_TYPE_A11Y: return "a11y";
    default: return "other";
    }
}

const char *
sysprof_dbus_message_type_name (const SysprofDbusMessage *message)
{
  g_return_val_if_fail (message != NULL, NULL);

  if (message->state == SYSPROF_DBUS_MESSAGE_TOO_LARGE)
    return "too-large";
  if (message->state == SYSPROF_DBUS_MESSAGE_UNDECODABLE)
    return "undecodable";
  switch (message->type)
    {
    case G_DBUS_MESSAGE_TYPE_METHOD_CALL: return "call";
    case G_DBUS_MESSAGE_TYPE_METHOD_RETURN: return "return";
    case G_DBUS_MESSAGE_TYPE_ERROR: return "error";
    case G_DBUS_MESSAGE_TYPE_SIGNAL: return "signal";
    case G_DBUS_MESSAGE_TYPE_INVALID:
    default: return "unknown";
    }
}

char *
sysprof_dbus_message_dup_body_text (const SysprofDbusMessage *message)
{
  g_return_val_if_fail (message != NULL, NULL);

  if (message->state != SYSPROF_DBUS_MESSAGE_DECODED)
    return NULL;
  return message->body ? g_variant_print (message->body, TRUE) : g_strdup ("()");
}

static void
parse_counts (const char *text, SysprofDbusCounts *counts)
{
  g_auto (GStrv) words = g_strsplit (text, " ", -1);

  counts->recorded = TRUE;
  for (guint i = 0; words[i] != NULL; i++)
    {
      const char *eq = strchr (words[i], '=');
      guint64     value;

      if (eq == NULL || !g_ascii_string_to_unsigned (eq + 1, 10, 0, G_MAXUINT64, &value, NULL))
        continue;
      if (g_str_has_prefix (words[i], "messages="))
        counts->messages += value;
      else if (g_str_has_prefix (words[i], "too-large="))
        counts->too_large += value;
      else if (g_str_has_prefix (words[i], "lost="))
        counts->lost += value;
    }
}

static int
compare_time (gconstpointer a, gconstpointer b)
{
  const SysprofDbusMessage *x = *(SysprofDbusMessage *const *) a;
  const SysprofDbusMessage *y = *(SysprofDbusMessage *const *) b;

  return x->time_ns < y->time_ns ? -1 : x->time_ns > y->time_ns;
}

GPtrArray *
sysprof_dbus_messages_from_reader (SysprofCaptureReader *reader, SysprofDbusCounts *counts, GError **error)
{
  g_autoptr (GPtrArray) messages = g_ptr_array_new_with_free_func ((GDestroyNotify) sysprof_dbus_message_free);
  SysprofCaptureFrameType    type;
  const SysprofCaptureError *capture_error;
  gint64                     start;

  g_return_val_if_fail (reader != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (counts != NULL)
    memset (counts, 0, 4 * sizeof *counts);
  if (!sysprof_capture_reader_reset (reader))
    {
      sysprof_set_capture_error (error, sysprof_capture_reader_get_error (reader), NULL);
      return NULL;
    }
  start = sysprof_capture_reader_get_start_time (reader);
  while (sysprof_capture_reader_peek_type (reader, &type))
    {
      if (type == SYSPROF_CAPTURE_FRAME_DBUS_MESSAGE)
        {
          const SysprofCaptureDBusMessage *frame = sysprof_capture_reader_read_dbus_message (reader);
          SysprofDbusMessage              *message;

          if (frame == NULL)
            break;
          if (frame->flags & SYSPROF_CAPTURE_DBUS_FLAGS_MESSAGE_TOO_LARGE)
            {
              message = g_new0 (SysprofDbusMessage, 1);
              message->state = SYSPROF_DBUS_MESSAGE_TOO_LARGE;
            }
          else
            message = sysprof_dbus_message_decode (frame->message, frame->message_len);
          message->bus_type = frame->bus_type;
          /* Saturating: a hostile time must not wrap. */
          if (frame->frame.time < 0 && start > G_MAXINT64 + frame->frame.time)
            message->time_ns = G_MININT64;
          else if (frame->frame.time > 0 && start < G_MININT64 + frame->frame.time)
            message->time_ns = G_MAXINT64;
          else
            message->time_ns = frame->frame.time - start;
          g_ptr_array_add (messages, message);
        }
      else if (type == SYSPROF_CAPTURE_FRAME_METADATA && counts != NULL)
        {
          const SysprofCaptureMetadata *metadata = sysprof_capture_reader_read_metadata (reader);
          static const char             prefix[] = "sysprof.dbus.";
          g_autofree char              *id = NULL;

          if (metadata == NULL)
            break;
          id = g_strndup (metadata->id, sizeof metadata->id);
          if (g_str_has_prefix (id, prefix))
            for (guint bus = 0; bus < 4; bus++)
              if (g_str_equal (id + strlen (prefix), sysprof_dbus_bus_name (bus)))
                parse_counts (metadata->metadata, &counts[bus]);
        }
      else if (!sysprof_capture_reader_skip (reader))
        break;
    }
  capture_error = sysprof_capture_reader_get_error (reader);
  if (capture_error->code != 0)
    {
      sysprof_set_capture_error (error, capture_error, NULL);
      return NULL;
    }
  /* Merged captures come after the recording's own frames. */
  g_ptr_array_sort (messages, compare_time);
  return g_steal_pointer (&messages);
}

GPtrArray *
sysprof_dbus_messages_from_summary (const SysprofCaptureSummary *summary)
{
  g_autoptr (GPtrArray) messages = NULL;

  g_return_val_if_fail (summary != NULL, NULL);

  if (summary->n_dbus_dropped > 0)
    return NULL;
  messages = g_ptr_array_new_full (summary->dbus_messages->len, (GDestroyNotify) sysprof_dbus_message_free);
  for (guint i = 0; i < summary->dbus_messages->len; i++)
    {
      const SysprofSummaryDbusMessage *kept = &g_array_index (summary->dbus_messages, SysprofSummaryDbusMessage, i);
      SysprofDbusMessage              *message;

      if (kept->too_large)
        {
          message = g_new0 (SysprofDbusMessage, 1);
          message->state = SYSPROF_DBUS_MESSAGE_TOO_LARGE;
        }
      else
        {
          /* The summary's own bookkeeping, but a bound is cheap. */
          g_return_val_if_fail (kept->kept && (guint64) kept->offset + kept->length <= summary->dbus_bytes->len, NULL);
          /* No bytes kept (an empty frame): no pointer arithmetic on the
           * array's NULL data. */
          message = sysprof_dbus_message_decode (kept->length > 0 ? summary->dbus_bytes->data + kept->offset : NULL,
                                                 kept->length);
        }
      message->bus_type = kept->bus_type;
      message->time_ns = kept->time_ns;
      g_ptr_array_add (messages, message);
    }
  return g_steal_pointer (&messages);
}

/* Statistics. */

typedef struct
{
  SysprofDbusCallStat stat;
  GArray             *latencies; /* gint64 */
} Acc;

static void
acc_free (Acc *acc)
{
  sysprof_dbus_call_stat_clear (&acc->stat);
  g_array_unref (acc->latencies);
  g_free (acc);
}

typedef struct
{
  guint       bus_type;
  const char *peer; /* the caller's unique name */
  guint32     serial;
} CallKey;

static guint
call_key_hash (gconstpointer p)
{
  const CallKey *key = p;

  return g_str_hash (key->peer) ^ (key->serial * 2654435761u) ^ key->bus_type;
}

static gboolean
call_key_equal (gconstpointer a, gconstpointer b)
{
  const CallKey *x = a, *y = b;

  return x->bus_type == y->bus_type && x->serial == y->serial && g_str_equal (x->peer, y->peer);
}

typedef struct
{
  CallKey  key;
  gint64   time_ns;
  Acc     *acc;
  gboolean answered;
} Call;

static int
compare_gint64 (gconstpointer a, gconstpointer b)
{
  gint64 x = *(const gint64 *) a, y = *(const gint64 *) b;

  return x < y ? -1 : x > y;
}

static int
compare_stats (gconstpointer a, gconstpointer b)
{
  const SysprofDbusCallStat *x = a, *y = b;
  int                        by_name;

  if (x->count != y->count)
    return x->count > y->count ? -1 : 1;
  if ((by_name = strcmp (x->name, y->name)) != 0)
    return by_name;
  return strcmp (x->type, y->type);
}

GArray *
sysprof_dbus_call_stats (GPtrArray *messages)
{
  g_autoptr (GHashTable) accs = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) acc_free);
  g_autoptr (GHashTable) calls = g_hash_table_new_full (call_key_hash, call_key_equal, NULL, g_free);
  GArray        *stats;
  GHashTableIter iter;
  gpointer       value;

  g_return_val_if_fail (messages != NULL, NULL);

  stats = g_array_new (FALSE, FALSE, sizeof (SysprofDbusCallStat));
  g_array_set_clear_func (stats, (GDestroyNotify) sysprof_dbus_call_stat_clear);
  for (guint i = 0; i < messages->len; i++)
    {
      const SysprofDbusMessage *message = messages->pdata[i];

      if (message->state != SYSPROF_DBUS_MESSAGE_DECODED)
        continue;
      if (message->type == G_DBUS_MESSAGE_TYPE_METHOD_CALL || message->type == G_DBUS_MESSAGE_TYPE_SIGNAL)
        {
          const char      *type = sysprof_dbus_message_type_name (message);
          g_autofree char *name = g_strdup_printf ("%s.%s", message->interface ? message->interface : "",
                                                   message->member ? message->member : "");
          g_autofree char *key = g_strconcat (type, " ", name, NULL);
          Acc             *acc = g_hash_table_lookup (accs, key);

          if (acc == NULL)
            {
              acc = g_new0 (Acc, 1);
              acc->stat.name = g_steal_pointer (&name);
              acc->stat.type = g_strdup (type);
              acc->latencies = g_array_new (FALSE, FALSE, sizeof (gint64));
              g_hash_table_insert (accs, g_steal_pointer (&key), acc);
            }
          acc->stat.count++;
          if (message->type == G_DBUS_MESSAGE_TYPE_METHOD_CALL && message->sender != NULL &&
              !message->no_reply_expected)
            {
              Call *call = g_new0 (Call, 1);

              call->key.bus_type = message->bus_type;
              call->key.peer = message->sender;
              call->key.serial = message->serial;
              call->time_ns = message->time_ns;
              call->acc = acc;
              /* A serial used again (a hostile client): the later call. */
              g_hash_table_replace (calls, &call->key, call);
            }
        }
      else if ((message->type == G_DBUS_MESSAGE_TYPE_METHOD_RETURN || message->type == G_DBUS_MESSAGE_TYPE_ERROR) &&
               message->destination != NULL && message->reply_serial != 0)
        {
          CallKey key = { message->bus_type, message->destination, message->reply_serial };
          Call   *call = g_hash_table_lookup (calls, &key);
          gint64  latency;

          if (call == NULL || call->answered)
            continue;
          call->answered = TRUE;
          call->acc->stat.replies++;
          if (message->type == G_DBUS_MESSAGE_TYPE_ERROR)
            call->acc->stat.errors++;
          latency = message->time_ns >= call->time_ns ? message->time_ns - call->time_ns : 0;
          g_array_append_val (call->acc->latencies, latency);
        }
    }

  g_hash_table_iter_init (&iter, calls);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    {
      Call *call = value;

      if (!call->answered)
        call->acc->stat.no_reply++;
    }
  g_hash_table_iter_init (&iter, accs);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    {
      Acc                *acc = value;
      SysprofDbusCallStat stat = acc->stat;
      guint               n = acc->latencies->len;

      if (n > 0)
        {
          gint64 *l = (gint64 *) (gpointer) acc->latencies->data;

          g_array_sort (acc->latencies, compare_gint64);
          stat.min_ns = l[0];
          stat.max_ns = l[n - 1];
          stat.median_ns = n % 2 ? (double) l[n / 2] : ((double) l[n / 2 - 1] + (double) l[n / 2]) / 2;
        }
      /* The strings move to the array. */
      memset (&acc->stat, 0, sizeof acc->stat);
      g_array_append_val (stats, stat);
    }
  g_array_sort (stats, compare_stats);
  return stats;
}

void
sysprof_dbus_call_stat_clear (SysprofDbusCallStat *stat)
{
  if (stat == NULL)
    return;
  g_clear_pointer (&stat->name, g_free);
  g_clear_pointer (&stat->type, g_free);
}
