// SPDX-License-Identifier: GPL-3.0-or-later
/* sysprof-report dbus: the D-Bus messages of a capture (sysprof-cli
 * --session-bus/--system-bus), one per row, or with --summary the calls and
 * signals per interface.member with the latency of the calls' replies
 * (SysprofDbusMessages). */

#include <errno.h>
#include <string.h>

#include "report-util.h"
#include "report-verbs.h"

#define TEXT_ROWS 100

static const char dbus_summary[] = "D-Bus messages, or per method: count and reply latency";

static const char dbus_description[] = "Reads the DBUS_MESSAGE frames of CAPTURE: the messages of the session bus\n"
                                       "(sysprof-cli --session-bus) and of the system bus (--system-bus) recorded\n"
                                       "while it ran, or those of upstream Sysprof 45 and later.  Without --summary,\n"
                                       "one row per message in time order: its time (seconds from the capture's\n"
                                       "start), bus, type (call, return, error, signal; too-large for a message the\n"
                                       "recorder kept without body, undecodable for bytes that are not a D-Bus\n"
                                       "message), sender, destination, object path, interface, member, serial,\n"
                                       "reply serial, size in bytes and error name (\"-\" where there is none).\n"
                                       "\n"
                                       "--summary gives one row per interface.member of the calls and of the\n"
                                       "signals: how many; for calls, how many were answered (by a return or an\n"
                                       "error), how many by an error, how many never (calls that asked for no\n"
                                       "reply are not counted there), and the latency of the answers: the time\n"
                                       "between the call and its reply as they passed the bus, shortest, median\n"
                                       "(of an even count the mean of the two middle ones) and longest.  A call is\n"
                                       "paired with the reply whose destination is the call's sender and whose\n"
                                       "reply serial is its serial.  Rows come most messages first.\n"
                                       "\n"
                                       "The first line says how many messages the capture holds and, per bus, what\n"
                                       "the recorder counted: those it kept without body (larger than 65492 bytes)\n"
                                       "and those it lost (beyond its budget of 32 MiB per bus and recording).\n"
                                       "\n"
                                       "--bus keeps one bus; --member (repeatable) the messages whose member, or\n"
                                       "interface.member, is MEMBER.\n"
                                       "\n"
                                       "Text tables show 100 rows unless --limit says otherwise; TSV shows all.  TSV\n"
                                       "columns: time_ns, bus, type, sender, destination, path, interface, member,\n"
                                       "serial, reply_serial, size, error_name (empty where there is none); with\n"
                                       "--summary: type, name, count, replies, errors, no_reply, min_ns, median_ns,\n"
                                       "max_ns (median with one decimal).\n"
                                       "\n"
                                       "Examples:\n"
                                       "  sysprof-cli --session-bus app.syscap -- ./app\n"
                                       "  sysprof-report dbus app.syscap\n"
                                       "  sysprof-report dbus --summary app.syscap\n"
                                       "  sysprof-report dbus --bus system --member GetAll --format tsv app.syscap\n"
                                       "\n"
                                       "Exit status: 0 on success (also when the capture has no messages: the report\n"
                                       "says so); 1 when the capture cannot be opened or read to its end; 2 on a\n"
                                       "usage error.";

typedef struct
{
  gboolean summary;
  char    *bus;
  char   **members;
  char    *format;
  gint     limit;
  gboolean version;
} DbusOptions;

static void
dbus_options_clear (DbusOptions *o)
{
  g_free (o->bus);
  g_strfreev (o->members);
  g_free (o->format);
}

