/*
 * prog_bad MODE: one wrong call, as legacy code might make it, on a job of
 * 2 nodes.  The library must report it in one line
 * "cm5[<node>:<pid>] error <call>: <message>" and stop the job; the
 * script checks the line, the status and the time.  The node that does
 * not fault waits in a collective or a receive, so the only way out is
 * the library stopping the job.  If the wrong call returns, the program
 * says so and exits with status 99.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cm/cmmd.h>

#include "t_util.h"

static char buf[256];

static void noop_handler(void) {}

static void wait_here(void)
{
    CMMD_sync_with_nodes();
    CMMD_sync_with_nodes();
}

/* Node 0 owns rport 3: 200 bytes of room, a byte counter of 100. */
static void rport_on_0(void)
{
    if (t_self == 0) {
        T_EQ(CMAML_allocate_this_rport(3), 3, "CMAML_allocate_this_rport");
        CMAML_set_rport_addr(3, buf);
        CMAML_set_rport_byte_counter(3, 100);
    }
    CMMD_sync_with_nodes();
}

static void bad(const char *mode)
{
    int one = t_self == 1;

    if (!strcmp(mode, "scopy_unallocated")) {
        if (one)
            CMAML_scopy(0, 5, 0, 0, buf, 64, NULL, NULL);
        wait_here();
    } else if (!strcmp(mode, "scopy_past_counter")) {
        rport_on_0();
        if (one) {
            CMAML_scopy(0, 3, 0, 0, buf, 60, NULL, NULL);
            CMAML_scopy(0, 3, 0, 60, buf, 60, NULL, NULL);
        }
        wait_here();
    } else if (!strcmp(mode, "free_rport_128")) {
        if (one)
            CMAML_free_rport(128);
        wait_here();
    } else if (!strcmp(mode, "free_rport_-1")) {
        if (one)
            CMAML_free_rport(-1);
        wait_here();
    } else if (!strcmp(mode, "scopy_rport_128")) {
        rport_on_0();
        if (one)
            CMAML_scopy(0, 128, 0, 0, buf, 8, NULL, NULL);
        wait_here();
    } else if (!strcmp(mode, "scopy_rport_-1")) {
        rport_on_0();
        if (one)
            CMAML_scopy(0, -1, 0, 0, buf, 8, NULL, NULL);
        wait_here();
    } else if (!strcmp(mode, "free_twice")) {
        if (one) {
            int r = CMAML_allocate_this_rport(17);

            CMAML_free_rport(r);
            CMAML_free_rport(r);
        }
        wait_here();
    } else if (!strcmp(mode, "receive_too_short")) {
        if (one)
            CMMD_receive_block(0, 5, buf, 50);
        else
            CMMD_send_block(1, 5, buf, 100);
        wait_here();
    } else if (!strcmp(mode, "combiner")) {
        CMMD_reduce_int(1, one ? (CMMD_combiner_t)99 : CMMD_combiner_add);
    } else if (!strcmp(mode, "combiner_float")) {
        CMMD_reduce_double(1.0, one ? CMMD_combiner_xor : CMMD_combiner_dadd);
    } else if (!strcmp(mode, "combiner_v")) {
        int v[4] = {1, 2, 3, 4}, w[4];

        CMMD_reduce_v(w, v, one ? (CMMD_combiner_t)42 : CMMD_combiner_add, 4,
                      4);
    } else if (!strcmp(mode, "scan_direction")) {
        CMMD_scan_int(1, CMMD_combiner_add,
                      one ? (CMMD_scan_direction_t)7 : CMMD_upward, CMMD_none,
                      0, CMMD_inclusive);
        wait_here(); /* node 0 may finish its part alone */
    } else if (!strcmp(mode, "scan_segment_mode")) {
        CMMD_scan_int(1, CMMD_combiner_add, CMMD_upward,
                      one ? (CMMD_segment_mode_t)9 : CMMD_none, 0,
                      CMMD_inclusive);
        wait_here(); /* node 0 may finish its part alone */
    } else if (!strcmp(mode, "scan_inclusion")) {
        CMMD_scan_double(1, CMMD_combiner_dmax, CMMD_downward, CMMD_none, 0,
                         one ? (CMMD_scan_inclusion_t)5 : CMMD_exclusive);
        wait_here(); /* node 0 may finish its part alone */
    } else if (!strcmp(mode, "timer_64")) {
        if (one)
            CMMD_node_timer_start(64);
        wait_here();
    } else if (!strcmp(mode, "timer_-1_unsafe")) {
        CMMD_disable_safety();
        if (one)
            CMMD_node_timer_elapsed(-1);
        wait_here();
    } else if (!strcmp(mode, "send_node")) {
        if (one)
            CMMD_send_block(2, 0, buf, 4);
        wait_here();
    } else if (!strcmp(mode, "receive_node")) {
        if (one)
            CMMD_receive_block(-2, 0, buf, 4);
        wait_here();
    } else if (!strcmp(mode, "scopy_node")) {
        if (one)
            CMAML_scopy(2, 0, 0, 0, buf, 4, NULL, NULL);
        wait_here();
    } else if (!strcmp(mode, "send_length")) {
        if (one)
            CMMD_send_block(0, 0, buf, -1);
        wait_here();
    } else if (!strcmp(mode, "receive_length")) {
        if (one)
            CMMD_receive_block(0, 0, buf, -8);
        wait_here();
    } else if (!strcmp(mode, "scopy_length")) {
        rport_on_0();
        if (one)
            CMAML_scopy(0, 3, 0, 0, buf, -5, NULL, NULL);
        wait_here();
    } else if (!strcmp(mode, "bc_length")) {
        if (one)
            CMMD_bc_to_nodes(buf, -3);
        else
            CMMD_receive_bc_from_node(buf, 4);
    } else if (!strcmp(mode, "fault_while_busy")) {
        /* The other nodes keep sending requests to node 1, which serves
         * them for a while and then faults: still one error line, node
         * 1's. */
        if (one) {
            double t0 = t_now();

            while (t_now() - t0 < 0.2)
                CMAML_poll();
            CMMD_node_timer_stop(-7);
        }
        for (;;) { /* paced: never short of flow-control credits */
            CMAML_request(1, (CMAML_handler_t)noop_handler, 1, 2, 3, 4);
            t_sleep(0.001);
        }
    } else if (!strcmp(mode, "cmmd_error")) {
        if (one)
            CMMD_error("legacy failure %d at step %s\n", 42, "three");
        wait_here();
    } else if (!strcmp(mode, "send_tag")) {
        if (one)
            CMMD_send_noblock(0, -5, buf, 4);
        wait_here();
    } else if (!strcmp(mode, "mcb_freed")) {
        if (one) {
            CMMD_mcb m = CMMD_send_async(0, 9, buf, 4, NULL, NULL);

            CMMD_msg_wait(m);
            CMMD_free_mcb(m);
            CMMD_mcb_bytes(m);
        } else {
            CMMD_receive_block(1, 9, buf, 4);
        }
        wait_here();
    } else if (!strcmp(mode, "mcb_errval")) {
        if (one)
            CMMD_msg_wait(CMMD_ERRVAL);
        wait_here();
    } else if (!strcmp(mode, "mcb_probe_wait")) {
        if (one) {
            CMMD_mcb m;

            while (!(m = CMMD_mcb_pending(0, 9)))
                CMMD_poll();
            CMMD_msg_wait(m);
        } else {
            CMMD_send_noblock(1, 9, buf, 4);
        }
        wait_here();
    } else {
        fprintf(stderr, "prog_bad: unknown mode %s\n", mode);
        exit(2);
    }
}

int main(int argc, char **argv)
{
    t_init("prog_bad");
    T_CHECK(argc > 1, "usage: prog_bad MODE");
    T_CHECK(t_nodes == 2 || !strcmp(argv[1], "fault_while_busy"),
            "prog_bad runs on 2 nodes");
    bad(argv[1]);
    fprintf(stderr, "prog_bad[%d]: %s: the wrong call returned\n", t_self,
            argv[1]);
    fflush(stderr);
    _exit(99);
}
