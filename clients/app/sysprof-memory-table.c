// SPDX-License-Identifier: GPL-3.0-or-later

#include <string.h>

#include "sysprof-memory-table.h"

/* ------------------------------------------------------------------------ */
/* Formatting */

char *
sysprof_memory_format_size (guint64 bytes)
{
  return g_format_size_full (bytes, G_FORMAT_SIZE_IEC_UNITS);
}

char *
sysprof_memory_format_count (guint64 count)
{
  /* glibc's ' flag groups digits the locale's way (none in "C"). */
  return g_strdup_printf ("%'" G_GUINT64_FORMAT, count);
}

static char *
format_delta (gint64 delta)
{
  g_autofree char *size = sysprof_memory_format_size (delta < 0 ? -(guint64) delta : (guint64) delta);

  if (delta == 0)
    return g_strdup ("0");
  /* U+2212 MINUS SIGN: the same width as the plus in tabular digits. */
  return g_strdup_printf ("%s%s", delta > 0 ? "+" : "\u2212", size);
}

/* ------------------------------------------------------------------------ */
/* Table */

/* What a column shows; shared by its factory and its sorter, which the
 * column view may release in any order. */
typedef struct
{
  SysprofMemoryColumnKind kind;
  guint                   field;
} ColumnInfo;

struct _SysprofMemoryTable
{
  GtkWidget      parent_instance;
  GtkWidget     *box;
  GtkWidget     *description;
  GtkWidget     *stack;
  GtkWidget     *empty;
  GtkColumnView *column_view;
  GListStore    *store;
};

G_DEFINE_FINAL_TYPE (SysprofMemoryTable, sysprof_memory_table, GTK_TYPE_WIDGET)

static gboolean
is_text_kind (SysprofMemoryColumnKind kind)
{
  return kind == SYSPROF_MEMORY_COLUMN_TEXT || kind == SYSPROF_MEMORY_COLUMN_STATUS;
}

/* The exact value behind a cell's short text (or the whole text), NULL for
 * the kinds whose text says it all. */
static char *
cell_tooltip (const ColumnInfo *info, SysprofMemoryRow *row)
{
  switch (info->kind)
    {
    case SYSPROF_MEMORY_COLUMN_TEXT: return g_strdup (sysprof_memory_row_get_text (row, info->field));
    case SYSPROF_MEMORY_COLUMN_COUNT:
      return g_strdup_printf ("%" G_GUINT64_FORMAT, (guint64) sysprof_memory_row_get_value (row, info->field));
    case SYSPROF_MEMORY_COLUMN_BYTES:
      return g_strdup_printf ("%" G_GUINT64_FORMAT " bytes", (guint64) sysprof_memory_row_get_value (row, info->field));
    case SYSPROF_MEMORY_COLUMN_DELTA:
      return g_strdup_printf ("%+" G_GINT64_FORMAT " bytes", sysprof_memory_row_get_value (row, info->field));
    case SYSPROF_MEMORY_COLUMN_STATUS:
    case SYSPROF_MEMORY_COLUMN_ID:
    default: return NULL;
    }
}

#define LIST_ITEM_KEY "sysprof-memory-list-item"

/* Asked when the pointer rests on a cell: setting a tooltip text in every
 * bind costs GTK a round trip to the X server. */
static gboolean
query_cell_tooltip (GtkWidget *label, int x, int y, gboolean keyboard_tooltip, GtkTooltip *tooltip, gpointer user_data)
{
  ColumnInfo      *info = user_data;
  GtkListItem     *item = g_object_get_data (G_OBJECT (label), LIST_ITEM_KEY);
  gpointer         row = item != NULL ? gtk_list_item_get_item (item) : NULL;
  g_autofree char *text = NULL;

  (void) x;
  (void) y;
  (void) keyboard_tooltip;
  if (row == NULL || (text = cell_tooltip (info, row)) == NULL || text[0] == '\0')
    return FALSE;
  gtk_tooltip_set_text (tooltip, text);
  return TRUE;
}

