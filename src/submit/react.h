#ifndef REACT_H
#define REACT_H

#include "conn.h"

struct monitor_snapshot;

/*
 * What a job's end sets off, as a step of its own after monitor_poll(),
 * which only observes: an INFRA failure is retried (retry.c) and
 * pending NCCL probe answers are read (nccl.c).
 *
 * The poll notes each end it sees (ends_note() of ends.h: a file in the
 * state directory, nothing remote); react_after_poll() takes the notes of the
 * snapshot's cluster, each once (claimed by rename, so the TUI and a
 * "status" in another terminal never both act on one), and acts.  Extra
 * round trips happen only when there is a note.
 *
 * Called on purpose by those who act: the worker (the TUI's poll) and
 * "sqdeck status".  The verbs that only look ("logs --follow", "jobs",
 * "cancel", "retry" before its own retry) never call it, so following a
 * log never submits anything; an end they saw is acted on by the next
 * status or TUI poll.
 */

/*
 * Act on the notes of snap->cluster: a line per retry (or refusal) goes to
 * snap->events.  Returns the number of retries launched.
 */
int	 react_after_poll(struct conn *, struct monitor_snapshot *);

#endif
