// SPDX-License-Identifier: GPL-3.0-or-later
/* SysprofMarksView: the MARK frames of a capture.
 *
 * On top, a waterfall: one row per (group, name), each mark a bar over the
 * document's visible range, lined up with the timeline ruler (same gutter);
 * clicking a mark selects its span, dragging selects a range.  Below, two
 * tables restricted to the document's selection: per (group, name) the
 * count and the total, min, max, mean and median durations, and every mark.
 *
 * A mark belongs to the selection when it overlaps it: a long mark that
 * covers the whole selection is what was going on then.
 *
 * The waterfall's rows and the tables are built in a thread of their own:
 * they only read the document's scan results, which never change after
 * loading, so they need not wait behind the analyses in the document's
 * worker. */
#include <math.h>

#include "sysprof-chart.h"
#include "sysprof-thread-task.h"
#include "sysprof-time-axis.h"
#include "sysprof-view.h"

#ifndef SYSPROF_CHART_GUTTER
#define SYSPROF_CHART_GUTTER 160
#endif

/* The list of every mark stops there: GtkSortListModel sorts and frees
 * its items on the main thread, and half a million marks would freeze the
 * window for seconds.  The summary always counts them all. */
#define MAX_LISTED_MARKS 100000

#define ROW_HEIGHT 24
#define BAR_HEIGHT 16

#define SYSPROF_TYPE_MARKS_VIEW (sysprof_marks_view_get_type ())
G_DECLARE_FINAL_TYPE (SysprofMarksView, sysprof_marks_view, SYSPROF, MARKS_VIEW, SysprofView)

/* ------------------------------------------------------------------------ */
/* Durations */

/* A duration in the unit that keeps it short: 850 ns, 12.34 µs, 20.00 ms,
 * 1.50 s.  The thresholds are where the rounded value would reach 1000. */
static char *
format_duration (double ns)
{
  if (ns < 999.5)
    return g_strdup_printf ("%.0f ns", ns);
  if (ns < 999995.0)
    return g_strdup_printf ("%.2f µs", ns / 1e3);
  if (ns < 999995000.0)
    return g_strdup_printf ("%.2f ms", ns / 1e6);
  return g_strdup_printf ("%.2f s", ns / 1e9);
}

/* Digits in groups of three, apart by a narrow no-break space: readable in
 * every locale, unlike a comma or a dot. */
static char *
format_count (guint64 n)
{
  g_autofree char *digits = g_strdup_printf ("%" G_GUINT64_FORMAT, n);
  gsize            len = strlen (digits);
  GString         *out = g_string_new (NULL);

  for (gsize i = 0; i < len; i++)
    {
      if (i > 0 && (len - i) % 3 == 0)
        g_string_append (out, "\u202f");
      g_string_append_c (out, digits[i]);
    }
  return g_string_free (out, FALSE);
}

static int
ordering_of (double a, double b)
{
  return a < b ? GTK_ORDERING_SMALLER : a > b ? GTK_ORDERING_LARGER : GTK_ORDERING_EQUAL;
}

static int
ordering_of_strings (const char *a, const char *b)
{
  int cmp = strcmp (a, b);

  return cmp < 0 ? GTK_ORDERING_SMALLER : cmp > 0 ? GTK_ORDERING_LARGER : GTK_ORDERING_EQUAL;
}

/* ------------------------------------------------------------------------ */
/* A row of the summary: the marks of one (group, name) */

#define SYSPROF_TYPE_MARKS_STAT (sysprof_marks_stat_get_type ())
G_DECLARE_FINAL_TYPE (SysprofMarksStat, sysprof_marks_stat, SYSPROF, MARKS_STAT, GObject)

struct _SysprofMarksStat
{
  GObject parent_instance;

  char *group;
  char *name;
  guint count;
  /* A double: the sum of many long marks does not fit in a gint64. */
  double total_ns;
  gint64 min_ns;
  gint64 max_ns;
  double mean_ns;
  double median_ns;
};

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

/* ------------------------------------------------------------------------ */
/* A row of the list of marks */

#define SYSPROF_TYPE_MARKS_ITEM (sysprof_marks_item_get_type ())
G_DECLARE_FINAL_TYPE (SysprofMarksItem, sysprof_marks_item, SYSPROF, MARKS_ITEM, GObject)

struct _SysprofMarksItem
{
  GObject parent_instance;

  /* Keeps @mark alive: the document's marks never move after loading. */
  SysprofDocument           *document;
  const SysprofDocumentMark *mark;
};

G_DEFINE_FINAL_TYPE (SysprofMarksItem, sysprof_marks_item, G_TYPE_OBJECT)

static void
sysprof_marks_item_finalize (GObject *object)
{
  g_clear_object (&SYSPROF_MARKS_ITEM (object)->document);

  G_OBJECT_CLASS (sysprof_marks_item_parent_class)->finalize (object);
}

static void
sysprof_marks_item_class_init (SysprofMarksItemClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = sysprof_marks_item_finalize;
}

static void
sysprof_marks_item_init (SysprofMarksItem *self)
{
  (void) self;
}

/* ------------------------------------------------------------------------ */
/* Columns of both tables */

typedef struct
{
  const char *title;
  /* The cell's text, newly allocated. */
  char *(*text) (gpointer item);
  GCompareDataFunc compare;
  gboolean         numeric;
  gboolean         expand;
  /* Long texts are cut by the column: show them whole on hover. */
  gboolean tooltip;
} Column;

/* Plain casts: the stores hold nothing else, and sorting a hundred
 * thousand marks calls these millions of times. */
#define STAT(item) ((SysprofMarksStat *) (item))
#define MARK(item) (((SysprofMarksItem *) (item))->mark)

static char *
stat_group_text (gpointer item)
{
  return g_strdup (STAT (item)->group);
}

static char *
stat_name_text (gpointer item)
{
  return g_strdup (STAT (item)->name);
}

static char *
stat_count_text (gpointer item)
{
  return format_count (STAT (item)->count);
}

static char *
stat_total_text (gpointer item)
{
  return format_duration (STAT (item)->total_ns);
}

static char *
stat_min_text (gpointer item)
{
  return format_duration (STAT (item)->min_ns);
}

static char *
stat_max_text (gpointer item)
{
  return format_duration (STAT (item)->max_ns);
}

static char *
stat_mean_text (gpointer item)
{
  return format_duration (STAT (item)->mean_ns);
}

static char *
stat_median_text (gpointer item)
{
  return format_duration (STAT (item)->median_ns);
}

