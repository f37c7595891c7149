/*
 * Multi-node check of liu2002 A1, A3 and A4 in one job: for each matrix
 * kind (random, exact, full, hotspot, permutation, zero) it runs a1, a3
 * (square P) and a4 in modes b, n1 and n2, plus a few cases with
 * a4_rotate_counters=1 and 3-byte elements ("all"), or the cases named
 * (matrix p2div: 003's Pattern2 with every entry a multiple of P, for
 * which Table 2's length bounds hold exactly; pattern1 / pattern2: 003's
 * patterns, entries 0..8 and one spike of --max per row, at a random
 * column or at the transpose; p1div: pattern1 with every entry times P;
 * recvless / recvmore: node
 * P-1's recvcounts[0] is 0 / 3 too many, which must stop the job);
 * each case makes --calls calls back to back (no synchronization between
 * them) and verifies every
 * received byte and the bytes past the data on every node.  Node 0
 * prints one line per case with the maxima over nodes of the statistics
 * (network messages and bytes summed) for tests/algos/liu.sh to check
 * against liu2002's counts, then "ok".
 *
 * unord 1 runs with a4_unordered=1: the elements are records of esz
 * bytes, self-describing when esz >= 12 (source, destination and index
 * as three 32-bit words, then the pattern), and each node checks what
 * the option promises: its own records first, in order, then exactly
 * the records the others sent it (each (source, index) once, every byte
 * right; for esz < 12, the same multiset of records, by sorting), and
 * nothing past them.  Every case line ends with liu2002 Table 4's sbuf
 * and rbuf (maxima over nodes) and what bounds them: mmax (the largest
 * entry off the diagonal), rmax and cmax (the largest row and column
 * sum; t is the larger).  A case may name a2 too.  The case line adds
 * bytes_ordered, the bytes the
 * same call sends with a4_unordered=0 (run once more on the same matrix,
 * except for the bad inputs recvless and recvmore).  unord 2 passes rdispls
 * with a4_unordered=1, which must stop the job.
 *
 *   prog_liu [--max N] [--calls C] [--seed S] all |
 * alg:matrix[:mode[:rot[:esz[:unord]]]]...
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cm/cmmd.h>
#include <cm5/sched.h>

static int P, me;
static uint64_t rs;

static uint64_t mix(uint64_t z)
{
    z += 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static uint64_t rnd(uint64_t n)
{
    rs = mix(rs);
    return n ? rs % n : 0;
}

static void shuffle(int *v)
{
    int i, j, t;

    for (i = 0; i < P; i++)
        v[i] = i;
    for (i = P - 1; i > 0; i--) {
        j = (int)rnd((uint64_t)i + 1);
        t = v[i];
        v[i] = v[j];
        v[j] = t;
    }
}

/* A4's columns (ALGORITHMS.md 3.4.1), for Pattern2's transpose. */
static int a4_columns(void)
{
    int f = 0, c, R;

    while ((f + 1) * (f + 1) <= P)
        f++;
    c = f * f == P ? f : f + 1;
    R = (P + c - 1) / c;
    return P % c && P % c > R - 1 ? f : c;
}

/* The same matrix on every node (the diagonal is the dispatcher's self
 * copy and is filled too, except for "zero"). */
