/*
 * test_pt2d_alog.c - access lines batched per thread: when they reach the
 * stream, that they stay whole and in each thread's order, and the fallbacks.
 */
#include <check.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cJSON.h>

#include "pt2d_alog.h"
#include "pt2d_log.h"
#include "testutil.h"

/* A record with this id and path. */
static struct pt2d_access_record record(const char *id, const char *path)
{
    struct pt2d_access_record r = {id,    "GET", "/v1/inspect", path, 200,
                                   11294, 0.25,  "127.0.0.1",   NULL, NULL};
    return r;
}

/* Bytes in the file behind `f` now (what reached the descriptor). */
static long file_bytes(FILE *f)
{
    long n;

    fflush(f);
    n = lseek(fileno(f), 0, SEEK_END);
    ck_assert_int_ge(n, 0);
    return n;
}

/* The file's whole text (caller frees). */
static char *file_text(FILE *f)
{
    long n = file_bytes(f);
    char *s = calloc(1, (size_t)n + 1);

    ck_assert_ptr_nonnull(s);
    ck_assert_int_eq(pread(fileno(f), s, (size_t)n, 0), n);
    return s;
}

static int count_lines(const char *s)
{
    int n = 0;

    for (; *s != '\0'; s++)
        n += *s == '\n';
    return n;
}

static size_t line_len(const struct pt2d_access_record *r)
{
    char text[PT2D_LOG_LINE_MAX];

    return pt2d_log_access_format(r, text);
}

/* Held until a flush, then the very lines pt2d_log_access writes. */
START_TEST(test_held_until_flush)
{
    FILE *f = tmpfile(), *ref = tmpfile();
    struct pt2d_alog *l;
    struct pt2_error err = {0};
    struct pt2d_access_record r1 = record("one", "/v1/arch"), r2 = record("two", "/v1/inspect");
    char *got, *want;

    ck_assert_int_eq(pt2d_alog_start(&l, f, PT2D_ALOG_FLUSH_MS_MAX, &err), PT2_OK);
    pt2d_alog_access(l, &r1);
    pt2d_alog_access(l, &r2);
    ck_assert_int_eq(file_bytes(f), 0);
    pt2d_alog_flush(l);
    got = file_text(f);
    pt2d_log_access(ref, &r1);
    pt2d_log_access(ref, &r2);
    want = file_text(ref);
    ck_assert_int_eq(count_lines(got), 2);
    /* the same bytes but for the timestamps (the 24 characters after {"ts":") */
    ck_assert_uint_eq(strlen(got), strlen(want));
    memset(got + 7, 'T', 24);
    memset(want + 7, 'T', 24);
    memset(strchr(got, '\n') + 8, 'T', 24);
    memset(strchr(want, '\n') + 8, 'T', 24);
    ck_assert_str_eq(got, want);
    pt2d_alog_flush(l); /* nothing left: nothing more */
    ck_assert_int_eq(file_bytes(f), (long)strlen(want));
    pt2d_alog_stop(l);
    free(got);
    free(want);
    fclose(f);
    fclose(ref);
}
END_TEST

/* A line that does not fit writes the buffer first: whole lines, PIPE_BUF bytes at most. */
START_TEST(test_full_buffer_written)
{
    FILE *f = tmpfile();
    struct pt2d_alog *l;
    struct pt2_error err = {0};
    struct pt2d_access_record r = record("fixed", "/v1/inspect");
    size_t len = line_len(&r), per = PIPE_BUF / len, i;

    ck_assert_uint_gt(per, 1);
    ck_assert_int_eq(pt2d_alog_start(&l, f, PT2D_ALOG_FLUSH_MS_MAX, &err), PT2_OK);
    for (i = 0; i < per; i++)
        pt2d_alog_access(l, &r);
    ck_assert_int_eq(file_bytes(f), 0); /* `per` lines fit */
    pt2d_alog_access(l, &r);
    ck_assert_int_eq(file_bytes(f), (long)(per * len));
    pt2d_alog_stop(l); /* the last one is written by the stop */
    ck_assert_int_eq(file_bytes(f), (long)((per + 1) * len));
    fclose(f);
}
END_TEST