static int
compare_stat_group (gconstpointer a, gconstpointer b, gpointer user_data)
{
  int cmp = ordering_of_strings (STAT ((gpointer) a)->group, STAT ((gpointer) b)->group);

  (void) user_data;
  return cmp != GTK_ORDERING_EQUAL ? cmp : ordering_of_strings (STAT ((gpointer) a)->name, STAT ((gpointer) b)->name);
}

static int
compare_stat_name (gconstpointer a, gconstpointer b, gpointer user_data)
{
  int cmp = ordering_of_strings (STAT ((gpointer) a)->name, STAT ((gpointer) b)->name);

  return cmp != GTK_ORDERING_EQUAL ? cmp : compare_stat_group (a, b, user_data);
}

#define COMPARE_STAT_FIELD(field)                                                        \
  static int compare_stat_##field (gconstpointer a, gconstpointer b, gpointer user_data) \
  {                                                                                      \
    int cmp = ordering_of (STAT ((gpointer) a)->field, STAT ((gpointer) b)->field);      \
                                                                                         \
    return cmp != GTK_ORDERING_EQUAL ? cmp : compare_stat_group (a, b, user_data);       \
  }

COMPARE_STAT_FIELD (count)
COMPARE_STAT_FIELD (total_ns)
COMPARE_STAT_FIELD (min_ns)
COMPARE_STAT_FIELD (max_ns)
COMPARE_STAT_FIELD (mean_ns)
COMPARE_STAT_FIELD (median_ns)

static const Column stat_columns[] = {
  { "Group", stat_group_text, compare_stat_group, .tooltip = TRUE },
  { "Name", stat_name_text, compare_stat_name, .expand = TRUE, .tooltip = TRUE },
  { "Count", stat_count_text, compare_stat_count, .numeric = TRUE },
  { "Total", stat_total_text, compare_stat_total_ns, .numeric = TRUE },
  { "Min", stat_min_text, compare_stat_min_ns, .numeric = TRUE },
  { "Max", stat_max_text, compare_stat_max_ns, .numeric = TRUE },
  { "Mean", stat_mean_text, compare_stat_mean_ns, .numeric = TRUE },
  { "Median", stat_median_text, compare_stat_median_ns, .numeric = TRUE },
};

/* The column the summary is sorted by at first: the most time first. */
#define STAT_COLUMN_TOTAL 3

static char *
mark_time_text (gpointer item)
{
  return g_strdup_printf ("%.6f s", MARK (item)->time_ns / 1e9);
}

static char *
mark_duration_text (gpointer item)
{
  return format_duration (MARK (item)->duration_ns);
}

static char *
mark_group_text (gpointer item)
{
  return g_strdup (MARK (item)->group);
}

static char *
mark_name_text (gpointer item)
{
  return g_strdup (MARK (item)->name);
}

static char *
mark_message_text (gpointer item)
{
  return g_strdup (MARK (item)->message);
}

static int
compare_mark_time (gconstpointer a, gconstpointer b, gpointer user_data)
{
  const SysprofDocumentMark *ma = MARK ((gpointer) a);
  const SysprofDocumentMark *mb = MARK ((gpointer) b);

  (void) user_data;
  if (ma->time_ns != mb->time_ns)
    return ma->time_ns < mb->time_ns ? GTK_ORDERING_SMALLER : GTK_ORDERING_LARGER;
  /* Same time: keep the document's order, so that sorting is stable. */
  return ma < mb ? GTK_ORDERING_SMALLER : ma > mb ? GTK_ORDERING_LARGER : GTK_ORDERING_EQUAL;
}

static int
compare_mark_duration (gconstpointer a, gconstpointer b, gpointer user_data)
{
  int cmp = ordering_of (MARK ((gpointer) a)->duration_ns, MARK ((gpointer) b)->duration_ns);

  return cmp != GTK_ORDERING_EQUAL ? cmp : compare_mark_time (a, b, user_data);
}

#define COMPARE_MARK_STRING(field)                                                          \
  static int compare_mark_##field (gconstpointer a, gconstpointer b, gpointer user_data)    \
  {                                                                                         \
    int cmp = ordering_of_strings (MARK ((gpointer) a)->field, MARK ((gpointer) b)->field); \
                                                                                            \
    return cmp != GTK_ORDERING_EQUAL ? cmp : compare_mark_time (a, b, user_data);           \
  }

COMPARE_MARK_STRING (group)
COMPARE_MARK_STRING (name)
COMPARE_MARK_STRING (message)

static const Column mark_columns[] = {
  { "Time", mark_time_text, compare_mark_time, .numeric = TRUE },
  { "Duration", mark_duration_text, compare_mark_duration, .numeric = TRUE },
  { "Group", mark_group_text, compare_mark_group, .tooltip = TRUE },
  { "Name", mark_name_text, compare_mark_name, .tooltip = TRUE },
  { "Message", mark_message_text, compare_mark_message, .expand = TRUE, .tooltip = TRUE },
};

static void
cell_setup (GtkSignalListItemFactory *factory, GtkListItem *list_item, gpointer user_data)
{
  const Column *column = user_data;
  GtkWidget    *label = gtk_label_new (NULL);

  (void) factory;
  gtk_label_set_xalign (GTK_LABEL (label), column->numeric ? 1.0f : 0.0f);
  if (column->numeric)
    gtk_widget_add_css_class (label, "numeric");
  else
    gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_END);
  if (column->tooltip)
    sysprof_view_label_text_tooltip (label);
  gtk_list_item_set_child (list_item, label);
}

static void
cell_bind (GtkSignalListItemFactory *factory, GtkListItem *list_item, gpointer user_data)
{
  const Column    *column = user_data;
  GtkWidget       *label = gtk_list_item_get_child (list_item);
  g_autofree char *text = column->text (gtk_list_item_get_item (list_item));

  (void) factory;
  gtk_label_set_text (GTK_LABEL (label), text);
}

/* A sortable table of @columns, sorted by @sort_column at first; *@sorted
 * receives the sort model, whose model the caller replaces with its data. */
