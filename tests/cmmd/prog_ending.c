/*
 * prog_ending: jobs for tests/cmmd/leftovers.sh (issue 23), which ends
 * them in every way a job can end and then looks for anything left
 * behind.  Every node first prints "prog_ending: node R pid P" (the script
 * finds the process of a node by it).
 *
 *   prog_ending flood S
 *                S seconds of active messages: each node sends requests
 *                to every other in turn, their handlers reply, and every
 *                reply is counted, with a sync every 256 requests
 *   prog_ending barrier S
 *                S seconds of CMMD_sync_with_nodes, a reduction every 64
 *   prog_ending finalize S
 *                every node but 0 prints "prog_ending: node R finalizing"
 *                and returns from main (the exit barrier); node 0 sleeps
 *                S seconds first, so the others wait in finalize
 *   prog_ending abort V MS
 *                barriers; node V calls abort() after MS milliseconds
 *   prog_ending oom V CGROUP
 *                node V moves itself into the memory cgroup CGROUP (its
 *                cgroup.procs file) and touches memory, 16 MiB at a
 *                time, until the OOM killer ends it; the others sync
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cm/cmmd.h>

#include "t_util.h"

static volatile int replies;

static void on_reply(int a, int b, int c, int d)
{
    (void)a;
    (void)b;
    (void)c;
    (void)d;
    replies++;
}

static void on_request(int from, int b, int c, int d)
{
    CMAML_reply(from, on_reply, b, c, d, 0);
}

static void flood(double secs)
{
    double t0 = t_now();
    int sent = 0, done = 0;

    while (!done) {
        for (int i = 0; i < 256; i++) {
            int to = (t_self + 1 + sent % (t_nodes - 1)) % t_nodes;

            CMAML_request(to, on_request, t_self, sent, 0, 0);
            sent++;
        }
        T_POLL_UNTIL(replies == sent, 60, "replies %d of %d", replies, sent);
        done = CMMD_reduce_int(t_now() - t0 > secs, CMMD_combiner_max);
    }
}

static void barriers(double secs, int victim, double abort_s)
{
    double t0 = t_now();
    int done = 0;

    while (!done) {
        for (int i = 0; i < 64; i++) {
            if (t_self == victim && t_now() - t0 >= abort_s) {
                printf("prog_ending: node %d aborts\n", t_self);
                fflush(stdout);
                abort();
            }
            CMMD_sync_with_nodes();
        }
        done = CMMD_reduce_int(t_now() - t0 > secs, CMMD_combiner_max);
    }
}

static void oom(int victim, const char *cgroup)
{
    if (t_self == victim) {
        char path[4096];
        FILE *f;

        snprintf(path, sizeof(path), "%s/cgroup.procs", cgroup);
        f = fopen(path, "w");
        T_CHECK(f != NULL, "cannot open %s", path);
        fprintf(f, "%d\n", (int)getpid());
        T_CHECK(fclose(f) == 0, "cannot join %s", cgroup);
        printf("prog_ending: node %d in %s\n", t_self, cgroup);
        fflush(stdout);
        for (;;) {
            char *p = malloc(16 << 20);

            T_CHECK(p != NULL, "malloc failed before the OOM killer came");
            memset(p, 1, 16 << 20);
        }
    }
    barriers(600, -1, 0);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";

    t_init("prog_ending");
    printf("prog_ending: node %d pid %d\n", t_self, (int)getpid());
    fflush(stdout);
    CMMD_sync_with_nodes();
    if (strcmp(mode, "flood") == 0 && argc > 2) {
        flood(atof(argv[2]));
    } else if (strcmp(mode, "barrier") == 0 && argc > 2) {
        barriers(atof(argv[2]), -1, 0);
    } else if (strcmp(mode, "finalize") == 0 && argc > 2) {
        if (t_self == 0)
            t_sleep(atof(argv[2]));
        else
            printf("prog_ending: node %d finalizing\n", t_self);
    } else if (strcmp(mode, "abort") == 0 && argc > 3) {
        barriers(600, atoi(argv[2]), atof(argv[3]) / 1000.0);
    } else if (strcmp(mode, "oom") == 0 && argc > 3) {
        oom(atoi(argv[2]), argv[3]);
    } else {
        fprintf(stderr, "usage: prog_ending flood|barrier|finalize S, "
                        "abort V MS, oom V CGROUP\n");
        return 2;
    }
    t_done();
    return 0;
}
