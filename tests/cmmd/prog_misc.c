/*
 * prog_misc: the rest of <cm/cmmd.h>, written as legacy code would.
 *
 *   prog_misc misc
 *     version    CMMD_version() is "CMMD 3.3 (cm5fab V on libfabric V)",
 *                the same on every node (node 0 prints "version: ..." for
 *                the script to compare with libfabric's)
 *     timers     all 64 timers; elapsed, busy and idle == elapsed - busy
 *                after a known amount of computing and sleeping
 *     poll       CMMD_poll runs request handlers; CMAML_reply from a
 *                request handler; CMAML_rpc that sends a request;
 *                CMAML_poll_while_lt
 *     safety     CMMD_enable_safety/CMMD_disable_safety are accepted
 *     io modes   CMMD_set_io_mode/get/fset/fget round trips
 *   prog_misc resize
 *                CMMD_reset_partition_size(ceil(N/2)): the nodes above
 *                leave by themselves (print "left" and exit 0); the rest
 *                synchronize, reduce, scan, broadcast and exchange
 *                messages on the smaller partition
 *   prog_misc resize_seq
 *                the same with stdout in sync_seq mode: the lines of the
 *                nodes that leave must not be lost
 *   prog_misc io_bc
 *                sync_bc: every node writes the same 3 lines; node 0
 *                writes for all, so one copy appears
 *   prog_misc io
 *                independent: 100 lines of 10000 bytes per node (the
 *                script checks every line is whole); then sync_seq:
 *                three batches of lines, higher nodes printing first,
 *                flushed at two CMMD_sync_with_nodes and at exit (the
 *                script checks the order of the job's whole stdout)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cm/cmmd.h>

#include "t_util.h"

/* ---- version ---- */

static void test_version(void)
{
    const char *v = CMMD_version();
    char mine[128], *all;
    int major, minor, n = 0;
    char rest[100];

    T_CHECK(v != NULL, "CMMD_version() is NULL");
    T_CHECK(sscanf(v, "CMMD %d.%d (cm5fab %99[^)]%n", &major, &minor, rest,
                   &n) == 3 &&
                n > 0,
            "CMMD_version() is \"%s\"", v);
    T_CHECK(major == CMMD_VERSION_MAJOR && minor == CMMD_VERSION_MINOR &&
                major == 3 && minor == 3,
            "CMMD_version() says %d.%d", major, minor);
    T_CHECK(strstr(v, " on libfabric ") && v[strlen(v) - 1] == ')',
            "CMMD_version() is \"%s\"", v);
    T_CHECK(strlen(v) < sizeof(mine), "CMMD_version() is %zu bytes", strlen(v));
    memset(mine, 0, sizeof(mine));
    strcpy(mine, v);
    all = t_malloc(sizeof(mine) * (size_t)t_nodes);
    CMMD_concat_with_nodes(mine, all, (int)sizeof(mine));
    for (int i = 0; i < t_nodes; i++)
        T_CHECK(strcmp(all + sizeof(mine) * (size_t)i, v) == 0,
                "node %d's CMMD_version() is \"%s\", this node's \"%s\"", i,
                all + sizeof(mine) * (size_t)i, v);
    free(all);
    if (t_self == 0)
        printf("version: %s\n", v);
}

/* ---- timers ---- */

