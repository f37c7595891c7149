/*
 * The s-to-p broadcasting planners (ALGORITHMS.md section 4), pure: every
 * node's holdings are simulated iteration by iteration; a message carries
 * the set its sender held at the start of the iteration (a move carries
 * one source and takes it away from its sender: Repos, Part and 2-Step's
 * gather).  The receiver merges what it gets at the end of the iteration.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan_bcast.h"

/* A part of the mesh: rows x0.., columns y0.., r x c of them. */
typedef struct {
    int x0, y0, r, c;
} sub_t;

/* A line of ranks for br_lin. */
typedef struct {
    int *rank, n;
} grp_t;

int cm5s_bc_log2(int n)
{
    int k = 0;

    while ((1L << k) < n)
        k++;
    return k;
}

static uint64_t *pl_hold(cm5s_bc_plan_t *pl, uint64_t *base, int node)
{
    return base + (size_t)node * (size_t)pl->words;
}

static int set_count(const uint64_t *set, int words)
{
    int i, n = 0;

    for (i = 0; i < words; i++)
        n += __builtin_popcountll(set[i]);
    return n;
}

/* ---- recording messages ------------------------------------------------ */

static void pl_begin(cm5s_bc_plan_t *pl)
{
    memcpy(pl->snap, pl->hold,
           (size_t)pl->p * (size_t)pl->words * sizeof(uint64_t));
}

static void pl_end(cm5s_bc_plan_t *pl, int stage)
{
    pl->niters++;
    pl->stage_iters[stage]++;
}

static cm5_status_t pl_grow(cm5s_bc_plan_t *pl, int nsrc)
{
    if (pl->nmsg == pl->msgcap) {
        int cap = pl->msgcap ? 2 * pl->msgcap : 64;
        cm5s_bc_msg_t *m = realloc(pl->msg, (size_t)cap * sizeof(*m));

        if (!m)
            return CM5_ERR_NO_MEMORY;
        pl->msg = m;
        pl->msgcap = cap;
    }
    if (pl->nset + (size_t)nsrc > pl->setcap) {
        size_t cap = pl->setcap ? 2 * pl->setcap : 256;
        int *s;

        while (cap < pl->nset + (size_t)nsrc)
            cap *= 2;
        s = realloc(pl->set, cap * sizeof(*s));
        if (!s)
            return CM5_ERR_NO_MEMORY;
        pl->set = s;
        pl->setcap = cap;
    }
    return CM5_OK;
}

/* from sends to the set (none when empty); to merges it. */
static cm5_status_t pl_send_set(cm5s_bc_plan_t *pl, int stage, int from, int to,
                                const uint64_t *set)
{
    int n = set_count(set, pl->words), k, w;
    uint64_t *dst = pl_hold(pl, pl->hold, to);
    cm5s_bc_msg_t *m;

    if (n == 0)
        return CM5_OK;
    if (pl_grow(pl, n) != CM5_OK)
        return CM5_ERR_NO_MEMORY;
    m = &pl->msg[pl->nmsg++];
    m->iter = pl->niters;
    m->stage = stage;
    m->from = from;
    m->to = to;
    m->nsrc = n;
    m->first = pl->nset;
    m->len = 0;
    for (k = 0; k < pl->s; k++)
        if (set[k / 64] >> (k % 64) & 1) {
            pl->set[pl->nset++] = k;
            m->len += pl->len[k];
        }
    for (w = 0; w < pl->words; w++)
        dst[w] |= set[w];
    return CM5_OK;
}

/* from sends what it held at the start of the iteration. */
static cm5_status_t pl_send(cm5s_bc_plan_t *pl, int stage, int from, int to)
{
    return pl_send_set(pl, stage, from, to, pl_hold(pl, pl->snap, from));
}

/* Source k moves from `from` to `to` (the sender no longer holds it). */
static cm5_status_t pl_move(cm5s_bc_plan_t *pl, int k, int from, int to)
{
    uint64_t one[pl->words];

    memset(one, 0, sizeof(one));
    one[k / 64] = 1ULL << (k % 64);
    if (pl_send_set(pl, CM5S_BC_ST_MOVE, from, to, one) != CM5_OK)
        return CM5_ERR_NO_MEMORY;
    pl_hold(pl, pl->hold, from)[k / 64] &= ~one[k / 64];
    return CM5_OK;
}

/* ---- br_lin over groups in parallel ----------------------------------- */

