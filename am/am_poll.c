/*
 * Polling one channel only (CMAML_request_poll, CMAML_reply_poll): the
 * CM-5 had a request network and a reply network, and a program could
 * drain either one alone.
 */
#include "am_poll.h"

#include <stdlib.h>

#include "am_ctx.h"
#include "am_flow.h"
#include "am_guard.h"
#include "am_packet.h"
#include "am_progress.h"
#include "am_util.h"
#include "am_wait.h"
#include "am_wire.h"
#include "fabric/fab.h"

uint32_t cm5i_parked[CM5I_NCH];

/* Parked packets, a ring per channel: each peer has at most `credits`
 * counted packets on a channel without a credit back, and a parked one
 * owes its credit until it has run. */
static struct {
    cm5i_pkt_t *q;
    uint32_t head, cap;
} park[CM5I_NCH];

static void poll_park(int ch, const cm5i_pkt_t *pkt)
{
    if (!park[ch].q) {
        park[ch].cap = (uint32_t)cm5i_ctx.size * cm5i_flow_window();
        park[ch].q = malloc(park[ch].cap * sizeof(*pkt));
        if (!park[ch].q)
            cm5_fatal(ch == CM5I_CH_REQ ? "CMAML_reply_poll"
                                        : "CMAML_request_poll",
                      "out of memory for the messages of the other channel");
    }
    if (cm5i_parked[ch] >= park[ch].cap)
        cm5_fatal("cm5fab", "more parked packets than credits allow");
    park[ch].q[(park[ch].head + cm5i_parked[ch]++) % park[ch].cap] = *pkt;
}

int cm5i_park_drain(int ch)
{
    int n = 0;

    while (cm5i_parked[ch] > 0) {
        cm5i_pkt_t pkt = park[ch].q[park[ch].head];

        park[ch].head = (park[ch].head + 1) % park[ch].cap;
        cm5i_parked[ch]--;
        cm5i_am_deliver(ch, &pkt); /* may poll, and so drain, itself */
        n++;
    }
    return n;
}

/* A progress hook: what waits on ch runs before anything newer (the
 * parked packets, then the held ones of am_packet.c). */
static int poll_hook_parked(int ch)
{
    if (CM5I_UNLIKELY(cm5i_parked[ch]) && !cm5i_depth.cn_hold &&
        !cm5i_depth.user_hold &&
        (!(cm5i_park_mask & CM5I_CH_BIT(ch)) || cm5i_depth.in_handler))
        return cm5i_park_drain(ch);
    return 0;
}

/* Before cm5i_pkt_setup: parked packets are older than held ones. */
cm5_status_t cm5i_poll_setup(void)
{
    cm5i_progress_hook(CM5I_HOOK_CHANNEL, poll_hook_parked);
    cm5i_pkt_parker(poll_park);
    return CM5_OK;
}

void cm5i_poll_teardown(void)
{
    for (int c = 0; c < CM5I_NCH; c++) {
        free(park[c].q);
        park[c].q = NULL;
        park[c].head = park[c].cap = 0;
        cm5i_parked[c] = 0;
    }
    cm5i_park_mask = 0;
}

/* Serve the network with the user packets of the other channel parked.
 * Both channels are read: a provider may need the receiver to progress
 * a channel before a sender's first message on it can go (connection
 * set-up), and on the CM-5 a node polling one network never stopped
 * traffic on the other. */
static int poll_progress(cm5i_waiter_t *w, int ch, int step)
{
    int saved = cm5i_park_mask, n = 0;

    cm5i_park_mask = CM5I_CH_ALL & ~CM5I_CH_BIT(ch);
    if (step)
        cm5i_wait_step(w, CM5I_CH_ALL);
    else
        n = cm5i_progress(CM5I_CH_ALL);
    cm5i_park_mask = saved;
    return n;
}

/* A program may spin on one of these as on cm5_poll: after many empty
 * calls in quick succession each call takes a step of a wait (yield,
 * then sleep) on that channel, so the loop gives the CPU away. */
typedef struct {
    cm5i_waiter_t w;
    double last;
} poll_pace_t;

static uint64_t poll_handled(void) { return cm5i_am_handled(); }

static int poll_channel(poll_pace_t *p, int ch)
{
    uint64_t before = poll_handled();
    double now = cm5_rtime();

    if (now - p->last > 20e-6) /* the program worked in between */
        cm5i_waiter_init(&p->w);
    if (p->w.empty < 64) {
        if (poll_progress(&p->w, ch, 0) > 0)
            cm5i_waiter_init(&p->w);
        else
            p->w.empty++;
    } else {
        poll_progress(&p->w, ch, 1);
    }
    p->last = cm5_rtime();
    return (int)(poll_handled() - before);
}

int cm5_poll_requests(void)
{
    static poll_pace_t pace = {.w = {.t0 = -1, .sleep_us = 20}};

    CM5I_GUARD();
    cm5i_ensure_init();
    if (cm5i_depth.in_handler) /* request handlers never nest */
        return 0;
    return poll_channel(&pace, CM5I_CH_REQ);
}

int cm5_poll_replies(void)
{
    static poll_pace_t pace = {.w = {.t0 = -1, .sleep_us = 20}};
    uint64_t before;

    CM5I_GUARD();
    cm5i_ensure_init();
    if (cm5i_depth.in_handler) { /* a request handler may wait for replies */
        before = poll_handled();
        cm5i_progress(CM5I_CH_BIT(CM5I_CH_REP));
        return (int)(poll_handled() - before);
    }
    return poll_channel(&pace, CM5I_CH_REP);
}

/* One pass over the network, as a probe in a loop (backs off). */
int cm5_poll(void)
{
    uint64_t before;

    CM5I_GUARD();
    cm5i_ensure_init();
    before = poll_handled();
    if (cm5i_depth.in_handler) { /* handlers never nest in request handlers */
        cm5i_progress(CM5I_CH_BIT(CM5I_CH_REP));
        return (int)(poll_handled() - before);
    }
    cm5i_probe_progress();
    return (int)(poll_handled() - before);
}
