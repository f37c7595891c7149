/*
 * prog_amx [MODE]: the CMAML extras of <cm/cmmd/amx.h>, written as legacy
 * code would.  Without MODE (2 or more nodes) it prints
 * "prog_amx: node I of N ok" at the end:
 *
 *   channels  senders send replies, then requests to node 0, which runs
 *             CMAML_request_poll until every request ran, then
 *             CMAML_reply_poll while they send requests, then replies, then
 *             CMAML_request_poll again: exact counts, and no handler ever
 *             ran in the poll of the other channel
 *   waits     CMAML_poll_until_gte returns with the flag exactly at the
 *             number sent; CMAML_wait and CMAML_poll_wait consume what
 *             they waited for (the flag ends at 0); already-true
 *             conditions return at once
 *   tags      allocate, allocate_this, refusal (-1) when taken, free,
 *             all 16, free twice refused
 *   elements  every sender scopies its elements into node 0's element-wise
 *             rport (12-byte elements every 20 bytes) in chunks that split
 *             elements, in a shuffled order: every byte checked, the gaps
 *             and guards untouched, the handler runs once at a byte
 *             counter of 0, total_nbytes counts packed bytes, addri;
 *             then a stride equal to the size (contiguous)
 *   allocated get/set_rport_allocated
 *
 * With MODE, one wrong call on 2 nodes (the script checks the one error
 * line and the exit status).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cm/cmmd.h>

#include "t_util.h"

#define GUARD 0xa5

static unsigned char bad_buf[256];
#define WAIT_S 60.0

/* ---- channels ---- */

static volatile int req_count, rep_count, go;
/* Which one-channel poll is running, and handlers that ran in the wrong
 * one (a reply in CMAML_request_poll, a request in CMAML_reply_poll). */
static int inside, wrong;
enum { IN_NONE, IN_REQUEST_POLL, IN_REPLY_POLL };

static void req_h(void)
{
    req_count++;
    wrong += inside == IN_REPLY_POLL;
}

static void rep_h(void)
{
    rep_count++;
    wrong += inside == IN_REQUEST_POLL;
}

static void go_h(void) { go++; }

static void request_poll(void)
{
    inside = IN_REQUEST_POLL;
    CMAML_request_poll();
    inside = IN_NONE;
}

static void reply_poll(void)
{
    inside = IN_REPLY_POLL;
    CMAML_reply_poll();
    inside = IN_NONE;
}

/* Poll with one of the two calls until *count reaches want. */
static void poll_until(void (*poll)(void), volatile int *count, int want,
                       const char *what)
{
    double t0 = t_now();

    while (*count < want) {
        T_CHECK(t_now() - t0 < WAIT_S, "%s: %d of %d after %.0f s", what,
                *count, want, WAIT_S);
        poll();
    }
    T_EQ(*count, want, what);
}

static void send_n(int node, CMAML_handler_t h, int n, int reply)
{
    for (int i = 0; i < n; i++) {
        if (reply)
            CMAML_reply(node, h);
        else
            CMAML_request(node, h);
    }
}

enum { N1 = 6, M1 = 4, N2 = 5, M2 = 3 };

/* Node 0 serves one channel at a time while the others send both kinds;
 * a handler that the running poll must not run counts as wrong.  (Node
 * 0's own waits, in the barrier and while sending, may run either.) */
static void test_channels(void)
{
    int senders = t_nodes - 1;

    req_count = rep_count = go = wrong = 0;
    CMMD_sync_with_nodes();
    if (t_self != 0) {
        send_n(0, (CMAML_handler_t)rep_h, M1, 1);
        send_n(0, (CMAML_handler_t)req_h, N1, 0);
        CMAML_poll_while_lt(&go, 1);
        send_n(0, (CMAML_handler_t)req_h, N2, 0);
        send_n(0, (CMAML_handler_t)rep_h, M2, 1);
    } else {
        poll_until(request_poll, &req_count, N1 * senders,
                   "requests after CMAML_request_poll");
        for (int i = 0; i < 20; i++) { /* the replies are here by now */
            t_sleep(0.002);
            request_poll();
        }
        T_EQ(req_count, N1 * senders, "requests after more request polls");
        for (int s = 1; s < t_nodes; s++)
            CMAML_request(s, (CMAML_handler_t)go_h);
        poll_until(reply_poll, &rep_count, (M1 + M2) * senders,
                   "replies after CMAML_reply_poll");
        for (int i = 0; i < 20; i++) {
            t_sleep(0.002);
            reply_poll();
        }
        T_EQ(rep_count, (M1 + M2) * senders, "replies after more polls");
        poll_until(request_poll, &req_count, (N1 + N2) * senders,
                   "second round of requests");
        T_EQ(rep_count, (M1 + M2) * senders, "replies at the end");
        T_EQ(wrong, 0, "handlers run by the poll of the other channel");
    }
    CMMD_sync_with_nodes();
}

