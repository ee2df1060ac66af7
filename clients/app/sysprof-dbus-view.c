// SPDX-License-Identifier: GPL-3.0-or-later
/* SysprofDbusView: the D-Bus messages of a capture (sysprof-cli
 * --session-bus/--system-bus) as a table (time, bus, type, sender,
 * destination, path, interface, member, serial, reply serial, size), and the
 * body of the selected message (g_variant_print) below it.
 *
 * The messages are decoded once, off the main thread, from the bytes the
 * document's summary kept while loading (no second pass over the capture;
 * SysprofDbusMessages: untrusted bytes show as "undecodable"). */
#include "sysprof-dbus-row.h"
#include "sysprof-thread-task.h"
#include "sysprof-view.h"

#define SYSPROF_TYPE_DBUS_VIEW (sysprof_dbus_view_get_type ())
G_DECLARE_FINAL_TYPE (SysprofDbusView, sysprof_dbus_view, SYSPROF, DBUS_VIEW, SysprofView)

typedef struct
{
  const char *title;
  char *(*text) (const SysprofDbusMessage *message);
  gboolean numeric;
  gboolean expand;
} Column;

static char *
or_dash (const char *text)
{
  return g_strdup (text && *text ? text : "–");
}

static char *
time_text (const SysprofDbusMessage *m)
{
  return g_strdup_printf ("%.6f s", m->time_ns / 1e9);
}

static char *
bus_text (const SysprofDbusMessage *m)
{
  return g_strdup (sysprof_dbus_bus_name (m->bus_type));
}

static char *
type_text (const SysprofDbusMessage *m)
{
  return g_strdup (sysprof_dbus_message_type_name (m));
}

static char *
sender_text (const SysprofDbusMessage *m)
{
  return or_dash (m->sender);
}

static char *
destination_text (const SysprofDbusMessage *m)
{
  return or_dash (m->destination);
}

static char *
path_text (const SysprofDbusMessage *m)
{
  return or_dash (m->path);
}

static char *
interface_text (const SysprofDbusMessage *m)
{
  return or_dash (m->interface);
}

static char *
member_text (const SysprofDbusMessage *m)
{
  return m->error_name ? g_strdup (m->error_name) : or_dash (m->member);
}

static char *
serial_text (const SysprofDbusMessage *m)
{
  return m->state == SYSPROF_DBUS_MESSAGE_DECODED ? g_strdup_printf ("%u", m->serial) : g_strdup ("–");
}

static char *
reply_text (const SysprofDbusMessage *m)
{
  return m->reply_serial ? g_strdup_printf ("%u", m->reply_serial) : g_strdup ("–");
}

static char *
size_text (const SysprofDbusMessage *m)
{
  return g_strdup_printf ("%" G_GSIZE_FORMAT, m->size);
}

static const Column columns[] = {
  { "Time", time_text, TRUE },
  { "Bus", bus_text },
  { "Type", type_text },
  { "Sender", sender_text },
  { "Destination", destination_text },
  { "Path", path_text },
  { "Interface", interface_text },
  { "Member", member_text, .expand = TRUE },
  { "Serial", serial_text, TRUE },
  { "Reply", reply_text, TRUE },
  { "Size", size_text, TRUE },
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
  sysprof_view_label_text_tooltip (label);
  gtk_list_item_set_child (list_item, label);
}

static void
cell_bind (GtkSignalListItemFactory *factory, GtkListItem *list_item, gpointer user_data)
{
  const Column    *column = user_data;
  SysprofDbusRow  *row = gtk_list_item_get_item (list_item);
  g_autofree char *text = column->text (row->message);

  (void) factory;
  gtk_label_set_text (GTK_LABEL (gtk_list_item_get_child (list_item)), text);
}

struct _SysprofDbusView
{
  SysprofView parent_instance;

  GCancellable       *cancellable;
  GListStore         *store;
  GtkSingleSelection *selection;
  GtkWidget          *count_label;
  GtkWidget          *body_view;
};

G_DEFINE_FINAL_TYPE (SysprofDbusView, sysprof_dbus_view, SYSPROF_TYPE_VIEW)

static gboolean
sysprof_dbus_view_has_data (SysprofDocument *document)
{
  return sysprof_document_get_n_frames (document, SYSPROF_CAPTURE_FRAME_DBUS_MESSAGE) > 0;
}

