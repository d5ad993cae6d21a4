#include "image.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

/* Docker Hub is spelt several ways; all of them mean "no registry". */
static const char *hub_names[] = {
	"docker.io", "index.docker.io", "registry-1.docker.io", NULL
};

void
image_free(struct image_ref *ref)
{
	free(ref->path);
	free(ref->user);
	free(ref->registry);
	free(ref->repository);
	free(ref->tag);
	free(ref->digest);
	memset(ref, 0, sizeof *ref);
}

/*
 * The length that counts for the cache name: without a docker:// scheme,
 * so that a reference and its Pyxis form (image_pyxis adds the scheme)
 * are accepted alike.
 */
static size_t
ref_length(const char *image)
{
	size_t	len = strlen(image);

	return str_has_prefix(image, "docker://") ? len - 9 : len;
}

static int
has_bad_char(const char *s)
{
	for (; *s != '\0'; s++) {
		if (isspace((unsigned char)*s) || iscntrl((unsigned char)*s))
			return 1;
	}
	return 0;
}

static int
is_sqsh_name(const char *s)
{
	return str_has_suffix(s, ".sqsh") || str_has_suffix(s, ".squashfs");
}

static int
parse_sqsh(const char *image, const char *path, struct image_ref *ref,
    char **cause)
{
	if (!is_sqsh_name(path)) {
		return cause_set(cause, "image \"%s\": an absolute path must "
		    "name a squashfs file ending in .sqsh", image);
	}
	if (strstr(path, "/../") != NULL || strstr(path, "/./") != NULL) {
		return cause_set(cause, "image \"%s\": \".\" and \"..\" are "
		    "not allowed in the path; write the plain absolute path",
		    image);
	}
	ref->kind = IMAGE_SQSH;
	ref->path = xstrdup(path);
	return 0;
}

static int
check_registry(const char *image, const char *r, char **cause)
{
	const char	*p;

	if (*r == '\0') {
		return cause_set(cause, "image \"%s\": empty registry before "
		    "'#'; write registry#repository:tag", image);
	}
	for (p = r; *p != '\0'; p++) {
		if (!isalnum((unsigned char)*p) && strchr(".-:", *p) == NULL) {
			return cause_set(cause, "image \"%s\": registry \"%s\" "
			    "has an invalid character '%c' (a host name with "
			    "an optional :port is expected)", image, r, *p);
		}
	}
	return 0;
}

static int
check_repository(const char *image, const char *r, char **cause)
{
	const char	*p;
	char		*lower, *q;

	if (*r == '\0') {
		return cause_set(cause, "image \"%s\": no repository name; "
		    "write e.g. nvcr.io#nvidia/pytorch:24.01-py3", image);
	}
	for (p = r; *p != '\0'; p++) {
		if (isupper((unsigned char)*p))
			break;
	}
	if (*p != '\0') {
		lower = xstrdup(r);
		for (q = lower; *q != '\0'; q++)
			*q = tolower((unsigned char)*q);
		cause_set(cause, "image \"%s\": repository \"%s\" has "
		    "upper-case letters, which registries and enroot refuse; "
		    "write it in lower case: \"%s\"", image, r, lower);
		free(lower);
		return -1;
	}
	for (p = r; *p != '\0'; p++) {
		if (!islower((unsigned char)*p) && !isdigit((unsigned char)*p) &&
		    strchr("._-/", *p) == NULL) {
			return cause_set(cause, "image \"%s\": repository "
			    "\"%s\" has an invalid character '%c' (only a-z, "
			    "0-9, '.', '_', '-' and '/' are allowed)", image, r,
			    *p);
		}
	}
	if (*r == '/' || r[strlen(r) - 1] == '/' || strstr(r, "//") != NULL) {
		return cause_set(cause, "image \"%s\": repository \"%s\" has "
		    "an empty path component", image, r);
	}
	/* Docker's grammar: a component starts and ends with [a-z0-9]. */
	for (p = r; *p != '\0'; p++) {
		if (strchr("._-", *p) != NULL &&
		    (p == r || p[-1] == '/' || p[1] == '\0' || p[1] == '/')) {
			return cause_set(cause, "image \"%s\": repository "
			    "\"%s\": each path component must start and end "
			    "with a-z or 0-9", image, r);
		}
	}
	return 0;
}

