// SPDX-License-Identifier: GPL-3.0-or-later
/* The counters of a capture (CPU usage and frequency, memory, disk,
 * network...): one line per counter, under a heading per category, in one
 * scrolled chart that draws only the rows in view (captures may hold tens
 * of thousands of counters). */
#include <math.h>
#include <string.h>

#include "sysprof-chart.h"
#include "sysprof-view.h"

#define SYSPROF_TYPE_COUNTERS_VIEW (sysprof_counters_view_get_type ())
G_DECLARE_FINAL_TYPE (SysprofCountersView, sysprof_counters_view, SYSPROF, COUNTERS_VIEW, SysprofView)

struct _SysprofCountersView
{
  SysprofView parent_instance;
};

G_DEFINE_FINAL_TYPE (SysprofCountersView, sysprof_counters_view, SYSPROF_TYPE_VIEW)

#define COUNTER_ROW_HEIGHT 40

static gboolean
contains_word (const char *text, const char *word)
{
  g_autofree char *folded = g_ascii_strdown (text != NULL ? text : "", -1);

  return strstr (folded, word) != NULL;
}

/* Counters carry no unit, only names: ours say "(percent)" and "(bytes)"
 * in their descriptions; Sysprof's are in categories named "CPU Percent",
 * "RX Bytes" counters and a "Memory" category counted in bytes. */
static SysprofChartValueFormat
counter_format (const SysprofSummaryCounter *counter)
{
  if (contains_word (counter->category, "percent") || contains_word (counter->description, "percent"))
    return SYSPROF_CHART_VALUE_PERCENT;
  if (contains_word (counter->name, "bytes") || contains_word (counter->description, "bytes") ||
      g_ascii_strcasecmp (counter->category, "Memory") == 0)
    return SYSPROF_CHART_VALUE_BYTES;
  return SYSPROF_CHART_VALUE_NUMBER;
}

static char *
format_value (SysprofChartValueFormat format, double value)
{
  /* Counters are doubles from the file: NaN, infinities and values past
   * a guint64 (whose cast would be undefined) happen. */
  if (isnan (value))
    return g_strdup ("not a number");
  if (isinf (value))
    return g_strdup (value > 0 ? "∞" : "−∞");
  switch (format)
    {
    case SYSPROF_CHART_VALUE_PERCENT: return g_strdup_printf ("%.1f %%", value);
    case SYSPROF_CHART_VALUE_BYTES:
      /* 18446744073709549568: the largest double below 2^64. */
      return g_format_size (value <= 0 ? 0 : value < 18446744073709549568.0 ? (guint64) value : G_MAXUINT64);
    case SYSPROF_CHART_VALUE_NUMBER:
    default:
      if (value == floor (value) && fabs (value) < 1e15)
        return g_strdup_printf ("%.0f", value);
      return g_strdup_printf ("%.2f", value);
    }
}

/* "Bytes read from vda, cumulative\n12 MB to 40 MB (+28 MB)": what the
 * counter is and how it moved over the capture. */
static char *
describe_counter (const SysprofSummaryCounter *counter, SysprofChartValueFormat format)
{
  GArray          *values = counter->values;
  double           first = g_array_index (values, SysprofSummaryCounterValue, 0).value;
  double           last = g_array_index (values, SysprofSummaryCounterValue, values->len - 1).value;
  g_autofree char *low = format_value (format, counter->min);
  g_autofree char *high = format_value (format, counter->max);
  GString         *text = g_string_new (NULL);
  gboolean         rising = TRUE;
  double           sum = 0;

  for (guint i = 0; i < values->len; i++)
    {
      double v = g_array_index (values, SysprofSummaryCounterValue, i).value;

      sum += v;
      if (i > 0 && v < g_array_index (values, SysprofSummaryCounterValue, i - 1).value)
        rising = FALSE;
    }

  if (counter->description[0] != '\0' && strcmp (counter->description, counter->name) != 0)
    g_string_append_printf (text, "%s\n", counter->description);
  if (rising && last > first)
    {
      /* A running total: what it grew by says more than its range. */
      g_autofree char *growth = format_value (format, last - first);

      g_string_append_printf (text, "%s to %s (+%s)", low, high, growth);
    }
  else
    {
      g_autofree char *mean = format_value (format, sum / values->len);

      g_string_append_printf (text, "min %s, mean %s, max %s", low, mean, high);
    }
  g_string_append_printf (text, ", %u values", values->len);
  return g_string_free (text, FALSE);
}

