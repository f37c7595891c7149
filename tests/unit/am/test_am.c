/*
 * The native active-message API on a 1-node partition: a program started
 * alone is node 0 of 1, and the runtime starts at its first call.
 * Criterion runs every test in a process of its own, so each one starts
 * the runtime afresh.
 */
#include <criterion/criterion.h>
#include <criterion/redirect.h>

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cm5/cm5.h>

TestSuite(am, .timeout = 30);

/* ---- helpers ---------------------------------------------------------- */

static volatile int nreq, nrep, nrpc;
static uint32_t req_args[4], rep_args[4];
static volatile int bad_order;
static volatile uint32_t next_seq;
static cm5_status_t inner_status = 12345;
static int inner_in_handler = -1;
int am_data_word = 3;

static void req_record(uint32_t a0, uint32_t a1, uint32_t a2, uint32_t a3)
{
    req_args[0] = a0, req_args[1] = a1, req_args[2] = a2, req_args[3] = a3;
    nreq++;
}

static void req_count(uint32_t a0, uint32_t a1, uint32_t a2, uint32_t a3)
{
    (void)a0, (void)a1, (void)a2, (void)a3;
    nreq++;
}

static void rep_record(uint32_t a0, uint32_t a1, uint32_t a2, uint32_t a3)
{
    rep_args[0] = a0, rep_args[1] = a1, rep_args[2] = a2, rep_args[3] = a3;
    nrep++;
}

/* Requests carry a sequence number in a0: they must run in order. */
static void req_seq(uint32_t a0, uint32_t a1, uint32_t a2, uint32_t a3)
{
    (void)a2, (void)a3;
    if (a0 != next_seq || a1 != ~a0)
        bad_order++;
    next_seq = a0 + 1;
    nreq++;
}

/* Answers every request with a reply that echoes the words, changed. */
static void req_reply(uint32_t a0, uint32_t a1, uint32_t a2, uint32_t a3)
{
    inner_in_handler = cm5_in_handler();
    nreq++;
    inner_status =
        cm5_am_reply(cm5_rank(), rep_record, ~a0, a1 + 1, a2 ^ a3, a3);
}

static double now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Poll for a while; returns the number of handlers cm5_poll reported. */
static int poll_for(double seconds)
{
    double t0 = now();
    int n = 0;

    while (now() - t0 < seconds)
        n += cm5_poll();
    return n;
}

/* The flow-control window: CM5_AM_CREDITS if the test set a number, else
 * the most "auto" may choose (the table's help says 32..256). */
static int am_credits(void)
{
    const char *env = getenv("CM5_AM_CREDITS");

    for (int i = 0; !env && i < cm5_config_count(); i++)
        if (strcmp(cm5_config_var(i)->name, "CM5_AM_CREDITS") == 0)
            env = cm5_config_var(i)->default_value;
    cr_assert_not_null(env, "CM5_AM_CREDITS is not in the config table");
    return strcmp(env, "auto") == 0 ? 256 : atoi(env);
}

static void start_on(const char *provider)
{
    setenv("FI_TCP_IFACE", "lo", 0); /* loopback only */
    cr_assert_eq(cm5_init(provider), CM5_OK, "cannot start on %s",
                 provider ? provider : "the default provider");
    if (provider)
        cr_assert(strncmp(cm5_provider(), provider, strlen(provider)) == 0,
                  "asked for %s, runs on %s", provider, cm5_provider());
}

/* ---- partition -------------------------------------------------------- */

Test(am, single_node_partition)
{
    cr_expect_eq(cm5_rank(), 0);
    cr_expect_eq(cm5_size(), 1);
    cr_assert_not_null(cm5_provider());
    cr_expect_gt(strlen(cm5_provider()), 0, "empty provider name");
    cr_expect_str_eq(cm5_bootstrap(), "single");
    cr_expect_eq(cm5_init(NULL), CM5_OK, "cm5_init after the lazy start");
}

Test(am, default_provider_is_shm) { cr_expect_str_eq(cm5_provider(), "shm"); }

Test(am, init_with_other_provider_once_running, .init = cr_redirect_stderr)
{
    cr_assert_str_eq(cm5_provider(), "shm");
    cr_expect_eq(cm5_init("tcp"), CM5_ERR_STATE,
                 "switching provider after start-up was accepted");
    cr_expect_str_eq(cm5_provider(), "shm");
}

