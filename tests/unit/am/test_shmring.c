/*
 * The same-host queues (am/fabric/shmring.c):
 * - packets and records of random sizes, read a few at a time, keep
 *   their order and bytes, also across the 2^32 wrap of the indices'
 *   low half (the stamps);
 * - an owner finds a packet by the header of the slot at its head (its
 *   stamp and length word), never by stale slots: a fresh queue whose
 *   index is about to wrap delivers nothing (a stamp alone, index + 1 =
 *   0 there, would match zeroed memory), nor does a slot holding the
 *   bytes of an earlier record;
 * - a full queue refuses a packet (CM5_ERR_AGAIN) and takes it once
 *   drained; a record longer than CM5I_RING_REC_MAX is refused;
 * - four processes sending at once to one queue, packets and records at
 *   random: each sender's arrive whole and in its order, none lost;
 * - the size: a segment does not grow with the node count past the
 *   bound, and the mappings of every peer's segment stay within 256 MiB
 *   at 1024 nodes (a ring per pair took 64 MiB a segment there).
 *
 * Linked statically with libcm5fab for the hidden cm5i_ring_* calls.
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <string.h>
#include <time.h>
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fabric/shmring.h"

TestSuite(shmring, .timeout = 60);

#define LONG 4200 /* an eager record: 67 slots */
#define SENDERS 4

typedef struct {
    uint32_t next[SENDERS + 1]; /* the sequence number expected, by sender */
    int got, bad;
} rx_t;

/* A message: sender (1 byte), sequence number (4), then a pattern. */
static void rx(void *arg, int ch, const void *msg, size_t len)
{
    rx_t *x = arg;
    const unsigned char *b = msg;
    uint32_t seq;

    (void)ch;
    if (len < 5 || b[0] > SENDERS) {
        x->bad++;
        return;
    }
    memcpy(&seq, b + 1, sizeof(seq));
    if (seq != x->next[b[0]])
        x->bad++;
    for (size_t i = 5; i < len; i++)
        if (b[i] != (unsigned char)(seq + i + b[0])) {
            x->bad++;
            break;
        }
    x->next[b[0]] = seq + 1;
    x->got++;
}

static cm5_status_t put_to(cm5i_ring_t *r, int node, int from, uint32_t seq,
                           size_t len)
{
    unsigned char b[LONG];

    b[0] = (unsigned char)from;
    memcpy(b + 1, &seq, sizeof(seq));
    for (size_t i = 5; i < len; i++)
        b[i] = (unsigned char)(seq + i + (size_t)from);
    return cm5i_ring_send(r, 0, node, b, len);
}

static cm5_status_t put(cm5i_ring_t *r, uint32_t seq, size_t len)
{
    return put_to(r, 0, 0, seq, len);
}

/* The segment name of node k of the test process pid's job. */
static void tag_of(char *tag, size_t n, pid_t pid, int k)
{
    snprintf(tag, n, "cm5-test-shmring-%d-%d", (int)pid, k);
}

/* Node 0's segment of nep nodes, `slots` asked for per sender, whose
 * only peer so far is itself. */
static cm5i_ring_t *self_ring(int nep, size_t slots)
{
    char tag[64], rec[CM5I_FAB_RING_REC];
    cm5i_ring_t *r = NULL;
    size_t n;

    tag_of(tag, sizeof(tag), getpid(), 0);
    cr_assert_eq(cm5i_ring_open(tag, 0, nep, 1, slots, &r), 0);
    n = cm5i_ring_address(r, rec, sizeof(rec));
    cr_assert_gt(n, 0);
    cr_assert_eq(cm5i_ring_connect(r, 0, rec, n), 1);
    return r;
}

static void drain(cm5i_ring_t *r, rx_t *x)
{
    while (cm5i_ring_poll(r, 0, 64, rx, x) > 0)
        ;
}

/* Packets and records at random from index `start`, the owner reading
 * max at a time after every `every` sends: all arrive, whole and in
 * order (a send the full queue refuses is sent again later). */
static void mixed(size_t asked, int max, int every, uint64_t start,
                  uint32_t rng)
{
    cm5i_ring_t *r = self_ring(1, asked);
    rx_t x = {0};
    uint32_t seq = 0;
    int again = 0;

    cm5i_ring_test_index(r, start);
    for (int i = 0; i < 20000; i++) {
        size_t len;
        cm5_status_t st;

        rng = rng * 1103515245u + 12345u;
        len = (rng >> 8) % 3 ? (rng >> 16) % 40 + 5
                             : (rng >> 12) % (LONG - 5) + 5;
        st = put(r, seq, len);
        seq += st == CM5_OK;
        again += st == CM5_ERR_AGAIN;
        if (i % every == 0)
            cm5i_ring_poll(r, 0, max, rx, &x);
    }
    drain(r, &x);
    cr_expect_eq(x.got, (int)seq, "queue for %zu, poll %d, from %llu", asked,
                 max, (unsigned long long)start);
    cr_expect_eq(x.bad, 0, "queue for %zu, poll %d, from %llu", asked, max,
                 (unsigned long long)start);
    if (max == 1 && every >= 3)
        cr_expect_gt(again, 0, "the queue never filled: the test tests less");
    cm5i_ring_close(r);
}

