// SPDX-License-Identifier: GPL-3.0-or-later
/* SysprofMountNamespace: paths as a process saw them translated to host
 * paths from mountinfo texts alone.  Fixtures are shaped after real
 * mountinfo files (a desktop, a container, a Flatpak sandbox, btrfs
 * subvolumes); the last test makes a real mount namespace with unshare. */
#include <stdlib.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "sysprof-mount-namespace.h"

/* A desktop: ext4 root and /home, tmpfs /tmp. */
static const char host_desktop[] =
    "22 1 8:2 / / rw,relatime shared:1 - ext4 /dev/sda2 rw,errors=remount-ro\n"
    "23 22 0:5 / /dev rw,nosuid,relatime shared:2 - devtmpfs udev rw,size=8126524k,nr_inodes=2031631,mode=755\n"
    "24 22 0:21 / /proc rw,nosuid,nodev,noexec,relatime shared:12 - proc proc rw\n"
    "25 22 8:3 / /home rw,relatime shared:30 - ext4 /dev/sda3 rw\n"
    "26 22 0:30 / /tmp rw,nosuid,nodev shared:40 - tmpfs tmpfs rw,size=8126524k\n"
    "27 22 8:1 / /boot/efi rw,relatime shared:41 - vfat /dev/sda1 rw,fmask=0077,dmask=0077\n"
    "28 24 0:40 / /proc/sys/fs/binfmt_misc rw,relatime shared:13 - binfmt_misc binfmt_misc rw\n";

/* Runs translate and checks the whole answer; @... is the expected NULL-terminated list. */
static void
assert_translates (SysprofMountNamespace *ns, const char *path, ...)
{
  g_auto (GStrv) got = sysprof_mount_namespace_translate (ns, path);
  g_autoptr (GStrvBuilder) builder = g_strv_builder_new ();
  g_auto (GStrv) expected = NULL;
  g_autofree char *got_joined = NULL;
  g_autofree char *expected_joined = NULL;
  va_list          args;

  va_start (args, path);
  for (const char *p = va_arg (args, const char *); p != NULL; p = va_arg (args, const char *))
    g_strv_builder_add (builder, p);
  va_end (args);
  expected = g_strv_builder_end (builder);

  g_assert_nonnull (got);
  got_joined = g_strjoinv ("|", got);
  expected_joined = g_strjoinv ("|", expected);
  g_assert_cmpstr (got_joined, ==, expected_joined);
  g_assert_cmpuint (g_strv_length (got), ==, g_strv_length (expected));
}

/* The process is in the host's namespace: every path is itself, first. */
/* Every field of a line, as sysprofd's GetMountInfo hands them out, and
 * step 3 alone, as sysprofd runs it once it found the file's mount. */
static void
test_fields (void)
{
  static const char text[] = "36 35 98:17 /mnt\\0401 /mnt\\0402 rw,noatime master:1 - ext\\0403 /dev/r\\011t rw,x=1\n"
                             "37 36 98:17 / /host rw - ext4 /dev/sda rw\n";
  g_autoptr (SysprofMountTable) table = sysprof_mount_table_new (text, sizeof text - 1);
  g_auto (GStrv) paths = NULL;
  g_autofree char    *joined = NULL;
  const SysprofMount *m;

  g_assert_cmpuint (sysprof_mount_table_get_n_mounts (table), ==, 2);
  m = sysprof_mount_table_get_mount (table, 0);
  g_assert_cmpuint (m->mount_id, ==, 36);
  g_assert_cmpuint (m->parent_id, ==, 35);
  g_assert_cmpuint (m->major, ==, 98);
  g_assert_cmpuint (m->minor, ==, 17);
  g_assert_cmpstr (m->root, ==, "/mnt 1");
  g_assert_cmpstr (m->mount_point, ==, "/mnt 2");
  g_assert_cmpstr (m->options, ==, "rw,noatime");
  g_assert_cmpstr (m->fstype, ==, "ext 3");
  g_assert_cmpstr (m->source, ==, "/dev/r\tt");
  g_assert_cmpstr (m->super_options, ==, "rw,x=1");

  g_assert_cmpstr (sysprof_mount_path_below ("/a/b", "/a"), ==, "/b");
  g_assert_cmpstr (sysprof_mount_path_below ("/a", "/a"), ==, "");
  g_assert_null (sysprof_mount_path_below ("/ab", "/a"));
  g_assert_null (sysprof_mount_path_below ("/a", "net:[1]"));
  joined = sysprof_mount_path_join ("/", "/x");
  g_assert_cmpstr (joined, ==, "/x");

  /* A file at /usr/lib/x of the device's root, seen from a mount of it. */
  paths =
      sysprof_mount_table_find_host_paths (table, sysprof_mount_table_get_mount (table, 1), "/usr/lib/x", NULL, NULL);
  g_assert_cmpstr (paths[0], ==, "/host/usr/lib/x");
  g_assert_null (paths[1]);
}