/* The rows of @counters (of one category, in definition order). */
static void
add_counters (SysprofChart *chart, GPtrArray *counters)
{
  for (guint i = 0; i < counters->len; i++)
    {
      const SysprofSummaryCounter *counter = g_ptr_array_index (counters, i);
      SysprofChartValueFormat      format;
      g_autofree char             *description = NULL;
      double                       min, max;
      guint                        row;

      format = counter_format (counter);
      min = counter->min;
      max = counter->max;
      if (format == SYSPROF_CHART_VALUE_PERCENT)
        {
          /* Usage reads against the whole CPU, not its own peak. */
          min = MIN (min, 0);
          max = MAX (max, 100);
        }
      else if (max <= min)
        {
          /* A flat counter: draw it mid-row rather than on an edge. */
          min -= 1;
          max += 1;
        }
      row = sysprof_chart_add_line (chart, counter->name,
                                    (const SysprofSummaryCounterValue *) (gpointer) counter->values->data,
                                    counter->values->len, min, max, TRUE);
      description = describe_counter (counter, format);
      sysprof_chart_set_row_description (chart, row, description);
      sysprof_chart_set_row_value_format (chart, row, format);
    }
}

static void
sysprof_counters_view_load (SysprofView *view, SysprofDocument *document)
{
  const char *const *categories = sysprof_document_get_counter_categories (document);
  GPtrArray         *counters = sysprof_document_get_counters (document);
  GtkWidget         *scroller = gtk_scrolled_window_new ();
  GtkWidget         *chart = sysprof_chart_new (document);
  /* Category -> its counters with values, in definition order: one pass
   * over the counters, whatever the number of categories. */
  g_autoptr (GHashTable) by_category =
      g_hash_table_new_full (g_str_hash, g_str_equal, NULL, (GDestroyNotify) g_ptr_array_unref);

  for (guint i = 0; i < counters->len; i++)
    {
      const SysprofSummaryCounter *counter = g_ptr_array_index (counters, i);
      GPtrArray                   *members;

      if (counter->values->len == 0)
        continue;
      if ((members = g_hash_table_lookup (by_category, counter->category)) == NULL)
        {
          members = g_ptr_array_new ();
          g_hash_table_insert (by_category, counter->category, members);
        }
      g_ptr_array_add (members, (gpointer) counter);
    }

  /* Counters are sampled a few times a second: even hours of them are a
   * few thousand points per counter, charted here without a worker. */
  sysprof_chart_set_row_height (SYSPROF_CHART (chart), COUNTER_ROW_HEIGHT);
  gtk_accessible_update_property (GTK_ACCESSIBLE (chart), GTK_ACCESSIBLE_PROPERTY_LABEL, "Counters", -1);
  for (guint i = 0; categories != NULL && categories[i] != NULL; i++)
    {
      GPtrArray *members = g_hash_table_lookup (by_category, categories[i]);

      if (members == NULL)
        continue;
      sysprof_chart_add_heading (SYSPROF_CHART (chart), categories[i]);
      add_counters (SYSPROF_CHART (chart), members);
    }

  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (scroller), GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scroller), chart);
  sysprof_view_set_child (view, scroller);
}

static gboolean
sysprof_counters_view_has_data (SysprofDocument *document)
{
  GPtrArray *counters = sysprof_document_get_counters (document);

  for (guint i = 0; i < counters->len; i++)
    if (((const SysprofSummaryCounter *) g_ptr_array_index (counters, i))->values->len > 0)
      return TRUE;
  return FALSE;
}

static void
sysprof_counters_view_class_init (SysprofCountersViewClass *klass)
{
  SysprofViewClass *view_class = SYSPROF_VIEW_CLASS (klass);

  view_class->has_data = sysprof_counters_view_has_data;
  view_class->load = sysprof_counters_view_load;
  sysprof_view_class_set_info (view_class, "counters", "Counters", "text-x-generic-symbolic", 50);
}

static void
sysprof_counters_view_init (SysprofCountersView *self)
{
  (void) self;
}