static double cpu_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void test_timers(void)
{
    double e, b, i, c0, e1, e2;
    static volatile unsigned sink;

    for (int t = 0; t < CMMD_NUM_TIMERS; t++) {
        CMMD_node_timer_clear(t);
        T_CHECK(CMMD_node_timer_elapsed(t) == 0 && CMMD_node_timer_busy(t) == 0,
                "timer %d not 0 after CMMD_node_timer_clear", t);
        CMMD_node_timer_start(t);
    }
    T_EQ(CMMD_NUM_TIMERS, 64, "CMMD_NUM_TIMERS");
    /* 0.2 s of computing, then 0.3 s of sleeping. */
    c0 = cpu_now();
    while (cpu_now() - c0 < 0.2)
        for (unsigned k = 0; k < 1000; k++)
            sink += k * k;
    e1 = CMMD_node_timer_elapsed(3); /* running: reads as if stopped now */
    t_sleep(0.3);
    e2 = CMMD_node_timer_elapsed(3);
    T_CHECK(e2 >= e1 + 0.29,
            "a running timer's elapsed went from %.3f to "
            "%.3f s over a 0.3 s sleep",
            e1, e2);
    for (int t = CMMD_NUM_TIMERS - 1; t >= 0; t--)
        CMMD_node_timer_stop(t);
    e = CMMD_node_timer_elapsed(3);
    b = CMMD_node_timer_busy(3);
    i = CMMD_node_timer_idle(3);
    T_CHECK(e >= 0.5 && e < 5,
            "elapsed %.3f s after 0.2 s of computing "
            "and 0.3 s of sleeping",
            e);
    T_CHECK(b >= 0.2 && b < e,
            "busy %.3f s after 0.2 s of computing "
            "(elapsed %.3f s)",
            b, e);
    T_CHECK(i >= 0.15 && i <= e - 0.2,
            "idle %.3f s after 0.3 s of "
            "sleeping (elapsed %.3f, busy %.3f)",
            i, e, b);
    T_CHECK(i > e - b - 1e-6 && i < e - b + 1e-6,
            "CMMD_node_timer_idle "
            "%.6f is not elapsed - busy (%.6f)",
            i, e - b);
    T_CHECK(CMMD_node_timer_elapsed(3) == e, "a stopped timer still runs");
    T_CHECK(CMMD_node_timer_elapsed(63) >= 0.5 &&
                CMMD_node_timer_elapsed(0) >= 0.5,
            "timers 0 and 63 did not run");
    /* Accumulates over start/stop pairs. */
    CMMD_node_timer_start(3);
    t_sleep(0.05);
    CMMD_node_timer_stop(3);
    T_CHECK(CMMD_node_timer_elapsed(3) >= e + 0.05,
            "elapsed did not accumulate over a second start/stop (%.3f, "
            "%.3f)",
            e, CMMD_node_timer_elapsed(3));
    CMMD_node_timer_clear(3);
    T_CHECK(CMMD_node_timer_elapsed(3) == 0 && CMMD_node_timer_busy(3) == 0 &&
                CMMD_node_timer_idle(3) == 0,
            "timer 3 not 0 after CMMD_node_timer_clear");
}

/* ---- polling and active messages ---- */

static volatile int requests, replies, rpc_requests;

static void reply_handler(int a, int b)
{
    if (a == 0 && b == 4242)
        replies++;
}

static void request_handler(int src, int magic)
{
    if (magic == 777) {
        requests++;
        CMAML_reply(src, (CMAML_handler_t)reply_handler, 0, 4242);
    }
}

static void rpc_back(int src)
{
    (void)src;
    rpc_requests++;
}

static volatile int rpc_ran;

static void rpc_fn(int src)
{
    /* An rpc runs outside handlers: it may send a request itself. */
    CMAML_request(src, (CMAML_handler_t)rpc_back, CMMD_self_address());
    rpc_ran++;
}

static void test_poll(void)
{
    if (t_self == 0) {
        T_POLL_UNTIL(requests == t_nodes - 1, 20,
                     "CMMD_poll ran %d of %d "
                     "request handlers in 20 s",
                     requests, t_nodes - 1);
    } else {
        CMAML_request(0, (CMAML_handler_t)request_handler, t_self, 777);
        CMAML_poll_while_lt(&replies, 1);
        T_EQ(replies, 1, "replies");
    }
    CMMD_sync_with_nodes();
    if (t_self == 0) {
        for (int n = 0; n < t_nodes; n++)
            CMAML_rpc(n, (CMAML_handler_t)rpc_fn, 0);
        CMAML_poll_while_lt(&rpc_requests, t_nodes);
        T_EQ(rpc_requests, t_nodes, "requests sent back by rpc functions");
    } else {
        /* A node waiting in a barrier runs no rpc (the CM-5's control
         * network dispatched nothing): poll for it first. */
        CMAML_poll_while_lt(&rpc_ran, 1);
    }
    T_EQ(rpc_ran, 1, "rpc functions run on this node");
    CMMD_sync_with_nodes();
}

static void test_safety(void)
{
    CMMD_disable_safety();
    T_EQ(CMMD_reduce_int(1, CMMD_combiner_add), t_nodes,
         "a reduction with safety disabled");
    CMMD_enable_safety();
    T_EQ(CMMD_reduce_int(2, CMMD_combiner_add), 2 * t_nodes,
         "a reduction with safety enabled");
}

static void test_io_modes(void)
{
    static const CMMD_io_mode_t modes[] = {CMMD_sync_bc, CMMD_local,
                                           CMMD_independent};

    for (int k = 0; k < 3; k++) {
        T_EQ(CMMD_fset_io_mode(stdout, modes[k]), 0,
             "CMMD_fset_io_mode's "
             "return value");
        T_EQ(CMMD_fget_io_mode(stdout), modes[k], "CMMD_fget_io_mode(stdout)");
        T_EQ(CMMD_get_io_mode(1), modes[k], "CMMD_get_io_mode(1)");
        T_EQ(CMMD_set_io_mode(2, modes[(k + 1) % 3]), 0,
             "CMMD_set_io_mode's return value");
        T_EQ(CMMD_get_io_mode(2), modes[(k + 1) % 3], "CMMD_get_io_mode(2)");
        T_EQ(CMMD_fget_io_mode(stderr), modes[(k + 1) % 3],
             "CMMD_fget_io_mode(stderr)");
    }
    CMMD_set_io_mode(2, CMMD_independent);
    CMMD_set_io_mode(7, CMMD_local);
    T_EQ(CMMD_get_io_mode(7), CMMD_local, "CMMD_get_io_mode(7)");
    CMMD_set_io_mode(7, CMMD_independent);
}

