#ifndef REACT_H
#define REACT_H

#include "conn.h"
#include "monitor.h"

/*
 * What a job's end sets off, as a step of its own after monitor_poll()
 * (which only observes): an INFRA failure the poll saw is retried (R22,
 * retry.c) and pending NCCL probe answers are read (R21, nccl.c).  Extra
 * round trips happen only when the poll moved a record to an end state.
 *
 * Called on purpose by those who act: the worker (the TUI's poll) and
 * "sqdeck status".  The verbs that only look ("logs --follow", "jobs",
 * "cancel", "retry" before its own retry) never call it, so following a
 * log never submits anything.
 *
 * A line per retry (or refusal) goes to snap->events.  Returns the number
 * of retries launched.
 */
int	 react_after_poll(struct conn *, struct monitor_snapshot *);

#endif
