/*
 * The same-host rings (am/fabric/shmring.c), one node sending to itself:
 * - records of several slots (eager messages) reuse the ring's first
 *   pages when it is empty (a skip record rewinds it) instead of running
 *   round the whole ring, each new page a page fault: 100 records of
 *   4200 bytes into a ring of 512 KiB, drained after each, fault in a
 *   handful of pages, not ~100;
 * - a rewind takes none of the room asked for: after one, records
 *   filling the slots asked for all go in before the owner polls, and
 *   arrive whole and in order, also those that pass the marker's slot;
 * - packets and records of random sizes, read a few at a time, keep
 *   their order and bytes, also across the 32-bit wrap of the indices;
 * - an owner finds a packet by the header of the slot at its head (its
 *   stamp and length word), never by stale slots: a fresh ring whose
 *   index is about to wrap delivers nothing (a stamp alone, index + 1 =
 *   0 there, would match zeroed memory), nor does a slot holding the
 *   bytes of an earlier record.
 *
 * Linked statically with libcm5fab for the hidden cm5i_ring_* calls.
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "fabric/shmring.h"

TestSuite(shmring, .timeout = 30);

#define LONG 4200 /* an eager record: 67 slots */

typedef struct {
    uint32_t next; /* the sequence number expected */
    int got, bad;
} rx_t;

static void rx(void *arg, int ch, const void *msg, size_t len)
{
    rx_t *x = arg;
    const unsigned char *b = msg;
    uint32_t seq;

    (void)ch;
    if (len < sizeof(seq)) {
        x->bad++;
        return;
    }
    memcpy(&seq, b, sizeof(seq));
    if (seq != x->next)
        x->bad++;
    for (size_t i = sizeof(seq); i < len; i++)
        if (b[i] != (unsigned char)(seq + i)) {
            x->bad++;
            break;
        }
    x->next = seq + 1;
    x->got++;
}

static cm5_status_t put(cm5i_ring_t *r, uint32_t seq, size_t len)
{
    unsigned char b[LONG];

    memcpy(b, &seq, sizeof(seq));
    for (size_t i = sizeof(seq); i < len; i++)
        b[i] = (unsigned char)(seq + i);
    return cm5i_ring_send(r, 0, 0, b, len);
}

/* A ring of `slots` slots (asked for) whose only peer is itself. */
static cm5i_ring_t *self_ring(size_t slots)
{
    char tag[64], rec[CM5I_FAB_RING_REC];
    cm5i_ring_t *r = NULL;
    size_t n;

    snprintf(tag, sizeof(tag), "cm5-test-shmring-%d", (int)getpid());
    cr_assert_eq(cm5i_ring_open(tag, 0, 1, 1, slots, &r), 0);
    n = cm5i_ring_address(r, rec, sizeof(rec));
    cr_assert_gt(n, 0);
    cr_assert_eq(cm5i_ring_connect(r, 0, rec, n), 1);
    cm5i_ring_connected(r);
    return r;
}

static void drain(cm5i_ring_t *r, rx_t *x)
{
    while (cm5i_ring_poll(r, 0, 64, rx, x) > 0)
        ;
}

static long minflt(void)
{
    struct rusage ru;

    getrusage(RUSAGE_THREAD, &ru); /* not Criterion's threads */
    return ru.ru_minflt;
}

Test(shmring, eager_records_reuse_the_first_pages)
{
    cm5i_ring_t *r = self_ring(4000); /* 8192 slots: 512 KiB */
    rx_t x = {0};
    uint32_t seq = 0;
    long f0, f1;
    int failed = 0;

    /* Warm up the code and the first pages, then count (no assertion
     * in the loop: Criterion's allocate). */
    cr_assert_eq(put(r, seq++, LONG), CM5_OK);
    drain(r, &x);
    f0 = minflt();
    for (int i = 0; i < 100; i++) {
        failed += put(r, seq++, 16) != CM5_OK; /* a packet between */
        failed += put(r, seq++, LONG) != CM5_OK;
        drain(r, &x);
    }
    f1 = minflt();
    cr_expect_eq(failed, 0);
    cr_expect_lt(f1 - f0, 20, "%ld page faults for 100 records", f1 - f0);
    cr_expect_eq(x.got, 201);
    cr_expect_eq(x.bad, 0);
    cm5i_ring_close(r);
}

