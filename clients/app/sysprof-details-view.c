// SPDX-License-Identifier: GPL-3.0-or-later
/* SysprofDetailsView: what a capture is — file, time, duration, host — what
 * it holds (frame counts, samples, processes…), its metadata, and what went
 * wrong while reading it.  Every capture has one.
 *
 * Everything here comes from the document's scan, so the page is built at
 * once on the main thread.  Values are selectable and have a copy button. */
#include "sysprof-metadata-item.h"
#include "sysprof-metadata-list.h"
#include "sysprof-time-axis.h"
#include "sysprof-view.h"

#define SYSPROF_TYPE_DETAILS_VIEW (sysprof_details_view_get_type ())
G_DECLARE_FINAL_TYPE (SysprofDetailsView, sysprof_details_view, SYSPROF, DETAILS_VIEW, SysprofView)

struct _SysprofDetailsView
{
  SysprofView parent_instance;
};

G_DEFINE_FINAL_TYPE (SysprofDetailsView, sysprof_details_view, SYSPROF_TYPE_VIEW)

/* Metadata the app adds to the document for problems found while reading
 * (see sysprof-document.c). */
#define DAMAGE_METADATA_ID  "sysprof-app.damage"
#define SYMBOLS_METADATA_ID "sysprof-app.symbols"
#define APP_METADATA_PREFIX "sysprof-app."

/* Metadata longer than this, or of several lines, folds into an expander
 * row instead of a one-line value. */
#define SHORT_TEXT 60

/* A row is a few widgets: a capture of ten thousand metadata frames would
 * take a minute to show as rows.  The first ones are rows, all of them are
 * in a table that only makes the rows in view. */
#define MAX_ROWS 20

static const char *const frame_type_names[SYSPROF_CAPTURE_FRAME_LAST] = {
  [SYSPROF_CAPTURE_FRAME_TIMESTAMP] = "Timestamps",
  [SYSPROF_CAPTURE_FRAME_SAMPLE] = "Samples",
  [SYSPROF_CAPTURE_FRAME_MAP] = "Memory maps",
  [SYSPROF_CAPTURE_FRAME_PROCESS] = "Processes",
  [SYSPROF_CAPTURE_FRAME_FORK] = "Forks",
  [SYSPROF_CAPTURE_FRAME_EXIT] = "Exits",
  [SYSPROF_CAPTURE_FRAME_JITMAP] = "JIT maps",
  [SYSPROF_CAPTURE_FRAME_CTRDEF] = "Counter definitions",
  [SYSPROF_CAPTURE_FRAME_CTRSET] = "Counter values",
  [SYSPROF_CAPTURE_FRAME_MARK] = "Marks",
  [SYSPROF_CAPTURE_FRAME_METADATA] = "Metadata",
  [SYSPROF_CAPTURE_FRAME_LOG] = "Logs",
  [SYSPROF_CAPTURE_FRAME_FILE_CHUNK] = "File chunks",
  [SYSPROF_CAPTURE_FRAME_ALLOCATION] = "Allocations and frees",
  [SYSPROF_CAPTURE_FRAME_OVERLAY] = "Overlays",
  [SYSPROF_CAPTURE_FRAME_TRACE] = "Traces",
  [SYSPROF_CAPTURE_FRAME_DBUS_MESSAGE] = "D-Bus messages",
};

static gboolean
sysprof_details_view_has_data (SysprofDocument *document)
{
  (void) document;
  return TRUE;
}

/* ------------------------------------------------------------------------ */
/* Rows */

static void
free_text (gpointer data, GClosure *closure)
{
  (void) closure;
  g_free (data);
}

static void
on_copy_clicked (GtkButton *button, gpointer user_data)
{
  const char *text = user_data;

  gdk_clipboard_set_text (gtk_widget_get_clipboard (GTK_WIDGET (button)), text);
}

