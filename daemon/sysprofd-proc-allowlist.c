// SPDX-License-Identifier: GPL-3.0-or-later
#include <string.h>

#include "sysprofd-proc-allowlist.h"
#include "sysprofd-proc.h"

/* Patterns, one component per '/': PID and TID are a number, cpuN and
 * policyN a word followed by a number, * any name.  Derived from what
 * clients read: Sysprof 3.46's libsysprof (its helpers ask for kallsyms,
 * mounts, the counters' /proc files, /proc/PID/{maps,mountinfo,cmdline,
 * statm}, cpufreq, power_supply and tracepoint files) and ours (which reads
 * through GetProcessInfo and Session.Start instead). */
typedef struct
{
  const char       *pattern;
  SysprofdProcScope scope;
} Rule;

static const Rule rules[] = {
  /* The system. */
  { "proc/kallsyms", SYSPROFD_PROC_SCOPE_SYSTEM },
  { "proc/mounts", SYSPROFD_PROC_SCOPE_SYSTEM },
  { "proc/cpuinfo", SYSPROFD_PROC_SCOPE_SYSTEM },
  { "proc/stat", SYSPROFD_PROC_SCOPE_SYSTEM },
  { "proc/meminfo", SYSPROFD_PROC_SCOPE_SYSTEM },
  { "proc/vmstat", SYSPROFD_PROC_SCOPE_SYSTEM },
  { "proc/diskstats", SYSPROFD_PROC_SCOPE_SYSTEM },
  { "proc/loadavg", SYSPROFD_PROC_SCOPE_SYSTEM },
  { "proc/uptime", SYSPROFD_PROC_SCOPE_SYSTEM },
  { "proc/version", SYSPROFD_PROC_SCOPE_SYSTEM },
  { "proc/net/dev", SYSPROFD_PROC_SCOPE_SYSTEM },
  { "proc/pressure/cpu", SYSPROFD_PROC_SCOPE_SYSTEM },
  { "proc/pressure/io", SYSPROFD_PROC_SCOPE_SYSTEM },
  { "proc/pressure/memory", SYSPROFD_PROC_SCOPE_SYSTEM },
  { "proc/sys/kernel/perf_event_paranoid", SYSPROFD_PROC_SCOPE_SYSTEM },
  { "proc/sys/kernel/perf_event_max_sample_rate", SYSPROFD_PROC_SCOPE_SYSTEM },
  { "proc/sys/kernel/perf_event_max_stack", SYSPROFD_PROC_SCOPE_SYSTEM },
  { "proc/sys/kernel/perf_event_mlock_kb", SYSPROFD_PROC_SCOPE_SYSTEM },
  { "proc/sys/kernel/kptr_restrict", SYSPROFD_PROC_SCOPE_SYSTEM },
  { "proc/sys/kernel/osrelease", SYSPROFD_PROC_SCOPE_SYSTEM },
  { "sys/devices/system/cpu/online", SYSPROFD_PROC_SCOPE_SYSTEM },
  { "sys/devices/system/cpu/possible", SYSPROFD_PROC_SCOPE_SYSTEM },
  { "sys/devices/system/cpu/present", SYSPROFD_PROC_SCOPE_SYSTEM },
  { "sys/devices/system/cpu/cpuN/cpufreq/scaling_cur_freq", SYSPROFD_PROC_SCOPE_SYSTEM },
  { "sys/devices/system/cpu/cpuN/cpufreq/scaling_max_freq", SYSPROFD_PROC_SCOPE_SYSTEM },
  { "sys/devices/system/cpu/cpuN/cpufreq/scaling_min_freq", SYSPROFD_PROC_SCOPE_SYSTEM },
  { "sys/devices/system/cpu/cpuN/cpufreq/cpuinfo_max_freq", SYSPROFD_PROC_SCOPE_SYSTEM },
  { "sys/devices/system/cpu/cpuN/cpufreq/cpuinfo_min_freq", SYSPROFD_PROC_SCOPE_SYSTEM },
  { "sys/devices/system/cpu/cpuN/cpufreq/scaling_governor", SYSPROFD_PROC_SCOPE_SYSTEM },
  { "sys/devices/system/cpu/cpuN/cpufreq/scaling_available_governors", SYSPROFD_PROC_SCOPE_SYSTEM },
  { "sys/devices/system/cpu/cpufreq/policyN/scaling_cur_freq", SYSPROFD_PROC_SCOPE_SYSTEM },
  { "sys/devices/system/cpu/cpufreq/policyN/scaling_max_freq", SYSPROFD_PROC_SCOPE_SYSTEM },
  { "sys/class/power_supply/*/type", SYSPROFD_PROC_SCOPE_SYSTEM },
  { "sys/class/power_supply/*/model_name", SYSPROFD_PROC_SCOPE_SYSTEM },
  { "sys/class/power_supply/*/status", SYSPROFD_PROC_SCOPE_SYSTEM },
  { "sys/class/power_supply/*/capacity", SYSPROFD_PROC_SCOPE_SYSTEM },
  { "sys/class/power_supply/*/charge_full", SYSPROFD_PROC_SCOPE_SYSTEM },
  { "sys/class/power_supply/*/charge_now", SYSPROFD_PROC_SCOPE_SYSTEM },
  { "sys/class/power_supply/*/energy_full", SYSPROFD_PROC_SCOPE_SYSTEM },
  { "sys/class/power_supply/*/energy_now", SYSPROFD_PROC_SCOPE_SYSTEM },
  { "sys/class/power_supply/*/power_now", SYSPROFD_PROC_SCOPE_SYSTEM },
  { "sys/kernel/tracing/events/*/*/format", SYSPROFD_PROC_SCOPE_SYSTEM },
  { "sys/kernel/tracing/events/*/*/id", SYSPROFD_PROC_SCOPE_SYSTEM },
  { "sys/kernel/debug/tracing/events/*/*/format", SYSPROFD_PROC_SCOPE_SYSTEM },
  { "sys/kernel/debug/tracing/events/*/*/id", SYSPROFD_PROC_SCOPE_SYSTEM },
  { "sys/bus/event_source/devices/*/type", SYSPROFD_PROC_SCOPE_SYSTEM },
  /* What symbolizing and naming any process needs.  statm and cgroup are
   * what GetProcessInfo (Sysprof's API) returns for every process. */
  { "proc/PID/maps", SYSPROFD_PROC_SCOPE_ANY_PROCESS },
  { "proc/PID/mountinfo", SYSPROFD_PROC_SCOPE_ANY_PROCESS },
  { "proc/PID/cmdline", SYSPROFD_PROC_SCOPE_ANY_PROCESS },
  { "proc/PID/comm", SYSPROFD_PROC_SCOPE_ANY_PROCESS },
  { "proc/PID/stat", SYSPROFD_PROC_SCOPE_ANY_PROCESS },
  { "proc/PID/statm", SYSPROFD_PROC_SCOPE_ANY_PROCESS },
  { "proc/PID/cgroup", SYSPROFD_PROC_SCOPE_ANY_PROCESS },
  { "proc/PID/task/TID/comm", SYSPROFD_PROC_SCOPE_ANY_PROCESS },
  { "proc/PID/task/TID/stat", SYSPROFD_PROC_SCOPE_ANY_PROCESS },
  /* More about one's own processes (the caller could read these itself,
   * unless it runs in a sandbox that hides /proc). */
  { "proc/PID/status", SYSPROFD_PROC_SCOPE_OWN_PROCESS },
  { "proc/PID/auxv", SYSPROFD_PROC_SCOPE_OWN_PROCESS },
  { "proc/PID/smaps", SYSPROFD_PROC_SCOPE_OWN_PROCESS },
  { "proc/PID/smaps_rollup", SYSPROFD_PROC_SCOPE_OWN_PROCESS },
  { "proc/PID/sched", SYSPROFD_PROC_SCOPE_OWN_PROCESS },
  { "proc/PID/schedstat", SYSPROFD_PROC_SCOPE_OWN_PROCESS },
  { "proc/PID/io", SYSPROFD_PROC_SCOPE_OWN_PROCESS },
  { "proc/PID/task/TID/status", SYSPROFD_PROC_SCOPE_OWN_PROCESS },
  { "proc/PID/task/TID/sched", SYSPROFD_PROC_SCOPE_OWN_PROCESS },
  { "proc/PID/task/TID/schedstat", SYSPROFD_PROC_SCOPE_OWN_PROCESS },
};

