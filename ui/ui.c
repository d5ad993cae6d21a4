#include "ui.h"

#include <stdio.h>

#include "cli.h"

/* The screen arrives with issue 5; until then say so plainly. */
int
ui_main(struct cli *cli)
{
	(void)cli;
	fprintf(stderr, "slurmdeck: the terminal UI is not built yet; "
	    "use the verbs (slurmdeck --help)\n");
	return EXIT_USAGE;
}
