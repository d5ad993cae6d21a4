/*
 * Second-factor prompts from the workers to the UI thread (see askq.h).
 */
#include "askq.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum {
	ASK_WAITING,
	ASK_ANSWERED,
	ASK_CANCELLED,
};

struct ask {
	unsigned			 id;
	const char			*cluster;
	const char			*name;
	const char			*instruction;
	const char			*note;
	const struct conn_prompt	*prompts;
	size_t				 n;
	char				**answers;
	int				 state;
	struct ask			*next;
};

struct quiet {
	char		*cluster;
	time_t		 until;
	struct quiet	*next;
};

struct askq {
	pthread_mutex_t	 lock;
	pthread_cond_t	 cond;
	struct msgq	*q;
	struct ask	*head;
	struct quiet	*quiet;
	unsigned	 next_id;
	int		 shutdown;
};

struct askq *
askq_create(struct msgq *q)
{
	struct askq		*a = xcalloc(1, sizeof *a);
	pthread_condattr_t	 ca;

	pthread_mutex_init(&a->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&a->cond, &ca);
	pthread_condattr_destroy(&ca);
	a->q = q;
	a->next_id = 1;
	return a;
}

void
askq_shutdown(struct askq *a)
{
	struct ask	*k;

	if (a == NULL)
		return;
	pthread_mutex_lock(&a->lock);
	a->shutdown = 1;
	for (k = a->head; k != NULL; k = k->next)
		k->state = ASK_CANCELLED;
	pthread_cond_broadcast(&a->cond);
	pthread_mutex_unlock(&a->lock);
}

void
askq_destroy(struct askq *a)
{
	struct quiet	*qt;

	if (a == NULL)
		return;
	while ((qt = a->quiet) != NULL) {
		a->quiet = qt->next;
		free(qt->cluster);
		free(qt);
	}
	pthread_cond_destroy(&a->cond);
	pthread_mutex_destroy(&a->lock);
	free(a);
}

/* Under the lock. */
static int
askq_quiet(struct askq *a, const char *cluster)
{
	struct quiet	*qt;

	for (qt = a->quiet; qt != NULL; qt = qt->next) {
		if (strcmp(qt->cluster, cluster) == 0)
			return time(NULL) < qt->until;
	}
	return 0;
}

static void
askq_unlink(struct askq *a, struct ask *k)
{
	struct ask	**pp;

	for (pp = &a->head; *pp != NULL; pp = &(*pp)->next) {
		if (*pp == k) {
			*pp = k->next;
			return;
		}
	}
}

static void
askq_wake(struct askq *a, const char *cluster, const char *text)
{
	struct msg	*m;

	if (a->q == NULL)
		return;
	m = msg_new(MSG_CLUSTER);
	m->u.cluster.cluster = xstrdup(cluster);
	m->u.cluster.health = CLUSTER_CONNECTING;
	m->u.cluster.message = xstrdup(text);
	msgq_post(a->q, m);
}

int
askq_prompt(void *arg, const char *cluster, const char *name,
    const char *instruction, const char *note,
    const struct conn_prompt *prompts, size_t n, char **answers,
    char **cause)
{
	struct askq	*a = arg;
	struct ask	 k, **pp;
	struct timespec	 until;
	int		 rc = 0, state;

	memset(&k, 0, sizeof k);
	k.cluster = cluster;
	k.name = name;
	k.instruction = instruction;
	k.note = note;
	k.prompts = prompts;
	k.n = n;
	k.answers = answers;
	k.state = ASK_WAITING;
	clock_gettime(CLOCK_MONOTONIC, &until);
	until.tv_sec += ASKQ_WAIT;

	pthread_mutex_lock(&a->lock);
	if (a->shutdown) {
		pthread_mutex_unlock(&a->lock);
		return cause_set(cause, "sqdeck is quitting");
	}
	if (askq_quiet(a, cluster)) {
		pthread_mutex_unlock(&a->lock);
		return cause_set(cause, "the second-factor dialog was "
		    "cancelled (asked again in a few minutes)");
	}
	k.id = a->next_id++;
	for (pp = &a->head; *pp != NULL; pp = &(*pp)->next)
		;
	*pp = &k;
	pthread_mutex_unlock(&a->lock);
	askq_wake(a, cluster, "waiting for the second factor");

	pthread_mutex_lock(&a->lock);
	while (k.state == ASK_WAITING && rc != ETIMEDOUT)
		rc = pthread_cond_timedwait(&a->cond, &a->lock, &until);
	state = k.state;
	askq_unlink(a, &k);
	pthread_mutex_unlock(&a->lock);
	if (state == ASK_ANSWERED)
		return 0;
	askq_wake(a, cluster, "second factor not given");
	if (state == ASK_CANCELLED)
		return cause_set(cause, "cancelled in the dialog");
	return cause_set(cause, "no answer within %d s", ASKQ_WAIT);
}