void
sysprofd_proc_request_clear (SysprofdProcRequest *request)
{
  g_clear_pointer (&request->below, g_free);
}

static gboolean
is_number (const char *s)
{
  const char *p = s;

  if (*s == 0 || strlen (s) > 10)
    return FALSE;
  for (; *p; p++)
    if (!g_ascii_isdigit (*p))
      return FALSE;
  /* Above INT_MAX it would wrap to another process's number. */
  return g_ascii_strtoull (s, NULL, 10) <= G_MAXINT32;
}

static gboolean
component_matches (const char *pattern, const char *name)
{
  if (g_str_equal (pattern, "*"))
    return TRUE;
  if (g_str_equal (pattern, "PID") || g_str_equal (pattern, "TID"))
    return is_number (name) && name[0] != '0';
  if (g_str_equal (pattern, "cpuN"))
    return g_str_has_prefix (name, "cpu") && is_number (name + 3);
  if (g_str_equal (pattern, "policyN"))
    return g_str_has_prefix (name, "policy") && is_number (name + 6);
  return g_str_equal (pattern, name);
}

static gboolean
rule_matches (const Rule *rule, char **names, guint n_names)
{
  g_auto (GStrv) parts = g_strsplit (rule->pattern, "/", -1);

  if (g_strv_length (parts) != n_names)
    return FALSE;
  for (guint i = 0; i < n_names; i++)
    if (!component_matches (parts[i], names[i]))
      return FALSE;
  return TRUE;
}