/* One level: g_i <-> g_{i+h} for i < floor(n/2), h = ceil(n/2); with n
 * odd g_{h-1} also sends to g_{n-1} ([AMB-15]).  Then halve. */
static cm5_status_t brlin_level(cm5s_bc_plan_t *pl, grp_t *seg, int *nseg)
{
    int k, i, n0 = *nseg;

    for (k = 0; k < n0; k++) {
        int n = seg[k].n, h = (n + 1) / 2;
        int *g = seg[k].rank;

        if (n < 2)
            continue;
        for (i = 0; i < n / 2; i++)
            if (pl_send(pl, CM5S_BC_ST_BCAST, g[i], g[i + h]) ||
                pl_send(pl, CM5S_BC_ST_BCAST, g[i + h], g[i]))
                return CM5_ERR_NO_MEMORY;
        if (n % 2 &&
            pl_send(pl, CM5S_BC_ST_BCAST, g[h - 1], g[n - 1]) != CM5_OK)
            return CM5_ERR_NO_MEMORY;
        seg[k].n = h;
        seg[*nseg].rank = g + h;
        seg[(*nseg)++].n = n - h;
    }
    return CM5_OK;
}

/* br_lin inside every group at once; iterations: ceil(log2 longest). */
static cm5_status_t pl_brlin(cm5s_bc_plan_t *pl, const grp_t *g, int ng)
{
    int k, lv, levels = 0, nseg = ng;
    grp_t *seg = malloc(((size_t)pl->p + (size_t)ng) * sizeof(*seg));
    cm5_status_t rc = CM5_OK;

    if (!seg)
        return CM5_ERR_NO_MEMORY;
    for (k = 0; k < ng; k++) {
        seg[k] = g[k];
        if (cm5s_bc_log2(g[k].n) > levels)
            levels = cm5s_bc_log2(g[k].n);
    }
    for (lv = 0; lv < levels && rc == CM5_OK; lv++) {
        pl_begin(pl);
        rc = brlin_level(pl, seg, &nseg);
        pl_end(pl, CM5S_BC_ST_BCAST);
    }
    free(seg);
    return rc;
}

/* ---- groups of a sub-mesh ------------------------------------------------ */

static int sub_rank(const cm5s_bc_plan_t *pl, const sub_t *m, int x, int y)
{
    return (m->x0 + x) * pl->c + m->y0 + y;
}

/* The sub-mesh in br_lin's linear order, written at out. */
static grp_t sub_linear(const cm5s_bc_plan_t *pl, const sub_t *m, int rowmajor,
                        int *out)
{
    int x, y, n = 0;
    grp_t g = {out, m->r * m->c};

    for (x = 0; x < m->r; x++)
        for (y = 0; y < m->c; y++)
            out[n++] =
                sub_rank(pl, m, x, rowmajor || x % 2 == 0 ? y : m->c - 1 - y);
    return g;
}

/* Its rows (cols = 0) or columns as groups, appended to g[*ng], ranks at
 * out (r * c of them). */
static void sub_lines(const cm5s_bc_plan_t *pl, const sub_t *m, int cols,
                      grp_t *g, int *ng, int *out)
{
    int nl = cols ? m->c : m->r, len = cols ? m->r : m->c, l, q;

    for (l = 0; l < nl; l++) {
        g[*ng].rank = out + (size_t)l * len;
        g[(*ng)++].n = len;
        for (q = 0; q < len; q++)
            out[(size_t)l * len + q] =
                cols ? sub_rank(pl, m, q, l) : sub_rank(pl, m, l, q);
    }
}

/* Br_xy_source's rule on the current holders: rows first iff max_r <
 * max_c. */
static int sub_rows_first(cm5s_bc_plan_t *pl, const sub_t *m)
{
    int x, y, n, max_r = 0, max_c = 0;

    for (x = 0; x < m->r; x++) {
        for (y = n = 0; y < m->c; y++)
            n += set_count(pl_hold(pl, pl->hold, sub_rank(pl, m, x, y)),
                           pl->words) > 0;
        max_r = n > max_r ? n : max_r;
    }
    for (y = 0; y < m->c; y++) {
        for (x = n = 0; x < m->r; x++)
            n += set_count(pl_hold(pl, pl->hold, sub_rank(pl, m, x, y)),
                           pl->words) > 0;
        max_c = n > max_c ? n : max_c;
    }
    return max_r < max_c;
}

