// SPDX-License-Identifier: GPL-3.0-or-later
/* SysprofFilesView: the files a capture embeds (FILE_CHUNK frames: mount
 * tables, /proc files, symbol tables).  A sortable list of paths and sizes;
 * the selected file's contents on the right, as text when it is UTF-8,
 * else as a hex preview; "Save As…" writes it out.
 *
 * Reading a file scans the capture for its chunks: that runs in a thread of
 * its own (sysprof_document_read_file() reads with a reader of its own), so
 * a large capture never blocks the window. */
#include "sysprof-files-item.h"
#include "sysprof-thread-task.h"
#include "sysprof-view.h"

#define SYSPROF_TYPE_FILES_VIEW (sysprof_files_view_get_type ())
G_DECLARE_FINAL_TYPE (SysprofFilesView, sysprof_files_view, SYSPROF, FILES_VIEW, SysprofView)

/* Bigger files are shown cut to this, to keep GtkTextView fast. */
#define MAX_TEXT_SHOWN (4 * 1024 * 1024)
/* How much of a binary file the hex preview shows. */
#define HEX_PREVIEW_BYTES 512

/* ------------------------------------------------------------------------ */
/* Columns */

static int
compare_path (gconstpointer a, gconstpointer b, gpointer user_data)
{
  int cmp = strcmp (SYSPROF_FILES_ITEM ((gpointer) a)->path, SYSPROF_FILES_ITEM ((gpointer) b)->path);

  (void) user_data;
  return cmp < 0 ? GTK_ORDERING_SMALLER : cmp > 0 ? GTK_ORDERING_LARGER : GTK_ORDERING_EQUAL;
}

static int
compare_size (gconstpointer a, gconstpointer b, gpointer user_data)
{
  guint64 sa = SYSPROF_FILES_ITEM ((gpointer) a)->size;
  guint64 sb = SYSPROF_FILES_ITEM ((gpointer) b)->size;

  if (sa != sb)
    return sa < sb ? GTK_ORDERING_SMALLER : GTK_ORDERING_LARGER;
  return compare_path (a, b, user_data);
}

static void
cell_setup (GtkSignalListItemFactory *factory, GtkListItem *list_item, gpointer user_data)
{
  gboolean   numeric = GPOINTER_TO_INT (user_data);
  GtkWidget *label = gtk_label_new (NULL);

  (void) factory;
  gtk_label_set_xalign (GTK_LABEL (label), numeric ? 1.0f : 0.0f);
  if (numeric)
    gtk_widget_add_css_class (label, "numeric");
  else
    {
      /* Paths differ at their end: keep it, and the whole path is the
       * tooltip. */
      gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_START);
      sysprof_view_label_text_tooltip (label);
    }
  gtk_list_item_set_child (list_item, label);
}

static void
path_bind (GtkSignalListItemFactory *factory, GtkListItem *list_item, gpointer user_data)
{
  SysprofFilesItem *item = gtk_list_item_get_item (list_item);
  GtkWidget        *label = gtk_list_item_get_child (list_item);

  (void) factory;
  (void) user_data;
  gtk_label_set_text (GTK_LABEL (label), item->path);
}

static void
size_bind (GtkSignalListItemFactory *factory, GtkListItem *list_item, gpointer user_data)
{
  SysprofFilesItem *item = gtk_list_item_get_item (list_item);
  g_autofree char  *text = g_format_size (item->size);

  (void) factory;
  (void) user_data;
  gtk_label_set_text (GTK_LABEL (gtk_list_item_get_child (list_item)), text);
}

static GtkColumnViewColumn *
append_column (
    GtkColumnView *view, const char *title, gboolean numeric, GCallback bind, GCompareDataFunc compare, gboolean expand)
{
  GtkListItemFactory  *factory = gtk_signal_list_item_factory_new ();
  GtkColumnViewColumn *column;
  g_autoptr (GtkSorter) sorter = GTK_SORTER (gtk_custom_sorter_new (compare, NULL, NULL));

  g_signal_connect (factory, "setup", G_CALLBACK (cell_setup), GINT_TO_POINTER (numeric));
  g_signal_connect (factory, "bind", bind, NULL);
  column = gtk_column_view_column_new (title, factory);
  gtk_column_view_column_set_sorter (column, sorter);
  gtk_column_view_column_set_resizable (column, TRUE);
  gtk_column_view_column_set_expand (column, expand);
  gtk_column_view_append_column (view, column);
  g_object_unref (column);
  return column;
}

