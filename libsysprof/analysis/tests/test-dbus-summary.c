// SPDX-License-Identifier: GPL-3.0-or-later
/* The capture summary's D-Bus messages on a capture written here: messages
 * GDBus serializes (a call, its return, an error, a signal) on two buses,
 * out of time order, a message too large to keep, bytes that are no
 * message; the type read from the header's second byte, the times and
 * buses, and the messages decoded from the summary's bytes against
 * SysprofDbusMessages reading the capture itself. */
#include <glib/gstdio.h>

#include "sysprof-analysis.h"

#define START G_GINT64_CONSTANT (1000000000000)

typedef struct
{
  gint64           offset_ns;
  guint            bus;
  GDBusMessageType type; /* INVALID: raw bytes below, or too large */
  gboolean         too_large;
  const char      *raw;
} TestMessage;

/* In capture order: the error is written before the signal that precedes
 * it in time, as merged captures do. */
static const TestMessage test_messages[] = {
  { 100, SYSPROF_CAPTURE_DBUS_TYPE_SESSION, G_DBUS_MESSAGE_TYPE_METHOD_CALL },
  { 200, SYSPROF_CAPTURE_DBUS_TYPE_SESSION, G_DBUS_MESSAGE_TYPE_METHOD_RETURN },
  { 500, SYSPROF_CAPTURE_DBUS_TYPE_SYSTEM, G_DBUS_MESSAGE_TYPE_ERROR },
  { 300, SYSPROF_CAPTURE_DBUS_TYPE_SYSTEM, G_DBUS_MESSAGE_TYPE_SIGNAL },
  { 600, SYSPROF_CAPTURE_DBUS_TYPE_SESSION, G_DBUS_MESSAGE_TYPE_INVALID, TRUE },
  /* Short; the right marks but 15 bytes; a type byte of 9. */
  { 700, SYSPROF_CAPTURE_DBUS_TYPE_OTHER, G_DBUS_MESSAGE_TYPE_INVALID, FALSE, "l" },
  { 800, SYSPROF_CAPTURE_DBUS_TYPE_OTHER, G_DBUS_MESSAGE_TYPE_INVALID, FALSE, "l\001\000\001abcdefghijk" },
  { 900, SYSPROF_CAPTURE_DBUS_TYPE_A11Y, G_DBUS_MESSAGE_TYPE_INVALID, FALSE, "l\011\000\001abcdefghijklmnop" },
};

static GBytes *
serialize (GDBusMessageType type, guint32 serial)
{
  g_autoptr (GDBusMessage) call =
      g_dbus_message_new_method_call ("org.example.Peer", "/org/example", "org.example.Iface", "Sleep");
  g_autoptr (GDBusMessage) message = NULL;
  g_autoptr (GError) error = NULL;
  guchar *blob;
  gsize   len = 0;

  g_dbus_message_set_serial (call, serial);
  g_dbus_message_set_sender (call, ":1.7");
  g_dbus_message_set_body (call, g_variant_new ("(u)", serial));
  switch (type)
    {
    case G_DBUS_MESSAGE_TYPE_METHOD_CALL: message = g_object_ref (call); break;
    case G_DBUS_MESSAGE_TYPE_METHOD_RETURN: message = g_dbus_message_new_method_reply (call); break;
    case G_DBUS_MESSAGE_TYPE_ERROR:
      message = g_dbus_message_new_method_error_literal (call, "org.example.Error.Failed", "no");
      break;
    case G_DBUS_MESSAGE_TYPE_SIGNAL:
      message = g_dbus_message_new_signal ("/org/example", "org.example.Iface", "Changed");
      break;
    case G_DBUS_MESSAGE_TYPE_INVALID:
    default: g_assert_not_reached ();
    }
  if (type != G_DBUS_MESSAGE_TYPE_METHOD_CALL)
    g_dbus_message_set_serial (message, serial + 1);
  blob = g_dbus_message_to_blob (message, &len, G_DBUS_CAPABILITY_FLAGS_NONE, &error);
  g_assert_no_error (error);
  return g_bytes_new_take (blob, len);
}