Test(shmring, mixed_sizes_keep_order)
{
    const int max[] = {1, 2, 3, 7};

    for (int b = 0; b < 4; b++)
        for (int every = 1; every <= 4; every++)
            mixed(100, max[b], every, 0, 12345u + (uint32_t)(b * 13 + every));
}

Test(shmring, mixed_sizes_across_the_index_wrap)
{
    for (int every = 1; every <= 3; every++) {
        mixed(100, 3, every, 0xffffffffull - 5000, 777u + (uint32_t)every);
        mixed(300, 1, every, 0x1fffff000ull, 999u + (uint32_t)every);
    }
}

Test(shmring, stale_slots_are_not_packets)
{
    cm5i_ring_t *r = self_ring(1, 100);
    rx_t x = {0};

    /* Fresh (zeroed) slots at index 2^32 - 1, whose stamp + 1 is 0. */
    cm5i_ring_test_index(r, 0xffffffffu);
    cr_expect_eq(cm5i_ring_poll(r, 0, 64, rx, &x), 0);
    /* Then real packets across the wrap. */
    for (uint32_t s = 0; s < 10; s++)
        cr_assert_eq(put(r, s, 8), CM5_OK);
    drain(r, &x);
    cr_expect_eq(x.got, 10);
    cr_expect_eq(x.bad, 0);
    cm5i_ring_close(r);
    /* A long record read, and packets up to the next lap's slot 1: the
     * record's bytes there (shaped as that slot's header in the next
     * lap: length 8, high index 0, stamp S + 2) are no packet. */
    r = self_ring(1, 100);
    x = (rx_t){0};
    {
        unsigned char b[LONG];
        uint32_t seq = 0, S = cm5i_ring_test_index(r, 0);

        b[0] = 0;
        memcpy(b + 1, &seq, sizeof(seq));
        for (size_t i = 5; i < sizeof(b); i++)
            b[i] = (unsigned char)(seq + i);
        for (size_t k = 1; k * 64 + 8 <= sizeof(b); k++) {
            uint32_t lw = 8u | 1u << 16, st = (uint32_t)k + S + 1;

            memcpy(b + k * 64 - 8, &lw, 4);
            memcpy(b + k * 64 - 4, &st, 4);
        }
        cr_assert_eq(cm5i_ring_send(r, 0, 0, b, sizeof(b)), CM5_OK);
        cr_expect_eq(cm5i_ring_poll(r, 0, 64, rx, &x), 1);
        x.bad = 0; /* (the shaped words are not rx's pattern) */
        /* Indices 67 .. S: the packets that bring the head to S + 1. */
        for (seq = 1; seq <= S + 1 - (uint32_t)cm5i_ring_rec_slots(LONG);
             seq++) {
            cr_assert_eq(put(r, seq, 8), CM5_OK);
            drain(r, &x);
        }
        cr_expect_eq(x.got, (int)seq);
        cr_expect_eq(cm5i_ring_poll(r, 0, 64, rx, &x), 0,
                     "a record's old bytes at the head are no packet");
        cr_expect_eq(x.bad, 0);
    }
    cm5i_ring_close(r);
}

Test(shmring, a_full_queue_refuses_then_takes)
{
    cm5i_ring_t *r = self_ring(1, 10);
    uint32_t q = cm5i_ring_test_index(r, 0), seq = 0;
    unsigned char big[CM5I_RING_REC_MAX + 1] = {0};
    rx_t x = {0};

    cr_assert_eq(q, CM5I_RING_Q_MIN);
    while (put(r, seq, 8) == CM5_OK)
        seq++;
    cr_expect_eq(seq, q, "a queue of %u slots took %u packets", q, seq);
    cr_expect_eq(put(r, seq, 8), CM5_ERR_AGAIN);
    cr_expect_eq(cm5i_ring_poll(r, 0, 1, rx, &x), 1);
    cr_expect_eq(put(r, seq, LONG), CM5_ERR_AGAIN, "67 slots: 1 free");
    cr_expect_eq(put(r, seq++, 8), CM5_OK);
    drain(r, &x);
    cr_expect_eq(x.got, (int)seq);
    cr_expect_eq(x.bad, 0);
    cr_expect_eq(cm5i_ring_send(r, 0, 0, big, sizeof(big)), CM5_ERR_INVALID);
    cm5i_ring_close(r);
}

static double now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Sender k (1..SENDERS) of a job of SENDERS + 1 nodes: map node 0's
 * segment and send it n packets and records at random. */