/* ------------------------------------------------------------------------ */
/* Showing the contents */

/* Sixteen bytes a line: offset, hex, and the printable ASCII. */
static char *
hex_dump (const guint8 *data, gsize len)
{
  GString *out = g_string_new (NULL);

  for (gsize line = 0; line < len; line += 16)
    {
      g_string_append_printf (out, "%08" G_GSIZE_MODIFIER "x  ", line);
      for (gsize i = line; i < line + 16; i++)
        {
          if (i < len)
            g_string_append_printf (out, "%02x ", data[i]);
          else
            g_string_append (out, "   ");
          if (i == line + 7)
            g_string_append_c (out, ' ');
        }
      g_string_append (out, " |");
      for (gsize i = line; i < line + 16 && i < len; i++)
        g_string_append_c (out, g_ascii_isprint (data[i]) ? (char) data[i] : '.');
      g_string_append (out, "|\n");
    }
  return g_string_free (out, FALSE);
}

static GtkWidget *
create_text_view (const char *accessible_label)
{
  GtkWidget *text_view = gtk_text_view_new ();

  gtk_text_view_set_editable (GTK_TEXT_VIEW (text_view), FALSE);
  gtk_text_view_set_monospace (GTK_TEXT_VIEW (text_view), TRUE);
  gtk_text_view_set_left_margin (GTK_TEXT_VIEW (text_view), 8);
  gtk_text_view_set_right_margin (GTK_TEXT_VIEW (text_view), 8);
  gtk_text_view_set_top_margin (GTK_TEXT_VIEW (text_view), 6);
  gtk_text_view_set_bottom_margin (GTK_TEXT_VIEW (text_view), 6);
  gtk_accessible_update_property (GTK_ACCESSIBLE (text_view), GTK_ACCESSIBLE_PROPERTY_LABEL, accessible_label, -1);
  return text_view;
}

static GtkWidget *
scrolled (GtkWidget *child)
{
  GtkWidget *scrolled_window = gtk_scrolled_window_new ();

  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scrolled_window), child);
  gtk_widget_set_vexpand (scrolled_window, TRUE);
  gtk_widget_set_hexpand (scrolled_window, TRUE);
  return scrolled_window;
}

/* ------------------------------------------------------------------------ */
/* The view */

struct _SysprofFilesView
{
  SysprofView parent_instance;

  GCancellable       *cancellable;
  GtkSingleSelection *selection;
  GtkWidget          *path_label;
  GtkWidget          *size_label;
  GtkWidget          *save_button;
  GtkWidget          *content_stack;
  GtkWidget          *text_view;
  GtkWidget          *binary_label;
  GtkWidget          *hex_view;
  GtkWidget          *missing_page;

  /* The file shown and its contents, for "Save As…"; decompressed: the
   * contents of a PATH.gz file, gunzipped. */
  char    *path;
  gboolean decompressed;
  GBytes  *bytes;
};

G_DEFINE_FINAL_TYPE (SysprofFilesView, sysprof_files_view, SYSPROF_TYPE_VIEW)

static gboolean
sysprof_files_view_has_data (SysprofDocument *document)
{
  return sysprof_document_get_files (document)->len > 0;
}

static void
show_contents (SysprofFilesView *self, GBytes *bytes)
{
  gsize          len;
  const guint8  *data = g_bytes_get_data (bytes, &len);
  GtkTextBuffer *buffer;

  if (g_utf8_validate_len ((const char *) data, len, NULL))
    {
      gsize shown = len;

      /* Cut at a character boundary. */
      if (shown > MAX_TEXT_SHOWN)
        shown = (gsize) (g_utf8_find_prev_char ((const char *) data, (const char *) data + MAX_TEXT_SHOWN + 1) -
                         (const char *) data);
      buffer = gtk_text_view_get_buffer (GTK_TEXT_VIEW (self->text_view));
      gtk_text_buffer_set_text (buffer, (const char *) data, (int) shown);
      if (shown < len)
        {
          GtkTextIter      end;
          g_autofree char *size = g_format_size (shown);
          g_autofree char *note = g_strdup_printf ("\n\n[only the first %s are shown; Save As… writes it all]", size);

          gtk_text_buffer_get_end_iter (buffer, &end);
          gtk_text_buffer_insert (buffer, &end, note, -1);
        }
      gtk_stack_set_visible_child_name (GTK_STACK (self->content_stack), "text");
    }
  else
    {
      g_autofree char *title = g_strdup_printf ("binary, %" G_GSIZE_FORMAT " bytes", len);
      g_autofree char *dump = hex_dump (data, MIN (len, HEX_PREVIEW_BYTES));

      gtk_label_set_text (GTK_LABEL (self->binary_label), title);
      buffer = gtk_text_view_get_buffer (GTK_TEXT_VIEW (self->hex_view));
      gtk_text_buffer_set_text (buffer, dump, -1);
      gtk_stack_set_visible_child_name (GTK_STACK (self->content_stack), "binary");
    }
}

