/*
 * prog_vsync: virtual time's synchronisation (CM5_MODEL_SYNC,
 * doc/model.md, "Synchronisation") seen from a CMMD program whose
 * virtual times depend on the order in which its nodes' active messages
 * meet: without synchronisation they follow the host's interleaving,
 * with it they are the same on every run.  Each mode prints, per node,
 * its clock and a hash of the order in which its handlers ran.
 *
 *   storm K     every node sends K requests to pseudo-random nodes (a
 *               fixed sequence per node), polling between them; a
 *               request's handler hashes (source, its number) into the
 *               node's order and replies; a node polls until its K
 *               replies are in: "prog_vsync: node N clock NS order HEX
 *               got R"
 *   hot K       every node but 0 sends K requests to node 0 with
 *               CMAML_request and waits for each reply with
 *               CMAML_poll_while_lt (a hot spot: node 0 takes the
 *               requests in virtual-time order); node 0 polls until all
 *               are in: the same line
 *   token R     a token (an active message) goes round the ring R times;
 *               each node waits for it with CMAML_poll in a loop that
 *               also reads the clock (a program's own wait): the same line
 *   mixed K     storm, with a 4 KiB CMMD message to the next node and a
 *               scopy of 1 KiB to the previous node's rport after each
 *               request, every byte checked (a third argument: 1 the
 *               messages only, 2 the scopies only): the same line
 *
 *   held B [S]  a hot spot of messages: every node but 0 sends node 0
 *               one CMMD message of B bytes at once (CMMD_send_block
 *               after a barrier; node 0 posted its receives before), or
 *               node N after (N - 1) x S us of computation (cm5_compute);
 *               each sender prints when its send returned, "prog_vsync:
 *               node N held NS", every byte is checked; then the line
 *
 *   perm B S    a partial permutation at once (doc/model.md, "Shared
 *               links"): every node N with N / S even sends node N + S one
 *               CMMD message of B bytes (CMMD_send_block after a barrier),
 *               which receives it (CMMD_receive_block); every byte is
 *               checked; "prog_vsync: node N sent NS" or "node N got NS"
 *               (from the barrier's end), then the line
 *
 *   splitred R  R rounds: node N computes (N + 1) x 10 us (cm5_compute),
 *               starts a split-phase sum (CMMD_reduce_int_start) and
 *               polls CMMD_reduce_done, counting, until it is done; the
 *               sum is checked: "prog_vsync: node N splitred CLOCK polls
 *               P" then the line
 *
 *   order B     the counter-pattern of held senders' one lane per node:
 *               each even node sends its odd neighbour two messages of B
 *               bytes, tag 1 then tag 2, and an scopy between them; the
 *               odd node receives tag 2 first (blocking), then tag 1, then
 *               waits for the scopy; every byte checked; each node prints
 *               "prog_vsync: node N order CLOCK" then the line
 *
 *   irq K       interrupts: every node enables them; every node but 0
 *               sends node 0 K requests at once, then spins without any
 *               runtime call until its K replies have come (their
 *               handlers run by interrupt); node 0 spins without any call
 *               until it has handled them all (30 s bound): the line
 *
 *   irqcomp K MS  interrupts on everywhere: node 1 computes MS ms of its
 *               CPU time with no runtime call (free: CM5_MODEL_CPU_SCALE=0)
 *               and prints "prog_vsync: node 1 computed CLOCK"; the other
 *               nodes storm among themselves meanwhile (K requests each to
 *               pseudo-random nodes other than 1, polling); then the line.
 *               A computation is not a wait for an interrupt: node 1's
 *               clock must not take what the others reached in real time
 *               while it computed
 *
 *   spin N W    loops of probes (doc/model.md, "Loops of probes"): node 1
 *               computes W us (cm5_compute) and sends node 0 a request;
 *               node 0 polls until its handler has run ("prog_vsync: node
 *               0 woke CLOCK"), then calls CMAML_poll N times with nothing
 *               to come ("prog_vsync: node 0 spun CLOCK"); then the line
 *
 *   cm5run -n N prog_vsync MODE [ARG]
 */