static void
on_selected (GtkSingleSelection *selection, GParamSpec *pspec, SysprofDbusView *self)
{
  SysprofDbusRow  *row = gtk_single_selection_get_selected_item (selection);
  g_autofree char *body = NULL;

  (void) pspec;
  if (row == NULL)
    body = g_strdup ("");
  else if (row->message->state == SYSPROF_DBUS_MESSAGE_TOO_LARGE)
    body = g_strdup ("(recorded without its body: larger than a capture frame holds)");
  else if (row->message->state == SYSPROF_DBUS_MESSAGE_UNDECODABLE)
    body = g_strdup ("(undecodable: these bytes are not a D-Bus message)");
  else
    body = sysprof_dbus_message_dup_body_text (row->message);
  gtk_text_buffer_set_text (gtk_text_view_get_buffer (GTK_TEXT_VIEW (self->body_view)), body, -1);
}

/* Runs in a thread of its own.  The messages' bytes come from the
 * document's summary (filled while loading, only read after); a reader of
 * its own reads them again only when the summary could not keep them all
 * (SYSPROF_SUMMARY_DBUS_BYTES_LIMIT). */
static void
read_thread (GTask *task, gpointer source, gpointer task_data, GCancellable *cancellable)
{
  SysprofDocument      *document = task_data;
  g_autofree char      *path = NULL;
  SysprofCaptureError   capture_error = { 0 };
  SysprofCaptureReader *reader;
  GPtrArray            *messages;
  GError               *error = NULL;

  (void) source, (void) cancellable;
  if ((messages = sysprof_dbus_messages_from_summary (sysprof_document_get_summary (document))) != NULL)
    {
      g_task_return_pointer (task, messages, (GDestroyNotify) g_ptr_array_unref);
      return;
    }
  path = g_file_get_path (sysprof_document_get_file (document));
  if (path == NULL || !(reader = sysprof_capture_reader_new_with_error (path, &capture_error)))
    {
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_FAILED, "Cannot read the capture: %s",
                               capture_error.message[0] ? capture_error.message : "no local file");
      return;
    }
  messages = sysprof_dbus_messages_from_reader (reader, NULL, &error);
  sysprof_capture_reader_unref (reader);
  if (messages == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, messages, (GDestroyNotify) g_ptr_array_unref);
}

static void
read_done (GObject *object, GAsyncResult *result, gpointer user_data)
{
  SysprofDbusView *self = SYSPROF_DBUS_VIEW (object);
  g_autoptr (GPtrArray) messages = NULL;
  g_autoptr (GPtrArray) rows = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *text = NULL;

  (void) user_data;
  if (!(messages = g_task_propagate_pointer (G_TASK (result), &error)))
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        {
          sysprof_view_set_busy (SYSPROF_VIEW (self), FALSE, NULL);
          sysprof_view_set_error (SYSPROF_VIEW (self), error->message);
        }
      return;
    }
  rows = g_ptr_array_new_full (messages->len, g_object_unref);
  /* The rows take the messages. */
  g_ptr_array_set_free_func (messages, NULL);
  for (guint i = 0; i < messages->len; i++)
    g_ptr_array_add (rows, sysprof_dbus_row_new (messages->pdata[i]));
  g_list_store_splice (self->store, 0, 0, rows->pdata, rows->len);
  text = g_strdup_printf ("%u message%s", rows->len, rows->len == 1 ? "" : "s");
  gtk_label_set_text (GTK_LABEL (self->count_label), text);
  sysprof_view_set_busy (SYSPROF_VIEW (self), FALSE, NULL);
}

static void
sysprof_dbus_view_load (SysprofView *view, SysprofDocument *document)
{
  SysprofDbusView *self = SYSPROF_DBUS_VIEW (view);
  g_autoptr (GTask) task = NULL;

  sysprof_view_set_busy (view, TRUE, "Decoding the D-Bus messages…");
  task = g_task_new (self, self->cancellable, read_done, NULL);
  g_task_set_source_tag (task, sysprof_dbus_view_load);
  g_task_set_task_data (task, g_object_ref (document), g_object_unref);
  sysprof_thread_task_run (g_steal_pointer (&task), read_thread, (GDestroyNotify) g_ptr_array_unref);
}

static void
sysprof_dbus_view_dispose (GObject *object)
{
  SysprofDbusView *self = SYSPROF_DBUS_VIEW (object);

  g_cancellable_cancel (self->cancellable);
  if (self->selection != NULL)
    g_signal_handlers_disconnect_by_func (self->selection, on_selected, self);
  g_clear_object (&self->selection);
  G_OBJECT_CLASS (sysprof_dbus_view_parent_class)->dispose (object);
}

