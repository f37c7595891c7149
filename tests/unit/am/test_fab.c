/*
 * The libfabric layer (am/fabric/fab.c) and its table of provider quirks:
 * - shm: FI_OPT_MIN_MULTI_RECV must be set after fi_enable (Debian's
 *   libfabric 1.17 crashes otherwise, ofiwg/libfabric#10591): opening shm
 *   and receiving through several rounds of multi-receive buffers works;
 * - ofi_rxm: FI_OFI_RXM_BUFFER_SIZE is 2048 unless the user set it.
 * Also a fabric of one channel with short queues (the liveness check's),
 * and tcp's one endpoint for both channels: replies pass requests read
 * aside, in a nested poll too.
 *
 * Linked statically with libcm5fab for the hidden cm5i_fab_* calls.
 */
#include <criterion/criterion.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "am_util.h"
#include "fabric/fab.h"

TestSuite(fab, .timeout = 30);

#define MSG 48

typedef struct {
    int n;
    int bad; /* messages with wrong length, channel or bytes */
    int ch;
    uint32_t next;
    unsigned char last[MSG];
} rx_t;

static double now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void fill(unsigned char *m, uint32_t seq)
{
    for (int i = 0; i < MSG; i++)
        m[i] = (unsigned char)(seq * 131u + (unsigned)i * 7u + 1u);
    memcpy(m, &seq, sizeof(seq));
}

static void on_rx(void *arg, int ch, const void *buf, size_t len)
{
    rx_t *rx = arg;
    unsigned char want[MSG];

    fill(want, rx->next);
    if (ch != rx->ch || len != MSG || memcmp(buf, want, MSG) != 0)
        rx->bad++;
    memcpy(rx->last, buf, len < MSG ? len : MSG);
    rx->next++;
    rx->n++;
}

static void tag_for(char *tag, size_t size, const char *what)
{
    snprintf(tag, size, "cm5test-%d-%s", (int)getpid(), what);
}

static cm5i_fab_t *open_self(const char *provider, const char *tag)
{
    cm5i_fab_params_t p = {.provider = provider,
                           .name_tag = tag,
                           .msg_size = MSG,
                           .rx_bytes = 40 * MSG};
    char addr[CM5I_NCH * (2 + CM5I_FAB_NAME_MAX)];
    cm5i_fab_t *fab = NULL;
    cm5_status_t st;
    size_t len;

    setenv("FI_TCP_IFACE", "lo", 0); /* loopback only */
    st = cm5i_fab_open(&p, &fab);
    cr_assert_eq(st, CM5_OK, "cm5i_fab_open(%s): %s", provider,
                 cm5_status_string(st));
    cr_assert_not_null(fab);
    cr_assert(strncmp(cm5i_fab_provider(fab), provider, strlen(provider)) == 0,
              "asked for %s, got %s", provider, cm5i_fab_provider(fab));
    len = cm5i_fab_address(fab, addr, sizeof(addr));
    cr_assert_gt(len, 0, "cm5i_fab_address failed");
    cr_assert_eq(cm5i_fab_set_peers(fab, 1, addr, sizeof(addr)), CM5_OK);
    return fab;
}

/* Send count messages to ourselves on channel ch, at most window unreceived
 * at a time, and check each arrives once, intact and in order. */
