// SPDX-License-Identifier: GPL-3.0-or-later
/* debuginfod, the last place the ELF loader looks for a debug file.  A
 * profiler's decoding must not hang on a network: libdebuginfod's own
 * timeout (DEBUGINFOD_TIMEOUT, 90 s by default, per server and retried)
 * would let a server that accepts and never answers hold a report for
 * minutes per binary, so the progress callback, which libdebuginfod calls
 * about once a second while it waits, cancels a fetch that stalls and stops
 * all of them at a total budget. */

#include <elfutils/debuginfod.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "sysprof-debuginfod-private.h"

#define DEFAULT_STALL_USEC (10 * G_USEC_PER_SEC)
#define TOTAL_PER_STALL    6
#define MAX_NAMES          5

typedef struct
{
  char       *path;   /* in the cache, on success */
  const char *reason; /* static, on failure */
} Answer;

typedef struct
{
  char       *file;   /* basename of the binary */
  const char *reason; /* static */
} Failure;

struct _SysprofDebuginfod
{
  grefcount          ref_count;
  GMutex             mutex; /* held for a whole fetch: one at a time */
  debuginfod_client *client;
  gboolean           client_tried;

  gint64 stall_usec;
  gint64 total_usec;
  gint64 spent_usec;
  /* Set once asking more would only wait again: the reason of all later
   * failures. */
  const char *given_up;

  GHashTable *answers;  /* build-id -> Answer */
  GArray     *failures; /* Failure, in the order met */

  SysprofDebuginfodProgress progress;
  gpointer                  progress_data;

  /* The fetch under way. */
  const char *file;
  gint64      started;
  gint64      last_change;
  long        last_done;
  gboolean    stalled;
  gboolean    over_budget;
};

static void
answer_free (gpointer data)
{
  Answer *answer = data;

  g_free (answer->path);
  g_free (answer);
}

static void
failure_clear (gpointer data)
{
  g_free (((Failure *) data)->file);
}

static gint64
stall_from_environment (void)
{
  const char *value = g_getenv ("DEBUGINFOD_TIMEOUT");
  guint64     seconds = 0;

  if (value != NULL && g_ascii_string_to_unsigned (value, 10, 1, 24 * 3600, &seconds, NULL))
    return (gint64) seconds * G_USEC_PER_SEC;
  return DEFAULT_STALL_USEC;
}

SysprofDebuginfod *
sysprof_debuginfod_new_from_environment (void)
{
  const char        *urls = g_getenv ("DEBUGINFOD_URLS");
  SysprofDebuginfod *self;

  if (urls == NULL || urls[strspn (urls, " \t\n")] == '\0')
    return NULL;

  self = g_new0 (SysprofDebuginfod, 1);
  g_ref_count_init (&self->ref_count);
  g_mutex_init (&self->mutex);
  self->answers = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, answer_free);
  self->failures = g_array_new (FALSE, FALSE, sizeof (Failure));
  g_array_set_clear_func (self->failures, failure_clear);
  self->stall_usec = stall_from_environment ();
  self->total_usec = self->stall_usec * TOTAL_PER_STALL;
  return self;
}

SysprofDebuginfod *
sysprof_debuginfod_ref (SysprofDebuginfod *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  g_ref_count_inc (&self->ref_count);
  return self;
}

void
sysprof_debuginfod_unref (SysprofDebuginfod *self)
{
  if (self == NULL || !g_ref_count_dec (&self->ref_count))
    return;

  if (self->client != NULL)
    debuginfod_end (self->client);
  g_hash_table_unref (self->answers);
  g_array_unref (self->failures);
  g_mutex_clear (&self->mutex);
  g_free (self);
}

void
sysprof_debuginfod_set_timeouts (SysprofDebuginfod *self, gint64 stall_usec, gint64 total_usec)
{
  g_return_if_fail (self != NULL);
  g_return_if_fail (stall_usec > 0 && total_usec > 0);

  g_mutex_lock (&self->mutex);
  self->stall_usec = stall_usec;
  self->total_usec = total_usec;
  g_mutex_unlock (&self->mutex);
}

void
sysprof_debuginfod_set_progress (SysprofDebuginfod *self, SysprofDebuginfodProgress progress, gpointer user_data)
{
  g_return_if_fail (self != NULL);

  g_mutex_lock (&self->mutex);
  self->progress = progress;
  self->progress_data = user_data;
  g_mutex_unlock (&self->mutex);
}

/* Called by libdebuginfod in the fetching thread, the mutex held.  Until a
 * server answered, @total is 0 and @done counts the callback's calls, not
 * bytes (elfutils 0.188): only bytes of a known total count as progress. */
static int
on_progress (debuginfod_client *client, long done, long total)
{
  SysprofDebuginfod *self = debuginfod_get_user_data (client);
  gint64             now = g_get_monotonic_time ();

  if (total <= 0)
    done = 0;
  if (done != self->last_done)
    {
      self->last_done = done;
      self->last_change = now;
    }
  if (now - self->last_change > self->stall_usec)
    {
      self->stalled = TRUE;
      return 1;
    }
  if (self->spent_usec + (now - self->started) > self->total_usec)
    {
      self->over_budget = TRUE;
      return 1;
    }
  if (self->progress != NULL)
    self->progress (self->file, (guint64) MAX (done, 0), (guint64) MAX (total, 0), self->progress_data);
  return 0;
}

