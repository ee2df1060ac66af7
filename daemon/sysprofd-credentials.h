// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <sys/stat.h>
#include <sys/types.h>

#include <gio/gio.h>

G_BEGIN_DECLS

/* No primary group known: the bus reports the caller's groups as one set. */
#define SYSPROFD_CREDENTIALS_NO_GID ((gid_t) -1)

/* Who is calling sysprofd, for answering only what the caller could find out
 * by itself.  Ids are those of the bus's user namespace, which is the
 * daemon's. */
typedef struct
{
  uid_t  uid;
  gid_t  gid;    /* primary group, or SYSPROFD_CREDENTIALS_NO_GID */
  gid_t *groups; /* supplementary groups (may repeat the primary one) */
  guint  n_groups;
} SysprofdCredentials;

SysprofdCredentials *sysprofd_credentials_new (uid_t uid, gid_t gid, const gid_t *groups, guint n_groups);
void                 sysprofd_credentials_free (SysprofdCredentials *creds);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (SysprofdCredentials, sysprofd_credentials_free)

/* @uid's primary and supplementary groups from the user database, for when
 * the bus does not report the caller's groups (dbus-daemon >= 1.10 and
 * dbus-broker do).  The database can be ahead of the caller (a group joined
 * since it logged in), so this is the weaker source; a uid the database does
 * not know gets no group at all. */
SysprofdCredentials *sysprofd_credentials_from_user_database (uid_t uid);
/* @uid's name, primary group and home directory (NULL unless absolute) from
 * the user database; any of them may be NULL.  FALSE for an unknown uid. */
gboolean sysprofd_lookup_user (uid_t uid, char **name, gid_t *gid, char **home);

/* Whether the caller could search (look names up in) the directory @st, by
 * its mode bits alone: owner, group or other class as the kernel chooses it.
 * uid 0 searches anything.  FALSE for what is not a directory.  This is the
 * kernel's answer only for a directory without a POSIX access ACL: an ACL can
 * refuse a named user, or the owning group, what the mode bits show. */
gboolean sysprofd_credentials_can_search (const SysprofdCredentials *creds, const struct stat *st);

/* The same for a directory that carries a POSIX access ACL: @acl is the value
 * of its system.posix_acl_access attribute (@acl_len bytes), evaluated as
 * acl(5) describes.  A value that does not parse is FALSE. */
gboolean sysprofd_credentials_can_search_acl (const SysprofdCredentials *creds,
                                              const struct stat         *st,
                                              const void                *acl,
                                              gsize                      acl_len);

G_END_DECLS