static void send_self(cm5i_fab_t *fab, int ch, int count, int window)
{
    rx_t rx = {.ch = ch};
    double t0 = now();

    for (int sent = 0; sent < count || rx.n < count;) {
        int r;

        if (sent < count && sent - rx.n < window) {
            unsigned char m[MSG];
            cm5_status_t st;

            fill(m, (uint32_t)sent);
            st = cm5i_fab_send(fab, ch, 0, m, MSG);
            if (st == CM5_OK)
                sent++;
            else
                cr_assert_eq(st, CM5_ERR_AGAIN, "send %d: %s", sent,
                             cm5_status_string(st));
        }
        r = cm5i_fab_poll(fab, ch, on_rx, &rx);
        cr_assert_geq(r, 0, "cm5i_fab_poll: %s",
                      cm5_status_string((cm5_status_t)r));
        cr_assert_lt(now() - t0, 20.0, "stuck: sent %d, received %d", sent,
                     rx.n);
    }
    cr_expect_eq(rx.n, count);
    cr_expect_eq(rx.bad, 0, "%d messages wrong", rx.bad);
    /* Nothing more arrives, on either channel. */
    for (int i = 0; i < 1000; i++) {
        cr_assert_eq(cm5i_fab_poll(fab, ch, on_rx, &rx), 0, "extra message");
        cr_assert_eq(cm5i_fab_poll(fab, !ch, on_rx, &rx), 0,
                     "message on the wrong channel");
    }
}

static int shm_files(const char *tag)
{
    DIR *d = opendir("/dev/shm");
    struct dirent *e;
    int n = 0;

    if (!d)
        return 0;
    while ((e = readdir(d)))
        n += strstr(e->d_name, tag) != NULL;
    closedir(d);
    return n;
}

Test(fab, shm_opens_and_sends_to_self)
{
    char tag[64];
    cm5i_fab_t *fab;

    tag_for(tag, sizeof(tag), "one");
    fab = open_self("shm", tag);
    cr_expect_str_eq(cm5i_fab_provider(fab), "shm");
    send_self(fab, CM5I_CH_REQ, 1, 1);
    send_self(fab, CM5I_CH_REP, 1, 1);
    cm5i_fab_close(fab);
}

Test(fab, shm_multi_receive_buffers_are_reposted)
{
    /* 40 messages of buffer space per channel: 20000 messages go through
     * every multi-receive buffer hundreds of times. */
    char tag[64];
    cm5i_fab_t *fab;

    tag_for(tag, sizeof(tag), "many");
    fab = open_self("shm", tag);
    send_self(fab, CM5I_CH_REQ, 20000, 32);
    send_self(fab, CM5I_CH_REP, 20000, 32);
    cm5i_fab_close(fab);
}

Test(fab, shm_files_are_named_after_the_tag_and_removed)
{
    char tag[64];
    cm5i_fab_t *fab;

    tag_for(tag, sizeof(tag), "files");
    fab = open_self("shm", tag);
    cr_expect_gt(shm_files(tag), 0, "no /dev/shm file is named after %s", tag);
    cm5i_fab_close(fab);
    cr_expect_eq(shm_files(tag), 0, "/dev/shm files of %s left after close",
                 tag);
}

Test(fab, shm_abandon_removes_files)
{
    char tag[64];
    cm5i_fab_t *fab;

    tag_for(tag, sizeof(tag), "abandon");
    fab = open_self("shm", tag);
    cr_assert_gt(shm_files(tag), 0);
    cm5i_fab_abandon(fab);
    cr_expect_eq(shm_files(tag), 0,
                 "/dev/shm files of %s left after cm5i_fab_abandon", tag);
}

Test(fab, tracked_sends_complete)
{
    char tag[64];
    cm5i_fab_t *fab;
    rx_t rx = {.ch = CM5I_CH_REP};
    double t0 = now();

    tag_for(tag, sizeof(tag), "tracked");
    fab = open_self("shm", tag);
    cm5i_fab_track_sends(fab);
    for (uint32_t i = 0; i < 16;) {
        unsigned char m[MSG];
        cm5_status_t st;

        fill(m, i);
        st = cm5i_fab_send(fab, CM5I_CH_REP, 0, m, MSG);
        if (st == CM5_OK)
            i++;
        else
            cr_assert_eq(st, CM5_ERR_AGAIN, "send %u: %s", i,
                         cm5_status_string(st));
        cr_assert_geq(cm5i_fab_poll(fab, CM5I_CH_REP, on_rx, &rx), 0);
        cr_assert_leq(cm5i_fab_sends_pending(fab), (long)i);
        cr_assert_lt(now() - t0, 10.0, "cannot send");
    }
    while (rx.n < 16 || cm5i_fab_sends_pending(fab) > 0) {
        cr_assert_geq(cm5i_fab_poll(fab, CM5I_CH_REP, on_rx, &rx), 0);
        cr_assert_lt(now() - t0, 10.0, "pending %ld, received %d",
                     cm5i_fab_sends_pending(fab), rx.n);
    }
    cr_expect_eq(rx.n, 16);
    cr_expect_eq(rx.bad, 0);
    cr_expect_eq(cm5i_fab_sends_pending(fab), 0);
    cm5i_fab_close(fab);
}