static GtkWidget *
copy_button (const char *title, const char *value)
{
  GtkWidget       *button = gtk_button_new_from_icon_name ("edit-copy-symbolic");
  g_autofree char *label = g_strdup_printf ("Copy %s", title);

  gtk_widget_add_css_class (button, "flat");
  gtk_widget_set_valign (button, GTK_ALIGN_CENTER);
  gtk_widget_set_tooltip_text (button, "Copy");
  gtk_accessible_update_property (GTK_ACCESSIBLE (button), GTK_ACCESSIBLE_PROPERTY_LABEL, label, -1);
  /* The button owns its copy of the text. */
  g_signal_connect_data (button, "clicked", G_CALLBACK (on_copy_clicked), g_strdup (value), free_text, 0);
  return button;
}

static GtkWidget *
value_label (const char *value)
{
  GtkWidget *label = gtk_label_new (value);

  gtk_label_set_selectable (GTK_LABEL (label), TRUE);
  gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_MIDDLE);
  gtk_label_set_xalign (GTK_LABEL (label), 1);
  gtk_label_set_max_width_chars (GTK_LABEL (label), 60);
  gtk_widget_set_valign (label, GTK_ALIGN_CENTER);
  return label;
}

/* A row "title ........ value [copy]".  @value NULL: @missing, dimmed, and
 * nothing to copy.  Numbers go without the copy button: their label is
 * selectable, and a column of buttons would drown them. */
static GtkWidget *
add_value_row (AdwPreferencesGroup *group, const char *title, const char *value, const char *missing, gboolean copy)
{
  GtkWidget *row = adw_action_row_new ();
  GtkWidget *label = value_label (value != NULL ? value : missing);

  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), title);
  adw_action_row_add_suffix (ADW_ACTION_ROW (row), label);
  if (value != NULL)
    {
      g_autofree char *description = g_strdup_printf ("%s: %s", title, value);

      if (copy)
        adw_action_row_add_suffix (ADW_ACTION_ROW (row), copy_button (title, value));
      gtk_accessible_update_property (GTK_ACCESSIBLE (row), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, description, -1);
    }
  else
    gtk_widget_add_css_class (label, "dim-label");
  g_object_set_data (G_OBJECT (row), "value-label", label);
  adw_preferences_group_add (group, row);
  return row;
}

static GtkWidget *
add_row (AdwPreferencesGroup *group, const char *title, const char *value, const char *missing)
{
  return add_value_row (group, title, value, missing, TRUE);
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

static GtkWidget *
add_count_row (AdwPreferencesGroup *group, const char *title, guint64 count)
{
  g_autofree char *value = format_count (count);
  GtkWidget       *row = add_value_row (group, title, value, NULL, FALSE);

  gtk_widget_add_css_class (g_object_get_data (G_OBJECT (row), "value-label"), "numeric");
  return row;
}

/* Long or multi-line text: its first line as the subtitle, the whole text
 * in the expanded part. */
static void
add_text_row (AdwPreferencesGroup *group, const char *title, const char *text)
{
  GtkWidget       *row = adw_expander_row_new ();
  GtkWidget       *label = gtk_label_new (text);
  const char      *newline = strchr (text, '\n');
  g_autofree char *first_line = g_strndup (text, newline != NULL ? (gsize) (newline - text) : strlen (text));

  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), title);
  adw_expander_row_set_subtitle (ADW_EXPANDER_ROW (row), first_line);
  adw_expander_row_add_action (ADW_EXPANDER_ROW (row), copy_button (title, text));

  gtk_label_set_selectable (GTK_LABEL (label), TRUE);
  gtk_label_set_wrap (GTK_LABEL (label), TRUE);
  gtk_label_set_wrap_mode (GTK_LABEL (label), PANGO_WRAP_WORD_CHAR);
  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_widget_add_css_class (label, "monospace");
  gtk_widget_set_margin_start (label, 12);
  gtk_widget_set_margin_end (label, 12);
  gtk_widget_set_margin_top (label, 8);
  gtk_widget_set_margin_bottom (label, 8);
  gtk_accessible_update_property (GTK_ACCESSIBLE (label), GTK_ACCESSIBLE_PROPERTY_LABEL, title, -1);
  adw_expander_row_add_row (ADW_EXPANDER_ROW (row), label);
  adw_preferences_group_add (group, row);
}

