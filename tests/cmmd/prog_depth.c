/*
 * prog_depth: the progress engine never recurses (issue 14, fault 5).
 *
 * Every node sends MSGS messages to every other node and receives as
 * many; each completion callback (sender's and receiver's) sends REQS
 * active-message requests to the next node.  Run with a window of 2
 * credits (CM5_AM_CREDITS=2), the callbacks' requests run out of credits
 * and must wait.  A wait that ran the deferred callbacks again nested
 * without bound (each waiting callback running the next one); now a wait
 * inside a send polls the network only, and deferred work runs at the
 * outermost progress.  Checks, from cm5_stats(): progress nests at most
 * 3 deep (a poll; a send's wait inside what it runs; a reply's wait
 * inside a request handler), deferred work never nests, and no step of
 * it (a callback included) takes seconds.  Prints the figures.
 */
#include <stdint.h>

#include <cm5/cm5.h>

#include "t_util.h"

#define MSGS 100
#define REQS 4
#define LEN 64

static volatile int handled, done;

static void req_handler(uint32_t a0, uint32_t a1, uint32_t a2, uint32_t a3)
{
    (void)a0, (void)a1, (void)a2, (void)a3;
    handled++;
}

static void on_done(cm5_msg_h m, void *arg)
{
    cm5_msg_info_t info;

    (void)arg;
    cm5_msg_info(m, &info);
    T_CHECK(info.status == CM5_OK, "message failed: %d", info.status);
    for (int r = 0; r < REQS; r++)
        T_CHECK(cm5_am_request((t_self + 1) % t_nodes, req_handler, 0, 0, 0,
                               0) == CM5_OK,
                "request from a completion callback");
    done++;
    cm5_msg_free(m);
}

static int all_done(void *arg)
{
    (void)arg;
    return done == 2 * MSGS * (t_nodes - 1);
}

static int all_handled(void *arg)
{
    (void)arg;
    return handled == REQS * 2 * MSGS * (t_nodes - 1);
}

int main(int argc, char **argv)
{
    static char sbuf[LEN], rbuf[64][MSGS][LEN];
    cm5_msg_h m;
    cm5_stats_t st;

    (void)argc, (void)argv;
    t_prog = "prog_depth";
    t_self = cm5_rank();
    t_nodes = cm5_size();
    T_CHECK(t_nodes <= 64, "at most 64 nodes");
    for (int p = 0; p < t_nodes; p++)
        for (int i = 0; p != t_self && i < MSGS; i++)
            T_CHECK(cm5_msg_recv(p, i, rbuf[p][i], LEN, on_done, NULL, &m) ==
                        CM5_OK,
                    "receive");
    for (int i = 0; i < MSGS; i++)
        for (int p = 0; p < t_nodes; p++)
            if (p != t_self)
                T_CHECK(cm5_msg_send(p, i, sbuf, LEN, 0, on_done, NULL, &m) ==
                            CM5_OK,
                        "send");
    cm5_wait_until(all_done, NULL);
    cm5_wait_until(all_handled, NULL);
    cm5_barrier();
    cm5_stats(&st);
    printf("prog_depth: node %d progress depth %llu, deferred depth %llu, "
           "longest deferred step %llu us, %llu credit waits\n",
           t_self, (unsigned long long)st.progress_depth_max,
           (unsigned long long)st.deferred_depth_max,
           (unsigned long long)st.deferred_max_us,
           (unsigned long long)st.credit_waits);
    fflush(stdout);
    T_CHECK(st.credit_waits > 0, "no send waited for credits");
    T_CHECK(st.progress_depth_max <= 3, "progress nested %llu deep",
            (unsigned long long)st.progress_depth_max);
    T_CHECK(st.deferred_depth_max <= 1, "deferred work nested %llu deep",
            (unsigned long long)st.deferred_depth_max);
    T_CHECK(st.deferred_max_us < 2000000, "a deferred step took %llu us",
            (unsigned long long)st.deferred_max_us);
    printf("prog_depth: node %d of %d ok\n", t_self, t_nodes);
    return 0;
}