Test(fab, tcp_sends_to_self)
{
    cm5i_fab_t *fab = open_self("tcp", NULL);

    send_self(fab, CM5I_CH_REQ, 2000, 32);
    send_self(fab, CM5I_CH_REP, 2000, 32);
    cm5i_fab_close(fab);
}

/* tcp: both channels on one endpoint.  Requests sent before replies do
 * not hold the replies: a poll for replies reads the requests aside (they
 * keep their order), a poll for requests then hands them out; a node with
 * messages read aside must not sleep. */
Test(fab, tcp_one_endpoint_replies_pass_requests_not_handled)
{
    cm5i_fab_t *fab = open_self("tcp", NULL);
    rx_t req = {.ch = CM5I_CH_REQ}, rep = {.ch = CM5I_CH_REP};
    int fds[CM5I_NCH];
    double t0 = now();

    cr_expect_eq(cm5i_fab_wait_fds(fab, fds), CM5I_NCH);
    cr_expect_eq(fds[CM5I_CH_REQ], fds[CM5I_CH_REP], "one endpoint, one fd");
    send_self(fab, CM5I_CH_REQ, 10, 4); /* (the connection is up) */
    for (uint32_t i = 0; i < 5; i++) {
        unsigned char m[MSG];

        fill(m, i);
        cr_assert_eq(cm5i_fab_send(fab, CM5I_CH_REQ, 0, m, MSG), CM5_OK);
    }
    for (uint32_t i = 0; i < 3; i++) {
        unsigned char m[MSG];

        fill(m, i);
        cr_assert_eq(cm5i_fab_send(fab, CM5I_CH_REP, 0, m, MSG), CM5_OK);
    }
    while (rep.n < 3) {
        cr_assert_geq(cm5i_fab_poll(fab, CM5I_CH_REP, on_rx, &rep), 0);
        cr_assert_lt(now() - t0, 20.0, "stuck: %d replies", rep.n);
    }
    cr_expect_eq(rep.bad, 0, "%d replies wrong", rep.bad);
    cr_expect_eq(cm5i_fab_trywait(fab), 0,
                 "requests read aside: the node must poll, not sleep");
    while (req.n < 5) {
        cr_assert_geq(cm5i_fab_poll(fab, CM5I_CH_REQ, on_rx, &req), 0);
        cr_assert_lt(now() - t0, 20.0, "stuck: %d requests", req.n);
    }
    cr_expect_eq(req.n, 5);
    cr_expect_eq(req.bad, 0, "%d requests wrong or out of order", req.bad);
    for (int i = 0; i < 100; i++) {
        cr_assert_eq(cm5i_fab_poll(fab, CM5I_CH_REQ, on_rx, &req), 0);
        cr_assert_eq(cm5i_fab_poll(fab, CM5I_CH_REP, on_rx, &rep), 0);
    }
    cm5i_fab_close(fab);
}

/* A poll for replies nested in a request's callback (a handler waiting
 * for a reply) gets it, and the requests after the one being handled
 * still come in order afterwards. */
typedef struct {
    cm5i_fab_t *fab;
    rx_t req, rep;
    int nested;
} nest_t;