static void
test_identity (void)
{
  /* Two host bind mounts of one directory of /home, the second of a
   * subdirectory: more candidates, the very same mount first. */
  static const char host[] = "22 1 8:2 / / rw,relatime shared:1 - ext4 /dev/sda2 rw\n"
                             "25 22 8:3 / /home rw,relatime shared:30 - ext4 /dev/sda3 rw\n"
                             "40 22 8:3 /u/ns-lib /opt/lib rw,relatime shared:31 - ext4 /dev/sda3 rw\n"
                             "41 22 8:3 /u/ns-lib/sub /srv/sub rw,relatime shared:32 - ext4 /dev/sda3 rw\n";
  g_autoptr (SysprofMountNamespace) ns = sysprof_mount_namespace_new (host, strlen (host), host, strlen (host));
  g_autoptr (SysprofMountNamespace) desktop =
      sysprof_mount_namespace_new (host_desktop, strlen (host_desktop), host_desktop, strlen (host_desktop));

  assert_translates (desktop, "/usr/lib/x86_64-linux-gnu/libc.so.6", "/usr/lib/x86_64-linux-gnu/libc.so.6", NULL);
  assert_translates (desktop, "/home/u/bin/app", "/home/u/bin/app", NULL);
  assert_translates (desktop, "/tmp/jit-1234.so", "/tmp/jit-1234.so", NULL);
  assert_translates (desktop, "/", "/", NULL);
  assert_translates (desktop, "/home", "/home", NULL);
  /* Normalized lexically. */
  assert_translates (desktop, "//usr/./lib/../lib//libm.so.6", "/usr/lib/libm.so.6", NULL);
  assert_translates (desktop, "/../../usr/bin/", "/usr/bin", NULL);

  assert_translates (ns, "/opt/lib/libfoo.so.1", "/opt/lib/libfoo.so.1", "/home/u/ns-lib/libfoo.so.1", NULL);
  /* The same mount beats the longer root of /srv/sub. */
  assert_translates (ns, "/opt/lib/sub/libbar.so", "/opt/lib/sub/libbar.so", "/srv/sub/libbar.so",
                     "/home/u/ns-lib/sub/libbar.so", NULL);
  assert_translates (ns, "/srv/sub/libbar.so", "/srv/sub/libbar.so", "/opt/lib/sub/libbar.so",
                     "/home/u/ns-lib/sub/libbar.so", NULL);
}

