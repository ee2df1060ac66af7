// SPDX-License-Identifier: GPL-3.0-or-later
#include <stdio.h>
#include <string.h>

#include <gio/gunixfdlist.h>
#include <polkit/polkit.h>

#include "sysprof-dbus-contract.h"
#include "sysprofd-dispatcher.h"

/* A connection on the bus, by unique name.  Main thread only, but calls keep
 * a reference from any thread. */
typedef enum
{
  CALLER_UNKNOWN,
  CALLER_ASKING,
  CALLER_KNOWN,
} CallerState;

/* polkit's yes to a connection, kept for SYSPROF_DBUS_AUTH_CACHE_SECONDS. */
typedef struct
{
  const char *action;
  gint64      until; /* monotonic */
} Grant;

/* The actions a connection can be granted: SYSPROF_DBUS_ACTION_PROFILE and
 * SYSPROF_DBUS_ACTION_PROFILE_OWN. */
#define MAX_GRANTS 2

typedef struct
{
  gint        ref_count;
  char       *sender;
  CallerState state;
  guint32     uid;
  GArray     *groups;     /* guint32 */
  GQueue      waiting;    /* calls waiting to know who calls */
  guint32     pid;        /* the process that connected, as the bus says */
  guint64     start_time; /* of pid then; 0: unknown, and no grant is kept */
  Grant       grants[MAX_GRANTS];
  guint       n_grants;
} Caller;

/* What a uid has running.  Under the lock: workers finish calls. */
typedef struct
{
  guint32 uid;
  guint   n_calls;   /* admitted, not finished */
  guint   n_auth;    /* waiting for polkit's answer */
  guint   n_running; /* on a worker */
  GQueue  auth_wait; /* admitted, waiting for an authorization slot */
  GQueue  ready;     /* authorized, waiting for a worker */
  GList  *rotation_link;
} UidState;

struct _SysprofdCall
{
  gint                   ref_count;
  GDBusMethodInvocation *invocation;
  Caller                *caller;
  UidState              *uid_state; /* set once admitted */
  SysprofdCallFlags      flags;
  SysprofdActionFunc     action;
  const char            *fallback;    /* a weaker action to ask for next */
  gboolean               interactive; /* polkit may ask for a password */
  GCancellable          *cancellable; /* of the polkit check */
  guint                  auth_timeout;
  SysprofdCallFunc       func;
  gpointer               data;
  GDestroyNotify         destroy;
};

static GMutex           lock;
static GCond            cond;
static GHashTable      *uids;     /* uid -> UidState, under lock */
static GQueue           rotation; /* UidState with ready calls, under lock */
static guint            n_calls;  /* under lock */
static gboolean         shutting_down;
static GPtrArray       *workers;
static GHashTable      *callers; /* sender -> Caller, main thread */
static GDBusConnection *bus;
static guint            name_owner_subscription;
static PolkitAuthority *authority; /* main thread */
static gint             last_activity;

static Caller *
caller_ref (Caller *caller)
{
  g_atomic_int_inc (&caller->ref_count);
  return caller;
}

static void
caller_unref (Caller *caller)
{
  if (!g_atomic_int_dec_and_test (&caller->ref_count))
    return;
  g_free (caller->sender);
  g_clear_pointer (&caller->groups, g_array_unref);
  g_free (caller);
}

static void
note_activity (void)
{
  g_atomic_int_set (&last_activity, (gint) (g_get_monotonic_time () / G_USEC_PER_SEC));
}

gint64
sysprofd_dispatcher_get_last_activity (void)
{
  return g_atomic_int_get (&last_activity);
}

guint
sysprofd_dispatcher_get_n_calls (void)
{
  guint n;

  g_mutex_lock (&lock);
  n = n_calls;
  g_mutex_unlock (&lock);
  return n;
}

/* ------------------------------------------------------------------------ */
/* Calls */

