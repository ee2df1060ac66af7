// SPDX-License-Identifier: GPL-3.0-or-later
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gstdio.h>
#include <libsoup/soup.h>

#include "cli-pusher.h"

#define MAX_QUEUED       256
#define MAX_QUEUED_BYTES (G_GUINT64_CONSTANT (64) << 20)
#define FIRST_BACKOFF_MS 1000
#define MAX_BACKOFF_MS   (5 * 60 * 1000)
/* A server that accepts the connection and never answers. */
#define IO_TIMEOUT_SECONDS 30

struct _CliPusher
{
  SoupSession *session;
  char        *ingest; /* scheme://host[:port]/path/ingest */
  char        *name;
  guint        sample_rate;
  char        *queue_dir;
  GQueue       queue; /* char *: paths, oldest first */
  guint64      queued_bytes;
  guint        seq;

  gboolean      in_flight;
  GCancellable *cancellable;
  guint         retry_source;
  guint         backoff_ms;
  guint         n_sent;
  guint         n_dropped;
};

static void kick (CliPusher *self);

static guint64
file_size (const char *path)
{
  struct stat st;

  return stat (path, &st) == 0 ? (guint64) st.st_size : 0;
}

static char *
ingest_url (const char *url, GError **error)
{
  g_autoptr (GUri) uri = g_uri_parse (url, G_URI_FLAGS_NONE, error);
  g_autofree char *path = NULL;
  const char      *scheme;

  if (uri == NULL)
    return NULL;
  scheme = g_uri_get_scheme (uri);
  if (g_ascii_strcasecmp (scheme, "http") != 0 && g_ascii_strcasecmp (scheme, "https") != 0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, "%s: only http:// and https:// URLs are pushed to",
                   url);
      return NULL;
    }
  if (g_uri_get_query (uri) != NULL || g_uri_get_fragment (uri) != NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   "%s: give the server's URL without a query; the ingest parameters are added", url);
      return NULL;
    }
  path = g_strdup (g_uri_get_path (uri));
  while (g_str_has_suffix (path, "/"))
    path[strlen (path) - 1] = 0;
  if (!g_str_has_suffix (path, "/ingest"))
    {
      char *with = g_strconcat (path, "/ingest", NULL);

      g_free (path);
      path = with;
    }
  return g_uri_join (G_URI_FLAGS_NONE, scheme, g_uri_get_userinfo (uri), g_uri_get_host (uri), g_uri_get_port (uri),
                     path, NULL, NULL);
}

static int
compare_paths (gconstpointer a, gconstpointer b, gpointer data)
{
  (void) data;
  return g_strcmp0 (a, b);
}

CliPusher *
cli_pusher_new (const char *url, const char *name, guint sample_rate, const char *queue_dir, GError **error)
{
  g_autofree char *ingest = NULL;
  g_autoptr (GDir) dir = NULL;
  const char *entry;
  CliPusher  *self;

  if ((ingest = ingest_url (url, error)) == NULL)
    return NULL;
  if (g_mkdir_with_parents (queue_dir, 0750) != 0)
    {
      int saved = errno;

      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved), "Cannot create %s: %s", queue_dir,
                   g_strerror (saved));
      return NULL;
    }
  if ((dir = g_dir_open (queue_dir, 0, error)) == NULL)
    return NULL;

  self = g_new0 (CliPusher, 1);
  self->ingest = g_steal_pointer (&ingest);
  self->name = g_strdup (name);
  self->sample_rate = sample_rate;
  self->queue_dir = g_strdup (queue_dir);
  self->backoff_ms = FIRST_BACKOFF_MS;
  self->session = soup_session_new ();
  {
    const char *timeout = g_getenv ("SYSPROF_PUSH_TIMEOUT");
    guint64     seconds = IO_TIMEOUT_SECONDS;

    if (timeout != NULL && !g_ascii_string_to_unsigned (timeout, 10, 1, 3600, &seconds, NULL))
      seconds = IO_TIMEOUT_SECONDS;
    soup_session_set_timeout (self->session, (guint) seconds);
  }
  soup_session_set_user_agent (self->session, "sysprof-cli/" SYSPROF_PROJECT_VERSION);
  /* What an earlier run left: sent first. */
  while ((entry = g_dir_read_name (dir)) != NULL)
    if (g_str_has_suffix (entry, ".pb.gz") && entry[0] != '.')
      {
        char *path = g_build_filename (queue_dir, entry, NULL);

        self->queued_bytes += file_size (path);
        g_queue_insert_sorted (&self->queue, path, compare_paths, NULL);
      }
  kick (self);
  return self;
}