typedef struct
{
  SysprofDocument *document;
  char            *path;
} ReadRequest;

static void
read_request_free (gpointer data)
{
  ReadRequest *request = data;

  g_object_unref (request->document);
  g_free (request->path);
  g_free (request);
}

static void
read_thread (GTask *task, gpointer source, gpointer task_data, GCancellable *cancellable)
{
  ReadRequest *request = task_data;
  GError      *error = NULL;
  GBytes      *bytes;

  (void) source;
  (void) cancellable;
  bytes = sysprof_document_read_file (request->document, request->path, &error);
  if (bytes == NULL)
    g_task_return_error (task, g_steal_pointer (&error));
  else
    g_task_return_pointer (task, bytes, (GDestroyNotify) g_bytes_unref);
}

static void
read_done (GObject *object, GAsyncResult *result, gpointer user_data)
{
  SysprofFilesView *self = SYSPROF_FILES_VIEW (object);
  g_autoptr (GError) error = NULL;
  GBytes *bytes;

  (void) user_data;
  bytes = g_task_propagate_pointer (G_TASK (result), &error);
  if (bytes == NULL && g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  sysprof_view_set_busy (SYSPROF_VIEW (self), FALSE, NULL);
  g_clear_pointer (&self->bytes, g_bytes_unref);
  if (bytes == NULL)
    {
      adw_status_page_set_description (ADW_STATUS_PAGE (self->missing_page), error->message);
      gtk_stack_set_visible_child_name (GTK_STACK (self->content_stack), "missing");
      gtk_widget_set_sensitive (self->save_button, FALSE);
      return;
    }
  self->bytes = bytes;
  self->decompressed = FALSE;
  if (self->path != NULL && sysprof_embedded_file_is_gzipped (self->path))
    {
      gsize         len;
      const guint8 *data = g_bytes_get_data (bytes, &len);

      /* Not the gzip magic any more: shown decompressed; say both sizes. */
      self->decompressed = len < 2 || data[0] != 0x1f || data[1] != 0x8b;
      if (self->decompressed)
        {
          g_autofree char *plain = g_format_size_full (len, G_FORMAT_SIZE_LONG_FORMAT);
          g_autofree char *text = g_strdup_printf ("%s gzipped, shown decompressed: %s",
                                                   gtk_label_get_text (GTK_LABEL (self->size_label)), plain);

          gtk_label_set_text (GTK_LABEL (self->size_label), text);
        }
    }
  show_contents (self, bytes);
  gtk_widget_set_sensitive (self->save_button, TRUE);
}

static void
show_file (SysprofFilesView *self, SysprofFilesItem *item)
{
  g_autoptr (GTask) task = NULL;
  g_autofree char *size = NULL;
  ReadRequest     *request;

  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  g_clear_pointer (&self->bytes, g_bytes_unref);
  g_clear_pointer (&self->path, g_free);
  gtk_widget_set_sensitive (self->save_button, FALSE);

  if (item == NULL)
    {
      gtk_label_set_text (GTK_LABEL (self->path_label), "");
      gtk_label_set_text (GTK_LABEL (self->size_label), "");
      gtk_stack_set_visible_child_name (GTK_STACK (self->content_stack), "empty");
      sysprof_view_set_busy (SYSPROF_VIEW (self), FALSE, NULL);
      return;
    }

  self->path = g_strdup (item->path);
  size = g_format_size_full (item->size, G_FORMAT_SIZE_LONG_FORMAT);
  gtk_label_set_text (GTK_LABEL (self->path_label), item->path);
  gtk_label_set_text (GTK_LABEL (self->size_label), size);

  self->cancellable = g_cancellable_new ();
  sysprof_view_set_busy (SYSPROF_VIEW (self), TRUE, "Reading the file…");
  task = g_task_new (self, self->cancellable, read_done, NULL);
  g_task_set_source_tag (task, show_file);
  request = g_new0 (ReadRequest, 1);
  request->document = g_object_ref (sysprof_view_get_document (SYSPROF_VIEW (self)));
  request->path = g_strdup (item->path);
  g_task_set_task_data (task, request, read_request_free);
  sysprof_thread_task_run (g_steal_pointer (&task), read_thread, (GDestroyNotify) g_bytes_unref);
}

static void
on_selection_changed (GtkSingleSelection *selection, GParamSpec *pspec, SysprofFilesView *self)
{
  SysprofFilesItem *item = gtk_single_selection_get_selected_item (selection);

  (void) pspec;
  /* Sorting moves the selected row without changing the file. */
  if (item != NULL && g_strcmp0 (item->path, self->path) == 0)
    return;
  show_file (self, item);
}

/* Toasts go to the window's toast overlay when there is one. */
static void
notify_user (SysprofFilesView *self, const char *message)
{
  GtkWidget *overlay = gtk_widget_get_ancestor (GTK_WIDGET (self), ADW_TYPE_TOAST_OVERLAY);

  if (overlay != NULL)
    adw_toast_overlay_add_toast (ADW_TOAST_OVERLAY (overlay), adw_toast_new (message));
  else
    g_message ("%s", message);
}

static void
save_done (GObject *object, GAsyncResult *result, gpointer user_data)
{
  GFile            *file = G_FILE (object);
  SysprofFilesView *self = user_data;
  g_autoptr (GError) error = NULL;
  g_autofree char *name = g_file_get_parse_name (file);
  g_autofree char *message = NULL;

  if (g_file_replace_contents_finish (file, result, NULL, &error))
    message = g_strdup_printf ("Saved %s", name);
  else
    message = g_strdup_printf ("Could not save %s: %s", name, error->message);
  notify_user (self, message);
  g_object_unref (self);
}

static void
on_save_response (GtkNativeDialog *dialog, int response, gpointer user_data)
{
  SysprofFilesView *self = SYSPROF_FILES_VIEW (user_data);
  GBytes           *bytes = g_object_get_data (G_OBJECT (dialog), "bytes");
  g_autoptr (GFile) file = NULL;

  if (response == GTK_RESPONSE_ACCEPT && (file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (dialog))) != NULL)
    g_file_replace_contents_bytes_async (file, bytes, NULL, FALSE, G_FILE_CREATE_REPLACE_DESTINATION, NULL, save_done,
                                         g_object_ref (self));
  gtk_native_dialog_destroy (dialog);
  g_object_unref (dialog);
  g_object_unref (self);
}

