/*
 * liu2002 A1 (ALGORITHMS.md 3.1): direct exchange in the shift schedule.
 * In step s = 1..p-1 node j sends its message for (j + s) mod p and
 * receives the one from (j - s) mod p, with one combined
 * CMMD_send_and_receive when both directions carry data; an empty
 * direction is skipped (the receiver knows it from recvcounts).  The
 * self copy (step p) is the dispatcher's.
 */
#include <limits.h>

#include <cm/cmmd.h>

#include "liu.h"

static int a1_len(cm5s_xfer_t *x, size_t n, int peer, const char *dir)
{
    if (n > (size_t)INT_MAX / x->esz)
        cm5s_fatal(x, "%zu elements %s node %d exceed CMMD's int length", n,
                   dir, peer);
    return (int)(n * x->esz);
}

/* A node whose recvcounts miss a message would leave its sender blocked:
 * wait for everyone, and stop the job naming the message if one of this
 * call's messages shows up meanwhile. */
static void a1_strays(cm5s_xfer_t *x, int tag)
{
    CMMD_sync_with_nodes_start();
    while (!CMMD_sync_done()) {
        if (CMMD_msg_pending(CMMD_ANY_NODE, tag))
            cm5s_fatal(x,
                       "node %d sends node %d a message of %d bytes, but "
                       "recvcounts[%d] is 0 there",
                       CMMD_msg_sender(), x->me, CMMD_bytes_received(),
                       CMMD_msg_sender());
        CMAML_poll(); /* neither test above gives the CPU away */
    }
    CMMD_sync_with_nodes_finish();
}

/* liu2002 Table 4: A1 stages nothing, its buffers are the user's. */
static void a1_buffers(cm5s_xfer_t *x)
{
    int j;

    for (j = 0; j < x->p; j++) {
        x->st->sbuf_elems += x->scount[j];
        x->st->rbuf_elems += x->rcount[j];
    }
}

void cm5s_run_a1(cm5s_xfer_t *x)
{
    static unsigned seq;
    int tag = cm5s_liu_tag(1, seq++, 0), s, to, from, slen, rlen;
    char *sb, *rb;

    for (s = 1; s < x->p; s++) {
        to = (x->me + s) % x->p;
        from = (x->me - s + x->p) % x->p;
        slen = a1_len(x, x->scount[to], to, "to");
        rlen = a1_len(x, x->rcount[from], from, "from");
        sb = (char *)x->sbuf + x->sdispl[to] * x->esz;
        rb = x->rbuf + x->rdispl[from] * x->esz;
        if (slen && rlen)
            CMMD_send_and_receive(from, tag, rb, rlen, to, tag, sb, slen);
        else if (slen)
            CMMD_send_block(to, tag, sb, slen);
        else if (rlen)
            CMMD_receive_block(from, tag, rb, rlen);
        if (rlen && CMMD_bytes_received() != rlen)
            cm5s_fatal(x,
                       "node %d sent %d bytes to node %d, which expects %d "
                       "(recvcounts[%d] = %zu)",
                       from, CMMD_bytes_received(), x->me, rlen, from,
                       x->rcount[from]);
        if (slen) {
            x->st->msgs_sent++;
            x->st->bytes_sent += (uint64_t)slen;
        }
        if (rlen) {
            x->st->msgs_recv++;
            x->st->bytes_recv += (uint64_t)rlen;
        }
    }
    x->st->phases = (uint32_t)(x->p - 1);
    a1_buffers(x);
    a1_strays(x, tag);
}