void
sysprofd_run_in_main (GSourceFunc func, gpointer data)
{
  GSource *source = g_idle_source_new ();

  g_source_set_priority (source, G_PRIORITY_DEFAULT);
  g_source_set_callback (source, func, data, NULL);
  g_source_set_static_name (source, "[sysprofd] to the main thread");
  g_source_attach (source, g_main_context_default ());
  g_source_unref (source);
}

static gboolean
destroy_in_main (gpointer data)
{
  gpointer *pair = data;

  ((GDestroyNotify) pair[0]) (pair[1]);
  g_free (pair);
  return G_SOURCE_REMOVE;
}

static void
release_admission (UidState *us)
{
  g_mutex_lock (&lock);
  g_assert (us->n_calls > 0 && n_calls > 0);
  us->n_calls--;
  n_calls--;
  if (us->n_calls == 0)
    {
      g_assert (us->n_auth == 0 && us->n_running == 0 && g_queue_is_empty (&us->ready) &&
                g_queue_is_empty (&us->auth_wait) && us->rotation_link == NULL);
      g_hash_table_remove (uids, GUINT_TO_POINTER (us->uid));
    }
  g_mutex_unlock (&lock);
}

SysprofdCall *
sysprofd_call_ref (SysprofdCall *call)
{
  g_return_val_if_fail (call != NULL, NULL);
  g_atomic_int_inc (&call->ref_count);
  return call;
}

void
sysprofd_call_unref (SysprofdCall *call)
{
  if (call == NULL || !g_atomic_int_dec_and_test (&call->ref_count))
    return;
  g_clear_handle_id (&call->auth_timeout, g_source_remove);
  g_clear_object (&call->cancellable);
  if (call->uid_state != NULL)
    release_admission (call->uid_state);
  if (call->destroy != NULL)
    {
      /* The data may hold the last reference to a session, which must die
       * in the main thread where its object is exported. */
      if (g_main_context_is_owner (g_main_context_default ()))
        call->destroy (call->data);
      else
        {
          gpointer *pair = g_new (gpointer, 2);

          pair[0] = (gpointer) call->destroy;
          pair[1] = call->data;
          sysprofd_run_in_main (destroy_in_main, pair);
        }
    }
  g_object_unref (call->invocation);
  caller_unref (call->caller);
  g_free (call);
}

GDBusMethodInvocation *
sysprofd_call_get_invocation (SysprofdCall *call)
{
  return call->invocation;
}

gpointer
sysprofd_call_get_data (SysprofdCall *call)
{
  return call->data;
}

guint32
sysprofd_call_get_uid (SysprofdCall *call)
{
  return call->caller->uid;
}

const char *
sysprofd_call_get_action (SysprofdCall *call)
{
  return g_object_get_data (G_OBJECT (call->invocation), "sysprofd-action");
}

const guint32 *
sysprofd_call_get_groups (SysprofdCall *call, guint *n_groups)
{
  *n_groups = call->caller->groups->len;
  return (const guint32 *) (gpointer) call->caller->groups->data;
}

static void refuse (SysprofdCall *call, GDBusError code, const char *format, ...) G_GNUC_PRINTF (3, 4);

/* Answers with an error and drops the call. */
static void
refuse (SysprofdCall *call, GDBusError code, const char *format, ...)
{
  g_autofree char *message = NULL;
  va_list          args;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  g_dbus_method_invocation_return_error_literal (call->invocation, G_DBUS_ERROR, code, message);
  sysprofd_call_unref (call);
}

/* ------------------------------------------------------------------------ */
/* Workers */

/* The next call of the uid whose turn it is, under the lock. */
static SysprofdCall *
take_ready_locked (void)
{
  for (GList *l = rotation.head; l != NULL; l = l->next)
    {
      UidState     *us = l->data;
      SysprofdCall *call;

      if (us->n_running >= SYSPROF_DBUS_MAX_RUNNING_PER_UID)
        continue;
      call = g_queue_pop_head (&us->ready);
      us->n_running++;
      /* Its turn is over: to the back, or out when it has nothing left. */
      g_queue_delete_link (&rotation, l);
      us->rotation_link = NULL;
      if (!g_queue_is_empty (&us->ready))
        {
          g_queue_push_tail (&rotation, us);
          us->rotation_link = rotation.tail;
        }
      return call;
    }
  return NULL;
}

