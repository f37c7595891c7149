/*
 * Wrong calls of the scheduling library, one per MODE (tests/algos/
 * badcall.sh, 2 nodes): the argument checks of algos/sched.c and the
 * fatal paths of run_drs.c and run_twostage.c.  Each must stop the job
 * with one error line from the node that detects it.  Where only node 1
 * is wrong, node 0 waits in a barrier (which runs no handlers) or, when
 * it must answer node 1's active messages, polls.
 *
 *   prog_badcall MODE
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cm/cmmd.h>
#include <cm5/sched.h>

static size_t sc[2], rc[2];
static char sbuf[64], rbuf[64];
static cm5_sched_opts_t o;

static void call(cm5_sched_alg_t alg)
{
    cm5_sched_alltoallv(alg, sbuf, sc, NULL, rbuf, rc, NULL, &o, NULL);
}

/* Node 0's side while node 1 runs a wrong call alone. */
static void node0_wait(int poll)
{
    if (!poll) {
        CMMD_sync_with_nodes();
        return;
    }
    for (int i = 0; i < 10000; i++) { /* ~10 s */
        CMAML_poll();
        usleep(1000);
    }
}

/* The argument checks of cm5_sched_generate_recv and
 * cm5_sched_alltoallv, made on node 1 alone. */
static int bad_args(const char *m)
{
    if (!strcmp(m, "recv_null"))
        cm5_sched_generate_recv(CM5_SCHED_RECV_AM, NULL, rc);
    else if (!strcmp(m, "recv_method"))
        cm5_sched_generate_recv((cm5_sched_recv_t)7, sc, rc);
    else if (!strcmp(m, "alg"))
        call((cm5_sched_alg_t)99);
    else if (!strcmp(m, "counts_null"))
        cm5_sched_alltoallv(CM5_SCHED_LP, sbuf, sc, NULL, rbuf, NULL, NULL, &o,
                            NULL);
    else if (!strcmp(m, "elem0")) {
        o.elem_size = 0;
        call(CM5_SCHED_LP);
    } else if (!strcmp(m, "rdispls_discovered")) {
        size_t rd[2] = {0, 0};

        o.recv = CM5_SCHED_RECV_AM;
        cm5_sched_alltoallv(CM5_SCHED_AC, sbuf, sc, NULL, rbuf, rc, rd, &o,
                            NULL);
    } else if (!strcmp(m, "buf_null")) {
        sc[1] = rc[1] = 4;
        cm5_sched_alltoallv(CM5_SCHED_LP, NULL, sc, NULL, rbuf, rc, NULL, &o,
                            NULL);
    } else if (!strcmp(m, "self_mismatch")) {
        sc[1] = 1;
        rc[1] = 2;
        call(CM5_SCHED_LP);
    } else if (!strcmp(m, "drs_chunk")) {
        o.drs_chunk_max = 0;
        call(CM5_SCHED_DRSN);
    } else if (!strcmp(m, "drs_overflow")) {
        o.elem_size = SIZE_MAX / 2;
        sc[0] = 3;
        call(CM5_SCHED_DRSN);
    } else {
        return 0;
    }
    return 1;
}

/* Wrong calls that need both nodes; node 1 is the wrong one. */
static int bad_pairs(const char *m, int me)
{
    if (!strcmp(m, "capacity")) { /* node 1 receives 4, room for 2 */
        if (me == 0)
            sc[1] = 4;
        o.recv = CM5_SCHED_RECV_AM;
        o.recv_capacity = me == 1 ? 2 : 0;
        call(CM5_SCHED_AC);
        node0_wait(0);
    } else if (!strcmp(m, "drs_mismatch")) { /* 3 sent, 2 expected */
        if (me == 1)
            sc[0] = 3;
        else
            rc[1] = 2;
        call(CM5_SCHED_DRSN);
        node0_wait(0);
    } else if (!strcmp(m, "drs_finished")) { /* 2 sent, none expected */
        if (me == 1) {
            usleep(300000); /* node 0's call is over by then */
            sc[0] = 2;
            call(CM5_SCHED_DRSN);
        } else {
            call(CM5_SCHED_DRSN);
            node0_wait(1);
        }
    } else if (!strcmp(m, "ts_toolong")) { /* 2^28-byte elements */
        o.elem_size = (size_t)1 << 28;
        if (me == 1)
            sc[0] = 16;
        else
            rc[1] = 16;
        cm5_sched_alltoallv(CM5_SCHED_TWO_STAGE, sbuf, sc, NULL, rbuf, rc, NULL,
                            &o, NULL);
        node0_wait(0);
    } else if (!strcmp(m, "ts_mismatch")) { /* 3 sent, 2 expected */
        if (me == 1)
            sc[0] = 3;
        else
            rc[1] = 2;
        call(CM5_SCHED_TWO_STAGE);
        node0_wait(0);
    } else {
        return 0;
    }
    return 1;
}

int main(int argc, char **argv)
{
    int me = CMMD_self_address();
    const char *m = argc > 1 ? argv[1] : "";

    cm5_sched_opts_init(&o);
    memset(sbuf, 'x', sizeof(sbuf));
    if (bad_pairs(m, me))
        goto done;
    if (me == 1) {
        if (!bad_args(m))
            CMMD_error("prog_badcall: unknown mode '%s'", m);
    }
    node0_wait(0);
done:
    printf("prog_badcall: node %d of %d ok\n", me, CMMD_partition_size());
    return 0;
}
