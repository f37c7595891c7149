/*
 * am_flood: every node floods active-message requests at other nodes; each
 * request handler checks the message and replies.  Every request and reply
 * carries a per-pair sequence number, so a lost, duplicated or reordered
 * message is caught where it lands.  Node 0 prints what happened and how
 * long it took.
 *
 * With -t SECONDS the flood is repeated in rounds of MSGS_PER_NODE until
 * SECONDS have passed (bench/soak.sh uses it for a long-lived job): each
 * round is checked completely (every sequence number, and node 0 checks the
 * round's totals) before the next starts.
 *
 *   cm5run -n 32 examples/am_flood [-m MSGS_PER_NODE] [-p all|to0|random]
 *                                  [-t SECONDS]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cm/cmmd.h>
#include <cm5/cm5.h>

enum { PAT_ALL, PAT_TO0, PAT_RANDOM };

static int self, nodes;
static unsigned *next_req;   /* next sequence expected from each source */
static unsigned *next_rep;   /* next reply sequence expected from each dest */
static unsigned *sent_to;    /* requests sent to each destination */
static volatile int replies; /* replies this round */
static volatile unsigned requests; /* requests handled, all rounds */
static volatile int totals[3], reports;
static int rounds_done; /* completed rounds, each of msgs per sender */

static unsigned check_word(int src, int dst, unsigned seq)
{
    return (seq * 2654435761u) ^ ((unsigned)src << 16) ^ (unsigned)dst;
}

static void reply_handler(int from, unsigned seq, unsigned check, int d)
{
    (void)d;
    if (check != check_word(self, from, seq) || seq != next_rep[from])
        CMMD_error("am_flood: node %d got reply %u from node %d, expected "
                   "%u (lost, duplicated or corrupted)",
                   self, seq, from, next_rep[from]);
    next_rep[from]++;
    replies++;
}

static void request_handler(int from, unsigned seq, unsigned check, int d)
{
    (void)d;
    if (check != check_word(from, self, seq) || seq != next_req[from])
        CMMD_error("am_flood: node %d got request %u from node %d, "
                   "expected %u (lost, duplicated or corrupted)",
                   self, seq, from, next_req[from]);
    next_req[from]++;
    requests++;
    CMAML_reply(from, (CMAML_handler_t)reply_handler, self, seq, check, 0);
}

static void report_handler(int req, int rep, int unused, int d)
{
    (void)unused, (void)d;
    totals[0] += req;
    totals[1] += rep;
    reports++;
}

/* Destination of message i of node src (deterministic, so every node can
 * compute what it must receive). */
static int dest(int pattern, int src, int i)
{
    unsigned x;

    switch (pattern) {
    case PAT_TO0:
        return 0;
    case PAT_RANDOM:
        x = ((unsigned)src * 7919u + (unsigned)i) * 2654435761u;
        return (int)((x >> 8) % (unsigned)nodes);
    default:
        return (src + 1 + i % (nodes > 1 ? nodes - 1 : 1)) % nodes;
    }
}

static int senders_of(int pattern)
{
    return pattern == PAT_TO0 ? nodes - 1 : nodes;
}

static int is_sender(int pattern, int n)
{
    return pattern != PAT_TO0 || n != 0 || nodes == 1;
}

static void verify(int pattern, int msgs)
{
    for (int src = 0; src < nodes; src++) {
        unsigned want = 0;

        for (int i = 0; is_sender(pattern, src) && i < msgs; i++)
            want += dest(pattern, src, i) == self;
        want *= (unsigned)rounds_done;
        if (next_req[src] != want)
            CMMD_error("am_flood: node %d received %u requests from node "
                       "%d, expected %u",
                       self, next_req[src], src, want);
        if (next_rep[src] != sent_to[src])
            CMMD_error("am_flood: node %d received %u replies from node %d, "
                       "expected %u",
                       self, next_rep[src], src, sent_to[src]);
    }
}

static int parse_pattern(const char *s)
{
    if (strcmp(s, "all") == 0)
        return PAT_ALL;
    if (strcmp(s, "to0") == 0)
        return PAT_TO0;
    if (strcmp(s, "random") == 0)
        return PAT_RANDOM;
    CMMD_error("am_flood: unknown pattern '%s' (all, to0, random)", s);
}

/* One round: every sender sends msgs requests, then every node polls
 * until the whole job has had its replies.  The sequence numbers go on
 * across rounds; destinations repeat (i restarts at 0). */
