#include <sys/stat.h>
#include <sys/wait.h>

#include <fcntl.h>

#include "testutil.h"
#include "image.h"
#include "util.h"

/* Parse s; expect success and the given Pyxis form and cache name. */
static void
expect_image(const char *s, const char *pyxis, const char *cache, int latest)
{
	struct image_ref	 ref;
	char			*cause = NULL, *p, *c;

	if (image_parse(s, &ref, &cause) != 0)
		ck_abort_msg("%s: %s", s, cause);
	p = image_pyxis(&ref);
	ck_assert_str_eq(p, pyxis);
	c = image_cache_name(&ref);
	if (cache == NULL)
		ck_assert_ptr_null(c);
	else
		ck_assert_str_eq(c, cache);
	ck_assert_int_eq(ref.latest, latest);
	free(p);
	free(c);
	image_free(&ref);
}

static void
expect_refused(const char *s, const char *msg)
{
	struct image_ref	 ref;
	char			*cause = NULL;

	if (image_parse(s, &ref, &cause) == 0)
		ck_abort_msg("%s: accepted", s);
	ck_assert_ptr_nonnull(cause);
	ck_assert_str_eq(cause, msg);
	ck_assert_ptr_null(ref.repository);
	ck_assert_ptr_null(ref.registry);
	ck_assert_ptr_null(ref.user);
	free(cause);
}

START_TEST(test_forms)
{
	struct image_ref	 ref;
	char			*cause = NULL;

	/* The four forms of an image reference for the same image give the
	   same result. */
	expect_image("nvcr.io#nvidia/tao/tao-toolkit:5.5.0-pyt",
	    "docker://nvcr.io#nvidia/tao/tao-toolkit:5.5.0-pyt",
	    "nvcr.io+nvidia+tao+tao-toolkit+5.5.0-pyt.sqsh", 0);
	expect_image("docker://nvcr.io#nvidia/tao/tao-toolkit:5.5.0-pyt",
	    "docker://nvcr.io#nvidia/tao/tao-toolkit:5.5.0-pyt",
	    "nvcr.io+nvidia+tao+tao-toolkit+5.5.0-pyt.sqsh", 0);
	expect_image("nvcr.io/nvidia/tao/tao-toolkit:5.5.0-pyt",
	    "docker://nvcr.io#nvidia/tao/tao-toolkit:5.5.0-pyt",
	    "nvcr.io+nvidia+tao+tao-toolkit+5.5.0-pyt.sqsh", 0);
	expect_image("docker://nvcr.io/nvidia/tao/tao-toolkit:5.5.0-pyt",
	    "docker://nvcr.io#nvidia/tao/tao-toolkit:5.5.0-pyt",
	    "nvcr.io+nvidia+tao+tao-toolkit+5.5.0-pyt.sqsh", 0);

	/* The sqsh form. */
	expect_image("/lustre/images/tao.sqsh", "/lustre/images/tao.sqsh",
	    NULL, 0);
	expect_image("lustre:///lustre/images/tao.sqsh",
	    "/lustre/images/tao.sqsh", NULL, 0);
	expect_image("/lustre/images/tao.squashfs",
	    "/lustre/images/tao.squashfs", NULL, 0);
	ck_assert_int_eq(image_parse("/l/x.sqsh", &ref, &cause), 0);
	ck_assert_int_eq(ref.kind, IMAGE_SQSH);
	ck_assert_str_eq(ref.path, "/l/x.sqsh");
	ck_assert_ptr_null(image_cache_path(&ref, "/cache"));
	image_free(&ref);

	/* The fields. */
	ck_assert_int_eq(image_parse("docker://$oauthtoken@nvcr.io#nvidia/"
	    "pytorch:24.01-py3", &ref, &cause), 0);
	ck_assert_int_eq(ref.kind, IMAGE_REGISTRY);
	ck_assert_str_eq(ref.user, "$oauthtoken");
	ck_assert_str_eq(ref.registry, "nvcr.io");
	ck_assert_str_eq(ref.repository, "nvidia/pytorch");
	ck_assert_str_eq(ref.tag, "24.01-py3");
	ck_assert_ptr_null(ref.digest);
	ck_assert_ptr_null(ref.path);
	image_free(&ref);
}
END_TEST

