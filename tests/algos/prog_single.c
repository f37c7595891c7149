/*
 * AC when CMMD runs short of asynchronous slots: every node first starts
 * HELD asynchronous receives (from the previous node) and HELD
 * asynchronous sends (to the next node) that cannot finish yet, leaving
 * CMMD_ASYNC_MAX - HELD slots each way; then it runs AC REPS times on a
 * full matrix (every byte checked), and finally lets the held messages
 * finish.  Node 0 prints "ok" and the available slots seen inside.
 *
 *   prog_single HELD REPS
 *   prog_single bad ALG
 *
 * "bad": node 1 sends node 0 three elements but node 0 expects five (the
 * counts disagree): ALG must stop the job with one error naming them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cm/cmmd.h>
#include <cm5/sched.h>

#define TAG_R 7001 /* held receives: node - 1 -> node */
#define TAG_S 7002 /* held sends: node -> node + 1 */

static unsigned char pat(int src, int dst, size_t k, int rep)
{
    return (unsigned char)(src * 131 + dst * 17 + k * 7 + rep * 3 + 1);
}

static void bad_counts(const char *name)
{
    int p = CMMD_partition_size(), me = CMMD_self_address();
    size_t *sc = calloc((size_t)p, sizeof(size_t));
    size_t *rc = calloc((size_t)p, sizeof(size_t));
    char sb[8] = "abcdefg", rb[8];
    cm5_sched_alg_t alg;

    if (cm5_sched_alg_parse(name, &alg) != CM5_OK)
        CMMD_error("prog_single: unknown algorithm %s", name);
    if (me == 1)
        sc[0] = 3;
    if (me == 0)
        rc[1] = 5;
    cm5_sched_alltoallv(alg, sb, sc, NULL, rb, rc, NULL, NULL, NULL);
    if (me == 0)
        printf("prog_single: node 0: the bad counts went unnoticed\n");
}

int main(int argc, char **argv)
{
    int p = CMMD_partition_size(), me = CMMD_self_address();
    int held;
    int reps = argc > 2 ? atoi(argv[2]) : 2, i, j, rep, avail;
    int next = (me + 1) % p, prev = (me + p - 1) % p;
    CMMD_mcb *hr, *hs;
    int *rv, *sv;
    size_t *sc, *rc;
    unsigned char *sb, *rb;
    size_t stot = 0, rtot = 0, off, k;
    cm5_sched_opts_t o;

    if (argc > 2 && !strcmp(argv[1], "bad")) {
        bad_counts(argv[2]);
        return me == 0;
    }
    held = argc > 1 ? atoi(argv[1]) : 126;
    hr = malloc(sizeof(CMMD_mcb) * (size_t)held);
    hs = malloc(sizeof(CMMD_mcb) * (size_t)held);
    rv = calloc((size_t)held, sizeof(int));
    sv = calloc((size_t)held, sizeof(int));
    sc = calloc((size_t)p, sizeof(size_t));
    rc = calloc((size_t)p, sizeof(size_t));

    for (i = 0; i < held; i++) {
        hr[i] =
            CMMD_receive_async(prev, TAG_R, &rv[i], sizeof(int), NULL, NULL);
        sv[i] = i;
        hs[i] = CMMD_send_async(next, TAG_S, &sv[i], sizeof(int), NULL, NULL);
        if (!hr[i] || !hs[i])
            CMMD_error("prog_single: %d held messages are too many", i + 1);
    }
    avail = CMMD_available_receives();
    for (j = 0; j < p; j++) {
        sc[j] = j == me ? 0 : 1 + (size_t)((me * 7 + j * 3) % 50);
        rc[j] = j == me ? 0 : 1 + (size_t)((j * 7 + me * 3) % 50);
        stot += sc[j];
        rtot += rc[j];
    }
    sb = malloc(stot + 1);
    rb = malloc(rtot + 1);
    cm5_sched_opts_init(&o);
    for (rep = 0; rep < reps; rep++) {
        for (off = 0, j = 0; j < p; j++)
            for (k = 0; k < sc[j]; k++)
                sb[off++] = pat(me, j, k, rep);
        memset(rb, 0, rtot);
        o.seed = (uint64_t)rep + 1;
        cm5_sched_alltoallv(CM5_SCHED_AC, sb, sc, NULL, rb, rc, NULL, &o, NULL);
        for (off = 0, j = 0; j < p; j++)
            for (k = 0; k < rc[j]; k++, off++)
                if (rb[off] != pat(j, me, k, rep))
                    CMMD_error("prog_single: rep %d: byte %zu from node %d "
                               "is wrong",
                               rep, k, j);
    }
    /* Let the held messages finish. */
    for (i = 0; i < held; i++)
        CMMD_send_block(next, TAG_R, &i, sizeof(int));
    for (i = 0; i < held; i++) {
        int v;

        CMMD_receive_block(prev, TAG_S, &v, sizeof(int));
        if (v != i)
            CMMD_error("prog_single: held message %d carried %d", i, v);
    }
    for (i = 0; i < held; i++) {
        CMMD_msg_wait(hr[i]);
        CMMD_msg_wait(hs[i]);
        if (rv[i] != i)
            CMMD_error("prog_single: held receive %d got %d", i, rv[i]);
        CMMD_free_mcb(hr[i]);
        CMMD_free_mcb(hs[i]);
    }
    CMMD_sync_with_nodes();
    if (me == 0)
        printf("ok held=%d available_receives=%d\n", held, avail);
    free(hr), free(hs), free(rv), free(sv), free(sc), free(rc);
    free(sb), free(rb);
    return 0;
}
