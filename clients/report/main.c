// SPDX-License-Identifier: GPL-3.0-or-later
/* sysprof-report: callgraph reports of a capture (top functions, callers,
 * callees, call tree, flame graph, folded stacks) and its memory analyses.
 * This file is the verb table: it finds the verb in the command line and
 * hands the rest to it.  Each verb lives in its report-VERB.c with its
 * options; what they share is in report-util.c. */

#include <locale.h>

#include "report-util.h"
#include "report-verbs.h"

/* In the order the general --help lists them. */
static const ReportVerb *const verbs[] = {
  &report_verb_top,        &report_verb_callers,   &report_verb_callees, &report_verb_tree,
  &report_verb_flamegraph, &report_verb_collapsed, &report_verb_memory,  &report_verb_marks,
  &report_verb_diff,       &report_verb_threads,   &report_verb_dbus,    &report_verb_export,
};

static const ReportVerb *
find_verb (const char *name)
{
  for (guint i = 0; i < G_N_ELEMENTS (verbs); i++)
    if (g_str_equal (verbs[i]->name, name))
      return verbs[i];
  return NULL;
}

/* @argv[0] is the verb's name. */
static int
run_verb (const ReportVerb *verb, int argc, char **argv, gboolean help_only)
{
  if (verb->main != NULL)
    return verb->main (argc, argv, help_only);
  return report_callgraph_main (verb, argc, argv, help_only);
}

static GOptionContext *
new_general_context (ReportOptions *options)
{
  g_autoptr (GString) summary =
      g_string_new ("Summarize where the stack samples (or the allocations) of a Sysprof capture\n"
                    "were taken.\n\n"
                    "Commands:\n");
  GOptionContext *context = g_option_context_new ("CAPTURE");

  for (guint i = 0; i < G_N_ELEMENTS (verbs); i++)
    g_string_append_printf (summary, "  %-11s %s\n", verbs[i]->name, verbs[i]->summary);
  g_string_append (summary, "\n`sysprof-report COMMAND --help` describes a command and its columns; the options\n"
                            "below are common to all of them.");
  g_option_context_set_summary (context, summary->str);
  g_option_context_set_description (
      context, "Every command reads the SAMPLE frames of CAPTURE (a Sysprof capture, .syscap,\n"
               "from this project or GNOME Sysprof 3.46 and later) through the same filters;\n"
               "counts are samples and percentages are of the samples that passed the\n"
               "filters.  Symbols come from the capture's embedded __symbols__ table and\n"
               "kernel symbols first, then from the binaries and debug files of this machine,\n"
               "and last from the debuginfod servers of $DEBUGINFOD_URLS when it is set: a\n"
               "file for which no byte comes within $DEBUGINFOD_TIMEOUT seconds (default 10)\n"
               "is given up, and so are the rest after it, 6 times that for all of them;\n"
               "downloads stay in libdebuginfod's cache ($DEBUGINFOD_CACHE_PATH); a line on\n"
               "stderr names the files that stayed without debug info, and why.\n\n"
               "Examples:\n"
               "  sysprof-report capture.syscap                      the 30 busiest functions\n"
               "  sysprof-report top --sort total --comm gjs capture.syscap\n"
               "  sysprof-report callers g_main_context_iteration capture.syscap\n"
               "  sysprof-report tree --threshold 5 --no-kernel capture.syscap\n"
               "  sysprof-report tree --focus gtk_main --hide g_free capture.syscap\n"
               "  sysprof-report flamegraph -o cpu.svg --begin 2 --end 4.5 capture.syscap\n"
               "  sysprof-report diff --format svg -o diff.svg before.syscap after.syscap\n"
               "  sysprof-report collapsed capture.syscap | flamegraph.pl > cpu.svg\n"
               "  sysprof-report top --lines capture.syscap          the busiest source lines\n"
               "  sysprof-report memory --leaks memprof.syscap       allocations never freed\n"
               "  sysprof-report top --memory=bytes memprof.syscap   who allocates the most bytes\n\n"
               "The callgraph commands take --memory[=count|bytes|leaked|leaked-bytes] to report\n"
               "allocations (sysprof-cli --memprof) instead of samples; `sysprof-report help top`\n"
               "describes it.  --focus=FUNCTION keeps only the stacks through FUNCTION, starting\n"
               "at it; --hide=FUNCTION removes its frames and gives its samples to its caller.\n\n"
               "Functions inlined by the compiler are frames of their own, under the function\n"
               "they were inlined into; --lines reports source lines (FUNCTION (FILE:LINE)).\n"
               "Both come from the debug info: the binary's own, a separate debug file found by\n"
               "build-id or debug link under /usr/lib/debug or --debug-dir, or the capture's\n"
               "__symbol_frames__ table.  Code without symbols (a stripped library) shows one\n"
               "row per function, LIBRARY+0xSTART, START being where the function begins in the\n"
               "file (from its unwind tables).  A user-space address in no executable mapping of\n"
               "its process (data that a frame-pointer walk took for a return address) ends its\n"
               "stack: the frames beyond it are dropped, the sample still counts.\n\n"
               "Exit status: 0 on success; 1 when the capture cannot be opened or read to its end\n"
               "(the error names the byte offset of the damage), when FUNCTION is not in the\n"
               "callgraph, or when the output cannot be written; 2 on a usage error.");
  report_add_options (context, options);
  return context;
}