#include <math.h>
#include <stdint.h>
#include <time.h>

#include <cm5/cm5.h>

#include "t_util.h"

static volatile int replies, requests, token;
static uint64_t order = 1469598103934665603ull;

static long long ns(double s) { return llround(s * 1e9); }

static void mix(uint64_t v)
{
    order ^= v;
    order *= 1099511628211ull;
}

static void on_reply(void) { replies++; }

static void on_request(int from, int k)
{
    requests++;
    mix((uint64_t)from << 32 | (uint32_t)k);
    CMAML_reply(from, (CMAML_handler_t)on_reply);
}

static void on_token(int from, int lap)
{
    mix((uint64_t)from << 32 | (uint32_t)lap);
    token++;
}

static uint32_t rnd(uint32_t *s)
{
    *s = *s * 1664525u + 1013904223u;
    return *s >> 8;
}

static void report(void)
{
    double t = cm5_wtime();

    CMMD_sync_with_nodes();
    printf("prog_vsync: node %d clock %lld order %016llx got %d\n", t_self,
           ns(t), (unsigned long long)order, requests);
    fflush(stdout);
}

static void storm(int k)
{
    uint32_t s = 12345u + 7919u * (uint32_t)t_self;

    CMMD_sync_with_nodes();
    for (int i = 0; i < k; i++) {
        int to = (int)(rnd(&s) % (uint32_t)t_nodes);

        CMAML_request(to, (CMAML_handler_t)on_request, t_self, i);
        for (uint32_t p = rnd(&s) % 4; p > 0; p--)
            CMAML_poll();
    }
    while (replies < k)
        CMAML_poll();
    report();
}

static void hot(int k)
{
    CMMD_sync_with_nodes();
    if (t_self != 0)
        for (int i = 0; i < k; i++) {
            CMAML_request(0, (CMAML_handler_t)on_request, t_self, i);
            CMAML_poll_while_lt(&replies, i + 1);
        }
    else
        while (requests < k * (t_nodes - 1))
            CMAML_poll();
    report();
}

static void token_ring(int laps)
{
    int next = (t_self + 1) % t_nodes, seen = 0;

    CMMD_sync_with_nodes();
    if (t_self == 0)
        CMAML_request(next, (CMAML_handler_t)on_token, t_self, 0);
    for (int lap = 0; lap < laps; lap++) {
        double t0 = cm5_wtime();

        while (token == seen)
            if (cm5_wtime() - t0 >= 0) /* a program's own loop */
                CMAML_poll();
        seen = token;
        if (t_self != 0 || lap + 1 < laps)
            CMAML_request(next, (CMAML_handler_t)on_token, t_self,
                          lap + (t_self == 0));
    }
    report();
}

#define MIXED_MSG 4096
#define MIXED_SCOPY 1024
static char scopy_in[MIXED_SCOPY];
static volatile int scopied;

static void on_scopy(int rport, void *arg)
{
    (void)rport, (void)arg;
    scopied++;
}

