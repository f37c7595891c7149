/*
 * prog_model: virtual time (CM5_MODEL, doc/model.md) seen from a CMMD
 * program.  Each mode prints what it measured in virtual nanoseconds;
 * tests/cmmd/model.sh compares the figures with the model's arithmetic.
 *
 *   pingpong R    node 0 sends R requests to node 1, each answered by a
 *                 reply it polls for: "prog_model: rtt NS" (one round trip,
 *                 from CMMD_node_timer_elapsed)
 *   contention    after a barrier every node but 0 sends one request to
 *                 node 0: "prog_model: contention K NS" (node 0's time
 *                 from the barrier until the K-th has run)
 *   timers        a 0.2 s sleep and some computation, timed by a node
 *                 timer and cm5_rtime: "prog_model: timer NS real MS"
 *   fine N US     N stretches of computation of at least US us of thread
 *                 CPU time each, separated by CMAML_poll, timed by a
 *                 node timer: "prog_model: fine NS CPU_NS" (the timer,
 *                 and the CPU time the stretches took, as the program
 *                 measured it)
 *   compute       150 us of CPU time, then cm5_compute(0.002), timed by a
 *                 node timer; cm5_compute(-1) and (NAN) must be refused:
 *                 "prog_model: compute NS REFUSED"
 *   redtypes      CMMD_reduce_int and CMMD_reduce_double, each timed from
 *                 a barrier: "prog_model: redtypes INT_NS DOUBLE_NS"
 *   det           a deterministic mix (ring of blocking messages of
 *                 several sizes, gather to node 0, scopy, reduction,
 *                 broadcast): "prog_model: node N clock NS" per node
 *   a2a B         a complete exchange of B-byte blocks in two orders (as
 *                 examples/tutorial/l7_contention): naive (every receive
 *                 posted, every send started with CMMD_send_async, node
 *                 0 first, then CMMD_all_msgs_wait), reap (the same,
 *                 then CMMD_msg_done on each message in turn until all
 *                 are done, as AC does) and xor (step k:
 *                 CMMD_send_and_receive with node i XOR k): "prog_model:
 *                 a2a ORDER NS" (the slowest node) and "prog_model: node
 *                 N ORDER NS" per node
 *   late          node 0 sends 4 KiB with CMMD_send_block to node 1,
 *                 which reads the clock 1000 times before it posts the
 *                 receive: "prog_model: node N late NS" (each node's time
 *                 from the barrier, its last clock read included)
 *   split         node 0 reads the clock 1000 times (late by 1000 clk),
 *                 then a split-phase reduction (finish), scan (polled with
 *                 CMMD_scan_done, then finish) and reduction again (polled
 *                 with CMMD_reduce_done): "prog_model: node N split NS NS
 *                 NS" (each call's time from its start, the clock read
 *                 after it included)
 *   start         the clock as main begins (after the start-up, which is
 *                 the runtime's, not the program's) and after a barrier:
 *                 "prog_model: node N start NS NS"
 *   clockwait MS  every node waits MS ms of virtual time for its own
 *                 clock, polling (`while (cm5_wtime() < wake)
 *                 CMAML_poll();`, DRS_N's retry wait): "prog_model: node
 *                 N clockwait NS REAL_MS" (virtual and real time it took)
 *
 *   cm5run -n N prog_model MODE [ARG]
 */
#include <math.h>
#include <stdint.h>
#include <time.h>

#include <cm5/cm5.h>

#include "t_util.h"

static volatile int replies, requests;

static void on_reply(void) { replies++; }

static void on_request(int from)
{
    requests++;
    CMAML_reply(from, (CMAML_handler_t)on_reply);
}

static void on_hit(void) { requests++; }

static long long ns(double s) { return llround(s * 1e9); }

static void pingpong(int rounds)
{
    CMMD_sync_with_nodes();
    if (t_self == 0) {
        CMMD_node_timer_clear(0);
        CMMD_node_timer_start(0);
        for (int r = 0; r < rounds; r++) {
            CMAML_request(1, (CMAML_handler_t)on_request, 0);
            CMAML_poll_while_lt(&replies, r + 1);
        }
        CMMD_node_timer_stop(0);
        printf("prog_model: rtt %lld\n",
               ns(CMMD_node_timer_elapsed(0)) / rounds);
    } else if (t_self == 1) /* (a barrier would hold the handlers) */
        CMAML_poll_while_lt(&requests, rounds);
    CMMD_sync_with_nodes();
}

