// SPDX-License-Identifier: GPL-3.0-or-later
#include "sysprof-thread-task.h"

typedef struct
{
  GTask          *task; /* owned */
  GTaskThreadFunc func;
  GDestroyNotify  result_free;
} Relay;

static void
run_func (GTask *twin, gpointer source, gpointer task_data, GCancellable *cancellable)
{
  Relay *relay = task_data;

  (void) source;
  relay->func (twin, g_task_get_source_object (relay->task), g_task_get_task_data (relay->task), cancellable);
}

static void
twin_done (GObject *unused, GAsyncResult *result, gpointer user_data)
{
  Relay   *relay = user_data;
  GError  *error = NULL;
  gpointer value;

  (void) unused;
  value = g_task_propagate_pointer (G_TASK (result), &error);
  if (error != NULL)
    g_task_return_error (relay->task, error);
  else
    g_task_return_pointer (relay->task, value, relay->result_free);
  g_object_unref (relay->task);
  g_free (relay);
}

void
sysprof_thread_task_run (GTask *task, GTaskThreadFunc func, GDestroyNotify result_free)
{
  g_autoptr (GTask) twin = NULL;
  Relay *relay;

  g_return_if_fail (G_IS_TASK (task));
  g_return_if_fail (func != NULL);

  relay = g_new0 (Relay, 1);
  relay->task = task;
  relay->func = func;
  relay->result_free = result_free;
  /* The twin's task data is freed wherever the twin dies: it owns nothing
   * (the relay is freed in twin_done, on @task's context). */
  twin = g_task_new (NULL, g_task_get_cancellable (task), twin_done, relay);
  g_task_set_task_data (twin, relay, NULL);
  g_task_set_check_cancellable (twin, FALSE);
  g_task_run_in_thread (twin, run_func);
}
