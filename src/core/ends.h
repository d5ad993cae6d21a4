#ifndef ENDS_H
#define ENDS_H

#include "util.h"

/*
 * The notes of ends a poll saw, waiting for the reaction (react.h): one
 * file a record in the state directory's react-due/, nothing remote.
 * The poll (monitor.c) only notes; the reaction takes.  So observing
 * never reaches resubmission.
 */

/* Note that record id of cluster ended: a reaction is due. */
void	 ends_note(const char *cluster, const char *id);

/*
 * Take the notes of cluster: each is renamed to a name of this process
 * first, so only one taker acts on it (the TUI and a "status" in another
 * terminal never both act on one).  Fills ids with the record ids.
 */
void	 ends_take(const char *cluster, struct strv *ids);

#endif