static GtkWidget *
create_table (const Column      *columns,
              guint              n_columns,
              guint              sort_column,
              GtkSortType        sort_type,
              const char        *accessible_label,
              GtkSortListModel **sorted)
{
  GtkWidget          *view = gtk_column_view_new (NULL);
  GtkWidget          *scrolled = gtk_scrolled_window_new ();
  GtkSingleSelection *selection;

  *sorted = gtk_sort_list_model_new (NULL, g_object_ref (gtk_column_view_get_sorter (GTK_COLUMN_VIEW (view))));
  gtk_sort_list_model_set_incremental (*sorted, TRUE);
  selection = gtk_single_selection_new (G_LIST_MODEL (*sorted));
  gtk_single_selection_set_autoselect (selection, FALSE);
  gtk_single_selection_set_can_unselect (selection, TRUE);
  gtk_column_view_set_model (GTK_COLUMN_VIEW (view), GTK_SELECTION_MODEL (selection));
  g_object_unref (selection);

  for (guint i = 0; i < n_columns; i++)
    {
      GtkListItemFactory  *factory = gtk_signal_list_item_factory_new ();
      GtkColumnViewColumn *column;
      g_autoptr (GtkSorter) sorter = GTK_SORTER (gtk_custom_sorter_new (columns[i].compare, NULL, NULL));

      g_signal_connect (factory, "setup", G_CALLBACK (cell_setup), (gpointer) &columns[i]);
      g_signal_connect (factory, "bind", G_CALLBACK (cell_bind), (gpointer) &columns[i]);
      column = gtk_column_view_column_new (columns[i].title, factory);
      gtk_column_view_column_set_sorter (column, sorter);
      gtk_column_view_column_set_resizable (column, TRUE);
      gtk_column_view_column_set_expand (column, columns[i].expand);
      gtk_column_view_append_column (GTK_COLUMN_VIEW (view), column);
      if (i == sort_column)
        gtk_column_view_sort_by_column (GTK_COLUMN_VIEW (view), column, sort_type);
      g_object_unref (column);
    }

  gtk_widget_add_css_class (view, "data-table");
  gtk_accessible_update_property (GTK_ACCESSIBLE (view), GTK_ACCESSIBLE_PROPERTY_LABEL, accessible_label, -1);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scrolled), view);
  gtk_widget_set_vexpand (scrolled, TRUE);
  return scrolled;
}

/* ------------------------------------------------------------------------ */
/* Grouping by (group, name) */

/* Borrowed strings: grouping a million marks allocates nothing per mark. */
typedef struct
{
  const char *group;
  const char *name;
} MarkKey;

static guint
mark_key_hash (gconstpointer data)
{
  const MarkKey *key = data;

  return g_str_hash (key->group) * 33 + g_str_hash (key->name);
}

static gboolean
mark_key_equal (gconstpointer a, gconstpointer b)
{
  const MarkKey *ka = a;
  const MarkKey *kb = b;

  return strcmp (ka->group, kb->group) == 0 && strcmp (ka->name, kb->name) == 0;
}

/* ------------------------------------------------------------------------ */
/* The waterfall's rows */

typedef struct
{
  char   *group;
  char   *name;
  MarkKey key; /* of @group and @name */
  /* Indices in the document's marks, in time order. */
  GArray *indices;
  /* The longest mark: a mark that starts this much before the visible
   * range may still reach into it. */
  gint64 max_duration_ns;
} MarksRow;

static void
marks_row_free (gpointer data)
{
  MarksRow *row = data;

  g_free (row->group);
  g_free (row->name);
  g_array_unref (row->indices);
  g_free (row);
}

static int
compare_rows (gconstpointer a, gconstpointer b)
{
  const MarksRow *ra = *(MarksRow *const *) a;
  const MarksRow *rb = *(MarksRow *const *) b;
  int             cmp = strcmp (ra->group, rb->group);

  return cmp != 0 ? cmp : strcmp (ra->name, rb->name);
}

/* One row per (group, name), sorted by group then name. */
static GPtrArray *
build_rows (GArray *marks)
{
  g_autoptr (GHashTable) by_key = g_hash_table_new (mark_key_hash, mark_key_equal);
  GPtrArray *rows = g_ptr_array_new_with_free_func (marks_row_free);

  for (guint i = 0; i < marks->len; i++)
    {
      const SysprofDocumentMark *mark = &g_array_index (marks, SysprofDocumentMark, i);
      MarkKey                    key = { mark->group, mark->name };
      MarksRow                  *row = g_hash_table_lookup (by_key, &key);

      if (row == NULL)
        {
          row = g_new0 (MarksRow, 1);
          row->group = g_strdup (mark->group);
          row->name = g_strdup (mark->name);
          row->key.group = row->group;
          row->key.name = row->name;
          row->indices = g_array_new (FALSE, FALSE, sizeof (guint));
          g_ptr_array_add (rows, row);
          g_hash_table_insert (by_key, &row->key, row);
        }
      g_array_append_val (row->indices, i);
      row->max_duration_ns = MAX (row->max_duration_ns, mark->duration_ns);
    }
  g_ptr_array_sort (rows, compare_rows);
  return rows;
}

/* ------------------------------------------------------------------------ */
/* The waterfall */

#define SYSPROF_TYPE_MARKS_WATERFALL (sysprof_marks_waterfall_get_type ())
G_DECLARE_FINAL_TYPE (SysprofMarksWaterfall, sysprof_marks_waterfall, SYSPROF, MARKS_WATERFALL, GtkWidget)

/* A GtkScrollable, like SysprofChart: in a GtkScrolledWindow it draws only
 * the rows in view, so that fifty thousand kinds of marks cost a screenful
 * of rows per frame, not fifty thousand labels. */
struct _SysprofMarksWaterfall
{
  GtkWidget parent_instance;

  SysprofDocument *document;
  gulong           filter_handler;
  gulong           range_handler;
  GPtrArray       *rows; /* MarksRow */

  GtkAdjustment *hadjustment;
  GtkAdjustment *vadjustment;
  gulong         vadjustment_handler;
  guint          hscroll_policy : 1;
  guint          vscroll_policy : 1;

  SysprofTimeDrag drag;
};

enum
{
  PROP_0,
  PROP_HADJUSTMENT,
  PROP_VADJUSTMENT,
  PROP_HSCROLL_POLICY,
  PROP_VSCROLL_POLICY,
};

G_DEFINE_FINAL_TYPE_WITH_CODE (SysprofMarksWaterfall,
                               sysprof_marks_waterfall,
                               GTK_TYPE_WIDGET,
                               G_IMPLEMENT_INTERFACE (GTK_TYPE_SCROLLABLE, NULL))

/* Dark enough for white text on the bars. */
static const char *const palette[] = {
  "#1c71d8", "#26a269", "#c64600", "#813d9c", "#c01c28", "#865e3c", "#0b7285", "#9c6f00",
};

static void
get_axis (SysprofMarksWaterfall *self, SysprofTimeAxis *axis)
{
  sysprof_time_axis_init_for_widget (axis, self->document, GTK_WIDGET (self));
}

