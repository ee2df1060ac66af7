// SPDX-License-Identifier: GPL-3.0-or-later
/* sysprof-report: the commands that print tables and text (top, callers,
 * callees, tree, collapsed). */

#include <string.h>

#include "report-util.h"

/* ------------------------------------------------------------------------ */
/* Aligned text tables */

void
table_init (Table *table, const Column *columns, guint n_columns)
{
  table->columns = columns;
  table->n_columns = n_columns;
  table->cells = g_ptr_array_new_with_free_func (g_free);
}

void
table_clear (Table *table)
{
  g_clear_pointer (&table->cells, g_ptr_array_unref);
}

void
table_add (Table *table, const char *text)
{
  g_ptr_array_add (table->cells, g_utf8_make_valid (text, -1));
}

static void
print_cell (const char *text, guint width, gboolean right, gboolean last)
{
  glong length = g_utf8_strlen (text, -1);

  if ((guint) length > width)
    {
      const char *cut = g_utf8_offset_to_pointer (text, width - 1);

      fwrite (text, 1, (gsize) (cut - text), stdout);
      fputs ("…", stdout);
      length = width;
    }
  else
    {
      if (right)
        printf ("%*s", (int) (width - (guint) length), "");
      fputs (text, stdout);
    }
  if (!right && !last)
    printf ("%*s", (int) (width - (guint) length), "");
}

void
table_print (Table *table)
{
  g_autofree guint *widths = g_new0 (guint, table->n_columns);

  for (guint c = 0; c < table->n_columns; c++)
    widths[c] = (guint) g_utf8_strlen (table->columns[c].header, -1);
  for (guint i = 0; i < table->cells->len; i++)
    {
      guint c = i % table->n_columns;
      guint length = (guint) g_utf8_strlen (table->cells->pdata[i], -1);

      widths[c] = MAX (widths[c], length);
    }
  for (guint c = 0; c < table->n_columns; c++)
    if (table->columns[c].max_width > 0)
      widths[c] = MIN (widths[c], MAX (table->columns[c].max_width, 2));

  for (guint c = 0; c < table->n_columns; c++)
    {
      if (c > 0)
        fputs ("  ", stdout);
      print_cell (table->columns[c].header, widths[c], table->columns[c].right, c + 1 == table->n_columns);
    }
  fputc ('\n', stdout);
  for (guint i = 0; i < table->cells->len; i++)
    {
      guint c = i % table->n_columns;

      if (c > 0)
        fputs ("  ", stdout);
      print_cell (table->cells->pdata[i], widths[c], table->columns[c].right, c + 1 == table->n_columns);
      if (c + 1 == table->n_columns)
        fputc ('\n', stdout);
    }
}

void
table_add_count (Table *table, guint64 value)
{
  char text[32];

  g_snprintf (text, sizeof text, "%" G_GUINT64_FORMAT, value);
  table_add (table, text);
}

void
table_add_percent (Table *table, double value)
{
  char text[32];

  g_snprintf (text, sizeof text, "%.2f%%", value);
  table_add (table, text);
}

static void
print_summary_line (const Report *report)
{
  guint64 n = sysprof_callgraph_get_n_samples (report->callgraph);
  guint64 read = sysprof_callgraph_get_n_samples_read (report->callgraph);

  if (report->memory)
    {
      const char *what = report->memory_leaked ? "leaked allocations" : "allocations";
      guint64     count = report->memory_bytes ? 0 : n;

      if (report->memory_bytes)
        printf ("%s: %" G_GUINT64_FORMAT " bytes of %s (%" G_GUINT64_FORMAT " allocation records in the capture)\n\n",
                report->capture_path, sysprof_callgraph_get_n_bytes (report->callgraph), what, read);
      else
        printf ("%s: %" G_GUINT64_FORMAT " %s, %" G_GUINT64_FORMAT " bytes (%" G_GUINT64_FORMAT
                " allocation records in the capture)\n\n",
                report->capture_path, count, what, sysprof_callgraph_get_n_bytes (report->callgraph), read);
      return;
    }
  if (n == read)
    printf ("%s: %" G_GUINT64_FORMAT " samples\n\n", report->capture_path, n);
  else
    printf ("%s: %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT " samples pass the filters\n\n", report->capture_path, n,
            read);
}