static int sender_run(cm5i_ring_t *r, int k, const char *rec0, size_t len0,
                      int n, int ready)
{
    uint32_t rng = 4242u * (uint32_t)k, seq = 0;

    if (cm5i_ring_connect(r, 0, rec0, len0) != 1)
        return 3;
    if (write(ready, "", 1) != 1) /* node 0 may unlink its segment now */
        return 5;
    while ((int)seq < n) {
        size_t len;
        cm5_status_t st;
        double t0 = now_s();

        rng = rng * 1103515245u + 12345u;
        len = (rng >> 8) % 4 ? (rng >> 16) % 40 + 5
                             : (rng >> 12) % (LONG - 5) + 5;
        /* (Spinning: two senders race on two cores; a queue that stays
         * full for 10 s is a lost reservation, or node 0 is gone.) */
        while ((st = put_to(r, 0, k, seq, len)) == CM5_ERR_AGAIN)
            if (now_s() - t0 > 10)
                return 6;
        if (st != CM5_OK)
            return 4;
        seq++;
    }
    return 0;
}

static int sender(int k, const char *rec0, size_t len0, int n, int ready)
{
    char tag[64];
    cm5i_ring_t *r = NULL;
    int rc;

    tag_of(tag, sizeof(tag), getppid(), k);
    if (cm5i_ring_open(tag, k, SENDERS + 1, 1, 100, &r) != 0)
        return 2;
    rc = sender_run(r, k, rec0, len0, n, ready);
    cm5i_ring_close(r); /* (removes its segment's name) */
    return rc;
}

Test(shmring, many_senders_keep_their_order)
{
    const int n = 20000;
    cm5i_ring_t *r = self_ring(SENDERS + 1, 100);
    char rec[CM5I_FAB_RING_REC];
    size_t len = cm5i_ring_address(r, rec, sizeof(rec));
    pid_t pid[SENDERS];
    rx_t x = {0};
    int status, left = SENDERS, failed = 0, fd[2];
    char c;

    cr_assert_eq(pipe(fd), 0);
    for (int k = 0; k < SENDERS; k++) {
        pid[k] = fork();
        cr_assert_geq(pid[k], 0);
        if (pid[k] == 0)
            _exit(sender(k + 1, rec, len, n, fd[1]));
    }
    close(fd[1]);
    /* (A poll unlinks the segment once every peer it knows mapped it:
     * here only itself, so not before the senders have.) */
    for (int k = 0; k < SENDERS; k++)
        if (read(fd[0], &c, 1) != 1)
            break;
    close(fd[0]);
    double until = now_s() + 30;

    /* Until every sender has ended and its packets are in. */
    while (!x.bad && (left > 0 || x.got < SENDERS * n) && now_s() < until) {
        pid_t p;

        if (cm5i_ring_poll(r, 0, 64, rx, &x) > 0) {
            usleep(20); /* the senders meet at a full queue */
            continue;
        }
        if (left > 0 && (p = waitpid(-1, &status, WNOHANG)) > 0) {
            left--;
            failed += !WIFEXITED(status) || WEXITSTATUS(status) != 0;
            cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 0,
                      "sender pid %d: status %#x", (int)p, status);
        } else if (left == 0 || failed) {
            break;
        } else {
            sched_yield();
        }
    }
    for (int k = 0; k < SENDERS && left > 0; k++)
        if (waitpid(pid[k], &status, WNOHANG) == 0) {
            kill(pid[k], SIGKILL);
            waitpid(pid[k], &status, 0);
        }
    cr_expect_eq(x.bad, 0);
    cr_expect_eq(x.got, SENDERS * n);
    for (int k = 1; k <= SENDERS; k++)
        cr_expect_eq(x.next[k], (uint32_t)n, "sender %d", k);
    cr_expect_eq(cm5i_ring_poll(r, 0, 64, rx, &x), 0);
    cm5i_ring_close(r);
}

Test(shmring, the_segment_does_not_grow_with_the_job)
{
    /* What a node of the runtime asks for per sender (am_init.c: the
     * credit window and its slack, the eager budget) at 8 and 1024. */
    uint32_t q8 = cm5i_ring_queue_slots(8, 2, 264 + 2080);
    uint32_t q1024 = cm5i_ring_queue_slots(1024, 2, 40 + 130);
    cm5i_ring_t *r;

    cr_expect_eq(q8, CM5I_RING_Q_MAX);
    cr_expect_eq(q1024, 2048u);
    cr_expect_leq((size_t)1024 * 2 * q1024 * CM5I_RING_SLOT, (size_t)256 << 20,
                  "1024 segments mapped: %u slots a queue", q1024);
    cr_expect_eq(cm5i_ring_queue_slots(2, 2, 1), CM5I_RING_Q_MIN);
    cr_expect_eq(cm5i_ring_queue_slots(256, 2, 170), 8192u);
    r = self_ring(1024, 170);
    cr_expect_eq(cm5i_ring_segment_bytes(r),
                 64 + 2 * 64 +
                     (size_t)cm5i_ring_queue_slots(1024, 1, 170) *
                         CM5I_RING_SLOT);
    cr_expect_eq(cm5i_ring_queue_slots(1024, 1, 170), 4096u);
    cm5i_ring_close(r);
}
