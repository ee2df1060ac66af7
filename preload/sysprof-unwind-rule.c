// SPDX-License-Identifier: GPL-3.0-or-later
/* Built against libunwind's generic (remote-capable) flavour: the local one
 * cannot have an address space of our own.  No UNW_LOCAL_ONLY here. */
#define _GNU_SOURCE 1

#include <link.h>
#include <pthread.h>
#include <string.h>

/* x86-64 only: the rules are in terms of its rsp and rbp. */
#if defined(HAVE_LIBUNWIND_GENERIC) && defined(__x86_64__)
#define LEARN_RULES 1
#include <libunwind.h>
#endif

#include "sysprof-unwind-rule.h"

#ifdef LEARN_RULES

/* libunwind's binary search in an .eh_frame_hdr table, exported by the
 * generic library but not declared by its headers. */
extern int _Ux86_64_dwarf_search_unwind_table (
    unw_addr_space_t as, unw_word_t ip, unw_dyn_info_t *di, unw_proc_info_t *pi, int need_unwind_info, void *arg);

/* The fake stack: nothing is read there for real, access_mem answers.  A
 * word of the lower half reads as WORD_VALUE (its address), an address in
 * the upper half, scrambled (a XOR) so that a CFA loaded from memory does not
 * move with the register it was loaded through; a word of the upper half
 * reads as its own address, so that every pointer followed stays inside. */
#define FAKE_LO          UINT64_C (0x100000000000)
#define FAKE_SIZE        UINT64_C (0x100000000)
#define FAKE_HALF        (FAKE_SIZE / 2)
#define SCRAMBLE         UINT64_C (0x35A5A5A8)
#define WORD_VALUE(addr) (FAKE_LO + FAKE_HALF + (((addr) -FAKE_LO) ^ SCRAMBLE))
#define VALUE_ADDRESS(v) (FAKE_LO + (((v) -FAKE_LO - FAKE_HALF) ^ SCRAMBLE))
#define IS_WORD_VALUE(v) ((v) >= FAKE_LO + FAKE_HALF && (v) < FAKE_LO + FAKE_SIZE)
/* No compiled frame is this large (a thread's whole stack is 8 MiB). */
#define MAX_FRAME    (16 * 1024 * 1024)
#define MAX_SEGMENTS 16
/* Where the made-up registers point, and how far the probes move them. */
#define RSP_AT   (FAKE_LO + 0x1000000)
#define RBP_AT   (FAKE_LO + 0x4000000)
#define OTHER_AT (FAKE_LO + 0x8000000)
#define MOVE     0x10000

typedef struct
{
  uintptr_t start, end;
} Segment;

/* What one step may use: the registers, and the object's loaded segments
 * (its unwind tables, its code) found by find_proc_info. */
typedef struct
{
  unw_word_t rip, rsp, rbp, other;
  Segment    segments[MAX_SEGMENTS];
  int        n_segments;
  bool       found;   /* unwind info was found for rip */
  bool       refused; /* something else was asked for */
} Probe;

typedef struct
{
  uintptr_t      ip;
  Probe         *probe;
  unw_dyn_info_t di;
  bool           ok;
} Find;

static unw_addr_space_t space;
static pthread_once_t   space_once = PTHREAD_ONCE_INIT;

/* Reads a DW_EH_PE-encoded value of .eh_frame_hdr (the encodings it uses). */
static bool
read_encoded (const uint8_t **p, uint8_t encoding, uintptr_t hdr, uintptr_t *value)
{
  const uint8_t *q = *p;
  uintptr_t      v;

  switch (encoding & 0x0F)
    {
    case 0x03: /* udata4 */
      {
        uint32_t x;

        memcpy (&x, q, 4);
        v = x;
        q += 4;
        break;
      }
    case 0x0B: /* sdata4 */
      {
        int32_t x;

        memcpy (&x, q, 4);
        v = (uintptr_t) (intptr_t) x;
        q += 4;
        break;
      }
    case 0x04: /* udata8 */
    case 0x0C: /* sdata8 */
      {
        uint64_t x;

        memcpy (&x, q, 8);
        v = (uintptr_t) x;
        q += 8;
        break;
      }
    default: return false;
    }
  switch (encoding & 0x70)
    {
    case 0x00: break;
    case 0x10: v += (uintptr_t) *p; break; /* pcrel */
    case 0x30: v += hdr; break;            /* datarel */
    default: return false;
    }
  *p = q;
  *value = v;
  return true;
}