Test(shmring, a_rewind_keeps_the_room_asked_for)
{
    const size_t asked = 1000;
    cm5i_ring_t *r = self_ring(asked);
    rx_t x = {0};
    uint32_t seq = 0;

    /* At several places in the ring, rewind it (it is empty, the record
     * starts past its first slots), then fill what was asked for
     * without polling: the marker, unread, must cost none of it. */
    for (int start = 70; start < 2000; start += 97) {
        size_t used = 0;

        for (int i = 0; i < start; i++)
            cr_assert_eq(put(r, seq++, 16), CM5_OK);
        drain(r, &x);
        while (used + 67 <= asked) {
            cr_assert_eq(put(r, seq++, LONG), CM5_OK, "start %d, %zu used",
                         start, used);
            used += 67;
        }
        while (used < asked) {
            cr_assert_eq(put(r, seq++, 16), CM5_OK);
            used++;
        }
        drain(r, &x);
    }
    cr_expect_eq(x.got, (int)seq);
    cr_expect_eq(x.bad, 0);
    cm5i_ring_close(r);
}

/* Packets and records at random from index `start`, the owner reading
 * max at a time after every `every` sends: all arrive, whole and in order. */
static void mixed(size_t asked, int max, int every, uint32_t start,
                  uint32_t rng)
{
    cm5i_ring_t *r = self_ring(asked);
    rx_t x = {0};
    uint32_t seq = 0;

    cm5i_ring_test_index(r, start);
    for (int i = 0; i < 20000; i++) {
        size_t len;

        rng = rng * 1103515245u + 12345u;
        len = (rng >> 8) % 3 ? (rng >> 16) % 40 + 4
                             : (rng >> 12) % (LONG - 3) + 4;
        seq += put(r, seq, len) == CM5_OK;
        if (i % every == 0)
            cm5i_ring_poll(r, 0, max, rx, &x);
    }
    drain(r, &x);
    cr_expect_eq(x.got, (int)seq, "ring of %zu, poll %d, from %u", asked, max,
                 start);
    cr_expect_eq(x.bad, 0, "ring of %zu, poll %d, from %u", asked, max, start);
    cm5i_ring_close(r);
}

Test(shmring, mixed_sizes_across_the_index_wrap)
{
    for (int every = 1; every <= 3; every++) {
        mixed(100, 3, every, 0xffffffffu - 5000, 777u + (uint32_t)every);
        mixed(300, 1, every, 0xfffff000u, 999u + (uint32_t)every);
    }
}

Test(shmring, stale_slots_are_not_packets)
{
    cm5i_ring_t *r = self_ring(100);
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
     * lap: length 8, wrap 0, stamp S + 2) are no packet. */
    r = self_ring(100);
    x = (rx_t){0};
    {
        unsigned char b[LONG];
        uint32_t seq = 0, S = cm5i_ring_test_index(r, 0);

        memcpy(b, &seq, sizeof(seq));
        for (size_t i = sizeof(seq); i < sizeof(b); i++)
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

/* Packets and records at random, the owner reading a few at a time:
 * rewinds with packets unread, and records passing an unread marker
 * (about 100000 and 10000 of them over these rings). */
Test(shmring, mixed_sizes_keep_order)
{
    const size_t asked[] = {100, 300, 1000};
    const int max[] = {1, 2, 3, 7};

    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 4; b++)
            for (int every = 1; every <= 4; every++)
                mixed(asked[a], max[b], every, 0,
                      12345u + (uint32_t)(a * 7 + b * 13 + every));
}
