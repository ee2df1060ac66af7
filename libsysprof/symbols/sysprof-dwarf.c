// SPDX-License-Identifier: GPL-3.0-or-later
/* Inline frames and source lines from DWARF, through elfutils' libdw.
 *
 * dwarf_getscopes walks a compilation unit's DIEs from its start, which is
 * too slow to do per address on a capture of a whole system.  It is done
 * once per function instead: the function's DIE subtree is walked once,
 * its inlined subroutines become disjoint address pieces (the innermost
 * inline wins), and every later address of the function is two binary
 * searches (function, piece) and one in the unit's line table.  Units are
 * found by an index of their ranges built on first use, so a file without
 * .debug_aranges works as well as one with. */

#include <dwarf.h>
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include <elfutils/libdw.h>
#include <gelf.h>
#include <libelf.h>

#include "sysprof-dwarf-private.h"

#define MAX_FRAMES 64
/* Hostile debug info cannot make a function cost more than this. */
#define MAX_INLINES        65536
#define MAX_DIE_DEPTH      256
#define MAX_UNITS          (1u << 20)
#define MAX_RANGES_PER_DIE 4096
#define NO_NODE            G_MAXUINT32

typedef struct
{
  guint64 begin;
  guint64 end;
  guint32 index; /* of a unit, or of a function */
} Span;

typedef struct
{
  const char *name;
  const char *call_file;
  guint       call_line;
  guint32     parent; /* NO_NODE: inlined into the function itself */
} InlineNode;

typedef struct
{
  guint64 begin;
  guint64 end;
  guint32 node;
  guint32 depth;
} Piece;

typedef struct
{
  Dwarf_Off   unit; /* offset of the unit's DIE */
  const char *name; /* of the subprogram, may be NULL */
  InlineNode *nodes;
  Piece      *pieces; /* disjoint, sorted */
  gsize       n_pieces;
} Function;

struct _SysprofDwarf
{
  gatomicrefcount ref_count;
  Elf            *elf;
  Dwarf          *dwarf;
  GArray         *units;     /* Span by address, index: unit DIE offsets[] */
  GArray         *unit_dies; /* Dwarf_Off */
  gboolean        indexed;
  GArray         *functions; /* Span by address (sorted), index into function_list */
  GPtrArray      *function_list;
  GHashTable     *by_die;           /* subprogram DIE offset -> index + 1 in function_list */
  GHashTable     *unit_subprograms; /* unit DIE offset -> GArray of Span (index: into subprogram_dies), sorted */
  GArray         *subprogram_dies;  /* Dwarf_Off */
};

static void
function_free (gpointer data)
{
  Function *function = data;

  g_free (function->nodes);
  g_free (function->pieces);
  g_free (function);
}

SysprofDwarf *
sysprof_dwarf_new_from_fd (int fd, const char *path, GError **error)
{
  SysprofDwarf *self;
  Elf          *elf;
  Dwarf        *dwarf;

  g_return_val_if_fail (fd >= 0, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  elf_version (EV_CURRENT);
  /* Mapped: debug files can be hundreds of MB, of which a lookup touches a
   * few pages.  The cost is that a debug file truncated by someone while
   * we read it could fault; these files are the user's own or the
   * distribution's, read by the user's own process. */
  if ((elf = elf_begin (fd, ELF_C_READ_MMAP, NULL)) == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "%s: %s", path, elf_errmsg (-1));
      return NULL;
    }
  if ((dwarf = dwarf_begin_elf (elf, DWARF_C_READ, NULL)) == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "%s: no usable debug info: %s", path, dwarf_errmsg (-1));
      elf_end (elf);
      return NULL;
    }
  /* Everything is mapped: the descriptor may go. */
  elf_cntl (elf, ELF_C_FDDONE);

  self = g_new0 (SysprofDwarf, 1);
  g_atomic_ref_count_init (&self->ref_count);
  self->elf = elf;
  self->dwarf = dwarf;
  self->units = g_array_new (FALSE, FALSE, sizeof (Span));
  self->unit_dies = g_array_new (FALSE, FALSE, sizeof (Dwarf_Off));
  self->functions = g_array_new (FALSE, FALSE, sizeof (Span));
  self->function_list = g_ptr_array_new_with_free_func (function_free);
  self->by_die = g_hash_table_new (NULL, NULL);
  self->unit_subprograms = g_hash_table_new_full (NULL, NULL, NULL, (GDestroyNotify) g_array_unref);
  self->subprogram_dies = g_array_new (FALSE, FALSE, sizeof (Dwarf_Off));
  return self;
}