/* ------------------------------------------------------------------------ */
/* top */

static gint
compare_by_self (gconstpointer a, gconstpointer b)
{
  const SysprofCallgraphFunction *fa = *(const SysprofCallgraphFunction *const *) a;
  const SysprofCallgraphFunction *fb = *(const SysprofCallgraphFunction *const *) b;

  if (fa->self != fb->self)
    return fa->self > fb->self ? -1 : 1;
  if (fa->total != fb->total)
    return fa->total > fb->total ? -1 : 1;
  return strcmp (fa->symbol->name, fb->symbol->name);
}

static gint
compare_by_total (gconstpointer a, gconstpointer b)
{
  const SysprofCallgraphFunction *fa = *(const SysprofCallgraphFunction *const *) a;
  const SysprofCallgraphFunction *fb = *(const SysprofCallgraphFunction *const *) b;

  if (fa->total != fb->total)
    return fa->total > fb->total ? -1 : 1;
  if (fa->self != fb->self)
    return fa->self > fb->self ? -1 : 1;
  return strcmp (fa->symbol->name, fb->symbol->name);
}

/* top --memory: allocations and bytes (bytes only when they are the
 * weight). */
static int
top_memory (const Report *report, GPtrArray *functions, guint n_rows)
{
  static const Column columns[] = {
    { "FUNCTION", FALSE, 60 }, { "LIBRARY", FALSE, 28 },   { "SELF", TRUE, 0 },  { "TOTAL", TRUE, 0 },
    { "SELF_BYTES", TRUE, 0 }, { "TOTAL_BYTES", TRUE, 0 }, { "SELF%", TRUE, 0 }, { "TOTAL%", TRUE, 0 },
  };
  gboolean counts = !report->memory_bytes;

  if (report->format == REPORT_FORMAT_TSV)
    {
      printf ("function\tlibrary\t%sself_bytes\ttotal_bytes\tself_percent\ttotal_percent\n",
              counts ? "self_allocations\ttotal_allocations\t" : "");
      for (guint i = 0; i < n_rows; i++)
        {
          const SysprofCallgraphFunction *function = functions->pdata[i];

          report_put_tsv_field (stdout, function->symbol->name);
          fputc ('\t', stdout);
          report_put_tsv_field (stdout, function->symbol->library);
          if (counts)
            printf ("\t%" G_GUINT64_FORMAT "\t%" G_GUINT64_FORMAT, function->self, function->total);
          printf ("\t%" G_GUINT64_FORMAT "\t%" G_GUINT64_FORMAT "\t%.2f\t%.2f\n", function->self_bytes,
                  function->total_bytes, report_percent (report, function->self),
                  report_percent (report, function->total));
        }
      return REPORT_EXIT_OK;
    }

  {
    Table table;

    static const Column bytes_columns[] = {
      { "FUNCTION", FALSE, 60 },  { "LIBRARY", FALSE, 28 }, { "SELF_BYTES", TRUE, 0 },
      { "TOTAL_BYTES", TRUE, 0 }, { "SELF%", TRUE, 0 },     { "TOTAL%", TRUE, 0 },
    };

    if (counts)
      table_init (&table, columns, G_N_ELEMENTS (columns));
    else
      table_init (&table, bytes_columns, G_N_ELEMENTS (bytes_columns));
    for (guint i = 0; i < n_rows; i++)
      {
        const SysprofCallgraphFunction *function = functions->pdata[i];

        table_add (&table, function->symbol->name);
        table_add (&table, function->symbol->library);
        if (counts)
          {
            table_add_count (&table, function->self);
            table_add_count (&table, function->total);
          }
        table_add_count (&table, function->self_bytes);
        table_add_count (&table, function->total_bytes);
        table_add_percent (&table, report_percent (report, function->self));
        table_add_percent (&table, report_percent (report, function->total));
      }
    print_summary_line (report);
    table_print (&table);
    if (n_rows < functions->len)
      printf ("(%u more functions; --limit 0 shows all)\n", functions->len - n_rows);
    table_clear (&table);
  }
  return REPORT_EXIT_OK;
}

