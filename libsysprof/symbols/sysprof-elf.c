// SPDX-License-Identifier: GPL-3.0-or-later
/* ELF files for the symbolizer, read with elfutils' libelf (sections,
 * symbols) and libdw's dwelf helpers (build-id note, .gnu_debuglink).
 *
 * Loading copies out what lookups need and closes the file: the executable
 * segments, the build-id, the debuglink, and the function symbols turned into
 * a sorted array of disjoint [begin, end) ranges whose names live in one
 * string block.  A capture can ask millions of addresses, so a lookup is one
 * binary search and nothing else. */

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <gelf.h>
#include <zlib.h>
#include <libelf.h>

#include "sysprof-dwarf-private.h"
#include "sysprof-elf-private.h"

/* A build-id is normally 20 bytes (SHA-1) or 16 (MD5/UUID); anything longer
 * than this is not one a debug directory could hold. */
#define MAX_BUILD_ID_BYTES 64
/* Debuglink names are file names. */
#define MAX_DEBUGLINK_LEN 255

typedef struct
{
  guint64 offset;
  guint64 filesz;
  guint64 vaddr;
} SysprofElfSegment;

/* One disjoint piece of the address space and the function covering it. */
typedef struct
{
  guint64 begin;
  guint64 end;
  guint32 name;
} SysprofElfRange;

struct _SysprofElf
{
  gatomicrefcount    ref_count;
  char              *path;
  char              *build_id;
  char              *debuglink;
  guint32            debuglink_crc;
  gboolean           from_file;
  guint64            dev;
  guint64            inode;
  guint64            size;
  gint64             mtime_sec;
  gint64             mtime_nsec;
  SysprofElfSegment *segments;
  guint              n_segments;
  SysprofElfRange   *ranges;
  gsize              n_ranges;
  char              *names;
  /* Function ranges of the unwind tables (FDEs of .eh_frame and
   * .debug_frame), sorted and disjoint; name unused.  They name nothing,
   * but say where the functions of stripped code begin and end. */
  SysprofElfRange *fdes;
  gsize            n_fdes;
  /* A .debug_info with contents (not SHT_NOBITS): sysprof_elf_get_dwarf. */
  gboolean      has_debug_info;
  SysprofDwarf *dwarf; /* opened on first use */
  gboolean      dwarf_tried;
  SysprofElf   *debug;
};

/* A function symbol as read, before sorting and splitting. */
typedef struct
{
  guint64     begin;
  guint64     size;
  guint64     end;   /* computed after sorting */
  guint64     limit; /* end of its section, 0 when unknown */
  const char *name;  /* inside libelf's string table data */
  guint32     name_offset;
  guint       rank; /* binding preference among aliases, lower wins */
} RawSymbol;

typedef struct
{
  guint64 begin;
  guint64 end;
} SectionRange;

static void
ensure_libelf (void)
{
  static gsize initialized;

  if (g_once_init_enter (&initialized))
    {
      elf_version (EV_CURRENT);
      g_once_init_leave (&initialized, 1);
    }
}

static gboolean
set_invalid (GError **error, const char *what, const char *why)
{
  g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "%s: malformed ELF file: %s", what, why);
  return FALSE;
}

static gboolean
set_invalid_libelf (GError **error, const char *what, const char *doing)
{
  g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "%s: malformed ELF file: %s: %s", what, doing,
               elf_errmsg (-1));
  return FALSE;
}

static guint
binding_rank (unsigned char binding)
{
  switch (binding)
    {
    case STB_GLOBAL: return 0;
    case STB_WEAK: return 1;
    case STB_LOCAL: return 2;
    default: return 3;
    }
}

static int
compare_raw_symbols (gconstpointer a, gconstpointer b)
{
  const RawSymbol *sa = a;
  const RawSymbol *sb = b;

  if (sa->begin != sb->begin)
    return sa->begin < sb->begin ? -1 : 1;
  /* Among aliases at one address, the one that says how long the function
   * is, then the most public one, then a stable order. */
  if (sa->size != sb->size)
    return sa->size > sb->size ? -1 : 1;
  if (sa->rank != sb->rank)
    return sa->rank < sb->rank ? -1 : 1;
  return strcmp (sa->name, sb->name);
}