static GOptionContext *
new_context (DbusOptions *o)
{
  const GOptionEntry entries[] = {
    { "summary", 's', 0, G_OPTION_ARG_NONE, &o->summary,
      "One row per interface.member: count, replies, errors, calls without reply, reply latency", NULL },
    { "bus", 'B', 0, G_OPTION_ARG_STRING, &o->bus, "Only the messages of BUS: session or system", "BUS" },
    { "member", 'm', 0, G_OPTION_ARG_STRING_ARRAY, &o->members,
      "Only messages whose member or interface.member is MEMBER (repeatable)", "MEMBER" },
    { "limit", 'n', 0, G_OPTION_ARG_INT, &o->limit, "Print at most N rows (0: all)", "N" },
    { "format", 'f', 0, G_OPTION_ARG_STRING, &o->format,
      "text (aligned table, the default) or tsv (a header row, then tab-separated rows)", "FORMAT" },
    { "version", 0, 0, G_OPTION_ARG_NONE, &o->version, "Print the version and exit", NULL },
    { NULL },
  };
  GOptionContext *context = g_option_context_new ("CAPTURE");

  g_option_context_set_summary (context,
                                "The D-Bus messages of a capture, or its calls per method with their latency.");
  g_option_context_set_description (context, dbus_description);
  g_option_context_add_main_entries (context, entries, NULL);
  return context;
}

static char *
human_duration (double ns)
{
  if (ns < 999.5)
    return g_strdup_printf ("%.0f ns", ns);
  if (ns < 1e6)
    return g_strdup_printf ("%.3f µs", ns / 1e3);
  if (ns < 1e9)
    return g_strdup_printf ("%.3f ms", ns / 1e6);
  return g_strdup_printf ("%.3f s", ns / 1e9);
}

static gboolean
keep (const DbusOptions *o, int bus, const SysprofDbusMessage *message)
{
  if (bus >= 0 && message->bus_type != (guint) bus)
    return FALSE;
  if (o->members == NULL)
    return TRUE;
  for (guint i = 0; o->members[i] != NULL; i++)
    {
      const char *m = o->members[i];
      const char *dot = strrchr (m, '.');

      if (dot == NULL ? g_strcmp0 (message->member, m) == 0
                      : (g_strcmp0 (message->member, dot + 1) == 0 && message->interface != NULL &&
                         strlen (message->interface) == (gsize) (dot - m) &&
                         strncmp (message->interface, m, (gsize) (dot - m)) == 0))
        return TRUE;
    }
  return FALSE;
}

static void
print_counts (const char *path, GPtrArray *messages, const SysprofDbusCounts *counts)
{
  printf ("%s: %u D-Bus messages", path, messages->len);
  for (guint bus = 0; bus < 4; bus++)
    if (counts[bus].recorded)
      printf ("; %s bus: %" G_GUINT64_FORMAT " recorded, %" G_GUINT64_FORMAT
              " without body (too large), %" G_GUINT64_FORMAT " lost",
              sysprof_dbus_bus_name (bus), counts[bus].messages, counts[bus].too_large, counts[bus].lost);
  printf ("\n\n");
}

static const char *
or_dash (const char *text)
{
  return text && *text ? text : "-";
}

static void
print_messages_text (GPtrArray *messages, guint limit)
{
  static const Column columns[] = {
    { "TIME", TRUE, 0 },          { "BUS", FALSE, 0 },   { "TYPE", FALSE, 0 },       { "SENDER", FALSE, 24 },
    { "DESTINATION", FALSE, 24 }, { "PATH", FALSE, 32 }, { "INTERFACE", FALSE, 32 }, { "MEMBER", FALSE, 24 },
    { "SERIAL", TRUE, 0 },        { "REPLY", TRUE, 0 },  { "SIZE", TRUE, 0 },        { "ERROR", FALSE, 40 },
  };
  Table table;
  guint shown = limit == 0 ? messages->len : MIN (limit, messages->len);

  table_init (&table, columns, G_N_ELEMENTS (columns));
  for (guint i = 0; i < shown; i++)
    {
      const SysprofDbusMessage *m = messages->pdata[i];
      g_autofree char          *time = g_strdup_printf ("%.6f", (double) m->time_ns / 1e9);
      g_autofree char          *serial = g_strdup_printf ("%u", m->serial);
      g_autofree char          *reply = m->reply_serial ? g_strdup_printf ("%u", m->reply_serial) : g_strdup ("-");

      table_add (&table, time);
      table_add (&table, sysprof_dbus_bus_name (m->bus_type));
      table_add (&table, sysprof_dbus_message_type_name (m));
      table_add (&table, or_dash (m->sender));
      table_add (&table, or_dash (m->destination));
      table_add (&table, or_dash (m->path));
      table_add (&table, or_dash (m->interface));
      table_add (&table, or_dash (m->member));
      table_add (&table, m->state == SYSPROF_DBUS_MESSAGE_DECODED ? serial : "-");
      table_add (&table, reply);
      table_add_count (&table, m->size);
      table_add (&table, or_dash (m->error_name));
    }
  table_print (&table);
  table_clear (&table);
  if (shown < messages->len)
    printf ("(%u more rows; --limit 0 shows all)\n", messages->len - shown);
}