static int
check_tag(const char *image, const char *t, char **cause)
{
	const char	*p;

	if (*t == '\0' || strlen(t) > 128 || *t == '.' || *t == '-') {
		return cause_set(cause, "image \"%s\": tag \"%s\" is not a "
		    "valid tag (1 to 128 of A-Z a-z 0-9 _ . -, not starting "
		    "with . or -)", image, t);
	}
	for (p = t; *p != '\0'; p++) {
		if (!isalnum((unsigned char)*p) && strchr("_.-", *p) == NULL) {
			return cause_set(cause, "image \"%s\": tag \"%s\" has "
			    "an invalid character '%c'", image, t, *p);
		}
	}
	return 0;
}

static int
check_digest(const char *image, const char *d, char **cause)
{
	const char	*p;

	if (!str_has_prefix(d, "sha256:") || strlen(d) != 7 + 64)
		goto bad;
	for (p = d + 7; *p != '\0'; p++) {
		if (!isdigit((unsigned char)*p) && (*p < 'a' || *p > 'f'))
			goto bad;
	}
	return 0;
bad:
	return cause_set(cause, "image \"%s\": digest \"%s\" is not "
	    "sha256: followed by 64 lower-case hex digits", image, d);
}

/* Split name[:tag][@digest] into ref. */
static int
parse_name(const char *image, const char *name, struct image_ref *ref,
    char **cause)
{
	char	*copy, *at, *colon;
	int	 error = -1;

	copy = xstrdup(name);
	if ((at = strchr(copy, '@')) != NULL) {
		*at++ = '\0';
		if (check_digest(image, at, cause) != 0)
			goto out;
		ref->digest = xstrdup(at);
	}
	if ((colon = strrchr(copy, ':')) != NULL) {
		*colon++ = '\0';
		if (check_tag(image, colon, cause) != 0)
			goto out;
		ref->tag = xstrdup(colon);
	}
	if (check_repository(image, copy, cause) != 0)
		goto out;
	ref->repository = xstrdup(copy);
	error = 0;
out:
	free(copy);
	return error;
}

/* A first component with '.' or ':' (or localhost) names a registry. */
static int
is_registry_component(const char *s, size_t len)
{
	if (len == 9 && strncmp(s, "localhost", 9) == 0)
		return 1;
	return memchr(s, '.', len) != NULL || memchr(s, ':', len) != NULL;
}