int
report_top (const Report *report)
{
  static const Column columns[] = {
    { "FUNCTION", FALSE, 60 }, { "LIBRARY", FALSE, 28 }, { "SELF", TRUE, 0 },
    { "TOTAL", TRUE, 0 },      { "SELF%", TRUE, 0 },     { "TOTAL%", TRUE, 0 },
  };
  SysprofCallgraph *callgraph = report->callgraph;
  g_autoptr (GPtrArray) functions = g_ptr_array_new ();
  guint n_rows;

  for (guint i = 0; i < sysprof_callgraph_get_n_functions (callgraph); i++)
    {
      const SysprofCallgraphFunction *function = sysprof_callgraph_get_function (callgraph, i);

      if (function->kind != SYSPROF_CALLGRAPH_FUNCTION_ROOT && function->kind != SYSPROF_CALLGRAPH_FUNCTION_PROCESS &&
          function->total > 0)
        g_ptr_array_add (functions, (gpointer) function);
    }
  g_ptr_array_sort (functions, report->sort_by_total ? compare_by_total : compare_by_self);
  n_rows = report->limit > 0 ? MIN (report->limit, functions->len) : functions->len;

  if (report->memory)
    return top_memory (report, functions, n_rows);

  if (report->format == REPORT_FORMAT_TSV)
    {
      printf ("function\tlibrary\tself_samples\ttotal_samples\tself_percent\ttotal_percent\n");
      for (guint i = 0; i < n_rows; i++)
        {
          const SysprofCallgraphFunction *function = functions->pdata[i];

          report_put_tsv_field (stdout, function->symbol->name);
          fputc ('\t', stdout);
          report_put_tsv_field (stdout, function->symbol->library);
          printf ("\t%" G_GUINT64_FORMAT "\t%" G_GUINT64_FORMAT "\t%.2f\t%.2f\n", function->self, function->total,
                  report_percent (report, function->self), report_percent (report, function->total));
        }
      return REPORT_EXIT_OK;
    }

  {
    Table table;

    table_init (&table, columns, G_N_ELEMENTS (columns));
    for (guint i = 0; i < n_rows; i++)
      {
        const SysprofCallgraphFunction *function = functions->pdata[i];

        table_add (&table, function->symbol->name);
        table_add (&table, function->symbol->library);
        table_add_count (&table, function->self);
        table_add_count (&table, function->total);
        table_add_percent (&table, report_percent (report, function->self));
        table_add_percent (&table, report_percent (report, function->total));
      }
    print_summary_line (report);
    table_print (&table);
    if (n_rows < functions->len)
      printf ("(%u more functions; --limit 0 shows all)\n", functions->len - n_rows);
    table_clear (&table);
  }
  return REPORT_EXIT_OK;
}

/* ------------------------------------------------------------------------ */
/* callers, callees */

static guint
edit_distance (const char *a, const char *b)
{
  gsize             la = strlen (a), lb = strlen (b);
  g_autofree guint *row = g_new (guint, lb + 1);

  for (gsize j = 0; j <= lb; j++)
    row[j] = (guint) j;
  for (gsize i = 1; i <= la; i++)
    {
      guint diagonal = row[0];

      row[0] = (guint) i;
      for (gsize j = 1; j <= lb; j++)
        {
          guint above = row[j];

          row[j] = MIN (MIN (row[j] + 1, row[j - 1] + 1), diagonal + (a[i - 1] == b[j - 1] ? 0 : 1));
          diagonal = above;
        }
    }
  return row[lb];
}