static void
on_save_clicked (GtkButton *button, SysprofFilesView *self)
{
  GtkRoot              *root = gtk_widget_get_root (GTK_WIDGET (self));
  GtkFileChooserNative *dialog;
  g_autofree char      *basename = NULL;

  (void) button;
  if (self->bytes == NULL || self->path == NULL)
    return;

  dialog = gtk_file_chooser_native_new ("Save Embedded File", GTK_IS_WINDOW (root) ? GTK_WINDOW (root) : NULL,
                                        GTK_FILE_CHOOSER_ACTION_SAVE, "_Save", "_Cancel");
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (dialog), TRUE);
  /* Many embedded files share a basename ("mountinfo" of every process):
   * propose the whole path, flattened, so that saving several does not
   * overwrite the first. */
  basename = g_strdelimit (g_strdup (self->path[0] == '/' ? self->path + 1 : self->path), "/", '-');
  /* What is saved is what is shown: decompressed, without ".gz". */
  if (self->decompressed && g_str_has_suffix (basename, ".gz"))
    basename[strlen (basename) - 3] = '\0';
  gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (dialog), basename[0] ? basename : "file");
  /* Save what was shown when the button was pressed, even if another file
   * gets selected while the dialog is open. */
  g_object_set_data_full (G_OBJECT (dialog), "bytes", g_bytes_ref (self->bytes), (GDestroyNotify) g_bytes_unref);
  g_signal_connect (dialog, "response", G_CALLBACK (on_save_response), g_object_ref (self));
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (dialog));
}