unsigned
askq_first(struct askq *a)
{
	struct ask	*k;
	unsigned	 id = 0;

	pthread_mutex_lock(&a->lock);
	for (k = a->head; k != NULL && k->state != ASK_WAITING; k = k->next)
		;
	if (k != NULL)
		id = k->id;
	pthread_mutex_unlock(&a->lock);
	return id;
}

int
askq_current(struct askq *a, struct ask_view *v)
{
	struct ask	*k;
	size_t		 i;

	memset(v, 0, sizeof *v);
	pthread_mutex_lock(&a->lock);
	for (k = a->head; k != NULL && k->state != ASK_WAITING; k = k->next)
		;
	if (k != NULL) {
		v->id = k->id;
		v->cluster = xstrdup(k->cluster);
		v->name = xstrdup(k->name);
		v->instruction = xstrdup(k->instruction);
		v->note = k->note != NULL ? xstrdup(k->note) : NULL;
		v->n = k->n;
		v->prompts = xcalloc(k->n ? k->n : 1, sizeof *v->prompts);
		for (i = 0; i < k->n; i++) {
			v->prompts[i].text = xstrdup(k->prompts[i].text);
			v->prompts[i].echo = k->prompts[i].echo;
		}
	}
	pthread_mutex_unlock(&a->lock);
	return v->id != 0;
}

void
askq_view_free(struct ask_view *v)
{
	size_t	i;

	for (i = 0; i < v->n; i++)
		free((char *)v->prompts[i].text);
	free(v->prompts);
	free(v->cluster);
	free(v->name);
	free(v->instruction);
	free(v->note);
	memset(v, 0, sizeof *v);
}

static struct ask *
askq_find(struct askq *a, unsigned id)
{
	struct ask	*k;

	for (k = a->head; k != NULL; k = k->next) {
		if (k->id == id && k->state == ASK_WAITING)
			return k;
	}
	return NULL;
}

int
askq_answer(struct askq *a, unsigned id, char **answers, size_t n)
{
	struct ask	*k;
	size_t		 i;
	int		 rc = -1;

	pthread_mutex_lock(&a->lock);
	if ((k = askq_find(a, id)) != NULL && k->n == n) {
		for (i = 0; i < n; i++) {
			k->answers[i] = answers[i];
			answers[i] = NULL;
		}
		k->state = ASK_ANSWERED;
		pthread_cond_broadcast(&a->cond);
		rc = 0;
	}
	pthread_mutex_unlock(&a->lock);
	for (i = 0; i < n; i++) {
		conn_wipe(answers[i]);
		answers[i] = NULL;
	}
	return rc;
}

void
askq_cancel(struct askq *a, unsigned id)
{
	struct ask	*k;
	struct quiet	*qt;

	pthread_mutex_lock(&a->lock);
	if ((k = askq_find(a, id)) != NULL) {
		k->state = ASK_CANCELLED;
		for (qt = a->quiet; qt != NULL; qt = qt->next) {
			if (strcmp(qt->cluster, k->cluster) == 0)
				break;
		}
		if (qt == NULL) {
			qt = xcalloc(1, sizeof *qt);
			qt->cluster = xstrdup(k->cluster);
			qt->next = a->quiet;
			a->quiet = qt;
		}
		qt->until = time(NULL) + ASKQ_QUIET;
		pthread_cond_broadcast(&a->cond);
	}
	pthread_mutex_unlock(&a->lock);
}
