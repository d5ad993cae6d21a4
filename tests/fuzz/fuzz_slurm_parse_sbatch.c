/*
 * slurm_parse_sbatch() on arbitrary sbatch stdout and stderr (the input is
 * "stdout\0stderr"): no crash, no leak, and the reply contract: OK has an
 * id > 0 and no message, ERROR and AMBIGUOUS have a message.
 */
#include "fuzz.h"
#include "slurm.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char			*s = fuzz_cstr(data, size), *part[2], *msg;
	const char		*err;
	enum slurm_submit	 r;
	long			 id;
	size_t			 n;

	n = fuzz_split(s, size, part, 2);
	err = n > 1 ? part[1] : NULL;

	r = slurm_parse_sbatch(part[0], err, &id, &msg);
	switch (r) {
	case SLURM_SUBMIT_OK:
		fuzz_check(id > 0 && msg == NULL, "OK with id %ld", id);
		break;
	case SLURM_SUBMIT_ERROR:
	case SLURM_SUBMIT_AMBIGUOUS:
		fuzz_check(id == -1 && msg != NULL, "%d: id %ld", (int)r, id);
		break;
	default:
		fuzz_check(0, "reply %d", (int)r);
	}
	free(msg);

	/* msg may be NULL: same answer. */
	fuzz_check(slurm_parse_sbatch(part[0], err, &id, NULL) == r,
	    "answer depends on msg");
	free(s);
	return 0;
}