Test(am, provider_from_environment)
{
    setenv("CM5_PROVIDER", "tcp", 1);
    setenv("FI_TCP_IFACE", "lo", 0);
    cr_expect(strncmp(cm5_provider(), "tcp", 3) == 0,
              "CM5_PROVIDER=tcp, runs on %s", cm5_provider());
}

Test(am, provider_from_api_beats_environment)
{
    setenv("CM5_PROVIDER", "tcp", 1);
    start_on("shm");
    cr_expect_str_eq(cm5_provider(), "shm");
}

/* ---- requests and replies --------------------------------------------- */

static void request_to_self(const char *provider)
{
    static const uint32_t w[2][4] = {
        {0xdeadbeefu, 0xffffffffu, 0u, 0x12345678u},
        {0x80000000u, 1u, 0xfffffffeu, 0xcafef00du},
    };

    start_on(provider);
    for (int k = 0; k < 2; k++) {
        int before = nreq;

        memset(req_args, 0, sizeof(req_args));
        cr_assert_eq(
            cm5_am_request(0, req_record, w[k][0], w[k][1], w[k][2], w[k][3]),
            CM5_OK);
        /* No thread runs handlers behind the program's back. */
        usleep(20000);
        cr_assert_eq(nreq, before, "the handler ran before any poll");
        cm5_wait_while_lt(&nreq, before + 1);
        cr_assert_eq(nreq, before + 1, "the handler ran %d times",
                     nreq - before);
        for (int i = 0; i < 4; i++)
            cr_expect_eq(req_args[i], w[k][i], "word %d: 0x%x, sent 0x%x", i,
                         req_args[i], w[k][i]);
    }
    poll_for(0.05);
    cr_expect_eq(nreq, 2, "a handler ran twice");
}

Test(am, request_to_self_shm) { request_to_self("shm"); }
Test(am, request_to_self_tcp) { request_to_self("tcp"); }
Test(am, request_to_self_udp) { request_to_self("udp"); }

Test(am, poll_runs_the_handler_and_counts_it)
{
    int ran = 0;
    double t0 = now();

    cr_assert_eq(cm5_am_request(0, req_count, 1, 2, 3, 4), CM5_OK);
    cr_assert_eq(nreq, 0);
    while (nreq == 0 && now() - t0 < 5)
        ran += cm5_poll();
    cr_assert_eq(nreq, 1, "cm5_poll never ran the handler");
    cr_expect_eq(ran, 1, "cm5_poll reported %d handlers run", ran);
}

static int pred_nreq_ge(void *arg) { return nreq >= *(int *)arg; }

Test(am, wait_until_serves_messages)
{
    int want = 3;

    for (int i = 0; i < want; i++)
        cr_assert_eq(cm5_am_request(0, req_count, 0, 0, 0, 0), CM5_OK);
    cm5_wait_until(pred_nreq_ge, &want);
    cr_expect_eq(nreq, want);
}

static void request_reply(const char *provider)
{
    start_on(provider);
    cr_assert_eq(cm5_am_request(0, req_reply, 0x0f0f0f0fu, 0xffffffffu,
                                0xdeadbeefu, 0xdeadbeefu),
                 CM5_OK);
    cm5_wait_while_lt(&nrep, 1);
    cr_expect_eq(nreq, 1);
    cr_expect_eq(nrep, 1);
    cr_expect_eq(inner_in_handler, 1, "cm5_in_handler() in a handler");
    cr_expect_eq(cm5_in_handler(), 0, "cm5_in_handler() outside handlers");
    cr_expect_eq(inner_status, CM5_OK,
                 "cm5_am_reply in a request handler: "
                 "%s",
                 cm5_status_string(inner_status));
    cr_expect_eq(rep_args[0], 0xf0f0f0f0u);
    cr_expect_eq(rep_args[1], 0u);
    cr_expect_eq(rep_args[2], 0u);
    cr_expect_eq(rep_args[3], 0xdeadbeefu);
}

Test(am, request_handler_replies_shm) { request_reply("shm"); }
Test(am, request_handler_replies_tcp) { request_reply("tcp"); }
Test(am, request_handler_replies_udp) { request_reply("udp"); }

Test(am, reply_from_user_code)
{
    cr_assert_eq(cm5_am_reply(0, rep_record, 9, 8, 7, 6), CM5_OK);
    cm5_wait_while_lt(&nrep, 1);
    cr_expect(rep_args[0] == 9 && rep_args[1] == 8 && rep_args[2] == 7 &&
              rep_args[3] == 6);
}