static gpointer
worker_main (gpointer data)
{
  (void) data;

  g_mutex_lock (&lock);
  for (;;)
    {
      SysprofdCall *call;

      while (!shutting_down && (call = take_ready_locked ()) == NULL)
        g_cond_wait (&cond, &lock);
      if (shutting_down)
        break;
      g_mutex_unlock (&lock);

      call->func (call);

      g_mutex_lock (&lock);
      call->uid_state->n_running--;
      /* Another worker may have skipped this uid while it was at its limit. */
      if (!g_queue_is_empty (&call->uid_state->ready))
        g_cond_signal (&cond);
      g_mutex_unlock (&lock);
      sysprofd_call_unref (call);
      g_mutex_lock (&lock);
    }
  g_mutex_unlock (&lock);
  return NULL;
}

static void
queue_for_worker (SysprofdCall *call)
{
  UidState *us = call->uid_state;

  g_mutex_lock (&lock);
  g_queue_push_tail (&us->ready, call);
  if (us->rotation_link == NULL)
    {
      g_queue_push_tail (&rotation, us);
      us->rotation_link = rotation.tail;
    }
  g_cond_signal (&cond);
  g_mutex_unlock (&lock);
}

/* ------------------------------------------------------------------------ */
/* Authorization */

static void start_authorization (SysprofdCall *call);
static void run (SysprofdCall *call);
static void check_action (SysprofdCall *call, const char *action, gboolean may_interact);

/* The start time of process @pid (field 22 of /proc/PID/stat, in clock
 * ticks since boot), which tells it from a later process with the same pid;
 * 0 when it cannot be read. */
static guint64
process_start_time (guint32 pid)
{
  char             path[64];
  g_autofree char *contents = NULL;
  const char      *p;
  guint64          start = 0;

  if (pid == 0)
    return 0;
  g_snprintf (path, sizeof path, "/proc/%u/stat", pid);
  /* The command name (field 2) may hold anything but ends at the last ')'. */
  if (!g_file_get_contents (path, &contents, NULL, NULL) || (p = strrchr (contents, ')')) == NULL)
    return 0;
  /* Fields 3 to 21, then the start time. */
  for (guint field = 3; field <= 22 && p != NULL; field++)
    {
      p = strchr (p + 1, ' ');
      if (p != NULL && field == 22)
        start = g_ascii_strtoull (p + 1, NULL, 10);
    }
  return start;
}

/* Whether polkit granted @action to this connection recently, and the
 * process that made the connection still runs (a connection inherited by
 * another process is judged by polkit again, which judges by the pid the bus
 * gives, as before).  Main thread. */
static gboolean
grant_is_cached (Caller *caller, const char *action)
{
  gint64 now = g_get_monotonic_time ();

  for (guint i = 0; i < caller->n_grants; i++)
    if (g_str_equal (caller->grants[i].action, action) && now < caller->grants[i].until)
      {
        if (process_start_time (caller->pid) == caller->start_time)
          return TRUE;
        caller->n_grants = 0;
        return FALSE;
      }
  return FALSE;
}

/* Only a yes given without a password prompt is kept: a policy that asks
 * for a password (auth_admin) asks at every call, as it did. */
static void
remember_grant (SysprofdCall *call, const char *action)
{
  Caller *caller = call->caller;
  Grant  *grant = NULL;

  if (call->interactive || caller->start_time == 0)
    return;
  for (guint i = 0; i < caller->n_grants && grant == NULL; i++)
    if (g_str_equal (caller->grants[i].action, action))
      grant = &caller->grants[i];
  if (grant == NULL && caller->n_grants < MAX_GRANTS)
    grant = &caller->grants[caller->n_grants++];
  if (grant == NULL)
    return;
  grant->action = action;
  grant->until = g_get_monotonic_time () + SYSPROF_DBUS_AUTH_CACHE_SECONDS * G_USEC_PER_SEC;
}