/* A line longer than a batch (a path of control bytes, 6 bytes each) is written alone, whole,
 * after the lines before it. */
START_TEST(test_long_line_alone)
{
    FILE *f = tmpfile();
    struct pt2d_alog *l;
    struct pt2_error err = {0};
    char path[1025];
    struct pt2d_access_record small = record("small", "/v1/arch"), big;
    size_t slen = line_len(&small), blen;
    char *text;

    memset(path, 0x01, 1024);
    path[1024] = '\0';
    big = record("big", path);
    blen = line_len(&big);
    ck_assert_uint_gt(blen, PIPE_BUF);
    ck_assert_int_eq(pt2d_alog_start(&l, f, PT2D_ALOG_FLUSH_MS_MAX, &err), PT2_OK);
    pt2d_alog_access(l, &small);
    pt2d_alog_access(l, &big);
    ck_assert_int_eq(file_bytes(f), (long)(slen + blen));
    pt2d_alog_stop(l);
    text = file_text(f);
    ck_assert_int_eq(count_lines(text), 2);
    ck_assert_ptr_nonnull(strstr(text, "\"id\":\"small\""));
    ck_assert(strstr(text, "\"id\":\"small\"") < strstr(text, "\"id\":\"big\""));
    ck_assert_ptr_nonnull(strstr(text, "\"id\":\"big\""));
    free(text);
    fclose(f);
}
END_TEST

