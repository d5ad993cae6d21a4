#include "msgq.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct msgq {
	pthread_mutex_t	 lock;
	struct msg	*head;
	struct msg	*tail;
	size_t		 len;
	int		 fds[2];	/* wake pipe: [0] read, [1] write */
};

const char *
action_kind_name(enum action_kind kind)
{
	static const char *const names[] = {
		[ACTION_SPEC] = "spec",
		[ACTION_START] = "start",
		[ACTION_LOG] = "log",
		[ACTION_EFFICIENCY] = "efficiency",
		[ACTION_SOONEST] = "soonest",
		[ACTION_HOLD] = "hold",
		[ACTION_DETAIL] = "detail",
	};

	if ((size_t)kind >= sizeof names / sizeof names[0] ||
	    names[kind] == NULL)
		return "";
	return names[kind];
}

struct msg *
msg_new(enum msg_type type)
{
	struct msg	*m = xcalloc(1, sizeof *m);

	m->type = type;
	return m;
}

void
msg_free(struct msg *m)
{
	size_t	i;

	if (m == NULL)
		return;
	switch (m->type) {
	case MSG_CLUSTER:
		free(m->u.cluster.cluster);
		free(m->u.cluster.message);
		free(m->u.cluster.host);
		free(m->u.cluster.fault);
		free(m->u.cluster.uses);
		strv_free(&m->u.cluster.partitions);
		break;
	case MSG_RECORDS:
		for (i = 0; i < m->u.records.nrows; i++)
			jobtable_row_clear(&m->u.records.rows[i]);
		free(m->u.records.rows);
		free(m->u.records.message);
		break;
	case MSG_JOBS:
		free(m->u.jobs.cluster);
		for (i = 0; i < m->u.jobs.nrows; i++)
			jobtable_row_clear(&m->u.jobs.rows[i]);
		free(m->u.jobs.rows);
		break;
	case MSG_LOG:
		free(m->u.log.cluster);
		free(m->u.log.job_id);
		free(m->u.log.data);
		break;
	case MSG_ACTION:
		free(m->u.action.cluster);
		free(m->u.action.job_id);
		free(m->u.action.step);
		free(m->u.action.message);
		break;
	}
	free(m);
}

void
msg_free_list(struct msg *m)
{
	struct msg	*next;

	for (; m != NULL; m = next) {
		next = m->next;
		msg_free(m);
	}
}

static int
set_flags(int fd)
{
	int	fl;

	if ((fl = fcntl(fd, F_GETFL)) == -1 ||
	    fcntl(fd, F_SETFL, fl | O_NONBLOCK) == -1)
		return -1;
	if ((fl = fcntl(fd, F_GETFD)) == -1 ||
	    fcntl(fd, F_SETFD, fl | FD_CLOEXEC) == -1)
		return -1;
	return 0;
}

struct msgq *
msgq_create(char **cause)
{
	struct msgq	*q = xcalloc(1, sizeof *q);

	if (pipe(q->fds) != 0) {
		cause_set(cause, "cannot create the wake pipe: %s",
		    strerror(errno));
		free(q);
		return NULL;
	}
	/* Both ends non-blocking: producers must never wait on the UI. */
	if (set_flags(q->fds[0]) != 0 || set_flags(q->fds[1]) != 0) {
		cause_set(cause, "cannot set up the wake pipe: %s",
		    strerror(errno));
		close(q->fds[0]);
		close(q->fds[1]);
		free(q);
		return NULL;
	}
	pthread_mutex_init(&q->lock, NULL);
	return q;
}

void
msgq_destroy(struct msgq *q)
{
	if (q == NULL)
		return;
	msg_free_list(q->head);
	close(q->fds[0]);
	close(q->fds[1]);
	pthread_mutex_destroy(&q->lock);
	free(q);
}

int
msgq_fd(const struct msgq *q)
{
	return q->fds[0];
}

void
msgq_post(struct msgq *q, struct msg *m)
{
	const char	byte = 'm';
	ssize_t		n;

	m->next = NULL;
	pthread_mutex_lock(&q->lock);
	if (q->tail != NULL)
		q->tail->next = m;
	else
		q->head = m;
	q->tail = m;
	q->len++;
	pthread_mutex_unlock(&q->lock);

	/* After the unlock: the reader drains the pipe before the queue. */
	do
		n = write(q->fds[1], &byte, 1);
	while (n == -1 && errno == EINTR);
	/* EAGAIN: the pipe is full, so the reader is already due to wake. */
}

struct msg *
msgq_take_all(struct msgq *q)
{
	char		 buf[512];
	struct msg	*list;
	ssize_t		 n;

	for (;;) {
		n = read(q->fds[0], buf, sizeof buf);
		if (n > 0)
			continue;
		if (n == -1 && errno == EINTR)
			continue;
		break;	/* EAGAIN: empty */
	}
	pthread_mutex_lock(&q->lock);
	list = q->head;
	q->head = q->tail = NULL;
	q->len = 0;
	pthread_mutex_unlock(&q->lock);
	return list;
}

size_t
msgq_length(struct msgq *q)
{
	size_t	n;

	pthread_mutex_lock(&q->lock);
	n = q->len;
	pthread_mutex_unlock(&q->lock);
	return n;
}
