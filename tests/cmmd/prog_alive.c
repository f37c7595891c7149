/*
 * prog_alive: the liveness check (CM5_PEER_TIMEOUT), written as legacy
 * code would.  Every node first prints "prog_alive: node R pid P" (the
 * script finds the process of a node by it) and synchronizes.
 *
 *   prog_alive stop V
 *                node V computes for 60 s without a call into CMMD while
 *                the others wait in CMMD_sync_with_nodes; the script stops
 *                node V (SIGSTOP): the job must end, reported by node V+1
 *   prog_alive compute V S
 *                node V (every node if V is -1) computes for S seconds
 *                without a call into CMMD, then all synchronize: nobody
 *                may be reported, the job ends well
 *   prog_alive late V S
 *                node V sleeps S seconds before it returns from main; the
 *                others wait for it in the exit barrier
 *   prog_alive early V S
 *                every node but V sleeps S seconds before it returns from
 *                main; node V waits for them in the exit barrier
 *   prog_alive exit V
 *                node V exits with status 3 while the others wait in
 *                CMMD_sync_with_nodes: cm5run reports it, nobody else
 *   prog_alive resize S
 *                CMMD_reset_partition_size(ceil(N/2)): the nodes above
 *                leave (exit 0); the rest sleep S seconds, synchronize and
 *                end well: nobody reports the nodes that left
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cm/cmmd.h>

#include "t_util.h"

static int arg_int(int argc, char **argv, int i, int dflt)
{
    return argc > i ? atoi(argv[i]) : dflt;
}

static void test_resize(double secs)
{
    int size = t_nodes - t_nodes / 2;

    CMMD_reset_partition_size(size);
    if (t_self >= size) {
        printf("prog_alive: node %d left the partition\n", t_self);
        fflush(stdout);
        exit(0);
    }
    t_nodes = size;
    t_sleep(secs);
    CMMD_sync_with_nodes();
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "compute";
    int v = arg_int(argc, argv, 2, 0);
    double secs = argc > 3 ? atof(argv[3]) : 3;

    t_init("prog_alive");
    printf("prog_alive: node %d pid %d\n", t_self, (int)getpid());
    fflush(stdout);
    CMMD_sync_with_nodes();
    if (strcmp(mode, "stop") == 0) {
        if (t_self == v)
            t_compute(60);
        CMMD_sync_with_nodes();
        T_CHECK(0, "the job went on after node %d was stopped", v);
    } else if (strcmp(mode, "compute") == 0) {
        if (t_self == v || v < 0)
            t_compute(secs);
        CMMD_sync_with_nodes();
    } else if (strcmp(mode, "late") == 0) {
        if (t_self == v)
            t_sleep(secs);
    } else if (strcmp(mode, "early") == 0) {
        if (t_self != v)
            t_sleep(secs);
    } else if (strcmp(mode, "exit") == 0) {
        if (t_self == v)
            exit(3);
        CMMD_sync_with_nodes();
        T_CHECK(0, "the job went on after node %d exited", v);
    } else if (strcmp(mode, "resize") == 0) {
        test_resize(argc > 2 ? atof(argv[2]) : 3);
    } else {
        T_CHECK(0, "unknown mode %s", mode);
    }
    t_done();
    return 0;
}