static void in_order(const char *provider, int n)
{
    start_on(provider);
    for (int i = 0; i < n; i++)
        cr_assert_eq(
            cm5_am_request(0, req_seq, (uint32_t)i, ~(uint32_t)i, 0, 0), CM5_OK,
            "request %d", i);
    cm5_wait_while_lt(&nreq, n);
    cr_expect_eq(nreq, n);
    cr_expect_eq(bad_order, 0, "%d requests out of order", bad_order);
    cr_expect_eq(next_seq, (uint32_t)n);
    poll_for(0.05);
    cr_expect_eq(nreq, n, "more handlers ran than were sent");
}

Test(am, thousand_requests_in_order_shm) { in_order("shm", 1000); }
Test(am, thousand_requests_in_order_tcp) { in_order("tcp", 1000); }
Test(am, thousand_requests_in_order_udp) { in_order("udp", 1000); }

/* ---- flow control ------------------------------------------------------ */

static void flood_self(int n)
{
    cm5_stats_t st;
    int sent = 0;

    for (; sent < n; sent++)
        cr_assert_eq(
            cm5_am_request(0, req_seq, (uint32_t)sent, ~(uint32_t)sent, 0, 0),
            CM5_OK, "request %d", sent);
    /* Sends made progress by themselves: at most a window is pending. */
    cr_expect_geq(nreq, n - am_credits(), "%d of %d ran during the sends", nreq,
                  n);
    cm5_wait_while_lt(&nreq, n);
    cr_expect_eq(nreq, sent, "%d handlers ran for %d requests", nreq, sent);
    cr_expect_eq(bad_order, 0);
    poll_for(0.05);
    cr_expect_eq(nreq, n, "more handlers ran than were sent");
    cm5_stats(&st);
    cr_expect_gt(st.credit_waits, 0, "no send waited for credits");
    cr_expect_eq(st.requests_sent, (uint64_t)n);
    cr_expect_eq(st.requests_handled, (uint64_t)n);
}

Test(am, ten_windows_without_polling)
{
    setenv("CM5_AM_CREDITS", "32", 1);
    flood_self(10 * am_credits());
}

Test(am, ten_windows_without_polling_auto)
{
    unsetenv("CM5_AM_CREDITS");
    flood_self(10 * am_credits());
}

Test(am, ten_small_windows_without_polling)
{
    setenv("CM5_AM_CREDITS", "4", 1);
    cr_assert_eq(am_credits(), 4);
    flood_self(40);
}

Test(am, ten_windows_without_polling_tcp)
{
    setenv("CM5_AM_CREDITS", "32", 1);
    start_on("tcp");
    flood_self(10 * am_credits());
}

Test(am, ten_windows_without_polling_udp)
{
    setenv("CM5_AM_CREDITS", "32", 1);
    start_on("udp");
    flood_self(10 * am_credits());
}

/* cm5_poll counts the user handlers it ran, not the flow-control packets
 * that also arrive: half a window of requests to self makes the node
 * return credits to itself in a credit packet. */
Test(am, poll_counts_only_handlers)
{
    int half = 16, reported = 0;
    double t0;

    setenv("CM5_AM_CREDITS", "32", 1);
    for (int i = 0; i < half; i++)
        cr_assert_eq(cm5_am_request(0, req_count, 0, 0, 0, 0), CM5_OK);
    t0 = now();
    while (now() - t0 < 0.3)
        reported += cm5_poll();
    cr_assert_eq(nreq, half);
    cr_expect_eq(reported, half, "%d handlers ran, cm5_poll reported %d", half,
                 reported);
}

/* ---- errors ------------------------------------------------------------ */

Test(am, node_outside_partition)
{
    cm5_stats_t st;

    cr_expect_eq(cm5_am_request(1, req_count, 0, 0, 0, 0), CM5_ERR_RANGE);
    cr_expect_eq(cm5_am_request(-1, req_count, 0, 0, 0, 0), CM5_ERR_RANGE);
    cr_expect_eq(cm5_am_request(INT_MAX, req_count, 0, 0, 0, 0), CM5_ERR_RANGE);
    cr_expect_eq(cm5_am_request(INT_MIN, req_count, 0, 0, 0, 0), CM5_ERR_RANGE);
    cr_expect_eq(cm5_am_reply(1, rep_record, 0, 0, 0, 0), CM5_ERR_RANGE);
    cr_expect_eq(cm5_am_reply(-1, rep_record, 0, 0, 0, 0), CM5_ERR_RANGE);
    cr_expect_eq(cm5_am_rpc(1, req_count, 0, 0, 0, 0), CM5_ERR_RANGE);
    cr_expect_eq(cm5_am_rpc(-1, req_count, 0, 0, 0, 0), CM5_ERR_RANGE);
    poll_for(0.05);
    cr_expect_eq(nreq + nrep, 0, "a refused message ran");
    cm5_stats(&st);
    cr_expect_eq(st.requests_sent + st.replies_sent, 0,
                 "refused messages were counted as sent");
}

