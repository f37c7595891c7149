/*
 * prog_paths: which path each pair of nodes takes in a job on several
 * hosts (tests/cluster/paths.sh).  Every node sends MSGS active-message
 * requests to every other node, each checked where it lands and
 * answered; then every node prints one line with its cm5_stats() packet
 * counts by path (the same-host rings, libfabric).  Then every node
 * sends a block message of BYTES to every other node (cm5_msg_send; every
 * byte checked where it lands) and prints how many it read by single copy:
 *
 *   node K: rings sent S received R, fabric sent F received G
 *   node K: N messages received, C by single copy
 *
 * The script knows which nodes share a host and checks the counts: a
 * node's requests to a peer on its host and their replies take the
 * rings, to a peer on another host the fabric; messages from a peer on
 * its host are read by single copy.
 *
 *   mpirun ... prog_paths [MSGS [BYTES]]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cm5/cm5.h>

static int self, nodes;
static uint32_t *next_req; /* next sequence expected from each source */
static volatile uint32_t replies;

static uint32_t check_word(int src, int dst, uint32_t seq)
{
    return (seq * 2654435761u) ^ ((uint32_t)src << 16) ^ (uint32_t)dst;
}

static void reply_handler(uint32_t from, uint32_t seq, uint32_t check,
                          uint32_t unused)
{
    (void)unused;
    if (check != check_word((int)self, (int)from, seq))
        cm5_fatal("prog_paths", "node %d: reply %u from node %u corrupted",
                  self, seq, from);
    replies++;
}

static void request_handler(uint32_t from, uint32_t seq, uint32_t check,
                            uint32_t unused)
{
    (void)unused;
    if (check != check_word((int)from, self, seq) || seq != next_req[from])
        cm5_fatal("prog_paths",
                  "node %d: request %u from node %u, expected %u (lost, "
                  "duplicated, reordered or corrupted)",
                  self, seq, from, next_req[from]);
    next_req[from]++;
    cm5_am_reply((int)from, reply_handler, (uint32_t)self, seq, check, 0);
}

static unsigned char pattern(int src, int dst, size_t i)
{
    return (unsigned char)(i * 131u + (unsigned)src * 7u + (unsigned)dst);
}

/* Every node sends bytes to every other and receives from each. */
static uint64_t exchange(size_t bytes)
{
    unsigned char *out = malloc(bytes * (size_t)nodes);
    unsigned char *in = malloc(bytes * (size_t)nodes);
    cm5_msg_h *h = calloc(2 * (size_t)nodes, sizeof(*h));
    uint64_t got = 0;

    if (!out || !in || !h)
        cm5_fatal("prog_paths", "out of memory");
    for (int k = 0; k < nodes; k++) {
        if (k == self)
            continue;
        for (size_t i = 0; i < bytes; i++)
            out[(size_t)k * bytes + i] = pattern(self, k, i);
        if (cm5_msg_recv(k, 7, in + (size_t)k * bytes, bytes, NULL, NULL,
                         &h[2 * k]) != CM5_OK ||
            cm5_msg_send(k, 7, out + (size_t)k * bytes, bytes, 0, NULL, NULL,
                         &h[2 * k + 1]) != CM5_OK)
            cm5_fatal("prog_paths", "node %d: message to or from node %d", self,
                      k);
    }
    for (int k = 0; k < 2 * nodes; k++)
        if (h[k] && cm5_msg_wait(h[k]) != CM5_OK)
            cm5_fatal("prog_paths", "node %d: message %d failed", self, k);
    for (int k = 0; k < nodes; k++) {
        if (k == self)
            continue;
        for (size_t i = 0; i < bytes; i++)
            if (in[(size_t)k * bytes + i] != pattern(k, self, i))
                cm5_fatal("prog_paths",
                          "node %d: byte %zu from node %d is wrong", self, i,
                          k);
        got++;
        cm5_msg_free(h[2 * k]);
        cm5_msg_free(h[2 * k + 1]);
    }
    free(out);
    free(in);
    free(h);
    return got;
}

int main(int argc, char **argv)
{
    long msgs = argc > 1 ? atol(argv[1]) : 1000;
    long bytes = argc > 2 ? atol(argv[2]) : 100000;
    uint64_t got;
    cm5_stats_t st;

    if (cm5_init(NULL) != CM5_OK)
        return 1;
    self = cm5_rank();
    nodes = cm5_size();
    next_req = calloc((size_t)nodes, sizeof(*next_req));
    if (!next_req || msgs < 1 || bytes < 1)
        cm5_fatal("prog_paths", "bad arguments or out of memory");
    cm5_barrier();
    for (uint32_t i = 0; i < (uint32_t)msgs; i++)
        for (int k = 1; k < nodes; k++) {
            int to = (self + k) % nodes;

            if (cm5_am_request(to, request_handler, (uint32_t)self, i,
                               check_word(self, to, i), 0) != CM5_OK)
                cm5_fatal("prog_paths", "node %d: request to node %d failed",
                          self, to);
        }
    while (replies < (uint32_t)msgs * (uint32_t)(nodes - 1))
        cm5_poll();
    cm5_barrier();
    for (int k = 0; k < nodes; k++)
        if (k != self && next_req[k] != (uint32_t)msgs)
            cm5_fatal("prog_paths", "node %d: %u of %ld requests from node %d",
                      self, next_req[k], msgs, k);
    cm5_stats(&st);
    printf("node %d: rings sent %llu received %llu, fabric sent %llu "
           "received %llu\n",
           self, (unsigned long long)st.shm_sent,
           (unsigned long long)st.shm_received,
           (unsigned long long)st.fabric_sent,
           (unsigned long long)st.fabric_received);
    fflush(stdout);
    cm5_barrier();
    got = exchange((size_t)bytes);
    cm5_stats(&st);
    printf("node %d: %llu messages received, %llu by single copy\n", self,
           (unsigned long long)got, (unsigned long long)st.cma_messages);
    fflush(stdout);
    cm5_barrier();
    free(next_req);
    cm5_finalize();
    return 0;
}