/* Reads the function symbols of the symbol table in section @index. */
static gboolean
read_symbol_table (Elf                *elf,
                   const GElf_Ehdr    *ehdr,
                   gsize               index,
                   const SectionRange *sections,
                   gsize               n_sections,
                   GArray             *raw,
                   const char         *what,
                   GError            **error)
{
  Elf_Scn  *scn = elf_getscn (elf, index);
  Elf_Data *data;
  Elf_Data *strdata;
  Elf_Data *shndxdata = NULL;
  GElf_Shdr shdr;
  GElf_Shdr strshdr;
  size_t    entsize;
  gsize     n_syms;

  if (scn == NULL || gelf_getshdr (scn, &shdr) == NULL)
    return set_invalid_libelf (error, what, "symbol table header");
  if (shdr.sh_link == 0 || shdr.sh_link >= n_sections)
    return set_invalid (error, what, "symbol table without a string table");
  if (gelf_getshdr (elf_getscn (elf, shdr.sh_link), &strshdr) == NULL)
    return set_invalid_libelf (error, what, "string table header");
  if (strshdr.sh_type != SHT_STRTAB)
    return set_invalid (error, what, "symbol names not in a string table");
  if ((data = elf_getdata (scn, NULL)) == NULL)
    return set_invalid_libelf (error, what, "symbol table");
  if ((strdata = elf_getdata (elf_getscn (elf, shdr.sh_link), NULL)) == NULL)
    return set_invalid_libelf (error, what, "string table");
  if (data->d_buf == NULL || strdata->d_buf == NULL || strdata->d_size == 0)
    return TRUE;

  /* Symbols whose section index does not fit st_shndx keep it here. */
  for (gsize i = 1; i < n_sections; i++)
    {
      Elf_Scn  *xscn = elf_getscn (elf, i);
      GElf_Shdr xshdr;

      if (xscn != NULL && gelf_getshdr (xscn, &xshdr) != NULL && xshdr.sh_type == SHT_SYMTAB_SHNDX &&
          xshdr.sh_link == index)
        {
          shndxdata = elf_getdata (xscn, NULL);
          break;
        }
    }

  entsize = gelf_fsize (elf, ELF_T_SYM, 1, EV_CURRENT);
  if (entsize == 0)
    return set_invalid_libelf (error, what, "symbol size");
  n_syms = data->d_size / entsize;

  for (gsize i = 1; i < n_syms && i <= G_MAXINT; i++)
    {
      const char *strtab = strdata->d_buf;
      RawSymbol   sym;
      GElf_Sym    esym;
      Elf32_Word  xndx = 0;
      guint64     shndx;
      guint       type;

      if (gelf_getsymshndx (data, shndxdata, (int) i, &esym, &xndx) == NULL)
        break;

      type = GELF_ST_TYPE (esym.st_info);
      if (type != STT_FUNC && type != STT_GNU_IFUNC)
        continue;
      shndx = esym.st_shndx == SHN_XINDEX ? xndx : esym.st_shndx;
      if (shndx == SHN_UNDEF)
        continue;
      if (esym.st_name == 0 || esym.st_name >= strdata->d_size || strtab[esym.st_name] == '\0' ||
          memchr (strtab + esym.st_name, '\0', strdata->d_size - esym.st_name) == NULL)
        continue;

      sym.begin = esym.st_value;
      /* Thumb functions have bit 0 set in their address. */
      if (ehdr->e_machine == EM_ARM)
        sym.begin &= ~(guint64) 1;
      sym.size = esym.st_size;
      sym.end = 0;
      sym.limit = 0;
      if (esym.st_shndx != SHN_ABS && shndx < n_sections && sections[shndx].begin <= sym.begin &&
          sym.begin < sections[shndx].end)
        sym.limit = sections[shndx].end;
      sym.name = strtab + esym.st_name;
      sym.name_offset = G_MAXUINT32;
      sym.rank = binding_rank (GELF_ST_BIND (esym.st_info));
      g_array_append_val (raw, sym);
    }

  return TRUE;
}

static void
emit_range (GArray *ranges, GString *names, RawSymbol *sym, guint64 begin, guint64 end)
{
  SysprofElfRange range;

  if (sym->name_offset == G_MAXUINT32)
    {
      gsize len = strlen (sym->name);

      /* Offsets are 32-bit; a table past 4 GiB of names loses the rest. */
      if (names->len + len + 1 >= G_MAXUINT32)
        return;
      sym->name_offset = (guint32) names->len;
      g_string_append_len (names, sym->name, len + 1);
    }

  range.begin = begin;
  range.end = end;
  range.name = sym->name_offset;
  g_array_append_val (ranges, range);
}

/* Sorts @raw, keeps one symbol per address, gives size-0 symbols an end and
 * cuts nested or overlapping symbols into disjoint ranges (the innermost,
 * i.e. latest-starting, symbol wins where they overlap). */