int
image_parse(const char *image, struct image_ref *ref, char **cause)
{
	const char	*rest, *hash, *slash, *at;
	char		*left = NULL, *p;
	size_t		 i;
	int		 docker = 0;

	memset(ref, 0, sizeof *ref);
	if (*image == '\0') {
		return cause_set(cause, "image is empty: give a .sqsh path on "
		    "shared storage or a registry image such as "
		    "nvcr.io#nvidia/pytorch:24.01-py3");
	}
	if (has_bad_char(image)) {
		return cause_set(cause, "image \"%s\" contains a space or a "
		    "control character", image);
	}

	/*
	 * A registry image becomes a cache file name (+ for /, .sqsh, the
	 * default registry): past IMAGE_REF_MAX it would not fit the 255
	 * bytes of a file name, and the import would fail half way.
	 */
	if (*image != '/' && !str_has_prefix(image, "lustre://") &&
	    ref_length(image) > IMAGE_REF_MAX) {
		return cause_set(cause, "image is %zu characters long: a "
		    "registry image can have at most %d (its .sqsh cache "
		    "file name must fit in 255 bytes)", ref_length(image),
		    IMAGE_REF_MAX);
	}
	if (strlen(image) > IMAGE_PATH_MAX) {
		return cause_set(cause, "image is %zu characters long: a .sqsh "
		    "path can have at most %d", strlen(image),
		    IMAGE_PATH_MAX);
	}
	if (str_has_prefix(image, "lustre://")) {
		rest = image + strlen("lustre://");
		if (*rest != '/') {
			return cause_set(cause, "image \"%s\": lustre:// takes "
			    "an absolute path with no host: lustre:///path/"
			    "x.sqsh", image);
		}
		return parse_sqsh(image, rest, ref, cause);
	}
	if (*image == '/')
		return parse_sqsh(image, image, ref, cause);
	/* A URL is no relative path (issue 26.12): say what to write. */
	if (str_has_prefix(image, "file://")) {
		rest = image + strlen("file://");
		if (*rest == '/') {
			return cause_set(cause, "image \"%s\": Pyxis takes no "
			    "file:// URL; write the absolute path itself: %s",
			    image, rest);
		}
		return cause_set(cause, "image \"%s\": Pyxis takes no file:// "
		    "URL; write the absolute path of the .sqsh on shared "
		    "storage (e.g. /lustre/images/x.sqsh)", image);
	}
	if (!str_has_prefix(image, "docker://") &&
	    strstr(image, "://") != NULL) {
		return cause_set(cause, "image \"%s\": unsupported scheme; use "
		    "docker://, registry#repository:tag or an absolute .sqsh "
		    "path", image);
	}
	if (is_sqsh_name(image) || *image == '.' || *image == '~') {
		return cause_set(cause, "image \"%s\" is a relative path: "
		    "Pyxis would try to pull it from a registry; give the "
		    "absolute path of the .sqsh on shared storage (e.g. "
		    "/lustre/images/x.sqsh)", image);
	}

	rest = image;
	if (str_has_prefix(rest, "docker://")) {
		rest += strlen("docker://");
		docker = 1;
	} else if (strstr(rest, "://") != NULL) {
		return cause_set(cause, "image \"%s\": unsupported scheme; use "
		    "docker://, registry#repository:tag or an absolute .sqsh "
		    "path", image);
	}

	if ((hash = strchr(rest, '#')) != NULL) {
		if (strchr(hash + 1, '#') != NULL) {
			return cause_set(cause, "image \"%s\" has more than one "
			    "'#' (registry#repository:tag has one)", image);
		}
		left = xstrndup(rest, hash - rest);
		if ((p = strrchr(left, '@')) != NULL) {
			*p = '\0';
			if (*left == '\0') {
				cause_set(cause, "image \"%s\": empty user "
				    "before '@'", image);
				goto fail;
			}
			ref->user = xstrdup(left);
			memmove(left, p + 1, strlen(p + 1) + 1);
		}
		if (check_registry(image, left, cause) != 0)
			goto fail;
		ref->registry = left;
		left = NULL;
		rest = hash + 1;
	} else {
		/* user@ only with docker:// and when '@' is not a digest. */
		at = strchr(rest, '@');
		if (docker && at != NULL && !str_has_prefix(at + 1, "sha256:")) {
			if (at == rest) {
				cause_set(cause, "image \"%s\": empty user "
				    "before '@'", image);
				goto fail;
			}
			ref->user = xstrndup(rest, at - rest);
			rest = at + 1;
		}
		slash = strchr(rest, '/');
		if (slash != NULL && is_registry_component(rest, slash - rest)) {
			ref->registry = xstrndup(rest, slash - rest);
			if (check_registry(image, ref->registry, cause) != 0)
				goto fail;
			rest = slash + 1;
		}
	}

	if (parse_name(image, rest, ref, cause) != 0)
		goto fail;

	if (ref->registry != NULL) {
		for (i = 0; hub_names[i] != NULL; i++) {
			if (strcmp(ref->registry, hub_names[i]) == 0)
				break;
		}
		if (hub_names[i] != NULL) {
			free(ref->registry);
			ref->registry = NULL;
		}
	}
	/* Official images are library/NAME: one component after it. */
	if (ref->registry == NULL &&
	    str_has_prefix(ref->repository, "library/") &&
	    strchr(ref->repository + strlen("library/"), '/') == NULL) {
		p = xstrdup(ref->repository + strlen("library/"));
		free(ref->repository);
		ref->repository = p;
	}
	/*
	 * A Docker Hub name is written without its registry (image_pyxis()),
	 * so a first component that looks like a host would be pulled from
	 * that host instead: "docker.io/evil.io/x" -> docker://evil.io/x.
	 */
	if (ref->registry == NULL &&
	    (slash = strchr(ref->repository, '/')) != NULL &&
	    is_registry_component(ref->repository,
	    (size_t)(slash - ref->repository))) {
		cause_set(cause, "image \"%s\": Docker Hub repository \"%s\" "
		    "starts with \"%.*s\", which would be read as a registry "
		    "host; Docker Hub names have no '.' or ':' there (if %.*s "
		    "is the registry, write %.*s#%s)", image, ref->repository,
		    (int)(slash - ref->repository), ref->repository,
		    (int)(slash - ref->repository), ref->repository,
		    (int)(slash - ref->repository), ref->repository, slash + 1);
		goto fail;
	}

	ref->kind = IMAGE_REGISTRY;
	ref->latest = ref->digest == NULL &&
	    (ref->tag == NULL || strcmp(ref->tag, "latest") == 0);
	return 0;

fail:
	free(left);
	image_free(ref);
	return -1;
}