static void matrix(const char *kind, size_t maxn, size_t *com)
{
    int *perm = malloc(sizeof(int) * (size_t)P), i, j, k;

    memset(com, 0, sizeof(size_t) * (size_t)P * P);
    for (i = 0; i < P; i++)
        for (j = 0; j < P; j++) {
            size_t *c = &com[(size_t)i * P + j];

            if (!strcmp(kind, "random"))
                *c = rnd(2) ? 1 + rnd(maxn) : 0;
            else if (!strcmp(kind, "full"))
                *c = 1 + rnd(maxn);
        }
    if (!strcmp(kind, "exact")) /* 3 random permutations, sizes 1..max */
        for (k = 0; k < 3; k++) {
            shuffle(perm);
            for (i = 0; i < P; i++)
                com[(size_t)i * P + perm[i]] = 1 + rnd(maxn);
        }
    if (!strcmp(kind, "hotspot"))
        for (i = 0; i < P; i++)
            com[(size_t)i * P] = maxn;
    if (!strcmp(kind, "recvless") || !strcmp(kind, "recvmore"))
        com[P - 1] = 5; /* node 0 sends node P-1 five elements */
    if (!strcmp(kind, "p2div") || !strcmp(kind, "pattern2")) {
        size_t f = kind[1] == '2' ? (size_t)P : 1; /* p2div: times P */
        int C = a4_columns();

        for (i = 0; i < P; i++)
            for (j = 0; j < P; j++)
                com[(size_t)i * P + j] = rnd(9) * f;
        for (i = 0; i < P; i++)
            if ((j = (i % C) * C + i / C) < P)
                com[(size_t)i * P + j] = maxn * f;
    }
    if (!strcmp(kind, "p1div") || !strcmp(kind, "pattern1")) {
        size_t f = kind[1] == '1' ? (size_t)P : 1; /* p1div: times P */

        for (i = 0; i < P; i++)
            for (j = 0; j < P; j++)
                com[(size_t)i * P + j] = rnd(9) * f;
        for (i = 0; i < P; i++)
            com[(size_t)i * P + (int)rnd((uint64_t)P)] = maxn * f;
    }
    if (!strcmp(kind, "permutation")) {
        shuffle(perm);
        for (i = 0; i < P; i++)
            com[(size_t)i * P + perm[i]] = 1 + rnd(maxn);
    }
    free(perm);
}

static unsigned char pat(int src, int dst, size_t k, int call)
{
    return (unsigned char)mix(((uint64_t)src << 40) ^ ((uint64_t)dst << 20) ^
                              ((uint64_t)call << 56) ^ k);
}

/* Records of SELFDESC bytes or more start with (src, dst, index). */
#define SELFDESC 12
static size_t esz_g;
static int selfdesc_g;

/* Byte k of the data src sends dst. */
static unsigned char data_byte(int src, int dst, size_t k, int call)
{
    size_t idx = k / esz_g, b = k % esz_g;
    uint32_t w[3];

    if (!selfdesc_g || b >= SELFDESC)
        return pat(src, dst, k, call);
    w[0] = (uint32_t)src;
    w[1] = (uint32_t)dst;
    w[2] = (uint32_t)idx;
    return ((const unsigned char *)w)[b];
}

static int rec_cmp(const void *x, const void *y) { return memcmp(x, y, esz_g); }

static int ncases, ncalls = 1;

/* a4_unordered, self-describing records: each record after the node's
 * own is one the others sent it, each once. */
static void check_selfdesc(const unsigned char *rb, size_t from, size_t rtot,
                           const size_t *rc, const size_t *rd, char *seen,
                           int call, const char *what)
{
    size_t r, b;
    uint32_t w[3];

    memset(seen, 0, rtot);
    for (r = from; r < rtot; r++) {
        const unsigned char *rec = rb + r * esz_g;

        memcpy(w, rec, sizeof(w));
        if (w[1] != (uint32_t)me || w[0] >= (uint32_t)P ||
            w[0] == (uint32_t)me || w[2] >= rc[w[0]] || seen[rd[w[0]] + w[2]])
            CMMD_error("prog_liu: %s: node %d: record %zu claims (src %u, "
                       "dst %u, index %u): not one sent to it, or twice "
                       "(call %d)",
                       what, me, r, w[0], w[1], w[2], call);
        seen[rd[w[0]] + w[2]] = 1;
        for (b = SELFDESC; b < esz_g; b++)
            if (rec[b] != pat((int)w[0], me, w[2] * esz_g + b, call))
                CMMD_error("prog_liu: %s: node %d: byte %zu of record %u "
                           "from node %u is wrong (call %d)",
                           what, me, b, w[2], w[0], call);
    }
}

/* a4_unordered, any record size: the records after the node's own are,
 * as a multiset, the ones the others sent it. */
