// SPDX-License-Identifier: GPL-3.0-or-later
/* Who calls the daemon, and what such a caller may look into. */
#include <errno.h>
#include <grp.h>
#include <linux/posix_acl.h>
#include <linux/posix_acl_xattr.h>
#include <pwd.h>

#include "sysprofd-credentials.h"

/* The bus sends uint32 group ids; they are stored as they come. */
G_STATIC_ASSERT (sizeof (gid_t) == sizeof (guint32));

SysprofdCredentials *
sysprofd_credentials_new (uid_t uid, gid_t gid, const gid_t *groups, guint n_groups)
{
  SysprofdCredentials *creds = g_new0 (SysprofdCredentials, 1);

  g_return_val_if_fail (groups != NULL || n_groups == 0, creds);

  creds->uid = uid;
  creds->gid = gid;
  creds->groups = n_groups ? g_memdup2 (groups, n_groups * sizeof (gid_t)) : NULL;
  creds->n_groups = n_groups;
  return creds;
}

void
sysprofd_credentials_free (SysprofdCredentials *creds)
{
  if (creds == NULL)
    return;
  g_free (creds->groups);
  g_free (creds);
}

/* The groups @name belongs to by the user database.  getgrouplist() says how
 * many there are when the array is too small; a group added in between makes
 * it too small again, hence the few attempts. */
static SysprofdCredentials *
credentials_with_group_list (uid_t uid, const char *name, gid_t gid)
{
  g_autofree gid_t *list = NULL;
  int               size = 64;

  for (guint attempt = 0; attempt < 4; attempt++)
    {
      int n = size;

      list = g_renew (gid_t, list, size);
      if (getgrouplist (name, gid, list, &n) >= 0)
        return sysprofd_credentials_new (uid, gid, list, (guint) n);
      size = n > size ? n : size * 2;
    }
  return sysprofd_credentials_new (uid, gid, NULL, 0);
}

/* Used only when the bus does not report groups.  The database can be ahead
 * of the caller (a group joined since it logged in), so this is the weaker
 * source; a uid the database does not know gets no group at all, which only
 * leaves it the "other" permissions. */
gboolean
sysprofd_lookup_user (uid_t uid, char **name, gid_t *gid, char **home)
{
  gsize size = 16384;

  /* getpwuid() is not thread-safe, and calls run on worker threads. */
  for (;;)
    {
      g_autofree char *buf = g_malloc (size);
      struct passwd    pw;
      struct passwd   *result = NULL;
      int              rc = getpwuid_r (uid, &pw, buf, size, &result);

      if (rc == ERANGE && size < 1024 * 1024)
        {
          size *= 2;
          continue;
        }
      if (rc != 0 || result == NULL)
        return FALSE;
      if (name != NULL)
        *name = g_strdup (pw.pw_name);
      if (gid != NULL)
        *gid = pw.pw_gid;
      if (home != NULL)
        *home = pw.pw_dir != NULL && g_path_is_absolute (pw.pw_dir) ? g_strdup (pw.pw_dir) : NULL;
      return TRUE;
    }
}

SysprofdCredentials *
sysprofd_credentials_from_user_database (uid_t uid)
{
  g_autofree char *name = NULL;
  gid_t            gid;

  if (!sysprofd_lookup_user (uid, &name, &gid, NULL))
    return sysprofd_credentials_new (uid, SYSPROFD_CREDENTIALS_NO_GID, NULL, 0);
  return credentials_with_group_list (uid, name, gid);
}

static gboolean
in_group (const SysprofdCredentials *creds, gid_t gid)
{
  if (creds->gid != SYSPROFD_CREDENTIALS_NO_GID && creds->gid == gid)
    return TRUE;
  for (guint i = 0; i < creds->n_groups; i++)
    if (creds->groups[i] == gid)
      return TRUE;
  return FALSE;
}

