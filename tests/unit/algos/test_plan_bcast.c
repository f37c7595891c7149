/*
 * The s-to-p broadcasting planners (algos/plan_bcast.c) and the source
 * distributions (plan_bcast_dist.c) against the papers' invariants
 * (ALGORITHMS.md 4, 5.8): every node ends with every source and receives
 * each other node's message exactly once (its own at most once, when the
 * algorithm moved it away), a node sends only what it held before the
 * iteration, the iteration counts (ceil(log2 p) for br_lin, ...), the
 * combined-message sizes, for p = 1..256 and many mesh shapes.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "plan_bcast.h"

TestSuite(plan_bcast, .timeout = 120);

static cm5_sched_bcast_opts_t opts(void)
{
    cm5_sched_bcast_opts_t o;

    cm5_sched_bcast_opts_init(&o);
    return o;
}

/* Counts from a mask: source i has length 1 + (i * 7) % 13. */
static size_t *counts_of(int p, const unsigned char *m)
{
    size_t *n = calloc((size_t)p, sizeof(size_t));
    int i;

    for (i = 0; i < p; i++)
        n[i] = m[i] ? 1 + (size_t)(i * 7) % 13 : 0;
    return n;
}

/* Replay the plan: the checks of the header.  Returns the most sources
 * a message of iteration `it` carries in *maxn (it < 64). */
static void replay(const cm5s_bc_plan_t *pl, int *maxn)
{
    int p = pl->p, s = pl->s, i, k, j;
    int *got = malloc((size_t)p * (size_t)(s + 1) * sizeof(int));
    int *cnt = calloc((size_t)p * (size_t)(s + 1), sizeof(int));

    for (i = 0; i < p * (s + 1); i++)
        got[i] = 1 << 30;
    for (k = 0; k < s; k++)
        got[pl->src[k] * s + k] = -1;
    for (i = 0; i < 64; i++)
        maxn[i] = 0;
    for (j = 0; j < pl->nmsg; j++) {
        const cm5s_bc_msg_t *m = &pl->msg[j];
        size_t len = 0;

        cr_assert(m->from != m->to && m->from >= 0 && m->to < p);
        cr_assert(m->iter >= 0 && m->iter < pl->niters);
        cr_assert(j == 0 || pl->msg[j - 1].iter <= m->iter);
        if (m->iter < 64 && m->nsrc > maxn[m->iter])
            maxn[m->iter] = m->nsrc;
        for (i = 0; i < m->nsrc; i++) {
            k = pl->set[m->first + (size_t)i];
            cr_assert(i == 0 || pl->set[m->first + i - 1] < k, "sets increase");
            cr_assert(got[m->from * s + k] < m->iter,
                      "p=%d %dx%d alg %d: node %d sends source %d at "
                      "iteration %d before it has it",
                      p, pl->r, pl->c, pl->alg, m->from, k, m->iter);
            len += pl->len[k];
            cnt[m->to * s + k]++;
            if (got[m->to * s + k] > m->iter)
                got[m->to * s + k] = m->iter;
        }
        cr_assert_eq(len, m->len);
    }
    for (i = 0; i < p; i++)
        for (k = 0; k < s; k++) {
            int own = pl->src[k] == i;

            cr_assert(got[i * s + k] < pl->niters || own);
            cr_assert(own ? cnt[i * s + k] <= 1 : cnt[i * s + k] == 1,
                      "p=%d %dx%d alg %d: node %d receives source %d %d "
                      "times",
                      p, pl->r, pl->c, pl->alg, i, k, cnt[i * s + k]);
        }
    free(got);
    free(cnt);
}

static void plan_ok(cm5_sched_bcast_t alg, int r, int c, const size_t *n,
                    const cm5_sched_bcast_opts_t *o, cm5s_bc_plan_t *pl)
{
    char err[128];

    cr_assert_eq(cm5s_bc_plan(alg, r * c, r, c, n, o, pl, err, sizeof(err)),
                 CM5_OK, "%s", err);
}

static int ilog(int n) { return cm5s_bc_log2(n); }