/* ---- waits ---- */

static volatile int flags[3];

static void inc_h(int which) { flags[which]++; }

enum { PER_SENDER = 6 };

static void test_waits(void)
{
    int senders = t_nodes - 1;
    volatile int f = 7;

    flags[0] = flags[1] = flags[2] = 0;
    CMMD_sync_with_nodes();
    if (t_self != 0) {
        for (int w = 0; w < 3; w++)
            for (int i = 0; i < PER_SENDER; i++)
                CMAML_request(0, (CMAML_handler_t)inc_h, w);
    } else {
        CMAML_poll_until_gte(&flags[0], PER_SENDER * senders);
        T_EQ(flags[0], PER_SENDER * senders,
             "flag after "
             "CMAML_poll_until_gte");
        CMAML_wait(&flags[1], 3 * senders);
        T_CHECK(flags[1] >= 0 && flags[1] <= 3 * senders,
                "flag after the first CMAML_wait is %d", flags[1]);
        CMAML_wait(&flags[1], 3 * senders);
        T_EQ(flags[1], 0, "flag after two CMAML_waits of half each");
        for (int i = 0; i < 3; i++)
            CMAML_poll_wait(&flags[2], 2 * senders);
        T_EQ(flags[2], 0, "flag after three CMAML_poll_waits of a third");
    }
    /* Conditions that already hold: at once, nothing else changes. */
    CMAML_wait(&f, 5);
    T_EQ(f, 2, "CMAML_wait(&7, 5)");
    CMAML_poll_wait(&f, 2);
    T_EQ(f, 0, "CMAML_poll_wait(&2, 2)");
    CMAML_poll_until_gte(&f, -3);
    CMAML_wait(&f, 0);
    T_EQ(f, 0, "flag after waits for what holds");
    CMMD_sync_with_nodes();
}

/* ---- tags ---- */

static void test_tags(void)
{
    int t;

    T_EQ(CMAML_allocate_tag(), 0, "first CMAML_allocate_tag()");
    T_EQ(CMAML_allocate_this_tag(5), 5, "CMAML_allocate_this_tag(5)");
    T_EQ(CMAML_allocate_this_tag(5), -1, "CMAML_allocate_this_tag(5) again");
    T_EQ(CMAML_allocate_this_tag(0), -1, "CMAML_allocate_this_tag(0)");
    T_EQ(CMAML_allocate_tag(), 1, "second CMAML_allocate_tag()");
    for (int want = 2; want < 16; want++) {
        if (want == 5)
            continue;
        T_EQ(CMAML_allocate_tag(), want, "CMAML_allocate_tag()");
    }
    T_EQ(CMAML_allocate_tag(), -1, "CMAML_allocate_tag() with all taken");
    T_EQ(CMAML_free_tag(5), 0, "CMAML_free_tag(5)");
    T_EQ(CMAML_free_tag(5), -1, "CMAML_free_tag(5) again");
    T_EQ(CMAML_allocate_tag(), 5, "CMAML_allocate_tag() after a free");
    for (t = 0; t < 16; t++)
        T_EQ(CMAML_free_tag(t), 0, "CMAML_free_tag");
    T_EQ(CMAML_allocate_this_tag(15), 15, "CMAML_allocate_this_tag(15)");
    T_EQ(CMAML_free_tag(15), 0, "CMAML_free_tag(15)");
}

/* ---- element-wise rports ---- */

enum { ESIZE = 12, ESTRIDE = 20, K = 37, RPORT = 9 };

static volatile int landed, landed_rport, sent;
static void *landed_arg2;

static void landed_h(int rport, void *arg2)
{
    landed++;
    landed_rport = rport;
    landed_arg2 = arg2;
}

