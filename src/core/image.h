#ifndef IMAGE_H
#define IMAGE_H

#include <stddef.h>
#include <stdint.h>

#include "util.h"

/*
 * Container image references (sqdeck(1): IMAGES AND STORAGE).  Accepted forms:
 *
 *	/abs/path/x.sqsh			(also lustre:///abs/path/x.sqsh)
 *	registry#repo/name:tag			(Pyxis/enroot form)
 *	docker://[user@][registry#]repo:tag	(enroot import form)
 *	registry/repo/name:tag			(docker form, normalised)
 *	repo/name@sha256:<64 hex>		(digest, with or without a tag)
 *
 * No registry means Docker Hub.  Pure: no I/O.
 */

enum image_kind {
	IMAGE_SQSH = 0,		/* a squashfs file on shared storage */
	IMAGE_REGISTRY,		/* must be converted to .sqsh once */
};

struct image_ref {
	enum image_kind	 kind;
	char		*path;		/* IMAGE_SQSH: absolute path */
	char		*user;		/* registry user (e.g. $oauthtoken), or NULL */
	char		*registry;	/* e.g. nvcr.io; NULL: Docker Hub */
	char		*repository;	/* e.g. nvidia/tao/tao-toolkit */
	char		*tag;		/* NULL: none given (means latest) */
	char		*digest;	/* "sha256:<hex>" or NULL */
	int		 latest;	/* tag is "latest" or absent, no digest */
};

/* The longest image reference taken (a registry one, a .sqsh path). */
#define IMAGE_REF_MAX	200
#define IMAGE_PATH_MAX	1024
int	 image_parse(const char *, struct image_ref *, char **cause);
void	 image_free(struct image_ref *);

/* docker://[user@][registry#]repo[:tag][@digest], or the path of a sqsh. */
char	*image_pyxis(const struct image_ref *);
/* Same without the user: safe for records and the screen. */
char	*image_display(const struct image_ref *);
/*
 * File name of the converted image in the sqsh cache, keyed by image name
 * (not by user): nvcr.io+nvidia+tao+tao-toolkit+5.5.0-pyt.sqsh.  Only
 * [A-Za-z0-9._+-]; NULL for IMAGE_SQSH.
 */
char	*image_cache_name(const struct image_ref *);
/* cache_dir "/" cache name; NULL for IMAGE_SQSH. */
char	*image_cache_path(const struct image_ref *, const char *cache_dir);

/* Escape '#' as '\#' for an #SBATCH line (sbatch reads '#' as a comment). */
char	*image_sbatch_escape(const char *);

/* Bytes image_sqsh_check() wants: the squashfs 4.0 superblock. */
#define IMAGE_SQSH_HEADER 96

/*
 * Check the first bytes of a .sqsh file (len of them) and its size: magic
 * "hsqs", version 4.0, sane block size and a bytes_used that fits in the
 * file.  A truncated conversion fails here.
 */
int	 image_sqsh_check(const void *, size_t len, uint64_t file_size,
	     const char *name, char **cause);

/*
 * What the cluster said about a cached .sqsh (issue 12): lines printed by
 * SUBMIT_SH_CSTAT, "me UID", "file UID MODE NAME" or "file link",
 * "dir UID MODE", "digest UID MODE VALUE" or "digest link".  Everything
 * here is untrusted text; the check below decides.
 */
struct image_cache_stat {
	long		 me;		/* id -u on the cluster; -1 unknown */
	int		 file;		/* 0 absent, 1 regular, 2 symlink */
	long		 uid;
	unsigned	 mode;
	char		 owner[64];
	int		 dir;		/* the directory was reported */
	long		 dir_uid;
	unsigned	 dir_mode;
	int		 digest;	/* 0 absent, 1 file, 2 symlink */
	long		 digest_uid;
	unsigned	 digest_mode;
	char		 digest_value[80];	/* sha256:<64 hex> or "" */
};

void	 image_cache_stat_init(struct image_cache_stat *);
/* One reported line (without its prefix); unknown lines are ignored. */
void	 image_cache_stat_line(struct image_cache_stat *, const char *);
/*
 * May a job run this cached file?  It must be a regular file (not a
 * symlink) owned by the user or by one of owners (names or uids), that
 * neither its group nor others can write, in a directory neither its
 * group nor others can write unless it has the sticky bit.  With pinned ("sha256:<hex>"), the
 * digest recorded next to it at conversion must exist, pass the same
 * owner and mode test, and equal pinned.  0 or -1 with a cause.
 */
int	 image_cache_trust(const struct image_cache_stat *,
	     const struct strv *owners, const char *pinned,
	     const char *path, char **cause);

#endif
