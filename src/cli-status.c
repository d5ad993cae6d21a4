#include <stdio.h>

#include "cli.h"

int
cli_status(struct cli *cli, int argc, char **argv)
{
	(void)cli; (void)argc; (void)argv;
	fprintf(stderr, "slurmdeck: status: not implemented yet\n");
	return EXIT_FAIL;
}