static void sent_h(void *arg)
{
    T_CHECK(arg == &sent, "sent handler argument %p", arg);
    sent++;
}

/* Sender s scopies its K elements (packed, pattern s) into node 0's
 * rport in chunks that split elements, in a shuffled order. */
static void send_elements(int s, int esize)
{
    static const int cuts[] = {7, 29, 50, 1, 13, 64, 100, 90, 90};
    int total = K * esize, off = 0, n = 0, order[32], pos[32], len[32];
    unsigned char *mine = t_malloc((size_t)total);

    t_fill(mine, (size_t)total, (uint32_t)s);
    for (int i = 0; off < total; i++, n++) {
        pos[n] = off;
        len[n] = cuts[i % 9] < total - off ? cuts[i % 9] : total - off;
        off += len[n];
        order[n] = n;
    }
    for (int i = n - 1; i > 0; i--) {
        int j = (int)(t_hash((uint32_t)s, (uint32_t)i) % (uint32_t)(i + 1));
        int x = order[i];

        order[i] = order[j];
        order[j] = x;
    }
    sent = 0;
    for (int i = 0; i < n; i++) {
        int c = order[i];

        CMAML_scopy(0, RPORT, 0, (s - 1) * total + pos[c], mine + pos[c],
                    len[c], (CMAML_handler_t)sent_h, (void *)&sent);
    }
    CMAML_poll_while_lt(&sent, n);
    T_EQ(sent, n, "sent handlers");
    free(mine);
}

/* Node 0's buffer: element i (of sender i / K + 1) at i * estride. */
static void check_elements(const unsigned char *base, int esize, int estride)
{
    int count = (t_nodes - 1) * K;

    for (int b = -16; b < count * estride + 16; b++) {
        int i = b < 0 ? -1 : b / estride, k = b < 0 ? 0 : b % estride;
        unsigned want = GUARD;

        if (b >= 0 && i < count && k < esize)
            want = t_byte((uint32_t)(i / K + 1), (size_t)((i % K) * esize + k));
        T_CHECK(base[b] == want,
                "stride %d: byte %d (element %d, byte %d) "
                "is 0x%02x, expected 0x%02x",
                estride, b, i, k, base[b], want);
    }
}

static void round_elements(int esize, int estride)
{
    int count = (t_nodes - 1) * K, bytes = count * esize;
    size_t room = (size_t)count * (size_t)estride + 32;
    unsigned char *buf = t_malloc(room), *base = buf + 16;

    memset(buf, GUARD, room);
    landed = 0;
    if (t_self == 0) {
        T_EQ(CMAML_allocate_this_rport(RPORT), RPORT, "allocate rport 9");
        CMAML_set_rport_addr(RPORT, base);
        CMAML_set_rport_esize(RPORT, esize);
        CMAML_set_rport_estride(RPORT, estride);
        CMAML_set_rport_ecount(RPORT, count);
        CMAML_set_rport_byte_counter(RPORT, bytes);
        CMAML_set_rport_handler(RPORT, (CMAML_handler_t)landed_h);
        CMAML_set_rport_handler_arg2(RPORT, buf);
        T_EQ(CMAML_get_rport_esize(RPORT), esize, "esize");
        T_EQ(CMAML_get_rport_estride(RPORT), estride, "estride");
        T_EQ(CMAML_get_rport_ecount(RPORT), count, "ecount");
        for (int i = 0; i < count; i += 7)
            T_CHECK(CMAML_get_rport_addri(RPORT, i) ==
                        (void *)(base + (size_t)i * estride),
                    "CMAML_get_rport_addri(%d)", i);
    }
    CMMD_sync_with_nodes();
    if (t_self != 0) {
        send_elements(t_self, esize);
    } else {
        T_POLL_UNTIL(landed > 0, WAIT_S, "the rport handler never ran");
        T_EQ(landed_rport, RPORT, "rport handler's rport");
        T_CHECK(landed_arg2 == buf, "rport handler's arg2");
        T_EQ(CMAML_get_rport_byte_counter(RPORT), 0, "byte counter");
        T_EQ(CMAML_get_rport_total_nbytes(RPORT), bytes, "total_nbytes");
        check_elements(base, esize, estride);
    }
    CMMD_sync_with_nodes();
    if (t_self == 0) {
        T_EQ(landed, 1, "rport handler calls");
        CMAML_free_rport(RPORT);
    }
    free(buf);
}

