#ifndef UI_LOGIN_H
#define UI_LOGIN_H

#include "askq.h"

/*
 * The second-factor dialog of the TUI: the server's prompt for one
 * cluster (named in its title; that cluster's line says "connecting"),
 * drawn right under the clusters' lines so they all stay in view while
 * the other clusters keep polling.  Hidden answers show as '*'.  Enter sends, Esc cancels, ^U
 * clears.  All on the UI thread; answers leave through askq_answer() and
 * the typed text is wiped.
 */

void	 ui_login_init(struct askq *);
/* After messages and keys: open, replace or close the dialog; UIF_*. */
int	 ui_login_poll(void);
int	 ui_login_active(void);
/* The cluster the dialog is for (NULL if none). */
const char *ui_login_cluster(void);
/* A key while the dialog is open; UIF_*. */
int	 ui_login_key(int key);
/* Draw the dialog with its top at screen row y. */
void	 ui_login_draw(int y, int ascii);

#endif