/* The iterations each algorithm takes. */
static int want_iters(const cm5s_bc_plan_t *pl, const cm5_sched_bcast_opts_t *o)
{
    int r = pl->r, c = pl->c, p = pl->p, r1 = (r + 1) / 2, xy;

    switch (pl->alg) {
    case CM5_SCHED_BC_BR_LIN:
        return ilog(p);
    case CM5_SCHED_BC_BR_XY_SOURCE:
    case CM5_SCHED_BC_BR_XY_DIM:
        return ilog(r) + ilog(c);
    case CM5_SCHED_BC_XOR:
        return (1 << ilog(p)) - 1;
    case CM5_SCHED_BC_2STEP:
        return 1 + ilog(p);
    case CM5_SCHED_BC_REPOS:
        return 1 + (o->repos_alg == CM5_SCHED_BC_BR_LIN ? ilog(p)
                                                        : ilog(r) + ilog(c));
    case CM5_SCHED_BC_PART_LIN:
        return 2 + (r >= 2 ? ilog(r1 * c) : ilog((c + 1) / 2));
    default: /* part_xy_source: the halves may order dimensions apart */
        xy = r >= 2 ? ilog(r1) + ilog(c) : ilog((c + 1) / 2);
        return 2 + xy; /* at least */
    }
}

static const cm5s_bc_dist_t dists[] = {
    CM5S_BC_ROW,   CM5S_BC_COL,   CM5S_BC_DIAG_R, CM5S_BC_DIAG_L,
    CM5S_BC_EQUAL, CM5S_BC_CROSS, CM5S_BC_BLOCK,  CM5S_BC_BAND,
};

/* Every algorithm, every distribution, a few s, on r x c. */
static void all_on(int r, int c, const cm5_sched_bcast_opts_t *o)
{
    int p = r * c, ss[] = {0, 1, 2, p / 3, p / 2 + 1, p - 1, p}, si, d, a;
    unsigned char *m = malloc((size_t)p);
    int maxn[64];

    for (si = 0; si < 7; si++) {
        int s = ss[si] < 0 ? 0 : ss[si] > p ? p : ss[si];

        for (d = 0; d < 8; d++) {
            size_t *n;

            cr_assert_eq(cm5s_bc_dist(dists[d], r, c, s, 0, 0, m), s,
                         "dist %d places %d on %dx%d", d, s, r, c);
            n = counts_of(p, m);
            for (a = 1; a < CM5_SCHED_BC_NALGS; a++) {
                cm5s_bc_plan_t pl;

                plan_ok((cm5_sched_bcast_t)a, r, c, n, o, &pl);
                cr_assert_eq(pl.s, s);
                replay(&pl, maxn);
                if (a == CM5_SCHED_BC_PART_XY_SOURCE)
                    cr_assert_geq(pl.niters, want_iters(&pl, o));
                else
                    cr_assert_eq(pl.niters, want_iters(&pl, o),
                                 "alg %d on %dx%d: %d iterations", a, r, c,
                                 pl.niters);
                if (a == CM5_SCHED_BC_XOR)
                    cr_assert_eq(pl.nmsg, s * (p - 1));
                cm5s_bc_plan_free(&pl);
            }
            free(n);
        }
    }
    free(m);
}

Test(plan_bcast, every_algorithm_every_distribution_small_meshes)
{
    cm5_sched_bcast_opts_t o = opts();
    int p, r;

    for (p = 1; p <= 40; p++)
        for (r = 1; r <= p; r++)
            if (p % r == 0)
                all_on(r, p / r, &o);
}

Test(plan_bcast, listed_sizes_and_skewed_meshes)
{
    cm5_sched_bcast_opts_t o = opts();
    static const int shapes[][2] = {
        {1, 64}, {8, 8},  {4, 16}, {16, 4},  {2, 32},  {1, 31},  {10, 10},
        {4, 30}, {6, 20}, {8, 15}, {10, 12}, {16, 16}, {1, 127}, {3, 85},
    };
    size_t i;

    for (i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++)
        all_on(shapes[i][0], shapes[i][1], &o);
}