static void
build_ranges (SysprofElf *self, GArray *raw)
{
  RawSymbol *syms;
  gsize      n = 0;
  GArray    *ranges;
  GArray    *stack;
  GString   *names;
  guint64    pos = 0;

  g_array_sort (raw, compare_raw_symbols);
  syms = (RawSymbol *) (gpointer) raw->data;

  for (gsize i = 0; i < raw->len; i++)
    if (n == 0 || syms[n - 1].begin != syms[i].begin)
      syms[n++] = syms[i];

  for (gsize i = 0; i < n; i++)
    {
      RawSymbol *sym = &syms[i];

      if (sym->size > 0)
        sym->end = sym->begin + sym->size < sym->begin ? G_MAXUINT64 : sym->begin + sym->size;
      else if (i + 1 < n && (sym->limit == 0 || syms[i + 1].begin < sym->limit))
        sym->end = syms[i + 1].begin;
      else if (sym->limit != 0)
        sym->end = sym->limit;
      else
        sym->end = sym->begin == G_MAXUINT64 ? G_MAXUINT64 : sym->begin + 1;
    }

  ranges = g_array_sized_new (FALSE, FALSE, sizeof (SysprofElfRange), n);
  stack = g_array_new (FALSE, FALSE, sizeof (gsize));
  names = g_string_sized_new (16 * n + 1);

  /* Sweep in address order: @stack holds the symbols still open at @pos,
   * innermost on top; everything before @pos has been emitted. */
  for (gsize i = 0; i <= n; i++)
    {
      guint64 next = i < n ? syms[i].begin : G_MAXUINT64;

      while (stack->len > 0)
        {
          RawSymbol *top = &syms[g_array_index (stack, gsize, stack->len - 1)];
          guint64    stop = MIN (top->end, next);

          if (stop > pos)
            {
              emit_range (ranges, names, top, pos, stop);
              pos = stop;
            }
          if (top->end <= next)
            g_array_set_size (stack, stack->len - 1);
          else
            break;
        }

      if (i < n && syms[i].end > syms[i].begin)
        {
          pos = next;
          g_array_append_val (stack, i);
        }
    }

  self->n_ranges = ranges->len;
  self->ranges = (SysprofElfRange *) (gpointer) g_array_free (ranges, FALSE);
  self->names = g_string_free (names, FALSE);
  g_array_free (stack, TRUE);
}

/* ------------------------------------------------------------------ */
/* Function ranges of the unwind tables                                 */

/* DW_EH_PE_* pointer encodings (LSB, "Exception Frames"): the low nibble is
 * the format, bits 4-6 what the value is relative to, 0x80 indirect. */
#define EH_PE_OMIT     0xffu
#define EH_PE_FORMAT   0x0fu
#define EH_PE_APPLY    0x70u
#define EH_PE_PCREL    0x10u
#define EH_PE_INDIRECT 0x80u

/* At most this many FDEs per file are kept: a few times the functions of
 * the largest libraries (libxul has about 300,000). */
#define MAX_FDES (4u << 20)

static gboolean
read_uleb (const guint8 **p, const guint8 *end, guint64 *value)
{
  guint64 v = 0;

  for (guint shift = 0; *p < end; shift += 7)
    {
      guint8 byte = *(*p)++;

      if (shift < 64)
        v |= (guint64) (byte & 0x7f) << shift;
      if ((byte & 0x80) == 0)
        {
          *value = v;
          return TRUE;
        }
    }
  return FALSE;
}

static gboolean
read_sleb (const guint8 **p, const guint8 *end, gint64 *value)
{
  guint64 v = 0;
  guint   shift = 0;

  while (*p < end)
    {
      guint8 byte = *(*p)++;

      if (shift < 64)
        v |= (guint64) (byte & 0x7f) << shift;
      shift += 7;
      if ((byte & 0x80) == 0)
        {
          if (shift < 64 && (byte & 0x40))
            v |= ~(guint64) 0 << shift;
          *value = (gint64) v;
          return TRUE;
        }
    }
  return FALSE;
}

/* Reads an unsigned or sign-extended integer of @size bytes in the file's
 * byte order. */
static gboolean
read_fixed (const guint8 **p, const guint8 *end, guint size, gboolean is_signed, gboolean msb, guint64 *value)
{
  guint64 v = 0;

  if ((gsize) (end - *p) < size)
    return FALSE;
  for (guint i = 0; i < size; i++)
    v |= (guint64) (*p)[msb ? i : size - 1 - i] << (8 * (size - 1 - i));
  if (is_signed && size < 8 && (v >> (8 * size - 1)) & 1)
    v |= ~(guint64) 0 << (8 * size);
  *p += size;
  *value = v;
  return TRUE;
}

/* A value in pointer encoding @enc (format only: what it is relative to is
 * the caller's business). */
static gboolean
read_encoded (const guint8 **p, const guint8 *end, guint enc, guint address_size, gboolean msb, guint64 *value)
{
  gint64 s;

  switch (enc & EH_PE_FORMAT)
    {
    case 0x00: return read_fixed (p, end, address_size, FALSE, msb, value);
    case 0x01: return read_uleb (p, end, value);
    case 0x02: return read_fixed (p, end, 2, FALSE, msb, value);
    case 0x03: return read_fixed (p, end, 4, FALSE, msb, value);
    case 0x04: return read_fixed (p, end, 8, FALSE, msb, value);
    case 0x09:
      if (!read_sleb (p, end, &s))
        return FALSE;
      *value = (guint64) s;
      return TRUE;
    case 0x0a: return read_fixed (p, end, 2, TRUE, msb, value);
    case 0x0b: return read_fixed (p, end, 4, TRUE, msb, value);
    case 0x0c: return read_fixed (p, end, 8, TRUE, msb, value);
    default: return FALSE;
    }
}

/* The FDE pointer encoding of a CIE of .eh_frame: its 'R' augmentation, or
 * absolute pointers.  G_MAXUINT when the augmentation cannot be followed
 * (its FDEs are then skipped). */