SysprofDwarf *
sysprof_dwarf_ref (SysprofDwarf *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  g_atomic_ref_count_inc (&self->ref_count);
  return self;
}

void
sysprof_dwarf_unref (SysprofDwarf *self)
{
  if (self == NULL || !g_atomic_ref_count_dec (&self->ref_count))
    return;

  g_hash_table_unref (self->by_die);
  g_hash_table_unref (self->unit_subprograms);
  g_array_unref (self->subprogram_dies);
  g_ptr_array_unref (self->function_list);
  g_array_unref (self->functions);
  g_array_unref (self->unit_dies);
  g_array_unref (self->units);
  dwarf_end (self->dwarf);
  elf_end (self->elf);
  g_free (self);
}

static int
compare_spans (gconstpointer a, gconstpointer b)
{
  const Span *sa = a, *sb = b;

  if (sa->begin != sb->begin)
    return sa->begin < sb->begin ? -1 : 1;
  return sa->end < sb->end ? -1 : sa->end > sb->end;
}

/* The span of @spans holding @vaddr, or NULL.  Spans may overlap (units of
 * LTO partitions, hostile input): a few earlier ones are tried too. */
static const Span *
find_span (GArray *spans, guint64 vaddr)
{
  const Span *s = (const Span *) (gpointer) spans->data;
  gsize       lo = 0, hi = spans->len;

  while (lo < hi)
    {
      gsize mid = lo + (hi - lo) / 2;

      if (s[mid].begin <= vaddr)
        lo = mid + 1;
      else
        hi = mid;
    }
  for (gsize i = lo, tries = 0; i > 0 && tries < 16; i--, tries++)
    if (vaddr < s[i - 1].end)
      return &s[i - 1];
  return NULL;
}

/* Appends the address ranges of @die to @spans with @index. */
static void
add_die_ranges (Dwarf_Die *die, GArray *spans, guint32 index)
{
  Dwarf_Addr base, begin, end;
  ptrdiff_t  offset = 0;

  for (guint n = 0; n < MAX_RANGES_PER_DIE && (offset = dwarf_ranges (die, offset, &base, &begin, &end)) > 0; n++)
    if (begin < end)
      {
        Span span = { begin, end, index };
        g_array_append_val (spans, span);
      }
}

static void
index_units (SysprofDwarf *self)
{
  Dwarf_CU *cu = NULL;
  Dwarf_CU *next = NULL;

  self->indexed = TRUE;
  for (guint n = 0; n < MAX_UNITS; n++)
    {
      Dwarf_Die  cudie;
      Dwarf_Half version;
      guint8     unit_type;
      Dwarf_Off  offset;

      if (dwarf_get_units (self->dwarf, cu, &next, &version, &unit_type, &cudie, NULL) != 0)
        break;
      cu = next;
      if (unit_type != DW_UT_compile && unit_type != DW_UT_partial && unit_type != DW_UT_skeleton)
        continue;
      offset = dwarf_dieoffset (&cudie);
      g_array_append_val (self->unit_dies, offset);
      add_die_ranges (&cudie, self->units, self->unit_dies->len - 1);
    }
  g_array_sort (self->units, compare_spans);
}

static const char *
die_name (Dwarf_Die *die)
{
  static const int attrs[] = { DW_AT_linkage_name, DW_AT_MIPS_linkage_name, DW_AT_name };
  Dwarf_Attribute  attr;

  /* Integrated: an inline instance names nothing itself, its abstract
   * origin (or that one's specification) does. */
  for (guint i = 0; i < G_N_ELEMENTS (attrs); i++)
    {
      const char *name;

      if (dwarf_attr_integrate (die, attrs[i], &attr) != NULL && (name = dwarf_formstring (&attr)) != NULL &&
          name[0] != '\0')
        return name;
    }
  return NULL;
}

static const char *
file_name (Dwarf_Files *files, size_t n_files, Dwarf_Word index)
{
  if (files == NULL || index >= n_files)
    return NULL;
  return dwarf_filesrc (files, index, NULL, NULL);
}

static int
compare_pieces (gconstpointer a, gconstpointer b)
{
  const Piece *pa = a, *pb = b;

  if (pa->begin != pb->begin)
    return pa->begin < pb->begin ? -1 : 1;
  return pa->depth < pb->depth ? -1 : pa->depth > pb->depth;
}

