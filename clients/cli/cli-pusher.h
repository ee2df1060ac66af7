// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* Sends each period's pprof export to a Pyroscope-compatible ingest
 * endpoint: POST <url>/ingest?name=NAME&from=BEGIN&until=END&format=pprof
 * &sampleRate=HZ&spyName=sysprof with a multipart/form-data body whose part
 * "profile" (file name "profile.pprof") is the gzipped profile, as
 * Pyroscope's HTTP API documents /ingest and as its own agents send pprof.
 *
 * Nothing waits for the server: profiles go into a queue directory (a hard
 * link, or a copy), sent one at a time from the main loop, removed once the
 * server answered 2xx.  A failure (no connection, a server that hangs: no
 * answer within 30 s, or $SYSPROF_PUSH_TIMEOUT seconds; 408, 429 or 5xx) is retried after 1 s, then twice as long each
 * time up to 5 minutes; another 4xx drops that profile (the server will never take it) with a warning.  The queue is
 * bounded (at most 256 profiles and 64 MiB): beyond, the oldest is dropped, counted and said.  What is queued when the
 * program ends is sent by the next run over the same queue. */
typedef struct _CliPusher CliPusher;

/* @url: http:// or https://, to the server (…/ingest is added unless the
 * path already ends so); @name: Pyroscope's application name, with its
 * labels ("app{label=value}"). */
CliPusher *cli_pusher_new (const char *url, const char *name, guint sample_rate, const char *queue_dir, GError **error);
void       cli_pusher_free (CliPusher *self);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (CliPusher, cli_pusher_free)

/* Queues @pprof_path, recorded from @begin_usec to @end_usec (Unix time). */
void cli_pusher_enqueue (CliPusher *self, const char *pprof_path, gint64 begin_usec, gint64 end_usec);
/* Profiles sent, dropped (queue full or refused by the server) and waiting. */
guint cli_pusher_get_n_sent (CliPusher *self);
guint cli_pusher_get_n_dropped (CliPusher *self);
guint cli_pusher_get_n_queued (CliPusher *self);
/* Waits, running the thread-default main context, at most @timeout_ms for
 * the queue to empty; TRUE when it did. */
gboolean cli_pusher_drain (CliPusher *self, guint timeout_ms);

G_END_DECLS
