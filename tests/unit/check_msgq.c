/* The worker -> UI message queue: ordering, threads, wake pipe, ownership. */
#include <poll.h>
#include <pthread.h>

#include "testutil.h"
#include "msgq.h"

static int
readable(int fd, int ms)
{
	struct pollfd	pfd = { .fd = fd, .events = POLLIN };

	return poll(&pfd, 1, ms) == 1 && (pfd.revents & POLLIN);
}

static struct msg *
action(const char *cluster, int seq)
{
	struct msg	*m = msg_new(MSG_ACTION);

	m->u.action.kind = ACTION_REFRESH;
	m->u.action.cluster = xstrdup(cluster);
	m->u.action.job_id = xasprintf("%d", seq);
	m->u.action.message = xasprintf("message %d", seq);
	return m;
}

START_TEST(test_fifo_and_wake)
{
	struct msgq	*q;
	struct msg	*list, *m;
	char		*cause = NULL;
	int		 i;

	q = msgq_create(&cause);
	ck_assert_ptr_nonnull(q);
	ck_assert(!readable(msgq_fd(q), 0));
	ck_assert_ptr_null(msgq_take_all(q));

	for (i = 0; i < 5; i++)
		msgq_post(q, action("a", i));
	ck_assert_uint_eq(msgq_length(q), 5);
	ck_assert(readable(msgq_fd(q), 0));

	list = msgq_take_all(q);
	/* Drained: nothing left to wake poll() for. */
	ck_assert(!readable(msgq_fd(q), 0));
	ck_assert_uint_eq(msgq_length(q), 0);
	for (i = 0, m = list; m != NULL; m = m->next, i++) {
		ck_assert_int_eq(m->type, MSG_ACTION);
		ck_assert_int_eq(atoi(m->u.action.job_id), i);
	}
	ck_assert_int_eq(i, 5);
	msg_free_list(list);

	/* A post after a drain wakes the reader again. */
	msgq_post(q, action("a", 9));
	ck_assert(readable(msgq_fd(q), 0));
	msg_free_list(msgq_take_all(q));
	msgq_destroy(q);
}
END_TEST

#define NPRODUCERS	8
#define PER_PRODUCER	4000

struct producer {
	struct msgq	*q;
	char		 name[16];
};

static void *
produce(void *arg)
{
	struct producer	*p = arg;
	int		 i;

	for (i = 0; i < PER_PRODUCER; i++)
		msgq_post(p->q, action(p->name, i));
	return NULL;
}

/* Many producers, one consumer sleeping in poll(): nothing lost, per-producer order kept. */
START_TEST(test_many_producers)
{
	struct producer	 prod[NPRODUCERS];
	pthread_t	 th[NPRODUCERS];
	int		 next[NPRODUCERS] = { 0 };
	struct msgq	*q;
	struct msg	*list, *m;
	int		 i, got = 0, wakes = 0, p;

	q = msgq_create(NULL);
	ck_assert_ptr_nonnull(q);
	for (i = 0; i < NPRODUCERS; i++) {
		prod[i].q = q;
		snprintf(prod[i].name, sizeof prod[i].name, "p%d", i);
		ck_assert_int_eq(pthread_create(&th[i], NULL, produce,
		    &prod[i]), 0);
	}
	while (got < NPRODUCERS * PER_PRODUCER) {
		/* Never a lost wake-up: poll() must not time out. */
		ck_assert_msg(readable(msgq_fd(q), 5000),
		    "no wake-up with %d of %d received", got,
		    NPRODUCERS * PER_PRODUCER);
		wakes++;
		list = msgq_take_all(q);
		for (m = list; m != NULL; m = m->next) {
			p = atoi(m->u.action.cluster + 1);
			ck_assert_int_ge(p, 0);
			ck_assert_int_lt(p, NPRODUCERS);
			ck_assert_int_eq(atoi(m->u.action.job_id), next[p]);
			next[p]++;
			got++;
		}
		msg_free_list(list);
	}
	for (i = 0; i < NPRODUCERS; i++) {
		pthread_join(th[i], NULL);
		ck_assert_int_eq(next[i], PER_PRODUCER);
	}
	ck_assert_int_gt(wakes, 0);
	ck_assert_ptr_null(msgq_take_all(q));
	msgq_destroy(q);
}
END_TEST