static guint
cie_fde_encoding (const Dwarf_CIE *cie, guint address_size, gboolean msb)
{
  const char   *aug = cie->augmentation;
  const guint8 *p = cie->augmentation_data;
  const guint8 *end;

  if (aug == NULL || aug[0] == '\0')
    return 0;
  if (aug[0] != 'z' || p == NULL)
    return G_MAXUINT;
  end = p + cie->augmentation_data_size;
  for (aug++; *aug != '\0'; aug++)
    {
      switch (*aug)
        {
        case 'R': return p < end ? *p : G_MAXUINT;
        case 'L':
          if (p >= end)
            return G_MAXUINT;
          p++;
          break;
        case 'P':
          {
            guint   enc;
            guint64 ignored;

            if (p >= end)
              return G_MAXUINT;
            enc = *p++;
            if (enc != EH_PE_OMIT && !read_encoded (&p, end, enc, address_size, msb, &ignored))
              return G_MAXUINT;
            break;
          }
        case 'S':
        case 'B':
        case 'G': break;
        default:
          /* Unknown: 'z' gave the data's size, but not where 'R' is. */
          return G_MAXUINT;
        }
    }
  return 0;
}

static int
compare_ranges (gconstpointer a, gconstpointer b)
{
  const SysprofElfRange *ra = a, *rb = b;

  if (ra->begin != rb->begin)
    return ra->begin < rb->begin ? -1 : 1;
  return ra->end < rb->end ? -1 : ra->end > rb->end;
}

/* Appends the [initial_location, + address_range) of every FDE of the CFI
 * section @scn (.eh_frame when @eh_frame, else .debug_frame) to @fdes.
 * Malformed entries are skipped, a malformed section ends the walk: the
 * ranges only group addresses that have no symbol, they are never needed. */
static void
read_fdes (Elf *elf, Elf_Scn *scn, const GElf_Shdr *shdr, gboolean eh_frame, GArray *fdes)
{
  const unsigned char *ident = (const unsigned char *) elf_getident (elf, NULL);
  g_autoptr (GHashTable) encodings = g_hash_table_new (NULL, NULL); /* CIE offset -> encoding + 1 */
  Elf_Data *data;
  Dwarf_Off offset = 0;
  guint     address_size;
  gboolean  msb;

  if (ident == NULL || (data = elf_getdata (scn, NULL)) == NULL || data->d_buf == NULL || data->d_size == 0)
    return;
  address_size = ident[EI_CLASS] == ELFCLASS32 ? 4 : 8;
  msb = ident[EI_DATA] == ELFDATA2MSB;

  while (fdes->len < MAX_FDES)
    {
      Dwarf_CFI_Entry entry;
      Dwarf_Off       next = 0;
      int             ret = dwarf_next_cfi (ident, data, eh_frame, offset, &next, &entry);

      if (ret > 0 || next <= offset || next == (Dwarf_Off) -1)
        break;
      if (ret == 0 && dwarf_cfi_cie_p (&entry))
        g_hash_table_insert (encodings, GSIZE_TO_POINTER ((gsize) offset),
                             GUINT_TO_POINTER (cie_fde_encoding (&entry.cie, address_size, msb) + 1));
      else if (ret == 0)
        {
          gpointer        found;
          guint           enc;
          const guint8   *p = entry.fde.start;
          const guint8   *end = entry.fde.end;
          guint64         begin, length;
          SysprofElfRange range;

          /* A CIE comes before its FDEs in the sections GCC and LLVM
           * write; an FDE whose CIE was not met is skipped. */
          if (!g_hash_table_lookup_extended (encodings, GSIZE_TO_POINTER ((gsize) entry.fde.CIE_pointer), NULL, &found))
            goto next;
          enc = GPOINTER_TO_UINT (found) - 1;
          if (enc == G_MAXUINT || (enc & EH_PE_INDIRECT) || p == NULL || end == NULL || p >= end)
            goto next;
          if ((enc & EH_PE_APPLY) != 0 && (enc & EH_PE_APPLY) != EH_PE_PCREL)
            goto next;
          if (!read_encoded (&p, end, enc, address_size, msb, &begin) ||
              !read_encoded (&p, end, enc & EH_PE_FORMAT, address_size, msb, &length))
            goto next;
          if ((enc & EH_PE_APPLY) == EH_PE_PCREL)
            begin += shdr->sh_addr + (guint64) (entry.fde.start - (const guint8 *) data->d_buf);
          if (address_size == 4)
            begin &= G_MAXUINT32;
          /* Zero-length FDEs (padding) and wrapping ones name nothing. */
          if (length == 0 || begin + length < begin)
            goto next;
          range.begin = begin;
          range.end = begin + length;
          range.name = 0;
          g_array_append_val (fdes, range);
        }
    next:
      offset = next;
    }
}

/* Sorts @fdes and makes them disjoint (a range overlapping the previous one
 * starts where that one ends). */