/* br_lin (xy = 0) or br_xy with rows first as rf[i], on nm sub-meshes at
 * once. */
static cm5_status_t pl_subs(cm5s_bc_plan_t *pl, const sub_t *m, int nm, int xy,
                            const int *rf)
{
    int *ranks = malloc(2 * (size_t)pl->p * sizeof(int)), i, ph, ng, used;
    grp_t *g = malloc(2 * (size_t)pl->p * sizeof(*g));
    cm5_status_t rc = CM5_OK;

    if (!ranks || !g) {
        free(ranks);
        free(g);
        return CM5_ERR_NO_MEMORY;
    }
    for (ph = 0; ph < (xy ? 2 : 1) && rc == CM5_OK; ph++) {
        for (i = ng = used = 0; i < nm; i++) {
            if (m[i].r * m[i].c == 0)
                continue;
            if (xy)
                sub_lines(pl, &m[i], rf[i] == ph, g, &ng, ranks + used);
            else
                g[ng++] = sub_linear(pl, &m[i], pl->rowmajor, ranks + used);
            used += m[i].r * m[i].c;
        }
        rc = pl_brlin(pl, g, ng);
    }
    free(ranks);
    free(g);
    return rc;
}

/* ---- repositioning ------------------------------------------------------- */

/* The ideal distribution of n sources for alg (BR_LIN or BR_XY_SOURCE)
 * on sub-mesh m, marked in the global mask want. */
static int pl_ideal(cm5s_bc_plan_t *pl, cm5_sched_bcast_t alg, const sub_t *m,
                    int n, unsigned char *want)
{
    unsigned char *t;
    int x, y, got;

    if (m->r * m->c == 0)
        return n == 0 ? 0 : -1;
    if (!(t = malloc((size_t)(m->r * m->c))))
        return -1;
    if (alg == CM5_SCHED_BC_BR_XY_SOURCE)
        got = cm5s_bc_dist(CM5S_BC_ROW_PREFIX, m->r, m->c, n, 0, 0, t);
    else if (pl->ideal_prefix)
        got =
            cm5s_bc_dist(CM5S_BC_LIN_PREFIX, m->r, m->c, n, pl->rowmajor, 0, t);
    else
        got = cm5s_bc_dist(CM5S_BC_DIAG_L, m->r, m->c, n, 0, 0, t);
    for (x = 0; x < m->r; x++)
        for (y = 0; y < m->c; y++)
            if (t[x * m->c + y])
                want[sub_rank(pl, m, x, y)] = 1;
    free(t);
    return got == n ? 0 : -1;
}

/* Move the sources onto want (s ranks): a source already there stays,
 * the others (in rank order) go to the free wanted ranks (in rank order).
 * One iteration. */
static cm5_status_t pl_reposition(cm5s_bc_plan_t *pl, unsigned char *want)
{
    int k, t = 0;
    cm5_status_t rc = CM5_OK;

    pl_begin(pl);
    for (k = 0; k < pl->s; k++)
        if (want[pl->src[k]])
            want[pl->src[k]] = 2; /* taken by its own source */
    for (k = 0; k < pl->s && rc == CM5_OK; k++) {
        if (want[pl->src[k]] == 2)
            continue;
        while (want[t] != 1)
            t++;
        want[t] = 2;
        pl->home[k] = t;
        rc = pl_move(pl, k, pl->src[k], t);
    }
    pl_end(pl, CM5S_BC_ST_MOVE);
    return rc;
}

static cm5_status_t pl_repos(cm5s_bc_plan_t *pl, cm5_sched_bcast_t inner)
{
    sub_t all = {0, 0, pl->r, pl->c};
    unsigned char *want = calloc((size_t)pl->p, 1);
    cm5_status_t rc;
    int rf = 0;

    if (!want)
        return CM5_ERR_NO_MEMORY;
    if (pl_ideal(pl, inner, &all, pl->s, want) != 0) {
        free(want);
        return CM5_ERR_INVALID;
    }
    rc = pl_reposition(pl, want);
    free(want);
    if (rc != CM5_OK)
        return rc;
    rf = pl->rows_first = sub_rows_first(pl, &all);
    return pl_subs(pl, &all, 1, inner == CM5_SCHED_BC_BR_XY_SOURCE, &rf);
}

/* ---- partition ------------------------------------------------------------
 */