Test(plan_bcast, options_rowmajor_prefix_repos_br_lin)
{
    cm5_sched_bcast_opts_t o = opts();

    o.br_lin_rowmajor = 1;
    o.ideal_lin_prefix = 1;
    o.repos_alg = CM5_SCHED_BC_BR_LIN;
    all_on(4, 6, &o);
    all_on(5, 5, &o);
    all_on(1, 13, &o);
}

/* p = 1..256, each the most square mesh: br_lin and xor on all sources. */
Test(plan_bcast, br_lin_log2_iterations_and_doubling_every_p)
{
    cm5_sched_bcast_opts_t o = opts();
    int p, r, c, it, maxn[64];

    for (p = 1; p <= 256; p++) {
        size_t *n = malloc((size_t)p * sizeof(size_t));
        cm5s_bc_plan_t pl;

        for (it = 0; it < p; it++)
            n[it] = 3;
        cm5_sched_mesh_default(p, &r, &c);
        cr_assert_eq(r * c, p);
        cr_assert(r <= c);
        plan_ok(CM5_SCHED_BC_BR_LIN, r, c, n, &o, &pl);
        replay(&pl, maxn);
        cr_assert_eq(pl.niters, ilog(p));
        /* Combining: 2^t sources per message at iteration t when p is a
         * power of two; never more than p - 1 + ... in general. */
        for (it = 0; it < pl.niters; it++)
            if ((p & (p - 1)) == 0)
                cr_assert_eq(maxn[it], 1 << it, "p=%d it=%d: %d", p, it,
                             maxn[it]);
        /* Every node receives exactly the p - 1 other messages' bytes. */
        {
            size_t *in = calloc((size_t)p, sizeof(size_t));
            int j;

            for (j = 0; j < pl.nmsg; j++)
                in[pl.msg[j].to] += pl.msg[j].len;
            for (j = 0; j < p; j++)
                cr_assert_eq(in[j], 3 * (size_t)(p - 1));
            free(in);
        }
        cm5s_bc_plan_free(&pl);
        plan_ok(CM5_SCHED_BC_XOR, r, c, n, &o, &pl);
        cr_assert_eq(pl.nmsg, p * (p - 1));
        cr_assert_eq(pl.niters, (1 << ilog(p)) - 1);
        cm5s_bc_plan_free(&pl);
        free(n);
    }
}

Test(plan_bcast, default_mesh_is_the_most_square)
{
    int r, c;

    cm5_sched_mesh_default(64, &r, &c);
    cr_assert(r == 8 && c == 8);
    cm5_sched_mesh_default(120, &r, &c);
    cr_assert(r == 10 && c == 12);
    cm5_sched_mesh_default(31, &r, &c);
    cr_assert(r == 1 && c == 31);
    cm5_sched_mesh_default(32, &r, &c);
    cr_assert(r == 4 && c == 8);
    cm5_sched_mesh_default(1, &r, &c);
    cr_assert(r == 1 && c == 1);
}

Test(plan_bcast, mesh_parse_rejects_what_does_not_multiply)
{
    char err[128];
    int r, c;

    cr_assert_eq(cm5_sched_mesh_parse("4x16", 64, &r, &c, err, 128), CM5_OK);
    cr_assert(r == 4 && c == 16);
    cr_assert_eq(cm5_sched_mesh_parse("4x15", 64, &r, &c, err, 128),
                 CM5_ERR_INVALID);
    cr_assert(strstr(err, "4 x 15 = 60") != NULL, "%s", err);
    cr_assert_eq(cm5_sched_mesh_parse("0x64", 64, &r, &c, err, 128),
                 CM5_ERR_INVALID);
    cr_assert_eq(cm5_sched_mesh_parse("8", 64, &r, &c, err, 128),
                 CM5_ERR_INVALID);
    cr_assert_eq(cm5_sched_mesh_parse("-8x-8", 64, &r, &c, err, 128),
                 CM5_ERR_INVALID);
}

