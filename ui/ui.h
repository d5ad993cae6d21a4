#ifndef UI_H
#define UI_H

struct cli;

/* Run the terminal UI until the user quits; returns the exit code. */
int	 ui_main(struct cli *);

#endif