/* ---- resize ---- */

static void test_resize(void)
{
    int size = t_nodes - t_nodes / 2, sum, buf[2], v, prev, next;

    CMMD_reset_partition_size(size);
    T_EQ(CMMD_self_address(), t_self, "CMMD_self_address() after resize");
    if (t_self >= size) {
        printf("prog_misc: node %d left the partition\n", t_self);
        fflush(stdout);
        exit(0);
    }
    T_EQ(CMMD_partition_size(), size,
         "CMMD_partition_size() after "
         "CMMD_reset_partition_size");
    t_nodes = size;
    CMMD_sync_with_nodes();
    sum = CMMD_reduce_int(t_self + 1, CMMD_combiner_add);
    T_EQ(sum, size * (size + 1) / 2, "sum over the smaller partition");
    T_EQ(CMMD_scan_int(1, CMMD_combiner_add, CMMD_upward, CMMD_none, 0,
                       CMMD_inclusive),
         t_self + 1, "scan over the smaller partition");
    buf[0] = 11;
    buf[1] = size;
    if (t_self == size - 1)
        CMMD_bc_to_nodes(buf, (int)sizeof(buf));
    else
        CMMD_receive_bc_from_node(buf, (int)sizeof(buf));
    T_CHECK(buf[0] == 11 && buf[1] == size, "broadcast on the smaller "
                                            "partition");
    next = (t_self + 1) % size;
    prev = (t_self + size - 1) % size;
    v = t_self;
    CMMD_send_noblock(next, 3, &v, (int)sizeof(v));
    CMMD_receive_block(prev, 3, &v, (int)sizeof(v));
    T_EQ(v, prev, "message on the smaller partition");
    CMMD_all_msgs_wait();
    CMMD_sync_with_nodes();
}

/* ---- output ---- */

static void test_io(void)
{
    char *line = t_malloc(10001);

    memset(line, 'a' + t_self % 26, 10000);
    line[10000] = '\0';
    CMMD_fset_io_mode(stdout, CMMD_independent);
    for (int k = 0; k < 100; k++)
        printf("ind %d %d %s\n", t_self, k, line);
    fflush(stdout);
    free(line);
    CMMD_sync_with_nodes();
    T_EQ(CMMD_fset_io_mode(stdout, CMMD_sync_seq), 0, "CMMD_fset_io_mode");
    T_EQ(CMMD_fget_io_mode(stdout), CMMD_sync_seq, "CMMD_fget_io_mode");
    T_EQ(CMMD_get_io_mode(1), CMMD_sync_seq, "CMMD_get_io_mode(1)");
    for (int batch = 1; batch <= 3; batch++) {
        t_sleep(0.03 * (t_nodes - 1 - t_self)); /* higher nodes first */
        for (int k = 0; k < 3; k++)
            printf("seq %d node %d line %d\n", batch, t_self, k);
        if (batch < 3)
            CMMD_sync_with_nodes();
    }
    /* batch 3 is written at exit */
}

/* sync_bc: "node 0 writes for all" (<cm/cmmd.h>): every node writes the
 * same lines, one copy appears. */
static void test_io_bc(void)
{
    T_EQ(CMMD_fset_io_mode(stdout, CMMD_sync_bc), 0, "CMMD_fset_io_mode");
    T_EQ(CMMD_fget_io_mode(stdout), CMMD_sync_bc, "CMMD_fget_io_mode");
    for (int k = 0; k < 3; k++)
        printf("bc line %d of %d nodes\n", k, t_nodes);
    fflush(stdout);
    CMMD_sync_with_nodes();
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "misc";

    t_init("prog_misc");
    if (strcmp(mode, "resize") == 0) {
        test_resize();
    } else if (strcmp(mode, "resize_seq") == 0) {
        T_EQ(CMMD_fset_io_mode(stdout, CMMD_sync_seq), 0, "CMMD_fset_io_mode");
        printf("prog_misc: node %d before the resize\n", t_self);
        test_resize();
    } else if (strcmp(mode, "io_bc") == 0) {
        test_io_bc();
        return 0; /* no "ok" line: the output is checked whole */
    } else if (strcmp(mode, "io") == 0) {
        test_io();
        return 0; /* no "ok" line: the output is checked whole */
    } else {
        test_version();
        CMMD_sync_with_nodes();
        test_timers();
        CMMD_sync_with_nodes();
        test_poll();
        test_safety();
        test_io_modes();
        CMMD_sync_with_nodes();
    }
    t_done();
    return 0;
}