static int
print_general_help (gboolean to_stderr)
{
  g_auto (ReportOptions) o = { 0 };
  g_autoptr (GOptionContext) context = new_general_context (&o);
  g_autofree char *help = NULL;

  /* GLib prints "PRGNAME [OPTION…] PARAMETERS". */
  g_set_prgname ("sysprof-report [COMMAND]");
  help = g_option_context_get_help (context, TRUE, NULL);

  if (to_stderr)
    g_printerr ("%s", help);
  else
    g_print ("%s", help);
  return to_stderr ? REPORT_EXIT_USAGE : REPORT_EXIT_OK;
}

int
main (int argc, char **argv)
{
  const ReportVerb *verb;

  setlocale (LC_ALL, "");
  /* Numbers in TSV must not depend on the locale's decimal separator. */
  setlocale (LC_NUMERIC, "C");
  g_set_prgname ("sysprof-report");

  if (argc < 2)
    return print_general_help (TRUE);

  if (g_str_equal (argv[1], "-h") || g_str_equal (argv[1], "--help") || g_str_equal (argv[1], "-?") ||
      g_str_equal (argv[1], "--help-all"))
    return print_general_help (FALSE);

  if (g_str_equal (argv[1], "--version"))
    {
      g_print ("sysprof-report %s\n", SYSPROF_PROJECT_VERSION);
      return REPORT_EXIT_OK;
    }

  if (g_str_equal (argv[1], "help"))
    {
      if (argc < 3)
        return print_general_help (FALSE);
      if ((verb = find_verb (argv[2])) == NULL)
        {
          g_printerr ("sysprof-report: no command “%s”\nTry “sysprof-report --help”.\n", argv[2]);
          return REPORT_EXIT_USAGE;
        }
      return run_verb (verb, 1, argv + 2, TRUE);
    }

  /* The verb takes the place of the program name. */
  if ((verb = find_verb (argv[1])) != NULL)
    return run_verb (verb, argc - 1, argv + 1, FALSE);

  /* No command: top.  A word that is neither a command nor an existing file
   * is more likely a misspelt command. */
  if (argv[1][0] != '-' && argc == 2 && !g_file_test (argv[1], G_FILE_TEST_EXISTS))
    {
      g_printerr ("sysprof-report: “%s” is neither a command nor a file\nTry “sysprof-report --help”.\n", argv[1]);
      return REPORT_EXIT_USAGE;
    }
  {
    g_autofree char **args = g_new0 (char *, argc + 1);

    args[0] = (char *) "top";
    for (int i = 1; i < argc; i++)
      args[i] = argv[i];
    return run_verb (&report_verb_top, argc, args, FALSE);
  }
}
