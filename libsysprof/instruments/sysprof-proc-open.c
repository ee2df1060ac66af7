// SPDX-License-Identifier: GPL-3.0-or-later
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sysprof-proc-open-private.h"

int
_sysprof_open_in_process_root (gint32 pid, const char *path, gboolean nofollow)
{
  struct open_how how = { 0 };
  int             root_fd = AT_FDCWD;
  int             fd;
  int             errsv;

  g_return_val_if_fail (path != NULL, -1);

  if (pid > 0)
    {
      g_autofree char *root = g_strdup_printf ("/proc/%d/root", pid);

      if ((root_fd = open (root, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
        return -1;
    }
  how.flags = O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | (nofollow ? O_NOFOLLOW : 0);
  how.resolve = RESOLVE_NO_MAGICLINKS | (pid > 0 ? RESOLVE_IN_ROOT : 0);
  fd = (int) syscall (SYS_openat2, root_fd, path, &how, sizeof how);
  errsv = errno;
  if (root_fd >= 0)
    close (root_fd);
  errno = errsv;
  return fd;
}