/* The ranges of the inlined subroutines, cut into disjoint pieces: where
 * they nest, the innermost (the one starting last, or deeper at the same
 * start) wins. */
static void
make_disjoint (Function *function, GArray *raw)
{
  g_autoptr (GArray) out = g_array_new (FALSE, FALSE, sizeof (Piece));
  g_autoptr (GArray) stack = g_array_new (FALSE, FALSE, sizeof (guint));
  const Piece *p;
  guint64      pos = 0;

  g_array_sort (raw, compare_pieces);
  p = (const Piece *) (gpointer) raw->data;
  for (guint i = 0; i <= raw->len; i++)
    {
      guint64 next = i < raw->len ? p[i].begin : G_MAXUINT64;

      while (stack->len > 0)
        {
          const Piece *top = &p[g_array_index (stack, guint, stack->len - 1)];
          guint64      stop = MIN (top->end, next);

          if (stop > pos)
            {
              Piece piece = { pos, stop, top->node, top->depth };
              g_array_append_val (out, piece);
              pos = stop;
            }
          if (top->end <= next)
            g_array_set_size (stack, stack->len - 1);
          else
            break;
        }
      if (i < raw->len)
        {
          pos = next;
          g_array_append_val (stack, i);
        }
    }
  function->n_pieces = out->len;
  function->pieces = (Piece *) (gpointer) g_array_free (g_steal_pointer (&out), FALSE);
}

/* Reads the inlined subroutines below the subprogram @die, depth first
 * without recursion. */
static Function *
read_function (Dwarf_Die *cudie, Dwarf_Die *die)
{
  g_autoptr (GArray) nodes = g_array_new (FALSE, FALSE, sizeof (InlineNode));
  g_autoptr (GArray) raw = g_array_new (FALSE, FALSE, sizeof (Piece));
  Dwarf_Die    stack[MAX_DIE_DEPTH];
  guint32      owner[MAX_DIE_DEPTH]; /* inline node of each level's parent */
  guint        depth = 0;
  Dwarf_Files *files = NULL;
  size_t       n_files = 0;
  Function    *function = g_new0 (Function, 1);

  function->unit = dwarf_dieoffset (cudie);
  function->name = die_name (die);
  if (dwarf_getsrcfiles (cudie, &files, &n_files) != 0)
    files = NULL;

  if (dwarf_child (die, &stack[0]) == 0)
    {
      owner[0] = NO_NODE;
      depth = 1;
    }
  while (depth > 0 && nodes->len < MAX_INLINES)
    {
      Dwarf_Die *current = &stack[depth - 1];
      int        tag = dwarf_tag (current);
      guint32    inner = owner[depth - 1];
      gboolean   descend = FALSE;

      if (tag == DW_TAG_inlined_subroutine)
        {
          InlineNode      node = { die_name (current), NULL, 0, owner[depth - 1] };
          Dwarf_Attribute attr;
          Dwarf_Word      value;
          guint32         index = nodes->len;
          guint           n_before = raw->len;
          g_autoptr (GArray) spans = g_array_new (FALSE, FALSE, sizeof (Span));

          if (dwarf_attr (current, DW_AT_call_file, &attr) != NULL && dwarf_formudata (&attr, &value) == 0)
            node.call_file = file_name (files, n_files, value);
          if (dwarf_attr (current, DW_AT_call_line, &attr) != NULL && dwarf_formudata (&attr, &value) == 0)
            node.call_line = value <= G_MAXUINT ? (guint) value : 0;
          g_array_append_val (nodes, node);
          add_die_ranges (current, spans, index);
          for (guint i = 0; i < spans->len; i++)
            {
              const Span *s = &g_array_index (spans, Span, i);
              Piece       piece = { s->begin, s->end, index, depth };
              g_array_append_val (raw, piece);
            }
          (void) n_before;
          inner = index;
          descend = TRUE;
        }
      else if (tag == DW_TAG_lexical_block || tag == DW_TAG_try_block || tag == DW_TAG_catch_block)
        descend = TRUE;
      /* Nested subprograms (GNU C) are functions of their own. */

      if (descend && depth < MAX_DIE_DEPTH && dwarf_haschildren (current) > 0 &&
          dwarf_child (current, &stack[depth]) == 0)
        {
          owner[depth] = inner;
          depth++;
          continue;
        }
      /* The next sibling, climbing up as levels end. */
      while (depth > 0 && dwarf_siblingof (&stack[depth - 1], &stack[depth - 1]) != 0)
        depth--;
    }

  function->nodes = (InlineNode *) (gpointer) g_array_free (g_steal_pointer (&nodes), FALSE);
  make_disjoint (function, raw);
  return function;
}

