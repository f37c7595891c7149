/*
 * Polling one channel only (CMAML_request_poll, CMAML_reply_poll): the
 * CM-5 had a request network and a reply network, and a program could
 * drain either one alone.
 */
#include "am_internal.h"

/* A program may spin on one of these as on cm5_poll: after many empty
 * calls in quick succession each call takes a step of a wait (yield,
 * then sleep) on that channel, so the loop gives the CPU away. */
typedef struct {
    cm5i_waiter_t w;
    double last;
} poll_pace_t;

static uint64_t poll_handled(void)
{
    return cm5i_ctx.stats.requests_handled + cm5i_ctx.stats.replies_handled;
}

static int poll_channel(poll_pace_t *p, int ch)
{
    uint64_t before = poll_handled();
    double now = cm5_wtime();

    if (now - p->last > 20e-6) /* the program worked in between */
        cm5i_waiter_init(&p->w);
    if (p->w.empty < 64) {
        if (cm5i_progress(CM5I_CH_BIT(ch)) > 0)
            cm5i_waiter_init(&p->w);
        else
            p->w.empty++;
    } else {
        cm5i_wait_step(&p->w, CM5I_CH_BIT(ch));
    }
    p->last = cm5_wtime();
    return (int)(poll_handled() - before);
}

int cm5_poll_requests(void)
{
    static poll_pace_t pace = {.w = {.t0 = -1, .sleep_us = 20}};

    CM5I_GUARD();
    cm5i_ensure_init();
    if (cm5i_ctx.in_handler) /* request handlers never nest */
        return 0;
    return poll_channel(&pace, CM5I_CH_REQ);
}

int cm5_poll_replies(void)
{
    static poll_pace_t pace = {.w = {.t0 = -1, .sleep_us = 20}};
    uint64_t before;

    CM5I_GUARD();
    cm5i_ensure_init();
    if (cm5i_ctx.in_handler) { /* a request handler may wait for replies */
        before = poll_handled();
        cm5i_progress(CM5I_CH_BIT(CM5I_CH_REP));
        return (int)(poll_handled() - before);
    }
    return poll_channel(&pace, CM5I_CH_REP);
}