static char *
write_capture (void)
{
  g_autofree char      *path = NULL;
  int                   fd = g_file_open_tmp ("test-dbus-summary-XXXXXX.syscap", &path, NULL);
  SysprofCaptureWriter *writer;

  g_assert_cmpint (fd, >=, 0);
  close (fd);
  writer = sysprof_capture_writer_new (path, 0);
  g_assert_nonnull (writer);
  g_assert_true (sysprof_capture_writer_set_time_range (writer, START, START + 1000000));
  for (guint i = 0; i < G_N_ELEMENTS (test_messages); i++)
    {
      const TestMessage *m = &test_messages[i];
      g_autoptr (GBytes) bytes = NULL;
      gsize              len;
      const guint8      *data;
      g_autofree guint8 *big = NULL;

      if (m->too_large)
        {
          /* Past what a frame holds: the writer keeps no bytes. */
          len = SYSPROF_CAPTURE_DBUS_MESSAGE_MAX + 1;
          data = big = g_malloc0 (len);
        }
      else if (m->raw != NULL)
        {
          data = (const guint8 *) m->raw;
          len = strlen (m->raw);
        }
      else
        {
          bytes = serialize (m->type, 10 + i);
          data = g_bytes_get_data (bytes, &len);
        }
      g_assert_true (
          sysprof_capture_writer_add_dbus_message (writer, START + m->offset_ns, -1, 42, m->bus, 0, data, len));
    }
  sysprof_capture_writer_flush (writer);
  sysprof_capture_writer_unref (writer);
  return g_steal_pointer (&path);
}

static const TestMessage *
expected_at (guint index)
{
  /* The messages by time: the signal (300) comes before the error (500). */
  static const guint order[] = { 0, 1, 3, 2, 4, 5, 6, 7 };

  G_STATIC_ASSERT (G_N_ELEMENTS (order) == G_N_ELEMENTS (test_messages));
  return &test_messages[order[index]];
}

static void
test_summary_dbus (void)
{
  g_autofree char      *path = write_capture ();
  SysprofCaptureReader *reader = sysprof_capture_reader_new (path);
  g_autoptr (SysprofCaptureSummary) summary = NULL;
  g_autoptr (GPtrArray) from_summary = NULL;
  g_autoptr (GPtrArray) from_reader = NULL;
  g_autoptr (GError) error = NULL;

  g_assert_nonnull (reader);
  summary = sysprof_capture_summary_new (sysprof_capture_reader_get_start_time (reader),
                                         sysprof_capture_reader_get_end_time (reader));
  g_assert_true (sysprof_capture_summary_read (summary, reader, 0, NULL, NULL, NULL, &error));
  g_assert_no_error (error);

  g_assert_cmpuint (summary->dbus_messages->len, ==, G_N_ELEMENTS (test_messages));
  g_assert_cmpuint (summary->n_dbus_dropped, ==, 0);
  for (guint i = 0; i < summary->dbus_messages->len; i++)
    {
      const SysprofSummaryDbusMessage *got = &g_array_index (summary->dbus_messages, SysprofSummaryDbusMessage, i);
      const TestMessage               *want = expected_at (i);

      g_assert_cmpint (got->time_ns, ==, want->offset_ns);
      g_assert_cmpuint (got->bus_type, ==, want->bus);
      g_assert_cmpuint (got->type, ==, want->type);
      g_assert_cmpuint (got->too_large, ==, want->too_large);
      g_assert_cmpuint (got->kept, ==, !want->too_large);
      if (want->raw != NULL)
        {
          g_assert_cmpuint (got->length, ==, strlen (want->raw));
          g_assert_cmpmem (summary->dbus_bytes->data + got->offset, got->length, want->raw, strlen (want->raw));
        }
    }

  /* Decoded from the summary's bytes, as from the capture. */
  from_summary = sysprof_dbus_messages_from_summary (summary);
  from_reader = sysprof_dbus_messages_from_reader (reader, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (from_summary);
  g_assert_cmpuint (from_summary->len, ==, from_reader->len);
  for (guint i = 0; i < from_summary->len; i++)
    {
      const SysprofDbusMessage *a = from_summary->pdata[i];
      const SysprofDbusMessage *b = from_reader->pdata[i];
      g_autofree char          *body_a = sysprof_dbus_message_dup_body_text (a);
      g_autofree char          *body_b = sysprof_dbus_message_dup_body_text (b);

      g_assert_cmpint (a->time_ns, ==, b->time_ns);
      g_assert_cmpuint (a->bus_type, ==, b->bus_type);
      g_assert_cmpint (a->state, ==, b->state);
      g_assert_cmpint (a->type, ==, b->type);
      g_assert_cmpuint (a->serial, ==, b->serial);
      g_assert_cmpstr (a->member, ==, b->member);
      g_assert_cmpstr (a->error_name, ==, b->error_name);
      g_assert_cmpstr (body_a, ==, body_b);
      if (expected_at (i)->type != G_DBUS_MESSAGE_TYPE_INVALID)
        {
          g_assert_cmpint (a->state, ==, SYSPROF_DBUS_MESSAGE_DECODED);
          g_assert_cmpint (a->type, ==, expected_at (i)->type);
        }
    }
  g_assert_cmpstr (sysprof_dbus_message_type_name (from_summary->pdata[4]), ==, "too-large");
  g_assert_cmpstr (sysprof_dbus_message_type_name (from_summary->pdata[5]), ==, "undecodable");

  sysprof_capture_reader_unref (reader);
  g_unlink (path);
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/Analysis/DbusSummary/types-and-bytes", test_summary_dbus);
  return g_test_run ();
}