static double
scroll_offset (SysprofMarksWaterfall *self)
{
  return self->vadjustment != NULL ? floor (gtk_adjustment_get_value (self->vadjustment)) : 0;
}

static int
content_height (SysprofMarksWaterfall *self)
{
  return (int) MIN ((gint64) (self->rows != NULL ? self->rows->len : 0) * ROW_HEIGHT, G_MAXINT / 2);
}

static const SysprofDocumentMark *
mark_of_row (SysprofMarksWaterfall *self, const MarksRow *row, guint i)
{
  GArray *marks = sysprof_document_get_marks (self->document);

  return &g_array_index (marks, SysprofDocumentMark, g_array_index (row->indices, guint, i));
}

/* The first mark of @row that may reach @time or later. */
static guint
first_mark_reaching (SysprofMarksWaterfall *self, const MarksRow *row, gint64 time)
{
  gint64 from = sysprof_time_sub (time, row->max_duration_ns);
  guint  lo = 0, hi = row->indices->len;

  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;

      if (mark_of_row (self, row, mid)->time_ns < from)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo;
}

/* The mark under (@x, @y) (widget coordinates), within two pixels, or
 * NULL. */
static const SysprofDocumentMark *
mark_at (SysprofMarksWaterfall *self, double x, double y)
{
  const MarksRow *row;
  SysprofTimeAxis axis;
  gint64          tolerance, time, from, to;
  double          index = floor ((y + scroll_offset (self)) / ROW_HEIGHT);

  if (self->rows == NULL || !(index >= 0) || index >= self->rows->len || x < SYSPROF_CHART_GUTTER)
    return NULL;
  row = g_ptr_array_index (self->rows, (guint) index);
  get_axis (self, &axis);
  tolerance = sysprof_time_from_double (2.0 * sysprof_time_axis_ns_per_pixel (&axis));
  time = sysprof_time_axis_time_at_x (&axis, x);
  from = sysprof_time_sub (time, tolerance);
  to = sysprof_time_add (time, tolerance);
  for (guint i = first_mark_reaching (self, row, from); i < row->indices->len; i++)
    {
      const SysprofDocumentMark *mark = mark_of_row (self, row, i);

      if (mark->time_ns > to)
        break;
      if (sysprof_time_add (mark->time_ns, mark->duration_ns) >= from)
        return mark;
    }
  return NULL;
}

static void
append_text (GtkWidget     *widget,
             GtkSnapshot   *snapshot,
             const char    *markup,
             double         x,
             double         y,
             double         width,
             const GdkRGBA *color)
{
  PangoLayout *layout = gtk_widget_create_pango_layout (widget, NULL);
  int          text_height;

  pango_layout_set_markup (layout, markup, -1);
  pango_layout_set_width (layout, (int) (CLAMP (width, 1, 100000) * PANGO_SCALE));
  pango_layout_set_ellipsize (layout, PANGO_ELLIPSIZE_END);
  pango_layout_get_pixel_size (layout, NULL, &text_height);
  gtk_snapshot_save (snapshot);
  gtk_snapshot_translate (snapshot, &GRAPHENE_POINT_INIT ((float) x, (float) (y + (ROW_HEIGHT - text_height) / 2.0)));
  gtk_snapshot_append_layout (snapshot, layout, color);
  gtk_snapshot_restore (snapshot);
  g_object_unref (layout);
}

static void
draw_bar (SysprofMarksWaterfall     *self,
          GtkSnapshot               *snapshot,
          const SysprofDocumentMark *mark,
          double                     x1,
          double                     x2,
          double                     y,
          const GdkRGBA             *color)
{
  static const GdkRGBA white = { 1, 1, 1, 0.95f };
  double               width = x2 - x1;

  /* A pixel's gap after wide bars keeps back-to-back marks apart. */
  gtk_snapshot_append_color (snapshot, color,
                             &GRAPHENE_RECT_INIT ((float) x1, (float) (y + (ROW_HEIGHT - BAR_HEIGHT) / 2),
                                                  (float) (width > 4 ? width - 1 : width), BAR_HEIGHT));
  if (width > 40)
    {
      g_autofree char *markup =
          g_markup_escape_text (mark->message != NULL && mark->message[0] ? mark->message : mark->name, -1);

      append_text (GTK_WIDGET (self), snapshot, markup, x1 + 3, y, width - 6, &white);
    }
}

static void
draw_row (SysprofMarksWaterfall *self,
          GtkSnapshot           *snapshot,
          const MarksRow        *row,
          double                 y,
          const SysprofTimeAxis *axis,
          const GdkRGBA         *color)
{
  double run_x1 = -1, run_x2 = -1;

  for (guint i = first_mark_reaching (self, row, axis->begin); i < row->indices->len; i++)
    {
      const SysprofDocumentMark *mark = mark_of_row (self, row, i);
      double                     x1, x2;

      if (mark->time_ns > axis->end)
        break;
      if (!sysprof_time_axis_range_x (axis, mark->time_ns, sysprof_time_add (mark->time_ns, mark->duration_ns), &x1,
                                      &x2))
        continue;

      /* Marks narrower than two pixels merge with their neighbours into one
       * run: a million marks then cost a node per pixel, not per mark. */
      if (x2 - x1 < 2)
        {
          if (run_x2 >= 0 && x1 <= run_x2 + 1)
            {
              run_x2 = MAX (run_x2, x2);
              continue;
            }
          if (run_x2 >= 0)
            gtk_snapshot_append_color (snapshot, color,
                                       &GRAPHENE_RECT_INIT ((float) run_x1, (float) (y + (ROW_HEIGHT - BAR_HEIGHT) / 2),
                                                            (float) (run_x2 - run_x1), BAR_HEIGHT));
          run_x1 = x1;
          run_x2 = x2;
          continue;
        }
      draw_bar (self, snapshot, mark, x1, x2, y, color);
    }
  if (run_x2 >= 0)
    gtk_snapshot_append_color (snapshot, color,
                               &GRAPHENE_RECT_INIT ((float) run_x1, (float) (y + (ROW_HEIGHT - BAR_HEIGHT) / 2),
                                                    (float) (run_x2 - run_x1), BAR_HEIGHT));
}

