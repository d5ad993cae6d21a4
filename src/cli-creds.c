#include <stdio.h>

#include "cli.h"

int
cli_creds(struct cli *cli, int argc, char **argv)
{
	(void)cli; (void)argc; (void)argv;
	fprintf(stderr, "slurmdeck: creds: not implemented yet\n");
	return EXIT_FAIL;
}