/* The authorization slot of @call's uid goes to its next call. */
static void
release_auth_slot (SysprofdCall *call)
{
  UidState     *us = call->uid_state;
  SysprofdCall *next;

  g_mutex_lock (&lock);
  us->n_auth--;
  if ((next = g_queue_pop_head (&us->auth_wait)) != NULL)
    us->n_auth++;
  g_mutex_unlock (&lock);
  if (next != NULL)
    start_authorization (next);
}

static gboolean
grant_from_cache (gpointer data)
{
  SysprofdCall *call = data;

  release_auth_slot (call);
  note_activity ();
  run (call);
  return G_SOURCE_REMOVE;
}

static void
run (SysprofdCall *call)
{
  if (call->flags & SYSPROFD_CALL_IN_MAIN)
    {
      call->func (call);
      sysprofd_call_unref (call);
    }
  else
    queue_for_worker (call);
}

static void
authorization_done (GObject *source, GAsyncResult *res, gpointer data)
{
  SysprofdCall *call = data;
  g_autoptr (PolkitAuthorizationResult) result = NULL;
  g_autoptr (GError) error = NULL;
  const char *action = g_object_get_data (G_OBJECT (call->invocation), "sysprofd-action");

  result = polkit_authority_check_authorization_finish (POLKIT_AUTHORITY (source), res, &error);
  g_clear_handle_id (&call->auth_timeout, g_source_remove);
  g_clear_object (&call->cancellable);
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      g_clear_error (&error);
      g_set_error (&error, G_IO_ERROR, G_IO_ERROR_TIMED_OUT, "polkit did not answer in time");
    }

  /* Not trusted with the machine: perhaps with what the call needs. */
  if (error == NULL && call->fallback != NULL &&
      (result == NULL || !polkit_authorization_result_get_is_authorized (result)))
    {
      check_action (call, g_steal_pointer (&call->fallback), TRUE);
      return;
    }

  release_auth_slot (call);

  if (result != NULL && polkit_authorization_result_get_is_authorized (result))
    {
      remember_grant (call, action);
      note_activity ();
      run (call);
    }
  else if (error != NULL)
    refuse (call, G_DBUS_ERROR_ACCESS_DENIED, SYSPROF_DBUS_DENIED_PREFIX "%s", error->message);
  else if (result != NULL && polkit_authorization_result_get_is_challenge (result))
    refuse (call, G_DBUS_ERROR_ACCESS_DENIED,
            SYSPROF_DBUS_DENIED_PREFIX "authentication is required for %s, "
                                       "but the caller did not allow interactive authorization or no agent answered",
            action);
  else
    refuse (call, G_DBUS_ERROR_ACCESS_DENIED, SYSPROF_DBUS_DENIED_PREFIX "polkit denied %s to this caller", action);
}

static gboolean
auth_timed_out (gpointer data)
{
  SysprofdCall *call = data;

  call->auth_timeout = 0;
  g_cancellable_cancel (call->cancellable);
  return G_SOURCE_REMOVE;
}