static void mixed(int k, int parts)
{
    uint32_t s = 777u + 31u * (uint32_t)t_self;
    int next = (t_self + 1) % t_nodes, prev = (t_self + t_nodes - 1) % t_nodes;
    static char out[MIXED_MSG], in[MIXED_MSG], sc[MIXED_SCOPY];
    int rport = CMAML_allocate_rport(), next_rport;
    CMMD_mcb m;

    T_CHECK(rport >= 0, "no rport");
    /* every node learns its next node's rport (a ring of sends) */
    m = CMMD_send_async(prev, 90, &rport, sizeof(rport), NULL, NULL);
    CMMD_receive_block(next, 90, &next_rport, sizeof(next_rport));
    CMMD_msg_wait(m);
    CMMD_free_mcb(m);
    CMMD_sync_with_nodes();
    for (int i = 0; i < k; i++) {
        int to = (int)(rnd(&s) % (uint32_t)t_nodes);
        CMMD_mcb mr, ms;

        CMAML_set_rport_addr(rport, scopy_in);
        CMAML_set_rport_byte_counter(rport, MIXED_SCOPY);
        CMAML_set_rport_total_nbytes(rport, 0);
        CMAML_set_rport_handler(rport, (CMAML_handler_t)on_scopy);
        CMMD_sync_with_nodes(); /* every rport is ready */
        CMAML_request(to, (CMAML_handler_t)on_request, t_self, i);
        t_fill(out, MIXED_MSG, t_hash((uint32_t)t_self, (uint32_t)i));
        t_fill(sc, MIXED_SCOPY, t_hash((uint32_t)t_self + 1000, (uint32_t)i));
        if (parts & 1) {
            mr = CMMD_receive_async(prev, i, in, MIXED_MSG, NULL, NULL);
            ms = CMMD_send_async(next, i, out, MIXED_MSG, NULL, NULL);
        }
        if (parts & 2)
            CMAML_scopy(next, next_rport, 0, 0, sc, MIXED_SCOPY, NULL, NULL);
        if (parts & 1) {
            long long t0 = ns(cm5_wtime()), t1, t2;

            while (!CMMD_msg_done(mr))
                ;
            t1 = ns(cm5_wtime());
            CMMD_msg_wait(ms);
            t2 = ns(cm5_wtime());
            if (getenv("PROG_VSYNC_TRACE")) /* (per step, to compare runs) */
                printf("prog_vsync: node %d step %d %lld %lld %lld\n", t_self,
                       i, t0, t1, t2);
            CMMD_free_mcb(mr);
            CMMD_free_mcb(ms);
            T_EQ(t_diff(in, MIXED_MSG, t_hash((uint32_t)prev, (uint32_t)i)), -1,
                 "the first wrong message byte");
        }
        if (parts & 2) {
            CMAML_poll_while_lt(&scopied, i + 1);
            T_EQ(t_diff(scopy_in, MIXED_SCOPY,
                        t_hash((uint32_t)prev + 1000, (uint32_t)i)),
                 -1, "the first wrong scopy byte");
        }
    }
    while (replies < k)
        CMAML_poll();
    report();
}

static void held(int bytes, int stagger_us)
{
    char *buf = malloc((size_t)bytes * (size_t)t_nodes);
    CMMD_mcb *mcb = malloc(sizeof(*mcb) * (size_t)t_nodes);
    double t0, t;

    T_CHECK(buf && mcb, "out of memory");
    for (int j = 1; t_self == 0 && j < t_nodes; j++) {
        memset(buf + (size_t)j * bytes, 0, (size_t)bytes);
        mcb[j] = CMMD_receive_async(j, 7, buf + (size_t)j * bytes, bytes, NULL,
                                    NULL);
    }
    if (t_self)
        for (int i = 0; i < bytes; i++)
            buf[i] = (char)(t_self * 31 + i);
    CMMD_sync_with_nodes();
    t0 = cm5_wtime();
    if (t_self) {
        if (stagger_us)
            cm5_compute((t_self - 1) * stagger_us * 1e-6);
        CMMD_send_block(0, 7, buf, bytes);
        t = cm5_wtime() - t0;
        printf("prog_vsync: node %d held %lld\n", t_self, ns(t));
        fflush(stdout);
    } else {
        CMMD_all_msgs_wait();
        for (int j = 1; j < t_nodes; j++)
            CMMD_free_mcb(mcb[j]);
        for (int j = 1; j < t_nodes; j++)
            for (int i = 0; i < bytes; i++)
                T_CHECK(buf[(size_t)j * bytes + i] == (char)(j * 31 + i),
                        "byte %d from node %d", i, j);
    }
    free(mcb);
    free(buf);
    report();
}