static void
sysprof_marks_waterfall_snapshot (GtkWidget *widget, GtkSnapshot *snapshot)
{
  SysprofMarksWaterfall *self = SYSPROF_MARKS_WATERFALL (widget);
  int                    width = gtk_widget_get_width (widget);
  int                    height = gtk_widget_get_height (widget);
  double                 offset = scroll_offset (self);
  SysprofTimeAxis        axis;
  GdkRGBA                fg, faint, stripe, shade;
  gint64                 sel_begin, sel_end;
  double                 x1, x2;
  guint                  first, last;

  if (self->rows == NULL)
    return;

  gtk_style_context_get_color (gtk_widget_get_style_context (widget), &fg);
  faint = fg;
  faint.alpha = 0.25f;
  stripe = fg;
  stripe.alpha = 0.04f;
  gdk_rgba_parse (&shade, "#3584e4");
  shade.alpha = 0.25f;
  get_axis (self, &axis);

  /* Only the rows in view. */
  first = (guint) MIN (offset / ROW_HEIGHT, (double) self->rows->len);
  last = (guint) MIN (ceil ((offset + height) / ROW_HEIGHT), (double) self->rows->len);
  for (guint r = first; r < last; r++)
    {
      const MarksRow  *row = g_ptr_array_index (self->rows, r);
      double           y = (double) r * ROW_HEIGHT - offset;
      GdkRGBA          color;
      g_autofree char *label = NULL;

      if (r % 2 == 1)
        gtk_snapshot_append_color (snapshot, &stripe, &GRAPHENE_RECT_INIT (0, (float) y, (float) width, ROW_HEIGHT));
      if (row->group[0] != '\0')
        label = g_markup_printf_escaped ("<span alpha=\"60%%\">%s ›</span> %s", row->group, row->name);
      else
        label = g_markup_escape_text (row->name, -1);
      append_text (widget, snapshot, label, 8, y, SYSPROF_CHART_GUTTER - 14, &fg);

      gdk_rgba_parse (&color, palette[r % G_N_ELEMENTS (palette)]);
      draw_row (self, snapshot, row, y, &axis, &color);
    }

  /* The selection, or the range being dragged, as on the timeline. */
  sysprof_document_get_selection (self->document, &sel_begin, &sel_end);
  if (sysprof_time_drag_get_range (&self->drag, &x1, &x2))
    gtk_snapshot_append_color (snapshot, &shade, &GRAPHENE_RECT_INIT ((float) x1, 0, (float) (x2 - x1), height));
  else if (!self->drag.active && sysprof_document_has_selection (self->document) &&
           sysprof_time_axis_range_x (&axis, sel_begin, sel_end, &x1, &x2))
    gtk_snapshot_append_color (snapshot, &shade, &GRAPHENE_RECT_INIT ((float) x1, 0, (float) (x2 - x1), height));

  gtk_snapshot_append_color (snapshot, &faint, &GRAPHENE_RECT_INIT (SYSPROF_CHART_GUTTER - 1, 0, 1, height));
}

static void
sysprof_marks_waterfall_measure (GtkWidget     *widget,
                                 GtkOrientation orientation,
                                 int            for_size,
                                 int           *minimum,
                                 int           *natural,
                                 int           *minimum_baseline,
                                 int           *natural_baseline)
{
  SysprofMarksWaterfall *self = SYSPROF_MARKS_WATERFALL (widget);

  (void) for_size;
  *minimum_baseline = *natural_baseline = -1;
  if (orientation == GTK_ORIENTATION_HORIZONTAL)
    *minimum = *natural = SYSPROF_CHART_GUTTER + 200;
  else
    /* Like SysprofChart: a scrolled window compares this to its height
     * to decide on a scrollbar, then gives the waterfall its own height. */
    *minimum = *natural = content_height (self);
}

static void
sysprof_marks_waterfall_size_allocate (GtkWidget *widget, int width, int height, int baseline)
{
  SysprofMarksWaterfall *self = SYSPROF_MARKS_WATERFALL (widget);

  (void) baseline;
  if (self->vadjustment != NULL)
    {
      double upper = MAX (content_height (self), height);

      gtk_adjustment_configure (self->vadjustment,
                                CLAMP (gtk_adjustment_get_value (self->vadjustment), 0, upper - height), 0, upper,
                                ROW_HEIGHT, height * 0.9, height);
    }
  if (self->hadjustment != NULL)
    gtk_adjustment_configure (self->hadjustment, 0, 0, width, 1, width, width);
}