static void
check_action (SysprofdCall *call, const char *action, gboolean may_interact)
{
  g_autoptr (PolkitSubject) subject = polkit_system_bus_name_new (call->caller->sender);
  PolkitCheckAuthorizationFlags flags = POLKIT_CHECK_AUTHORIZATION_FLAGS_NONE;
  GDBusMessage                 *message = g_dbus_method_invocation_get_message (call->invocation);

  g_object_set_data (G_OBJECT (call->invocation), "sysprofd-action", (gpointer) action);
  /* Later, as polkit's answer would come: the call never runs inside the
   * handler that received it. */
  if (grant_is_cached (call->caller, action))
    {
      sysprofd_run_in_main (grant_from_cache, call);
      return;
    }
  /* Only ask for a password when the caller said it can wait for one. */
  if (may_interact && (g_dbus_message_get_flags (message) & G_DBUS_MESSAGE_FLAGS_ALLOW_INTERACTIVE_AUTHORIZATION))
    flags |= POLKIT_CHECK_AUTHORIZATION_FLAGS_ALLOW_USER_INTERACTION;
  call->interactive = (flags & POLKIT_CHECK_AUTHORIZATION_FLAGS_ALLOW_USER_INTERACTION) != 0;
  /* An authentication agent of the caller's own that never answers would
   * keep the call, and its uid's slot, forever. */
  g_clear_object (&call->cancellable);
  g_clear_handle_id (&call->auth_timeout, g_source_remove);
  call->cancellable = g_cancellable_new ();
  call->auth_timeout = g_timeout_add_seconds ((flags & POLKIT_CHECK_AUTHORIZATION_FLAGS_ALLOW_USER_INTERACTION)
                                                  ? SYSPROF_DBUS_INTERACTIVE_AUTH_TIMEOUT
                                                  : SYSPROF_DBUS_AUTH_TIMEOUT,
                                              auth_timed_out, call);
  polkit_authority_check_authorization (authority, subject, action, NULL, flags, call->cancellable, authorization_done,
                                        call);
}

/* A second question to polkit about a call already authorized. */
typedef struct
{
  SysprofdCall   *call;
  SysprofdAskFunc func;
  gpointer        data;
  GCancellable   *cancellable;
  guint           timeout;
} Ask;

static gboolean
ask_timed_out (gpointer data)
{
  Ask *ask = data;

  ask->timeout = 0;
  g_cancellable_cancel (ask->cancellable);
  return G_SOURCE_REMOVE;
}

static void
ask_done (GObject *source, GAsyncResult *res, gpointer data)
{
  Ask *ask = data;
  g_autoptr (PolkitAuthorizationResult) result = NULL;
  g_autoptr (GError) error = NULL;

  result = polkit_authority_check_authorization_finish (POLKIT_AUTHORITY (source), res, &error);
  g_clear_handle_id (&ask->timeout, g_source_remove);
  if (error != NULL)
    g_message ("polkit did not answer about %s: %s", g_dbus_method_invocation_get_method_name (ask->call->invocation),
               error->message);
  ask->func (ask->call, result != NULL && polkit_authorization_result_get_is_authorized (result), ask->data);
  g_clear_object (&ask->cancellable);
  sysprofd_call_unref (ask->call);
  g_free (ask);
}

void
sysprofd_call_ask (SysprofdCall *call, const char *action, SysprofdAskFunc func, gpointer data)
{
  g_autoptr (PolkitSubject) subject = NULL;
  Ask *ask;

  g_return_if_fail (call != NULL && action != NULL && func != NULL);

  if (authority == NULL)
    {
      func (call, FALSE, data);
      return;
    }
  subject = polkit_system_bus_name_new (call->caller->sender);
  ask = g_new0 (Ask, 1);
  ask->call = sysprofd_call_ref (call);
  ask->func = func;
  ask->data = data;
  ask->cancellable = g_cancellable_new ();
  ask->timeout = g_timeout_add_seconds (SYSPROF_DBUS_AUTH_TIMEOUT, ask_timed_out, ask);
  polkit_authority_check_authorization (authority, subject, action, NULL, POLKIT_CHECK_AUTHORIZATION_FLAGS_NONE,
                                        ask->cancellable, ask_done, ask);
}

