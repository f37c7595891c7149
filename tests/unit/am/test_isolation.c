/*
 * Isolation: packets from outside the job (a wrong job key, a sender
 * outside the partition, a wrong length) are dropped and counted
 * (cm5_stats: foreign_dropped), never dispatched.  A second endpoint of
 * this process plays the stranger: it sends forged packets to the
 * runtime's own endpoint.  A packet with the right key, sent the same
 * way, is dispatched: the forging reaches the receive path.
 *
 * Linked statically with libcm5fab for the hidden cm5i_* calls.
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "am_ctx.h"
#include "am_handler.h"
#include "am_wire.h"
#include "fabric/fab.h"

TestSuite(isolation, .timeout = 30);

static volatile int ran;

static void target(uint32_t a0, uint32_t a1, uint32_t a2, uint32_t a3)
{
    (void)a1, (void)a2, (void)a3;
    ran += (int)a0;
}

static double now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* The stranger: an endpoint of its own whose peer 0 is the runtime. */
static cm5i_fab_t *stranger(void)
{
    char tag[64], addr[CM5I_ADDR_REC];
    cm5i_fab_params_t p = {.provider = NULL,
                           .name_tag = tag,
                           .msg_size = sizeof(cm5i_pkt_t),
                           .rx_bytes = 64 * sizeof(cm5i_pkt_t)};
    cm5i_fab_t *fab = NULL;
    size_t len;

    snprintf(tag, sizeof(tag), "cm5test-%d-stranger", (int)getpid());
    p.provider = cm5_provider();
    cr_assert_eq(cm5i_fab_open(&p, &fab), CM5_OK);
    len = cm5i_fab_address(cm5i_ctx.fab, addr, sizeof(addr));
    cr_assert_gt(len, 0);
    cr_assert_eq(cm5i_fab_set_peers(fab, 1, addr, sizeof(addr)), CM5_OK);
    return fab;
}

static void forge(cm5i_fab_t *fab, const cm5i_pkt_t *pkt, size_t len)
{
    double t0 = now();
    cm5_status_t st;

    while ((st = cm5i_fab_send(fab, CM5I_CH_REQ, 0, pkt, len)) ==
               CM5_ERR_AGAIN &&
           now() - t0 < 5) {
        /* (a provider may need the receiver to progress first) */
        cm5_poll();
        cm5i_fab_poll(fab, CM5I_CH_REQ, NULL, NULL);
    }
    cr_assert_eq(st, CM5_OK, "forged send: %s", cm5_status_string(st));
}

/* Poll the runtime until cond holds (or 10 s). */
#define POLL_UNTIL(cond, fab)                                                  \
    do {                                                                       \
        double t0_ = now();                                                    \
        while (!(cond) && now() - t0_ < 10) {                                  \
            cm5_poll();                                                        \
            cm5i_fab_poll(fab, CM5I_CH_REQ, NULL, NULL);                       \
        }                                                                      \
    } while (0)

Test(isolation, foreign_packets_are_dropped_and_counted)
{
    cm5i_fab_t *fab;
    cm5i_pkt_t pkt;
    cm5i_href_t ref;
    cm5_stats_t before, after;

    cr_assert_eq(cm5_init(NULL), CM5_OK);
    fab = stranger();
    cr_assert_eq(cm5i_handler_encode((const void *)target, &ref), CM5_OK);
    memset(&pkt, 0, sizeof(pkt));
    pkt.type = CM5I_PKT_USER;
    pkt.obj = ref.obj;
    pkt.off = ref.off;
    pkt.arg[0] = 1;
    cm5_stats(&before);

    pkt.key = cm5i_ctx.key ^ 0x5a5a; /* another job's key */
    forge(fab, &pkt, sizeof(pkt));
    pkt.key = cm5i_ctx.key; /* this job's key, from outside the partition */
    pkt.src = 7;
    forge(fab, &pkt, sizeof(pkt));
    pkt.src = 0; /* a short packet */
    forge(fab, &pkt, sizeof(pkt) - 8);
    cm5_stats(&after);
    POLL_UNTIL((cm5_stats(&after), after.foreign_dropped) >=
                   before.foreign_dropped + 3,
               fab);
    cr_expect_eq(
        after.foreign_dropped, before.foreign_dropped + 3,
        "foreign packets counted: %llu",
        (unsigned long long)(after.foreign_dropped - before.foreign_dropped));
    cr_expect_eq(ran, 0, "a foreign packet ran its handler");
    cr_expect_eq(after.requests_handled, before.requests_handled);

    /* The same path with this job's key and a node of the partition: it
     * is dispatched, so the drops above are the key and range checks. */
    forge(fab, &pkt, sizeof(pkt));
    POLL_UNTIL(ran == 1, fab);
    cr_expect_eq(ran, 1, "a packet with the job's key was not dispatched");
    cm5i_fab_close(fab);
}