Test(plan_bcast, planner_rejects_bad_meshes_and_algorithms)
{
    cm5_sched_bcast_opts_t o = opts();
    size_t n[12] = {1};
    cm5s_bc_plan_t pl;
    char err[128];

    cr_assert_eq(cm5s_bc_plan(CM5_SCHED_BC_BR_LIN, 12, 5, 2, n, &o, &pl, err,
                              sizeof(err)),
                 CM5_ERR_INVALID);
    cr_assert(strstr(err, "multiply") != NULL);
    cr_assert_eq(
        cm5s_bc_plan(CM5_SCHED_BC_AUTO, 12, 3, 4, n, &o, &pl, err, sizeof(err)),
        CM5_ERR_INVALID);
    o.repos_alg = CM5_SCHED_BC_XOR;
    cr_assert_eq(cm5s_bc_plan(CM5_SCHED_BC_REPOS, 12, 3, 4, n, &o, &pl, err,
                              sizeof(err)),
                 CM5_ERR_INVALID);
}

/* ---- the distributions' examples (ALGORITHMS.md 5.8) ------------------ */

static int rows_used(int r, int c, const unsigned char *m, int *row, int *n)
{
    int x, y, k = 0;

    for (x = 0; x < r; x++) {
        int cnt = 0;

        for (y = 0; y < c; y++)
            cnt += m[x * c + y];
        if (cnt) {
            row[k] = x;
            n[k++] = cnt;
        }
    }
    return k;
}

Test(plan_bcast, row_distribution_examples)
{
    unsigned char m[100];
    int row[10], n[10];

    cr_assert_eq(cm5s_bc_dist(CM5S_BC_ROW, 10, 10, 20, 0, 0, m), 20);
    cr_assert_eq(rows_used(10, 10, m, row, n), 2);
    cr_assert(row[0] == 0 && row[1] == 5, "R_2 on 10x10: rows 0 and 5");
    cr_assert_eq(cm5s_bc_dist(CM5S_BC_ROW, 10, 10, 27, 0, 0, m), 27);
    cr_assert_eq(rows_used(10, 10, m, row, n), 3);
    cr_assert(n[0] == 10 && n[1] == 10 && n[2] == 7, "fill: 10, 10, 7");
    cr_assert_eq(cm5s_bc_dist(CM5S_BC_ROW, 10, 10, 27, 1, 0, m), 27);
    rows_used(10, 10, m, row, n);
    cr_assert(n[0] == 9 && n[1] == 9 && n[2] == 9, "balanced: 9, 9, 9");
}

Test(plan_bcast, other_distribution_examples)
{
    unsigned char m[256];
    int i, cnt;

    /* Right diagonal 0 on 10x10 is (x, x). */
    cr_assert_eq(cm5s_bc_dist(CM5S_BC_DIAG_R, 10, 10, 10, 0, 0, m), 10);
    for (i = 0; i < 10; i++)
        cr_assert(m[i * 10 + i]);
    cr_assert_eq(cm5s_bc_dist(CM5S_BC_DIAG_L, 10, 10, 10, 0, 0, m), 10);
    for (i = 0; i < 10; i++)
        cr_assert(m[i * 10 + 9 - i]);
    /* Equal: floor(m p / s). */
    cr_assert_eq(cm5s_bc_dist(CM5S_BC_EQUAL, 10, 10, 30, 0, 0, m), 30);
    cr_assert(m[0] && m[3] && m[6] && m[10] && !m[1]);
    cr_assert_eq(cm5s_bc_dist(CM5S_BC_EQUAL, 10, 10, 0, 7, 0, m), 15);
    /* Square block of 30: 6 wide, 5 rows. */
    cr_assert_eq(cm5s_bc_dist(CM5S_BC_BLOCK, 10, 10, 30, 0, 0, m), 30);
    for (i = cnt = 0; i < 100; i++)
        cnt += m[i] && i % 10 < 6 && i / 10 < 5;
    cr_assert_eq(cnt, 30);
    cr_assert_eq(cm5s_bc_dist(CM5S_BC_BLOCK, 10, 10, 0, 3, 4, m), 12);
    /* 002's cross: 2 rows and 2 columns of 10x10 = 36 nodes. */
    cr_assert_eq(cm5s_bc_dist(CM5S_BC_CROSS, 10, 10, 0, 2, 0, m), 36);
    /* 004's cross of 15 on 8x8: 8 in one row, 7 more in a column. */
    cr_assert_eq(cm5s_bc_dist(CM5S_BC_CROSS, 8, 8, 15, 0, 0, m), 15);
    for (i = cnt = 0; i < 64; i++)
        cnt += m[i];
    cr_assert_eq(cnt, 15);
    /* Band on 16x16, s = 16..192 and 10x10, s = 30: exactly s. */
    for (i = 16; i <= 192; i += 16)
        cr_assert_eq(cm5s_bc_dist(CM5S_BC_BAND, 16, 16, i, 0, 0, m), i);
    cr_assert_eq(cm5s_bc_dist(CM5S_BC_BAND, 10, 10, 30, 0, 0, m), 30);
    /* Too many sources, a block too large. */
    cr_assert_eq(cm5s_bc_dist(CM5S_BC_ROW, 4, 4, 17, 0, 0, m), -1);
    cr_assert_eq(cm5s_bc_dist(CM5S_BC_BLOCK, 4, 4, 0, 5, 1, m), -1);
}