static void
start_authorization (SysprofdCall *call)
{
  g_autoptr (GError) error = NULL;
  const char *action = NULL;

  if (authority == NULL && (authority = polkit_authority_get_sync (NULL, &error)) == NULL)
    {
      g_warning ("Cannot reach polkit to authorize %s.%s: %s",
                 g_dbus_method_invocation_get_interface_name (call->invocation),
                 g_dbus_method_invocation_get_method_name (call->invocation), error->message);
      /* The call is answered before the next one is tried. */
      sysprofd_call_ref (call);
      refuse (call, G_DBUS_ERROR_ACCESS_DENIED, SYSPROF_DBUS_DENIED_PREFIX "polkit is not available");
      release_auth_slot (call);
      sysprofd_call_unref (call);
      return;
    }

  if (call->action != NULL)
    action = call->action (call);
  /* A call that needs only a weaker action still gets the full one when the
   * caller holds it (a session of one's own processes then keeps its kernel
   * stacks): asked first, without a password prompt. */
  if (action != NULL && !g_str_equal (action, SYSPROF_DBUS_ACTION_PROFILE))
    {
      call->fallback = action;
      check_action (call, SYSPROF_DBUS_ACTION_PROFILE, FALSE);
    }
  else
    check_action (call, SYSPROF_DBUS_ACTION_PROFILE, TRUE);
}

/* ------------------------------------------------------------------------ */
/* Admission */

static void
admit (SysprofdCall *call)
{
  guint32   uid = call->caller->uid;
  UidState *us;
  gboolean  authorize_now = FALSE;
  guint     n = 0;

  g_mutex_lock (&lock);
  if (shutting_down)
    {
      g_mutex_unlock (&lock);
      refuse (call, G_DBUS_ERROR_NO_SERVER, "sysprofd is exiting");
      return;
    }
  if ((us = g_hash_table_lookup (uids, GUINT_TO_POINTER (uid))) == NULL)
    {
      us = g_new0 (UidState, 1);
      us->uid = uid;
      g_hash_table_insert (uids, GUINT_TO_POINTER (uid), us);
    }
  if (us->n_calls >= SYSPROF_DBUS_MAX_CALLS_PER_UID)
    n = us->n_calls;
  else
    {
      us->n_calls++;
      n_calls++;
      call->uid_state = us;
      if (us->n_auth < SYSPROF_DBUS_MAX_AUTH_PER_UID)
        {
          us->n_auth++;
          authorize_now = TRUE;
        }
      else
        g_queue_push_tail (&us->auth_wait, call);
    }
  g_mutex_unlock (&lock);

  if (n > 0)
    refuse (call, G_DBUS_ERROR_LIMITS_EXCEEDED,
            "uid %u already has %u calls waiting or running, the limit per user; wait for their answers", uid, n);
  else if (authorize_now)
    start_authorization (call);
}

static void
credentials_done (GObject *source, GAsyncResult *res, gpointer data)
{
  Caller *caller = data;
  g_autoptr (GVariant) reply = NULL;
  g_autoptr (GVariant) dict = NULL;
  g_autoptr (GVariant) groups = NULL;
  g_autoptr (GError) error = NULL;
  gboolean known = FALSE;

  reply = g_dbus_connection_call_finish (G_DBUS_CONNECTION (source), res, &error);
  if (reply != NULL)
    {
      GVariantDict d;

      dict = g_variant_get_child_value (reply, 0);
      g_variant_dict_init (&d, dict);
      known = g_variant_dict_lookup (&d, "UnixUserID", "u", &caller->uid);
      if (g_variant_dict_lookup (&d, "ProcessID", "u", &caller->pid))
        caller->start_time = process_start_time (caller->pid);
      if ((groups = g_variant_dict_lookup_value (&d, "UnixGroupIDs", G_VARIANT_TYPE ("au"))) != NULL)
        {
          gsize          len;
          const guint32 *ids = g_variant_get_fixed_array (groups, &len, sizeof (guint32));

          g_array_append_vals (caller->groups, ids, (guint) len);
        }
      g_variant_dict_clear (&d);
    }

  if (known)
    {
      caller->state = CALLER_KNOWN;
      while (!g_queue_is_empty (&caller->waiting))
        admit (g_queue_pop_head (&caller->waiting));
    }
  else
    {
      /* Forget it: a later call asks again. */
      caller->state = CALLER_UNKNOWN;
      if (g_hash_table_lookup (callers, caller->sender) == caller)
        g_hash_table_remove (callers, caller->sender);
      while (!g_queue_is_empty (&caller->waiting))
        refuse (g_queue_pop_head (&caller->waiting), G_DBUS_ERROR_ACCESS_DENIED,
                SYSPROF_DBUS_DENIED_PREFIX "cannot identify the caller: %s",
                error ? error->message : "the bus did not say its uid");
    }
  caller_unref (caller);
}