static void
put_field (const char *text)
{
  report_put_tsv_field (stdout, text ? text : "");
  fputc ('\t', stdout);
}

static void
print_messages_tsv (GPtrArray *messages, guint limit)
{
  guint shown = limit == 0 ? messages->len : MIN (limit, messages->len);

  printf ("time_ns\tbus\ttype\tsender\tdestination\tpath\tinterface\tmember\tserial\treply_serial\tsize\terror_name\n");
  for (guint i = 0; i < shown; i++)
    {
      const SysprofDbusMessage *m = messages->pdata[i];

      printf ("%" G_GINT64_FORMAT "\t%s\t%s\t", m->time_ns, sysprof_dbus_bus_name (m->bus_type),
              sysprof_dbus_message_type_name (m));
      put_field (m->sender);
      put_field (m->destination);
      put_field (m->path);
      put_field (m->interface);
      put_field (m->member);
      printf ("%u\t%u\t%" G_GSIZE_FORMAT "\t", m->serial, m->reply_serial, m->size);
      report_put_tsv_field (stdout, m->error_name ? m->error_name : "");
      fputc ('\n', stdout);
    }
}

static void
print_summary_text (GArray *stats, guint limit)
{
  static const Column columns[] = {
    { "TYPE", FALSE, 0 },   { "NAME", FALSE, 56 }, { "COUNT", TRUE, 0 },
    { "REPLIES", TRUE, 0 }, { "ERRORS", TRUE, 0 }, { "NO REPLY", TRUE, 0 },
    { "MIN", TRUE, 0 },     { "MEDIAN", TRUE, 0 }, { "MAX", TRUE, 0 },
  };
  Table table;
  guint shown = limit == 0 ? stats->len : MIN (limit, stats->len);

  table_init (&table, columns, G_N_ELEMENTS (columns));
  for (guint i = 0; i < shown; i++)
    {
      const SysprofDbusCallStat *s = &g_array_index (stats, SysprofDbusCallStat, i);
      gboolean                   call = g_str_equal (s->type, "call");
      const double               values[] = { (double) s->min_ns, s->median_ns, (double) s->max_ns };

      table_add (&table, s->type);
      table_add (&table, s->name);
      table_add_count (&table, s->count);
      if (call)
        {
          table_add_count (&table, s->replies);
          table_add_count (&table, s->errors);
          table_add_count (&table, s->no_reply);
        }
      else
        for (guint j = 0; j < 3; j++)
          table_add (&table, "-");
      for (guint j = 0; j < G_N_ELEMENTS (values); j++)
        {
          g_autofree char *text = call && s->replies > 0 ? human_duration (values[j]) : g_strdup ("-");

          table_add (&table, text);
        }
    }
  table_print (&table);
  table_clear (&table);
  if (shown < stats->len)
    printf ("(%u more rows; --limit 0 shows all)\n", stats->len - shown);
}

static void
print_summary_tsv (GArray *stats, guint limit)
{
  guint shown = limit == 0 ? stats->len : MIN (limit, stats->len);

  printf ("type\tname\tcount\treplies\terrors\tno_reply\tmin_ns\tmedian_ns\tmax_ns\n");
  for (guint i = 0; i < shown; i++)
    {
      const SysprofDbusCallStat *s = &g_array_index (stats, SysprofDbusCallStat, i);

      printf ("%s\t", s->type);
      report_put_tsv_field (stdout, s->name);
      printf ("\t%" G_GUINT64_FORMAT "\t%" G_GUINT64_FORMAT "\t%" G_GUINT64_FORMAT "\t%" G_GUINT64_FORMAT
              "\t%" G_GINT64_FORMAT "\t%.1f\t%" G_GINT64_FORMAT "\n",
              s->count, s->replies, s->errors, s->no_reply, s->min_ns, s->median_ns, s->max_ns);
    }
}

