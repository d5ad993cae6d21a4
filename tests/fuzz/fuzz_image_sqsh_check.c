/*
 * image_sqsh_check() on arbitrary superblocks.  Input: 8 bytes of file size
 * (little endian), then the first bytes of the file.  The bytes are passed
 * without a copy, so ASan catches a read past len.  An accepted header has
 * the magic, version 4.0 and a size that fits the file.
 */
#include "fuzz.h"
#include "image.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t	 file_size = 0, used = 0;
	char		*cause = NULL;
	size_t		 i;
	int		 rc;

	if (size < 8)
		return 0;
	for (i = 0; i < 8; i++)
		file_size |= (uint64_t)data[i] << (8 * i);
	rc = image_sqsh_check(data + 8, size - 8, file_size, "/l/img.sqsh",
	    &cause);
	fuzz_check((rc == -1) == (cause != NULL), "rc %d", rc);
	if (rc == 0) {
		fuzz_check(size - 8 >= IMAGE_SQSH_HEADER &&
		    memcmp(data + 8, "hsqs", 4) == 0, "accepted a short or "
		    "magicless header");
		for (i = 0; i < 8; i++)
			used |= (uint64_t)data[8 + 40 + i] << (8 * i);
		fuzz_check(used <= file_size, "bytes_used %llu > size %llu",
		    (unsigned long long)used, (unsigned long long)file_size);
	}
	free(cause);
	return 0;
}