/* G1: the top ceil(r/2) rows (the left ceil(c/2) columns when r = 1). */
static void part_halves(const cm5s_bc_plan_t *pl, sub_t *g)
{
    if (pl->r >= 2) {
        g[0] = (sub_t){0, 0, (pl->r + 1) / 2, pl->c};
        g[1] = (sub_t){(pl->r + 1) / 2, 0, pl->r / 2, pl->c};
    } else {
        g[0] = (sub_t){0, 0, 1, (pl->c + 1) / 2};
        g[1] = (sub_t){0, (pl->c + 1) / 2, 1, pl->c / 2};
    }
}

/* G1[i] <-> G2[i], i < min(p1, p2); the larger half's leftovers i receive
 * from G_small[i mod p_small] ([AMB-18]).  One iteration. */
static cm5_status_t part_exchange(cm5s_bc_plan_t *pl, const sub_t *g)
{
    int n[2] = {g[0].r * g[0].c, g[1].r * g[1].c}, big = n[1] > n[0], i;
    int sm = !big;
    cm5_status_t rc = CM5_OK;

#define G(h, i) sub_rank(pl, &g[h], (i) / g[h].c, (i) % g[h].c)
    pl_begin(pl);
    for (i = 0; i < n[big] && n[sm] > 0 && rc == CM5_OK; i++) {
        rc = pl_send(pl, CM5S_BC_ST_EXCH, G(sm, i % n[sm]), G(big, i));
        if (i < n[sm] && rc == CM5_OK)
            rc = pl_send(pl, CM5S_BC_ST_EXCH, G(big, i), G(sm, i));
    }
#undef G
    pl_end(pl, CM5S_BC_ST_EXCH);
    return rc;
}

static cm5_status_t pl_part(cm5s_bc_plan_t *pl, cm5_sched_bcast_t inner)
{
    sub_t g[2];
    unsigned char *want = calloc((size_t)pl->p, 1);
    int p1, s1, rf[2];
    cm5_status_t rc;

    if (!want)
        return CM5_ERR_NO_MEMORY;
    part_halves(pl, g);
    p1 = g[0].r * g[0].c;
    s1 = (int)((2L * pl->s * p1 + pl->p) / (2L * pl->p)); /* round */
    if (pl_ideal(pl, inner, &g[0], s1, want) != 0 ||
        pl_ideal(pl, inner, &g[1], pl->s - s1, want) != 0) {
        free(want);
        return CM5_ERR_INVALID;
    }
    rc = pl_reposition(pl, want);
    free(want);
    if (rc != CM5_OK)
        return rc;
    rf[0] = pl->rows_first = sub_rows_first(pl, &g[0]);
    rf[1] = sub_rows_first(pl, &g[1]);
    rc = pl_subs(pl, g, 2, inner == CM5_SCHED_BC_BR_XY_SOURCE, rf);
    return rc != CM5_OK ? rc : part_exchange(pl, g);
}

/* ---- the brute-force two ------------------------------------------------ */

/* Step k: i <-> i XOR k, each source sending its own message only. */
static cm5_status_t pl_xor(cm5s_bc_plan_t *pl)
{
    int steps = (1 << cm5s_bc_log2(pl->p)) - 1, k, j;
    uint64_t one[pl->words];
    cm5_status_t rc = CM5_OK;

    for (k = 1; k <= steps && rc == CM5_OK; k++) {
        pl_begin(pl);
        for (j = 0; j < pl->s && rc == CM5_OK; j++) {
            int i = pl->src[j];

            memset(one, 0, sizeof(one));
            one[j / 64] = 1ULL << (j % 64);
            if ((i ^ k) < pl->p)
                rc = pl_send_set(pl, CM5S_BC_ST_BCAST, i, i ^ k, one);
        }
        pl_end(pl, CM5S_BC_ST_BCAST);
    }
    return rc;
}

/* Every source to node 0, then node 0 to all the br_lin way. */
static cm5_status_t pl_2step(cm5s_bc_plan_t *pl)
{
    sub_t all = {0, 0, pl->r, pl->c};
    int k, rf = 0;
    cm5_status_t rc = CM5_OK;

    pl_begin(pl);
    for (k = 0; k < pl->s && rc == CM5_OK; k++)
        if (pl->src[k] != 0) {
            pl->home[k] = 0;
            rc = pl_move(pl, k, pl->src[k], 0);
        }
    pl_end(pl, CM5S_BC_ST_MOVE);
    return rc != CM5_OK ? rc : pl_subs(pl, &all, 1, 0, &rf);
}