static void
add_problem_row (AdwPreferencesGroup *group, const char *title, const char *text)
{
  GtkWidget *row = adw_action_row_new ();
  GtkWidget *icon = gtk_image_new_from_icon_name ("dialog-warning-symbolic");

  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), title);
  adw_action_row_set_subtitle (ADW_ACTION_ROW (row), text);
  adw_action_row_set_subtitle_lines (ADW_ACTION_ROW (row), 4);
  gtk_widget_add_css_class (icon, "warning");
  adw_action_row_add_prefix (ADW_ACTION_ROW (row), icon);
  /* Paths and error messages are worth copying into a bug report. */
  adw_action_row_add_suffix (ADW_ACTION_ROW (row), copy_button (title, text));
  gtk_accessible_update_property (GTK_ACCESSIBLE (row), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, text, -1);
  adw_preferences_group_add (group, row);
}

static AdwPreferencesGroup *
new_group (AdwPreferencesPage *page, const char *title, const char *description)
{
  GtkWidget *group = adw_preferences_group_new ();

  adw_preferences_group_set_title (ADW_PREFERENCES_GROUP (group), title);
  if (description != NULL)
    adw_preferences_group_set_description (ADW_PREFERENCES_GROUP (group), description);
  gtk_accessible_update_property (GTK_ACCESSIBLE (group), GTK_ACCESSIBLE_PROPERTY_LABEL, title, -1);
  adw_preferences_page_add (page, ADW_PREFERENCES_GROUP (group));
  return ADW_PREFERENCES_GROUP (group);
}

/* ------------------------------------------------------------------------ */
/* Values */

/* A duration as a person reads it: 850 ns, 12.34 µs, 20.00 ms, 3.215 s,
 * 2 min 05.3 s. */
static char *
format_duration (gint64 ns)
{
  if (ns < 1000)
    return g_strdup_printf ("%" G_GINT64_FORMAT " ns", ns);
  if (ns < 1000000)
    return g_strdup_printf ("%.2f µs", ns / 1e3);
  if (ns < 1000000000)
    return g_strdup_printf ("%.2f ms", ns / 1e6);
  if (ns < G_GINT64_CONSTANT (60000000000))
    return g_strdup_printf ("%.3f s", ns / 1e9);
  return g_strdup_printf ("%" G_GINT64_FORMAT " min %04.1f s", ns / G_GINT64_CONSTANT (60000000000),
                          (ns % G_GINT64_CONSTANT (60000000000)) / 1e9);
}

/* The header's time in the local time zone, or as written when it does not
 * parse (Sysprof 3.46 and ours write ISO 8601). */
static char *
format_capture_time (const char *text)
{
  g_autoptr (GDateTime) utc = NULL;
  g_autoptr (GDateTime) local = NULL;

  if (text == NULL || text[0] == '\0')
    return NULL;
  if ((utc = g_date_time_new_from_iso8601 (text, NULL)) == NULL || (local = g_date_time_to_local (utc)) == NULL)
    return g_strdup (text);
  return g_date_time_format (local, "%Y-%m-%d %H:%M:%S %Z");
}

static gboolean
has_problems (GArray *metadata, guint64 lost_events)
{
  if (lost_events > 0)
    return TRUE;
  for (guint i = 0; i < metadata->len; i++)
    if (g_str_has_prefix (g_array_index (metadata, SysprofSummaryMetadata, i).id, APP_METADATA_PREFIX))
      return TRUE;
  return FALSE;
}

/* ------------------------------------------------------------------------ */
/* Groups */