static int
dbus_main (int argc, char **argv, gboolean help_only)
{
  g_autoptr (GOptionContext) context = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) all = NULL;
  g_autoptr (GPtrArray) messages = g_ptr_array_new ();
  const char           *prgname = "sysprof-report dbus";
  int                   status;
  DbusOptions           o = { .limit = G_MININT };
  SysprofDbusCounts     counts[4];
  SysprofCaptureReader *reader;
  ReportFormat          format = REPORT_FORMAT_TEXT;
  guint                 limit;
  int                   bus = -1;

  g_set_prgname (prgname);
  context = new_context (&o);
  if ((status = report_start_own_command_line (context, prgname, &argc, &argv, help_only, &o.version)) >= 0)
    {
      dbus_options_clear (&o);
      return status;
    }

#define USAGE_ERROR(...)                                       \
  G_STMT_START                                                 \
  {                                                            \
    g_autofree char *message_ = g_strdup_printf (__VA_ARGS__); \
    report_print_usage_error (prgname, message_);              \
    dbus_options_clear (&o);                                   \
    return REPORT_EXIT_USAGE;                                  \
  }                                                            \
  G_STMT_END

  if (argc != 2)
    USAGE_ERROR ("expected CAPTURE");
  if (!report_parse_text_format (o.format, &format, &error))
    USAGE_ERROR ("%s", error->message);
  if (o.limit != G_MININT && o.limit < 0)
    USAGE_ERROR ("--limit: %d is negative", o.limit);
  if (o.bus != NULL && g_str_equal (o.bus, "session"))
    bus = SYSPROF_CAPTURE_DBUS_TYPE_SESSION;
  else if (o.bus != NULL && g_str_equal (o.bus, "system"))
    bus = SYSPROF_CAPTURE_DBUS_TYPE_SYSTEM;
  else if (o.bus != NULL)
    USAGE_ERROR ("--bus: “%s” is neither session nor system", o.bus);
  limit = o.limit != G_MININT ? (guint) o.limit : format == REPORT_FORMAT_TEXT ? TEXT_ROWS : 0;
#undef USAGE_ERROR

  if ((reader = report_open_reader (argv[1])) == NULL)
    {
      dbus_options_clear (&o);
      return REPORT_EXIT_ERROR;
    }
  all = sysprof_dbus_messages_from_reader (reader, counts, &error);
  sysprof_capture_reader_unref (reader);
  if (all == NULL)
    {
      g_printerr ("sysprof-report: %s: %s\n", argv[1], error->message);
      dbus_options_clear (&o);
      return REPORT_EXIT_ERROR;
    }
  for (guint i = 0; i < all->len; i++)
    if (keep (&o, bus, all->pdata[i]))
      g_ptr_array_add (messages, all->pdata[i]);

  if (format == REPORT_FORMAT_TEXT)
    {
      print_counts (argv[1], messages, counts);
      if (messages->len == 0)
        printf ("No D-Bus messages: record them with sysprof-cli --session-bus or --system-bus.\n");
    }
  if (o.summary)
    {
      g_autoptr (GArray) stats = sysprof_dbus_call_stats (messages);

      if (format == REPORT_FORMAT_TSV)
        print_summary_tsv (stats, limit);
      else if (stats->len > 0)
        print_summary_text (stats, limit);
    }
  else if (format == REPORT_FORMAT_TSV)
    print_messages_tsv (messages, limit);
  else if (messages->len > 0)
    print_messages_text (messages, limit);
  dbus_options_clear (&o);
  if (fflush (stdout) != 0 || ferror (stdout))
    {
      g_printerr ("sysprof-report: cannot write the report: %s\n", g_strerror (errno));
      return REPORT_EXIT_ERROR;
    }
  return REPORT_EXIT_OK;
}

const ReportVerb report_verb_dbus = {
  .name = "dbus",
  .summary = dbus_summary,
  .main = dbus_main,
};
