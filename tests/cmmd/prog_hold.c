/*
 * prog_hold: control-network calls hold user handlers, as on the CM-5,
 * whose control network dispatched no data-network messages.
 *
 *   counter   the NESL/CVL idiom: reset a message counter right after
 *             CMMD_sync_with_nodes, then poll until every node's
 *             requests arrived; 300 rounds.  If a fast node's requests
 *             ran inside a slow node's barrier, they would be counted
 *             before the reset and the slow node would hang.
 *   phase     request handlers, reply handlers, MCB completion handlers
 *             and rport handlers never run inside a barrier, reduction,
 *             scan, broadcast or concat (each records the phase the main
 *             program is in; "inside" is a phase no handler may see), and
 *             they all run afterwards.
 *   irq       with interrupts enabled, handlers held by a barrier run as
 *             it returns (not before every node entered it), and the node
 *             need not poll.
 */
#include <stdlib.h>
#include <string.h>

#include <cm/cmmd.h>

#include "t_util.h"

static volatile int count, phase, bad_phase, ran;

static void count_handler(int from)
{
    (void)from;
    count++;
}

/* ---- counter ---- */

static void test_counter(int rounds)
{
    int want = t_nodes - 1;

    for (int r = 0; r < rounds; r++) {
        CMMD_sync_with_nodes();
        count = 0; /* right after the barrier: the legacy idiom */
        for (int k = 1; k < t_nodes; k++)
            CMAML_request((t_self + k) % t_nodes, (CMAML_handler_t)count_handler,
                          t_self);
        T_POLL_UNTIL(count >= want, 30,
                     "round %d: %d of %d requests counted after the barrier "
                     "(some ran inside it and were lost to the reset)",
                     r, count, want);
        T_EQ(count, want, "requests counted in a round");
    }
}

/* ---- phase ---- */

enum { OUTSIDE = 1, INSIDE = 2 };

static void note_phase(void)
{
    if (phase == INSIDE)
        bad_phase++;
    ran++;
}

static void phase_reply(int a)
{
    (void)a;
    note_phase();
}

static void phase_request(int from)
{
    note_phase();
    CMAML_reply(from, (CMAML_handler_t)phase_reply, 0);
}

static void phase_mcb(CMMD_mcb *mcb, void *arg)
{
    (void)mcb;
    (void)arg;
    note_phase();
}

static void phase_rport(int rport, void *arg)
{
    (void)rport;
    (void)arg;
    note_phase();
}

/* One control-network call of each kind, with phase INSIDE meanwhile. */
static void inside_calls(int which)
{
    int v = t_self, all[64];
    char buf[32];

    phase = INSIDE;
    switch (which) {
    case 0:
        CMMD_sync_with_nodes();
        break;
    case 1:
        v = CMMD_reduce_int(v, CMMD_combiner_add);
        T_EQ(v, t_nodes * (t_nodes - 1) / 2, "CMMD_reduce_int");
        break;
    case 2:
        v = CMMD_scan_int(1, CMMD_combiner_add, CMMD_upward, CMMD_none, 0,
                          CMMD_inclusive);
        T_EQ(v, t_self + 1, "CMMD_scan_int");
        break;
    case 3:
        if (t_self == 0) {
            strcpy(buf, "broadcast");
            CMMD_bc_to_nodes(buf, sizeof(buf));
        } else {
            CMMD_receive_bc_from_node(buf, sizeof(buf));
        }
        T_CHECK(strcmp(buf, "broadcast") == 0, "broadcast got \"%s\"", buf);
        break;
    default:
        CMMD_concat_with_nodes(&v, all, (int)sizeof(int));
        for (int i = 0; i < t_nodes; i++)
            T_EQ(all[i], i, "CMMD_concat_with_nodes element");
        break;
    }
    phase = OUTSIDE;
}