static void contention(void)
{
    double t0;

    CMMD_sync_with_nodes();
    t0 = cm5_wtime();
    if (t_self != 0)
        CMAML_request(0, (CMAML_handler_t)on_hit);
    else {
        CMAML_poll_while_lt(&requests, t_nodes - 1);
        printf("prog_model: contention %d %lld\n", t_nodes - 1,
               ns(cm5_wtime() - t0));
    }
    CMMD_sync_with_nodes();
}

static void timers(void)
{
    double r0 = cm5_rtime(), r1;
    volatile double x = 0;

    CMMD_node_timer_clear(1);
    CMMD_node_timer_start(1);
    t_sleep(0.2);
    for (int i = 0; i < 2000000; i++)
        x += sqrt((double)i);
    CMMD_node_timer_stop(1);
    r1 = cm5_rtime();
    printf("prog_model: timer %lld real %lld\n", ns(CMMD_node_timer_elapsed(1)),
           (long long)((r1 - r0) * 1e3));
}

static uint64_t cpu_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Fine-grained computation: n stretches of at least us microseconds of
 * CPU time, a runtime call between them. */
static void fine(int n, int us)
{
    volatile double x = 0;
    uint64_t spent = 0;

    CMMD_node_timer_clear(1);
    CMMD_node_timer_start(1);
    for (int i = 0; i < n; i++) {
        uint64_t t0 = cpu_ns(), t;

        do {
            for (int k = 0; k < 100; k++)
                x += sqrt((double)k);
        } while ((t = cpu_ns()) - t0 < (uint64_t)us * 1000);
        spent += t - t0;
        CMAML_poll();
    }
    CMMD_node_timer_stop(1);
    printf("prog_model: fine %lld %llu\n", ns(CMMD_node_timer_elapsed(1)),
           (unsigned long long)spent);
}

/* Computation whose cost the program states: its CPU time is not
 * charged, the figure is. */
static void compute(void)
{
    volatile double x = 0;
    uint64_t t0;
    int refused = 0;

    CMMD_node_timer_clear(1);
    CMMD_node_timer_start(1);
    t0 = cpu_ns();
    do {
        for (int k = 0; k < 100; k++)
            x += sqrt((double)k);
    } while (cpu_ns() - t0 < 150000);
    T_CHECK(cm5_compute(0.002) == CM5_OK, "cm5_compute(0.002) failed");
    CMMD_node_timer_stop(1);
    refused += cm5_compute(-1) == CM5_ERR_INVALID;
    refused += cm5_compute(NAN) == CM5_ERR_INVALID;
    printf("prog_model: compute %lld %d\n", ns(CMMD_node_timer_elapsed(1)),
           refused);
}

/* An integer and a floating-point reduction, each from a barrier. */
static void redtypes(void)
{
    double t0, ti, td;

    CMMD_sync_with_nodes();
    t0 = cm5_wtime();
    T_EQ(CMMD_reduce_int(1, CMMD_combiner_add), t_nodes, "reduce_int");
    ti = cm5_wtime() - t0;
    CMMD_sync_with_nodes();
    t0 = cm5_wtime();
    T_CHECK(CMMD_reduce_double(0.5, CMMD_combiner_dadd) == 0.5 * t_nodes,
            "reduce_double");
    td = cm5_wtime() - t0;
    printf("prog_model: redtypes %lld %lld\n", ns(ti), ns(td));
}

static int scopied;

static void on_landed(void) { scopied = 1; }