static void
add_problems (AdwPreferencesPage *page, SysprofDocument *document)
{
  GArray              *metadata = sysprof_document_get_metadata (document);
  guint64              lost = sysprof_document_get_n_lost_events (document);
  AdwPreferencesGroup *group;
  guint                n_problems = 0;

  if (!has_problems (metadata, lost))
    return;
  group = new_group (page, "Problems", "What was read may be incomplete");
  for (guint i = 0; i < metadata->len; i++)
    {
      const SysprofSummaryMetadata *m = &g_array_index (metadata, SysprofSummaryMetadata, i);

      if (g_str_has_prefix (m->id, APP_METADATA_PREFIX) && ++n_problems > MAX_ROWS)
        continue;
      if (strcmp (m->id, DAMAGE_METADATA_ID) == 0)
        add_problem_row (group, "The capture is damaged; the views show what comes before the damage", m->text);
      else if (strcmp (m->id, SYMBOLS_METADATA_ID) == 0)
        add_problem_row (group, "Symbols could not be loaded; functions show as addresses", m->text);
      else if (g_str_has_prefix (m->id, APP_METADATA_PREFIX))
        add_problem_row (group, m->id, m->text);
    }
  if (n_problems > MAX_ROWS)
    {
      g_autofree char *count = format_count (n_problems - MAX_ROWS);
      g_autofree char *title = g_strdup_printf ("… and %s more problems", count);

      add_row (group, title, NULL, "");
    }
  if (lost > 0)
    {
      g_autofree char *count = format_count (lost);
      g_autofree char *text =
          g_strdup_printf ("%s events were lost while recording: the recorder could not keep up", count);

      add_problem_row (group, "Lost events", text);
    }
}

static void
add_capture (AdwPreferencesPage *page, SysprofDocument *document)
{
  AdwPreferencesGroup *group = new_group (page, "Capture", NULL);
  GFile               *file = sysprof_document_get_file (document);
  g_autofree char     *path = g_file_get_path (file);
  g_autofree char     *size = g_format_size_full (sysprof_document_get_file_size (document), G_FORMAT_SIZE_LONG_FORMAT);
  g_autofree char     *time = format_capture_time (sysprof_document_get_capture_time (document));
  g_autofree char     *duration = format_duration (sysprof_document_get_duration (document));
  gint64               start = sysprof_document_get_start_time (document);
  /* The header's start time is whatever the file says: the end may be past
   * the largest time. */
  gint64           end = sysprof_time_add (start, sysprof_document_get_duration (document));
  g_autofree char *start_text = sysprof_time_axis_format_tick (start, 1);
  g_autofree char *end_text = sysprof_time_axis_format_tick (end, 1);
  GtkWidget       *row;

  if (path == NULL)
    path = g_file_get_uri (file);
  add_row (group, "File", path, NULL);
  add_row (group, "Size", size, NULL);
  row = add_row (group, "Capture time", time, "not recorded");
  if (time != NULL)
    adw_action_row_set_subtitle (ADW_ACTION_ROW (row), sysprof_document_get_capture_time (document));
  add_row (group, "Duration", duration, NULL);
  /* Frame times are in the recording machine's clock (monotonic, since its
   * boot): they only mean something next to each other. */
  row = add_row (group, "Start", start_text, NULL);
  adw_action_row_set_subtitle (ADW_ACTION_ROW (row), "In the recording machine's clock");
  row = add_row (group, "End", end_text, NULL);
  adw_action_row_set_subtitle (ADW_ACTION_ROW (row), "In the recording machine's clock");
  add_row (group, "Host", sysprof_document_get_host (document), "not recorded");
  /* How the recorder unwound the user stacks (the last such frame counts). */
  {
    GArray          *metadata = sysprof_document_get_metadata (document);
    g_autofree char *stacks = NULL;

    for (guint i = metadata->len; i > 0 && stacks == NULL; i--)
      {
        const SysprofSummaryMetadata *m = &g_array_index (metadata, SysprofSummaryMetadata, i - 1);

        if (strcmp (m->id, SYSPROF_UNWIND_METADATA_ID) == 0)
          stacks = sysprof_unwind_summary_describe (m->text);
      }
    add_row (group, "User stacks", stacks, "not recorded");
  }
}

static void
add_counts (AdwPreferencesPage *page, SysprofDocument *document)
{
  AdwPreferencesGroup *group = new_group (page, "Contents", NULL);
  guint64              lost = sysprof_document_get_n_lost_events (document);
  GtkWidget           *row;

  add_count_row (group, "Samples", sysprof_document_get_samples (document)->len);
  add_count_row (group, "Allocations", sysprof_document_get_n_allocations (document));
  row = add_count_row (group, "Lost events", lost);
  if (lost > 0)
    {
      GtkWidget *icon = gtk_image_new_from_icon_name ("dialog-warning-symbolic");

      gtk_widget_add_css_class (icon, "warning");
      adw_action_row_add_prefix (ADW_ACTION_ROW (row), icon);
      gtk_widget_add_css_class (g_object_get_data (G_OBJECT (row), "value-label"), "warning");
      gtk_widget_add_css_class (g_object_get_data (G_OBJECT (row), "value-label"), "heading");
    }
  add_count_row (group, "Processes", sysprof_document_get_processes (document)->len);
  add_count_row (group, "CPUs", sysprof_document_get_n_cpus (document));
  add_count_row (group, "Counters", sysprof_document_get_counters (document)->len);
  add_count_row (group, "Marks", sysprof_document_get_marks (document)->len);
  add_count_row (group, "Logs", sysprof_document_get_logs (document)->len);
  add_count_row (group, "Embedded files", sysprof_document_get_files (document)->len);
}