/* The flusher writes a held line by itself (bounded wait, no timing asserted). */
START_TEST(test_flusher_writes)
{
    FILE *f = tmpfile();
    struct pt2d_alog *l;
    struct pt2_error err = {0};
    struct pt2d_access_record r = record("late", "/v1/arch");
    int i;

    ck_assert_int_eq(pt2d_alog_start(&l, f, 20, &err), PT2_OK);
    pt2d_alog_access(l, &r);
    for (i = 0; i < 1000 && file_bytes(f) == 0; i++) {
        struct timespec ts = {0, 10 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    ck_assert_int_eq(file_bytes(f), (long)line_len(&r));
    pt2d_alog_stop(l);
    ck_assert_int_eq(file_bytes(f), (long)line_len(&r));
    fclose(f);
}
END_TEST

/* flush_ms 0, and a stream without a descriptor: every line at once. */
START_TEST(test_unbuffered_cases)
{
    FILE *f = tmpfile();
    char *mem = NULL;
    size_t mlen = 0;
    FILE *m = open_memstream(&mem, &mlen);
    struct pt2d_alog *l;
    struct pt2_error err = {0};
    struct pt2d_access_record r = record("now", "/v1/arch");

    ck_assert_int_eq(pt2d_alog_start(&l, f, 0, &err), PT2_OK);
    pt2d_alog_access(l, &r);
    ck_assert_int_eq(file_bytes(f), (long)line_len(&r));
    pt2d_alog_stop(l);
    ck_assert_int_eq(pt2d_alog_start(&l, m, 5000, &err), PT2_OK);
    pt2d_alog_access(l, &r);
    fflush(m);
    ck_assert_uint_eq(mlen, line_len(&r));
    pt2d_alog_stop(l);
    ck_assert_int_eq(pt2d_alog_start(&l, NULL, 5000, &err), PT2_OK);
    pt2d_alog_access(l, &r); /* dropped */
    pt2d_alog_flush(l);
    pt2d_alog_stop(l);
    pt2d_alog_stop(NULL);
    ck_assert_int_eq(pt2d_alog_start(&l, f, PT2D_ALOG_FLUSH_MS_MAX + 1, &err), PT2_ERR_INVALID);
    ck_assert_ptr_null(l);
    ck_assert_str_eq(err.message, "access log: flush interval 10001 ms is over 10000 ms");
    fclose(m);
    free(mem);
    fclose(f);
}
END_TEST

#define WRITERS 8
#define LINES 2000

struct writer {
    struct pt2d_alog *log;
    int no, lines;
};

static void *writer_main(void *arg)
{
    struct writer *w = arg;
    char id[32];
    int i;

    for (i = 0; i < w->lines; i++) {
        struct pt2d_access_record r;
        snprintf(id, sizeof(id), "%d-%d", w->no, i);
        r = record(id, "/v1/inspect");
        pt2d_alog_access(w->log, &r);
    }
    return NULL;
}

/* Eight threads into one pipe while the flusher runs: every line whole, each thread's lines
 * in its own order; the threads exit before the stop (their lines written as they go), the
 * ninth writer is alive at it. */
START_TEST(test_threads_into_pipe)
{
    int fds[2];
    FILE *f;
    struct pt2d_alog *l;
    struct pt2_error err = {0};
    pthread_t th[WRITERS];
    struct writer w[WRITERS];
    int next[WRITERS + 1] = {0}, i, total = 0;
    char *text;
    size_t len = 0, cap = 1 << 22;
    char *line, *save = NULL;
    ssize_t n;

    ck_assert_int_eq(pipe(fds), 0);
    f = fdopen(fds[1], "w");
    setvbuf(f, NULL, _IONBF, 0);
    text = malloc(cap);
    ck_assert_ptr_nonnull(text);
    text[0] = '\0';
    ck_assert_int_eq(pt2d_alog_start(&l, f, 1, &err), PT2_OK);
    for (i = 0; i < WRITERS; i++) {
        w[i].log = l;
        w[i].no = i;
        w[i].lines = LINES;
        ck_assert_int_eq(pthread_create(&th[i], NULL, writer_main, &w[i]), 0);
    }
    /* The pipe holds 64 KiB: read as they write, until every writer's line is there (a
     * writer's exit writes what it held, without the flusher or the stop). */
    while (total < WRITERS * LINES) {
        n = read(fds[0], text + len, cap - 1 - len);
        ck_assert_int_gt(n, 0);
        text[len + (size_t)n] = '\0';
        total += count_lines(text + len);
        len += (size_t)n;
    }
    total = 0;
    for (i = 0; i < WRITERS; i++)
        pthread_join(th[i], NULL);
    /* This thread is alive at the stop: the stop writes its lines (fewer than fill the
     * pipe, which nobody reads now). */
    w[0].no = WRITERS;
    w[0].lines = 5;
    writer_main(&w[0]);
    pt2d_alog_stop(l);
    fclose(f);
    while ((n = read(fds[0], text + len, cap - 1 - len)) > 0)
        len += (size_t)n;
    text[len] = '\0';
    close(fds[0]);
    for (line = strtok_r(text, "\n", &save); line != NULL; line = strtok_r(NULL, "\n", &save)) {
        cJSON *j = cJSON_Parse(line);
        const cJSON *id;
        int no, seq;

        ck_assert_msg(j != NULL, "not one JSON line: %.80s", line);
        id = cJSON_GetObjectItemCaseSensitive(j, "id");
        ck_assert(cJSON_IsString(id));
        ck_assert_int_eq(sscanf(id->valuestring, "%d-%d", &no, &seq), 2);
        ck_assert_int_ge(no, 0);
        ck_assert_int_le(no, WRITERS);
        ck_assert_int_eq(seq, next[no]);
        next[no]++;
        total++;
        cJSON_Delete(j);
    }
    ck_assert_int_eq(total, WRITERS * LINES + 5);
    ck_assert_int_eq(next[WRITERS], 5);
    free(text);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("pt2d_alog");
    TCase *tc = tcase_create("core");

    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_held_until_flush);
    tcase_add_test(tc, test_full_buffer_written);
    tcase_add_test(tc, test_long_line_alone);
    tcase_add_test(tc, test_flusher_writes);
    tcase_add_test(tc, test_unbuffered_cases);
    tcase_add_test(tc, test_threads_into_pipe);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
