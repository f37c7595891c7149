/*
 * cm5_stats_preload: print every node's cm5_stats() when it exits, for
 * the profile of doc/bench.md, without changing the program measured:
 *
 *   cc -shared -fPIC -I am/api -o cm5_stats_preload.so \
 *       bench/cm5_stats_preload.c -L _build/.libs -lcm5fab
 *   LD_PRELOAD=$PWD/cm5_stats_preload.so cm5run -n 2 examples/am_pingpong
 *
 * One line per node on stderr: "cm5_stats node R requests_sent N ...".
 */
#include <inttypes.h>
#include <stdio.h>

#include <cm5/cm5.h>

__attribute__((destructor)) static void print_stats(void)
{
    cm5_stats_t s;

    cm5_stats(&s);
    fprintf(stderr,
            "cm5_stats node %d requests_sent %" PRIu64 " replies_sent %" PRIu64
            " requests_handled %" PRIu64 " replies_handled %" PRIu64
            " internal_handled %" PRIu64 " credit_waits %" PRIu64
            " sleeps %" PRIu64 " progress_depth_max %" PRIu64 "\n",
            cm5_rank(), s.requests_sent, s.replies_sent, s.requests_handled,
            s.replies_handled, s.internal_handled, s.credit_waits, s.sleeps,
            s.progress_depth_max);
}
