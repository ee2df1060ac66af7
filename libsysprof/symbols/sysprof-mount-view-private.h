// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#ifndef SYSPROF_SYMBOLS_COMPILATION
#error "sysprof-mount-view-private.h is private to libsysprof/symbols."
#endif

#include "sysprof-elf-loader-private.h"
#include "sysprof-mount-namespace.h"
#include "sysprof-symbolizer.h"

G_BEGIN_DECLS

/* The views of the file system that the processes of a capture had, and
 * what the live host said about them.  Processes whose captured mountinfo
 * texts are equal share a mount namespace (mount ids are unique across the
 * namespaces of a kernel), so they share one view: its path translations,
 * the host's answers (ResolvePath, ListDebugDirectories), and the ELF files
 * found for it.  Decoding therefore costs per distinct namespace and binary,
 * not per process: a build's ten thousand short processes are a handful of
 * views.
 *
 * A process without a mountinfo of its own runs in its parent's namespace
 * (the FORK frames tell the parent), as a fork does unless it unshares; one
 * whose ancestry shows none at all gets a view of its own, about which only
 * the host can tell.  A wrong guess costs names, not wrong names: a file is
 * used only when its inode is the one the MAP frame recorded. */

typedef struct _SysprofMountView  SysprofMountView;
typedef struct _SysprofMountViews SysprofMountViews;

/* @host: the symbolizer's own mount table (translations are to it), or NULL
 * for none; @loader: for views without debug directories of their own;
 * @debug_dirs: searched after a view's own.  All are referenced/copied. */
SysprofMountViews      *
sysprof_mount_views_new (SysprofMountTable *host, SysprofElfLoader *loader, const char *const *debug_dirs);
void sysprof_mount_views_free (SysprofMountViews *self);
/* Who to ask about views that are not the host's (a copy is kept). */
void sysprof_mount_views_set_host (SysprofMountViews *self, const SysprofSymbolizerHost *host, gpointer user_data);

/* The view of the namespace whose mountinfo text is @mountinfo, shared by
 * every process with the same text, with @pid added to the processes the
 * host may be asked about unless @exited (the capture saw @pid exit: the
 * host cannot tell about it, and its pid may be another process's now).
 * NULL @mountinfo: a view of @pid alone.  Owned by @self. */
SysprofMountView *
sysprof_mount_views_get (SysprofMountViews *self, const guint8 *mountinfo, gsize len, gint32 pid, gboolean exited);

/* The ELF file that @filename (as a MAP frame names it, " (deleted)"
 * included) with @inode (0: unknown) is for processes of @view, or NULL.
 * Asks the host, one question at a time, what sysprof_mount_views_ask()
 * did not already ask.  The result is owned by @self. */
SysprofElf *
sysprof_mount_view_load (SysprofMountViews *self, SysprofMountView *view, const char *filename, guint64 inode);

/* Notes that sysprof_mount_view_load() will be asked about @filename in
 * @view, so that sysprof_mount_views_ask() asks the host everything in as
 * few calls as it can. */
void sysprof_mount_views_plan (SysprofMountViews *self, SysprofMountView *view, const char *filename);
/* Asks the host what the planned loads need: the debug directories of each
 * view that needs the host, and the host path of each of their files, once
 * per view and path, batched when the host can batch. */
void sysprof_mount_views_ask (SysprofMountViews *self);

/* The mount namespace of @view's mountinfo, translated to the host's; NULL
 * for a view without one (the host's own, or a process without mountinfo). */
SysprofMountNamespace *sysprof_mount_view_get_namespace (SysprofMountViews *self, SysprofMountView *view);

/* How many questions the host was asked (each item of a batch counts): for
 * tests of what decoding costs. */
guint sysprof_mount_views_get_n_questions (SysprofMountViews *self);

G_END_DECLS