START_TEST(test_user_registry_digest)
{
	const char	*d = "sha256:"
	    "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
	char		*s, *p, *c;

	/* The user is kept for enroot but not in the cache name. */
	expect_image("docker://$oauthtoken@nvcr.io#nvidia/pytorch:24.01-py3",
	    "docker://$oauthtoken@nvcr.io#nvidia/pytorch:24.01-py3",
	    "nvcr.io+nvidia+pytorch+24.01-py3.sqsh", 0);
	expect_image("docker://me@registry.example.com/team/img:1",
	    "docker://me@registry.example.com#team/img:1",
	    "registry.example.com+team+img+1.sqsh", 0);
	/* A port: ':' cannot go into the file name, '_' cannot be a host. */
	expect_image("localhost:5000/team/img:2",
	    "docker://localhost:5000#team/img:2",
	    "localhost_5000+team+img+2.sqsh", 0);
	expect_image("localhost/img:2", "docker://localhost#img:2",
	    "localhost+img+2.sqsh", 0);

	/* Digests: with and without a tag; not "latest". */
	s = xasprintf("nvcr.io/nvidia/pytorch@%s", d);
	p = xasprintf("docker://nvcr.io#nvidia/pytorch@%s", d);
	c = xasprintf("nvcr.io+nvidia+pytorch+sha256-%s.sqsh", d + 7);
	expect_image(s, p, c, 0);
	free(s);
	free(p);
	free(c);
	s = xasprintf("nvcr.io#nvidia/pytorch:24.01-py3@%s", d);
	p = xasprintf("docker://nvcr.io#nvidia/pytorch:24.01-py3@%s", d);
	c = xasprintf("nvcr.io+nvidia+pytorch+24.01-py3+sha256-%s.sqsh", d + 7);
	expect_image(s, p, c, 0);
	free(s);
	free(p);
	free(c);
	s = xasprintf("docker://ubuntu@%s", d);
	p = xasprintf("docker://ubuntu@%s", d);
	c = xasprintf("docker.io+ubuntu+sha256-%s.sqsh", d + 7);
	expect_image(s, p, c, 0);
	free(s);
	free(p);
	free(c);

	/* Docker Hub: one cache entry whatever the spelling. */
	expect_image("ubuntu:22.04", "docker://ubuntu:22.04",
	    "docker.io+ubuntu+22.04.sqsh", 0);
	expect_image("docker.io/library/ubuntu:22.04", "docker://ubuntu:22.04",
	    "docker.io+ubuntu+22.04.sqsh", 0);
	expect_image("registry-1.docker.io#library/ubuntu:22.04",
	    "docker://ubuntu:22.04", "docker.io+ubuntu+22.04.sqsh", 0);
	expect_image("index.docker.io/pytorch/pytorch:2.1",
	    "docker://pytorch/pytorch:2.1", "docker.io+pytorch+pytorch+2.1.sqsh",
	    0);
	/* A first component without '.' or ':' is a Hub namespace. */
	expect_image("nvidia/cuda:12.2.0-base-ubuntu22.04",
	    "docker://nvidia/cuda:12.2.0-base-ubuntu22.04",
	    "docker.io+nvidia+cuda+12.2.0-base-ubuntu22.04.sqsh", 0);
	/*
	 * Only library/NAME is an official image.  Stripping "library/" from
	 * library/library/x gave docker://library/x, which parses as x: a
	 * different image (found by tests/fuzz, image_parse round trip).
	 */
	expect_image("docker.io/library/library/x:1",
	    "docker://library/library/x:1", "docker.io+library+library+x+1.sqsh",
	    0);
	expect_image("docker://library/library/x:1",
	    "docker://library/library/x:1", "docker.io+library+library+x+1.sqsh",
	    0);
}
END_TEST

START_TEST(test_latest)
{
	struct image_ref	 ref;
	char			*cause = NULL, *s;

	expect_image("nvcr.io#nvidia/pytorch:latest",
	    "docker://nvcr.io#nvidia/pytorch:latest",
	    "nvcr.io+nvidia+pytorch+latest.sqsh", 1);
	/* No tag means latest, and the cache name says so. */
	expect_image("nvcr.io#nvidia/pytorch", "docker://nvcr.io#nvidia/pytorch",
	    "nvcr.io+nvidia+pytorch+latest.sqsh", 1);
	expect_image("ubuntu", "docker://ubuntu", "docker.io+ubuntu+latest.sqsh",
	    1);
	expect_image("nvcr.io#nvidia/pytorch:Latest-X",
	    "docker://nvcr.io#nvidia/pytorch:Latest-X",
	    "nvcr.io+nvidia+pytorch+Latest-X.sqsh", 0);

	ck_assert_int_eq(image_parse("docker://u@nvcr.io#nvidia/pytorch:latest",
	    &ref, &cause), 0);
	s = image_display(&ref);
	ck_assert_str_eq(s, "docker://nvcr.io#nvidia/pytorch:latest");
	free(s);
	s = image_cache_path(&ref, "/lustre/cache//");
	ck_assert_str_eq(s, "/lustre/cache/nvcr.io+nvidia+pytorch+latest.sqsh");
	free(s);
	s = image_cache_path(&ref, "/");
	ck_assert_str_eq(s, "//nvcr.io+nvidia+pytorch+latest.sqsh");
	free(s);
	image_free(&ref);
}
END_TEST