static int
find_object_cb (struct dl_phdr_info *info, size_t size, void *data)
{
  Find *find = data;
  const ElfW (Phdr) *eh = NULL;
  const uint8_t *hdr, *p;
  uintptr_t      text_start = 0, text_end = 0, eh_frame, count;
  bool           inside = false;

  (void) size;
  for (int i = 0; i < info->dlpi_phnum; i++)
    {
      const ElfW (Phdr) *ph = &info->dlpi_phdr[i];
      uintptr_t start = info->dlpi_addr + ph->p_vaddr, end = start + ph->p_memsz;

      if (ph->p_type == PT_GNU_EH_FRAME)
        eh = ph;
      if (ph->p_type != PT_LOAD)
        continue;
      if (find->ip >= start && find->ip < end)
        {
          inside = true;
          text_start = start;
          text_end = end;
        }
    }
  if (!inside)
    return 0;
  if (eh == NULL)
    return 1;
  for (int i = 0; i < info->dlpi_phnum && find->probe->n_segments < MAX_SEGMENTS; i++)
    {
      const ElfW (Phdr) *ph = &info->dlpi_phdr[i];

      if (ph->p_type == PT_LOAD)
        find->probe->segments[find->probe->n_segments++] =
            (Segment){ info->dlpi_addr + ph->p_vaddr, info->dlpi_addr + ph->p_vaddr + ph->p_memsz };
    }
  /* version 1; the table sorted, of (sdata4, sdata4) relative to hdr. */
  hdr = (const uint8_t *) (info->dlpi_addr + eh->p_vaddr);
  p = hdr + 4;
  if (hdr[0] != 1 || hdr[3] != 0x3B || !read_encoded (&p, hdr[1], (uintptr_t) hdr, &eh_frame) ||
      !read_encoded (&p, hdr[2], (uintptr_t) hdr, &count))
    return 1;
  memset (&find->di, 0, sizeof find->di);
  find->di.format = UNW_INFO_FORMAT_REMOTE_TABLE;
  find->di.start_ip = text_start;
  find->di.end_ip = text_end;
  find->di.u.rti.segbase = (unw_word_t) hdr;
  find->di.u.rti.table_data = (unw_word_t) p;
  find->di.u.rti.table_len = count * 8 / sizeof (unw_word_t);
  find->ok = true;
  return 1;
}

static int
find_proc_info (unw_addr_space_t as, unw_word_t ip, unw_proc_info_t *pi, int need_unwind_info, void *arg)
{
  Probe *probe = arg;
  Find   find = { .ip = ip, .probe = probe };
  int    ret;

  probe->n_segments = 0;
  dl_iterate_phdr (find_object_cb, &find);
  if (!find.ok)
    return -UNW_ENOINFO;
  ret = _Ux86_64_dwarf_search_unwind_table (as, ip, &find.di, pi, need_unwind_info, arg);
  if (ret >= 0)
    probe->found = true;
  return ret;
}

static void
put_unwind_info (unw_addr_space_t as, unw_proc_info_t *pi, void *arg)
{
  (void) as, (void) pi, (void) arg;
}

static int
get_dyn_info_list_addr (unw_addr_space_t as, unw_word_t *addr, void *arg)
{
  (void) as, (void) addr, (void) arg;
  return -UNW_ENOINFO;
}

