// SPDX-License-Identifier: GPL-3.0-or-later
/* sysprof_thread_task_run(): g_task_run_in_thread() for tasks whose source
 * object must not be finalized in a thread.
 *
 * g_task_run_in_thread() keeps a reference to its task in the thread until
 * after the task's callback may already have run on the main thread, so the
 * thread can drop the last reference to the task, and with it the source
 * object's: a view's widget finalized outside the main thread, or the
 * document waiting for its own worker in its finalize.  Here the thread only
 * holds a twin task without source object; @task, and so its source object,
 * is completed and released on its own main context.
 */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* Runs @func in a thread for @task.  @func gets the twin task (return the
 * result into it with g_task_return_pointer() or an error), @task's source
 * object and task data (alive until the twin completes) and @task's
 * cancellable.  The result then completes @task on its context; @result_free
 * frees it if nobody propagates it.  Takes over the caller's reference to
 * @task. */
void sysprof_thread_task_run (GTask *task, GTaskThreadFunc func, GDestroyNotify result_free);

G_END_DECLS