static void
add_frames (AdwPreferencesPage *page, SysprofDocument *document)
{
  AdwPreferencesGroup *group = new_group (page, "Frames", "Frames of each type in the capture");
  GtkWidget           *row;

  for (guint type = 0; type < SYSPROF_CAPTURE_FRAME_LAST; type++)
    {
      guint64 n = sysprof_document_get_n_frames (document, type);

      /* Memory streams carry allocations and frees in file chunks: their
       * events count with the allocation frames, their blocks apart. */
      if (type == SYSPROF_CAPTURE_FRAME_ALLOCATION)
        n = sysprof_document_get_n_allocation_events (document);
      else if (type == SYSPROF_CAPTURE_FRAME_FILE_CHUNK)
        n -= MIN (n, sysprof_document_get_n_stream_blocks (document));
      if (n == 0)
        continue;
      if (type == SYSPROF_CAPTURE_FRAME_ALLOCATION && sysprof_document_get_n_stream_events (document) > 0)
        {
          g_autofree char *subtitle = g_strdup_printf ("%" G_GUINT64_FORMAT " of them in memory streams",
                                                       sysprof_document_get_n_stream_events (document));

          row = add_count_row (group, frame_type_names[type], n);
          adw_action_row_set_subtitle (ADW_ACTION_ROW (row), subtitle);
        }
      else if (frame_type_names[type] != NULL)
        add_count_row (group, frame_type_names[type], n);
      else
        {
          g_autofree char *title = g_strdup_printf ("Type %u", type);

          add_count_row (group, title, n);
        }
    }
  if (sysprof_document_get_n_stream_blocks (document) > 0)
    add_count_row (group, "Memory stream blocks", sysprof_document_get_n_stream_blocks (document));
  row = add_count_row (group, "Total", sysprof_document_get_n_frames_total (document));
  gtk_widget_add_css_class (g_object_get_data (G_OBJECT (row), "value-label"), "heading");
}

static void
metadata_cell_setup (GtkSignalListItemFactory *factory, GtkListItem *list_item, gpointer user_data)
{
  GtkWidget *label = gtk_label_new (NULL);

  (void) factory;
  (void) user_data;
  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_label_set_single_line_mode (GTK_LABEL (label), TRUE);
  gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_END);
  sysprof_view_label_text_tooltip (label);
  gtk_list_item_set_child (list_item, label);
}

static void
metadata_cell_bind (GtkSignalListItemFactory *factory, GtkListItem *list_item, gpointer user_data)
{
  SysprofMetadataItem *item = gtk_list_item_get_item (list_item);
  GtkWidget           *label = gtk_list_item_get_child (list_item);
  const char          *text = GPOINTER_TO_INT (user_data) == 0 ? item->metadata->id : item->metadata->text;

  (void) factory;
  gtk_label_set_text (GTK_LABEL (label), text);
}

/* A table of every entry of @model, in a scrolled window of its own: it
 * makes the rows in view only, however many entries there are. */