/* Names that contain @name (ignoring case) or are a couple of edits away. */
static void
print_suggestions (SysprofCallgraph *callgraph, const char *name)
{
  g_autoptr (GPtrArray) close = g_ptr_array_new ();
  g_autofree char *folded = g_utf8_casefold (name, -1);
  gsize            length = strlen (name);

  for (guint i = 0; i < sysprof_callgraph_get_n_functions (callgraph); i++)
    {
      const SysprofCallgraphFunction *function = sysprof_callgraph_get_function (callgraph, i);
      g_autofree char                *candidate = g_utf8_casefold (function->symbol->name, -1);
      gsize                           candidate_length = strlen (candidate);
      gboolean                        near = FALSE;

      if (strstr (candidate, folded) != NULL)
        near = TRUE;
      else if (length < 64 && candidate_length < 64 &&
               (candidate_length > length ? candidate_length - length : length - candidate_length) <= 2)
        near = edit_distance (candidate, folded) <= MAX (1, length / 5);
      if (near)
        g_ptr_array_add (close, (gpointer) function);
    }
  if (close->len == 0)
    return;
  g_ptr_array_sort (close, compare_by_total);
  g_printerr ("Did you mean:\n");
  for (guint i = 0; i < MIN (close->len, 8u); i++)
    {
      const SysprofCallgraphFunction *function = close->pdata[i];

      g_printerr ("  %s%s%s%s\n", function->symbol->name, function->symbol->library[0] ? " (" : "",
                  function->symbol->library, function->symbol->library[0] ? ")" : "");
    }
}

