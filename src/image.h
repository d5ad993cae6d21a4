#ifndef IMAGE_H
#define IMAGE_H

#include <stddef.h>
#include <stdint.h>

/*
 * Container image references (R10).  Accepted forms:
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
	IMAGE_REGISTRY,		/* must be converted to .sqsh once (R10) */
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

#endif
