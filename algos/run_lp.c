/*
 * LP, linear permutation (wang1993 Fig. 3, ranka1995 Fig. 3;
 * ALGORITHMS.md 1.2, 2.1): in step k node i exchanges with i XOR k,
 * k = 1 .. 2^ceil(log2 p) - 1, skipping partners >= p ([AMB-2]); or, with
 * lp_shift, sends to (i + k) mod p and receives from (i - k) mod p,
 * k = 1 .. p - 1.  Only nonzero messages move ([AMB-1]: the partner's
 * entries); lp_barrier adds ranka1995's barrier after every step.
 */
#include "run_single.h"

static unsigned lp_seq;

/* One step: send n_s elements to `to`, receive n_r from `from`. */
static void lp_step(cm5s_xfer_t *x, int tag, int to, int from)
{
    size_t ns = to >= 0 ? x->scount[to] : 0;
    size_t nr = from >= 0 ? x->rcount[from] : 0;
    int ls = ns ? single_len(x, ns, to, "to") : 0;
    int lr = nr ? single_len(x, nr, from, "from") : 0;
    void *sb = ns ? (void *)(x->sbuf + x->sdispl[to] * x->esz) : NULL;
    void *rb = nr ? x->rbuf + x->rdispl[from] * x->esz : NULL;

    if (ns && nr)
        CMMD_send_and_receive(from, tag, rb, lr, to, tag, sb, ls);
    else if (ns)
        CMMD_send_block(to, tag, sb, ls);
    else if (nr)
        CMMD_receive_block(from, tag, rb, lr);
    if (nr) {
        single_check(x, CMMD_bytes_received(), lr, from);
        x->st->msgs_recv++;
        x->st->bytes_recv += (uint64_t)lr;
    }
    if (ns) {
        x->st->msgs_sent++;
        x->st->bytes_sent += (uint64_t)ls;
    }
}

void cm5s_run_lp(cm5s_xfer_t *x)
{
    int p = x->p, me = x->me, k, steps, pow2 = 1;
    unsigned seq = lp_seq++;

    while (pow2 < p)
        pow2 <<= 1;
    steps = x->o->lp_shift ? p - 1 : pow2 - 1;
    for (k = 1; k <= steps; k++) {
        int tag = single_tag(CM5_SCHED_LP, seq, (unsigned)k);

        if (x->o->lp_shift) {
            lp_step(x, tag, (me + k) % p, (me - k + p) % p);
        } else if ((me ^ k) < p) {
            lp_step(x, tag, me ^ k, me ^ k);
        }
        if (x->o->lp_barrier)
            CMMD_sync_with_nodes();
    }
    x->st->phases = (uint32_t)steps;
}