static char *
image_format(const struct image_ref *ref, int with_user)
{
	struct buf	b;

	if (ref->kind == IMAGE_SQSH)
		return xstrdup(ref->path);
	buf_init(&b);
	buf_adds(&b, "docker://");
	if (with_user && ref->user != NULL)
		buf_printf(&b, "%s@", ref->user);
	if (ref->registry != NULL)
		buf_printf(&b, "%s#", ref->registry);
	buf_adds(&b, ref->repository);
	if (ref->tag != NULL)
		buf_printf(&b, ":%s", ref->tag);
	if (ref->digest != NULL)
		buf_printf(&b, "@%s", ref->digest);
	return buf_steal(&b);
}

char *
image_pyxis(const struct image_ref *ref)
{
	return image_format(ref, 1);
}

char *
image_display(const struct image_ref *ref)
{
	return image_format(ref, 0);
}

char *
image_cache_name(const struct image_ref *ref)
{
	struct buf	 b;
	const char	*p;

	if (ref->kind != IMAGE_REGISTRY)
		return NULL;
	buf_init(&b);
	/* '_' cannot occur in a host name: the port stays unambiguous. */
	for (p = ref->registry != NULL ? ref->registry : "docker.io"; *p; p++)
		buf_add(&b, *p == ':' ? "_" : p, 1);
	buf_adds(&b, "+");
	for (p = ref->repository; *p != '\0'; p++)
		buf_add(&b, *p == '/' ? "+" : p, 1);
	if (ref->tag != NULL || ref->digest == NULL)
		buf_printf(&b, "+%s", ref->tag != NULL ? ref->tag : "latest");
	if (ref->digest != NULL)
		buf_printf(&b, "+sha256-%s", ref->digest + strlen("sha256:"));
	buf_adds(&b, ".sqsh");
	return buf_steal(&b);
}

char *
image_cache_path(const struct image_ref *ref, const char *cache_dir)
{
	char	*name, *path;
	size_t	 len;

	if ((name = image_cache_name(ref)) == NULL)
		return NULL;
	len = strlen(cache_dir);
	while (len > 1 && cache_dir[len - 1] == '/')
		len--;
	path = xasprintf("%.*s/%s", (int)len, cache_dir, name);
	free(name);
	return path;
}

char *
image_sbatch_escape(const char *s)
{
	struct buf	b;

	buf_init(&b);
	for (; *s != '\0'; s++) {
		if (*s == '#')
			buf_adds(&b, "\\#");
		else
			buf_add(&b, s, 1);
	}
	if (b.data == NULL)
		buf_adds(&b, "");
	return buf_steal(&b);
}

static uint16_t
le16(const unsigned char *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t
le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	    (uint32_t)p[3] << 24;
}