static void det(void)
{
    static char out[8192], in[8192], port[4096];
    int to = (t_self + 1) % t_nodes, from = (t_self + t_nodes - 1) % t_nodes;
    int rport = CMAML_allocate_rport(), sum;

    T_CHECK(rport >= 0, "no rport");
    CMAML_set_rport_addr(rport, port);
    CMAML_set_rport_byte_counter(rport, 1000);
    CMAML_set_rport_handler(rport, (CMAML_handler_t)on_landed);
    CMMD_sync_with_nodes();
    for (int len = 0; len <= 8192; len = len ? len * 4 : 8) {
        t_fill(out, (size_t)len, (uint32_t)(len + t_self));
        if (t_self % 2 == 0) {
            CMMD_send_block(to, 1, out, len);
            CMMD_receive_block(from, 1, in, len);
        } else {
            CMMD_receive_block(from, 1, in, len);
            CMMD_send_block(to, 1, out, len);
        }
        T_PATTERN(in, (size_t)len, (uint32_t)(len + from), "ring %d", len);
    }
    if (t_self == 0)
        for (int i = 1; i < t_nodes; i++)
            CMMD_receive_block(i, 2, in, 512);
    else
        CMMD_send_block(0, 2, out, 512);
    /* each node's rport gets 1000 bytes from its predecessor, in three
     * phases (node i sends in phase i mod 3) so that no node receives
     * while it sends on 5 nodes: the model charges one clock per node in
     * real-time order, and receipts interleaved with the node's own
     * sends would differ from run to run (doc/model.md) */
    for (int phase = 0; phase < 3; phase++) {
        CMMD_sync_with_nodes();
        if (t_self % 3 == phase)
            CMAML_scopy(to, rport, 0, 0, out, 1000, NULL, NULL);
        if (from % 3 == phase)
            while (!scopied)
                CMAML_poll();
    }
    CMMD_sync_with_nodes();
    printf("prog_model: node %d scopy %lld\n", t_self, ns(cm5_wtime()));
    sum = CMMD_reduce_int(t_self, CMMD_combiner_add);
    T_EQ(sum, t_nodes * (t_nodes - 1) / 2, "sum");
    if (t_self == 0)
        CMMD_bc_to_nodes(out, 100);
    else
        CMMD_receive_bc_from_node(in, 100);
    printf("prog_model: node %d clock %lld\n", t_self, ns(cm5_wtime()));
    CMMD_sync_with_nodes();
}

static char *a2a_s, *a2a_r;
static int a2a_block;

static void a2a_naive(void)
{
    size_t b = (size_t)a2a_block;

    for (int j = 0; j < t_nodes; j++)
        if (j != t_self)
            T_CHECK(CMMD_receive_async(j, 3, a2a_r + j * b, a2a_block, NULL,
                                       NULL) != CMMD_ERRVAL,
                    "receive");
    for (int j = 0; j < t_nodes; j++)
        if (j != t_self)
            T_CHECK(CMMD_send_async(j, 3, a2a_s + j * b, a2a_block, NULL,
                                    NULL) != CMMD_ERRVAL,
                    "send");
    CMMD_all_msgs_wait();
}

static void a2a_reap(void)
{
    size_t b = (size_t)a2a_block;
    CMMD_mcb m[128];
    int n = 0, left;

    T_CHECK(t_nodes <= 64, "too many nodes");
    for (int j = 0; j < t_nodes; j++)
        if (j != t_self)
            m[n++] =
                CMMD_receive_async(j, 5, a2a_r + j * b, a2a_block, NULL, NULL);
    for (int j = 0; j < t_nodes; j++)
        if (j != t_self)
            m[n++] =
                CMMD_send_async(j, 5, a2a_s + j * b, a2a_block, NULL, NULL);
    for (left = n; left > 0;)
        for (int i = 0; i < n; i++)
            if (m[i] && CMMD_msg_done(m[i])) {
                CMMD_free_mcb(m[i]);
                m[i] = 0;
                left--;
            }
}

static void a2a_xor(void)
{
    size_t b = (size_t)a2a_block;

    for (int k = 1; k < t_nodes; k++) {
        int p = t_self ^ k;

        CMMD_send_and_receive(p, 4, a2a_r + p * b, a2a_block, p, 4,
                              a2a_s + p * b, a2a_block);
    }
}

static void a2a_one(const char *name, void (*order)(void))
{
    double t0, t;

    memset(a2a_r, 0, (size_t)t_nodes * (size_t)a2a_block);
    CMMD_sync_with_nodes();
    t0 = cm5_wtime();
    order();
    t = cm5_wtime() - t0;
    for (int j = 0; j < t_nodes; j++)
        if (j != t_self)
            T_PATTERN(a2a_r + (size_t)j * (size_t)a2a_block, (size_t)a2a_block,
                      (uint32_t)(j * 64 + t_self), "%s block from %d", name, j);
    printf("prog_model: node %d %s %lld\n", t_self, name, ns(t));
    t = CMMD_reduce_double(t, CMMD_combiner_dmax);
    if (t_self == 0)
        printf("prog_model: a2a %s %lld\n", name, ns(t));
}