static void
finish_fdes (SysprofElf *self, GArray *fdes)
{
  SysprofElfRange *r;
  gsize            n = 0;

  g_array_sort (fdes, compare_ranges);
  r = (SysprofElfRange *) (gpointer) fdes->data;
  for (gsize i = 0; i < fdes->len; i++)
    {
      SysprofElfRange range = r[i];

      if (n > 0 && range.begin < r[n - 1].end)
        range.begin = r[n - 1].end;
      if (range.begin < range.end)
        r[n++] = range;
    }
  g_array_set_size (fdes, n);
  self->n_fdes = n;
  self->fdes = n > 0 ? g_memdup2 (r, n * sizeof *r) : NULL;
}

static gboolean
table_fits (guint64 offset, gsize n_entries, gsize entry_size, guint64 file_size)
{
  return entry_size > 0 && offset <= file_size && n_entries <= (file_size - offset) / entry_size;
}

static gboolean
parse_elf (SysprofElf *self, Elf *elf, guint64 file_size, const char *what, GError **error)
{
  g_autofree SectionRange *sections = NULL;
  g_autoptr (GArray) segments = NULL;
  g_autoptr (GArray) raw = NULL;
  const void *build_id = NULL;
  const char *debuglink;
  GElf_Ehdr   ehdr;
  GElf_Word   crc = 0;
  size_t      n_phdrs;
  size_t      n_sections;
  ssize_t     build_id_len;
  gsize       symtab = 0;
  gsize       dynsym = 0;
  gsize       eh_frame = 0;
  gsize       debug_frame = 0;
  size_t      shstrndx = 0;
  gboolean    has_names;
  const char *name;

  if (elf_kind (elf) != ELF_K_ELF)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "%s: not an ELF file", what);
      return FALSE;
    }
  if (gelf_getehdr (elf, &ehdr) == NULL)
    return set_invalid_libelf (error, what, "ELF header");

  /* The header tables must lie inside the file: libelf trims what does not
   * fit (down to nothing) rather than refusing it, and a truncated file is
   * refused here rather than half read.  PN_XNUM and e_shnum 0 with a table
   * mean the counts are in section 0. */
  if (elf_getphdrnum (elf, &n_phdrs) != 0)
    return set_invalid_libelf (error, what, "program headers");
  if (elf_getshdrnum (elf, &n_sections) != 0)
    return set_invalid_libelf (error, what, "section headers");
  if ((ehdr.e_phnum != PN_XNUM && n_phdrs != ehdr.e_phnum) || (ehdr.e_shoff == 0 && n_sections != 0) ||
      (ehdr.e_shoff != 0 && (ehdr.e_shnum == 0 ? n_sections == 0 : n_sections != ehdr.e_shnum)))
    return set_invalid (error, what, "header tables past the end of the file (truncated?)");
  if (n_phdrs > 0 && !table_fits (ehdr.e_phoff, n_phdrs, gelf_fsize (elf, ELF_T_PHDR, 1, EV_CURRENT), file_size))
    return set_invalid (error, what, "program headers past the end of the file (truncated?)");
  if (n_sections > 0 && !table_fits (ehdr.e_shoff, n_sections, gelf_fsize (elf, ELF_T_SHDR, 1, EV_CURRENT), file_size))
    return set_invalid (error, what, "section headers past the end of the file (truncated?)");

  segments = g_array_new (FALSE, FALSE, sizeof (SysprofElfSegment));
  for (size_t i = 0; i < n_phdrs; i++)
    {
      GElf_Phdr phdr;

      if (gelf_getphdr (elf, (int) i, &phdr) == NULL)
        return set_invalid_libelf (error, what, "program header");
      if (phdr.p_type == PT_LOAD && (phdr.p_flags & PF_X) && phdr.p_filesz > 0 &&
          phdr.p_offset + phdr.p_filesz > phdr.p_offset && phdr.p_vaddr + phdr.p_filesz > phdr.p_vaddr)
        {
          SysprofElfSegment seg = { phdr.p_offset, phdr.p_filesz, phdr.p_vaddr };
          g_array_append_val (segments, seg);
        }
    }

  has_names = elf_getshdrstrndx (elf, &shstrndx) == 0 && shstrndx != 0 && shstrndx < n_sections;

  /* So must every section. */
  sections = g_new0 (SectionRange, MAX (n_sections, 1));
  for (size_t i = 1; i < n_sections; i++)
    {
      Elf_Scn  *scn = elf_getscn (elf, i);
      GElf_Shdr shdr;

      if (scn == NULL || gelf_getshdr (scn, &shdr) == NULL)
        return set_invalid_libelf (error, what, "section header");
      if (shdr.sh_type != SHT_NOBITS && shdr.sh_type != SHT_NULL && shdr.sh_size > 0 &&
          (shdr.sh_offset > file_size || shdr.sh_size > file_size - shdr.sh_offset))
        return set_invalid (error, what, "a section extends past the end of the file (truncated?)");
      if ((shdr.sh_flags & SHF_ALLOC) && shdr.sh_addr + shdr.sh_size > shdr.sh_addr)
        {
          sections[i].begin = shdr.sh_addr;
          sections[i].end = shdr.sh_addr + shdr.sh_size;
        }
      if (shdr.sh_type == SHT_SYMTAB && symtab == 0)
        symtab = i;
      else if (shdr.sh_type == SHT_DYNSYM && dynsym == 0)
        dynsym = i;
      else if (shdr.sh_type == SHT_PROGBITS && has_names && (name = elf_strptr (elf, shstrndx, shdr.sh_name)) != NULL)
        {
          /* Compressed sections (SHF_COMPRESSED) are left to libdw. */
          if (strcmp (name, ".eh_frame") == 0 && eh_frame == 0)
            eh_frame = i;
          else if (strcmp (name, ".debug_frame") == 0 && debug_frame == 0 && (shdr.sh_flags & SHF_COMPRESSED) == 0)
            debug_frame = i;
          else if (strcmp (name, ".debug_info") == 0 && shdr.sh_size > 0)
            self->has_debug_info = TRUE;
        }
    }

  build_id_len = dwelf_elf_gnu_build_id (elf, &build_id);
  if (build_id_len > 0 && build_id_len <= MAX_BUILD_ID_BYTES && build_id != NULL)
    {
      static const char hex[] = "0123456789abcdef";
      const guint8     *bytes = build_id;

      self->build_id = g_malloc (2 * build_id_len + 1);
      for (ssize_t i = 0; i < build_id_len; i++)
        {
          self->build_id[2 * i] = hex[bytes[i] >> 4];
          self->build_id[2 * i + 1] = hex[bytes[i] & 0xf];
        }
      self->build_id[2 * build_id_len] = '\0';
    }

  /* The name becomes part of paths the loader opens: plain file names only. */
  debuglink = dwelf_elf_gnu_debuglink (elf, &crc);
  if (debuglink != NULL && debuglink[0] != '\0' && strnlen (debuglink, MAX_DEBUGLINK_LEN + 1) <= MAX_DEBUGLINK_LEN &&
      strchr (debuglink, '/') == NULL && strcmp (debuglink, ".") != 0 && strcmp (debuglink, "..") != 0)
    {
      self->debuglink = g_strdup (debuglink);
      self->debuglink_crc = crc;
    }

  raw = g_array_new (FALSE, FALSE, sizeof (RawSymbol));
  if (symtab != 0 && !read_symbol_table (elf, &ehdr, symtab, sections, n_sections, raw, what, error))
    return FALSE;
  if (raw->len == 0 && dynsym != 0 && !read_symbol_table (elf, &ehdr, dynsym, sections, n_sections, raw, what, error))
    return FALSE;
  build_ranges (self, raw);

  {
    g_autoptr (GArray) fdes = g_array_new (FALSE, FALSE, sizeof (SysprofElfRange));
    GElf_Shdr shdr;

    if (eh_frame != 0 && gelf_getshdr (elf_getscn (elf, eh_frame), &shdr) != NULL)
      read_fdes (elf, elf_getscn (elf, eh_frame), &shdr, TRUE, fdes);
    if (debug_frame != 0 && gelf_getshdr (elf_getscn (elf, debug_frame), &shdr) != NULL)
      read_fdes (elf, elf_getscn (elf, debug_frame), &shdr, FALSE, fdes);
    finish_fdes (self, fdes);
  }

  self->n_segments = segments->len;
  self->segments = (SysprofElfSegment *) (gpointer) g_array_free (g_steal_pointer (&segments), FALSE);

  return TRUE;
}