/* ---- the algorithms' own properties ------------------------------------ */

static cm5s_bc_plan_t plan_dist(cm5_sched_bcast_t alg, int r, int c,
                                cm5s_bc_dist_t d, int s, int a)
{
    cm5_sched_bcast_opts_t o = opts();
    unsigned char m[1024];
    size_t *n;
    cm5s_bc_plan_t pl;

    cr_assert(cm5s_bc_dist(d, r, c, s, a, 0, m) >= 0);
    n = counts_of(r * c, m);
    plan_ok(alg, r, c, n, &o, &pl);
    free(n);
    return pl;
}

static int stage_msgs(const cm5s_bc_plan_t *pl, int stage)
{
    int j, n = 0;

    for (j = 0; j < pl->nmsg; j++)
        n += pl->msg[j].stage == stage;
    return n;
}

Test(plan_bcast, br_xy_dimension_rules)
{
    cm5s_bc_plan_t pl;

    /* Sources in 2 columns: max_r = 2 < max_c = 8, rows first. */
    pl = plan_dist(CM5_SCHED_BC_BR_XY_SOURCE, 8, 8, CM5S_BC_COL, 16, 0);
    cr_assert_eq(pl.rows_first, 1);
    cm5s_bc_plan_free(&pl);
    pl = plan_dist(CM5_SCHED_BC_BR_XY_SOURCE, 8, 8, CM5S_BC_ROW, 16, 0);
    cr_assert_eq(pl.rows_first, 0);
    cm5s_bc_plan_free(&pl);
    /* [AMB-16]: rows first iff r >= c. */
    pl = plan_dist(CM5_SCHED_BC_BR_XY_DIM, 4, 16, CM5S_BC_ROW, 16, 0);
    cr_assert_eq(pl.rows_first, 0);
    cm5s_bc_plan_free(&pl);
    pl = plan_dist(CM5_SCHED_BC_BR_XY_DIM, 16, 4, CM5S_BC_ROW, 16, 0);
    cr_assert_eq(pl.rows_first, 1);
    cm5s_bc_plan_free(&pl);
}

Test(plan_bcast, repos_moves_only_what_is_off_its_ideal)
{
    cm5s_bc_plan_t pl;

    /* Already the ideal row distribution (rows 0.., filled): nothing moves. */
    pl = plan_dist(CM5_SCHED_BC_REPOS, 8, 8, CM5S_BC_ROW_PREFIX, 20, 0);
    cr_assert_eq(stage_msgs(&pl, CM5S_BC_ST_MOVE), 0);
    cr_assert_eq(pl.stage_iters[CM5S_BC_ST_MOVE], 1);
    cm5s_bc_plan_free(&pl);
    /* Column 0 of 8x8 (8 sources): node 0 stays, 7 move into row 0. */
    pl = plan_dist(CM5_SCHED_BC_REPOS, 8, 8, CM5S_BC_COL, 8, 0);
    cr_assert_eq(stage_msgs(&pl, CM5S_BC_ST_MOVE), 7);
    for (int k = 0; k < 8; k++)
        cr_assert(pl.home[k] / 8 == 0, "every source ends in row 0");
    cm5s_bc_plan_free(&pl);
}

