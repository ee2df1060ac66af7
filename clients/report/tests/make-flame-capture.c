// SPDX-License-Identifier: GPL-3.0-or-later
/* make-flame-capture OUT.syscap OUT.names: a capture of CPU samples whose
 * functions have hostile names (markup, "]]>", quotes, entities, control
 * characters, invalid UTF-8, U+FFFF, a URL's delimiters, regular
 * expression syntax, a long name), named by JITMAP entries, in one process
 * whose command line is hostile too.  The stacks come from a fixed
 * pseudo-random sequence, with recursion.
 *
 * OUT.names says what the flame graph must show, one line each, fields
 * separated by tabs, names in hex (they hold tabs and line breaks):
 *   function NAME_HEX SAMPLES   samples with NAME anywhere on their stack
 *   process  NAME_HEX SAMPLES
 *   total    SAMPLES */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <sysprof-capture.h>

#define N_SAMPLES 600
#define MAX_DEPTH 8
#define PID       4242
#define MS        1000000LL

/* The first is every stack's outermost frame; "recurse" calls itself. */
static const char *const names[] = {
  "main",
  "<script>alert('x')</script>",
  "a && b < c > d",
  "]]> <![CDATA[ not data ]]>",
  "\"double\" 'single' &amp; &#38; &lt;",
  "ctrl\x01\x1f invalid \xff"
  " byte",
  "line\nbreak\ttab",
  "std::map<std::string, std::vector<int>>::operator[](const std::string&)",
  "--> <!-- comment -- -->",
  "regex (a|b)*+?[x]{2}\\d $^ . \\",
  "recurse",
  "</svg></title>",
  "ünïcödé 漢字 🔥",
  "very_long_very_long_very_long_very_long_very_long_very_long_very_long_very_long_very_long_very_long_"
  "very_long_very_long_very_long_very_long_very_long_very_long_very_long_very_long_very_long_very_long",
  "%23zoom=f1&search=x#?",
  /* U+FFFF and U+FFFE: valid UTF-8 but no XML character; a surrogate. */
  "nonchar \xef\xbf\xbf\xef\xbf\xbe surrogate \xed\xa0\x80",
};
#define N_NAMES (sizeof names / sizeof names[0])
#define RECURSE 10
#define CMDLINE "\"hostile\" <proc> & ]]> 'x'"

static uint64_t state = 0x5eed;

static unsigned int
next_random (unsigned int n)
{
  state = state * 6364136223846793005ULL + 1442695040888963407ULL;
  return (unsigned int) ((state >> 33) % n);
}

static void
print_hex (FILE *out, const char *text)
{
  for (const unsigned char *p = (const unsigned char *) text; *p; p++)
    fprintf (out, "%02x", *p);
}

int
main (int argc, char **argv)
{
  SysprofCaptureAddress addresses[N_NAMES];
  unsigned int          with[N_NAMES] = { 0 };
  SysprofCaptureWriter *writer;
  FILE                 *out;
  int64_t               t0 = 1000000000LL;
  bool                  ok = true;

  if (argc != 3)
    {
      fprintf (stderr, "usage: make-flame-capture OUT.syscap OUT.names\n");
      return 2;
    }
  if (!(writer = sysprof_capture_writer_new (argv[1], 0)))
    {
      perror (argv[1]);
      return 1;
    }
  for (size_t i = 0; i < N_NAMES; i++)
    ok &= (addresses[i] = sysprof_capture_writer_add_jitmap (writer, names[i])) != 0;
  ok &= sysprof_capture_writer_add_process (writer, t0, 0, PID, CMDLINE);

  for (unsigned int s = 0; s < N_SAMPLES; s++)
    {
      SysprofCaptureAddress stack[2 * MAX_DEPTH];
      bool                  on_stack[N_NAMES] = { false };
      unsigned int          depth = 1 + next_random (MAX_DEPTH);
      unsigned int          n = 0;

      /* Outermost first, then reversed: a sample holds the innermost first. */
      stack[n++] = addresses[0];
      on_stack[0] = true;
      for (unsigned int d = 1; d < depth; d++)
        {
          unsigned int f = 1 + next_random (N_NAMES - 1);

          stack[n++] = addresses[f];
          if (f == RECURSE)
            stack[n++] = addresses[f];
          on_stack[f] = true;
        }
      for (unsigned int i = 0; i < n / 2; i++)
        {
          SysprofCaptureAddress a = stack[i];

          stack[i] = stack[n - 1 - i];
          stack[n - 1 - i] = a;
        }
      for (size_t i = 0; i < N_NAMES; i++)
        with[i] += on_stack[i];
      ok &= sysprof_capture_writer_add_sample (writer, t0 + (int64_t) s * MS, 0, PID, PID, stack, n);
    }
  ok &= sysprof_capture_writer_set_time_range (writer, t0, t0 + N_SAMPLES * MS);
  ok &= sysprof_capture_writer_flush (writer);
  sysprof_capture_writer_unref (writer);
  if (!ok)
    {
      fprintf (stderr, "make-flame-capture: cannot write %s\n", argv[1]);
      return 1;
    }

  if (!(out = fopen (argv[2], "w")))
    {
      perror (argv[2]);
      return 1;
    }
  for (size_t i = 0; i < N_NAMES; i++)
    {
      fputs ("function\t", out);
      print_hex (out, names[i]);
      fprintf (out, "\t%u\n", with[i]);
    }
  fputs ("process\t", out);
  print_hex (out, CMDLINE);
  fprintf (out, "\t%u\ntotal\t%u\n", N_SAMPLES, N_SAMPLES);
  if (fclose (out) != 0)
    {
      perror (argv[2]);
      return 1;
    }
  return 0;
}