static void *
flood(void *arg)
{
	struct msgq	*q = arg;
	int		 i;

	/* Far more bytes than a pipe holds (64 KiB) with nobody reading. */
	for (i = 0; i < 200000; i++)
		msgq_post(q, msg_new(MSG_JOBS));
	return (void *)q;
}

START_TEST(test_pipe_never_blocks)
{
	struct msgq	*q = msgq_create(NULL);
	pthread_t	 th;
	void		*ret = NULL;
	struct msg	*list, *m;
	size_t		 n = 0;

	ck_assert_ptr_nonnull(q);
	ck_assert_int_eq(pthread_create(&th, NULL, flood, q), 0);
	/* A blocked producer would never be joined: Check's timeout fails it. */
	ck_assert_int_eq(pthread_join(th, &ret), 0);
	ck_assert_ptr_eq(ret, q);
	ck_assert_uint_eq(msgq_length(q), 200000);
	list = msgq_take_all(q);
	for (m = list; m != NULL; m = m->next)
		n++;
	ck_assert_uint_eq(n, 200000);
	ck_assert(!readable(msgq_fd(q), 0));
	msg_free_list(list);
	msgq_destroy(q);
}
END_TEST

/* Every type with every pointer set: msg_free must release them all (ASan). */
START_TEST(test_ownership)
{
	struct msgq	*q = msgq_create(NULL);
	struct msg	*m;

	m = msg_new(MSG_CLUSTER);
	m->u.cluster.cluster = xstrdup("c1");
	m->u.cluster.health = CLUSTER_ERROR;
	m->u.cluster.message = xstrdup("Permission denied (publickey)");
	m->u.cluster.host = xstrdup("login1");
	strv_add(&m->u.cluster.partitions, "gpu 4:00:00");
	strv_add(&m->u.cluster.partitions, "cpu");
	msgq_post(q, m);

	m = msg_new(MSG_JOBS);
	m->u.jobs.cluster = xstrdup("c1");
	m->u.jobs.nrows = 2;
	m->u.jobs.rows = xcalloc(2, sizeof *m->u.jobs.rows);
	m->u.jobs.rows[0].id = xstrdup("1");
	m->u.jobs.rows[0].name = xstrdup("train");
	m->u.jobs.rows[0].state = xstrdup("RUNNING");
	m->u.jobs.rows[1].id = xstrdup("2");
	m->u.jobs.rows[1].reason = xstrdup("Priority");
	msgq_post(q, m);

	m = msg_new(MSG_LOG);
	m->u.log.cluster = xstrdup("c1");
	m->u.log.job_id = xstrdup("1");
	m->u.log.data = xstrdup("epoch 1\n");
	m->u.log.len = 8;
	m->u.log.flags = MSG_LOG_EOF;
	msgq_post(q, m);

	m = action("c1", 3);
	m->u.action.step = xstrdup("sbatch");
	msgq_post(q, m);

	/* Half taken and freed by the receiver, half freed by destroy. */
	m = msgq_take_all(q);
	ck_assert_int_eq(m->type, MSG_CLUSTER);
	ck_assert_int_eq(m->next->type, MSG_JOBS);
	ck_assert_int_eq(m->next->next->type, MSG_LOG);
	ck_assert_int_eq(m->next->next->next->type, MSG_ACTION);
	msg_free_list(m);

	m = msg_new(MSG_CLUSTER);
	m->u.cluster.cluster = xstrdup("left behind");
	msgq_post(q, m);
	msgq_post(q, action("c2", 1));
	msgq_destroy(q);
	msg_free(NULL);
}
END_TEST

static Suite *
msgq_suite(void)
{
	Suite	*s = suite_create("msgq");
	TCase	*tc = tcase_create("msgq");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_fifo_and_wake);
	tcase_add_test(tc, test_many_producers);
	tcase_add_test(tc, test_pipe_never_blocks);
	tcase_add_test(tc, test_ownership);
	suite_add_tcase(s, tc);
	return s;
}

TEST_MAIN(msgq_suite)