void
cli_pusher_free (CliPusher *self)
{
  if (self == NULL)
    return;
  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
  g_clear_handle_id (&self->retry_source, g_source_remove);
  g_clear_object (&self->cancellable);
  g_clear_object (&self->session);
  g_queue_clear_full (&self->queue, g_free);
  g_free (self->ingest);
  g_free (self->name);
  g_free (self->queue_dir);
  g_free (self);
}

static void
drop_head (CliPusher *self)
{
  char *path = g_queue_pop_head (&self->queue);

  self->queued_bytes -= MIN (self->queued_bytes, file_size (path));
  g_unlink (path);
  g_free (path);
}

void
cli_pusher_enqueue (CliPusher *self, const char *pprof_path, gint64 begin_usec, gint64 end_usec)
{
  gint64           from = begin_usec / G_USEC_PER_SEC;
  gint64           until = MAX (from + 1, (end_usec + G_USEC_PER_SEC - 1) / G_USEC_PER_SEC);
  g_autofree char *queued = g_strdup_printf ("%s/%012" G_GINT64_FORMAT "-%012" G_GINT64_FORMAT "-%06u.pb.gz",
                                             self->queue_dir, from, until, self->seq++ % 1000000);

  /* A link costs nothing and survives the retention of the output
   * directory; across file systems, a copy. */
  if (link (pprof_path, queued) != 0)
    {
      g_autoptr (GFile) src = g_file_new_for_path (pprof_path);
      g_autoptr (GFile) dst = g_file_new_for_path (queued);
      g_autoptr (GError) error = NULL;

      if (!g_file_copy (src, dst, G_FILE_COPY_OVERWRITE, NULL, NULL, NULL, &error))
        {
          fprintf (stderr, "sysprof-cli: cannot queue %s for pushing: %s\n", pprof_path, error->message);
          self->n_dropped++;
          return;
        }
    }
  self->queued_bytes += file_size (queued);
  g_queue_push_tail (&self->queue, g_steal_pointer (&queued));
  /* Bounded: the oldest goes, unless it is the one being sent. */
  while (self->queue.length > 1 && (self->queue.length > MAX_QUEUED || self->queued_bytes > MAX_QUEUED_BYTES))
    {
      if (self->in_flight)
        {
          char *second = g_queue_pop_nth (&self->queue, 1);

          self->queued_bytes -= MIN (self->queued_bytes, file_size (second));
          g_unlink (second);
          g_free (second);
        }
      else
        drop_head (self);
      self->n_dropped++;
      fprintf (stderr, "sysprof-cli: the push queue is full (%u profiles, at most %u and %s): dropped the oldest\n",
               self->queue.length, MAX_QUEUED, "64 MiB");
    }
  kick (self);
}

static gboolean
retry_cb (gpointer data)
{
  CliPusher *self = data;

  self->retry_source = 0;
  kick (self);
  return G_SOURCE_REMOVE;
}