static void perm(int bytes, int s)
{
    char *buf = malloc((size_t)bytes);
    int sender = (t_self / s) % 2 == 0, peer = sender ? t_self + s : t_self - s;
    double t0, t;

    T_CHECK(buf && s > 0, "out of memory, or a shift %d <= 0", s);
    if (peer >= t_nodes)
        peer = -1; /* (the last, odd part of the machine: idle) */
    for (int i = 0; i < bytes; i++)
        buf[i] = (char)(sender ? t_self * 7 + i : 0);
    CMMD_sync_with_nodes();
    t0 = cm5_wtime();
    if (peer >= 0 && sender)
        CMMD_send_block(peer, 9, buf, bytes);
    else if (peer >= 0) {
        CMMD_receive_block(peer, 9, buf, bytes);
        for (int i = 0; i < bytes; i++)
            T_CHECK(buf[i] == (char)(peer * 7 + i), "byte %d from node %d", i,
                    peer);
    }
    t = cm5_wtime() - t0;
    if (peer >= 0) {
        printf("prog_vsync: node %d %s %lld\n", t_self, sender ? "sent" : "got",
               ns(t));
        fflush(stdout);
    }
    free(buf);
    report();
}

static void splitred(int rounds)
{
    long polls = 0;

    for (int r = 0; r < rounds; r++) {
        int sum;

        cm5_compute((t_self + 1) * 10e-6);
        CMMD_reduce_int_start(t_self + r, CMMD_combiner_add);
        while (!CMMD_reduce_done())
            polls++;
        sum = CMMD_reduce_int_finish(0, CMMD_combiner_add);
        T_EQ(sum, t_nodes * (t_nodes - 1) / 2 + t_nodes * r,
             "the split-phase sum");
    }
    printf("prog_vsync: node %d splitred %lld polls %ld\n", t_self,
           ns(cm5_wtime()), polls);
    fflush(stdout);
    report();
}

static void lane_order(int bytes)
{
    char *a = malloc((size_t)bytes), *b = malloc((size_t)bytes);
    int peer = t_self ^ 1, rport = CMAML_allocate_rport(), peer_rport;

    T_CHECK(a && b && rport >= 0, "out of memory or rports");
    T_CHECK(t_nodes % 2 == 0, "an even number of nodes");
    CMAML_set_rport_addr(rport, scopy_in);
    CMAML_set_rport_byte_counter(rport, MIXED_SCOPY);
    CMAML_set_rport_total_nbytes(rport, 0);
    CMAML_set_rport_handler(rport, (CMAML_handler_t)on_scopy);
    CMMD_send_and_receive(peer, 91, &peer_rport, sizeof(peer_rport), peer, 91,
                          &rport, sizeof(rport));
    CMMD_sync_with_nodes();
    if (t_self % 2 == 0) {
        CMMD_mcb m1, m2;

        t_fill(a, (size_t)bytes, t_hash((uint32_t)t_self, 1));
        t_fill(b, (size_t)bytes, t_hash((uint32_t)t_self, 2));
        t_fill(scopy_in, MIXED_SCOPY, t_hash((uint32_t)t_self, 3));
        m1 = CMMD_send_async(peer, 1, a, bytes, NULL, NULL);
        CMAML_scopy(peer, peer_rport, 0, 0, scopy_in, MIXED_SCOPY, NULL, NULL);
        m2 = CMMD_send_async(peer, 2, b, bytes, NULL, NULL);
        CMMD_msg_wait(m2);
        CMMD_msg_wait(m1);
        CMMD_free_mcb(m1);
        CMMD_free_mcb(m2);
    } else {
        CMMD_receive_block(peer, 2, b, bytes);
        CMMD_receive_block(peer, 1, a, bytes);
        CMAML_poll_while_lt(&scopied, 1);
        T_EQ(t_diff(a, (size_t)bytes, t_hash((uint32_t)peer, 1)), -1,
             "the first wrong byte of tag 1");
        T_EQ(t_diff(b, (size_t)bytes, t_hash((uint32_t)peer, 2)), -1,
             "the first wrong byte of tag 2");
        T_EQ(t_diff(scopy_in, MIXED_SCOPY, t_hash((uint32_t)peer, 3)), -1,
             "the first wrong scopy byte");
    }
    printf("prog_vsync: node %d order %lld\n", t_self, ns(cm5_wtime()));
    fflush(stdout);
    free(a);
    free(b);
    report();
}

