#ifndef ASKQ_H
#define ASKQ_H

#include <stddef.h>

#include "conn.h"
#include "msgq.h"

/*
 * Second-factor prompts from the worker threads to the UI thread (the
 * TUI's conn_prompt_fn).  A worker that must log in calls askq_prompt():
 * the request is queued, the UI is woken with a MSG_CLUSTER message
 * ("waiting for the second factor"), and the worker waits until the UI
 * answers, refuses, ASKQ_WAIT seconds pass or askq_shutdown() runs.  Only
 * that cluster's worker waits: the others keep polling.  The UI works on
 * copies (askq_current) and answers by id, so a request that timed out
 * meanwhile is simply gone.  Answers are wiped once handed to the worker.
 * A dialog cancelled by the user is not shown again for that cluster for
 * ASKQ_QUIET seconds (the worker's reconnects fail at once meanwhile).
 */

#define ASKQ_WAIT	240	/* seconds a worker waits for the user */
#define ASKQ_QUIET	300	/* seconds a cancelled cluster is not asked */

struct askq;

/* A copy of the oldest waiting request, for the UI thread. */
struct ask_view {
	unsigned		 id;	/* 0: none */
	char			*cluster;
	char			*name;
	char			*instruction;
	char			*note;	/* NULL or sqdeck's own line */
	struct conn_prompt	*prompts; /* texts owned by the view */
	size_t			 n;
};

struct askq	*askq_create(struct msgq *);
/* Refuse every waiting and future request; wakes the workers. */
void		 askq_shutdown(struct askq *);
/* Only after every worker has stopped. */
void		 askq_destroy(struct askq *);

/* conn_prompt_fn; arg is the struct askq. */
int		 askq_prompt(void *arg, const char *cluster, const char *name,
		     const char *instruction, const char *note,
		     const struct conn_prompt *prompts, size_t n,
		     char **answers, char **cause);

/* Id of the oldest waiting request, 0 if none (cheap: no copies). */
unsigned	 askq_first(struct askq *);
/* Fill v with the oldest waiting request; 0 if there is none. */
int		 askq_current(struct askq *, struct ask_view *v);
void		 askq_view_free(struct ask_view *);
/* Answer request id (answers are taken and wiped); -1 if it is gone. */
int		 askq_answer(struct askq *, unsigned id, char **answers,
		     size_t n);
/* The user cancelled request id. */
void		 askq_cancel(struct askq *, unsigned id);

#endif
