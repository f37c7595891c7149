/*
 * recvl from sendl: Generate_Recv with active messages (wang1993 Fig. 1)
 * and the concatenate method (wang1993 section 3), which Table 3 compares.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cm/cmmd.h>

#include "sched_internal.h"

/* State of the one Generate_Recv in progress on this node (the calls are
 * collective and the vector sum of step 2 separates consecutive calls:
 * nobody sends step 3 of call k+1 before everyone finished step 4 of k). */
static size_t *gr_recvl;
static volatile int gr_left;

/* Step 3's handler: node src sends us size = hi:lo elements. */
static void gr_handler(int src, unsigned lo, unsigned hi)
{
    gr_recvl[src] = (size_t)(((uint64_t)hi << 32) | lo);
    gr_left--;
}

void cm5s_recv_am(int p, int me, const size_t *sendl, size_t *recvl)
{
    int *mask = calloc((size_t)p, sizeof(int));
    int j, irq;

    if (!mask)
        cm5_fatal("cm5_sched_generate_recv", "out of memory for %d nodes", p);
    /* Ready before the vector sum: a node that has its result may send
     * its step-3 message while we still take part in the sum. */
    memset(recvl, 0, (size_t)p * sizeof(size_t));
    recvl[me] = sendl[me];
    gr_recvl = recvl;
    gr_left = 0;
    /* 1-2: how many nodes send to each node (a vector sum). */
    for (j = 0; j < p; j++)
        mask[j] = (j != me && sendl[j] > 0);
    CMMD_reduce_v(mask, mask, CMMD_combiner_add, (int)sizeof(int), p);
    irq = CMAML_disable_interrupts(); /* the handler also updates gr_left */
    gr_left += mask[me];
    if (irq)
        CMAML_enable_interrupts();
    free(mask);
    /* 3: one single-packet active message per destination. */
    for (j = 0; j < p; j++) {
        uint64_t n = sendl[j];

        if (j != me && n > 0)
            CMAML_request(j, gr_handler, me, (unsigned)(n & 0xffffffffu),
                          (unsigned)(n >> 32));
    }
    /* 4: poll until every sender has told us. */
    while (gr_left > 0)
        CMAML_poll();
    gr_recvl = NULL;
}

/* The rows are 32-bit counts, as the CM-5's ints were (wang1993 Table
 * 3's concatenate moved n^2 four-byte counts; doc/model.md's cnb is
 * fitted on it): a count of 2^32 elements or more stops the job. */
void cm5s_recv_concat(int p, int me, const size_t *sendl, size_t *recvl)
{
    uint32_t *com = malloc((size_t)p * ((size_t)p + 1) * sizeof(uint32_t));
    uint32_t *row;
    int i;

    if (!com)
        cm5_fatal("cm5_sched_generate_recv",
                  "out of memory for the %dx%d matrix", p, p);
    row = com + (size_t)p * p;
    for (i = 0; i < p; i++) {
        if (sendl[i] > UINT32_MAX)
            cm5_fatal("cm5_sched_generate_recv",
                      "recv=concat: node %d sends node %d %zu elements, "
                      "more than a 32-bit count of the concatenated matrix "
                      "holds (recv=am or given take any count)",
                      me, i, sendl[i]);
        row[i] = (uint32_t)sendl[i];
    }
    /* Every node gets every row: the whole matrix (n^2 memory). */
    CMMD_concat_with_nodes(row, com, (int)(p * sizeof(uint32_t)));
    for (i = 0; i < p; i++)
        recvl[i] = com[(size_t)i * p + me];
    free(com);
}