static void check_multiset(unsigned char *rb, size_t from, size_t rtot,
                           const size_t *rc, unsigned char *want, int call,
                           const char *what)
{
    size_t off = 0, k;
    int j;

    for (j = 0; j < P; j++)
        for (k = 0; j != me && k < rc[j] * esz_g; k++)
            want[off++] = data_byte(j, me, k, call);
    qsort(want, rtot - from, esz_g, rec_cmp);
    qsort(rb + from * esz_g, rtot - from, esz_g, rec_cmp);
    if (memcmp(want, rb + from * esz_g, (rtot - from) * esz_g))
        CMMD_error("prog_liu: %s: node %d: the records received are not "
                   "those sent to it (call %d)",
                   what, me, call);
}

/* Every byte at its place, or (unordered) the node's own records first
 * and then the others' records in any order. */
static void check_recv(unsigned char *rb, const size_t *rc, size_t rtot,
                       int unord, int call, const char *what)
{
    size_t off = 0, k, *rd = calloc((size_t)P, sizeof(size_t)), esz = esz_g;
    unsigned char *tmp;
    int j;

    for (j = 0; j < P; j++) {
        rd[j] = off;
        off += rc[j];
    }
    if (!unord) {
        for (j = 0, off = 0; j < P; j++)
            for (k = 0; k < rc[j] * esz; k++, off++)
                if (rb[off] != data_byte(j, me, k, call))
                    CMMD_error("prog_liu: %s: byte %zu from node %d to node "
                               "%d is wrong (call %d)",
                               what, k, j, me, call);
        free(rd);
        return;
    }
    for (k = 0; k < rc[me] * esz; k++)
        if (rb[k] != data_byte(me, me, k, call))
            CMMD_error("prog_liu: %s: node %d: byte %zu is not its own "
                       "record byte (own records first, call %d)",
                       what, me, k, call);
    tmp = malloc(rtot * esz + 1);
    if (selfdesc_g)
        check_selfdesc(rb, rc[me], rtot, rc, rd, (char *)tmp, call, what);
    else
        check_multiset(rb, rc[me], rtot, rc, tmp, call, what);
    free(tmp);
    free(rd);
}

/* One call, its data verified (call: the pattern's call number). */
static void call_once(cm5_sched_alg_t alg, const cm5_sched_opts_t *o,
                      const unsigned char *sb, const size_t *sc,
                      const size_t *sd, unsigned char *rb, size_t *rc,
                      size_t rtot, int unord, int call, const char *what,
                      cm5_sched_stats_t *st)
{
    size_t guard = 16, k, esz = esz_g, *rd = NULL;
    char w[200];
    int j;

    snprintf(w, sizeof(w), "%s%s", what,
             o->a4_unordered ? " a4_unordered=1" : "");
    what = w;
    memset(rb, 0xa5, (rtot + guard) * esz);
    if (unord == 2) { /* packed displacements, given: refused */
        rd = calloc((size_t)P, sizeof(size_t));
        for (j = 1; j < P; j++)
            rd[j] = rd[j - 1] + rc[j - 1];
    }
    cm5_sched_alltoallv(alg, sb, sc, sd, rb, rc, rd, o, st);
    free(rd);
    for (k = rtot * esz; k < (rtot + guard) * esz; k++)
        if (rb[k] != 0xa5)
            CMMD_error("prog_liu: %s: node %d: byte %zu past the data was "
                       "overwritten",
                       what, me, k - rtot * esz);
    check_recv(rb, rc, rtot, unord && o->a4_unordered, call, what);
}