static void
vadjustment_changed_cb (GtkAdjustment *adjustment, SysprofMarksWaterfall *self)
{
  (void) adjustment;
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static void
set_hadjustment (SysprofMarksWaterfall *self, GtkAdjustment *adjustment)
{
  if (adjustment == self->hadjustment)
    return;
  g_clear_object (&self->hadjustment);
  if (adjustment != NULL)
    self->hadjustment = g_object_ref_sink (adjustment);
  gtk_widget_queue_allocate (GTK_WIDGET (self));
  g_object_notify (G_OBJECT (self), "hadjustment");
}

static void
set_vadjustment (SysprofMarksWaterfall *self, GtkAdjustment *adjustment)
{
  if (adjustment == self->vadjustment)
    return;
  if (self->vadjustment != NULL)
    g_clear_signal_handler (&self->vadjustment_handler, self->vadjustment);
  g_clear_object (&self->vadjustment);
  if (adjustment != NULL)
    {
      self->vadjustment = g_object_ref_sink (adjustment);
      self->vadjustment_handler =
          g_signal_connect (adjustment, "value-changed", G_CALLBACK (vadjustment_changed_cb), self);
    }
  gtk_widget_queue_allocate (GTK_WIDGET (self));
  g_object_notify (G_OBJECT (self), "vadjustment");
}

static void
sysprof_marks_waterfall_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  SysprofMarksWaterfall *self = SYSPROF_MARKS_WATERFALL (object);

  switch (prop_id)
    {
    case PROP_HADJUSTMENT: g_value_set_object (value, self->hadjustment); break;
    case PROP_VADJUSTMENT: g_value_set_object (value, self->vadjustment); break;
    case PROP_HSCROLL_POLICY: g_value_set_enum (value, self->hscroll_policy); break;
    case PROP_VSCROLL_POLICY: g_value_set_enum (value, self->vscroll_policy); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
sysprof_marks_waterfall_set_property (GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  SysprofMarksWaterfall *self = SYSPROF_MARKS_WATERFALL (object);

  switch (prop_id)
    {
    case PROP_HADJUSTMENT: set_hadjustment (self, g_value_get_object (value)); break;
    case PROP_VADJUSTMENT: set_vadjustment (self, g_value_get_object (value)); break;
    case PROP_HSCROLL_POLICY:
      self->hscroll_policy = g_value_get_enum (value) == GTK_SCROLL_NATURAL;
      gtk_widget_queue_resize (GTK_WIDGET (self));
      break;
    case PROP_VSCROLL_POLICY:
      self->vscroll_policy = g_value_get_enum (value) == GTK_SCROLL_NATURAL;
      gtk_widget_queue_resize (GTK_WIDGET (self));
      break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static gboolean
query_tooltip_cb (GtkWidget *widget, int x, int y, gboolean keyboard, GtkTooltip *tooltip, SysprofMarksWaterfall *self)
{
  const SysprofDocumentMark *mark;
  g_autofree char           *duration = NULL;
  g_autofree char           *text = NULL;

  (void) widget;
  if (keyboard || (mark = mark_at (self, x, y)) == NULL)
    return FALSE;
  duration = format_duration (mark->duration_ns);
  text = g_strdup_printf ("%s%s%s%s%s\nat %.6f s for %s", mark->group, mark->group[0] ? " › " : "", mark->name,
                          mark->message[0] ? "\n" : "", mark->message, mark->time_ns / 1e9, duration);
  gtk_tooltip_set_text (tooltip, text);
  return TRUE;
}

static void
drag_begin_cb (GtkGestureDrag *gesture, double x, double y, SysprofMarksWaterfall *self)
{
  (void) gesture;
  (void) y;
  sysprof_time_drag_begin (&self->drag, x, SYSPROF_CHART_GUTTER);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static void
drag_update_cb (GtkGestureDrag *gesture, double dx, double dy, SysprofMarksWaterfall *self)
{
  (void) gesture;
  (void) dy;
  sysprof_time_drag_update (&self->drag, dx, SYSPROF_CHART_GUTTER, gtk_widget_get_width (GTK_WIDGET (self)));
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static void
drag_end_cb (GtkGestureDrag *gesture, double dx, double dy, SysprofMarksWaterfall *self)
{
  SysprofTimeAxis            axis;
  const SysprofDocumentMark *mark;
  double                     x, y;

  if (!self->drag.active)
    return;
  gtk_widget_queue_draw (GTK_WIDGET (self));
  get_axis (self, &axis);
  if (sysprof_time_drag_end (&self->drag, dx, &axis, self->document))
    return;
  /* A click selects the span of the mark under it, or clears the
   * selection. */
  gtk_gesture_drag_get_start_point (gesture, &x, &y);
  mark = mark_at (self, x, y + dy);
  if (mark != NULL)
    sysprof_document_set_selection (self->document, mark->time_ns, sysprof_time_add (mark->time_ns, mark->duration_ns));
  else if (x >= SYSPROF_CHART_GUTTER)
    sysprof_document_set_selection (self->document, G_MININT64, G_MAXINT64);
}

static void
on_document_changed (SysprofDocument *document, SysprofMarksWaterfall *self)
{
  (void) document;
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static GtkWidget *
sysprof_marks_waterfall_new (SysprofDocument *document)
{
  SysprofMarksWaterfall *self = g_object_new (SYSPROF_TYPE_MARKS_WATERFALL, NULL);

  self->document = g_object_ref (document);
  self->filter_handler = g_signal_connect (document, "filter-changed", G_CALLBACK (on_document_changed), self);
  self->range_handler = g_signal_connect (document, "visible-range-changed", G_CALLBACK (on_document_changed), self);
  return GTK_WIDGET (self);
}

/* Takes @rows. */
static void
sysprof_marks_waterfall_set_rows (SysprofMarksWaterfall *self, GPtrArray *rows)
{
  g_autoptr (GString) description = g_string_new (NULL);

  g_clear_pointer (&self->rows, g_ptr_array_unref);
  self->rows = rows;
  g_string_append_printf (description, "%u rows of marks", rows->len);
  for (guint i = 0; i < rows->len && i < 20; i++)
    {
      const MarksRow *row = g_ptr_array_index (rows, i);

      g_string_append_printf (description, "%s %s%s%s: %u", i == 0 ? ":" : ";", row->group, row->group[0] ? " " : "",
                              row->name, row->indices->len);
    }
  gtk_accessible_update_property (GTK_ACCESSIBLE (self), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, description->str, -1);
  gtk_widget_queue_resize (GTK_WIDGET (self));
}

static void
sysprof_marks_waterfall_dispose (GObject *object)
{
  SysprofMarksWaterfall *self = SYSPROF_MARKS_WATERFALL (object);

  if (self->document != NULL)
    {
      g_clear_signal_handler (&self->filter_handler, self->document);
      g_clear_signal_handler (&self->range_handler, self->document);
    }
  g_clear_object (&self->document);
  g_clear_pointer (&self->rows, g_ptr_array_unref);
  set_hadjustment (self, NULL);
  set_vadjustment (self, NULL);

  G_OBJECT_CLASS (sysprof_marks_waterfall_parent_class)->dispose (object);
}

static void
sysprof_marks_waterfall_class_init (SysprofMarksWaterfallClass *klass)
{
  GObjectClass   *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = sysprof_marks_waterfall_dispose;
  object_class->get_property = sysprof_marks_waterfall_get_property;
  object_class->set_property = sysprof_marks_waterfall_set_property;
  widget_class->snapshot = sysprof_marks_waterfall_snapshot;
  widget_class->measure = sysprof_marks_waterfall_measure;
  widget_class->size_allocate = sysprof_marks_waterfall_size_allocate;

  g_object_class_override_property (object_class, PROP_HADJUSTMENT, "hadjustment");
  g_object_class_override_property (object_class, PROP_VADJUSTMENT, "vadjustment");
  g_object_class_override_property (object_class, PROP_HSCROLL_POLICY, "hscroll-policy");
  g_object_class_override_property (object_class, PROP_VSCROLL_POLICY, "vscroll-policy");

  gtk_widget_class_set_css_name (widget_class, "waterfall");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_IMG);
}

static void
sysprof_marks_waterfall_init (SysprofMarksWaterfall *self)
{
  GtkGesture *drag = gtk_gesture_drag_new ();

  g_signal_connect (drag, "drag-begin", G_CALLBACK (drag_begin_cb), self);
  g_signal_connect (drag, "drag-update", G_CALLBACK (drag_update_cb), self);
  g_signal_connect (drag, "drag-end", G_CALLBACK (drag_end_cb), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (drag));
  gtk_widget_set_has_tooltip (GTK_WIDGET (self), TRUE);
  gtk_widget_set_overflow (GTK_WIDGET (self), GTK_OVERFLOW_HIDDEN);
  g_signal_connect (self, "query-tooltip", G_CALLBACK (query_tooltip_cb), self);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self), GTK_ACCESSIBLE_PROPERTY_LABEL, "Marks waterfall", -1);
}

/* ------------------------------------------------------------------------ */
/* Summarizing the selection, in a thread */

typedef struct
{
  SysprofDocument *document;
  gint64           begin_ns;
  gint64           end_ns;
  gboolean         with_rows;
} Request;

typedef struct
{
  GPtrArray  *rows; /* MarksRow, only when asked */
  GListStore *stats;
  /* The first MAX_LISTED_MARKS of the @n_marks marks in the selection. */
  GListStore *marks;
  guint       n_marks;
} Summary;

static void
request_free (gpointer data)
{
  Request *request = data;

  g_object_unref (request->document);
  g_free (request);
}

static void
summary_free (gpointer data)
{
  Summary *summary = data;

  g_clear_pointer (&summary->rows, g_ptr_array_unref);
  g_clear_object (&summary->stats);
  g_clear_object (&summary->marks);
  g_free (summary);
}

typedef struct
{
  MarkKey key;       /* the document's strings */
  GArray *durations; /* gint64 */
  double  total_ns;
} Accumulator;

static void
accumulator_free (gpointer data)
{
  Accumulator *acc = data;

  g_array_unref (acc->durations);
  g_free (acc);
}

static int
compare_gint64 (gconstpointer a, gconstpointer b)
{
  gint64 va = *(const gint64 *) a;
  gint64 vb = *(const gint64 *) b;

  return va < vb ? -1 : va > vb;
}

static SysprofMarksStat *
stat_of (const Accumulator *acc)
{
  SysprofMarksStat *stat = g_object_new (SYSPROF_TYPE_MARKS_STAT, NULL);
  GArray           *d = acc->durations;
  guint             n = d->len;

  g_array_sort (d, compare_gint64);
  stat->group = g_strdup (acc->key.group);
  stat->name = g_strdup (acc->key.name);
  stat->count = n;
  stat->total_ns = acc->total_ns;
  stat->min_ns = g_array_index (d, gint64, 0);
  stat->max_ns = g_array_index (d, gint64, n - 1);
  stat->mean_ns = acc->total_ns / n;
  stat->median_ns = n % 2 == 1 ? (double) g_array_index (d, gint64, n / 2)
                               : ((double) g_array_index (d, gint64, n / 2 - 1) + g_array_index (d, gint64, n / 2)) / 2;
  return stat;
}

static void
summarize_thread (GTask *task, gpointer source, gpointer task_data, GCancellable *cancellable)
{
  Request *request = task_data;
  GArray  *marks = sysprof_document_get_marks (request->document);
  g_autoptr (GHashTable) by_key = g_hash_table_new_full (mark_key_hash, mark_key_equal, NULL, accumulator_free);
  g_autoptr (GPtrArray) accumulators = g_ptr_array_new ();
  g_autoptr (GPtrArray) items = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr (GPtrArray) stats = g_ptr_array_new_with_free_func (g_object_unref);
  Summary *summary = g_new0 (Summary, 1);

  (void) source;
  if (request->with_rows)
    summary->rows = build_rows (marks);

  for (guint i = 0; i < marks->len; i++)
    {
      const SysprofDocumentMark *mark = &g_array_index (marks, SysprofDocumentMark, i);
      MarkKey                    key = { mark->group, mark->name };
      Accumulator               *acc;

      if ((i & 0xffff) == 0 && g_cancellable_is_cancelled (cancellable))
        break;
      /* Marks are in time order: none after this one starts in time. */
      if (mark->time_ns > request->end_ns)
        break;
      if (sysprof_time_add (mark->time_ns, mark->duration_ns) < request->begin_ns)
        continue;

      summary->n_marks++;
      if (items->len < MAX_LISTED_MARKS)
        {
          SysprofMarksItem *item = g_object_new (SYSPROF_TYPE_MARKS_ITEM, NULL);

          item->document = g_object_ref (request->document);
          item->mark = mark;
          g_ptr_array_add (items, item);
        }

      if ((acc = g_hash_table_lookup (by_key, &key)) == NULL)
        {
          acc = g_new0 (Accumulator, 1);
          acc->key = key;
          acc->durations = g_array_new (FALSE, FALSE, sizeof (gint64));
          g_hash_table_insert (by_key, &acc->key, acc);
          g_ptr_array_add (accumulators, acc);
        }
      g_array_append_val (acc->durations, mark->duration_ns);
      acc->total_ns += (double) mark->duration_ns;
    }

  for (guint i = 0; i < accumulators->len; i++)
    g_ptr_array_add (stats, stat_of (g_ptr_array_index (accumulators, i)));

  summary->stats = g_list_store_new (SYSPROF_TYPE_MARKS_STAT);
  g_list_store_splice (summary->stats, 0, 0, stats->pdata, stats->len);
  summary->marks = g_list_store_new (SYSPROF_TYPE_MARKS_ITEM);
  g_list_store_splice (summary->marks, 0, 0, items->pdata, items->len);
  g_task_return_pointer (task, summary, summary_free);
}

/* ------------------------------------------------------------------------ */
/* The view */

struct _SysprofMarksView
{
  SysprofView parent_instance;

  GCancellable     *cancellable;
  GtkWidget        *paned;
  GtkWidget        *waterfall;
  GtkWidget        *count_label;
  GtkSortListModel *stats_model;
  GtkSortListModel *marks_model;
  gboolean          have_rows;
  /* The selection of the last summary asked for. */
  gint64 begin_ns;
  gint64 end_ns;
};

G_DEFINE_FINAL_TYPE (SysprofMarksView, sysprof_marks_view, SYSPROF_TYPE_VIEW)

static gboolean
sysprof_marks_view_has_data (SysprofDocument *document)
{
  return sysprof_document_get_n_frames (document, SYSPROF_CAPTURE_FRAME_MARK) > 0;
}

static void
summarize_done (GObject *object, GAsyncResult *result, gpointer user_data)
{
  SysprofMarksView *self = SYSPROF_MARKS_VIEW (object);
  SysprofDocument  *document = sysprof_view_get_document (SYSPROF_VIEW (self));
  g_autoptr (GError) error = NULL;
  Summary         *summary;
  guint            n_marks;
  g_autofree char *text = NULL;
  g_autofree char *count = NULL;

  (void) user_data;
  summary = g_task_propagate_pointer (G_TASK (result), &error);
  if (summary == NULL)
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        {
          sysprof_view_set_busy (SYSPROF_VIEW (self), FALSE, NULL);
          sysprof_view_set_error (SYSPROF_VIEW (self), error->message);
        }
      return;
    }

  if (summary->rows != NULL)
    {
      guint n_rows = summary->rows->len;

      sysprof_marks_waterfall_set_rows (SYSPROF_MARKS_WATERFALL (self->waterfall), g_steal_pointer (&summary->rows));
      /* Show every row when there are few, a scrollable part of them
       * otherwise; the tables get the rest. */
      gtk_paned_set_position (GTK_PANED (self->paned), (int) MIN (n_rows, 10) * ROW_HEIGHT + 2);
      self->have_rows = TRUE;
    }
  gtk_sort_list_model_set_model (self->stats_model, G_LIST_MODEL (summary->stats));
  gtk_sort_list_model_set_model (self->marks_model, G_LIST_MODEL (summary->marks));

  n_marks = summary->n_marks;
  count = format_count (n_marks);
  text = g_strdup_printf ("%s mark%s%s", count, n_marks == 1 ? "" : "s",
                          sysprof_document_has_selection (document) ? " in the selection" : "");
  if (n_marks > MAX_LISTED_MARKS)
    {
      g_autofree char *limit = format_count (MAX_LISTED_MARKS);
      g_autofree char *shown = g_strdup_printf ("%s; All Marks lists the first %s", text, limit);

      g_free (text);
      text = g_steal_pointer (&shown);
    }
  gtk_label_set_text (GTK_LABEL (self->count_label), text);
  summary_free (summary);
  sysprof_view_set_busy (SYSPROF_VIEW (self), FALSE, NULL);
}

static void
summarize (SysprofMarksView *self)
{
  SysprofDocument *document = sysprof_view_get_document (SYSPROF_VIEW (self));
  Request         *request = g_new0 (Request, 1);
  g_autoptr (GTask) task = NULL;

  /* A newer selection makes the summary in flight useless. */
  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  self->cancellable = g_cancellable_new ();

  request->document = g_object_ref (document);
  request->with_rows = !self->have_rows;
  sysprof_document_get_selection (document, &request->begin_ns, &request->end_ns);
  self->begin_ns = request->begin_ns;
  self->end_ns = request->end_ns;

  sysprof_view_set_busy (SYSPROF_VIEW (self), TRUE, "Summarizing the marks…");
  task = g_task_new (self, self->cancellable, summarize_done, NULL);
  g_task_set_source_tag (task, summarize);
  g_task_set_task_data (task, request, request_free);
  sysprof_thread_task_run (g_steal_pointer (&task), summarize_thread, summary_free);
}

static void
sysprof_marks_view_load (SysprofView *view, SysprofDocument *document)
{
  SysprofMarksView *self = SYSPROF_MARKS_VIEW (view);
  GtkWidget        *scrolled = gtk_scrolled_window_new ();

  self->waterfall = sysprof_marks_waterfall_new (document);
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (scrolled), GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scrolled), self->waterfall);
  gtk_paned_set_start_child (GTK_PANED (self->paned), scrolled);
  summarize (self);
}

static void
sysprof_marks_view_filter_changed (SysprofView *view)
{
  SysprofMarksView *self = SYSPROF_MARKS_VIEW (view);
  gint64            begin, end;

  /* Only the selection matters to marks, not focused or hidden
   * functions. */
  sysprof_document_get_selection (sysprof_view_get_document (view), &begin, &end);
  if (begin != self->begin_ns || end != self->end_ns)
    summarize (self);
}

static void
sysprof_marks_view_dispose (GObject *object)
{
  SysprofMarksView *self = SYSPROF_MARKS_VIEW (object);

  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);

  G_OBJECT_CLASS (sysprof_marks_view_parent_class)->dispose (object);
}