static void req_nested(uint32_t a0, uint32_t a1, uint32_t a2, uint32_t a3)
{
    (void)a0, (void)a1, (void)a2, (void)a3;
    inner_status = cm5_am_request(0, req_count, 1, 2, 3, 4);
    nreq++;
}

Test(am, request_from_request_handler)
{
    cr_assert_eq(cm5_am_request(0, req_nested, 0, 0, 0, 0), CM5_OK);
    cm5_wait_while_lt(&nreq, 1);
    cr_expect_eq(inner_status, CM5_ERR_STATE, "got %s",
                 cm5_status_string(inner_status));
    poll_for(0.05);
    cr_expect_eq(nreq, 1, "the refused request ran");
}

static void rep_nested_request(uint32_t a0, uint32_t a1, uint32_t a2,
                               uint32_t a3)
{
    (void)a0, (void)a1, (void)a2, (void)a3;
    inner_status = cm5_am_request(0, req_count, 0, 0, 0, 0);
    nrep++;
}

Test(am, request_from_reply_handler)
{
    cr_assert_eq(cm5_am_reply(0, rep_nested_request, 0, 0, 0, 0), CM5_OK);
    cm5_wait_while_lt(&nrep, 1);
    cr_expect_eq(inner_status, CM5_ERR_STATE, "got %s",
                 cm5_status_string(inner_status));
    poll_for(0.05);
    cr_expect_eq(nreq, 0, "the refused request ran");
}

static void rep_nested_reply(uint32_t a0, uint32_t a1, uint32_t a2, uint32_t a3)
{
    (void)a1, (void)a2, (void)a3;
    if (a0 == 0)
        inner_status = cm5_am_reply(0, rep_nested_reply, 1, 0, 0, 0);
    nrep++;
}

Test(am, reply_from_reply_handler)
{
    cr_assert_eq(cm5_am_reply(0, rep_nested_reply, 0, 0, 0, 0), CM5_OK);
    cm5_wait_while_lt(&nrep, 1);
    cr_expect_eq(inner_status, CM5_ERR_STATE, "got %s",
                 cm5_status_string(inner_status));
    poll_for(0.05);
    cr_expect_eq(nrep, 1, "the refused reply ran");
}

static void req_nested_other(uint32_t a0, uint32_t a1, uint32_t a2, uint32_t a3)
{
    (void)a0, (void)a1, (void)a2, (void)a3;
    inner_status = cm5_am_rpc(0, req_count, 0, 0, 0, 0);
    if (inner_status == CM5_ERR_STATE)
        inner_status = cm5_barrier();
    nreq++;
}

Test(am, rpc_and_barrier_from_handler)
{
    cr_assert_eq(cm5_am_request(0, req_nested_other, 0, 0, 0, 0), CM5_OK);
    cm5_wait_while_lt(&nreq, 1);
    cr_expect_eq(inner_status, CM5_ERR_STATE, "got %s",
                 cm5_status_string(inner_status));
    poll_for(0.05);
    cr_expect_eq(nreq, 1, "the refused rpc ran");
}

static void rpc_sends(uint32_t a0, uint32_t a1, uint32_t a2, uint32_t a3)
{
    inner_in_handler = cm5_in_handler();
    inner_status = cm5_am_request(0, req_record, a0, a1, a2, a3);
    if (inner_status == CM5_OK)
        inner_status = cm5_barrier();
    nrpc++;
}

Test(am, rpc_may_send_requests)
{
    cm5_stats_t st;

    cr_assert_eq(cm5_am_rpc(0, rpc_sends, 0xdeadbeefu, 0xffffffffu, 5, 6),
                 CM5_OK);
    cr_assert_eq(nrpc, 0);
    cm5_wait_while_lt(&nreq, 1);
    cr_expect_eq(nrpc, 1);
    cr_expect_eq(inner_in_handler, 0, "the rpc ran inside a handler");
    cr_expect_eq(inner_status, CM5_OK, "request and barrier from the rpc: %s",
                 cm5_status_string(inner_status));
    cr_expect(req_args[0] == 0xdeadbeefu && req_args[1] == 0xffffffffu &&
              req_args[2] == 5 && req_args[3] == 6);
    cm5_stats(&st);
    cr_expect_eq(st.requests_sent, 2, "rpc and request: %llu sent",
                 (unsigned long long)st.requests_sent);
    cr_expect_eq(st.requests_handled, 2, "rpc and request: %llu handled",
                 (unsigned long long)st.requests_handled);
}