static void run(const char *alg_name, const char *kind, const char *mode,
                int rot, size_t esz, int unord, size_t maxn)
{
    size_t *com = malloc(sizeof(size_t) * (size_t)P * P), *sc, *rc, *sd;
    size_t stot = 0, rtot = 0, guard = 16, k, nnz = 0, t = 0;
    size_t mmax = 0, rmax = 0, cmax = 0;
    unsigned char *sb, *rb;
    cm5_sched_alg_t alg;
    cm5_sched_opts_t o;
    cm5_sched_stats_t st;
    unsigned long v[18];
    char set[64], err[128], what[160];
    unsigned long bytes_ordered = 0;
    int i, j, call, s, n = 0;

    cm5_sched_opts_init(&o);
    o.elem_size = esz;
    o.a4_rotate_counters = rot;
    snprintf(set, sizeof(set), "a4_mode=%s", mode);
    if (cm5_sched_alg_parse(alg_name, &alg) != CM5_OK ||
        cm5_sched_opts_set(&o, set, err, sizeof(err)) != CM5_OK)
        CMMD_error("prog_liu: bad case %s %s", alg_name, set);
    if (unord && alg != CM5_SCHED_A4)
        CMMD_error("prog_liu: bad case %s %s: unord is for a4", alg_name, kind);
    matrix(kind, maxn, com);
    sc = calloc((size_t)P * 3, sizeof(size_t));
    rc = sc + P;
    sd = rc + P;
    for (j = 0; j < P; j++) {
        sc[j] = com[(size_t)me * P + j];
        rc[j] = com[(size_t)j * P + me];
        sd[j] = stot; /* a one-element gap after each block */
        stot += sc[j] + 1;
        rtot += rc[j];
    }
    /* Bad input: node P-1 expects nothing, or 3 more, from node 0. */
    if (me == P - 1 && P > 1 && !strcmp(kind, "recvless"))
        rc[0] = 0;
    if (me == P - 1 && P > 1 && !strcmp(kind, "recvmore"))
        rc[0] += 3;
    for (i = 0; i < P * P; i++)
        nnz += com[i] && i / P != i % P;
    for (i = 0; i < P; i++) {
        size_t ro = 0, co = 0;

        for (j = 0; j < P; j++) {
            ro += i != j ? com[(size_t)i * P + j] : 0;
            co += i != j ? com[(size_t)j * P + i] : 0;
        }
        rmax = ro > rmax ? ro : rmax;
        cmax = co > cmax ? co : cmax;
        for (j = 0; j < P; j++)
            if (i != j && com[(size_t)i * P + j] > mmax)
                mmax = com[(size_t)i * P + j];
    }
    t = rmax > cmax ? rmax : cmax;
    sb = malloc(stot * esz + 1);
    rb = malloc((rtot + guard) * esz);
    esz_g = esz;
    selfdesc_g = unord && esz >= SELFDESC;
    snprintf(what, sizeof(what), "%s %s %s", alg_name, kind, set);
    for (call = 0; call < ncalls; call++) {
        for (j = 0; j < P; j++)
            for (k = 0; k < sc[j] * esz; k++)
                sb[sd[j] * esz + k] = data_byte(me, j, k, call);
        /* The same call with placement data (bad input: not needed). */
        if (unord == 1 && call == 0 && strncmp(kind, "recv", 4)) {
            o.a4_unordered = 0;
            call_once(alg, &o, sb, sc, sd, rb, rc, rtot, 0, call, what, &st);
            bytes_ordered = st.bytes_sent;
        }
        o.a4_unordered = unord > 0;
        call_once(alg, &o, sb, sc, sd, rb, rc, rtot, unord, call, what, &st);
    }
    v[n++] = st.phases;
    v[n++] = st.nstages;
    for (s = 0; s < CM5_SCHED_MAX_STAGES; s++) {
        v[n++] = st.stage[s].steps;
        v[n++] = st.stage[s].msgs_recv;
        v[n++] = st.stage[s].max_msg_elems;
    }
    v[n++] = st.sbuf_elems;
    v[n++] = st.rbuf_elems;
    CMMD_reduce_v(v, v, CMMD_combiner_umax, sizeof(unsigned long), n);
    {
        unsigned long msgs = CMMD_reduce_luint(st.msgs_sent, CMMD_combiner_add);
        unsigned long rmsgs =
            CMMD_reduce_luint(st.msgs_recv, CMMD_combiner_add);
        unsigned long bytes =
            CMMD_reduce_luint(st.bytes_sent, CMMD_combiner_add);
        unsigned long bytes0 =
            CMMD_reduce_luint(bytes_ordered, CMMD_combiner_add);

        if (me == 0) {
            printf("case alg=%s matrix=%s mode=%s rot=%d esz=%zu unord=%d "
                   "p=%d nnz=%zu t=%zu phases=%lu msgs=%lu msgs_recv=%lu "
                   "bytes=%lu nstages=%lu",
                   alg_name, kind, mode, rot, esz, unord, P, nnz, t, v[0], msgs,
                   rmsgs, bytes, v[1]);
            if (unord)
                printf(" bytes_ordered=%lu", bytes0);
            for (s = 0; s < CM5_SCHED_MAX_STAGES; s++)
                printf(" stage%d_steps=%lu stage%d_msgs=%lu "
                       "stage%d_maxlen=%lu",
                       s + 1, v[2 + 3 * s], s + 1, v[3 + 3 * s], s + 1,
                       v[4 + 3 * s]);
            printf(" sbuf=%lu rbuf=%lu mmax=%zu rmax=%zu cmax=%zu\n", v[n - 2],
                   v[n - 1], mmax, rmax, cmax);
        }
    }
    ncases++;
    free(com);
    free(sc);
    free(sb);
    free(rb);
}