static void
release_info (gpointer data, GClosure *closure)
{
  (void) closure;
  g_rc_box_release (data);
}

static void
setup_cell (GtkSignalListItemFactory *factory, GtkListItem *item, gpointer user_data)
{
  ColumnInfo *info = user_data;
  GtkWidget  *label = gtk_label_new (NULL);

  (void) factory;
  if (is_text_kind (info->kind))
    {
      gtk_label_set_xalign (GTK_LABEL (label), 0.0f);
      gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_END);
    }
  else
    {
      gtk_label_set_xalign (GTK_LABEL (label), 1.0f);
      gtk_widget_add_css_class (label, "numeric");
    }
  if (info->kind != SYSPROF_MEMORY_COLUMN_STATUS && info->kind != SYSPROF_MEMORY_COLUMN_ID)
    {
      /* The list item owns the label: the pointer lives as long. */
      g_object_set_data (G_OBJECT (label), LIST_ITEM_KEY, item);
      gtk_widget_set_has_tooltip (label, TRUE);
      g_signal_connect_data (label, "query-tooltip", G_CALLBACK (query_cell_tooltip), g_rc_box_acquire (info),
                             release_info, 0);
    }
  gtk_list_item_set_child (item, label);
}

static void
bind_cell (GtkSignalListItemFactory *factory, GtkListItem *item, gpointer user_data)
{
  ColumnInfo       *info = user_data;
  GtkWidget        *label = gtk_list_item_get_child (item);
  SysprofMemoryRow *row = gtk_list_item_get_item (item);
  g_autofree char  *text = NULL;

  (void) factory;
  gtk_widget_remove_css_class (label, "warning");
  gtk_widget_remove_css_class (label, "success");
  gtk_widget_remove_css_class (label, "dim-label");

  switch (info->kind)
    {
    case SYSPROF_MEMORY_COLUMN_TEXT: text = g_strdup (sysprof_memory_row_get_text (row, info->field)); break;
    case SYSPROF_MEMORY_COLUMN_STATUS:
      text = g_strdup (sysprof_memory_row_get_text (row, info->field));
      /* Growth is what one looks for in a difference of two moments. */
      if (g_str_equal (text, "grown") || g_str_equal (text, "new"))
        gtk_widget_add_css_class (label, "warning");
      else if (g_str_equal (text, "shrunk") || g_str_equal (text, "gone"))
        gtk_widget_add_css_class (label, "success");
      else
        gtk_widget_add_css_class (label, "dim-label");
      break;
    case SYSPROF_MEMORY_COLUMN_COUNT:
      text = sysprof_memory_format_count ((guint64) sysprof_memory_row_get_value (row, info->field));
      break;
    case SYSPROF_MEMORY_COLUMN_BYTES:
      text = sysprof_memory_format_size ((guint64) sysprof_memory_row_get_value (row, info->field));
      break;
    case SYSPROF_MEMORY_COLUMN_DELTA: text = format_delta (sysprof_memory_row_get_value (row, info->field)); break;
    case SYSPROF_MEMORY_COLUMN_ID:
      text = g_strdup_printf ("%" G_GINT64_FORMAT, sysprof_memory_row_get_value (row, info->field));
      break;
    default: g_assert_not_reached ();
    }

  gtk_label_set_text (GTK_LABEL (label), text);
}