static uint64_t
le64(const unsigned char *p)
{
	return (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32;
}

/*
 * Squashfs 4.0 superblock, little endian: magic 0, inodes 4, mkfs_time 8,
 * block_size 12, fragments 16, compression 20 (u16), block_log 22,
 * flags 24, no_ids 26, major 28, minor 30, root_inode 32 (u64),
 * bytes_used 40, id_table 48, xattr_table 56, inode_table 64,
 * directory_table 72, fragment_table 80, lookup_table 88.
 */
int
image_sqsh_check(const void *buf, size_t len, uint64_t file_size,
    const char *name, char **cause)
{
	const unsigned char	*p = buf;
	uint32_t		 block_size;
	uint16_t		 compression, block_log, major, minor;
	uint64_t		 bytes_used, id_table, inode_table, dir_table;
	const char		*fix = "delete it and convert the image again";

	if (len < IMAGE_SQSH_HEADER || file_size < IMAGE_SQSH_HEADER) {
		return cause_set(cause, "%s: only %" PRIu64 " bytes, too small "
		    "for a squashfs image (truncated conversion?); %s", name,
		    len < file_size ? (uint64_t)len : file_size, fix);
	}
	if (memcmp(p, "hsqs", 4) != 0) {
		return cause_set(cause, "%s: not a squashfs image (no hsqs "
		    "magic); %s", name, fix);
	}
	compression = le16(p + 20);
	block_size = le32(p + 12);
	block_log = le16(p + 22);
	major = le16(p + 28);
	minor = le16(p + 30);
	bytes_used = le64(p + 40);
	id_table = le64(p + 48);
	inode_table = le64(p + 64);
	dir_table = le64(p + 72);

	if (major != 4 || minor != 0) {
		return cause_set(cause, "%s: squashfs version %u.%u, Enroot "
		    "needs 4.0; %s", name, major, minor, fix);
	}
	if (block_size < 4096 || block_size > 1048576 ||
	    (block_size & (block_size - 1)) != 0 ||
	    block_log > 20 || (1U << block_log) != block_size) {
		return cause_set(cause, "%s: corrupt squashfs superblock "
		    "(block size %" PRIu32 ", log %u); %s", name, block_size,
		    block_log, fix);
	}
	if (compression < 1 || compression > 6) {
		return cause_set(cause, "%s: corrupt squashfs superblock "
		    "(unknown compressor %u); %s", name, compression, fix);
	}
	if (bytes_used < IMAGE_SQSH_HEADER || inode_table >= bytes_used ||
	    dir_table >= bytes_used || id_table >= bytes_used) {
		return cause_set(cause, "%s: corrupt squashfs superblock "
		    "(tables outside the %" PRIu64 " bytes used); %s", name,
		    bytes_used, fix);
	}
	if (bytes_used > file_size) {
		return cause_set(cause, "%s: truncated: the superblock says "
		    "%" PRIu64 " bytes but the file has %" PRIu64 "; %s", name,
		    bytes_used, file_size, fix);
	}
	return 0;
}

/* --- the shared cache (issue 12) ------------------------------------------ */

void
image_cache_stat_init(struct image_cache_stat *st)
{
	memset(st, 0, sizeof *st);
	st->me = -1;
}

/* A decimal id: digits only, no sign, fits a long. */
static int
cache_id(const char *s, long *out)
{
	char	*end;
	long	 v;

	if (!isdigit((unsigned char)*s))
		return -1;
	v = strtol(s, &end, 10);
	if (*end != '\0' || v < 0 || v > 0x7fffffffL)
		return -1;
	*out = v;
	return 0;
}

static int
cache_mode(const char *s, unsigned *out)
{
	char		*end;
	unsigned long	 v;

	if (*s < '0' || *s > '7')
		return -1;
	v = strtoul(s, &end, 8);
	if (*end != '\0' || v > 07777)
		return -1;
	*out = (unsigned)v;
	return 0;
}

void
image_cache_stat_line(struct image_cache_stat *st, const char *line)
{
	char		*copy, *w[4], *p, *save = NULL;
	size_t		 n = 0;
	long		 id;
	unsigned	 mode;

	copy = xstrdup(line);
	for (p = strtok_r(copy, " \t\r", &save); p != NULL && n < 4;
	    p = strtok_r(NULL, " \t\r", &save))
		w[n++] = p;
	if (n == 2 && strcmp(w[0], "me") == 0 && cache_id(w[1], &id) == 0)
		st->me = id;
	else if (n == 2 && strcmp(w[0], "file") == 0 &&
	    strcmp(w[1], "link") == 0)
		st->file = 2;
	else if (n >= 3 && strcmp(w[0], "file") == 0 &&
	    cache_id(w[1], &id) == 0 && cache_mode(w[2], &mode) == 0) {
		st->file = 1;
		st->uid = id;
		st->mode = mode;
		snprintf(st->owner, sizeof st->owner, "%s", n == 4 ? w[3] : "");
	} else if (n == 3 && strcmp(w[0], "dir") == 0 &&
	    cache_id(w[1], &id) == 0 && cache_mode(w[2], &mode) == 0) {
		st->dir = 1;
		st->dir_uid = id;
		st->dir_mode = mode;
	} else if (n == 2 && strcmp(w[0], "digest") == 0 &&
	    strcmp(w[1], "link") == 0)
		st->digest = 2;
	else if (n >= 3 && strcmp(w[0], "digest") == 0 &&
	    cache_id(w[1], &id) == 0 && cache_mode(w[2], &mode) == 0) {
		st->digest = 1;
		st->digest_uid = id;
		st->digest_mode = mode;
		snprintf(st->digest_value, sizeof st->digest_value, "%s",
		    n == 4 && strlen(w[3]) < sizeof st->digest_value ? w[3] :
		    "");
	}
	free(copy);
}

static int
cache_owner_ok(const struct image_cache_stat *st, long uid,
    const char *name, const struct strv *owners)
{
	char	 num[32];
	size_t	 i;

	if (st->me >= 0 && uid == st->me)
		return 1;
	snprintf(num, sizeof num, "%ld", uid);
	for (i = 0; owners != NULL && i < owners->n; i++) {
		if (strcmp(owners->v[i], num) == 0 || (name != NULL &&
		    *name != '\0' && strcmp(owners->v[i], name) == 0))
			return 1;
	}
	return 0;
}

static int
cache_digest_ok(const char *s)
{
	size_t	i;

	if (strncmp(s, "sha256:", 7) != 0 || strlen(s) != 7 + 64)
		return 0;
	for (i = 7; s[i] != '\0'; i++) {
		if (!isxdigit((unsigned char)s[i]) || isupper((unsigned char)s[i]))
			return 0;
	}
	return 1;
}

int
image_cache_trust(const struct image_cache_stat *st,
    const struct strv *owners, const char *pinned, const char *path,
    char **cause)
{
	if (st->me < 0)
		return cause_set(cause, "%s: the cluster did not say who you "
		    "are (id -u), so the cached file's owner cannot be "
		    "checked", path);
	if (st->file == 2)
		return cause_set(cause, "%s is a symbolic link: a cached image "
		    "must be a file of its own", path);
	if (st->file != 1)
		return cause_set(cause, "%s: its owner and mode were not "
		    "reported", path);
	if (!cache_owner_ok(st, st->uid, st->owner, owners))
		return cause_set(cause, "%s belongs to %s (uid %ld), not to "
		    "you or an owner named in image_cache_owners of "
		    "clusters.yaml: anyone who can write the cache could have "
		    "put it there", path, *st->owner ? st->owner : "?",
		    st->uid);
	if ((st->mode & 022) != 0)
		return cause_set(cause, "%s is writable by %s (mode %03o): "
		    "its content cannot be trusted", path, (st->mode & 002) ?
		    "everyone" : "its group", st->mode & 0777);
	/* Its group can swap the file as well as everyone can. */
	if (st->dir && (st->dir_mode & 022) != 0 &&
	    (st->dir_mode & 01000) == 0)
		return cause_set(cause, "the cache directory of %s is writable "
		    "by %s without the sticky bit (mode %o): %s can replace "
		    "the image; run 'chmod %s' or 'chmod +t' on it, or set "
		    "image_cache", path, (st->dir_mode & 002) ? "everyone" :
		    "its group", st->dir_mode, (st->dir_mode & 002) ?
		    "anyone" : "any member of the group",
		    (st->dir_mode & 002) ? "go-w" : "g-w");
	if (pinned == NULL)
		return 0;
	if (st->digest == 2)
		return cause_set(cause, "%s.digest is a symbolic link", path);
	if (st->digest != 1 || !cache_digest_ok(st->digest_value))
		return cause_set(cause, "%s has no recorded digest: it cannot "
		    "be verified against %s", path, pinned);
	if (!cache_owner_ok(st, st->digest_uid, NULL, owners) &&
	    !(st->digest_uid == st->uid && cache_owner_ok(st, st->uid,
	    st->owner, owners)))
		return cause_set(cause, "%s.digest belongs to uid %ld, not to "
		    "you or an owner in image_cache_owners", path,
		    st->digest_uid);
	if ((st->digest_mode & 022) != 0)
		return cause_set(cause, "%s.digest is writable by others (mode "
		    "%03o)", path, st->digest_mode & 0777);
	if (strcmp(st->digest_value, pinned) != 0)
		return cause_set(cause, "%s was converted from %s, not from the "
		    "pinned %s", path, st->digest_value, pinned);
	return 0;
}