static void
sysprof_files_view_load (SysprofView *view, SysprofDocument *document)
{
  SysprofFilesView *self = SYSPROF_FILES_VIEW (view);
  GArray           *files = sysprof_document_get_files (document);
  GtkSortListModel *sorted = GTK_SORT_LIST_MODEL (gtk_single_selection_get_model (self->selection));
  g_autoptr (GListStore) store = g_list_store_new (SYSPROF_TYPE_FILES_ITEM);

  /* A capture embeds tens of files, not thousands: no thread needed. */
  for (guint i = 0; i < files->len; i++)
    {
      const SysprofSummaryFile *file = &g_array_index (files, SysprofSummaryFile, i);
      g_autoptr (SysprofFilesItem) item = sysprof_files_item_new (file->path, file->size);

      g_list_store_append (store, item);
    }
  gtk_sort_list_model_set_model (sorted, G_LIST_MODEL (store));
}

static void
sysprof_files_view_dispose (GObject *object)
{
  SysprofFilesView *self = SYSPROF_FILES_VIEW (object);

  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  if (self->selection != NULL)
    g_signal_handlers_disconnect_by_func (self->selection, on_selection_changed, self);
  self->selection = NULL;
  g_clear_pointer (&self->bytes, g_bytes_unref);
  g_clear_pointer (&self->path, g_free);

  G_OBJECT_CLASS (sysprof_files_view_parent_class)->dispose (object);
}

static void
sysprof_files_view_class_init (SysprofFilesViewClass *klass)
{
  GObjectClass     *object_class = G_OBJECT_CLASS (klass);
  SysprofViewClass *view_class = SYSPROF_VIEW_CLASS (klass);

  object_class->dispose = sysprof_files_view_dispose;
  view_class->has_data = sysprof_files_view_has_data;
  view_class->load = sysprof_files_view_load;
  sysprof_view_class_set_info (view_class, "files", "Files", "text-x-generic-symbolic", 90);
}

static GtkWidget *
create_list (SysprofFilesView *self)
{
  GtkWidget           *view = gtk_column_view_new (NULL);
  GtkColumnViewColumn *path_column;
  GtkSortListModel    *sorted;

  path_column = append_column (GTK_COLUMN_VIEW (view), "Path", FALSE, G_CALLBACK (path_bind), compare_path, TRUE);
  append_column (GTK_COLUMN_VIEW (view), "Size", TRUE, G_CALLBACK (size_bind), compare_size, FALSE);

  sorted = gtk_sort_list_model_new (NULL, g_object_ref (gtk_column_view_get_sorter (GTK_COLUMN_VIEW (view))));
  self->selection = gtk_single_selection_new (G_LIST_MODEL (sorted));
  /* The first file is shown at once: the page is never empty. */
  gtk_single_selection_set_autoselect (self->selection, TRUE);
  g_signal_connect (self->selection, "notify::selected-item", G_CALLBACK (on_selection_changed), self);
  gtk_column_view_set_model (GTK_COLUMN_VIEW (view), GTK_SELECTION_MODEL (self->selection));
  g_object_unref (self->selection);
  gtk_column_view_sort_by_column (GTK_COLUMN_VIEW (view), path_column, GTK_SORT_ASCENDING);

  gtk_widget_add_css_class (view, "data-table");
  gtk_accessible_update_property (GTK_ACCESSIBLE (view), GTK_ACCESSIBLE_PROPERTY_LABEL, "Embedded files", -1);
  return scrolled (view);
}