void
sysprofd_dispatch (GDBusMethodInvocation *invocation,
                   SysprofdCallFlags      flags,
                   SysprofdActionFunc     action,
                   SysprofdCallFunc       func,
                   gpointer               data,
                   GDestroyNotify         destroy)
{
  const char   *sender = g_dbus_method_invocation_get_sender (invocation);
  SysprofdCall *call;
  Caller       *caller;

  g_return_if_fail (G_IS_DBUS_METHOD_INVOCATION (invocation));
  g_return_if_fail (func != NULL);

  call = g_new0 (SysprofdCall, 1);
  call->ref_count = 1;
  call->invocation = g_object_ref (invocation);
  call->flags = flags;
  call->action = action;
  call->func = func;
  call->data = data;
  call->destroy = destroy;

  /* Admitted calls are kept while they wait: what one may hold is bounded
   * before anything else (no argument of the API is near this big, and no
   * method takes more than one fd). */
  {
    GDBusMessage *message = g_dbus_method_invocation_get_message (invocation);
    GVariant     *body = g_dbus_message_get_body (message);
    GUnixFDList  *fds = g_dbus_message_get_unix_fd_list (message);

    if ((body != NULL && g_variant_get_size (body) > SYSPROF_DBUS_MAX_CALL_BYTES) ||
        (fds != NULL && g_unix_fd_list_get_length (fds) > 1))
      {
        call->caller = g_new0 (Caller, 1);
        call->caller->ref_count = 1;
        call->caller->groups = g_array_new (FALSE, FALSE, sizeof (guint32));
        refuse (call, G_DBUS_ERROR_LIMITS_EXCEEDED,
                "A call to sysprofd carries at most %u bytes of arguments and one file descriptor",
                SYSPROF_DBUS_MAX_CALL_BYTES);
        return;
      }
  }

  if (sender == NULL)
    {
      /* Peer-to-peer: no bus to ask who calls. */
      call->caller = g_new0 (Caller, 1);
      call->caller->ref_count = 1;
      call->caller->groups = g_array_new (FALSE, FALSE, sizeof (guint32));
      refuse (call, G_DBUS_ERROR_ACCESS_DENIED, SYSPROF_DBUS_DENIED_PREFIX "no sender");
      return;
    }

  if ((caller = g_hash_table_lookup (callers, sender)) == NULL)
    {
      caller = g_new0 (Caller, 1);
      caller->ref_count = 1;
      caller->sender = g_strdup (sender);
      caller->groups = g_array_new (FALSE, FALSE, sizeof (guint32));
      g_hash_table_insert (callers, caller->sender, caller);
    }
  call->caller = caller_ref (caller);

  switch (caller->state)
    {
    case CALLER_KNOWN: admit (call); break;
    case CALLER_UNKNOWN:
      caller->state = CALLER_ASKING;
      g_dbus_connection_call (bus, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                              "GetConnectionCredentials", g_variant_new ("(s)", sender), G_VARIANT_TYPE ("(a{sv})"),
                              G_DBUS_CALL_FLAGS_NONE, -1, NULL, credentials_done, caller_ref (caller));
      G_GNUC_FALLTHROUGH;
    case CALLER_ASKING:
      /* Bounded like the calls of a uid: it is not known yet whose they are. */
      if (caller->waiting.length >= SYSPROF_DBUS_MAX_CALLS_PER_UID)
        refuse (call, G_DBUS_ERROR_LIMITS_EXCEEDED, "%u calls of %s wait to be identified, the limit",
                caller->waiting.length, sender);
      else
        g_queue_push_tail (&caller->waiting, call);
      break;
    default: g_assert_not_reached ();
    }
}