static void on_req_nesting(void *arg, int ch, const void *buf, size_t len)
{
    nest_t *t = arg;

    on_rx(&t->req, ch, buf, len);
    if (t->req.n == 1) { /* the first request's handler waits for a reply */
        double t0 = now();
        unsigned char want[MSG];

        while (t->rep.n < 1 && now() - t0 < 10)
            t->nested += cm5i_fab_poll(t->fab, CM5I_CH_REP, on_rx, &t->rep) > 0;
        /* its own message is still there, whatever the poll read */
        fill(want, 0);
        if (memcmp(buf, want, MSG) != 0)
            t->req.bad++;
    }
}

Test(fab, tcp_one_endpoint_reply_inside_a_request_callback)
{
    nest_t t = {.fab = open_self("tcp", NULL),
                .req = {.ch = CM5I_CH_REQ},
                .rep = {.ch = CM5I_CH_REP}};
    double t0 = now();

    send_self(t.fab, CM5I_CH_REQ, 10, 4); /* (the connection is up) */
    for (uint32_t i = 0; i < 4; i++) {
        unsigned char m[MSG];

        fill(m, i);
        cr_assert_eq(cm5i_fab_send(t.fab, CM5I_CH_REQ, 0, m, MSG), CM5_OK);
        if (i == 1) { /* a reply between the requests */
            fill(m, 0);
            cr_assert_eq(cm5i_fab_send(t.fab, CM5I_CH_REP, 0, m, MSG), CM5_OK);
        }
    }
    while (t.req.n < 4) {
        cr_assert_geq(cm5i_fab_poll(t.fab, CM5I_CH_REQ, on_req_nesting, &t), 0);
        cr_assert_lt(now() - t0, 20.0, "stuck: %d requests", t.req.n);
    }
    cr_expect_eq(t.rep.n, 1, "the reply came inside the first request's");
    cr_expect_eq(t.rep.bad, 0);
    cr_expect_eq(t.req.bad, 0, "%d requests wrong or out of order", t.req.bad);
    cm5i_fab_close(t.fab);
}

Test(fab, udp_sends_to_self)
{
    cm5i_fab_t *fab = open_self("udp", NULL);

    send_self(fab, CM5I_CH_REQ, 2000, 32);
    send_self(fab, CM5I_CH_REP, 2000, 32);
    cm5i_fab_close(fab);
}

/* ---- a one-channel fabric (the liveness check's) ------------------- */

/* One endpoint, short queues, quiet: its address holds one record; 200
 * messages go to ourselves through it, 8 at a time. */
static void one_channel(const char *provider, const char *tag)
{
    cm5i_fab_params_t p = {.provider = provider,
                           .name_tag = tag,
                           .msg_size = MSG,
                           .rx_bytes = 32 * MSG,
                           .nch = 1,
                           .queue = 16,
                           .quiet = 1};
    char addr[CM5I_NCH * (2 + CM5I_FAB_NAME_MAX)], text[160];
    int fds[CM5I_NCH];
    rx_t rx = {.ch = CM5I_CH_REQ};
    cm5i_fab_t *fab = NULL;
    double t0 = now();
    size_t len;
    uint16_t l16;

    setenv("FI_TCP_IFACE", "lo", 0);
    cr_assert_eq(cm5i_fab_open(&p, &fab), CM5_OK);
    len = cm5i_fab_address(fab, addr, sizeof(addr));
    memcpy(&l16, addr, 2);
    cr_expect_eq(len, 2 + (size_t)l16,
                 "%s: address of %zu bytes is not "
                 "one record",
                 provider, len);
    cr_expect_leq(cm5i_fab_wait_fds(fab, fds), 1);
    cr_assert_eq(cm5i_fab_set_peers(fab, 1, addr, sizeof(addr)), CM5_OK);
    for (int sent = 0; sent < 200 || rx.n < 200;) {
        unsigned char m[MSG];

        fill(m, (uint32_t)sent);
        if (sent < 200 && sent - rx.n < 8 &&
            cm5i_fab_send(fab, CM5I_CH_REQ, 0, m, MSG) == CM5_OK)
            sent++;
        cr_assert_geq(cm5i_fab_poll(fab, CM5I_CH_REQ, on_rx, &rx), 0);
        cr_assert_lt(now() - t0, 20.0, "stuck: sent %d, received %d", sent,
                     rx.n);
    }
    cr_expect_eq(rx.bad, 0, "%d messages wrong", rx.bad);
    cm5i_fab_peer_string(fab, 0, text, sizeof(text));
    cr_expect_neq(text[0], '\0', "%s: no address text", provider);
    if (strcmp(provider, "tcp") == 0)
        cr_expect(strncmp(text, "fi_sockaddr_in://127.0.0.1:", 27) == 0,
                  "tcp address text is '%s'", text);
    cm5i_fab_peer_string(fab, 1, text, sizeof(text));
    cr_expect_str_eq(text, "", "address text of a node that is not there");
    cm5i_fab_close(fab);
}

