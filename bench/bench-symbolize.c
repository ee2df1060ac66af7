// SPDX-License-Identifier: GPL-3.0-or-later
/* Symbolization with inline frames and source lines against names only, on
 * the same capture in the same run.
 *
 *   bench-symbolize [-r REPS] CAPTURE
 *
 * The distinct (pid, context, address) of the capture's SAMPLE frames are
 * collected once (not timed) and sorted as the callgraph sorts them.  Then,
 * REPS times, alternating which goes first, each with a new symbolizer
 * loaded from the capture (loading is timed too, as a report pays it):
 *   names   sysprof_symbolizer_lookup_range on every address not inside the
 *           previous answer's range: the pass of the callgraph before libdw
 *           frames;
 *   frames  sysprof_symbolizer_lookup_frames likewise, and for return
 *           addresses (every user frame but the innermost) with debug info
 *           a second lookup at the call before them, as the callgraph does
 *           now: inline frames and lines from DWARF.
 * Prints the median wall time of each and their ratio.  Use a capture
 * without an embedded table (sysprof-cli --no-decode), else both read the
 * table and measure nothing of libdw. */

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sysprof.h>

typedef struct
{
  gint32   pid;
  guint32  context;
  guint64  address;
  gint64   time;
  gboolean caller;
} Site;

static int
compare_sites (gconstpointer a, gconstpointer b)
{
  const Site *sa = a, *sb = b;

  if (sa->pid != sb->pid)
    return sa->pid < sb->pid ? -1 : 1;
  if (sa->context != sb->context)
    return sa->context < sb->context ? -1 : 1;
  if (sa->caller != sb->caller)
    return sa->caller < sb->caller ? -1 : 1;
  return sa->address < sb->address ? -1 : sa->address > sb->address;
}

static guint
site_hash (gconstpointer data)
{
  const Site *s = data;

  return (guint) (s->address * 2654435761u) ^ (guint) s->pid ^ (s->caller << 7) ^ (s->context << 9);
}

static gboolean
site_equal (gconstpointer a, gconstpointer b)
{
  const Site *sa = a, *sb = b;

  return sa->pid == sb->pid && sa->address == sb->address && sa->caller == sb->caller && sa->context == sb->context;
}

static GArray *
collect (const char *path)
{
  SysprofCaptureReader *reader = sysprof_capture_reader_new (path);
  g_autoptr (GHashTable) set = g_hash_table_new_full (site_hash, site_equal, g_free, NULL);
  GArray                 *sites = g_array_new (FALSE, FALSE, sizeof (Site));
  SysprofCaptureFrameType type;
  GHashTableIter          iter;
  gpointer                key;

  if (reader == NULL)
    {
      g_printerr ("bench-symbolize: cannot read %s\n", path);
      exit (1);
    }
  while (sysprof_capture_reader_peek_type (reader, &type))
    {
      const SysprofCaptureSample *s;
      SysprofAddressContext       context = SYSPROF_ADDRESS_CONTEXT_NONE;
      gboolean                    caller = FALSE;

      if (type != SYSPROF_CAPTURE_FRAME_SAMPLE)
        {
          if (!sysprof_capture_reader_skip (reader))
            break;
          continue;
        }
      if ((s = sysprof_capture_reader_read_sample (reader)) == NULL)
        break;
      for (guint i = 0; i < s->n_addrs; i++)
        {
          SysprofCaptureAddress addr;
          SysprofAddressContext marker;
          Site                  site;

          memcpy (&addr, (const guint8 *) s + sizeof *s + 8 * i, 8);
          if (sysprof_address_is_context_switch (addr, &marker))
            {
              context = marker;
              caller = FALSE;
              continue;
            }
          if (addr == 0)
            continue;
          site =
              (Site){ s->frame.pid, context, addr, s->frame.time,
                      caller && (context == SYSPROF_ADDRESS_CONTEXT_USER || context == SYSPROF_ADDRESS_CONTEXT_NONE) };
          if (!g_hash_table_contains (set, &site))
            g_hash_table_add (set, g_memdup2 (&site, sizeof site));
          caller = TRUE;
        }
    }
  g_hash_table_iter_init (&iter, set);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    g_array_append_vals (sites, key, 1);
  g_array_sort (sites, compare_sites);
  sysprof_capture_reader_unref (reader);
  return sites;
}