gboolean
sysprofd_credentials_can_search (const SysprofdCredentials *creds, const struct stat *st)
{
  g_return_val_if_fail (creds != NULL, FALSE);
  g_return_val_if_fail (st != NULL, FALSE);

  if (!S_ISDIR (st->st_mode))
    return FALSE;
  /* CAP_DAC_READ_SEARCH: root looks into any directory. */
  if (creds->uid == 0)
    return TRUE;
  /* One class decides, as in the kernel: an owner without x is refused even
   * where the group or others have it. */
  if (st->st_uid == creds->uid)
    return (st->st_mode & S_IXUSR) != 0;
  if (in_group (creds, st->st_gid))
    return (st->st_mode & S_IXGRP) != 0;
  return (st->st_mode & S_IXOTH) != 0;
}

gboolean
sysprofd_credentials_can_search_acl (const SysprofdCredentials *creds,
                                     const struct stat         *st,
                                     const void                *acl,
                                     gsize                      acl_len)
{
  const guint8 *bytes = acl;
  guint32       version;
  int           user_obj = -1;
  int           group_obj = -1;
  int           mask = -1;
  int           other = -1;
  int           named_user = -1;
  gboolean      has_named = FALSE;
  gboolean      group_matched = FALSE;
  guint         group_perms = 0;

  g_return_val_if_fail (creds != NULL, FALSE);
  g_return_val_if_fail (st != NULL, FALSE);

  if (!S_ISDIR (st->st_mode))
    return FALSE;
  if (creds->uid == 0)
    return TRUE;

  /* The attribute is a little-endian version, then 8-byte entries (tag,
   * permissions, id).  The kernel only stores valid ones, but refusing what
   * does not parse costs nothing. */
  if (acl == NULL || acl_len < sizeof version || (acl_len - sizeof version) % 8 != 0)
    return FALSE;
  memcpy (&version, bytes, sizeof version);
  if (GUINT32_FROM_LE (version) != POSIX_ACL_XATTR_VERSION)
    return FALSE;

  for (gsize off = sizeof version; off < acl_len; off += 8)
    {
      guint16 tag;
      guint16 perm;
      guint32 id;

      memcpy (&tag, bytes + off, 2);
      memcpy (&perm, bytes + off + 2, 2);
      memcpy (&id, bytes + off + 4, 4);
      tag = GUINT16_FROM_LE (tag);
      perm = GUINT16_FROM_LE (perm) & 7;
      id = GUINT32_FROM_LE (id);

      switch (tag)
        {
        case ACL_USER_OBJ:
          if (user_obj >= 0)
            return FALSE;
          user_obj = perm;
          break;
        case ACL_USER:
          has_named = TRUE;
          if ((uid_t) id == creds->uid)
            {
              if (named_user >= 0)
                return FALSE;
              named_user = perm;
            }
          break;
        case ACL_GROUP_OBJ:
          if (group_obj >= 0)
            return FALSE;
          group_obj = perm;
          if (in_group (creds, st->st_gid))
            {
              group_matched = TRUE;
              group_perms |= perm;
            }
          break;
        case ACL_GROUP:
          has_named = TRUE;
          if (in_group (creds, (gid_t) id))
            {
              group_matched = TRUE;
              group_perms |= perm;
            }
          break;
        case ACL_MASK:
          if (mask >= 0)
            return FALSE;
          mask = perm;
          break;
        case ACL_OTHER:
          if (other >= 0)
            return FALSE;
          other = perm;
          break;
        default: return FALSE;
        }
    }
  if (user_obj < 0 || group_obj < 0 || other < 0 || (has_named && mask < 0))
    return FALSE;
  if (mask < 0)
    mask = 7;

  /* acl(5), "Access check algorithm": the first class that matches decides,
   * and the mask limits every class but the owner and others.  A named user
   * or group entry can take away what the mode bits show, which is why the
   * mode bits alone are not enough here. */
  if (st->st_uid == creds->uid)
    return (user_obj & ACL_EXECUTE) != 0;
  if (named_user >= 0)
    return (named_user & mask & ACL_EXECUTE) != 0;
  if (group_matched)
    return (group_perms & mask & ACL_EXECUTE) != 0;
  return (other & ACL_EXECUTE) != 0;
}