static int
compare_rows (gconstpointer a, gconstpointer b, gpointer user_data)
{
  ColumnInfo       *info = user_data;
  SysprofMemoryRow *ra = (SysprofMemoryRow *) a;
  SysprofMemoryRow *rb = (SysprofMemoryRow *) b;

  if (is_text_kind (info->kind))
    {
      /* Function names are ASCII but for rare exceptions; collation keys
       * would cost more than they bring on tables of 100,000 rows. */
      const char *ta = sysprof_memory_row_get_text (ra, info->field);
      const char *tb = sysprof_memory_row_get_text (rb, info->field);
      int         cmp = g_ascii_strcasecmp (ta, tb);

      if (cmp == 0)
        cmp = strcmp (ta, tb);
      return cmp < 0 ? GTK_ORDERING_SMALLER : cmp > 0 ? GTK_ORDERING_LARGER : GTK_ORDERING_EQUAL;
    }
  else
    {
      gint64 va = sysprof_memory_row_get_value (ra, info->field);
      gint64 vb = sysprof_memory_row_get_value (rb, info->field);

      return va < vb ? GTK_ORDERING_SMALLER : va > vb ? GTK_ORDERING_LARGER : GTK_ORDERING_EQUAL;
    }
}

GtkColumnViewColumn *
sysprof_memory_table_add_column (SysprofMemoryTable *self, const char *title, SysprofMemoryColumnKind kind, guint field)
{
  g_autoptr (GtkListItemFactory) factory = NULL;
  g_autoptr (GtkCustomSorter) sorter = NULL;
  GtkColumnViewColumn *column;
  ColumnInfo          *info;

  g_return_val_if_fail (SYSPROF_IS_MEMORY_TABLE (self), NULL);
  g_return_val_if_fail (is_text_kind (kind) ? field < SYSPROF_MEMORY_ROW_N_TEXTS : field < SYSPROF_MEMORY_ROW_N_VALUES,
                        NULL);

  info = g_rc_box_new0 (ColumnInfo);
  info->kind = kind;
  info->field = field;

  factory = gtk_signal_list_item_factory_new ();
  g_signal_connect_data (factory, "setup", G_CALLBACK (setup_cell), g_rc_box_acquire (info), release_info, 0);
  g_signal_connect_data (factory, "bind", G_CALLBACK (bind_cell), g_rc_box_acquire (info), release_info, 0);
  sorter = gtk_custom_sorter_new (compare_rows, info, g_rc_box_release);

  column = gtk_column_view_column_new (title, g_steal_pointer (&factory));
  gtk_column_view_column_set_sorter (column, GTK_SORTER (sorter));
  gtk_column_view_column_set_resizable (column, TRUE);
  /* The first text column (the function) takes the room left. */
  if (kind == SYSPROF_MEMORY_COLUMN_TEXT && field == 0)
    gtk_column_view_column_set_expand (column, TRUE);
  gtk_column_view_append_column (self->column_view, column);
  g_object_unref (column);
  return column;
}

void
sysprof_memory_table_sort_by (SysprofMemoryTable *self, GtkColumnViewColumn *column)
{
  g_return_if_fail (SYSPROF_IS_MEMORY_TABLE (self));

  gtk_column_view_sort_by_column (self->column_view, column, GTK_SORT_DESCENDING);
}

void
sysprof_memory_table_set_description (SysprofMemoryTable *self, const char *text)
{
  g_return_if_fail (SYSPROF_IS_MEMORY_TABLE (self));

  gtk_label_set_text (GTK_LABEL (self->description), text ? text : "");
  gtk_widget_set_visible (self->description, text != NULL && *text != '\0');
}

void
sysprof_memory_table_set_empty_text (SysprofMemoryTable *self, const char *text)
{
  g_return_if_fail (SYSPROF_IS_MEMORY_TABLE (self));

  gtk_label_set_text (GTK_LABEL (self->empty), text);
}

void
sysprof_memory_table_set_rows (SysprofMemoryTable *self, GPtrArray *rows)
{
  guint n_old;

  g_return_if_fail (SYSPROF_IS_MEMORY_TABLE (self));

  n_old = g_list_model_get_n_items (G_LIST_MODEL (self->store));
  g_list_store_splice (self->store, 0, n_old, rows ? rows->pdata : NULL, rows ? rows->len : 0);
  gtk_stack_set_visible_child_name (GTK_STACK (self->stack), rows != NULL && rows->len > 0 ? "table" : "empty");
}