/* A container (new mount ids) with a host directory bind-mounted inside. */
static void
test_bind_mount (void)
{
  static const char process[] = "300 299 8:2 / / rw,relatime master:1 - ext4 /dev/sda2 rw,errors=remount-ro\n"
                                "301 300 0:21 / /proc rw,nosuid,nodev,noexec,relatime - proc proc rw\n"
                                "302 300 8:3 /u/ns-lib /opt/lib rw,relatime - ext4 /dev/sda3 rw\n"
                                "303 300 0:55 / /tmp rw,nosuid,nodev - tmpfs tmpfs rw\n"
                                "304 300 0:56 / /dev rw,nosuid - tmpfs tmpfs rw,size=65536k,mode=755\n";
  g_autoptr (SysprofMountNamespace) ns =
      sysprof_mount_namespace_new (process, strlen (process), host_desktop, strlen (host_desktop));

  assert_translates (ns, "/opt/lib/libfoo.so.1", "/home/u/ns-lib/libfoo.so.1", NULL);
  assert_translates (ns, "/opt/lib", "/home/u/ns-lib", NULL);
  assert_translates (ns, "/opt/lib/a/b/../c.so", "/home/u/ns-lib/a/c.so", NULL);
  /* Not a mount point: /opt/library is on the root file system. */
  assert_translates (ns, "/opt/library/x.so", "/opt/library/x.so", NULL);
  assert_translates (ns, "/usr/bin/bash", "/usr/bin/bash", NULL);
  /* The container's own tmpfs: nothing on the host shows it. */
  assert_translates (ns, "/tmp/x.so", NULL);
  assert_translates (ns, "/dev/zero", NULL);
  /* Not paths at all. */
  assert_translates (ns, "[vdso]", NULL);
  assert_translates (ns, "usr/lib/libc.so.6", NULL);
  assert_translates (ns, "", NULL);
}

/* Flatpak (bubblewrap): a tmpfs root, /usr and /app from the runtime and the
 * application deployments, the host's /usr under /run/host. */
static void
test_flatpak (void)
{
#define RUNTIME "/var/lib/flatpak/runtime/org.gnome.Platform/x86_64/46/3c2b1a9d8e7f/files"
#define APP     "/var/lib/flatpak/app/org.example.App/x86_64/stable/9f8e7d6c5b4a/files"
  static const char process[] =
      "1100 1050 0:120 / / rw,nosuid,nodev,relatime - tmpfs tmpfs rw,size=8126524k,uid=1000,gid=1000\n"
      "1101 1100 8:2 " RUNTIME " /usr ro,nosuid,nodev,relatime master:1 - ext4 /dev/sda2 rw,errors=remount-ro\n"
      "1102 1100 8:2 " APP " /app ro,nosuid,nodev,relatime master:1 - ext4 /dev/sda2 rw,errors=remount-ro\n"
      "1103 1100 0:121 / /tmp rw,nosuid,nodev,relatime - tmpfs tmpfs rw,uid=1000,gid=1000\n"
      "1104 1100 0:122 / /run rw,nosuid,nodev - tmpfs tmpfs rw,mode=755\n"
      "1105 1104 8:2 /usr /run/host/usr ro,nosuid,nodev,relatime master:1 - ext4 /dev/sda2 rw,errors=remount-ro\n"
      "1106 1100 8:3 /u/.var/app/org.example.App /home/u/.var/app/org.example.App rw,nosuid,nodev,relatime "
      "master:30 - ext4 /dev/sda3 rw\n"
      "1107 1100 8:2 " RUNTIME "/etc /etc ro,nosuid,nodev,relatime master:1 - ext4 /dev/sda2 rw\n"
      "1108 1100 0:21 / /proc rw,nosuid,nodev,noexec,relatime - proc proc rw\n";
  g_autoptr (SysprofMountNamespace) ns =
      sysprof_mount_namespace_new (process, strlen (process), host_desktop, strlen (host_desktop));

  assert_translates (ns, "/usr/lib/x86_64-linux-gnu/libgtk-4.so.1", RUNTIME "/lib/x86_64-linux-gnu/libgtk-4.so.1",
                     NULL);
  assert_translates (ns, "/app/bin/example", APP "/bin/example", NULL);
  assert_translates (ns, "/app/lib/debug/.build-id/ab/cdef.debug", APP "/lib/debug/.build-id/ab/cdef.debug", NULL);
  assert_translates (ns, "/etc/ld.so.cache", RUNTIME "/etc/ld.so.cache", NULL);
  assert_translates (ns, "/run/host/usr/lib/libc.so.6", "/usr/lib/libc.so.6", NULL);
  assert_translates (ns, "/home/u/.var/app/org.example.App/cache/x.so", "/home/u/.var/app/org.example.App/cache/x.so",
                     NULL);
  /* The sandbox's tmpfs root and /tmp. */
  assert_translates (ns, "/bin/sh", NULL);
  assert_translates (ns, "/tmp/.flatpak-jit.so", NULL);
  assert_translates (ns, "/run/user/1000/x", NULL);
#undef RUNTIME
#undef APP
}