/* ---- the plan ---------------------------------------------------------------
 */

static cm5_status_t pl_alg(cm5s_bc_plan_t *pl, const cm5_sched_bcast_opts_t *o)
{
    sub_t all = {0, 0, pl->r, pl->c};
    int rf = 0;

    switch (pl->alg) {
    case CM5_SCHED_BC_BR_LIN:
        return pl_subs(pl, &all, 1, 0, &rf);
    case CM5_SCHED_BC_BR_XY_SOURCE:
    case CM5_SCHED_BC_BR_XY_DIM:
        rf = pl->alg == CM5_SCHED_BC_BR_XY_DIM ? pl->r >= pl->c
                                               : sub_rows_first(pl, &all);
        pl->rows_first = rf;
        return pl_subs(pl, &all, 1, 1, &rf);
    case CM5_SCHED_BC_XOR:
        return pl_xor(pl);
    case CM5_SCHED_BC_2STEP:
        return pl_2step(pl);
    case CM5_SCHED_BC_REPOS:
        return pl_repos(pl, o->repos_alg);
    case CM5_SCHED_BC_PART_LIN:
        return pl_part(pl, CM5_SCHED_BC_BR_LIN);
    case CM5_SCHED_BC_PART_XY_SOURCE:
        return pl_part(pl, CM5_SCHED_BC_BR_XY_SOURCE);
    default:
        return CM5_ERR_INVALID;
    }
}

static const int alg_stages[CM5_SCHED_BC_NALGS] = {
    [CM5_SCHED_BC_BR_LIN] = 1,    [CM5_SCHED_BC_BR_XY_SOURCE] = 1,
    [CM5_SCHED_BC_BR_XY_DIM] = 1, [CM5_SCHED_BC_XOR] = 1,
    [CM5_SCHED_BC_2STEP] = 2,     [CM5_SCHED_BC_REPOS] = 2,
    [CM5_SCHED_BC_PART_LIN] = 3,  [CM5_SCHED_BC_PART_XY_SOURCE] = 3,
};

static cm5_status_t plan_fail(char *err, size_t errlen, cm5_status_t rc,
                              const char *what)
{
    if (err && errlen)
        snprintf(err, errlen, "%s", what);
    return rc;
}

static cm5_status_t plan_init(cm5s_bc_plan_t *pl, int p, int r, int c,
                              const size_t *counts)
{
    int i, k = 0;

    pl->p = p;
    pl->r = r;
    pl->c = c;
    for (i = 0; i < p; i++)
        pl->s += counts[i] > 0;
    pl->words = (pl->s + 63) / 64 + 1;
    pl->src = malloc(((size_t)pl->s + 1) * sizeof(int));
    pl->home = malloc(((size_t)pl->s + 1) * sizeof(int));
    pl->len = malloc(((size_t)pl->s + 1) * sizeof(size_t));
    pl->hold = calloc(2 * (size_t)p * (size_t)pl->words, sizeof(uint64_t));
    if (!pl->src || !pl->home || !pl->len || !pl->hold)
        return CM5_ERR_NO_MEMORY;
    pl->snap = pl->hold + (size_t)p * (size_t)pl->words;
    for (i = 0; i < p; i++)
        if (counts[i] > 0) {
            pl->src[k] = pl->home[k] = i;
            pl->len[k] = counts[i];
            pl_hold(pl, pl->hold, i)[k / 64] |= 1ULL << (k % 64);
            k++;
        }
    return CM5_OK;
}