gboolean
sysprofd_proc_allowlist_match (const char *path, SysprofdProcRequest *request, GError **error)
{
  g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  g_auto (GStrv) parts = NULL;
  g_autofree char *shown = NULL;

  g_return_val_if_fail (path != NULL, FALSE);
  g_return_val_if_fail (request != NULL, FALSE);

  memset (request, 0, sizeof *request);
  shown = sysprofd_escape_text (path);
  if (path[0] != '/')
    {
      g_set_error (error, G_DBUS_ERROR, G_DBUS_ERROR_INVALID_ARGS, "%s is not an absolute path", shown);
      return FALSE;
    }
  parts = g_strsplit (path, "/", -1);
  for (guint i = 0; parts[i]; i++)
    {
      if (parts[i][0] == 0)
        continue;
      if (g_str_equal (parts[i], ".") || g_str_equal (parts[i], ".."))
        {
          g_set_error (error, G_DBUS_ERROR, G_DBUS_ERROR_ACCESS_DENIED,
                       "Access to %s denied: \".\" and \"..\" are not allowed in paths", shown);
          return FALSE;
        }
      g_ptr_array_add (names, g_strdup (parts[i]));
    }
  if (names->len < 2 || (!g_str_equal (names->pdata[0], "proc") && !g_str_equal (names->pdata[0], "sys")))
    {
      g_set_error (error, G_DBUS_ERROR, G_DBUS_ERROR_ACCESS_DENIED,
                   "Access to %s denied: only files under /proc and /sys", shown);
      return FALSE;
    }

  for (guint r = 0; r < G_N_ELEMENTS (rules); r++)
    {
      const Rule *rule = &rules[r];
      char      **comps = (char **) names->pdata;
      guint       skip;

      if (!rule_matches (rule, comps, names->len))
        continue;
      request->root = g_str_equal (comps[0], "proc") ? "/proc" : "/sys";
      request->scope = rule->scope;
      /* A process's files are opened below its /proc/PID directory. */
      skip = rule->scope == SYSPROFD_PROC_SCOPE_SYSTEM ? 1 : 2;
      if (skip == 2)
        request->pid = (int) g_ascii_strtoll (comps[1], NULL, 10);
      {
        g_autoptr (GString) below = g_string_new (NULL);

        for (guint i = skip; i < names->len; i++)
          {
            if (below->len)
              g_string_append_c (below, '/');
            g_string_append (below, comps[i]);
          }
        request->below = g_string_free (g_steal_pointer (&below), FALSE);
      }
      return TRUE;
    }

  g_set_error (error, G_DBUS_ERROR, G_DBUS_ERROR_ACCESS_DENIED,
               "Access to %s denied: sysprofd only hands out the /proc and /sys files a profiler reads "
               "(kallsyms, mounts, counters, cpufreq, tracepoint formats; maps, mountinfo, cmdline, comm, stat, statm "
               "and cgroup of any process; status, auxv, smaps, sched and io of the caller's own processes)",
               shown);
  return FALSE;
}