static int
access_mem (unw_addr_space_t as, unw_word_t addr, unw_word_t *value, int write, void *arg)
{
  Probe *probe = arg;

  (void) as;
  if (write)
    {
      probe->refused = true;
      return -UNW_EINVAL;
    }
  if (addr >= FAKE_LO && addr < FAKE_LO + FAKE_SIZE)
    {
      *value = addr < FAKE_LO + FAKE_HALF ? WORD_VALUE (addr) : addr;
      return 0;
    }
  /* Real memory only where the unwind tables and the code are. */
  for (int i = 0; i < probe->n_segments; i++)
    if (addr >= probe->segments[i].start && addr + sizeof *value <= probe->segments[i].end)
      {
        memcpy (value, (const void *) (uintptr_t) addr, sizeof *value);
        return 0;
      }
  probe->refused = true;
  return -UNW_EINVAL;
}

static int
access_reg (unw_addr_space_t as, unw_regnum_t reg, unw_word_t *value, int write, void *arg)
{
  Probe *probe = arg;

  (void) as;
  if (write)
    {
      probe->refused = true;
      return -UNW_EINVAL;
    }
  switch (reg)
    {
    case UNW_X86_64_RIP: *value = probe->rip; break;
    case UNW_X86_64_RSP: *value = probe->rsp; break;
    case UNW_X86_64_RBP: *value = probe->rbp; break;
    default: *value = probe->other + (unw_word_t) reg * 0x100; break;
    }
  return 0;
}

static int
access_fpreg (unw_addr_space_t as, unw_regnum_t reg, unw_fpreg_t *value, int write, void *arg)
{
  (void) as, (void) reg, (void) value, (void) write;
  ((Probe *) arg)->refused = true;
  return -UNW_EINVAL;
}

static int
resume (unw_addr_space_t as, unw_cursor_t *cursor, void *arg)
{
  (void) as, (void) cursor;
  ((Probe *) arg)->refused = true;
  return -UNW_EINVAL;
}

static int
get_proc_name (unw_addr_space_t as, unw_word_t addr, char *buf, size_t len, unw_word_t *offset, void *arg)
{
  (void) as, (void) addr, (void) buf, (void) len, (void) offset, (void) arg;
  return -UNW_ENOINFO;
}

static void
space_init (void)
{
  static unw_accessors_t accessors = {
    .find_proc_info = find_proc_info,
    .put_unwind_info = put_unwind_info,
    .get_dyn_info_list_addr = get_dyn_info_list_addr,
    .access_mem = access_mem,
    .access_reg = access_reg,
    .access_fpreg = access_fpreg,
    .resume = resume,
    .get_proc_name = get_proc_name,
  };

  if ((space = unw_create_addr_space (&accessors, 0)) != NULL)
    /* Our own cache is the rules: libunwind's would need locks. */
    unw_set_caching_policy (space, UNW_CACHE_NONE);
}

typedef struct
{
  int        ret; /* unw_step's: 0 at the outermost frame */
  unw_word_t ip, cfa, rbp;
  bool       rbp_in_memory;
  unw_word_t rbp_at;
} Step;

/* One step from the registers given, or false when it used anything else. */
static bool
step (unw_word_t rip, unw_word_t rsp, unw_word_t rbp, unw_word_t other, Step *out)
{
  Probe          probe = { .rip = rip, .rsp = rsp, .rbp = rbp, .other = other };
  unw_cursor_t   cursor;
  unw_save_loc_t loc;

  if (unw_init_remote (&cursor, space, &probe) < 0)
    return false;
  out->ret = unw_step (&cursor);
  if (out->ret < 0 || !probe.found || probe.refused)
    return false;
  if (out->ret == 0)
    return true;
  if (unw_get_reg (&cursor, UNW_REG_IP, &out->ip) < 0 || unw_get_reg (&cursor, UNW_REG_SP, &out->cfa) < 0 ||
      unw_get_reg (&cursor, UNW_X86_64_RBP, &out->rbp) < 0 || unw_get_save_loc (&cursor, UNW_X86_64_RBP, &loc) < 0)
    return false;
  out->rbp_in_memory = loc.type == UNW_SLT_MEMORY;
  out->rbp_at = out->rbp_in_memory ? loc.u.addr : 0;
  return !probe.refused;
}