static void
sysprof_marks_view_class_init (SysprofMarksViewClass *klass)
{
  GObjectClass     *object_class = G_OBJECT_CLASS (klass);
  SysprofViewClass *view_class = SYSPROF_VIEW_CLASS (klass);

  object_class->dispose = sysprof_marks_view_dispose;
  view_class->has_data = sysprof_marks_view_has_data;
  view_class->load = sysprof_marks_view_load;
  view_class->filter_changed = sysprof_marks_view_filter_changed;
  sysprof_view_class_set_info (view_class, "marks", "Marks", "text-x-generic-symbolic", 60);
}

static void
sysprof_marks_view_init (SysprofMarksView *self)
{
  GtkWidget *tables = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  GtkWidget *bar = gtk_center_box_new ();
  GtkWidget *stack = gtk_stack_new ();
  GtkWidget *switcher = gtk_stack_switcher_new ();

  self->paned = gtk_paned_new (GTK_ORIENTATION_VERTICAL);
  gtk_paned_set_shrink_start_child (GTK_PANED (self->paned), FALSE);
  gtk_paned_set_resize_start_child (GTK_PANED (self->paned), FALSE);
  gtk_paned_set_shrink_end_child (GTK_PANED (self->paned), FALSE);

  gtk_stack_add_titled (GTK_STACK (stack),
                        create_table (stat_columns, G_N_ELEMENTS (stat_columns), STAT_COLUMN_TOTAL, GTK_SORT_DESCENDING,
                                      "Mark statistics", &self->stats_model),
                        "summary", "Summary");
  gtk_stack_add_titled (
      GTK_STACK (stack),
      create_table (mark_columns, G_N_ELEMENTS (mark_columns), 0, GTK_SORT_ASCENDING, "Marks", &self->marks_model),
      "marks", "All Marks");
  gtk_stack_switcher_set_stack (GTK_STACK_SWITCHER (switcher), GTK_STACK (stack));
  gtk_accessible_update_property (GTK_ACCESSIBLE (switcher), GTK_ACCESSIBLE_PROPERTY_LABEL, "Mark tables", -1);

  self->count_label = gtk_label_new ("");
  gtk_widget_add_css_class (self->count_label, "dim-label");
  gtk_widget_set_margin_end (self->count_label, 6);
  gtk_center_box_set_center_widget (GTK_CENTER_BOX (bar), switcher);
  gtk_center_box_set_end_widget (GTK_CENTER_BOX (bar), self->count_label);
  gtk_widget_set_margin_top (bar, 6);
  gtk_widget_set_margin_bottom (bar, 6);
  gtk_box_append (GTK_BOX (tables), bar);
  gtk_widget_set_vexpand (stack, TRUE);
  gtk_box_append (GTK_BOX (tables), stack);
  gtk_paned_set_end_child (GTK_PANED (self->paned), tables);

  sysprof_view_set_child (SYSPROF_VIEW (self), self->paned);
}
