#include "worker.h"

#include <pthread.h>
#include <stddef.h>

/* See workers_each() in worker.h. */

#define EACH_THREADS_MAX	64

struct each {
	void		(*fn)(void *, size_t);
	void		*arg;
	size_t		 n, next;
	pthread_mutex_t	 lock;
};

static void *
each_run(void *p)
{
	struct each	*e = p;
	size_t		 i;

	for (;;) {
		pthread_mutex_lock(&e->lock);
		i = e->next++;
		pthread_mutex_unlock(&e->lock);
		if (i >= e->n)
			return NULL;
		e->fn(e->arg, i);
	}
}

void
workers_each(size_t n, size_t nthreads, void (*fn)(void *, size_t), void *arg)
{
	pthread_t	tid[EACH_THREADS_MAX];
	struct each	e;
	size_t		i, started = 0;

	e.fn = fn;
	e.arg = arg;
	e.n = n;
	e.next = 0;
	pthread_mutex_init(&e.lock, NULL);
	if (nthreads > n)
		nthreads = n;
	if (nthreads > EACH_THREADS_MAX)
		nthreads = EACH_THREADS_MAX;
	/* This thread is one of them: nthreads - 1 more. */
	for (i = 1; i < nthreads; i++) {
		if (pthread_create(&tid[started], NULL, each_run, &e) != 0)
			break;	/* fewer at once: the rest run here */
		started++;
	}
	each_run(&e);
	for (i = 0; i < started; i++)
		pthread_join(tid[i], NULL);
	pthread_mutex_destroy(&e.lock);
}
