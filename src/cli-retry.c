#include <stdio.h>

#include "cli.h"

int
cli_retry(struct cli *cli, int argc, char **argv)
{
	(void)cli; (void)argc; (void)argv;
	fprintf(stderr, "slurmdeck: retry: not implemented yet\n");
	return EXIT_FAIL;
}
