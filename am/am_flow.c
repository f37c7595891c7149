/*
 * Credit-based flow control: the only owner of the credits.
 *
 * Every (sender, receiver, channel) has a window of `credits` counted
 * packets.  The receiver has buffer space for all of them (plus a few
 * uncounted credit and barrier packets per peer), so nothing is buffered
 * without bound and a sender never overruns a receiver.  Credits come back
 * piggybacked on any packet going the other way, or in a credit packet
 * when half a window is owed.  Credit packets travel on the reply channel,
 * which every wait drains, so credits always return.
 */
#include "am_flow.h"

#include <stdlib.h>
#include <string.h>

#include "am_config.h"
#include "am_ctx.h"
#include "am_progress.h"
#include "am_util.h"
#include "am_wait.h"
#include "am_wire.h"
#include "fabric/fab.h"

static cm5_stats_t flow_count; /* this module's statistics (cm5_stats) */

static struct {
    uint16_t credits;            /* the window */
    int window_auto;             /* chosen by the runtime: may be fitted */
    int nep;                     /* peers the arrays are sized for */
    uint16_t *tx_cred[CM5I_NCH]; /* credits we hold for each peer */
    uint16_t *owe[CM5I_NCH];     /* credits we owe each peer */
    int *flush_q;                /* peers owed a credit packet */
    int nflush;
    uint8_t *flush_mark; /* in flush_q */
} flow;

/* A deep window keeps a sender streaming (the shm flood rate grows with
 * it); receive buffers grow with nodes * window, so big jobs get less. */
void cm5i_flow_config(void)
{
    const char *s = cm5i_config_str(CM5_ENV_AM_CREDITS);
    /* Deeper windows help small jobs; in large ones every sender filling
     * a deep window overruns the receiver's queue (shm: 1024 entries)
     * and retries cost more than they gain (32 nodes: 130k msgs/s at 64,
     * 94k at 256). */
    long n = 2048 / (cm5i_ctx.size > 0 ? cm5i_ctx.size : 1);
    char *end;
    long v;

    flow.window_auto = 0;
    if (strcmp(s, "auto") != 0) {
        v = strtol(s, &end, 10);
        if (*s && !*end && v >= 2 && v <= 4096) {
            flow.credits = (uint16_t)v;
            return;
        }
        cm5i_config_error(CM5_ENV_AM_CREDITS "=%s: expected auto or a number "
                                             "from 2 to 4096",
                          s);
    }
    flow.window_auto = 1;
    flow.credits = (uint16_t)(n < 32 ? 32 : n > 256 ? 256 : n);
}

uint16_t cm5i_flow_window(void) { return flow.credits; }

/* A provider that drops what its receive queue cannot hold (see
 * cm5i_fab_rx_loss_window) gets an automatic window that keeps every
 * peer's messages in flight to one node within half of that queue. */
static void flow_fit(void)
{
    size_t q = cm5i_fab_rx_loss_window(cm5i_ctx.fab);
    size_t fit;

    if (!q || cm5i_ctx.nep < 2 || !flow.window_auto)
        return;
    fit = q / 2 / (size_t)(cm5i_ctx.nep - 1);
    if (fit < 2)
        fit = 2;
    if (fit < flow.credits) {
        cm5i_log(CM5I_LOG_INFO, "init",
                 "%s drops messages beyond its receive queue (%zu): "
                 "flow-control window %zu instead of %u",
                 cm5i_fab_provider(cm5i_ctx.fab), q, fit,
                 (unsigned)flow.credits);
        flow.credits = (uint16_t)fit;
    }
}

int cm5i_flow_credit_packet(int ch, const cm5i_pkt_t *pkt)
{
    (void)ch, (void)pkt;
    flow_count.internal_handled++;
    return 0; /* uncounted */
}

void cm5i_flow_teardown(void)
{
    for (int c = 0; c < CM5I_NCH; c++) {
        free(flow.tx_cred[c]);
        free(flow.owe[c]);
        flow.tx_cred[c] = flow.owe[c] = NULL;
    }
    free(flow.flush_q);
    free(flow.flush_mark);
    flow.flush_q = NULL;
    flow.flush_mark = NULL;
    flow.nflush = 0;
    flow.nep = 0;
}