/* The ranges of every subprogram of a unit (its children, and inside
 * namespaces and classes for C++), sorted: read in one walk the first time
 * an address of the unit is asked, so that a unit of a thousand functions
 * is not walked once per function. */
static GArray *
unit_subprograms (SysprofDwarf *self, Dwarf_Die *cudie)
{
  Dwarf_Off key = dwarf_dieoffset (cudie);
  GArray   *spans = g_hash_table_lookup (self->unit_subprograms, GSIZE_TO_POINTER ((gsize) key));
  Dwarf_Die stack[16];
  guint     depth = 0;

  if (spans != NULL)
    return spans;
  spans = g_array_new (FALSE, FALSE, sizeof (Span));
  g_hash_table_insert (self->unit_subprograms, GSIZE_TO_POINTER ((gsize) key), spans);
  if (dwarf_child (cudie, &stack[0]) == 0)
    depth = 1;
  while (depth > 0 && self->subprogram_dies->len < MAX_INLINES * 16u)
    {
      Dwarf_Die *current = &stack[depth - 1];
      int        tag = dwarf_tag (current);

      if (tag == DW_TAG_subprogram)
        {
          Dwarf_Off offset = dwarf_dieoffset (current);
          guint     n = spans->len;

          add_die_ranges (current, spans, self->subprogram_dies->len);
          if (spans->len > n)
            g_array_append_val (self->subprogram_dies, offset);
        }
      else if ((tag == DW_TAG_namespace || tag == DW_TAG_class_type || tag == DW_TAG_structure_type ||
                tag == DW_TAG_module) &&
               depth < G_N_ELEMENTS (stack) && dwarf_haschildren (current) > 0 &&
               dwarf_child (current, &stack[depth]) == 0)
        {
          depth++;
          continue;
        }
      while (depth > 0 && dwarf_siblingof (&stack[depth - 1], &stack[depth - 1]) != 0)
        depth--;
    }
  g_array_sort (spans, compare_spans);
  return spans;
}

/* The subprogram DIE of the unit holding @vaddr. */
static gboolean
find_subprogram (SysprofDwarf *self, Dwarf_Die *cudie, guint64 vaddr, Dwarf_Die *result)
{
  const Span *span = find_span (unit_subprograms (self, cudie), vaddr);

  return span != NULL &&
         dwarf_offdie (self->dwarf, g_array_index (self->subprogram_dies, Dwarf_Off, span->index), result) != NULL;
}

/* The function holding @vaddr, read on first use; NULL when no subprogram
 * of the debug info holds it.  @cudie receives its unit. */
static Function *
find_function (SysprofDwarf *self, guint64 vaddr, Dwarf_Die *cudie)
{
  const Span *span = find_span (self->functions, vaddr);
  Dwarf_Die   found_die;
  Dwarf_Die  *subprogram = NULL;
  Function   *function;
  gpointer    found;
  Dwarf_Off   unit;

  if (span != NULL)
    {
      function = g_ptr_array_index (self->function_list, span->index);
      return dwarf_offdie (self->dwarf, function->unit, cudie) != NULL ? function : NULL;
    }

  if (!self->indexed)
    index_units (self);
  if ((span = find_span (self->units, vaddr)) == NULL)
    return NULL;
  unit = g_array_index (self->unit_dies, Dwarf_Off, span->index);
  if (dwarf_offdie (self->dwarf, unit, cudie) == NULL)
    return NULL;

  /* Not dwarf_getscopes: inside an inlined subroutine it goes on with the
   * abstract definition the inline came from, not the function holding it. */
  if (!find_subprogram (self, cudie, vaddr, &found_die))
    return NULL;
  subprogram = &found_die;

  /* Its ranges may already be indexed under another piece (a .cold part
   * met first through another address would have been found above). */
  if (g_hash_table_lookup_extended (self->by_die, GSIZE_TO_POINTER ((gsize) dwarf_dieoffset (subprogram)), NULL,
                                    &found))
    function = g_ptr_array_index (self->function_list, GPOINTER_TO_UINT (found) - 1);
  else
    {
      guint32 index = self->function_list->len;

      function = read_function (cudie, subprogram);
      g_ptr_array_add (self->function_list, function);
      g_hash_table_insert (self->by_die, GSIZE_TO_POINTER ((gsize) dwarf_dieoffset (subprogram)),
                           GUINT_TO_POINTER (index + 1));
      add_die_ranges (subprogram, self->functions, index);
      g_array_sort (self->functions, compare_spans);
    }
  return function;
}