cm5_status_t cm5s_bc_plan(cm5_sched_bcast_t alg, int p, int r, int c,
                          const size_t *counts, const cm5_sched_bcast_opts_t *o,
                          cm5s_bc_plan_t *pl, char *err, size_t errlen)
{
    cm5_status_t rc;

    memset(pl, 0, sizeof(*pl));
    if (alg <= CM5_SCHED_BC_AUTO || alg >= CM5_SCHED_BC_NALGS)
        return plan_fail(err, errlen, CM5_ERR_INVALID,
                         "no such broadcast algorithm");
    if (p < 1 || r < 1 || c < 1 || (long)r * c != p)
        return plan_fail(err, errlen, CM5_ERR_INVALID,
                         "the mesh does not multiply to p");
    if (o->repos_alg != CM5_SCHED_BC_BR_LIN &&
        o->repos_alg != CM5_SCHED_BC_BR_XY_SOURCE)
        return plan_fail(err, errlen, CM5_ERR_INVALID,
                         "repos_alg is neither br_lin nor br_xy_source");
    pl->alg = alg;
    pl->rowmajor = o->br_lin_rowmajor;
    pl->ideal_prefix = o->ideal_lin_prefix;
    pl->nstages = alg_stages[alg];
    rc = plan_init(pl, p, r, c, counts);
    if (rc == CM5_OK)
        rc = pl_alg(pl, o);
    if (rc != CM5_OK) {
        cm5s_bc_plan_free(pl);
        return plan_fail(err, errlen, rc,
                         rc == CM5_ERR_NO_MEMORY
                             ? "out of memory for the plan"
                             : "no ideal distribution fits the mesh");
    }
    free(pl->hold);
    pl->hold = pl->snap = NULL;
    return CM5_OK;
}

void cm5s_bc_plan_free(cm5s_bc_plan_t *pl)
{
    free(pl->src);
    free(pl->home);
    free(pl->len);
    free(pl->hold);
    free(pl->msg);
    free(pl->set);
    memset(pl, 0, sizeof(*pl));
}

/* ---- one node's messages placed (the runners' common part) ------------ */

static char *lay_src(const cm5s_bc_layout_t *l, int k)
{
    return l->rbuf + l->displ[l->pl->src[k]] * l->esz;
}

/* Straight from/into the buffer: the sources back to back and
 * (receiving) not this node's own message. */
static int lay_direct(const cm5s_bc_layout_t *l, const cm5s_bc_msg_t *m,
                      int recv)
{
    const int *set = l->pl->set + m->first;
    int i;

    for (i = 0; i < m->nsrc; i++) {
        if (recv && l->pl->src[set[i]] == l->me)
            return 0;
        if (i && lay_src(l, set[i - 1]) + l->pl->len[set[i - 1]] * l->esz !=
                     lay_src(l, set[i]))
            return 0;
    }
    return 1;
}

cm5_status_t cm5s_bc_layout(cm5s_bc_layout_t *l, const cm5s_bc_plan_t *pl,
                            int me, char *rbuf, const size_t *displ, size_t esz)
{
    size_t need = 0, at = 0;
    int j, n = 0;

    memset(l, 0, sizeof(*l));
    l->pl = pl;
    l->me = me;
    l->esz = esz;
    l->rbuf = rbuf;
    l->displ = displ;
    l->op = calloc((size_t)pl->nmsg + 1, sizeof(*l->op));
    if (!l->op)
        return CM5_ERR_NO_MEMORY;
    for (j = 0; j < pl->nmsg; j++) {
        const cm5s_bc_msg_t *m = &pl->msg[j];
        cm5s_bc_op_t *o = &l->op[n];

        if (m->from != me && m->to != me)
            continue;
        o->m = m;
        o->len = (int)(m->len * esz);
        o->staged = !lay_direct(l, m, m->to == me);
        if (o->staged)
            need += (size_t)o->len;
        else
            o->buf = lay_src(l, pl->set[m->first]);
        n++;
    }
    l->nop = n;
    l->arena = need ? malloc(need) : NULL;
    if (need && !l->arena) {
        cm5s_bc_layout_free(l);
        return CM5_ERR_NO_MEMORY;
    }
    for (j = 0; j < n; j++)
        if (l->op[j].staged) {
            l->op[j].buf = l->arena + at;
            at += (size_t)l->op[j].len;
        }
    return CM5_OK;
}

void cm5s_bc_layout_free(cm5s_bc_layout_t *l)
{
    free(l->op);
    free(l->arena);
    l->op = NULL;
    l->arena = NULL;
    l->nop = 0;
}

void cm5s_bc_stage(const cm5s_bc_layout_t *l, const cm5s_bc_op_t *o, int gather)
{
    const int *set = l->pl->set + o->m->first;
    char *b = o->buf;
    int i;

    if (!o->staged)
        return;
    for (i = 0; i < o->m->nsrc; i++) {
        size_t n = l->pl->len[set[i]] * l->esz;

        if (gather)
            memcpy(b, lay_src(l, set[i]), n);
        else if (l->pl->src[set[i]] != l->me)
            memcpy(lay_src(l, set[i]), b, n);
        b += n;
    }
}
