#include <stdio.h>

#include "cli.h"

int
cli_jobs(struct cli *cli, int argc, char **argv)
{
	(void)cli; (void)argc; (void)argv;
	fprintf(stderr, "slurmdeck: jobs: not implemented yet\n");
	return EXIT_FAIL;
}
