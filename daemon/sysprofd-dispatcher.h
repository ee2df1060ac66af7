// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* Every method call of sysprofd goes through here, from the main thread where
 * the skeletons receive it:
 *
 *  1. the caller is identified (uid and groups, asked from the bus once per
 *     connection: unique names are never reused);
 *  2. it is admitted only while its uid has fewer than
 *     SYSPROF_DBUS_MAX_CALLS_PER_UID calls unfinished, otherwise refused at
 *     once with LimitsExceeded;
 *  3. polkit is asked, asynchronously, at most SYSPROF_DBUS_MAX_AUTH_PER_UID
 *     checks of one uid at a time;
 *  4. the work runs either in the main context (quick work, or work that hands
 *     itself on to a session's thread) or on one of SYSPROF_DBUS_WORKERS
 *     threads that serve the uids with work in turn, at most
 *     SYSPROF_DBUS_MAX_RUNNING_PER_UID of a uid at once.
 *
 * So one caller, however many calls it sends or however long its calls take,
 * neither blocks the main loop nor keeps other users' calls waiting. */

typedef struct _SysprofdCall SysprofdCall;

typedef void (*SysprofdCallFunc) (SysprofdCall *call);
/* Which polkit action a call needs, decided once the caller's uid is known
 * (NULL = SYSPROF_DBUS_ACTION_PROFILE).  Runs in the main thread. */
typedef const char *(*SysprofdActionFunc) (SysprofdCall *call);

typedef enum
{
  /* Blocking work (files, /proc): on a worker thread. */
  SYSPROFD_CALL_IN_WORKER = 0,
  /* Quick work, or work that hands itself on: in the main context. */
  SYSPROFD_CALL_IN_MAIN = 1,
} SysprofdCallFlags;

/* Starts answering the calls of @connection (the system bus). */
void sysprofd_dispatcher_init (GDBusConnection *connection);
/* Stops the workers after the work they run; calls not yet run are refused. */
void sysprofd_dispatcher_shutdown (void);

/* Takes @invocation from a skeleton's handler (which then returns TRUE).
 * @func answers it, from wherever it runs; @data (freed with @destroy, also
 * when the call is refused before @func) is for @func. */
void sysprofd_dispatch (GDBusMethodInvocation *invocation,
                        SysprofdCallFlags      flags,
                        SysprofdActionFunc     action,
                        SysprofdCallFunc       func,
                        gpointer               data,
                        GDestroyNotify         destroy);

GDBusMethodInvocation *sysprofd_call_get_invocation (SysprofdCall *call);
gpointer               sysprofd_call_get_data (SysprofdCall *call);
guint32                sysprofd_call_get_uid (SysprofdCall *call);
/* The polkit action the call was authorized for (once it runs). */
const char *sysprofd_call_get_action (SysprofdCall *call);
/* The caller's primary and supplementary groups (@n_groups of them). */
const guint32 *sysprofd_call_get_groups (SysprofdCall *call, guint *n_groups);
/* A call's work that answers later (in a session's thread) keeps a reference
 * until it has answered: the call counts against its uid until then. */
SysprofdCall *sysprofd_call_ref (SysprofdCall *call);
void          sysprofd_call_unref (SysprofdCall *call);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (SysprofdCall, sysprofd_call_unref)

/* Asks polkit, without interaction, whether the caller of @call (already
 * authorized and running, in the main thread) also holds @action; @func gets
 * the answer in the main thread (FALSE when polkit fails or takes more than
 * SYSPROF_DBUS_AUTH_TIMEOUT seconds).  @call is kept until then. */
typedef void (*SysprofdAskFunc) (SysprofdCall *call, gboolean granted, gpointer data);
void sysprofd_call_ask (SysprofdCall *call, const char *action, SysprofdAskFunc func, gpointer data);

/* Queues @func to run in the main thread, never inline: g_main_context_invoke()
 * runs it at once in the calling thread when nobody owns the main context
 * (at shutdown), which code meant for the main thread must never see. */
void sysprofd_run_in_main (GSourceFunc func, gpointer data);

/* The uid of the connection @sender when an earlier call identified it
 * (main thread only). */
gboolean sysprofd_dispatcher_lookup_uid (const char *sender, guint32 *uid);
/* Monotonic seconds of the last authorized call. */
gint64 sysprofd_dispatcher_get_last_activity (void);
/* Calls admitted and not finished, for tests and the idle check. */
guint sysprofd_dispatcher_get_n_calls (void);

G_END_DECLS