static GtkWidget *
metadata_table (GListModel *model)
{
  static const char *const titles[] = { "Key", "Value" };
  GtkNoSelection          *selection = gtk_no_selection_new (g_object_ref (model));
  GtkWidget               *view = gtk_column_view_new (GTK_SELECTION_MODEL (selection));
  GtkWidget               *scrolled = gtk_scrolled_window_new ();

  for (guint i = 0; i < G_N_ELEMENTS (titles); i++)
    {
      GtkListItemFactory  *factory = gtk_signal_list_item_factory_new ();
      GtkColumnViewColumn *column;

      g_signal_connect (factory, "setup", G_CALLBACK (metadata_cell_setup), NULL);
      g_signal_connect (factory, "bind", G_CALLBACK (metadata_cell_bind), GINT_TO_POINTER (i));
      column = gtk_column_view_column_new (titles[i], factory);
      gtk_column_view_column_set_resizable (column, TRUE);
      gtk_column_view_column_set_expand (column, i == 1);
      if (i == 0)
        gtk_column_view_column_set_fixed_width (column, 200);
      gtk_column_view_append_column (GTK_COLUMN_VIEW (view), column);
      g_object_unref (column);
    }
  gtk_accessible_update_property (GTK_ACCESSIBLE (view), GTK_ACCESSIBLE_PROPERTY_LABEL, "All metadata", -1);
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (scrolled), GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC);
  gtk_scrolled_window_set_min_content_height (GTK_SCROLLED_WINDOW (scrolled), 320);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scrolled), view);
  return scrolled;
}

static void
add_metadata (AdwPreferencesPage *page, SysprofDocument *document)
{
  GArray              *metadata = sysprof_document_get_metadata (document);
  AdwPreferencesGroup *group = new_group (page, "Metadata", "What the recorder wrote about the recording");
  g_autoptr (GArray) listed = g_array_new (FALSE, FALSE, sizeof (guint));
  g_autoptr (GListModel) model = NULL;

  for (guint i = 0; i < metadata->len; i++)
    {
      const SysprofSummaryMetadata *m = &g_array_index (metadata, SysprofSummaryMetadata, i);

      /* The app's own entries are problems, shown above. */
      if (g_str_has_prefix (m->id, APP_METADATA_PREFIX))
        continue;
      g_array_append_val (listed, i);
      if (listed->len > MAX_ROWS)
        continue;
      if (strchr (m->text, '\n') != NULL || g_utf8_strlen (m->text, -1) > SHORT_TEXT)
        add_text_row (group, m->id, m->text);
      else
        add_row (group, m->id, m->text, NULL);
    }
  if (listed->len == 0)
    add_row (group, "None", NULL, "the capture holds no metadata");
  if (listed->len > MAX_ROWS)
    {
      GtkWidget       *row = adw_expander_row_new ();
      g_autofree char *more = format_count (listed->len - MAX_ROWS);
      g_autofree char *all = format_count (listed->len);
      g_autofree char *title = g_strdup_printf ("… and %s more", more);
      g_autofree char *subtitle = g_strdup_printf ("All %s entries", all);

      model = sysprof_metadata_list_new (document, g_steal_pointer (&listed));
      adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), title);
      adw_expander_row_set_subtitle (ADW_EXPANDER_ROW (row), subtitle);
      adw_expander_row_add_row (ADW_EXPANDER_ROW (row), metadata_table (model));
      adw_preferences_group_add (group, row);
    }
}

static void
sysprof_details_view_load (SysprofView *view, SysprofDocument *document)
{
  GtkWidget *page = adw_preferences_page_new ();

  gtk_accessible_update_property (GTK_ACCESSIBLE (page), GTK_ACCESSIBLE_PROPERTY_LABEL, "Capture details", -1);
  add_problems (ADW_PREFERENCES_PAGE (page), document);
  add_capture (ADW_PREFERENCES_PAGE (page), document);
  add_counts (ADW_PREFERENCES_PAGE (page), document);
  add_frames (ADW_PREFERENCES_PAGE (page), document);
  add_metadata (ADW_PREFERENCES_PAGE (page), document);
  sysprof_view_set_child (view, page);
}

static void
sysprof_details_view_class_init (SysprofDetailsViewClass *klass)
{
  SysprofViewClass *view_class = SYSPROF_VIEW_CLASS (klass);

  view_class->has_data = sysprof_details_view_has_data;
  view_class->load = sysprof_details_view_load;
  sysprof_view_class_set_info (view_class, "details", "Details", "text-x-generic-symbolic", 0);
}

static void
sysprof_details_view_init (SysprofDetailsView *self)
{
  (void) self;
}