static double
now (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* One pass; returns its wall time, and in @lookups the lookups made. */
static double
pass (const char *path, GArray *sites, gboolean frames, guint64 *lookups, guint64 *n_frames)
{
  double start = now ();
  g_autoptr (GError) error = NULL;
  SysprofSymbolizer    *symbolizer = sysprof_symbolizer_new ();
  SysprofCaptureReader *reader = sysprof_capture_reader_new (path);
  guint64               begin = 1, end = 0;
  gint32                last_pid = -1;
  guint32               last_group = G_MAXUINT32;
  double                elapsed;

  *lookups = *n_frames = 0;
  if (!sysprof_symbolizer_load (symbolizer, reader, &error))
    {
      g_printerr ("bench-symbolize: %s\n", error->message);
      exit (1);
    }
  for (guint i = 0; i < sites->len; i++)
    {
      const Site *s = &g_array_index (sites, Site, i);
      guint32     group = s->context | (s->caller << 3);

      if (s->pid == last_pid && group == last_group && begin <= s->address && s->address < end)
        continue;
      last_pid = s->pid;
      last_group = group;
      (*lookups)++;
      if (!frames)
        (void) sysprof_symbolizer_lookup_range (symbolizer, s->pid, s->time, s->context, s->address, &begin, &end);
      else
        {
          const SysprofSymbolFrame *const *f = NULL;
          guint                            n =
              sysprof_symbolizer_lookup_frames (symbolizer, s->pid, s->time, s->context, s->address, &f, &begin, &end);

          if (s->caller && n > 0 && (n > 1 || f[0]->file != NULL))
            {
              const SysprofSymbolFrame *const *call = NULL;
              guint64                          cb, ce;

              n = sysprof_symbolizer_lookup_frames (symbolizer, s->pid, s->time, s->context, s->address - 1, &call, &cb,
                                                    &ce);
              begin = MAX (begin, cb + 1);
              end = MIN (end, ce + 1);
            }
          *n_frames += n;
        }
      if (begin > s->address || end <= s->address)
        begin = s->address, end = s->address + 1;
    }
  elapsed = now () - start;
  g_object_unref (symbolizer);
  sysprof_capture_reader_unref (reader);
  return elapsed;
}

static int
compare_double (gconstpointer a, gconstpointer b)
{
  double da = *(const double *) a, db = *(const double *) b;

  return da < db ? -1 : da > db;
}

int
main (int argc, char **argv)
{
  g_autoptr (GArray) sites = NULL;
  guint   reps = 5;
  double *names, *frames;
  guint64 lookups_names = 0, lookups_frames = 0, n_frames = 0, ignored;
  int     arg = 1;

  if (argc > 2 && strcmp (argv[1], "-r") == 0)
    {
      reps = (guint) MAX (1, atoi (argv[2]));
      arg = 3;
    }
  if (arg != argc - 1)
    {
      g_printerr ("usage: bench-symbolize [-r REPS] CAPTURE\n");
      return 2;
    }
  sites = collect (argv[arg]);
  names = g_new (double, reps);
  frames = g_new (double, reps);
  /* A warm-up of each: the page cache holds the files after it. */
  pass (argv[arg], sites, FALSE, &ignored, &ignored);
  pass (argv[arg], sites, TRUE, &ignored, &ignored);
  for (guint r = 0; r < reps; r++)
    {
      if (r % 2 == 0)
        {
          names[r] = pass (argv[arg], sites, FALSE, &lookups_names, &ignored);
          frames[r] = pass (argv[arg], sites, TRUE, &lookups_frames, &n_frames);
        }
      else
        {
          frames[r] = pass (argv[arg], sites, TRUE, &lookups_frames, &n_frames);
          names[r] = pass (argv[arg], sites, FALSE, &lookups_names, &ignored);
        }
    }
  qsort (names, reps, sizeof *names, compare_double);
  qsort (frames, reps, sizeof *frames, compare_double);
  g_print ("sites=%u names_lookups=%" G_GUINT64_FORMAT " frames_lookups=%" G_GUINT64_FORMAT
           " frames_per_lookup=%.2f names_s=%.3f frames_s=%.3f ratio=%.2f\n",
           sites->len, lookups_names, lookups_frames, lookups_frames ? (double) n_frames / lookups_frames : 0.0,
           names[reps / 2], frames[reps / 2], frames[reps / 2] / names[reps / 2]);
  g_free (names);
  g_free (frames);
  return 0;
}