static void
sysprof_dbus_view_finalize (GObject *object)
{
  SysprofDbusView *self = SYSPROF_DBUS_VIEW (object);

  g_clear_object (&self->cancellable);
  g_clear_object (&self->store);
  G_OBJECT_CLASS (sysprof_dbus_view_parent_class)->finalize (object);
}

static void
sysprof_dbus_view_class_init (SysprofDbusViewClass *klass)
{
  GObjectClass     *object_class = G_OBJECT_CLASS (klass);
  SysprofViewClass *view_class = SYSPROF_VIEW_CLASS (klass);

  object_class->dispose = sysprof_dbus_view_dispose;
  object_class->finalize = sysprof_dbus_view_finalize;
  view_class->has_data = sysprof_dbus_view_has_data;
  view_class->load = sysprof_dbus_view_load;
  sysprof_view_class_set_info (view_class, "dbus", "D-Bus", "network-transmit-receive-symbolic", 75);
}

static void
sysprof_dbus_view_init (SysprofDbusView *self)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  GtkWidget *paned = gtk_paned_new (GTK_ORIENTATION_VERTICAL);
  GtkWidget *scrolled = gtk_scrolled_window_new ();
  GtkWidget *body_scrolled = gtk_scrolled_window_new ();
  GtkWidget *column_view = gtk_column_view_new (NULL);

  self->cancellable = g_cancellable_new ();
  self->store = g_list_store_new (SYSPROF_TYPE_DBUS_ROW);

  self->count_label = gtk_label_new ("");
  gtk_widget_set_name (self->count_label, "count-label");
  gtk_widget_add_css_class (self->count_label, "dim-label");
  gtk_label_set_xalign (GTK_LABEL (self->count_label), 1.0f);
  gtk_widget_set_margin_start (self->count_label, 6);
  gtk_widget_set_margin_end (self->count_label, 6);
  gtk_widget_set_margin_top (self->count_label, 6);
  gtk_widget_set_margin_bottom (self->count_label, 6);
  gtk_box_append (GTK_BOX (box), self->count_label);

  for (guint i = 0; i < G_N_ELEMENTS (columns); i++)
    {
      GtkListItemFactory  *factory = gtk_signal_list_item_factory_new ();
      GtkColumnViewColumn *column;

      g_signal_connect (factory, "setup", G_CALLBACK (cell_setup), (gpointer) &columns[i]);
      g_signal_connect (factory, "bind", G_CALLBACK (cell_bind), (gpointer) &columns[i]);
      column = gtk_column_view_column_new (columns[i].title, factory);
      gtk_column_view_column_set_resizable (column, TRUE);
      gtk_column_view_column_set_expand (column, columns[i].expand);
      gtk_column_view_append_column (GTK_COLUMN_VIEW (column_view), column);
      g_object_unref (column);
    }
  self->selection = gtk_single_selection_new (G_LIST_MODEL (g_object_ref (self->store)));
  gtk_single_selection_set_autoselect (self->selection, FALSE);
  gtk_single_selection_set_can_unselect (self->selection, TRUE);
  g_signal_connect (self->selection, "notify::selected", G_CALLBACK (on_selected), self);
  gtk_column_view_set_model (GTK_COLUMN_VIEW (column_view), GTK_SELECTION_MODEL (self->selection));
  gtk_widget_add_css_class (column_view, "data-table");
  gtk_accessible_update_property (GTK_ACCESSIBLE (column_view), GTK_ACCESSIBLE_PROPERTY_LABEL, "D-Bus messages", -1);
  gtk_widget_set_name (column_view, "dbus-messages");
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scrolled), column_view);
  gtk_widget_set_vexpand (scrolled, TRUE);

  self->body_view = gtk_text_view_new ();
  gtk_widget_set_name (self->body_view, "dbus-body");
  gtk_text_view_set_editable (GTK_TEXT_VIEW (self->body_view), FALSE);
  gtk_text_view_set_monospace (GTK_TEXT_VIEW (self->body_view), TRUE);
  gtk_text_view_set_wrap_mode (GTK_TEXT_VIEW (self->body_view), GTK_WRAP_WORD_CHAR);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->body_view), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  "Body of the selected message", -1);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (body_scrolled), self->body_view);
  gtk_widget_set_size_request (body_scrolled, -1, 80);

  gtk_paned_set_start_child (GTK_PANED (paned), scrolled);
  gtk_paned_set_end_child (GTK_PANED (paned), body_scrolled);
  gtk_paned_set_resize_end_child (GTK_PANED (paned), FALSE);
  gtk_widget_set_vexpand (paned, TRUE);
  gtk_box_append (GTK_BOX (box), paned);
  sysprof_view_set_child (SYSPROF_VIEW (self), box);
}