Test(fab, one_channel_shm)
{
    char tag[64];

    tag_for(tag, sizeof(tag), "onech");
    one_channel("shm", tag);
    cr_expect_eq(shm_files(tag), 0, "/dev/shm files of %s left", tag);
}

Test(fab, one_channel_tcp) { one_channel("tcp", NULL); }

Test(fab, unknown_provider_is_no_provider, .timeout = 10)
{
    cm5i_fab_params_t p = {
        .provider = "no-such-provider", .msg_size = MSG, .rx_bytes = 40 * MSG};
    cm5i_fab_t *fab = (cm5i_fab_t *)&p;

    cr_expect_eq(cm5i_fab_open(&p, &fab), CM5_ERR_NO_PROVIDER);
    cr_expect_eq(fab, (cm5i_fab_t *)&p, "output set on failure");
}

/* ---- FI_OFI_RXM_BUFFER_SIZE ---------------------------------------- */

Test(fab, rxm_buffer_size_defaults_to_2048)
{
    char tag[64];
    cm5i_fab_t *fab;
    const char *v;

    unsetenv("FI_OFI_RXM_BUFFER_SIZE");
    tag_for(tag, sizeof(tag), "rxm");
    fab = open_self("shm", tag);
    v = getenv("FI_OFI_RXM_BUFFER_SIZE");
    cr_expect_not_null(v, "FI_OFI_RXM_BUFFER_SIZE is not set");
    if (v)
        cr_expect_str_eq(v, "2048");
    cm5i_fab_close(fab);
}

Test(fab, rxm_buffer_size_set_before_first_use)
{
    /* libfabric reads FI_* variables when it initializes (the first
     * fi_getinfo): the quirk must be in place by then, also for tcp. */
    cm5i_fab_t *fab;

    unsetenv("FI_OFI_RXM_BUFFER_SIZE");
    fab = open_self("tcp", NULL);
    cr_expect_str_eq(getenv("FI_OFI_RXM_BUFFER_SIZE"), "2048");
    send_self(fab, CM5I_CH_REQ, 100, 8);
    cm5i_fab_close(fab);
}

Test(fab, rxm_buffer_size_of_the_user_is_kept)
{
    char tag[64];
    cm5i_fab_t *fab;

    setenv("FI_OFI_RXM_BUFFER_SIZE", "65536", 1);
    tag_for(tag, sizeof(tag), "rxmuser");
    fab = open_self("shm", tag);
    cr_expect_str_eq(getenv("FI_OFI_RXM_BUFFER_SIZE"), "65536");
    cm5i_fab_close(fab);
}

/* ---- error paths (cm5i_fab_fault) ----------------------------------- */

/* A receive buffer whose repost fails is kept and posted again: 100 failed
 * posts in a row (every buffer fails 25 times over) lose no buffer. */
