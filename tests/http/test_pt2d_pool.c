/*
 * test_pt2d_pool.c - the worker pool: every job runs, the queue bound is
 * exact, stats, and free() running what is still queued.
 */
#include <check.h>
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

#include "pt2d_pool.h"
#include "pt2d_problem.h"
#include "testutil.h"

struct gate {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int open;
    atomic_int ran;
};

static void gated_job(void *arg)
{
    struct gate *g = arg;

    pthread_mutex_lock(&g->lock);
    while (!g->open)
        pthread_cond_wait(&g->cond, &g->lock);
    pthread_mutex_unlock(&g->lock);
    atomic_fetch_add(&g->ran, 1);
}

static void count_job(void *arg)
{
    atomic_fetch_add((atomic_int *)arg, 1);
}

static void gate_open(struct gate *g)
{
    pthread_mutex_lock(&g->lock);
    g->open = 1;
    pthread_cond_broadcast(&g->cond);
    pthread_mutex_unlock(&g->lock);
}

/* Wait (bounded) until `busy` workers are running. */
static int wait_busy(struct pt2d_pool *p, size_t busy)
{
    struct pt2d_pool_stats st;
    struct timespec ts = {0, 1000000};
    int i;

    for (i = 0; i < 2000; i++) {
        pt2d_pool_stats(p, &st);
        if (st.busy == busy && st.queued == 0)
            return 1;
        nanosleep(&ts, NULL);
    }
    return 0;
}

START_TEST(test_runs_everything)
{
    struct pt2d_pool *p;
    atomic_int n;
    int i;

    atomic_init(&n, 0);
    ck_assert_int_eq(pt2d_pool_create(&p, 4, 1000, NULL), PT2_OK);
    for (i = 0; i < 1000; i++)
        while (pt2d_pool_submit(p, count_job, &n) != PT2_OK)
            ; /* full for a moment: workers are draining it */
    pt2d_pool_free(p);
    ck_assert_int_eq(atomic_load(&n), 1000);
}
END_TEST

START_TEST(test_queue_bound_is_exact)
{
    struct gate g = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0};
    struct pt2d_pool_stats st;
    struct pt2d_pool *p;

    ck_assert_int_eq(pt2d_pool_create(&p, 2, 3, NULL), PT2_OK);
    ck_assert_int_eq(pt2d_pool_submit(p, gated_job, &g), PT2_OK);
    ck_assert_int_eq(pt2d_pool_submit(p, gated_job, &g), PT2_OK);
    ck_assert(wait_busy(p, 2));
    ck_assert_int_eq(pt2d_pool_submit(p, gated_job, &g), PT2_OK);
    ck_assert_int_eq(pt2d_pool_submit(p, gated_job, &g), PT2_OK);
    ck_assert_int_eq(pt2d_pool_submit(p, gated_job, &g), PT2_OK);
    ck_assert_int_eq(pt2d_pool_submit(p, gated_job, &g), PT2_ERR_OVERLOADED);
    pt2d_pool_stats(p, &st);
    ck_assert_uint_eq(st.queued, 3);
    ck_assert_uint_eq(st.capacity, 3);
    ck_assert_uint_eq(st.busy, 2);
    ck_assert_uint_eq(st.workers, 2);
    gate_open(&g);
    pt2d_pool_free(p); /* runs the three queued jobs before joining */
    ck_assert_int_eq(atomic_load(&g.ran), 5);
}
END_TEST

START_TEST(test_bad_sizes)
{
    struct pt2_error err = {0};
    struct pt2d_pool *p;

    ck_assert_int_eq(pt2d_pool_create(&p, 0, 1, &err), PT2_ERR_INVALID);
    ck_assert_ptr_null(p);
    ck_assert_str_eq(err.message, "pool: 0 workers / queue 1 out of range (1..1024 / 1..65536)");
    ck_assert_int_eq(pt2d_pool_create(&p, 1, 0, NULL), PT2_ERR_INVALID);
    ck_assert_int_eq(pt2d_pool_create(&p, 1, PT2D_POOL_MAX_QUEUE + 1, NULL), PT2_ERR_INVALID);
    pt2d_pool_free(NULL);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("pt2d_pool");
    TCase *tc = tcase_create("core");

    tcase_set_timeout(tc, 20);
    tcase_add_test(tc, test_runs_everything);
    tcase_add_test(tc, test_queue_bound_is_exact);
    tcase_add_test(tc, test_bad_sizes);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