/* The line row holding @vaddr in the unit's table: the last row at or
 * before it (of several at one address, the last, as addr2line does), and
 * the address where the next row starts. */
static Dwarf_Line *
find_line (Dwarf_Die *cudie, guint64 vaddr, guint64 *begin, guint64 *end)
{
  Dwarf_Lines *lines = NULL;
  size_t       n = 0, lo = 0, hi;
  Dwarf_Line  *line;
  Dwarf_Addr   addr;
  bool         end_sequence = false;

  if (dwarf_getsrclines (cudie, &lines, &n) != 0 || n == 0)
    return NULL;
  hi = n;
  while (lo < hi)
    {
      size_t mid = lo + (hi - lo) / 2;

      if ((line = dwarf_onesrcline (lines, mid)) == NULL || dwarf_lineaddr (line, &addr) != 0)
        return NULL;
      if (addr <= vaddr)
        lo = mid + 1;
      else
        hi = mid;
    }
  if (lo == 0 || (line = dwarf_onesrcline (lines, lo - 1)) == NULL || dwarf_lineaddr (line, &addr) != 0 ||
      dwarf_lineendsequence (line, &end_sequence) != 0 || end_sequence)
    return NULL;
  *begin = addr;
  *end = G_MAXUINT64;
  if (lo < n)
    {
      Dwarf_Line *next = dwarf_onesrcline (lines, lo);
      Dwarf_Addr  next_addr;

      if (next != NULL && dwarf_lineaddr (next, &next_addr) == 0 && next_addr > vaddr)
        *end = next_addr;
    }
  return line;
}

guint
sysprof_dwarf_lookup (SysprofDwarf *self, guint64 vaddr, GArray *frames, guint64 *begin, guint64 *end)
{
  Dwarf_Die         cudie;
  Function         *function;
  const Span       *span;
  Dwarf_Line       *line;
  guint64           b, e, lb = 0, le = G_MAXUINT64;
  guint32           node = NO_NODE;
  guint             n = 0;
  SysprofDwarfFrame frame = { NULL, NULL, 0 };

  g_return_val_if_fail (self != NULL, 0);
  g_return_val_if_fail (frames != NULL, 0);

  if ((function = find_function (self, vaddr, &cudie)) == NULL)
    return 0;
  span = find_span (self->functions, vaddr);
  b = span != NULL ? span->begin : vaddr;
  e = span != NULL ? span->end : vaddr + 1;

  /* The innermost inline holding @vaddr, or the gap between them. */
  {
    gsize lo = 0, hi = function->n_pieces;

    while (lo < hi)
      {
        gsize mid = lo + (hi - lo) / 2;

        if (function->pieces[mid].begin <= vaddr)
          lo = mid + 1;
        else
          hi = mid;
      }
    if (lo > 0 && vaddr < function->pieces[lo - 1].end)
      {
        node = function->pieces[lo - 1].node;
        b = MAX (b, function->pieces[lo - 1].begin);
        e = MIN (e, function->pieces[lo - 1].end);
      }
    else
      {
        if (lo > 0)
          b = MAX (b, function->pieces[lo - 1].end);
        if (lo < function->n_pieces)
          e = MIN (e, function->pieces[lo].begin);
      }
  }

  if ((line = find_line (&cudie, vaddr, &lb, &le)) != NULL)
    {
      int lineno = 0;

      frame.file = dwarf_linesrc (line, NULL, NULL);
      if (dwarf_lineno (line, &lineno) == 0 && lineno > 0)
        frame.line = (guint) lineno;
      else
        frame.file = NULL;
      b = MAX (b, lb);
      e = MIN (e, le);
    }

  /* Innermost first: each inline at the line executing in it, its caller
   * at the line of the call, up to the function. */
  for (guint32 i = node; i != NO_NODE && n < MAX_FRAMES - 1; i = function->nodes[i].parent)
    {
      frame.name = function->nodes[i].name;
      g_array_append_val (frames, frame);
      n++;
      frame.file = function->nodes[i].call_file;
      frame.line = function->nodes[i].call_line;
    }
  frame.name = function->name;
  g_array_append_val (frames, frame);
  n++;

  if (b > vaddr || e <= vaddr)
    b = vaddr, e = vaddr + 1;
  if (begin != NULL)
    *begin = b;
  if (end != NULL)
    *end = e;
  return n;
}