Test(plan_bcast, part_splits_8x8_cross_15_into_8_and_7)
{
    cm5s_bc_plan_t pl =
        plan_dist(CM5_SCHED_BC_PART_XY_SOURCE, 8, 8, CM5S_BC_CROSS, 15, 0);
    int k, top = 0;

    for (k = 0; k < 15; k++)
        top += pl.home[k] < 32;
    cr_assert_eq(top, 8, "G1 (4x8) holds round(15 * 32 / 64) = 8");
    cr_assert_eq(pl.nstages, 3);
    /* The final exchange: 32 pairs, both ways. */
    cr_assert_eq(stage_msgs(&pl, CM5S_BC_ST_EXCH), 64);
    cm5s_bc_plan_free(&pl);
    /* 5 x 4: halves of 12 and 8; the 4 leftovers receive too. */
    pl = plan_dist(CM5_SCHED_BC_PART_LIN, 5, 4, CM5S_BC_EQUAL, 10, 0);
    cr_assert_eq(stage_msgs(&pl, CM5S_BC_ST_EXCH), 8 + 12);
    cm5s_bc_plan_free(&pl);
}

Test(plan_bcast, two_step_gathers_at_node_0)
{
    cm5s_bc_plan_t pl =
        plan_dist(CM5_SCHED_BC_2STEP, 4, 4, CM5S_BC_EQUAL, 8, 0);
    int j;

    cr_assert_eq(stage_msgs(&pl, CM5S_BC_ST_MOVE), 7, "node 0 is a source");
    for (j = 0; j < pl.nmsg; j++) {
        if (pl.msg[j].stage == CM5S_BC_ST_MOVE)
            cr_assert_eq(pl.msg[j].to, 0);
        else
            cr_assert_eq(pl.msg[j].nsrc, 8, "node 0 sends the lot");
    }
    cm5s_bc_plan_free(&pl);
}

/* ---- cm5s_bc_layout: the runners' placement, replayed in memory ------- */

static unsigned char byte_of(int src, size_t k)
{
    return (unsigned char)(src * 31 + (int)k * 7 + 1);
}

/* Node l's op for message m: exactly one. */
static const cm5s_bc_op_t *op_of(const cm5s_bc_layout_t *l,
                                 const cm5s_bc_msg_t *m, int *used)
{
    const cm5s_bc_op_t *o = NULL;
    int k;

    for (k = 0; k < l->nop; k++)
        if (l->op[k].m == m) {
            cr_assert_null(o, "node %d has message %p twice", l->me,
                           (const void *)m);
            o = &l->op[k];
        }
    cr_assert_not_null(o, "node %d lacks a message of its own", l->me);
    cr_assert(o == l->op || (o - 1)->m < m, "plan order");
    (*used)++;
    return o;
}

/* Every node's layout of pl: each node's buffer holds the sources at
 * displ (elements of esz bytes); the messages of each iteration are
 * gathered, copied sender to receiver and scattered as the runners do.
 * Afterwards every node holds every source's bytes.  rev: the sources
 * lie in the buffer in decreasing rank (nothing combined lies back to
 * back), else increasing (exactly the messages whose sources are
 * consecutive go direct, but a receive of the own message). */
