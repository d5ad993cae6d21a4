#include "cli.h"
#include "ui.h"

int
main(int argc, char **argv)
{
	return cli_main(argc, argv, ui_main);
}