static void test_allocated(void)
{
    int free0 = CMAML_number_of_free_rports();

    T_EQ(CMAML_get_rport_allocated(40), 0, "allocated(40) at first");
    CMAML_set_rport_allocated(40, 1);
    T_EQ(CMAML_get_rport_allocated(40), 1, "allocated(40) after set 1");
    T_EQ(CMAML_number_of_free_rports(), free0 - 1, "free rports");
    T_EQ(CMAML_allocate_this_rport(40), -1, "allocate_this_rport(40)");
    T_EQ(CMAML_get_rport_esize(40), 0, "esize of a new rport");
    CMAML_set_rport_addr(40, bad_buf);
    T_CHECK(CMAML_get_rport_addri(40, 3) == (void *)(bad_buf + 3),
            "addri without an element size (byte 3)");
    CMAML_set_rport_esize(40, 8);
    CMAML_set_rport_estride(40, 24);
    T_CHECK(CMAML_get_rport_addri(40, 3) == (void *)(bad_buf + 72),
            "addri of element 3 of 8 bytes every 24");
    CMAML_set_rport_allocated(40, 1);
    T_EQ(CMAML_number_of_free_rports(), free0 - 1,
         "free rports, set 1 "
         "twice");
    CMAML_set_rport_allocated(40, 0);
    T_EQ(CMAML_get_rport_allocated(40), 0, "allocated(40) after set 0");
    CMAML_set_rport_allocated(40, 0);
    T_EQ(CMAML_number_of_free_rports(), free0, "free rports at the end");
}

/* ---- wrong calls ---- */

static void wait_here(void)
{
    CMMD_sync_with_nodes();
    CMMD_sync_with_nodes();
}

static void bad_rport_on_0(int esize, int estride, int ecount)
{
    if (t_self == 0) {
        T_EQ(CMAML_allocate_this_rport(3), 3, "CMAML_allocate_this_rport");
        CMAML_set_rport_addr(3, bad_buf);
        CMAML_set_rport_byte_counter(3, 100);
        CMAML_set_rport_esize(3, esize);
        CMAML_set_rport_estride(3, estride);
        CMAML_set_rport_ecount(3, ecount);
    }
    CMMD_sync_with_nodes();
}

static void bad(const char *mode)
{
    int one = t_self == 1;
    volatile int *nowhere = NULL;

    if (!strcmp(mode, "tag_16") && one)
        CMAML_allocate_this_tag(16);
    else if (!strcmp(mode, "free_tag_-1") && one)
        CMAML_free_tag(-1);
    else if (!strcmp(mode, "esize_negative") && one)
        CMAML_set_rport_esize(CMAML_allocate_rport(), -4);
    else if (!strcmp(mode, "esize_unallocated") && one)
        CMAML_get_rport_esize(20);
    else if (!strcmp(mode, "allocated_200") && one)
        CMAML_get_rport_allocated(200);
    else if (!strcmp(mode, "addri_-1") && one)
        CMAML_get_rport_addri(-1, 0);
    else if (!strcmp(mode, "wait_null") && one)
        CMAML_wait(nowhere, 1);
    else if (!strcmp(mode, "stride_small")) {
        bad_rport_on_0(8, 4, 0);
        if (one)
            CMAML_scopy(0, 3, 0, 0, bad_buf, 16, NULL, NULL);
    } else if (!strcmp(mode, "ecount_past")) {
        bad_rport_on_0(4, 8, 3);
        if (one)
            CMAML_scopy(0, 3, 0, 4, bad_buf, 12, NULL, NULL);
    }
    wait_here();
}

int main(int argc, char **argv)
{
    /* The mark the test script appends is not a mode. */
    const char *mode = argc > 2 ? argv[1] : NULL;

    t_init("prog_amx");
    T_CHECK(t_nodes >= 2, "prog_amx runs on 2 or more nodes");
    if (mode) {
        bad(mode);
        fprintf(stderr, "prog_amx[%d]: %s: the wrong call returned\n", t_self,
                mode);
        fflush(stderr);
        _exit(99);
    }
    test_channels();
    test_waits();
    test_tags();
    round_elements(ESIZE, ESTRIDE);
    round_elements(ESIZE, ESIZE);
    test_allocated();
    t_done();
    return 0;
}