static GtkWidget *
create_contents (SysprofFilesView *self)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  GtkWidget *header = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 8);
  GtkWidget *labels = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  GtkWidget *binary_box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);
  GtkWidget *empty_page = adw_status_page_new ();

  gtk_widget_set_margin_start (header, 12);
  gtk_widget_set_margin_end (header, 6);
  gtk_widget_set_margin_top (header, 6);
  gtk_widget_set_margin_bottom (header, 6);

  self->path_label = gtk_label_new ("");
  gtk_label_set_selectable (GTK_LABEL (self->path_label), TRUE);
  gtk_label_set_ellipsize (GTK_LABEL (self->path_label), PANGO_ELLIPSIZE_MIDDLE);
  gtk_label_set_xalign (GTK_LABEL (self->path_label), 0);
  gtk_widget_add_css_class (self->path_label, "heading");
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->path_label), GTK_ACCESSIBLE_PROPERTY_LABEL, "Path", -1);
  self->size_label = gtk_label_new ("");
  gtk_label_set_xalign (GTK_LABEL (self->size_label), 0);
  gtk_widget_add_css_class (self->size_label, "dim-label");
  gtk_box_append (GTK_BOX (labels), self->path_label);
  gtk_box_append (GTK_BOX (labels), self->size_label);
  gtk_widget_set_hexpand (labels, TRUE);
  gtk_box_append (GTK_BOX (header), labels);

  self->save_button = gtk_button_new_with_mnemonic ("_Save As…");
  gtk_widget_set_valign (self->save_button, GTK_ALIGN_CENTER);
  gtk_widget_set_tooltip_text (self->save_button, "Save the selected file");
  gtk_widget_set_sensitive (self->save_button, FALSE);
  g_signal_connect (self->save_button, "clicked", G_CALLBACK (on_save_clicked), self);
  gtk_box_append (GTK_BOX (header), self->save_button);
  gtk_box_append (GTK_BOX (box), header);
  gtk_box_append (GTK_BOX (box), gtk_separator_new (GTK_ORIENTATION_HORIZONTAL));

  self->content_stack = gtk_stack_new ();
  gtk_widget_set_vexpand (self->content_stack, TRUE);

  adw_status_page_set_icon_name (ADW_STATUS_PAGE (empty_page), "text-x-generic-symbolic");
  adw_status_page_set_title (ADW_STATUS_PAGE (empty_page), "No File Selected");
  gtk_stack_add_named (GTK_STACK (self->content_stack), empty_page, "empty");

  self->text_view = create_text_view ("File contents");
  gtk_stack_add_named (GTK_STACK (self->content_stack), scrolled (self->text_view), "text");

  self->binary_label = gtk_label_new ("");
  gtk_label_set_xalign (GTK_LABEL (self->binary_label), 0);
  gtk_widget_set_margin_start (self->binary_label, 12);
  gtk_widget_set_margin_top (self->binary_label, 6);
  gtk_widget_add_css_class (self->binary_label, "heading");
  gtk_box_append (GTK_BOX (binary_box), self->binary_label);
  {
    g_autofree char *caption = g_strdup_printf ("Not text. Its first bytes (up to %d):", HEX_PREVIEW_BYTES);
    GtkWidget       *caption_label = gtk_label_new (caption);

    gtk_label_set_xalign (GTK_LABEL (caption_label), 0);
    gtk_widget_set_margin_start (caption_label, 12);
    gtk_widget_add_css_class (caption_label, "dim-label");
    gtk_box_append (GTK_BOX (binary_box), caption_label);
  }
  self->hex_view = create_text_view ("Hex preview");
  gtk_box_append (GTK_BOX (binary_box), scrolled (self->hex_view));
  gtk_stack_add_named (GTK_STACK (self->content_stack), binary_box, "binary");

  self->missing_page = adw_status_page_new ();
  adw_status_page_set_icon_name (ADW_STATUS_PAGE (self->missing_page), "dialog-error-symbolic");
  adw_status_page_set_title (ADW_STATUS_PAGE (self->missing_page), "Cannot Read the File");
  gtk_stack_add_named (GTK_STACK (self->content_stack), self->missing_page, "missing");

  gtk_stack_set_visible_child_name (GTK_STACK (self->content_stack), "empty");
  gtk_box_append (GTK_BOX (box), self->content_stack);
  return box;
}

static void
sysprof_files_view_init (SysprofFilesView *self)
{
  GtkWidget *paned = gtk_paned_new (GTK_ORIENTATION_HORIZONTAL);

  gtk_paned_set_start_child (GTK_PANED (paned), create_list (self));
  gtk_paned_set_end_child (GTK_PANED (paned), create_contents (self));
  gtk_paned_set_shrink_start_child (GTK_PANED (paned), FALSE);
  gtk_paned_set_shrink_end_child (GTK_PANED (paned), FALSE);
  gtk_paned_set_resize_start_child (GTK_PANED (paned), FALSE);
  gtk_paned_set_position (GTK_PANED (paned), 340);
  sysprof_view_set_child (SYSPROF_VIEW (self), paned);
}