static void a2a(int block)
{
    a2a_block = block;
    a2a_s = malloc((size_t)t_nodes * (size_t)block);
    a2a_r = malloc((size_t)t_nodes * (size_t)block);
    T_CHECK(a2a_s && a2a_r, "out of memory");
    for (int j = 0; j < t_nodes; j++)
        t_fill(a2a_s + (size_t)j * (size_t)block, (size_t)block,
               (uint32_t)(t_self * 64 + j));
    a2a_one("naive", a2a_naive);
    a2a_one("reap", a2a_reap);
    a2a_one("xor", a2a_xor);
    CMMD_sync_with_nodes();
    free(a2a_s);
    free(a2a_r);
}

static void late(void)
{
    static char buf[4096];
    double t0;

    CMMD_sync_with_nodes();
    t0 = cm5_wtime();
    if (t_self == 0)
        CMMD_send_block(1, 6, buf, (int)sizeof(buf));
    else if (t_self == 1) {
        for (int r = 0; r < 1000; r++)
            (void)cm5_wtime();
        CMMD_receive_block(0, 6, buf, (int)sizeof(buf));
    }
    printf("prog_model: node %d late %lld\n", t_self, ns(cm5_wtime() - t0));
    CMMD_sync_with_nodes();
}

static void split(void)
{
    long long t[3];
    double t0;

    for (int i = 0; i < 3; i++) {
        CMMD_sync_with_nodes();
        t0 = cm5_wtime();
        if (t_self == 0)
            for (int r = 0; r < 1000; r++)
                (void)cm5_wtime();
        if (i == 0) {
            CMMD_reduce_int_start(1, CMMD_combiner_add);
            T_EQ(CMMD_reduce_int_finish(1, CMMD_combiner_add), t_nodes,
                 "reduce");
        } else if (i == 1) {
            CMMD_scan_int_start(1, CMMD_combiner_add, CMMD_upward, CMMD_none, 0,
                                CMMD_inclusive);
            while (!CMMD_scan_done())
                ;
            T_EQ(CMMD_scan_int_finish(1, CMMD_combiner_add, CMMD_upward,
                                      CMMD_none, 0, CMMD_inclusive),
                 t_self + 1, "scan");
        } else {
            CMMD_reduce_int_start(1, CMMD_combiner_max);
            while (!CMMD_reduce_done())
                ;
            t[i] = ns(cm5_wtime() - t0);
            T_EQ(CMMD_reduce_int_finish(1, CMMD_combiner_max), 1, "max");
            continue;
        }
        t[i] = ns(cm5_wtime() - t0);
    }
    printf("prog_model: node %d split %lld %lld %lld\n", t_self, t[0], t[1],
           t[2]);
    CMMD_sync_with_nodes();
}

static void clockwait(int ms)
{
    double t0, r0, wake;

    CMMD_sync_with_nodes();
    r0 = cm5_rtime();
    t0 = cm5_wtime();
    wake = t0 + ms * 1e-3;
    while (cm5_wtime() < wake)
        CMAML_poll();
    printf("prog_model: node %d clockwait %lld %.0f\n", t_self,
           ns(cm5_wtime() - t0), (cm5_rtime() - r0) * 1e3);
    CMMD_sync_with_nodes();
}

static void start(void)
{
    double t0 = cm5_wtime(), t1;

    CMMD_sync_with_nodes();
    t1 = cm5_wtime();
    printf("prog_model: node %d start %.0f %.0f\n", t_self, t0 * 1e9, t1 * 1e9);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";

    t_init("prog_model");
    if (strcmp(mode, "pingpong") == 0)
        pingpong(argc > 2 ? atoi(argv[2]) : 10);
    else if (strcmp(mode, "contention") == 0)
        contention();
    else if (strcmp(mode, "timers") == 0)
        timers();
    else if (strcmp(mode, "fine") == 0)
        fine(argc > 2 ? atoi(argv[2]) : 20, argc > 3 ? atoi(argv[3]) : 5);
    else if (strcmp(mode, "compute") == 0)
        compute();
    else if (strcmp(mode, "redtypes") == 0)
        redtypes();
    else if (strcmp(mode, "det") == 0)
        det();
    else if (strcmp(mode, "late") == 0)
        late();
    else if (strcmp(mode, "split") == 0)
        split();
    else if (strcmp(mode, "a2a") == 0)
        a2a(argc > 2 ? atoi(argv[2]) : 4096);
    else if (strcmp(mode, "start") == 0)
        start();
    else if (strcmp(mode, "clockwait") == 0)
        clockwait(argc > 2 ? atoi(argv[2]) : 20);
    else
        T_CHECK(0, "unknown mode '%s'", mode);
    fflush(stdout);
    t_done();
    return 0;
}