gboolean
sysprofd_dispatcher_lookup_uid (const char *sender, guint32 *uid)
{
  Caller *caller;

  if (sender == NULL || callers == NULL || (caller = g_hash_table_lookup (callers, sender)) == NULL ||
      caller->state != CALLER_KNOWN)
    return FALSE;
  *uid = caller->uid;
  return TRUE;
}

static void
name_owner_changed (GDBusConnection *connection,
                    const char      *sender_name,
                    const char      *object_path,
                    const char      *interface_name,
                    const char      *signal_name,
                    GVariant        *parameters,
                    gpointer         user_data)
{
  const char *name;
  const char *old_owner;
  const char *new_owner;

  (void) connection;
  (void) sender_name;
  (void) object_path;
  (void) interface_name;
  (void) signal_name;
  (void) user_data;
  if (!g_variant_is_of_type (parameters, G_VARIANT_TYPE ("(sss)")))
    return;
  g_variant_get (parameters, "(&s&s&s)", &name, &old_owner, &new_owner);
  /* A unique name that left never comes back. */
  if (name[0] == ':' && new_owner[0] == 0)
    g_hash_table_remove (callers, name);
}

static void
caller_remove (gpointer data)
{
  Caller *caller = data;

  /* Calls waiting for the credentials keep their reference and are answered
   * (to nobody) when they arrive.  What polkit granted the connection ends
   * with it. */
  caller->n_grants = 0;
  caller_unref (caller);
}

void
sysprofd_dispatcher_init (GDBusConnection *connection)
{
  g_return_if_fail (G_IS_DBUS_CONNECTION (connection));
  g_return_if_fail (bus == NULL);

  bus = g_object_ref (connection);
  callers = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, caller_remove);
  uids = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  note_activity ();
  name_owner_subscription = g_dbus_connection_signal_subscribe (
      connection, "org.freedesktop.DBus", "org.freedesktop.DBus", "NameOwnerChanged", "/org/freedesktop/DBus", NULL,
      G_DBUS_SIGNAL_FLAGS_NONE, name_owner_changed, NULL, NULL);
  workers = g_ptr_array_new ();
  for (guint i = 0; i < SYSPROF_DBUS_WORKERS; i++)
    {
      g_autofree char *name = g_strdup_printf ("sysprofd-worker-%u", i);
      g_ptr_array_add (workers, g_thread_new (name, worker_main, NULL));
    }
}

void
sysprofd_dispatcher_shutdown (void)
{
  g_autoptr (GPtrArray) left = g_ptr_array_new ();
  GHashTableIter iter;
  gpointer       value;

  if (bus == NULL)
    return;
  g_mutex_lock (&lock);
  shutting_down = TRUE;
  g_cond_broadcast (&cond);
  g_mutex_unlock (&lock);
  for (guint i = 0; i < workers->len; i++)
    g_thread_join (workers->pdata[i]);
  g_clear_pointer (&workers, g_ptr_array_unref);

  /* What never reached a worker is told so. */
  g_mutex_lock (&lock);
  g_hash_table_iter_init (&iter, uids);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    {
      UidState *us = value;

      while (!g_queue_is_empty (&us->ready))
        {
          SysprofdCall *call = g_queue_pop_head (&us->ready);

          g_ptr_array_add (left, call);
        }
      us->rotation_link = NULL;
    }
  g_queue_clear (&rotation);
  g_mutex_unlock (&lock);
  for (guint i = 0; i < left->len; i++)
    refuse (left->pdata[i], G_DBUS_ERROR_NO_SERVER, "sysprofd is exiting");

  if (name_owner_subscription)
    g_dbus_connection_signal_unsubscribe (bus, name_owner_subscription);
  name_owner_subscription = 0;
}