static void
sent_cb (GObject *source, GAsyncResult *result, gpointer data)
{
  CliPusher *self = data;
  g_autoptr (GBytes) answer = NULL;
  g_autoptr (GError) error = NULL;
  SoupMessage *msg = soup_session_get_async_result_message (SOUP_SESSION (source), result);
  guint        status;

  answer = soup_session_send_and_read_finish (SOUP_SESSION (source), result, &error);
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  self->in_flight = FALSE;
  g_clear_object (&self->cancellable);
  status = error == NULL && msg != NULL ? soup_message_get_status (msg) : 0;
  if (status >= 200 && status < 300)
    {
      drop_head (self);
      self->n_sent++;
      self->backoff_ms = FIRST_BACKOFF_MS;
      kick (self);
      return;
    }
  if (status >= 400 && status < 500 && status != 408 && status != 429)
    {
      fprintf (stderr, "sysprof-cli: %s refused a profile (HTTP %u %s): dropped it\n", self->ingest, status,
               soup_message_get_reason_phrase (msg));
      drop_head (self);
      self->n_dropped++;
      kick (self);
      return;
    }
  fprintf (stderr, "sysprof-cli: pushing to %s failed (%s); trying again in %u s\n", self->ingest,
           error != NULL ? error->message : soup_message_get_reason_phrase (msg), self->backoff_ms / 1000);
  self->retry_source = g_timeout_add (self->backoff_ms, retry_cb, self);
  self->backoff_ms = MIN (self->backoff_ms * 2, MAX_BACKOFF_MS);
}

static void
kick (CliPusher *self)
{
  g_autoptr (SoupMultipart) multipart = NULL;
  g_autoptr (SoupMessage) msg = NULL;
  g_autoptr (GBytes) body = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *url = NULL;
  g_autofree char *base = NULL;
  g_autofree char *escaped = NULL;
  g_autofree char *contents = NULL;
  gsize            len;
  gint64           from = 0, until = 0;
  const char      *path;

  while (!self->in_flight && self->retry_source == 0 && self->queue.length > 0)
    {
      path = g_queue_peek_head (&self->queue);
      g_clear_pointer (&contents, g_free);
      if (!g_file_get_contents (path, &contents, &len, &error))
        {
          fprintf (stderr, "sysprof-cli: cannot read %s to push it: %s\n", path, error->message);
          g_clear_error (&error);
          drop_head (self);
          self->n_dropped++;
          continue;
        }
      base = g_path_get_basename (path);
      /* %d: the numbers have leading zeros, which %i would take for octal. */
      if (sscanf (base, "%" G_GINT64_MODIFIER "d-%" G_GINT64_MODIFIER "d", &from, &until) != 2)
        from = until = g_get_real_time () / G_USEC_PER_SEC;
      g_clear_pointer (&base, g_free);
      escaped = g_uri_escape_string (self->name, NULL, FALSE);
      url = g_strdup_printf ("%s?name=%s&from=%" G_GINT64_FORMAT "&until=%" G_GINT64_FORMAT
                             "&format=pprof&sampleRate=%u&spyName=sysprof",
                             self->ingest, escaped, from, until, self->sample_rate);
      body = g_bytes_new_take (g_steal_pointer (&contents), len);
      multipart = soup_multipart_new (SOUP_FORM_MIME_TYPE_MULTIPART);
      soup_multipart_append_form_file (multipart, "profile", "profile.pprof", "application/octet-stream", body);
      msg = soup_message_new_from_multipart (url, multipart);
      self->in_flight = TRUE;
      self->cancellable = g_cancellable_new ();
      soup_session_send_and_read_async (self->session, msg, G_PRIORITY_DEFAULT, self->cancellable, sent_cb, self);
    }
}

guint
cli_pusher_get_n_sent (CliPusher *self)
{
  return self->n_sent;
}

guint
cli_pusher_get_n_dropped (CliPusher *self)
{
  return self->n_dropped;
}

guint
cli_pusher_get_n_queued (CliPusher *self)
{
  return self->queue.length;
}

gboolean
cli_pusher_drain (CliPusher *self, guint timeout_ms)
{
  gint64 deadline = g_get_monotonic_time () + (gint64) timeout_ms * 1000;

  while (self->queue.length > 0 && g_get_monotonic_time () < deadline)
    if (!g_main_context_iteration (NULL, FALSE))
      g_usleep (10000);
  return self->queue.length == 0;
}