/* btrfs: one file system (one major:minor) whose subvolumes show as root
 * fields; a systemd-nspawn container rooted in a directory of /@. */
static void
test_btrfs_subvolumes (void)
{
  static const char host[] =
      "30 1 0:31 /@ / rw,relatime shared:1 - btrfs /dev/nvme0n1p2 rw,ssd,space_cache=v2,subvolid=256,subvol=/@\n"
      "31 30 0:31 /@home /home rw,relatime shared:2 - btrfs /dev/nvme0n1p2 rw,ssd,subvolid=257,subvol=/@home\n"
      "32 30 259:1 / /boot/efi rw,relatime shared:3 - vfat /dev/nvme0n1p1 rw\n"
      "33 30 0:31 /@home/u/src /srv/src rw,relatime shared:2 - btrfs /dev/nvme0n1p2 rw,ssd,subvol=/@home\n"
      "34 30 0:31 /@snapshots /.snapshots rw,relatime shared:4 - btrfs /dev/nvme0n1p2 rw,ssd,subvol=/@snapshots\n"
      "35 30 0:31 /@home/u/src /mnt/src-again rw,relatime shared:2 - btrfs /dev/nvme0n1p2 rw,ssd,subvol=/@home\n";
  static const char process[] =
      "700 650 0:31 /@/var/lib/machines/deb / rw,relatime - btrfs /dev/nvme0n1p2 rw,ssd,subvol=/@\n"
      "701 700 0:31 /@home/u/src /src rw,relatime - btrfs /dev/nvme0n1p2 rw,ssd,subvol=/@home\n"
      "702 700 0:31 /@snapshots/1/snapshot /snap ro,relatime - btrfs /dev/nvme0n1p2 rw,ssd,subvol=/@snapshots\n"
      "703 700 0:31 /@homework /hw rw,relatime - btrfs /dev/nvme0n1p2 rw,ssd,subvol=/@homework\n";
  g_autoptr (SysprofMountNamespace) ns = sysprof_mount_namespace_new (process, strlen (process), host, strlen (host));

  assert_translates (ns, "/usr/lib/libc.so.6", "/var/lib/machines/deb/usr/lib/libc.so.6", NULL);
  /* Longest root first, then the most recent of equal roots; /@ is no parent
   * of /@home. */
  assert_translates (ns, "/src/build/libmain.so", "/mnt/src-again/build/libmain.so", "/srv/src/build/libmain.so",
                     "/home/u/src/build/libmain.so", NULL);
  assert_translates (ns, "/snap/usr/bin/ls", "/.snapshots/1/snapshot/usr/bin/ls", NULL);
  /* A subvolume the host does not mount: /@home is no parent of /@homework. */
  assert_translates (ns, "/hw/x.so", NULL);
}

/* Space, tab and backslash are octal escapes; \000 and other backslashes
 * stay as written. */
static void
test_escapes (void)
{
  static const char process[] = "800 799 8:2 / / rw - ext4 /dev/sda2 rw\n"
                                "801 800 8:3 /u/ns\\040lib/My\\011Tab /opt/my\\040libs rw - ext4 /dev/sda3 rw\n"
                                "802 800 8:3 /u/back\\134slash /opt/bs rw - ext4 /dev/sda3 rw\n"
                                "803 800 8:3 /u/odd\\000\\8\\ /opt/odd rw - ext4 /dev/sda3 rw\n";
  static const char host[] = "22 1 8:2 / / rw - ext4 /dev/sda2 rw\n"
                             "25 22 8:3 / /home\\040dir rw - ext4 /dev/sda3 rw\n";
  g_autoptr (SysprofMountNamespace) ns = sysprof_mount_namespace_new (process, strlen (process), host, strlen (host));

  assert_translates (ns, "/opt/my libs/libx.so", "/home dir/u/ns lib/My\tTab/libx.so", NULL);
  assert_translates (ns, "/opt/my\\040libs/libx.so", "/opt/my\\040libs/libx.so", NULL);
  assert_translates (ns, "/opt/bs/y.so", "/home dir/u/back\\slash/y.so", NULL);
  assert_translates (ns, "/opt/odd/z.so", "/home dir/u/odd\\000\\8\\/z.so", NULL);
}