/* "alg:matrix:mode:rot:esz:unord", e.g. "a4:full:n2:1:3" (rot, esz, unord
 * optional). */
static void run_spec(const char *spec, size_t maxn)
{
    char alg[16] = "", kind[16] = "", mode[8] = "b";
    int rot = 0, unord = 0;
    size_t esz = 1;

    if (sscanf(spec, "%15[^:]:%15[^:]:%7[^:]:%d:%zu:%d", alg, kind, mode, &rot,
               &esz, &unord) < 2 ||
        esz == 0 || unord < 0 || unord > 2)
        CMMD_error("prog_liu: bad case %s "
                   "(alg:matrix[:mode[:rot[:esz[:unord]]]])",
                   spec);
    run(alg, kind, mode, rot, esz, unord, maxn);
}

/* Every matrix kind with a1, a3 (square P) and a4 b/n1/n2, and a few
 * cases with rotated counters and 3-byte elements. */
static void battery(size_t maxn)
{
    static const char *const kinds[] = {"random",  "exact",       "full",
                                        "hotspot", "permutation", "zero"};
    static const char *const modes[] = {"b", "n1", "n2"};
    unsigned q, m, i;

    for (q = 0; (q + 1) * (q + 1) <= (unsigned)P; q++)
        ;
    for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
        run("a1", kinds[i], "b", 0, 1, 0, maxn);
        if (q * q == (unsigned)P)
            run("a3", kinds[i], "b", 0, 1, 0, maxn);
        for (m = 0; m < 3; m++)
            run("a4", kinds[i], modes[m], 0, 1, 0, maxn);
    }
    run("a4", "random", "b", 1, 1, 0, maxn);
    run("a4", "full", "n2", 1, 3, 0, maxn);
    run("a4", "exact", "n1", 0, 3, 0, maxn);
    run("a1", "random", "b", 0, 3, 0, maxn);
    if (q * q == (unsigned)P)
        run("a3", "full", "b", 0, 3, 0, maxn);
    for (m = 0; m < 3; m++) /* records of 3 and of 16 bytes, unordered */
        run("a4", "full", modes[m], 0, m == 1 ? 3 : 16, 1, maxn);
}

int main(int argc, char **argv)
{
    size_t maxn = 40;
    int a;

    P = CMMD_partition_size();
    me = CMMD_self_address();
    rs = 1;
    for (a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "--max") && a + 1 < argc)
            maxn = strtoull(argv[++a], NULL, 0);
        else if (!strcmp(argv[a], "--calls") && a + 1 < argc)
            ncalls = atoi(argv[++a]);
        else if (!strcmp(argv[a], "--seed") && a + 1 < argc)
            rs = strtoull(argv[++a], NULL, 0);
    }
    rs = rs * 7919 + (uint64_t)P;
    for (a = 1; a < argc; a++) {
        if (argv[a][0] == '-')
            a++;
        else if (!strcmp(argv[a], "all"))
            battery(maxn);
        else if (strchr(argv[a], ':'))
            run_spec(argv[a], maxn);
        /* anything else (the test's job mark) is ignored */
    }
    if (me == 0)
        printf("cases=%d\nok\n", ncases);
    return 0;
}