static void irq_wait(int k)
{
    int expect = t_self == 0 ? k * (t_nodes - 1) : k;
    volatile int *count = t_self == 0 ? &requests : &replies;
    double t0;

    CMAML_enable_interrupts();
    CMMD_sync_with_nodes();
    if (t_self != 0)
        for (int i = 0; i < k; i++)
            CMAML_request(0, (CMAML_handler_t)on_request, t_self, i);
    t0 = t_now();
    while (*count < expect && t_now() - t0 < 30)
        for (volatile int i = 0; i < 1000; i++)
            ;
    T_CHECK(*count == expect,
            "node %d: %d of %d handlers ran by interrupt in 30 s", t_self,
            *count, expect);
    CMAML_disable_interrupts();
    report();
}

/* MS ms of this thread's CPU time, no runtime call. */
static void burn_cpu(int ms)
{
    struct timespec a, b;

    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
    do {
        for (volatile int i = 0; i < 1000; i++)
            ;
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
    } while ((b.tv_sec - a.tv_sec) * 1000000000L + (b.tv_nsec - a.tv_nsec) <
             ms * 1000000L);
}

static void irq_compute(int k, int ms)
{
    CMAML_enable_interrupts();
    CMMD_sync_with_nodes();
    if (t_self == 1) {
        burn_cpu(ms);
        printf("prog_vsync: node 1 computed %lld\n", ns(cm5_wtime()));
        fflush(stdout);
    } else {
        uint32_t s = 12345u + 7919u * (uint32_t)t_self;

        for (int i = 0; i < k; i++) {
            int to;

            do
                to = (int)(rnd(&s) % (uint32_t)t_nodes);
            while (to == 1);
            CMAML_request(to, (CMAML_handler_t)on_request, t_self, i);
            CMAML_poll();
        }
        while (replies < k)
            CMAML_poll();
    }
    CMAML_disable_interrupts();
    report();
}

static void spin(int n, int w)
{
    CMMD_sync_with_nodes();
    if (t_self == 1) {
        cm5_compute(w * 1e-6);
        CMAML_request(0, (CMAML_handler_t)on_request, t_self, 0);
        while (replies < 1)
            CMAML_poll();
    } else if (t_self == 0) {
        while (requests < 1)
            CMAML_poll();
        printf("prog_vsync: node 0 woke %lld\n", ns(cm5_wtime()));
        for (int i = 0; i < n; i++)
            CMAML_poll();
        printf("prog_vsync: node 0 spun %lld\n", ns(cm5_wtime()));
        fflush(stdout);
    }
    report();
}

/* argv[i] as a number, or def when it is absent or not a number (the
 * test scripts append a word of their own to every job: lib.sh's mark) */
static int num_arg(int argc, char **argv, int i, int def)
{
    char *end;
    long v;

    if (argc <= i)
        return def;
    v = strtol(argv[i], &end, 10);
    return end != argv[i] && *end == '\0' ? (int)v : def;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    int arg = argc > 2 ? atoi(argv[2]) : 50;

    t_init("prog_vsync");
    if (strcmp(mode, "storm") == 0)
        storm(arg);
    else if (strcmp(mode, "hot") == 0)
        hot(arg);
    else if (strcmp(mode, "token") == 0)
        token_ring(arg);
    else if (strcmp(mode, "splitred") == 0)
        splitred(arg);
    else if (strcmp(mode, "order") == 0)
        lane_order(arg);
    else if (strcmp(mode, "held") == 0)
        held(arg, num_arg(argc, argv, 3, 0));
    else if (strcmp(mode, "perm") == 0)
        perm(arg, num_arg(argc, argv, 3, 16));
    else if (strcmp(mode, "irq") == 0)
        irq_wait(arg);
    else if (strcmp(mode, "irqcomp") == 0)
        irq_compute(arg, num_arg(argc, argv, 3, 20));
    else if (strcmp(mode, "spin") == 0)
        spin(arg, num_arg(argc, argv, 3, 5000));
    else if (strcmp(mode, "mixed") == 0)
        mixed(arg, num_arg(argc, argv, 3, 3));
    else
        T_CHECK(0, "unknown mode '%s'", mode);
    CMMD_sync_with_nodes();
    t_done();
    return 0;
}