uint64_t cm5i_flow_digest(uint64_t h)
{
    for (int c = 0; c < CM5I_NCH; c++)
        if (flow.tx_cred[c]) {
            h = cm5i_digest(h, flow.tx_cred[c],
                            (size_t)flow.nep * sizeof(uint16_t));
            h = cm5i_digest(h, flow.owe[c],
                            (size_t)flow.nep * sizeof(uint16_t));
        }
    return cm5i_digest(h, &flow.nflush, sizeof(flow.nflush));
}

/* After the endpoints opened: fit the window, size the arrays. */
cm5_status_t cm5i_flow_setup(void)
{
    size_t n = (size_t)cm5i_ctx.nep;

    cm5i_stats_part(&flow_count);
    flow_fit();
    flow.nep = cm5i_ctx.nep;
    for (int c = 0; c < CM5I_NCH; c++) {
        flow.tx_cred[c] = malloc(n * sizeof(uint16_t));
        flow.owe[c] = calloc(n, sizeof(uint16_t));
        if (!flow.tx_cred[c] || !flow.owe[c])
            return CM5_ERR_NO_MEMORY;
        for (size_t k = 0; k < n; k++)
            flow.tx_cred[c][k] = flow.credits;
    }
    flow.flush_q = malloc(n * sizeof(int));
    flow.flush_mark = calloc(n, 1);
    if (!flow.flush_q || !flow.flush_mark)
        return CM5_ERR_NO_MEMORY;
    cm5i_progress_hook(CM5I_HOOK_ALWAYS, cm5i_flow_flush);
    return CM5_OK;
}

int cm5i_flow_has(int ch, int node) { return flow.tx_cred[ch][node] > 0; }

void cm5i_flow_take(int ch, int node) { flow.tx_cred[ch][node]--; }

/* A packet from src arrived: the credits it carries are ours again. */
void cm5i_flow_returned(int src, const cm5i_pkt_t *pkt)
{
    for (int c = 0; c < CM5I_NCH; c++)
        flow.tx_cred[c][src] += pkt->cred[c];
}

/* A counted packet from src on ch has been consumed: owe its credit. */
void cm5i_flow_owe(int ch, int src)
{
    uint16_t *owe = &flow.owe[ch][src];

    (*owe)++;
    if (*owe >= flow.credits / 2 && !flow.flush_mark[src]) {
        flow.flush_mark[src] = 1;
        flow.flush_q[flow.nflush++] = src;
    }
}

/* Piggyback the credits owed to node.  Reply-channel credits ride only on
 * the reply channel: a node blocked in a handler reads only that one, and
 * it may be waiting for exactly those credits. */
void cm5i_flow_piggyback(int ch, int node, cm5i_pkt_t *pkt)
{
    for (int c = 0; c < CM5I_NCH; c++) {
        if (c == CM5I_CH_REP && ch != CM5I_CH_REP) {
            pkt->cred[c] = 0;
            continue;
        }
        pkt->cred[c] = flow.owe[c][node];
        flow.owe[c][node] = 0;
    }
}

/* The packet was not sent: owe its piggybacked credits again. */
void cm5i_flow_unpiggyback(int node, const cm5i_pkt_t *pkt)
{
    for (int c = 0; c < CM5I_NCH; c++)
        flow.owe[c][node] += pkt->cred[c];
}

/* Send the credit packets owed, without blocking (a progress hook). */
int cm5i_flow_flush(int chmask)
{
    int keep = 0;

    (void)chmask;
    for (int i = 0; i < flow.nflush; i++) {
        int node = flow.flush_q[i];
        cm5i_pkt_t pkt = {.key = cm5i_ctx.key,
                          .src = (uint16_t)cm5i_ctx.rank,
                          .type = CM5I_PKT_CREDIT};
        cm5_status_t st;

        cm5i_flow_piggyback(CM5I_CH_REP, node, &pkt);
        if (pkt.cred[0] == 0 && pkt.cred[1] == 0) {
            flow.flush_mark[node] = 0;
            continue; /* already piggybacked */
        }
        st = cm5i_fab_send(cm5i_ctx.fab, CM5I_CH_REP, node, &pkt, sizeof(pkt));
        if (st == CM5_OK) {
            flow.flush_mark[node] = 0;
            cm5i_doorbell_ring(node);
            continue;
        }
        cm5i_flow_unpiggyback(node, &pkt);
        if (st != CM5_ERR_AGAIN)
            cm5_fatal("cm5fab", "cannot return credits to node %d: %s", node,
                      cm5_status_string(st));
        flow.flush_q[keep++] = node; /* retry at the next poll */
    }
    flow.nflush = keep;
    return 0;
}