Test(am, data_is_not_a_handler)
{
    int local = 0;
    void *heap = malloc(16);
    const void *bad[] = {&am_data_word, heap, &local, NULL};
    cm5_stats_t st;

    cr_assert_not_null(heap);
    cr_expect_eq(cm5_am_handler_check((const void *)req_count), CM5_OK);
    for (int i = 0; i < 4; i++) {
        cm5_am_handler_func_t h = (cm5_am_handler_func_t)(uintptr_t)bad[i];

        cr_expect_eq(cm5_am_handler_check(bad[i]), CM5_ERR_HANDLER,
                     "pointer %d", i);
        cr_expect_eq(cm5_am_request(0, h, 1, 2, 3, 4), CM5_ERR_HANDLER,
                     "request with pointer %d", i);
        cr_expect_eq(cm5_am_reply(0, h, 1, 2, 3, 4), CM5_ERR_HANDLER,
                     "reply with pointer %d", i);
        cr_expect_eq(cm5_am_rpc(0, h, 1, 2, 3, 4), CM5_ERR_HANDLER,
                     "rpc with pointer %d", i);
    }
    /* Calling data would have crashed the test; nothing may be counted. */
    poll_for(0.05);
    cm5_stats(&st);
    cr_expect_eq(st.requests_sent + st.replies_sent, 0);
    cr_expect_eq(st.requests_handled + st.replies_handled, 0);
    cr_expect_eq(am_data_word, 3);
    free(heap);
}

/* ---- barrier, status, stats -------------------------------------------- */

Test(am, barrier_on_one_node)
{
    for (int i = 0; i < 3; i++)
        cr_expect_eq(cm5_barrier(), CM5_OK, "barrier %d", i);
}

Test(am, status_strings_are_distinct)
{
    const char *s[11];

    for (int i = 0; i <= 10; i++) {
        s[i] = cm5_status_string((cm5_status_t)-i);
        cr_assert_not_null(s[i], "status %d", -i);
        cr_expect_gt(strlen(s[i]), 0, "status %d", -i);
        cr_expect_null(strstr(s[i], "unknown"), "status %d is '%s'", -i, s[i]);
        for (int j = 0; j < i; j++)
            cr_expect_str_neq(s[i], s[j], "status %d and %d", -i, -j);
    }
    cr_expect_eq(CM5_ERR_PEER, -10, "a status was added: extend this test");
    cr_expect_not_null(strstr(cm5_status_string((cm5_status_t)-11), "unknown"));
    cr_expect_not_null(strstr(cm5_status_string((cm5_status_t)1), "unknown"));
}

Test(am, stats_before_start_are_zero)
{
    cm5_stats_t st, zero;

    memset(&zero, 0, sizeof(zero));
    memset(&st, 0xff, sizeof(st));
    cm5_stats(&st);
    cr_expect_eq(memcmp(&st, &zero, sizeof(st)), 0);
}

Test(am, stats_count_exactly)
{
    enum { N = 300, R = 7 };
    cm5_stats_t a, b;

    cm5_barrier();
    cm5_stats(&a);
    for (int i = 0; i < N; i++)
        cr_assert_eq(cm5_am_request(0, req_reply, (uint32_t)i, 0, 0, 0),
                     CM5_OK);
    for (int i = 0; i < R; i++)
        cr_assert_eq(cm5_am_reply(0, rep_record, 0, 0, 0, 0), CM5_OK);
    cm5_wait_while_lt(&nrep, N + R);
    cr_assert_eq(nreq, N);
    poll_for(0.05);
    cm5_stats(&b);
    cr_expect_eq(b.requests_sent - a.requests_sent, N);
    cr_expect_eq(b.replies_sent - a.replies_sent, N + R);
    cr_expect_eq(b.requests_handled - a.requests_handled, N);
    cr_expect_eq(b.replies_handled - a.replies_handled, N + R);
    cr_expect_eq(b.foreign_dropped, 0);
    cr_expect_eq(nrep, N + R);
}