static SysprofElf *
sysprof_elf_alloc (const char *path)
{
  SysprofElf *self = g_new0 (SysprofElf, 1);

  g_atomic_ref_count_init (&self->ref_count);
  self->path = g_strdup (path);
  return self;
}

SysprofElf *
sysprof_elf_new_from_fd (int fd, const char *path, GError **error)
{
  g_autoptr (SysprofElf) self = NULL;
  struct stat st;
  Elf        *elf;
  gboolean    ok;

  g_return_val_if_fail (fd >= 0, NULL);
  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (fstat (fd, &st) != 0)
    {
      int errsv = errno;
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errsv), "%s: %s", path, g_strerror (errsv));
      return NULL;
    }
  if (S_ISDIR (st.st_mode))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_IS_DIRECTORY, "%s: is a directory, not an ELF file", path);
      return NULL;
    }
  if (!S_ISREG (st.st_mode))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_REGULAR_FILE, "%s: not a regular file", path);
      return NULL;
    }
  if (st.st_size == 0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "%s: empty file, not an ELF file", path);
      return NULL;
    }

  self = sysprof_elf_alloc (path);
  self->from_file = TRUE;
  self->dev = st.st_dev;
  self->inode = st.st_ino;
  self->size = st.st_size;
  self->mtime_sec = st.st_mtim.tv_sec;
  self->mtime_nsec = st.st_mtim.tv_nsec;

  ensure_libelf ();
  /* ELF_C_READ reads with pread what is asked for: no mapping that a
   * concurrent truncation could turn into SIGBUS. */
  if ((elf = elf_begin (fd, ELF_C_READ, NULL)) == NULL)
    {
      set_invalid_libelf (error, path, "opening");
      return NULL;
    }
  ok = parse_elf (self, elf, st.st_size, path, error);
  elf_end (elf);

  return ok ? g_steal_pointer (&self) : NULL;
}