int
report_callers (const Report *report, gboolean callers)
{
  static const Column columns[] = {
    { "FUNCTION", FALSE, 60 },
    { "LIBRARY", FALSE, 28 },
    { "SAMPLES", TRUE, 0 },
    { "PERCENT", TRUE, 0 },
  };
  static const Column memory_columns[] = {
    { "FUNCTION", FALSE, 60 }, { "LIBRARY", FALSE, 28 }, { "ALLOCATIONS", TRUE, 0 },
    { "BYTES", TRUE, 0 },      { "PERCENT", TRUE, 0 },
  };
  static const Column bytes_columns[] = {
    { "FUNCTION", FALSE, 60 },
    { "LIBRARY", FALSE, 28 },
    { "BYTES", TRUE, 0 },
    { "PERCENT", TRUE, 0 },
  };
  SysprofCallgraph               *callgraph = report->callgraph;
  const SysprofCallgraphFunction *function;
  g_autoptr (GArray) edges = NULL;
  g_autoptr (GString) others = g_string_new (NULL);
  guint n_rows;

  function = sysprof_callgraph_find_function (callgraph, report->function_name, report->library);
  if (function == NULL)
    {
      if (report->library != NULL)
        g_printerr ("%s: no function “%s” in library “%s” among the %" G_GUINT64_FORMAT " %s\n", g_get_prgname (),
                    report->function_name, report->library, sysprof_callgraph_get_n_samples (callgraph), report->unit);
      else
        g_printerr ("%s: no function “%s” among the %" G_GUINT64_FORMAT " %s\n", g_get_prgname (),
                    report->function_name, sysprof_callgraph_get_n_samples (callgraph), report->unit);
      print_suggestions (callgraph, report->function_name);
      return REPORT_EXIT_ERROR;
    }

  if (report->library == NULL)
    {
      for (guint i = 0; i < sysprof_callgraph_get_n_functions (callgraph); i++)
        {
          const SysprofCallgraphFunction *other = sysprof_callgraph_get_function (callgraph, i);

          if (other != function && g_str_equal (other->symbol->name, function->symbol->name))
            g_string_append_printf (others, "%s“%s”", others->len ? ", " : "", other->symbol->library);
        }
      if (others->len > 0)
        g_printerr ("%s: note: showing “%s” of “%s”; other libraries with that name: %s (see --library)\n",
                    g_get_prgname (), function->symbol->name, function->symbol->library, others->str);
    }

  edges = callers ? sysprof_callgraph_list_callers (callgraph, function)
                  : sysprof_callgraph_list_callees (callgraph, function);
  n_rows = report->limit > 0 ? MIN (report->limit, edges->len) : edges->len;

  if (report->format == REPORT_FORMAT_TSV)
    {
      if (report->memory)
        printf ("function\tlibrary\t%sbytes\tpercent\n", report->memory_bytes ? "" : "allocations\t");
      else
        printf ("function\tlibrary\tsamples\tpercent\n");
      for (guint i = 0; i < n_rows; i++)
        {
          const SysprofCallgraphEdge *edge = &g_array_index (edges, SysprofCallgraphEdge, i);

          report_put_tsv_field (stdout, edge->function->symbol->name);
          fputc ('\t', stdout);
          report_put_tsv_field (stdout, edge->function->symbol->library);
          if (report->memory && !report->memory_bytes)
            printf ("\t%" G_GUINT64_FORMAT, edge->samples);
          printf ("\t%" G_GUINT64_FORMAT "\t%.2f\n", report->memory ? edge->bytes : edge->samples,
                  report_percent (report, edge->samples));
        }
      return REPORT_EXIT_OK;
    }

  {
    g_autofree char *name = g_utf8_make_valid (function->symbol->name, -1);
    Table            table;

    print_summary_line (report);
    printf ("%s %s%s%s%s: total %" G_GUINT64_FORMAT " %s (%.2f%%), self %" G_GUINT64_FORMAT " %s (%.2f%%)\n\n",
            callers ? "Callers of" : "Called by", name, function->symbol->library[0] ? " (" : "",
            function->symbol->library, function->symbol->library[0] ? ")" : "", function->total, report->unit,
            report_percent (report, function->total), function->self, report->unit,
            report_percent (report, function->self));
    if (edges->len == 0)
      {
        printf (callers ? "(no callers)\n" : "(no callees: the function calls nothing that was sampled)\n");
        return REPORT_EXIT_OK;
      }
    table_init (&table, report->memory ? (report->memory_bytes ? bytes_columns : memory_columns) : columns,
                report->memory && !report->memory_bytes ? G_N_ELEMENTS (memory_columns) : G_N_ELEMENTS (columns));
    for (guint i = 0; i < n_rows; i++)
      {
        const SysprofCallgraphEdge *edge = &g_array_index (edges, SysprofCallgraphEdge, i);

        table_add (&table, edge->function->symbol->name);
        table_add (&table, edge->function->symbol->library);
        table_add_count (&table, edge->samples);
        if (report->memory && !report->memory_bytes)
          table_add_count (&table, edge->bytes);
        table_add_percent (&table, report_percent (report, edge->samples));
      }
    table_print (&table);
    if (n_rows < edges->len)
      printf ("(%u more; --limit 0 shows all)\n", edges->len - n_rows);
    table_clear (&table);
  }
  return REPORT_EXIT_OK;
}

/* ------------------------------------------------------------------------ */
/* tree */

static gboolean
visible (const Report *report, const SysprofCallgraphNode *node)
{
  return node->depth == 0 || report_percent (report, node->total) >= report->threshold_percent;
}

/* The next node of a depth-first walk that skips invisible subtrees.
 * Children are sorted by total, so the visible ones come first. */
static const SysprofCallgraphNode *
next_visible (const Report *report, const SysprofCallgraphNode *node)
{
  if (node->first_child != NULL && visible (report, node->first_child))
    return node->first_child;
  for (; node != NULL; node = node->parent)
    if (node->next_sibling != NULL && visible (report, node->next_sibling))
      return node->next_sibling;
  return NULL;
}