Test(fab, failed_repost_is_retried)
{
    char tag[64];
    cm5i_fab_t *fab;

    tag_for(tag, sizeof(tag), "repost");
    fab = open_self("shm", tag);
    cm5i_fab_fault(fab, CM5I_FAB_FAULT_REPOST_ERROR, 100);
    send_self(fab, CM5I_CH_REQ, 2000, 8);
    cm5i_fab_close(fab);
}

/* While the provider has no room for a receive buffer, polling returns
 * (it drives the provider's progress) and the buffer waits; once there
 * is room it is posted and the messages held meanwhile arrive in order. */
Test(fab, repost_without_room_returns_and_retries, .timeout = 15)
{
    rx_t rx = {.ch = CM5I_CH_REQ};
    char tag[64];
    cm5i_fab_t *fab;
    double t0;
    int sent = 0;

    tag_for(tag, sizeof(tag), "again");
    fab = open_self("shm", tag);
    cm5i_fab_fault(fab, CM5I_FAB_FAULT_REPOST_AGAIN, 1L << 40);
    for (t0 = now(); now() - t0 < 1.0;) {
        unsigned char m[MSG];

        fill(m, (uint32_t)sent);
        if (sent < 100 && cm5i_fab_send(fab, CM5I_CH_REQ, 0, m, MSG) == 0)
            sent++;
        cr_assert_geq(cm5i_fab_poll(fab, CM5I_CH_REQ, on_rx, &rx), 0);
    }
    cr_expect_eq(sent, 100);
    cr_expect_lt(rx.n, 100, "%d messages arrived with no buffer posted", rx.n);
    cm5i_fab_fault(fab, CM5I_FAB_FAULT_REPOST_AGAIN, 0);
    for (t0 = now(); rx.n < sent && now() - t0 < 10.0;)
        cr_assert_geq(cm5i_fab_poll(fab, CM5I_CH_REQ, on_rx, &rx), 0);
    cr_expect_eq(rx.n, 100, "received %d of 100", rx.n);
    cr_expect_eq(rx.bad, 0, "%d messages wrong", rx.bad);
    send_self(fab, CM5I_CH_REQ, 2000, 32);
    cm5i_fab_close(fab);
}

/* A send whose completion is an error gives its slot back: 600 sends
 * (more than the 256 slots) all fail and all slots are reused. */
Test(fab, failed_send_completion_returns_its_slot)
{
    rx_t rx = {.ch = CM5I_CH_REP};
    char tag[64];
    cm5i_fab_t *fab;
    double t0 = now();
    int sent = 0, errors = 0;

    tag_for(tag, sizeof(tag), "txerr");
    fab = open_self("shm", tag);
    cm5i_fab_track_sends(fab);
    cm5i_fab_fault(fab, CM5I_FAB_FAULT_SEND_COMPLETION, 1L << 40);
    while (sent < 600 || rx.n < 600 || cm5i_fab_sends_pending(fab) > 0) {
        unsigned char m[MSG];
        cm5_status_t st;
        int r;

        fill(m, (uint32_t)sent);
        if (sent < 600 && sent - rx.n < 32) {
            st = cm5i_fab_send(fab, CM5I_CH_REP, 0, m, MSG);
            cr_assert(st == CM5_OK || st == CM5_ERR_AGAIN, "send %d: %s", sent,
                      cm5_status_string(st));
            sent += st == CM5_OK;
        }
        r = cm5i_fab_poll(fab, CM5I_CH_REP, on_rx, &rx);
        cr_assert(r >= 0 || r == CM5_ERR_PEER, "poll: %s",
                  cm5_status_string((cm5_status_t)r));
        errors += r == CM5_ERR_PEER;
        cr_assert_lt(now() - t0, 10.0, "sent %d, received %d, pending %ld",
                     sent, rx.n, cm5i_fab_sends_pending(fab));
    }
    cr_expect_geq(errors, 1);
    cr_expect_eq(rx.bad, 0);
    cr_expect_eq(cm5i_fab_sends_pending(fab), 0);
    cr_expect_eq(cm5i_fab_lost_node(fab), 0);
    cm5i_fab_close(fab);
}