/* Lines that do not parse are skipped; the rest still work. */
static void
test_malformed (void)
{
  static const char host[] = "garbage\n"
                             "\n"
                             "25 22 8:3 / /home rw - ext4\n"
                             "x 22 8:2 / / rw - ext4 /dev/sda2 rw\n"
                             "26 22 8:x / /tmp rw - tmpfs tmpfs rw\n"
                             "27 22 8:1 / relative rw - vfat /dev/sda1 rw\n"
                             "28 22 8:1 / /a rw shared:1 ext4 /dev/sda1 rw\n"
                             "29 22 8:1 / /b rw - ext4 /dev/sda1 rw extra\n"
                             "30 22 4096:1 / /c rw - ext4 /dev/x rw\n"
                             "31 22 8:1048576 / /d rw - ext4 /dev/x rw\n"
                             "99999999999999999999999 22 8:1 / /e rw - ext4 /dev/sda1 rw\n"
                             "32 22 8:1  /f rw - ext4 /dev/sda1 rw\n"
                             "33  8:1 / /g rw - ext4 /dev/sda1 rw\n"
                             "34 22 8:1 / /h rw - - /dev/sda1 rw\n"
                             "35 22 8:1 / /i rw -  /dev/sda1 rw\n"
                             "22 1 8:2 / / rw,relatime shared:1 - ext4 /dev/sda2 rw\n"
                             "36 22 8:3 / /home rw,relatime shared:30 - ext4  rw\n"
                             "37 22 8:4 / /nul rw - ext4 /dev/sda4 rw\0\n"
                             "38 22 8:4 / /srv rw - ext4 /dev/sda4 rw";
  static const char process[] = "\n\n500 499 8:2 / / rw - ext4 /dev/sda2 rw\n"
                                "501 500 8:3 /u /home/u rw - ext4 /dev/sda3 rw\n"
                                "502 500 8:4 /www /var/www rw - ext4 /dev/sda4 rw\n"
                                "503 500 8:4 /www/x /var/www/x rw- ext4 /dev/sda4 rw\n";
  g_autoptr (SysprofMountTable) table = sysprof_mount_table_new (host, sizeof host - 1);
  g_autoptr (SysprofMountNamespace) ns = sysprof_mount_namespace_new_with_host (process, strlen (process), table);
  g_autoptr (SysprofMountNamespace) empty = sysprof_mount_namespace_new ("", 0, "", 0);
  g_autoptr (SysprofMountNamespace) no_host = sysprof_mount_namespace_new (process, strlen (process), "", 0);

  /* "/h" (fstype "-") and the empty source of /home parse; the line cut by a
   * NUL does not; the last line needs no newline. */
  g_assert_cmpuint (sysprof_mount_table_get_n_mounts (table), ==, 4);
  assert_translates (ns, "/usr/lib/libc.so.6", "/usr/lib/libc.so.6", NULL);
  assert_translates (ns, "/home/u/lib/x.so", "/home/u/lib/x.so", NULL);
  assert_translates (ns, "/var/www/x/index.so", "/srv/www/x/index.so", NULL);
  assert_translates (empty, "/usr/lib/libc.so.6", NULL);
  assert_translates (no_host, "/usr/lib/libc.so.6", NULL);
}

/* A mount covered by a later one does not count, in the process (the file
 * is on the mount that covers it) nor on the host (a host path through a
 * covering mount is another file). */