static void test_phase(void)
{
    static char rbuf[4096], sbuf[4096], pbuf[64];
    int from = (t_self + t_nodes - 1) % t_nodes, to = (t_self + 1) % t_nodes;
    int rport, want = 0;

    if (t_nodes < 2 || t_nodes > 64)
        return;
    rport = CMAML_allocate_this_rport(5);
    T_EQ(rport, 5, "CMAML_allocate_this_rport");
    for (int which = 0; which < 5; which++) {
        CMMD_mcb r;

        phase = OUTSIDE;
        ran = bad_phase = 0;
        CMAML_set_rport_addr(rport, pbuf);
        CMAML_set_rport_byte_counter(rport, (int)sizeof(pbuf));
        CMAML_set_rport_handler(rport, (CMAML_handler_t)phase_rport);
        r = CMMD_receive_async(from, 900 + which, rbuf, (int)sizeof(rbuf),
                               phase_mcb, NULL);
        T_CHECK(r > 0, "CMMD_receive_async returned %d", r);
        CMMD_sync_with_nodes();
        /* Node 0 is late into the call, so the others' traffic reaches it
         * before it enters and while it waits inside. */
        if (t_self == 0)
            t_compute(0.05);
        if (t_self != 0) {
            CMAML_request(0, (CMAML_handler_t)phase_request, t_self);
            CMMD_send_noblock(to, 900 + which, sbuf, (int)sizeof(sbuf));
            CMAML_scopy(to, rport, 0, 0, pbuf, (int)sizeof(pbuf), NULL,
                        NULL);
        }
        inside_calls(which);
        if (t_self == 0) { /* and node 0 sends once the others wait */
            CMMD_send_noblock(to, 900 + which, sbuf, (int)sizeof(sbuf));
            CMAML_scopy(to, rport, 0, 0, pbuf, (int)sizeof(pbuf), NULL,
                        NULL);
        }
        /* node 0: t_nodes - 1 requests, every node: its replies, one
         * MCB handler and one rport handler */
        want = (t_self == 0 ? t_nodes - 1 : 1) + 2;
        T_POLL_UNTIL(ran >= want, 30, "call %d: %d of %d handlers ran",
                     which, ran, want);
        CMMD_msg_wait(r);
        CMMD_free_mcb(r);
        T_EQ(bad_phase, 0, "handlers that ran inside a control-network "
                           "call");
        T_EQ(ran, want, "handlers that ran");
        CMMD_sync_with_nodes();
    }
    CMAML_free_rport(rport);
}

/* ---- irq ---- */

static volatile double first_run;

static void irq_handler(int from)
{
    (void)from;
    if (count++ == 0)
        first_run = t_now();
}

/* The others send to node 0, which waits in a barrier, and enter it 0.2 s
 * later.  Held, the handlers run once the barrier is complete: after the
 * last node entered it (one clock: every node is on this host).  A
 * handler may also run before node 0 entered the barrier (a node 0 slow
 * to get there, under a sanitizer on a loaded machine): that is outside
 * any control-network call, so allowed; the senders wait 0.3 s so that
 * it is rare. */
static void test_irq(void)
{
    double t_enter = 0, all[64], last = 0, t0;

    if (t_nodes < 2 || t_nodes > 64)
        return;
    count = 0;
    CMAML_enable_interrupts();
    CMMD_sync_with_nodes();
    if (t_self != 0) {
        t_compute(0.3);
        CMAML_request(0, (CMAML_handler_t)irq_handler, t_self);
        t_compute(0.2);
    }
    t_enter = t_now();
    CMMD_sync_with_nodes();
    if (t_self == 0) {
        /* Compute without polling: held handlers must still run. */
        t0 = t_now();
        while (count < t_nodes - 1 && t_now() - t0 < 20)
            t_compute(0.001);
        T_EQ(count, t_nodes - 1, "handlers run after the barrier without "
                                 "polling");
    }
    CMAML_disable_interrupts();
    CMMD_concat_with_nodes(&t_enter, all, (int)sizeof(double));
    for (int i = 1; i < t_nodes; i++)
        if (all[i] > last)
            last = all[i];
    if (t_self == 0)
        T_CHECK(first_run >= last || first_run < t_enter,
                "a request handler ran %.3f s before the last node entered "
                "the barrier, %.3f s after node 0 did: inside it",
                last - first_run, first_run - t_enter);
    CMMD_sync_with_nodes();
}

int main(int argc, char **argv)
{
    t_init("prog_hold");
    if (argc > 1 && strcmp(argv[1], "irq") == 0) {
        test_irq();
    } else {
        test_counter(300);
        CMMD_sync_with_nodes();
        test_phase();
    }
    CMMD_sync_with_nodes();
    t_done();
    return 0;
}