guint
sysprof_memory_table_get_n_rows (SysprofMemoryTable *self)
{
  g_return_val_if_fail (SYSPROF_IS_MEMORY_TABLE (self), 0);

  return g_list_model_get_n_items (G_LIST_MODEL (self->store));
}

GtkColumnView *
sysprof_memory_table_get_column_view (SysprofMemoryTable *self)
{
  g_return_val_if_fail (SYSPROF_IS_MEMORY_TABLE (self), NULL);

  return self->column_view;
}

GtkWidget *
sysprof_memory_table_new (const char *label)
{
  SysprofMemoryTable *self = g_object_new (SYSPROF_TYPE_MEMORY_TABLE, NULL);

  gtk_accessible_update_property (GTK_ACCESSIBLE (self->column_view), GTK_ACCESSIBLE_PROPERTY_LABEL, label, -1);
  return GTK_WIDGET (self);
}

static void
sysprof_memory_table_dispose (GObject *object)
{
  SysprofMemoryTable *self = SYSPROF_MEMORY_TABLE (object);

  g_clear_pointer (&self->box, gtk_widget_unparent);
  g_clear_object (&self->store);

  G_OBJECT_CLASS (sysprof_memory_table_parent_class)->dispose (object);
}

static void
sysprof_memory_table_class_init (SysprofMemoryTableClass *klass)
{
  GObjectClass   *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = sysprof_memory_table_dispose;
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
}

static void
sysprof_memory_table_init (SysprofMemoryTable *self)
{
  GtkSortListModel   *sorted;
  GtkSingleSelection *selection;
  GtkWidget          *scrolled;

  self->box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);
  gtk_widget_set_parent (self->box, GTK_WIDGET (self));

  self->description = gtk_label_new (NULL);
  gtk_label_set_wrap (GTK_LABEL (self->description), TRUE);
  gtk_label_set_xalign (GTK_LABEL (self->description), 0.0f);
  gtk_widget_add_css_class (self->description, "dim-label");
  gtk_widget_set_margin_start (self->description, 12);
  gtk_widget_set_margin_end (self->description, 12);
  gtk_widget_set_margin_top (self->description, 6);
  gtk_widget_set_visible (self->description, FALSE);
  gtk_box_append (GTK_BOX (self->box), self->description);

  self->stack = gtk_stack_new ();
  gtk_widget_set_vexpand (self->stack, TRUE);
  gtk_box_append (GTK_BOX (self->box), self->stack);

  self->store = g_list_store_new (SYSPROF_TYPE_MEMORY_ROW);
  self->column_view = GTK_COLUMN_VIEW (gtk_column_view_new (NULL));
  sorted = gtk_sort_list_model_new (G_LIST_MODEL (g_object_ref (self->store)),
                                    g_object_ref (gtk_column_view_get_sorter (self->column_view)));
  selection = gtk_single_selection_new (G_LIST_MODEL (sorted));
  gtk_single_selection_set_autoselect (selection, FALSE);
  gtk_single_selection_set_can_unselect (selection, TRUE);
  gtk_column_view_set_model (self->column_view, GTK_SELECTION_MODEL (selection));
  g_object_unref (selection);
  gtk_column_view_set_show_column_separators (self->column_view, TRUE);
  gtk_widget_add_css_class (GTK_WIDGET (self->column_view), "data-table");

  scrolled = gtk_scrolled_window_new ();
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scrolled), GTK_WIDGET (self->column_view));
  gtk_stack_add_named (GTK_STACK (self->stack), scrolled, "table");

  self->empty = gtk_label_new (NULL);
  gtk_label_set_wrap (GTK_LABEL (self->empty), TRUE);
  gtk_widget_add_css_class (self->empty, "title-4");
  gtk_widget_add_css_class (self->empty, "dim-label");
  gtk_stack_add_named (GTK_STACK (self->stack), self->empty, "empty");
  gtk_stack_set_visible_child_name (GTK_STACK (self->stack), "empty");
}