static void
test_covered_mounts (void)
{
  static const char process[] = "1 0 8:2 / / rw - ext4 /dev/sda2 rw\n"
                                "2 1 8:3 / /usr rw - ext4 /dev/sda3 rw\n"
                                "3 2 8:3 /lib /usr/lib rw - ext4 /dev/sda3 rw\n"
                                /* Mounted over /usr later: /usr/lib is gone. */
                                "4 2 8:2 /opt/newusr /usr rw - ext4 /dev/sda2 rw\n"
                                /* The root file system's /tmp directory, which the host covers. */
                                "5 1 8:2 /tmp/under /data rw - ext4 /dev/sda2 rw\n";
  static const char host[] = "22 1 8:2 / / rw - ext4 /dev/sda2 rw\n"
                             "26 22 0:30 / /tmp rw - tmpfs tmpfs rw\n"
                             "27 22 8:3 / /usr rw - ext4 /dev/sda3 rw\n";
  g_autoptr (SysprofMountNamespace) ns = sysprof_mount_namespace_new (process, strlen (process), host, strlen (host));

  assert_translates (ns, "/usr/lib/x.so", "/opt/newusr/lib/x.so", NULL);
  assert_translates (ns, "/data/y.so", NULL);
}

/* Stacked mounts at one place, listed out of order as the kernel may: the
 * top of the stack holds the files. */
static void
test_stacked_mounts (void)
{
  static const char process[] = "62 61 0:26 / /dev/shm rw - tmpfs tmpfs rw\n"
                                "45 44 254:0 / / rw,relatime - ext4 /dev/vda rw\n"
                                "61 60 0:22 / /dev/shm rw - tmpfs tmpfs rw\n"
                                "60 45 0:6 / /dev rw - devtmpfs devtmpfs rw\n"
                                "46 45 254:0 /srv/a /mnt rw - ext4 /dev/vda rw\n"
                                "47 46 254:0 /srv/b /mnt rw - ext4 /dev/vda rw\n";
  static const char host[] = "26 1 254:0 / / rw,relatime - ext4 /dev/vda rw\n"
                             "23 26 0:6 / /dev rw - devtmpfs devtmpfs rw\n"
                             "24 23 0:22 / /dev/shm rw - tmpfs tmpfs rw\n"
                             "29 24 0:26 / /dev/shm rw - tmpfs tmpfs rw\n";
  g_autoptr (SysprofMountNamespace) ns = sysprof_mount_namespace_new (process, strlen (process), host, strlen (host));

  assert_translates (ns, "/dev/shm/jit.so", "/dev/shm/jit.so", NULL);
  assert_translates (ns, "/mnt/lib.so", "/srv/b/lib.so", NULL);
}

static gboolean
exists_cb (const char *host_path, gpointer user_data)
{
  return !g_str_equal (host_path, user_data);
}

static int n_destroyed;

static void
count_destroy_cb (gpointer user_data)
{
  (void) user_data;
  n_destroyed++;
}

static void
test_exists_func (void)
{
  static const char      host[] = "22 1 8:2 / / rw - ext4 /dev/sda2 rw\n"
                                  "25 22 8:3 / /home rw - ext4 /dev/sda3 rw\n"
                                  "40 22 8:3 /u/lib /opt/lib rw - ext4 /dev/sda3 rw\n";
  static const char      process[] = "1 0 8:2 / / rw - ext4 /dev/sda2 rw\n"
                                     "2 1 8:3 /u/lib /lib2 rw - ext4 /dev/sda3 rw\n";
  SysprofMountNamespace *ns = sysprof_mount_namespace_new (process, strlen (process), host, strlen (host));

  assert_translates (ns, "/lib2/a.so", "/opt/lib/a.so", "/home/u/lib/a.so", NULL);
  n_destroyed = 0;
  sysprof_mount_namespace_set_exists_func (ns, exists_cb, (gpointer) "/opt/lib/a.so", count_destroy_cb);
  assert_translates (ns, "/lib2/a.so", "/home/u/lib/a.so", NULL);
  sysprof_mount_namespace_set_exists_func (ns, exists_cb, (gpointer) "/home/u/lib/a.so", count_destroy_cb);
  g_assert_cmpint (n_destroyed, ==, 1);
  assert_translates (ns, "/lib2/a.so", "/opt/lib/a.so", NULL);
  sysprof_mount_namespace_ref (ns);
  sysprof_mount_namespace_unref (ns);
  g_assert_cmpint (n_destroyed, ==, 1);
  sysprof_mount_namespace_unref (ns);
  g_assert_cmpint (n_destroyed, ==, 2);
}