/* Checks one step against the rule it suggests: return address read at
 * CFA - 8, rbp read at CFA + offset or unchanged. */
static bool
step_fits (const Step *s, unw_word_t rbp_in, bool *rbp_saved, int64_t *rbp_offset)
{
  if (!IS_WORD_VALUE (s->ip) || VALUE_ADDRESS (s->ip) != s->cfa - 8)
    return false;
  if (s->rbp_in_memory)
    {
      if (!IS_WORD_VALUE (s->rbp) || VALUE_ADDRESS (s->rbp) != s->rbp_at)
        return false;
      *rbp_saved = true;
      *rbp_offset = (int64_t) (s->rbp_at - s->cfa);
      return true;
    }
  *rbp_saved = false;
  return s->rbp == rbp_in;
}

bool
sysprof_unwind_rule_available (void)
{
  return true;
}

SysprofUnwindRule
sysprof_unwind_rule_learn (uint64_t return_address)
{
  SysprofUnwindRule rule = { .kind = SYSPROF_UNWIND_RULE_FALLBACK };
  /* The rule of the call instruction, which ends just before. */
  unw_word_t ip = return_address - 1;
  Step       a, b, c, d;
  bool       saved_a, saved_b, saved_c;
  int64_t    off_a = 0, off_b = 0, off_c = 0, cfa_offset;

  pthread_once (&space_once, space_init);
  if (space == NULL || return_address < 2)
    return rule;
  if (!step (ip, RSP_AT, RBP_AT, OTHER_AT, &a) || !step (ip, RSP_AT + MOVE, RBP_AT, OTHER_AT, &b) ||
      !step (ip, RSP_AT, RBP_AT + MOVE, OTHER_AT, &c) || !step (ip, RSP_AT, RBP_AT, OTHER_AT + MOVE, &d))
    return rule;
  if (a.ret == 0 || b.ret == 0 || c.ret == 0 || d.ret == 0)
    {
      if (a.ret == 0 && b.ret == 0 && c.ret == 0 && d.ret == 0)
        rule.kind = SYSPROF_UNWIND_RULE_LAST;
      return rule;
    }
  /* The other registers play no part. */
  if (d.cfa != a.cfa || d.ip != a.ip || d.rbp != a.rbp)
    return rule;
  /* The CFA moves with exactly one of rsp and rbp, by as much. */
  if (b.cfa == a.cfa + MOVE && c.cfa == a.cfa)
    cfa_offset = (int64_t) (a.cfa - RSP_AT);
  else if (c.cfa == a.cfa + MOVE && b.cfa == a.cfa)
    {
      cfa_offset = (int64_t) (a.cfa - RBP_AT);
      rule.cfa_rbp = 1;
    }
  else
    return rule;
  if (!step_fits (&a, RBP_AT, &saved_a, &off_a) || !step_fits (&b, RBP_AT, &saved_b, &off_b) ||
      !step_fits (&c, RBP_AT + MOVE, &saved_c, &off_c) || saved_a != saved_b || saved_a != saved_c ||
      (saved_a && (off_a != off_b || off_a != off_c)))
    return rule;
  /* A frame is above the stack pointer; the saved rbp below the CFA. */
  if (cfa_offset <= 0 || cfa_offset > MAX_FRAME || cfa_offset % 8 != 0 ||
      (saved_a && (off_a >= 0 || off_a < INT16_MIN || off_a % 8 != 0)))
    return rule;
  rule.kind = SYSPROF_UNWIND_RULE_STANDARD;
  rule.cfa_offset = (int32_t) cfa_offset;
  rule.rbp_saved = saved_a;
  rule.rbp_offset = (int16_t) (saved_a ? off_a : 0);
  return rule;
}

#else

bool
sysprof_unwind_rule_available (void)
{
  return false;
}

SysprofUnwindRule
sysprof_unwind_rule_learn (uint64_t return_address)
{
  SysprofUnwindRule rule = { .kind = SYSPROF_UNWIND_RULE_FALLBACK };

  (void) return_address;
  return rule;
}

#endif