int
report_tree (const Report *report)
{
  const SysprofCallgraphNode *node = sysprof_callgraph_get_root (report->callgraph);
  guint                       rows = 0;

  if (report->format == REPORT_FORMAT_TSV && report->memory)
    printf ("depth\tfunction\tlibrary\t%stotal_bytes\tself_bytes\ttotal_percent\n",
            report->memory_bytes ? "" : "total_allocations\tself_allocations\t");
  else if (report->format == REPORT_FORMAT_TSV)
    printf ("depth\tfunction\tlibrary\ttotal_samples\tself_samples\ttotal_percent\n");
  else
    {
      print_summary_line (report);
      if (report->memory)
        printf ("  TOTAL%%    SELF%%   TOTAL_BYTES  FUNCTION (nodes under %.2f%% of the %s left out)\n",
                report->threshold_percent, report->unit);
      else
        printf ("  TOTAL%%    SELF%%  FUNCTION (nodes under %.2f%% of the samples left out)\n",
                report->threshold_percent);
    }

  for (; node != NULL && (report->limit == 0 || rows < report->limit); node = next_visible (report, node), rows++)
    {
      const SysprofSymbol *symbol = node->function->symbol;

      if (report->format == REPORT_FORMAT_TSV)
        {
          printf ("%u\t", node->depth);
          report_put_tsv_field (stdout, symbol->name);
          fputc ('\t', stdout);
          report_put_tsv_field (stdout, symbol->library);
          if (report->memory && !report->memory_bytes)
            printf ("\t%" G_GUINT64_FORMAT "\t%" G_GUINT64_FORMAT, node->total, node->self);
          printf ("\t%" G_GUINT64_FORMAT "\t%" G_GUINT64_FORMAT "\t%.2f\n",
                  report->memory ? node->total_bytes : node->total, report->memory ? node->self_bytes : node->self,
                  report_percent (report, node->total));
        }
      else
        {
          g_autofree char *name = g_utf8_make_valid (symbol->name, -1);

          if (report->memory)
            printf ("%7.2f%%  %6.2f%%  %12" G_GUINT64_FORMAT "  %*s%s", report_percent (report, node->total),
                    report_percent (report, node->self), node->total_bytes, (int) MIN (node->depth * 2, 400u), "",
                    name);
          else
            printf ("%7.2f%%  %6.2f%%  %*s%s", report_percent (report, node->total),
                    report_percent (report, node->self), (int) MIN (node->depth * 2, 400u), "", name);
          if (symbol->library[0] != '\0')
            printf (" (%s)", symbol->library);
          fputc ('\n', stdout);
        }
    }
  if (node != NULL && report->format == REPORT_FORMAT_TEXT)
    printf ("(stopped at %u rows; --limit 0 shows all)\n", rows);
  return REPORT_EXIT_OK;
}

/* ------------------------------------------------------------------------ */
/* collapsed */

static void
put_folded_name (const char *name)
{
  for (const char *p = name; *p; p++)
    fputc (*p == ';' ? ':' : *p == '\n' || *p == '\r' ? ' ' : *p, stdout);
}

static gboolean
print_stack (const SysprofCallgraphFunction *const *frames, guint n_frames, guint64 n_samples, gpointer user_data)
{
  (void) user_data;

  for (guint i = 0; i < n_frames; i++)
    {
      if (i > 0)
        fputc (';', stdout);
      put_folded_name (frames[i]->symbol->name);
    }
  printf (" %" G_GUINT64_FORMAT "\n", n_samples);
  return !ferror (stdout);
}

int
report_collapsed (const Report *report)
{
  sysprof_callgraph_foreach_stack (report->callgraph, print_stack, NULL);
  return REPORT_EXIT_OK;
}