/* Equal texts share one table while it lives. */
static void
test_table_interning (void)
{
  g_autofree char   *copy = g_strdup (host_desktop);
  SysprofMountTable *a = sysprof_mount_table_new (host_desktop, strlen (host_desktop));
  SysprofMountTable *b = sysprof_mount_table_new (copy, strlen (copy));
  SysprofMountTable *c = sysprof_mount_table_new (host_desktop, strlen (host_desktop) - 1);
  SysprofMountTable *d;

  g_assert_true (a == b);
  g_assert_true (a != c);
  g_assert_cmpuint (sysprof_mount_table_get_n_mounts (a), ==, 7);
  g_assert_cmpuint (sysprof_mount_table_get_n_mounts (c), ==, 7);
  sysprof_mount_table_unref (a);
  sysprof_mount_table_unref (b);
  sysprof_mount_table_unref (c);

  d = sysprof_mount_table_new (host_desktop, strlen (host_desktop));
  g_assert_cmpuint (sysprof_mount_table_get_n_mounts (d), ==, 7);
  sysprof_mount_table_unref (d);
}

/* This process's own namespace, read from /proc: translation is identity. */
static void
test_self (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *text = NULL;
  gsize            len;
  g_autoptr (SysprofMountTable) self_table = sysprof_mount_table_new_for_self (&error);
  g_autoptr (SysprofMountNamespace) ns = NULL;
  g_autoptr (SysprofMountNamespace) shared = NULL;
  g_auto (GStrv) paths = NULL;
  g_auto (GStrv) shared_paths = NULL;
  char *exe = realpath ("/proc/self/exe", NULL);

  g_assert_no_error (error);
  g_assert_cmpuint (sysprof_mount_table_get_n_mounts (self_table), >, 0);
  g_assert_true (g_file_get_contents ("/proc/self/mountinfo", &text, &len, &error));
  g_assert_no_error (error);

  ns = sysprof_mount_namespace_new (text, len, NULL, 0);
  shared = sysprof_mount_namespace_new_with_host (text, len, self_table);
  g_assert_nonnull (exe);
  paths = sysprof_mount_namespace_translate (ns, exe);
  shared_paths = sysprof_mount_namespace_translate (shared, exe);
  g_assert_nonnull (paths[0]);
  g_assert_cmpstr (paths[0], ==, exe);
  g_assert_cmpstr (shared_paths[0], ==, exe);
  free (exe);
}

static gboolean
file_exists_cb (const char *host_path, gpointer user_data)
{
  (void) user_data;
  return g_file_test (host_path, G_FILE_TEST_EXISTS);
}

/* A real mount namespace: a child of `unshare -m` bind-mounts a temporary
 * directory on another and prints its mountinfo; a file seen through the
 * mount must translate to where it really is. */