static void flood_round(int pattern, int msgs)
{
    int mine = 0;

    /* Every reply of the last round arrived before its barrier, and
     * replies answer only our own requests: safe to restart the count. */
    replies = 0;
    for (int i = 0; is_sender(pattern, self) && i < msgs; i++, mine++) {
        int d = dest(pattern, self, i);
        unsigned seq = sent_to[d]++;

        CMAML_request(d, (CMAML_handler_t)request_handler, self, seq,
                      check_word(self, d, seq), 0);
    }
    CMAML_poll_while_lt(&replies, mine);
    /* The others may still be sending to us: poll while the barrier
     * completes.  (A node waiting in CMMD_sync_with_nodes runs no
     * handlers, as on the CM-5, whose control network was a network of
     * its own.)  Once every node has entered it, every request has had
     * its reply. */
    CMMD_sync_with_nodes_start();
    while (!CMMD_sync_done())
        CMAML_poll();
    CMMD_sync_with_nodes_finish();
    rounds_done++;
    verify(pattern, msgs);
}

/* Node 0 checks that this round's requests and replies, summed over the
 * job, are exactly what was sent: each node reports its counts since the
 * last round. */
static void check_round_totals(int pattern, int msgs)
{
    static unsigned last_req; /* unsigned: the difference survives wrap */
    long total = (long)senders_of(pattern) * msgs;

    CMAML_request(0, (CMAML_handler_t)report_handler,
                  (int)(requests - last_req), replies, 0, 0);
    last_req = requests;
    if (self != 0)
        return;
    CMAML_poll_while_lt(&reports, nodes);
    if (totals[0] != total || totals[1] != total)
        CMMD_error("am_flood: round %d: %d requests and %d replies arrived, "
                   "expected %ld of each",
                   rounds_done, totals[0], totals[1], total);
    totals[0] = totals[1] = 0;
    reports = 0;
}

/* Whether to start another round: every node gets the same answer (the
 * OR of "my clock says time is up" over the job). */
static int time_is_up(double t0, double secs)
{
    return CMMD_reduce_int(cm5_wtime() - t0 >= secs, CMMD_combiner_max);
}

int main(int argc, char **argv)
{
    int msgs = 2000, pattern = PAT_ALL, opt;
    double t0, t, secs = 0;

    self = CMMD_self_address();
    nodes = CMMD_partition_size();
    while ((opt = getopt(argc, argv, "m:p:t:h")) != -1) {
        if (opt == 'm' && atoi(optarg) >= 0)
            msgs = atoi(optarg);
        else if (opt == 'p')
            pattern = parse_pattern(optarg);
        else if (opt == 't' && atof(optarg) >= 0)
            secs = atof(optarg);
        else
            CMMD_error("usage: %s [-m MSGS_PER_NODE] [-p all|to0|random] "
                       "[-t SECONDS]",
                       argv[0]);
    }
    next_req = calloc((size_t)nodes, sizeof(unsigned));
    next_rep = calloc((size_t)nodes, sizeof(unsigned));
    sent_to = calloc((size_t)nodes, sizeof(unsigned));
    if (!next_req || !next_rep || !sent_to)
        CMMD_error("am_flood: out of memory");
    CMMD_fset_io_mode(stdout, CMMD_independent);
    CMMD_sync_with_nodes();
    t0 = cm5_wtime();
    do {
        flood_round(pattern, msgs);
        check_round_totals(pattern, msgs);
    } while (secs > 0 && !time_is_up(t0, secs));
    t = cm5_wtime() - t0;
    if (self == 0) {
        long total = (long)senders_of(pattern) * msgs * rounds_done;

        printf("am_flood: %d nodes on provider %s, pattern %s\n", nodes,
               cm5_provider(),
               pattern == PAT_ALL   ? "all"
               : pattern == PAT_TO0 ? "to0"
                                    : "random");
        if (secs > 0)
            printf("  %d rounds of %ld requests\n", rounds_done,
                   (long)senders_of(pattern) * msgs);
        printf("  %ld requests and %ld replies of 16 bytes, each checked in "
               "order: none lost, duplicated or corrupted\n",
               total, total);
        printf("  time %.3f s, %.0f active messages/s\n", t, 2.0 * total / t);
    }
    CMMD_sync_with_nodes();
    free(next_req);
    free(next_rep);
    free(sent_to);
    return 0;
}