SysprofElf *
sysprof_elf_new (const char *path, GError **error)
{
  SysprofElf *self;
  int         fd;

  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  /* O_NONBLOCK: a FIFO planted where a library was must not hang us. */
  if ((fd = open (path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)) < 0)
    {
      int errsv = errno;
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errsv), "%s: %s", path, g_strerror (errsv));
      return NULL;
    }
  self = sysprof_elf_new_from_fd (fd, path, error);
  close (fd);
  return self;
}

SysprofElf *
sysprof_elf_new_from_data (GBytes *bytes, GError **error)
{
  g_autoptr (SysprofElf) self = NULL;
  g_autofree char *copy = NULL;
  const guint8    *data;
  gsize            size;
  Elf             *elf;
  gboolean         ok;

  g_return_val_if_fail (bytes != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  data = g_bytes_get_data (bytes, &size);
  if (size == 0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "ELF data: empty, not an ELF file");
      return NULL;
    }

  self = sysprof_elf_alloc (NULL);

  /* libelf may convert a foreign-endian image in place: give it a private
   * copy, which lives only while parsing. */
  copy = g_memdup2 (data, size);
  ensure_libelf ();
  if ((elf = elf_memory (copy, size)) == NULL)
    {
      set_invalid_libelf (error, "ELF data", "opening");
      return NULL;
    }
  ok = parse_elf (self, elf, size, "ELF data", error);
  elf_end (elf);

  return ok ? g_steal_pointer (&self) : NULL;
}

SysprofElf *
sysprof_elf_ref (SysprofElf *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  g_atomic_ref_count_inc (&self->ref_count);
  return self;
}

void
sysprof_elf_unref (SysprofElf *self)
{
  if (self == NULL || !g_atomic_ref_count_dec (&self->ref_count))
    return;

  g_clear_pointer (&self->debug, sysprof_elf_unref);
  g_free (self->path);
  g_free (self->build_id);
  g_free (self->debuglink);
  g_free (self->segments);
  g_free (self->ranges);
  g_free (self->names);
  g_free (self->fdes);
  g_clear_pointer (&self->dwarf, sysprof_dwarf_unref);
  g_free (self);
}

const char *
sysprof_elf_get_path (SysprofElf *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  return self->path;
}

const char *
sysprof_elf_get_build_id (SysprofElf *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  return self->build_id;
}

const char *
sysprof_elf_get_debuglink (SysprofElf *self, guint32 *crc)
{
  g_return_val_if_fail (self != NULL, NULL);

  if (crc != NULL)
    *crc = self->debuglink_crc;
  return self->debuglink;
}

guint64
sysprof_elf_get_inode (SysprofElf *self)
{
  g_return_val_if_fail (self != NULL, 0);

  return self->inode;
}

gboolean
sysprof_elf_is_same_file (SysprofElf *self, const struct stat *st)
{
  g_return_val_if_fail (self != NULL, FALSE);
  g_return_val_if_fail (st != NULL, FALSE);

  return self->from_file && self->dev == (guint64) st->st_dev && self->inode == (guint64) st->st_ino &&
         self->size == (guint64) st->st_size && self->mtime_sec == st->st_mtim.tv_sec &&
         self->mtime_nsec == st->st_mtim.tv_nsec;
}

gboolean
sysprof_elf_has_symbols (SysprofElf *self)
{
  g_return_val_if_fail (self != NULL, FALSE);

  return self->n_ranges > 0;
}

gboolean
sysprof_elf_file_offset_to_vaddr (SysprofElf *self, guint64 file_offset, guint64 *vaddr)
{
  g_return_val_if_fail (self != NULL, FALSE);

  for (guint i = 0; i < self->n_segments; i++)
    {
      const SysprofElfSegment *seg = &self->segments[i];

      if (file_offset >= seg->offset && file_offset - seg->offset < seg->filesz)
        {
          if (vaddr != NULL)
            *vaddr = seg->vaddr + (file_offset - seg->offset);
          return TRUE;
        }
    }

  return FALSE;
}

const char *
sysprof_elf_lookup (SysprofElf *self, guint64 vaddr, guint64 *begin, guint64 *end)
{
  const SysprofElf *table;
  gsize             lo = 0;
  gsize             hi;

  g_return_val_if_fail (self != NULL, NULL);

  table = self->debug != NULL && self->debug->n_ranges > 0 ? self->debug : self;

  /* The last range starting at or before @vaddr. */
  hi = table->n_ranges;
  while (lo < hi)
    {
      gsize mid = lo + (hi - lo) / 2;

      if (table->ranges[mid].begin <= vaddr)
        lo = mid + 1;
      else
        hi = mid;
    }
  if (lo == 0 || vaddr >= table->ranges[lo - 1].end)
    return NULL;

  if (begin != NULL)
    *begin = table->ranges[lo - 1].begin;
  if (end != NULL)
    *end = table->ranges[lo - 1].end;
  return table->names + table->ranges[lo - 1].name;
}