static void
test_unshare (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *unshare = g_find_program_in_path ("unshare");
  g_autofree char *src_tmp = NULL;
  g_autofree char *dst_tmp = NULL;
  g_autofree char *child_out = NULL;
  g_autofree char *child_err = NULL;
  g_autofree char *host_text = NULL;
  g_autofree char *src = NULL;
  g_autofree char *dst = NULL;
  g_autofree char *sub = NULL;
  g_autofree char *file = NULL;
  g_autofree char *seen = NULL;
  g_autofree char *seen_src = NULL;
  g_autoptr (SysprofMountNamespace) ns = NULL;
  g_auto (GStrv) paths = NULL;
  g_auto (GStrv) checked = NULL;
  g_auto (GStrv) direct = NULL;
  gsize host_len;
  int   status = -1;

  if (unshare == NULL)
    {
      g_test_skip ("unshare(1) is not installed");
      return;
    }
  if (getuid () != 0)
    {
      g_test_skip ("Making a mount namespace needs root");
      return;
    }

  src_tmp = g_dir_make_tmp ("test-mount-ns-src-XXXXXX", &error);
  g_assert_no_error (error);
  dst_tmp = g_dir_make_tmp ("test-mount-ns-dst-XXXXXX", &error);
  g_assert_no_error (error);
  /* The host path is canonical: TMPDIR may go through a symlink. */
  src = realpath (src_tmp, NULL);
  dst = realpath (dst_tmp, NULL);
  g_assert_nonnull (src);
  g_assert_nonnull (dst);
  sub = g_build_filename (src, "sub dir", NULL);
  g_assert_cmpint (g_mkdir (sub, 0700), ==, 0);
  file = g_build_filename (sub, "libreal.so", NULL);
  g_assert_true (g_file_set_contents (file, "x", 1, &error));
  g_assert_no_error (error);

  {
    const char *argv[] = {
      unshare,
      "-m",
      "--propagation",
      "private",
      "sh",
      "-c",
      "mount --bind \"$0\" \"$1\" && cat /proc/self/mountinfo",
      src,
      dst,
      NULL,
    };

    g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &child_out, &child_err, &status, &error);
  }
  g_assert_no_error (error);
  if (!g_spawn_check_wait_status (status, NULL))
    {
      g_autofree char *msg = g_strdup_printf ("unshare -m failed: %s", child_err);

      g_test_skip (msg);
      goto out;
    }

  g_assert_true (g_file_get_contents ("/proc/self/mountinfo", &host_text, &host_len, &error));
  g_assert_no_error (error);
  ns = sysprof_mount_namespace_new (child_out, strlen (child_out), host_text, host_len);

  seen = g_build_filename (dst, "sub dir", "libreal.so", NULL);
  paths = sysprof_mount_namespace_translate (ns, seen);
  g_assert_nonnull (paths[0]);
  g_assert_cmpstr (paths[0], ==, file);

  /* The source is visible in the child at its own place as well. */
  seen_src = g_build_filename (src, "sub dir", "libreal.so", NULL);
  direct = sysprof_mount_namespace_translate (ns, seen_src);
  g_assert_nonnull (direct[0]);
  g_assert_cmpstr (direct[0], ==, file);

  sysprof_mount_namespace_set_exists_func (ns, file_exists_cb, NULL, NULL);
  checked = sysprof_mount_namespace_translate (ns, seen);
  g_assert_nonnull (checked[0]);
  g_assert_cmpstr (checked[0], ==, file);
  for (guint i = 0; checked[i] != NULL; i++)
    g_assert_true (g_file_test (checked[i], G_FILE_TEST_EXISTS));

out:
  g_unlink (file);
  g_rmdir (sub);
  g_rmdir (src);
  g_rmdir (dst);
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/Libsysprof/MountNamespace/fields", test_fields);
  g_test_add_func ("/Libsysprof/MountNamespace/identity", test_identity);
  g_test_add_func ("/Libsysprof/MountNamespace/bind-mount", test_bind_mount);
  g_test_add_func ("/Libsysprof/MountNamespace/flatpak", test_flatpak);
  g_test_add_func ("/Libsysprof/MountNamespace/btrfs-subvolumes", test_btrfs_subvolumes);
  g_test_add_func ("/Libsysprof/MountNamespace/escapes", test_escapes);
  g_test_add_func ("/Libsysprof/MountNamespace/malformed", test_malformed);
  g_test_add_func ("/Libsysprof/MountNamespace/covered-mounts", test_covered_mounts);
  g_test_add_func ("/Libsysprof/MountNamespace/stacked-mounts", test_stacked_mounts);
  g_test_add_func ("/Libsysprof/MountNamespace/exists-func", test_exists_func);
  g_test_add_func ("/Libsysprof/MountNamespace/table-interning", test_table_interning);
  g_test_add_func ("/Libsysprof/MountNamespace/self", test_self);
  g_test_add_func ("/Libsysprof/MountNamespace/unshare", test_unshare);

  return g_test_run ();
}