static void layout_replay(const cm5s_bc_plan_t *pl, size_t esz, int rev)
{
    int p = pl->p, i, j, k, lo, hi;
    size_t *displ = calloc((size_t)p, sizeof(size_t)), at = 0, tot;
    size_t *len = calloc((size_t)p, sizeof(size_t));
    cm5s_bc_layout_t *l = calloc((size_t)p, sizeof(*l));
    char **rb = calloc((size_t)p, sizeof(char *)), **tmp;
    int *cur = calloc((size_t)p, sizeof(int));

    for (k = 0; k < pl->s; k++)
        len[pl->src[k]] = pl->len[k];
    for (i = 0; i < p; i++) {
        int n = rev ? p - 1 - i : i;

        displ[n] = at;
        at += len[n];
    }
    tot = at * esz;
    for (i = 0; i < p; i++) {
        rb[i] = calloc(tot + 1, 1);
        for (k = 0; k < (int)(len[i] * esz); k++)
            rb[i][displ[i] * esz + (size_t)k] = (char)byte_of(i, (size_t)k);
        cr_assert_eq(cm5s_bc_layout(&l[i], pl, i, rb[i], displ, esz), CM5_OK);
    }
    tmp = calloc((size_t)pl->nmsg + 1, sizeof(char *));
    for (lo = 0; lo < pl->nmsg; lo = hi) {
        for (hi = lo; hi < pl->nmsg && pl->msg[hi].iter == pl->msg[lo].iter;)
            hi++;
        for (j = lo; j < hi; j++) { /* every send of the iteration */
            const cm5s_bc_msg_t *m = &pl->msg[j];
            const cm5s_bc_op_t *o = op_of(&l[m->from], m, &cur[m->from]);

            cr_assert_eq((size_t)o->len, m->len * esz);
            cm5s_bc_stage(&l[m->from], o, 1);
            tmp[j] = malloc((size_t)o->len + 1);
            memcpy(tmp[j], o->buf, (size_t)o->len);
        }
        for (j = lo; j < hi; j++) { /* then every receive */
            const cm5s_bc_msg_t *m = &pl->msg[j];
            const cm5s_bc_op_t *o = op_of(&l[m->to], m, &cur[m->to]);
            const int *set = pl->set + m->first;
            int direct = 1, own = 0;

            for (k = 0; k < m->nsrc; k++) {
                own |= pl->src[set[k]] == m->to;
                direct &= rev ? k == 0 : k == 0 || set[k] == set[k - 1] + 1;
            }
            cr_assert_eq(o->staged, !direct || own,
                         "message %d to node %d: staged %d", j, m->to,
                         o->staged);
            memcpy(o->buf, tmp[j], (size_t)o->len);
            cm5s_bc_stage(&l[m->to], o, 0);
            free(tmp[j]);
        }
    }
    for (i = 0; i < p; i++) {
        cr_assert_eq(cur[i], l[i].nop, "node %d: every op used", i);
        for (j = 0; j < p; j++)
            for (k = 0; k < (int)(len[j] * esz); k++)
                cr_assert_eq((unsigned char)rb[i][displ[j] * esz + (size_t)k],
                             byte_of(j, (size_t)k),
                             "node %d: byte %d of source %d", i, k, j);
        cm5s_bc_layout_free(&l[i]);
        cr_assert_null(l[i].op);
        free(rb[i]);
    }
    free(tmp);
    free(cur);
    free(rb);
    free(l);
    free(len);
    free(displ);
}

Test(plan_bcast, layout_places_and_stages_every_byte)
{
    cm5_sched_bcast_opts_t o = opts();
    static const int shapes[][2] = {{1, 7}, {4, 4}, {2, 8}, {3, 5}, {1, 1}};
    static const cm5s_bc_dist_t ds[] = {CM5S_BC_CROSS, CM5S_BC_EQUAL,
                                        CM5S_BC_BLOCK, CM5S_BC_DIAG_R};
    unsigned char m[16];
    size_t i, d;
    int a, rev;

    for (i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++)
        for (d = 0; d < sizeof(ds) / sizeof(ds[0]); d++) {
            int r = shapes[i][0], c = shapes[i][1], p = r * c;
            int s = p > 2 ? p / 2 + 1 : p;
            size_t *n;

            cr_assert_eq(cm5s_bc_dist(ds[d], r, c, s, 0, 0, m), s);
            n = counts_of(p, m);
            for (a = 1; a < CM5_SCHED_BC_NALGS; a++)
                for (rev = 0; rev < 2; rev++) {
                    cm5s_bc_plan_t pl;

                    plan_ok((cm5_sched_bcast_t)a, r, c, n, &o, &pl);
                    layout_replay(&pl, 3, rev);
                    cm5s_bc_plan_free(&pl);
                }
            free(n);
        }
}