/* What the fabric knows of providers, so that the layers above name none
 * (am_init.c asks these). */
Test(fab, provider_knowledge)
{
    cr_expect_str_eq(cm5i_fab_default_provider(1), "shm");
    cr_expect_str_eq(cm5i_fab_default_provider(0), "tcp");

    /* A core provider under a utility one answers to its own name. */
    cr_expect(cm5i_fab_provider_answers("tcp;ofi_rxm", "tcp"));
    cr_expect(cm5i_fab_provider_answers("tcp;ofi_rxm", "tcp;ofi_rxm"));
    cr_expect(cm5i_fab_provider_answers("shm", "shm"));
    cr_expect(!cm5i_fab_provider_answers("tcp;ofi_rxm", "tc"));
    cr_expect(!cm5i_fab_provider_answers("tcp;ofi_rxm", "udp"));
    cr_expect(!cm5i_fab_provider_answers("shm", "sh"));

    unsetenv("FI_PROVIDER");
    cr_expect(cm5i_fab_filter_allows("shm"));
    setenv("FI_PROVIDER", "tcp,udp", 1);
    cr_expect(!cm5i_fab_filter_allows("shm"));
    cr_expect(cm5i_fab_filter_allows("udp"));
    cr_expect(!cm5i_fab_filter_allows("ud"));
    setenv("FI_PROVIDER", "^shm,sockets", 1);
    cr_expect(!cm5i_fab_filter_allows("shm"));
    cr_expect(!cm5i_fab_filter_allows("sockets"));
    cr_expect(cm5i_fab_filter_allows("tcp"));
    unsetenv("FI_PROVIDER");

    /* shm maps memory per endpoint; the others a fixed amount. */
    cr_expect_gt(cm5i_fab_room("shm", 32), cm5i_fab_room("shm", 2));
    cr_expect_eq(cm5i_fab_room("tcp", 32), cm5i_fab_room("tcp", 2));
    cr_expect_eq(cm5i_fab_room(NULL, 32), cm5i_fab_room("udp", 2));
}

/* PMIx's local peers, as the two paths read them (boot_pmix.c): ranks
 * to nodes, a host program's rank 0 to its endpoint, anything else that
 * is not a list of the job's ranks refused whole. */
Test(fab, launcher_locality_list)
{
    unsigned char near[12];
    const unsigned char want[12] = {1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0};
    const unsigned char hosted[7] = {1, 0, 0, 1, 0, 0, 1};
    const char *bad[] = {"",   "0,x", "0,,3", "3,", ",3",
                         "12", "0;3", "-1",   " 3", "3 "};

    cr_assert_eq(cm5i_rank_list_parse("0,3,6,9", 12, 0, -1, near), 4);
    cr_assert_arr_eq(near, want, 12);
    cr_assert_eq(cm5i_rank_list_parse("9,6,3,0,3", 12, 0, -1, near), 4,
                 "a rank named twice counts once");
    cr_assert_arr_eq(near, want, 12);
    /* 6 nodes and a host program (endpoint 6, PMIx rank 0): node k is
     * PMIx rank k + 1 */
    cr_assert_eq(cm5i_rank_list_parse("0,1,4", 7, 1, 6, near), 3);
    cr_assert_arr_eq(near, hosted, 7);
    for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
        memset(near, 7, sizeof(near));
        cr_assert_eq(cm5i_rank_list_parse(bad[i], 12, 0, -1, near), -1,
                     "\"%s\" taken for a list", bad[i]);
        for (int k = 0; k < 12; k++)
            cr_assert_eq(near[k], 0, "\"%s\": node %d left set", bad[i], k);
    }
    cr_assert_eq(cm5i_rank_list_parse(NULL, 12, 0, -1, near), -1);
}
