/*
 * prog_shmpath: which path carried the packets (the same-host fast path,
 * CM5_SHM, or libfabric), from cm5_stats().
 *
 *   paths shm|fabric [irq]
 *             every node sends ROUNDS requests to every other node
 *             (each answered by a reply) and one CMMD message
 *             to the next node; then checks that every packet it sent
 *             and received took the path named (the other path's
 *             counters are exactly 0) and that the requests and replies
 *             are among them.  With shm, the node's ring segment has no
 *             name in /dev/shm any more (every peer mapped it), so a
 *             node killed from now on leaves none.  With irq, interrupts
 *             are enabled and the node never polls: it computes while its
 *             handlers run from interrupts (a node in nanosleep, inside
 *             libc, refuses them).
 *   kill      as "paths shm", then node 1 kills itself with SIGKILL
 *             while the others wait in a barrier: the job fails, naming
 *             it, and (the script checks) leaves nothing behind.
 */
#include <dirent.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cm5/cm5.h>

#include "t_util.h"

#define ROUNDS 500

static volatile int replies, requests;

static void reply_handler(int from)
{
    (void)from;
    replies++;
}

static void request_handler(int from)
{
    requests++;
    CMAML_reply(from, (CMAML_handler_t)reply_handler, CMMD_self_address());
}

/* Wait until cond: polling, or computing while interrupts run handlers. */
#define WAIT_UNTIL(cond, irq, what)                                            \
    do {                                                                       \
        double t0_ = t_now();                                                  \
        while (!(cond)) {                                                      \
            T_CHECK(t_now() - t0_ < 60, "%s: timed out", what);                \
            if (irq)                                                           \
                t_compute(0.0002);                                             \
            else                                                               \
                CMMD_poll();                                                   \
        }                                                                      \
    } while (0)

static void traffic(int irq)
{
    int want = ROUNDS * (t_nodes - 1);
    uint32_t out[64], in[64];
    int next = (t_self + 1) % t_nodes, prev = (t_self + t_nodes - 1) % t_nodes;

    for (int r = 0; r < ROUNDS; r++)
        for (int k = 0; k < t_nodes; k++)
            if (k != t_self)
                CMAML_request(k, (CMAML_handler_t)request_handler, t_self);
    WAIT_UNTIL(replies >= want, irq, "replies");
    WAIT_UNTIL(requests >= want, irq, "requests");
    T_EQ(replies, want, "replies received");
    T_EQ(requests, want, "requests handled");
    for (int i = 0; i < 64; i++)
        out[i] = t_hash((uint32_t)t_self, (uint32_t)i);
    if (t_nodes > 1) {
        CMMD_send_and_receive(prev, 7, in, sizeof(in), next, 7, out,
                              sizeof(out));
        for (int i = 0; i < 64; i++)
            T_EQ(in[i], t_hash((uint32_t)prev, (uint32_t)i),
                 "word of the message");
    }
    CMMD_sync_with_nodes();
}

/* Names in /dev/shm of this node's ring segment (cm5-KEY-RANK-ring). */
static int ring_files(void)
{
    const char *key = getenv("CM5_JOB_KEY");
    char name[96];
    struct dirent *de;
    DIR *d = opendir("/dev/shm");
    int n = 0;

    T_CHECK(key && d, "no CM5_JOB_KEY or /dev/shm");
    snprintf(name, sizeof(name), "cm5-%s-%d-ring", key, t_self);
    while ((de = readdir(d)))
        n += strcmp(de->d_name, name) == 0;
    closedir(d);
    return n;
}

static void check_paths(int shm)
{
    cm5_stats_t st;
    uint64_t want = 2ull * ROUNDS * (uint64_t)(t_nodes - 1);

    cm5_stats(&st);
    printf("prog_shmpath: node %d: shm %llu sent %llu received, fabric "
           "%llu sent %llu received\n",
           t_self, (unsigned long long)st.shm_sent,
           (unsigned long long)st.shm_received,
           (unsigned long long)st.fabric_sent,
           (unsigned long long)st.fabric_received);
    if (shm) {
        T_EQ(st.fabric_sent, 0, "packets sent through libfabric");
        T_EQ(st.fabric_received, 0, "packets received through libfabric");
        T_CHECK(st.shm_sent >= want && st.shm_received >= want,
                "%llu/%llu packets through the rings, expected at least "
                "%llu each way",
                (unsigned long long)st.shm_sent,
                (unsigned long long)st.shm_received, (unsigned long long)want);
        T_EQ(ring_files(), 0, "ring segments still named in /dev/shm");
    } else {
        T_EQ(st.shm_sent, 0, "packets sent through the rings");
        T_EQ(st.shm_received, 0, "packets received through the rings");
        T_CHECK(st.fabric_sent >= want && st.fabric_received >= want,
                "%llu/%llu packets through libfabric, expected at least "
                "%llu each way",
                (unsigned long long)st.fabric_sent,
                (unsigned long long)st.fabric_received,
                (unsigned long long)want);
    }
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    int irq = argc > 3 && strcmp(argv[3], "irq") == 0;

    t_init("prog_shmpath");
    if (irq)
        CMAML_enable_interrupts();
    if (strcmp(mode, "paths") == 0 && argc > 2) {
        traffic(irq);
        check_paths(strcmp(argv[2], "shm") == 0);
    } else if (strcmp(mode, "kill") == 0) {
        traffic(0);
        check_paths(1);
        fflush(stdout);
        CMMD_sync_with_nodes(); /* every node has said so */
        if (t_self == 1)
            raise(SIGKILL);
        CMMD_sync_with_nodes(); /* never returns: node 1 is gone */
        T_CHECK(0, "the barrier returned without node 1");
    } else {
        T_CHECK(0, "usage: prog_shmpath paths shm|fabric [irq] | kill");
    }
    if (irq)
        CMAML_disable_interrupts();
    t_done();
    return 0;
}
