// SPDX-License-Identifier: GPL-3.0-or-later
/* The D-Bus messages of a capture (DBUS_MESSAGE frames, recorded by
 * sysprof-cli --session-bus/--system-bus or upstream Sysprof 45+), decoded,
 * and their calls summed up per interface.member with the latency of their
 * replies.
 *
 * Every message is untrusted: a blob whose length is not the one its header
 * says, or that GDBus refuses, is kept as an undecodable message (its time,
 * bus and size), never an error. */
#pragma once

#if !defined(SYSPROF_INSIDE) && !defined(SYSPROF_COMPILATION)
#error "Only <sysprof.h> or <sysprof-analysis.h> can be included directly."
#endif

#include <gio/gio.h>
#include <sysprof-capture.h>

#include "sysprof-capture-summary.h"

G_BEGIN_DECLS

typedef enum
{
  SYSPROF_DBUS_MESSAGE_DECODED,     /* the fields below are the message's */
  SYSPROF_DBUS_MESSAGE_TOO_LARGE,   /* recorded without body (MESSAGE_TOO_LARGE) */
  SYSPROF_DBUS_MESSAGE_UNDECODABLE, /* the blob is not a D-Bus message */
} SysprofDbusMessageState;

typedef struct
{
  gint64                  time_ns;  /* from the capture's start */
  guint                   bus_type; /* SYSPROF_CAPTURE_DBUS_TYPE_* */
  SysprofDbusMessageState state;
  GDBusMessageType        type; /* INVALID unless decoded */
  gboolean                no_reply_expected;
  guint32                 serial;
  guint32                 reply_serial; /* 0: none */
  gsize                   size;         /* bytes of the recorded message */
  /* NULL when absent; valid UTF-8. */
  char     *sender;
  char     *destination;
  char     *path;
  char     *interface;
  char     *member;
  char     *error_name;
  GVariant *body; /* NULL without body */
} SysprofDbusMessage;

/* Decodes @len bytes at @blob (any bytes at all).  Never NULL. */
SYSPROF_AVAILABLE_IN_ALL
SysprofDbusMessage *sysprof_dbus_message_decode (const guint8 *blob, gsize len);
SYSPROF_AVAILABLE_IN_ALL
void sysprof_dbus_message_free (SysprofDbusMessage *message);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (SysprofDbusMessage, sysprof_dbus_message_free)
/* "system", "session", "a11y" or "other". */
SYSPROF_AVAILABLE_IN_ALL
const char *sysprof_dbus_bus_name (guint bus_type);
/* "call", "return", "error", "signal", or "too-large"/"undecodable". */
SYSPROF_AVAILABLE_IN_ALL
const char *sysprof_dbus_message_type_name (const SysprofDbusMessage *message);
/* The body as g_variant_print shows it ("()" without body), NULL when not
 * decoded. */
SYSPROF_AVAILABLE_IN_ALL
char *sysprof_dbus_message_dup_body_text (const SysprofDbusMessage *message);

/* What the recorder counted of one bus (its METADATA "sysprof.dbus.BUS",
 * "messages=N too-large=N lost=N ..."): all 0, recorded FALSE, when the
 * capture has none. */
typedef struct
{
  gboolean recorded;
  guint64  messages;
  guint64  too_large;
  guint64  lost;
} SysprofDbusCounts;

/* Every DBUS_MESSAGE frame of @reader from its start, in time order, as
 * SysprofDbusMessage * (a GPtrArray that frees them), and in @counts (NULL,
 * or 4 of them, indexed by bus type) the recorders' counts.  NULL with
 * @error when the capture is damaged. */
SYSPROF_AVAILABLE_IN_ALL
GPtrArray *sysprof_dbus_messages_from_reader (SysprofCaptureReader *reader, SysprofDbusCounts *counts, GError **error);

/* The same from a summary's D-Bus messages and the bytes it kept, without
 * reading the capture again; NULL when it did not keep every message's
 * bytes (SYSPROF_SUMMARY_DBUS_BYTES_LIMIT): read the capture then.  The
 * times are the summary's, bounded by SYSPROF_SUMMARY_TIME_LIMIT. */
SYSPROF_AVAILABLE_IN_ALL
GPtrArray *sysprof_dbus_messages_from_summary (const SysprofCaptureSummary *summary);

typedef struct
{
  char   *name; /* "interface.member" (or ".member" without interface) */
  char   *type; /* sysprof_dbus_message_type_name of its messages: "call" or "signal" */
  guint64 count;
  /* Calls only: answered by a return or an error, by an error, never
   * answered (calls flagged NO_REPLY_EXPECTED are not counted there). */
  guint64 replies;
  guint64 errors;
  guint64 no_reply;
  /* Reply latency of the answered calls, nanoseconds (0 without any). */
  gint64 min_ns;
  double median_ns;
  gint64 max_ns;
} SysprofDbusCallStat;

/* Calls and signals of @messages per interface.member, most messages first
 * (then by name): a GArray of SysprofDbusCallStat with a clear function.
 * A call is paired with the return or error whose destination is its
 * sender and whose reply serial is its serial, on the same bus. */
SYSPROF_AVAILABLE_IN_ALL
GArray *sysprof_dbus_call_stats (GPtrArray *messages);
SYSPROF_AVAILABLE_IN_ALL
void sysprof_dbus_call_stat_clear (SysprofDbusCallStat *stat);

G_END_DECLS
