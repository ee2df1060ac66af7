// SPDX-License-Identifier: GPL-3.0-or-later
/* The sched_switch tracepoint's format as kernels write it (Linux 6.18's
 * copied from tracefs, and the int prev_state of kernels before 4.14's
 * change to long), the mistakes a format could have, and the RAW records
 * read with it; the machine's own tracefs when mounted. */
#include <string.h>
#include <unistd.h>

#include "sysprof-sched-switch-private.h"

static const char linux_6_18[] =
    "name: sched_switch\n"
    "ID: 372\n"
    "format:\n"
    "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
    "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
    "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
    "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
    "\n"
    "\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
    "\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
    "\tfield:int prev_prio;\toffset:28;\tsize:4;\tsigned:1;\n"
    "\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;\n"
    "\tfield:char next_comm[16];\toffset:40;\tsize:16;\tsigned:0;\n"
    "\tfield:pid_t next_pid;\toffset:56;\tsize:4;\tsigned:1;\n"
    "\tfield:int next_prio;\toffset:60;\tsize:4;\tsigned:1;\n"
    "\n"
    "print fmt: \"prev_comm=%s prev_pid=%d ==> next_comm=%s next_pid=%d\", REC->prev_comm, REC->prev_pid\n";

static char *
replace (const char *text, const char *from, const char *to)
{
  g_autoptr (GString) s = g_string_new (text);

  g_assert_cmpuint (g_string_replace (s, from, to, 1), ==, 1);
  return g_string_free (g_steal_pointer (&s), FALSE);
}

static void
test_parse (void)
{
  SysprofSchedSwitchFormat f;
  SysprofSchedSwitch       sw;
  g_autoptr (GError) error = NULL;
  guint8  raw[64] = { 0 };
  gint32  pid = 4242, next = 7;
  guint64 state = 1;

  g_assert_true (_sysprof_sched_switch_format_parse (linux_6_18, strlen (linux_6_18), &f, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (f.id, ==, 372);
  g_assert_cmpuint (f.prev_comm_offset, ==, 8);
  g_assert_cmpuint (f.prev_comm_size, ==, 16);
  g_assert_cmpuint (f.prev_pid_offset, ==, 24);
  g_assert_cmpuint (f.prev_state_offset, ==, 32);
  g_assert_cmpuint (f.prev_state_size, ==, 8);
  g_assert_cmpuint (f.next_pid_offset, ==, 56);
  g_assert_cmpuint (f.min_size, ==, 60);

  /* A comm of all 16 bytes, without its NUL. */
  memcpy (raw + 8, "abcdefghijklmnop", 16);
  memcpy (raw + 24, &pid, 4);
  memcpy (raw + 32, &state, 8);
  memcpy (raw + 56, &next, 4);
  g_assert_true (_sysprof_sched_switch_read (&f, raw, 60, &sw));
  g_assert_cmpstr (sw.prev_comm, ==, "abcdefghijklmnop");
  g_assert_cmpint (sw.prev_pid, ==, 4242);
  g_assert_cmpuint (sw.prev_state, ==, 1);
  g_assert_cmpint (sw.next_pid, ==, 7);
  g_assert_false (_sysprof_sched_switch_read (&f, raw, 59, &sw));
}

static void
test_int_state (void)
{
  g_autofree char *text =
      replace (linux_6_18, "field:long prev_state;\toffset:32;\tsize:8;", "field:int prev_state;\toffset:32;\tsize:4;");
  SysprofSchedSwitchFormat f;

  g_assert_true (_sysprof_sched_switch_format_parse (text, strlen (text), &f, NULL));
  g_assert_cmpuint (f.prev_state_size, ==, 4);
}

static void
test_broken (void)
{
  struct
  {
    const char *from, *to, *message;
  } cases[] = {
    { "ID: 372", "ID: x", "no ID line" },
    { "field:pid_t next_pid;", "field:pid_t next_pid_x;", "no usable field next_pid" },
    { "offset:24;\tsize:4;", "offset:24;\tsize:2;", "unexpected sizes" },
    { "offset:56;", "offset:99999;", "no usable field next_pid" },
    { "field:char prev_comm[16];", "field:char prevcomm[16];", "no usable field prev_comm" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *text = replace (linux_6_18, cases[i].from, cases[i].to);
      g_autoptr (GError) error = NULL;
      SysprofSchedSwitchFormat f;

      g_assert_false (_sysprof_sched_switch_format_parse (text, strlen (text), &f, &error));
      g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
      g_assert_nonnull (strstr (error->message, cases[i].message));
    }
}

static void
test_tracefs (void)
{
  g_autoptr (GError) error = NULL;
  SysprofSchedSwitchFormat f;

  if (!g_file_test ("/sys/kernel/tracing/events/sched/sched_switch/format", G_FILE_TEST_EXISTS) ||
      access ("/sys/kernel/tracing/events/sched/sched_switch/format", R_OK) != 0)
    {
      g_test_skip ("tracefs is not mounted or not readable");
      return;
    }
  g_assert_true (_sysprof_sched_switch_format_load (&f, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (f.id, >, 0);
  g_assert_cmpuint (f.prev_comm_size, ==, 16);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/sched-switch/parse", test_parse);
  g_test_add_func ("/sched-switch/int-state", test_int_state);
  g_test_add_func ("/sched-switch/broken", test_broken);
  g_test_add_func ("/sched-switch/tracefs", test_tracefs);
  return g_test_run ();
}