/* The last range of @ranges starting at or before @vaddr: its index + 1,
 * 0 when none does. */
static gsize
range_before (const SysprofElfRange *ranges, gsize n, guint64 vaddr)
{
  gsize lo = 0, hi = n;

  while (lo < hi)
    {
      gsize mid = lo + (hi - lo) / 2;

      if (ranges[mid].begin <= vaddr)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo;
}

gboolean
sysprof_elf_lookup_unnamed (SysprofElf *self, guint64 vaddr, guint64 *begin, guint64 *end)
{
  const SysprofElf *table;
  guint64           gap_begin = 0, gap_end = G_MAXUINT64;
  guint64           b, e;
  gsize             i;

  g_return_val_if_fail (self != NULL, FALSE);

  table = self->debug != NULL && self->debug->n_ranges > 0 ? self->debug : self;

  /* The gap between the named functions around @vaddr. */
  i = range_before (table->ranges, table->n_ranges, vaddr);
  if (i > 0)
    {
      if (vaddr < table->ranges[i - 1].end)
        return FALSE; /* named */
      gap_begin = table->ranges[i - 1].end;
    }
  if (i < table->n_ranges)
    gap_end = table->ranges[i].begin;

  /* The FDE holding it, cut to the gap; else the gap itself, cut to the
   * executable segment, when there is a function on either side. */
  i = range_before (self->fdes, self->n_fdes, vaddr);
  if (i > 0 && vaddr < self->fdes[i - 1].end)
    {
      b = MAX (self->fdes[i - 1].begin, gap_begin);
      e = MIN (self->fdes[i - 1].end, gap_end);
    }
  else
    {
      const SysprofElfSegment *seg = NULL;

      if (table->n_ranges == 0)
        return FALSE;
      for (guint s = 0; s < self->n_segments && seg == NULL; s++)
        if (vaddr >= self->segments[s].vaddr && vaddr - self->segments[s].vaddr < self->segments[s].filesz)
          seg = &self->segments[s];
      if (seg == NULL)
        return FALSE;
      b = MAX (gap_begin, seg->vaddr);
      e = MIN (gap_end, seg->vaddr + seg->filesz);
      /* Between the FDEs that surround it, when there are any. */
      if (i > 0)
        b = MAX (b, self->fdes[i - 1].end);
      if (i < self->n_fdes)
        e = MIN (e, self->fdes[i].begin);
    }
  if (b > vaddr || e <= vaddr)
    return FALSE;
  if (begin != NULL)
    *begin = b;
  if (end != NULL)
    *end = e;
  return TRUE;
}

void
sysprof_elf_set_debug_file (SysprofElf *self, SysprofElf *debug)
{
  g_return_if_fail (self != NULL);
  g_return_if_fail (debug != self);

  if (debug != NULL)
    sysprof_elf_ref (debug);
  g_clear_pointer (&self->debug, sysprof_elf_unref);
  self->debug = debug;
}

SysprofElf *
sysprof_elf_get_debug_file (SysprofElf *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  return self->debug;
}

static SysprofDwarf *
open_dwarf (SysprofElf *self)
{
  SysprofDwarf *dwarf = NULL;
  struct stat   st;
  int           fd;

  if (!self->has_debug_info || !self->from_file || self->path == NULL)
    return NULL;
  if ((fd = open (self->path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)) < 0)
    return NULL;
  /* Only the file whose symbols were read: its addresses are the ones the
   * debug info must describe. */
  if (fstat (fd, &st) == 0 && sysprof_elf_is_same_file (self, &st))
    dwarf = sysprof_dwarf_new_from_fd (fd, self->path, NULL);
  close (fd);
  return dwarf;
}

SysprofDwarf *
sysprof_elf_get_dwarf (SysprofElf *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  if (!self->dwarf_tried)
    {
      self->dwarf_tried = TRUE;
      if (self->debug != NULL)
        self->dwarf = open_dwarf (self->debug);
      if (self->dwarf == NULL)
        self->dwarf = open_dwarf (self);
    }
  return self->dwarf;
}

const char *
sysprof_elf_get_debug_path (SysprofElf *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  return self->debug != NULL ? self->debug->path : NULL;
}

gboolean
sysprof_elf_crc32_file (int fd, guint32 *crc, GError **error)
{
  g_autofree guint8 *buf = NULL;
  const gsize        buf_size = 256 * 1024;
  guint32            c = 0;
  off_t              offset = 0;

  g_return_val_if_fail (fd >= 0, FALSE);
  g_return_val_if_fail (crc != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  buf = g_malloc (buf_size);
  for (;;)
    {
      ssize_t n = pread (fd, buf, buf_size, offset);

      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        {
          int errsv = errno;
          g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errsv), "Reading a file for its CRC-32: %s",
                       g_strerror (errsv));
          return FALSE;
        }
      if (n == 0)
        break;
      c = (guint32) crc32 (c, buf, (uInt) n);
      offset += n;
    }

  *crc = c;
  return TRUE;
}