static const char *
reason_of (SysprofDebuginfod *self, int rc)
{
  if (self->stalled || rc == -ETIME || rc == -ETIMEDOUT)
    return "timeout";
  if (self->over_budget)
    return "time budget spent";
  switch (-rc)
    {
    case ENOENT: return "not found";
    case ECONNREFUSED:
    case EHOSTUNREACH:
    case ENETUNREACH: return "server unreachable";
    case EFBIG: return "file too large (DEBUGINFOD_MAXSIZE)";
    case EINTR:
    case ECANCELED: return "cancelled";
    default: return g_intern_string (g_strerror (-rc));
    }
}

static void
add_failure (SysprofDebuginfod *self, const char *for_path, const char *build_id, const char *reason)
{
  Failure failure = { g_path_get_basename (for_path), reason };
  Answer *answer = g_new0 (Answer, 1);

  answer->reason = reason;
  g_hash_table_insert (self->answers, g_strdup (build_id), answer);
  g_array_append_val (self->failures, failure);
}

static int
open_answer (const Answer *answer, char **path, GError **error)
{
  int fd;

  if (answer->path == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, "debuginfod: %s", answer->reason);
      return -1;
    }
  if ((fd = open (answer->path, O_RDONLY | O_CLOEXEC | O_NOCTTY)) < 0)
    {
      int errsv = errno;
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errsv), "%s: %s", answer->path, g_strerror (errsv));
      return -1;
    }
  if (path != NULL)
    *path = g_strdup (answer->path);
  return fd;
}

int
sysprof_debuginfod_find_debuginfo (
    SysprofDebuginfod *self, const char *build_id, const char *for_path, char **path, GError **error)
{
  g_autoptr (GMutexLocker) locker = NULL;
  const Answer *answer;
  char         *found = NULL;
  const char   *reason;
  int           rc;

  g_return_val_if_fail (self != NULL, -1);
  g_return_val_if_fail (build_id != NULL, -1);
  g_return_val_if_fail (for_path != NULL, -1);

  locker = g_mutex_locker_new (&self->mutex);
  if ((answer = g_hash_table_lookup (self->answers, build_id)) != NULL)
    return open_answer (answer, path, error);

  if (!self->client_tried)
    {
      self->client_tried = TRUE;
      if ((self->client = debuginfod_begin ()) != NULL)
        {
          debuginfod_set_user_data (self->client, self);
          debuginfod_set_progressfn (self->client, on_progress);
        }
    }
  if (self->client == NULL)
    self->given_up = "cannot start libdebuginfod";
  if (self->given_up == NULL && self->spent_usec >= self->total_usec)
    self->given_up = "time budget spent";
  if (self->given_up != NULL)
    {
      add_failure (self, for_path, build_id, self->given_up);
      return open_answer (g_hash_table_lookup (self->answers, build_id), path, error);
    }

  self->file = for_path;
  self->started = self->last_change = g_get_monotonic_time ();
  self->last_done = 0;
  self->stalled = self->over_budget = FALSE;
  if (self->progress != NULL)
    self->progress (for_path, 0, 0, self->progress_data);
  rc = debuginfod_find_debuginfo (self->client, (const unsigned char *) build_id, 0, &found);
  self->spent_usec += g_get_monotonic_time () - self->started;
  if (self->progress != NULL)
    self->progress (NULL, 0, 0, self->progress_data);
  self->file = NULL;

  if (rc >= 0)
    {
      Answer *ok = g_new0 (Answer, 1);

      /* A new fd of our own below: the answer is reopened the same way every time. */
      close (rc);
      ok->path = g_strdup (found);
      free (found);
      g_hash_table_insert (self->answers, g_strdup (build_id), ok);
      return open_answer (ok, path, error);
    }

  reason = reason_of (self, rc);
  if (self->stalled || self->over_budget || g_str_equal (reason, "timeout") ||
      g_str_equal (reason, "server unreachable"))
    self->given_up = reason;
  add_failure (self, for_path, build_id, reason);
  return open_answer (g_hash_table_lookup (self->answers, build_id), path, error);
}

char *
sysprof_debuginfod_dup_failures (SysprofDebuginfod *self)
{
  g_autoptr (GMutexLocker) locker = NULL;
  g_autoptr (GPtrArray) reasons = g_ptr_array_new ();
  g_autoptr (GString) line = g_string_new (NULL);

  g_return_val_if_fail (self != NULL, NULL);

  locker = g_mutex_locker_new (&self->mutex);
  for (guint i = 0; i < self->failures->len; i++)
    {
      const char *reason = g_array_index (self->failures, Failure, i).reason;
      if (!g_ptr_array_find (reasons, reason, NULL))
        g_ptr_array_add (reasons, (gpointer) reason);
    }

  for (guint r = 0; r < reasons->len; r++)
    {
      g_autoptr (GString) names = g_string_new (NULL);
      guint n = 0;

      for (guint i = 0; i < self->failures->len; i++)
        {
          const Failure *failure = &g_array_index (self->failures, Failure, i);

          if (failure->reason != reasons->pdata[r])
            continue;
          if (n++ < MAX_NAMES)
            g_string_append_printf (names, "%s%s", names->len ? ", " : "", failure->file);
        }
      if (n > MAX_NAMES)
        g_string_append_printf (names, " and %u more", n - MAX_NAMES);
      g_string_append_printf (line, "%s%u file%s without debug info: %s (debuginfod: %s)", line->len ? "; " : "", n,
                              n == 1 ? "" : "s", names->str, (const char *) reasons->pdata[r]);
    }
  return line->len ? g_string_free (g_steal_pointer (&line), FALSE) : NULL;
}