/* Every cache name is made of filesystem-safe characters only. */
START_TEST(test_cache_name_safe)
{
	const char		*images[] = {
		"nvcr.io#nvidia/tao/tao-toolkit:5.5.0-pyt",
		"docker://$oauthtoken@my-reg.example.com:8443#a_b/c.d/e-f:T_1.x",
		"localhost:5000/x/y",
		"ubuntu@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
	};
	struct image_ref	 ref;
	char			*cause = NULL, *c;
	size_t			 i;

	for (i = 0; i < sizeof images / sizeof images[0]; i++) {
		ck_assert_int_eq(image_parse(images[i], &ref, &cause), 0);
		c = image_cache_name(&ref);
		ck_assert_uint_eq(strspn(c, "abcdefghijklmnopqrstuvwxyz"
		    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._+-"), strlen(c));
		ck_assert(str_has_suffix(c, ".sqsh"));
		ck_assert_ptr_null(strchr(c, '/'));
		free(c);
		image_free(&ref);
	}
}
END_TEST

START_TEST(test_refused)
{
	/* Relative sqsh: Pyxis would pull it as a registry image. */
	expect_refused("tao.sqsh", "image \"tao.sqsh\" is a relative path: "
	    "Pyxis would try to pull it from a registry; give the absolute "
	    "path of the .sqsh on shared storage (e.g. /lustre/images/x.sqsh)");
	expect_refused("images/tao.sqsh", "image \"images/tao.sqsh\" is a "
	    "relative path: Pyxis would try to pull it from a registry; give "
	    "the absolute path of the .sqsh on shared storage (e.g. "
	    "/lustre/images/x.sqsh)");
	expect_refused("./tao", "image \"./tao\" is a relative path: Pyxis "
	    "would try to pull it from a registry; give the absolute path of "
	    "the .sqsh on shared storage (e.g. /lustre/images/x.sqsh)");
	expect_refused("~/tao.squashfs", "image \"~/tao.squashfs\" is a "
	    "relative path: Pyxis would try to pull it from a registry; give "
	    "the absolute path of the .sqsh on shared storage (e.g. "
	    "/lustre/images/x.sqsh)");

	/* Upper case in the repository: the fix is in the message. */
	expect_refused("nvcr.io#NVIDIA/TAO:5.5", "image \"nvcr.io#NVIDIA/TAO:"
	    "5.5\": repository \"NVIDIA/TAO\" has upper-case letters, which "
	    "registries and enroot refuse; write it in lower case: "
	    "\"nvidia/tao\"");
	expect_refused("docker://nvcr.io/nvidia/Tao", "image \"docker://"
	    "nvcr.io/nvidia/Tao\": repository \"nvidia/Tao\" has upper-case "
	    "letters, which registries and enroot refuse; write it in lower "
	    "case: \"nvidia/tao\"");

	expect_refused("", "image is empty: give a .sqsh path on shared "
	    "storage or a registry image such as "
	    "nvcr.io#nvidia/pytorch:24.01-py3");
	expect_refused("nvcr.io#nvidia/x:1 ", "image \"nvcr.io#nvidia/x:1 \" "
	    "contains a space or a control character");
	expect_refused("a\nb", "image \"a\nb\" contains a space or a control "
	    "character");
	expect_refused("/lustre/images/tao", "image \"/lustre/images/tao\": "
	    "an absolute path must name a squashfs file ending in .sqsh");
	expect_refused("/lustre/../etc/x.sqsh", "image \"/lustre/../etc/"
	    "x.sqsh\": \".\" and \"..\" are not allowed in the path; write "
	    "the plain absolute path");
	expect_refused("lustre://host/x.sqsh", "image \"lustre://host/"
	    "x.sqsh\": lustre:// takes an absolute path with no host: "
	    "lustre:///path/x.sqsh");
	expect_refused("https://nvcr.io/nvidia/x:1", "image \"https://nvcr.io/"
	    "nvidia/x:1\": unsupported scheme; use docker://, "
	    "registry#repository:tag or an absolute .sqsh path");
	/* Issue 26.12: a file:// URL is not "a relative path". */
	expect_refused("file:///x.sqsh", "image \"file:///x.sqsh\": Pyxis "
	    "takes no file:// URL; write the absolute path itself: /x.sqsh");
	expect_refused("file://host/x.sqsh", "image \"file://host/x.sqsh\": "
	    "Pyxis takes no file:// URL; write the absolute path of the .sqsh "
	    "on shared storage (e.g. /lustre/images/x.sqsh)");
	expect_refused("s3://b/x.sqsh", "image \"s3://b/x.sqsh\": unsupported "
	    "scheme; use docker://, registry#repository:tag or an absolute "
	    ".sqsh path");
	expect_refused("a#b#c", "image \"a#b#c\" has more than one '#' "
	    "(registry#repository:tag has one)");
	expect_refused("#nvidia/x:1", "image \"#nvidia/x:1\": empty registry "
	    "before '#'; write registry#repository:tag");
	expect_refused("docker://@nvcr.io#nvidia/x:1", "image \"docker://"
	    "@nvcr.io#nvidia/x:1\": empty user before '@'");
	expect_refused("docker://@nvidia/x", "image \"docker://@nvidia/x\": "
	    "empty user before '@'");
	expect_refused("nv_cr.io#nvidia/x:1", "image \"nv_cr.io#nvidia/x:1\": "
	    "registry \"nv_cr.io\" has an invalid character '_' (a host name "
	    "with an optional :port is expected)");
	expect_refused("my_reg.io/nvidia/x:1", "image \"my_reg.io/nvidia/x:1\": "
	    "registry \"my_reg.io\" has an invalid character '_' (a host name "
	    "with an optional :port is expected)");
	expect_refused("nvcr.io#", "image \"nvcr.io#\": no repository name; "
	    "write e.g. nvcr.io#nvidia/pytorch:24.01-py3");
	expect_refused("nvcr.io#:1", "image \"nvcr.io#:1\": no repository "
	    "name; write e.g. nvcr.io#nvidia/pytorch:24.01-py3");
	expect_refused("nvcr.io#nvidia/py$torch:1", "image \"nvcr.io#nvidia/"
	    "py$torch:1\": repository \"nvidia/py$torch\" has an invalid "
	    "character '$' (only a-z, 0-9, '.', '_', '-' and '/' are allowed)");
	expect_refused("nvcr.io#nvidia//x:1", "image \"nvcr.io#nvidia//x:1\": "
	    "repository \"nvidia//x\" has an empty path component");
	expect_refused("nvcr.io#nvidia/x/:1", "image \"nvcr.io#nvidia/x/:1\": "
	    "repository \"nvidia/x/\" has an empty path component");
	expect_refused("nvcr.io#/x:1", "image \"nvcr.io#/x:1\": repository "
	    "\"/x\" has an empty path component");
	expect_refused("nvcr.io#nvidia/x:", "image \"nvcr.io#nvidia/x:\": tag "
	    "\"\" is not a valid tag (1 to 128 of A-Z a-z 0-9 _ . -, not "
	    "starting with . or -)");
	expect_refused("nvcr.io#nvidia/x:-1", "image \"nvcr.io#nvidia/x:-1\": "
	    "tag \"-1\" is not a valid tag (1 to 128 of A-Z a-z 0-9 _ . -, not "
	    "starting with . or -)");
	expect_refused("nvcr.io#nvidia/x:a$b", "image \"nvcr.io#nvidia/x:a$b\": "
	    "tag \"a$b\" has an invalid character '$'");
	expect_refused("nvcr.io#nvidia/x@sha256:abc", "image \"nvcr.io#nvidia/"
	    "x@sha256:abc\": digest \"sha256:abc\" is not sha256: followed by "
	    "64 lower-case hex digits");
	expect_refused("nvcr.io#nvidia/x@md5:0123456789abcdef0123456789abcdef"
	    "0123456789abcdef0123456789abcdef", "image \"nvcr.io#nvidia/x@md5:"
	    "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\""
	    ": digest \"md5:0123456789abcdef0123456789abcdef0123456789abcdef"
	    "0123456789abcdef\" is not sha256: followed by 64 lower-case hex "
	    "digits");
	expect_refused("x@sha256:0123456789ABCDEF0123456789abcdef0123456789"
	    "abcdef0123456789abcdef", "image \"x@sha256:0123456789ABCDEF01234"
	    "56789abcdef0123456789abcdef0123456789abcdef\": digest \"sha256:"
	    "0123456789ABCDEF0123456789abcdef0123456789abcdef0123456789abcdef\""
	    " is not sha256: followed by 64 lower-case hex digits");

	/*
	 * Found by tests/fuzz (image_parse): a Docker Hub name is written
	 * without its registry, so "docker.io/evil.io/x" used to become
	 * docker://evil.io/x -- pulled from evil.io.
	 */
	expect_refused("docker.io/evil.io/x:1", "image \"docker.io/evil.io/x:1\""
	    ": Docker Hub repository \"evil.io/x\" starts with \"evil.io\", "
	    "which would be read as a registry host; Docker Hub names have no "
	    "'.' or ':' there (if evil.io is the registry, write evil.io#x)");
	expect_refused("docker.io#localhost/x", "image \"docker.io#"
	    "localhost/x\": Docker Hub repository \"localhost/x\" starts "
	    "with \"localhost\", which would be read as a registry host; "
	    "Docker Hub names have no '.' or ':' there (if localhost is the "
	    "registry, write localhost#x)");
	expect_refused("docker://index.docker.io/a.b/c",
	    "image \"docker://index.docker.io/a.b/c\": Docker Hub "
	    "repository \"a.b/c\" starts with \"a.b\", which would be read as "
	    "a registry host; Docker Hub names have no '.' or ':' there (if "
	    "a.b is the registry, write a.b#c)");
	/* Also from the fuzzer: "." and ".." components, '-' at an end. */
	expect_refused("library/../x", "image \"library/../x\": repository "
	    "\"library/../x\": each path component must start and end with "
	    "a-z or 0-9");
	expect_refused("nvcr.io#nvidia/-x:1", "image \"nvcr.io#nvidia/-x:1\": "
	    "repository \"nvidia/-x\": each path component must start and end "
	    "with a-z or 0-9");
	expect_refused("nvcr.io#nvidia./x", "image \"nvcr.io#nvidia./x\": "
	    "repository \"nvidia./x\": each path component must start and end "
	    "with a-z or 0-9");
}
END_TEST

START_TEST(test_tag_length)
{
	char	tag[140], *s, *msg, *cache;

	memset(tag, 'a', 128);
	tag[128] = '\0';
	s = xasprintf("nvcr.io#x:%s", tag);
	msg = xasprintf("docker://%s", s);
	cache = xasprintf("nvcr.io+x+%s.sqsh", tag);
	expect_image(s, msg, cache, 0);
	free(cache);
	free(msg);
	free(s);
	tag[128] = 'a';
	tag[129] = '\0';
	s = xasprintf("nvcr.io#x:%s", tag);
	msg = xasprintf("image \"%s\": tag \"%s\" is not a valid tag (1 to 128 "
	    "of A-Z a-z 0-9 _ . -, not starting with . or -)", s, tag);
	expect_refused(s, msg);
	free(msg);
	free(s);
}
END_TEST

START_TEST(test_sbatch_escape)
{
	char	*s;

	s = image_sbatch_escape("nvcr.io#nvidia/pytorch:24.01-py3");
	ck_assert_str_eq(s, "nvcr.io\\#nvidia/pytorch:24.01-py3");
	free(s);
	s = image_sbatch_escape("a##b");
	ck_assert_str_eq(s, "a\\#\\#b");
	free(s);
	s = image_sbatch_escape("");
	ck_assert_str_eq(s, "");
	free(s);
	s = image_sbatch_escape("/l/x.sqsh");
	ck_assert_str_eq(s, "/l/x.sqsh");
	free(s);
}
END_TEST

/* ---------------------------------------------------------------- sqsh */

static int
run(char *const argv[])
{
	pid_t	pid;
	int	status;

	if ((pid = fork()) == 0) {
		int fd = open("/dev/null", O_WRONLY);
		dup2(fd, 1);
		dup2(fd, 2);
		execvp(argv[0], argv);
		_exit(127);
	}
	waitpid(pid, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* A real squashfs made by mksquashfs, read back as bytes. */
static char *
make_sqsh(const char *dir, size_t *lenp)
{
	char	*src, *img, *file, *data, *cause = NULL;
	int	 i;

	src = xasprintf("%s/rootfs", dir);
	img = xasprintf("%s/img.sqsh", dir);
	ck_assert_int_eq(mkdir(src, 0700), 0);
	for (i = 0; i < 3; i++) {
		file = xasprintf("%s/f%d", src, i);
		data = xasprintf("file %d\n", i);
		ck_assert_int_eq(file_write_atomic(file, data, strlen(data),
		    0644, &cause), 0);
		free(file);
		free(data);
	}
	/* Incompressible data, so that half the image is really cut off. */
	{
		size_t		 n = 256 * 1024, k;
		uint32_t	 x = 12345;

		data = xmalloc(n);
		for (k = 0; k < n; k++) {
			x = x * 1103515245 + 12345;
			data[k] = (char)(x >> 16);
		}
		file = xasprintf("%s/noise", src);
		ck_assert_int_eq(file_write_atomic(file, data, n, 0644, &cause),
		    0);
		free(file);
		free(data);
	}
	{
		char *const argv[] = { "mksquashfs", src, img, "-noappend",
		    "-no-progress", "-quiet", NULL };
		ck_assert_int_eq(run(argv), 0);
	}
	if (file_read(img, &data, lenp, &cause) != 0)
		ck_abort_msg("%s", cause);
	free(src);
	free(img);
	return data;
}

static void
sqsh_refused(const void *buf, size_t len, uint64_t size, const char *msg)
{
	char	*cause = NULL;

	ck_assert_int_eq(image_sqsh_check(buf, len, size, "/l/img.sqsh",
	    &cause), -1);
	ck_assert_str_eq(cause, msg);
	free(cause);
}

static void
put_le16(unsigned char *p, unsigned v)
{
	p[0] = v & 0xff;
	p[1] = (v >> 8) & 0xff;
}

static void
put_le64(unsigned char *p, uint64_t v)
{
	int	i;

	for (i = 0; i < 8; i++)
		p[i] = (v >> (8 * i)) & 0xff;
}

START_TEST(test_sqsh_real)
{
	const char	*dir = test_tmpdir();
	char		*img, *cause = NULL, *msg;
	unsigned char	 hdr[IMAGE_SQSH_HEADER], bad[IMAGE_SQSH_HEADER];
	size_t		 len;
	uint64_t	 used;

	img = make_sqsh(dir, &len);
	ck_assert_uint_ge(len, IMAGE_SQSH_HEADER);
	memcpy(hdr, img, sizeof hdr);
	used = (uint64_t)hdr[40] | (uint64_t)hdr[41] << 8 |
	    (uint64_t)hdr[42] << 16 | (uint64_t)hdr[43] << 24;
	ck_assert_uint_le(used, len);

	/* The real file, whole. */
	if (image_sqsh_check(img, len, len, "/l/img.sqsh", &cause) != 0)
		ck_abort_msg("%s", cause);
	/* Only the header is needed: that is what is read remotely. */
	ck_assert_int_eq(image_sqsh_check(hdr, sizeof hdr, len, "/l/img.sqsh",
	    &cause), 0);

	/* Truncated: the file ends before bytes_used. */
	msg = xasprintf("/l/img.sqsh: truncated: the superblock says %llu "
	    "bytes but the file has %llu; delete it and convert the image "
	    "again", (unsigned long long)used,
	    (unsigned long long)(used - 1));
	sqsh_refused(hdr, sizeof hdr, used - 1, msg);
	free(msg);
	sqsh_refused(img, 10, 10, "/l/img.sqsh: only 10 bytes, too small for "
	    "a squashfs image (truncated conversion?); delete it and convert "
	    "the image again");
	sqsh_refused(img, 95, len, "/l/img.sqsh: only 95 bytes, too small for "
	    "a squashfs image (truncated conversion?); delete it and convert "
	    "the image again");
	sqsh_refused(img, len, 0, "/l/img.sqsh: only 0 bytes, too small for "
	    "a squashfs image (truncated conversion?); delete it and convert "
	    "the image again");

	/* Garbage, and the other byte order. */
	memset(bad, 'x', sizeof bad);
	sqsh_refused(bad, sizeof bad, len, "/l/img.sqsh: not a squashfs image "
	    "(no hsqs magic); delete it and convert the image again");
	memcpy(bad, hdr, sizeof bad);
	memcpy(bad, "sqsh", 4);
	sqsh_refused(bad, sizeof bad, len, "/l/img.sqsh: not a squashfs image "
	    "(no hsqs magic); delete it and convert the image again");

	/* Corrupt superblock fields. */
	memcpy(bad, hdr, sizeof bad);
	put_le16(bad + 28, 3);
	sqsh_refused(bad, sizeof bad, len, "/l/img.sqsh: squashfs version 3.0, "
	    "Enroot needs 4.0; delete it and convert the image again");
	memcpy(bad, hdr, sizeof bad);
	put_le16(bad + 30, 1);
	sqsh_refused(bad, sizeof bad, len, "/l/img.sqsh: squashfs version 4.1, "
	    "Enroot needs 4.0; delete it and convert the image again");
	memcpy(bad, hdr, sizeof bad);
	put_le16(bad + 22, 16);		/* block_log no longer matches */
	sqsh_refused(bad, sizeof bad, len, "/l/img.sqsh: corrupt squashfs "
	    "superblock (block size 131072, log 16); delete it and convert the "
	    "image again");
	memcpy(bad, hdr, sizeof bad);
	bad[12] = 0; bad[13] = 0x10; bad[14] = 0; bad[15] = 0;	/* 4096 */
	put_le16(bad + 22, 12);
	ck_assert_int_eq(image_sqsh_check(bad, sizeof bad, len, "x", &cause), 0);
	bad[12] = 0; bad[13] = 0x08;	/* 2048: below the minimum */
	put_le16(bad + 22, 11);
	sqsh_refused(bad, sizeof bad, len, "/l/img.sqsh: corrupt squashfs "
	    "superblock (block size 2048, log 11); delete it and convert the "
	    "image again");
	memcpy(bad, hdr, sizeof bad);
	bad[12] = 0; bad[13] = 0; bad[14] = 0x30; bad[15] = 0;	/* 3 MiB */
	sqsh_refused(bad, sizeof bad, len, "/l/img.sqsh: corrupt squashfs "
	    "superblock (block size 3145728, log 17); delete it and convert "
	    "the image again");
	memcpy(bad, hdr, sizeof bad);
	put_le16(bad + 20, 0);
	sqsh_refused(bad, sizeof bad, len, "/l/img.sqsh: corrupt squashfs "
	    "superblock (unknown compressor 0); delete it and convert the image "
	    "again");
	put_le16(bad + 20, 7);
	sqsh_refused(bad, sizeof bad, len, "/l/img.sqsh: corrupt squashfs "
	    "superblock (unknown compressor 7); delete it and convert the image "
	    "again");
	memcpy(bad, hdr, sizeof bad);
	put_le64(bad + 64, used);	/* inode table at the very end */
	msg = xasprintf("/l/img.sqsh: corrupt squashfs superblock (tables "
	    "outside the %llu bytes used); delete it and convert the image "
	    "again", (unsigned long long)used);
	sqsh_refused(bad, sizeof bad, len, msg);
	free(msg);
	memcpy(bad, hdr, sizeof bad);
	put_le64(bad + 40, 50);		/* bytes_used smaller than a superblock */
	sqsh_refused(bad, sizeof bad, len, "/l/img.sqsh: corrupt squashfs "
	    "superblock (tables outside the 50 bytes used); delete it and "
	    "convert the image again");
	free(img);
}
END_TEST

/* The same real image cut short on disk, checked as a caller would. */
START_TEST(test_sqsh_truncated_file)
{
	const char	*dir = test_tmpdir();
	char		*img, *path, *cause = NULL;
	size_t		 len;
	struct stat	 st;
	FILE		*f;

	img = make_sqsh(dir, &len);
	path = xasprintf("%s/cut.sqsh", dir);
	ck_assert_int_eq(file_write_atomic(path, img, len / 2, 0644, &cause), 0);
	ck_assert_int_eq(stat(path, &st), 0);
	f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	{
		unsigned char	hdr[IMAGE_SQSH_HEADER];
		size_t		n = fread(hdr, 1, sizeof hdr, f);

		ck_assert_int_eq(image_sqsh_check(hdr, n, st.st_size, path,
		    &cause), -1);
		ck_assert(str_has_prefix(cause, path));
		ck_assert_ptr_nonnull(strstr(cause, ": truncated: the "
		    "superblock says "));
		free(cause);
	}
	fclose(f);
	free(path);
	free(img);
}
END_TEST

/* Issue 12 item 4: the cached file is trusted by owner and mode, not name. */
static int
trust(const char *lines, const char *owners, const char *pinned, char **why)
{
	struct image_cache_stat	 st;
	struct strv		 ow, ls;
	size_t			 i;
	int			 rc;

	memset(&ow, 0, sizeof ow);
	memset(&ls, 0, sizeof ls);
	image_cache_stat_init(&st);
	strv_split(&ls, lines, '|');
	for (i = 0; i < ls.n; i++)
		image_cache_stat_line(&st, ls.v[i]);
	if (owners != NULL)
		strv_split(&ow, owners, ',');
	*why = NULL;
	rc = image_cache_trust(&st, &ow, pinned, "/c/x.sqsh", why);
	strv_free(&ow);
	strv_free(&ls);
	return rc;
}

#define D1 "sha256:" \
	"1111111111111111111111111111111111111111111111111111111111111111"
#define D2 "sha256:" \
	"2222222222222222222222222222222222222222222222222222222222222222"

START_TEST(test_cache_trust)
{
	char	*why;

	/* Ours, 644, in a 755 dir. */
	ck_assert_int_eq(trust("me 1001|file 1001 644 alice|dir 1001 755",
	    NULL, NULL, &why), 0);
	/* Another user's file in the shared cache: refused... */
	ck_assert_int_eq(trust("me 1001|file 1002 644 mallory|dir 0 1777",
	    NULL, NULL, &why), -1);
	ck_assert_msg(strstr(why, "mallory (uid 1002)") != NULL, "%s", why);
	ck_assert_ptr_nonnull(strstr(why, "image_cache_owners"));
	free(why);
	/* ...unless the config names its owner, by name or uid. */
	ck_assert_int_eq(trust("me 1001|file 1002 644 images|dir 0 1777",
	    "svc,images", NULL, &why), 0);
	ck_assert_int_eq(trust("me 1001|file 1002 644 images|dir 0 1777",
	    "1002", NULL, &why), 0);
	/* Writable by others or the group. */
	ck_assert_int_eq(trust("me 1001|file 1001 666 alice", NULL, NULL,
	    &why), -1);
	ck_assert_ptr_nonnull(strstr(why, "writable by everyone"));
	free(why);
	ck_assert_int_eq(trust("me 1001|file 1001 664 alice", NULL, NULL,
	    &why), -1);
	ck_assert_ptr_nonnull(strstr(why, "its group"));
	free(why);
	/* A symlink, a missing report, an unknown user. */
	ck_assert_int_eq(trust("me 1001|file link", NULL, NULL, &why), -1);
	ck_assert_ptr_nonnull(strstr(why, "symbolic link"));
	free(why);
	ck_assert_int_eq(trust("me 1001", NULL, NULL, &why), -1);
	free(why);
	ck_assert_int_eq(trust("file 1001 644 alice", NULL, NULL, &why), -1);
	free(why);
	/* A world-writable dir without the sticky bit. */
	ck_assert_int_eq(trust("me 1001|file 1001 644 a|dir 0 777", NULL,
	    NULL, &why), -1);
	ck_assert_ptr_nonnull(strstr(why, "sticky"));
	free(why);
	/*
	 * A group-writable one too: any member of the group can replace the
	 * image (issue 24); with the sticky bit, or 755, it stands.
	 */
	ck_assert_int_eq(trust("me 1001|file 1001 644 a|dir 1001 775", NULL,
	    NULL, &why), -1);
	ck_assert_msg(strstr(why, "writable by its group without the sticky "
	    "bit (mode 775): any member of the group can replace the image; "
	    "run 'chmod g-w'") != NULL, "%s", why);
	free(why);
	ck_assert_int_eq(trust("me 1001|file 1001 644 a|dir 1001 2770", NULL,
	    NULL, &why), -1);
	free(why);
	ck_assert_int_eq(trust("me 1001|file 1001 644 a|dir 1001 1775", NULL,
	    NULL, &why), 0);
	ck_assert_int_eq(trust("me 1001|file 1001 644 a|dir 1001 2755", NULL,
	    NULL, &why), 0);
	/* Garbage is not a report. */
	ck_assert_int_eq(trust("me 1001|file -5 644 a", NULL, NULL, &why), -1);
	free(why);
	ck_assert_int_eq(trust("me 1001|file 1001 9z9 a", NULL, NULL, &why),
	    -1);
	free(why);
	ck_assert_int_eq(trust("me x|file 1001 644 a", NULL, NULL, &why), -1);
	free(why);

	/* Pinned: the digest recorded next to it must match. */
	ck_assert_int_eq(trust("me 1001|file 1001 644 a|digest 1001 644 " D1,
	    NULL, D1, &why), 0);
	ck_assert_int_eq(trust("me 1001|file 1001 644 a|digest 1001 644 " D2,
	    NULL, D1, &why), -1);
	ck_assert_ptr_nonnull(strstr(why, "not from the pinned"));
	free(why);
	ck_assert_int_eq(trust("me 1001|file 1001 644 a", NULL, D1, &why), -1);
	ck_assert_ptr_nonnull(strstr(why, "no recorded digest"));
	free(why);
	ck_assert_int_eq(trust("me 1001|file 1001 644 a|digest link", NULL,
	    D1, &why), -1);
	free(why);
	ck_assert_int_eq(trust("me 1001|file 1001 644 a|digest 1002 644 " D1,
	    NULL, D1, &why), -1);
	ck_assert_ptr_nonnull(strstr(why, "belongs to uid 1002"));
	free(why);
	ck_assert_int_eq(trust("me 1001|file 1001 644 a|digest 1001 666 " D1,
	    NULL, D1, &why), -1);
	free(why);
	ck_assert_int_eq(trust("me 1001|file 1001 644 a|digest 1001 644 "
	    "sha256:12", NULL, "sha256:12", &why), -1);
	free(why);
	/* A trusted owner's conversion, its digest too. */
	ck_assert_int_eq(trust("me 1001|file 1002 644 images|digest 1002 644 "
	    D1, "images", D1, &why), 0);
	/* Not pinned: no digest needed. */
	ck_assert_int_eq(trust("me 1001|file 1001 644 a|digest 1001 644 " D2,
	    NULL, NULL, &why), 0);
}
END_TEST

static Suite *
image_suite(void)
{
	Suite	*s = suite_create("image");
	TCase	*tc = tcase_create("core");

	tcase_add_test(tc, test_forms);
	tcase_add_test(tc, test_user_registry_digest);
	tcase_add_test(tc, test_latest);
	tcase_add_test(tc, test_cache_name_safe);
	tcase_add_test(tc, test_refused);
	tcase_add_test(tc, test_tag_length);
	tcase_add_test(tc, test_sbatch_escape);
	tcase_add_test(tc, test_sqsh_real);
	tcase_add_test(tc, test_sqsh_truncated_file);
	tcase_add_test(tc, test_cache_trust);
	suite_add_tcase(s, tc);
	return s;
}

TEST_MAIN(image_suite)
