/*
 * RS_N and RS_NH planners (wang1993 section 3.3; ALGORITHMS.md 1.3, 1.4).
 *
 * Every phase is a greedy maximal partial permutation: rows are visited in
 * a random (or fixed, or longest-first) order and each row takes the first
 * of its remaining destinations whose column is still free in this phase.
 * RS_N keeps each row's destinations in a random order (CCOM) and starts
 * the scan at a random offset ([AMB-3]); RS_NH keeps a max-heap by
 * remaining size (ties broken by a random key drawn once per entry, so
 * that uniform sizes behave like RS_N) and cuts each phase's messages at
 * a cutoff ([AMB-4]).  Deterministic for a given matrix and options.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "plan_rsn.h"
#include "sched_internal.h"

#define RSN_STREAM 0x52534e00u /* "RSN": the planner's RNG stream */

typedef struct {
    size_t rem;    /* elements left to send */
    uint64_t prio; /* random tie-break */
    int col;
} hent_t;

/* Working state of one planning run. */
typedef struct {
    int p, heaps;
    const cm5_sched_opts_t *o;
    cm5s_rng_t rng;
    int width;      /* largest fan-out: row stride of the arrays below */
    int *cc;        /* RS_N: live destinations of row i (CCOM) */
    hent_t *heap;   /* RS_NH: max-heap of row i */
    hent_t *held;   /* RS_NH: entries popped while searching */
    int *len;       /* live entries in row i */
    int *ccnt;      /* live entries in column k */
    size_t *rsum;   /* RS_NH: remaining volume of row i */
    size_t *csum;   /* RS_NH: remaining volume of column k */
    hent_t *chosen; /* RS_NH: entry row i took this phase */
    size_t *sel;    /* RS_NH: sizes selected this phase (quantile) */
    int *rows, *bucket;
    size_t live;            /* entries not yet completely scheduled */
    int cap;                /* phases allocated in out */
    uint64_t steps, hsteps; /* work so far (cm5s_rsn_plan_t) */
} plan_t;

static void plan_release(plan_t *s)
{
    free(s->cc);
    free(s->heap);
    free(s->held);
    free(s->len);
    free(s->ccnt);
    free(s->rsum);
    free(s->csum);
    free(s->chosen);
    free(s->sel);
    free(s->rows);
    free(s->bucket);
}

/* ---- heaps --------------------------------------------------------------- */

static int hent_less(const hent_t *a, const hent_t *b)
{
    if (a->rem != b->rem)
        return a->rem < b->rem;
    return a->prio < b->prio;
}

static void heap_push(hent_t *h, int *n, hent_t e, uint64_t *hsteps)
{
    int i = (*n)++;

    ++*hsteps;
    while (i > 0 && hent_less(&h[(i - 1) / 2], &e)) {
        h[i] = h[(i - 1) / 2];
        i = (i - 1) / 2;
        ++*hsteps;
    }
    h[i] = e;
}

static hent_t heap_pop(hent_t *h, int *n, uint64_t *hsteps)
{
    hent_t top = h[0], last = h[--(*n)];
    int i = 0, c;

    ++*hsteps;
    while ((c = 2 * i + 1) < *n) {
        ++*hsteps;
        if (c + 1 < *n && hent_less(&h[c], &h[c + 1]))
            c++;
        if (!hent_less(&last, &h[c]))
            break;
        h[i] = h[c];
        i = c;
    }
    if (*n > 0)
        h[i] = last;
    return top;
}

/* ---- set-up -------------------------------------------------------------- */

static cm5_status_t plan_alloc(plan_t *s)
{
    size_t p = (size_t)s->p, w = (size_t)(s->width ? s->width : 1);

    s->len = calloc(p, sizeof(int));
    s->ccnt = calloc(p, sizeof(int));
    s->rows = malloc(p * sizeof(int));
    s->bucket = malloc((p + 1) * sizeof(int));
    if (s->heaps) {
        s->heap = malloc(p * w * sizeof(hent_t));
        s->held = malloc(w * sizeof(hent_t));
        s->rsum = calloc(p, sizeof(size_t));
        s->csum = calloc(p, sizeof(size_t));
        s->chosen = malloc(p * sizeof(hent_t));
        s->sel = malloc(p * sizeof(size_t));
        if (!s->heap || !s->held || !s->rsum || !s->csum || !s->chosen ||
            !s->sel)
            return CM5_ERR_NO_MEMORY;
    } else {
        s->cc = malloc(p * w * sizeof(int));
        if (!s->cc)
            return CM5_ERR_NO_MEMORY;
    }
    if (!s->len || !s->ccnt || !s->rows || !s->bucket)
        return CM5_ERR_NO_MEMORY;
    return CM5_OK;
}

/* CCOM (RS_N: shuffled destinations) or the heaps (RS_NH). */
static void plan_fill(plan_t *s, const size_t *com)
{
    int p = s->p, i, k;

    for (i = 0; i < p; i++) {
        int *row = s->cc ? s->cc + (size_t)i * s->width : NULL;
        hent_t *h = s->heap ? s->heap + (size_t)i * s->width : NULL;

        for (k = 0; k < p; k++) {
            size_t v = com[(size_t)i * p + k];
            hent_t e;

            if (k == i || v == 0)
                continue;
            s->ccnt[k]++;
            s->live++;
            if (row) {
                row[s->len[i]++] = k;
                continue;
            }
            e.rem = v;
            e.prio = cm5s_rng_next(&s->rng);
            e.col = k;
            heap_push(h, &s->len[i], e, &s->hsteps);
            s->rsum[i] += v;
            s->csum[k] += v;
        }
        if (row)
            cm5s_rng_shuffle(&s->rng, row, s->len[i]);
    }
}

/* ---- one phase ----------------------------------------------------------- */

/* The order in which rows pick this phase. */
static void plan_order(plan_t *s)
{
    int p = s->p, i, n;

    switch (s->o->rsn_row_order) {
    case CM5_SCHED_ROW_FIXED:
        for (i = 0; i < p; i++)
            s->rows[i] = i;
        break;
    case CM5_SCHED_ROW_LONGEST: /* counting sort, stable, longest first */
        memset(s->bucket, 0, (size_t)(p + 1) * sizeof(int));
        for (i = 0; i < p; i++)
            s->bucket[s->len[i]]++;
        for (n = 0, i = p; i >= 0; i--) {
            int c = s->bucket[i];

            s->bucket[i] = n;
            n += c;
        }
        for (i = 0; i < p; i++)
            s->rows[s->bucket[s->len[i]]++] = i;
        break;
    default:
        for (i = 0; i < p; i++)
            s->rows[i] = i;
        cm5s_rng_shuffle(&s->rng, s->rows, p);
        break;
    }
}

/* RS_N: the first free destination of row i from a random start. */
static int pick_ccom(plan_t *s, int i, const int *precv)
{
    int *row = s->cc + (size_t)i * s->width, n = s->len[i], j, start;

    start = n > 1 ? (int)cm5s_rng_below(&s->rng, (uint64_t)n) : 0;
    for (j = 0; j < n; j++) {
        int idx = (start + j) % n, k = row[idx];

        s->steps++;
        if (precv[k] == -1) {
            row[idx] = row[n - 1];
            s->len[i] = n - 1;
            return k;
        }
    }
    return -1;
}

/* RS_NH: the largest remaining message of row i whose column is free;
 * it leaves the heap (plan_cut puts back what is left of it). */
static int pick_heap(plan_t *s, int i, const int *precv)
{
    hent_t *h = s->heap + (size_t)i * s->width;
    int nheld = 0, k = -1;

    while (s->len[i] > 0) {
        hent_t e = heap_pop(h, &s->len[i], &s->hsteps);

        if (precv[e.col] == -1) {
            s->chosen[i] = e;
            k = e.col;
            break;
        }
        s->held[nheld++] = e;
    }
    while (nheld > 0)
        heap_push(h, &s->len[i], s->held[--nheld], &s->hsteps);
    return k;
}

static int cmp_size(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;

    return (x > y) - (x < y);
}

/* [AMB-4] cutoff of this phase; rsum/csum/len/ccnt still hold the volumes
 * and counts from before the phase. */
static size_t plan_cutoff(plan_t *s, const int *psend)
{
    size_t t = 0, d = 0, m = 0, idx;
    int i, p = s->p;

    switch (s->o->rsnh_cutoff) {
    case CM5_SCHED_CUTOFF_NONE:
        return SIZE_MAX;
    case CM5_SCHED_CUTOFF_QUANTILE:
        for (i = 0; i < p; i++)
            if (psend[i] >= 0)
                s->sel[m++] = s->chosen[i].rem;
        qsort(s->sel, m, sizeof(size_t), cmp_size);
        idx = (size_t)ceil(s->o->rsnh_quantile * (double)m - 1e-9);
        idx = idx < 1 ? 0 : (idx > m ? m - 1 : idx - 1);
        return s->sel[idx];
    default: /* critical: ceil(T_rem / D_rem) */
        for (i = 0; i < p; i++) {
            /* row i's count: its heap plus the entry it took */
            size_t f = (size_t)s->len[i] + (psend[i] >= 0);

            t = s->rsum[i] > t ? s->rsum[i] : t;
            t = s->csum[i] > t ? s->csum[i] : t;
            d = f > d ? f : d;
            d = (size_t)s->ccnt[i] > d ? (size_t)s->ccnt[i] : d;
        }
        return (t + d - 1) / d;
    }
}

/* RS_NH: every selected pair sends min(remaining, cutoff). */
static void plan_cut(plan_t *s, const int *psend, size_t *size)
{
    size_t c = plan_cutoff(s, psend);
    int i;

    for (i = 0; i < s->p; i++) {
        hent_t e;
        size_t n;

        if (psend[i] < 0)
            continue;
        e = s->chosen[i];
        n = e.rem < c ? e.rem : c;
        size[i] = n;
        s->rsum[i] -= n;
        s->csum[e.col] -= n;
        e.rem -= n;
        if (e.rem > 0) {
            heap_push(s->heap + (size_t)i * s->width, &s->len[i], e,
                      &s->hsteps);
        } else {
            s->ccnt[e.col]--;
            s->live--;
        }
    }
}

static cm5_status_t plan_grow(plan_t *s, cm5s_rsn_plan_t *out)
{
    size_t n, p = (size_t)s->p;
    int cap = s->cap ? 2 * s->cap : 16;
    void *a, *b, *c;

    if (out->nphases < s->cap)
        return CM5_OK;
    n = (size_t)cap * p;
    a = realloc(out->psend, n * sizeof(int));
    if (a)
        out->psend = a;
    b = realloc(out->precv, n * sizeof(int));
    if (b)
        out->precv = b;
    c = realloc(out->size, n * sizeof(size_t));
    if (c)
        out->size = c;
    if (!a || !b || !c)
        return CM5_ERR_NO_MEMORY;
    s->cap = cap;
    return CM5_OK;
}

static cm5_status_t plan_phase(plan_t *s, const size_t *com,
                               cm5s_rsn_plan_t *out)
{
    size_t base = (size_t)out->nphases * (size_t)s->p;
    int *psend, *precv, r;
    size_t *size;
    cm5_status_t st = plan_grow(s, out);

    if (st != CM5_OK)
        return st;
    psend = out->psend + base;
    precv = out->precv + base;
    size = out->size + base;
    for (r = 0; r < s->p; r++) {
        psend[r] = precv[r] = -1;
        size[r] = 0;
    }
    plan_order(s);
    s->steps += 2 * (uint64_t)s->p; /* (the clearing, the row order) */
    for (r = 0; r < s->p; r++) {
        int i = s->rows[r], k;

        s->steps++;
        if (s->len[i] == 0)
            continue;
        k = s->heaps ? pick_heap(s, i, precv) : pick_ccom(s, i, precv);
        if (k < 0)
            continue;
        psend[i] = k;
        precv[k] = i;
        if (!s->heaps) {
            size[i] = com[(size_t)i * s->p + k];
            s->ccnt[k]--;
            s->live--;
        }
    }
    if (s->heaps) {
        plan_cut(s, psend, size);
        s->steps += (uint64_t)s->p;
    }
    out->nphases++;
    return CM5_OK;
}

/* ---- entry points ----------------------------------------------------------
 */

cm5_status_t cm5s_plan_rsn(int p, const size_t *com, const cm5_sched_opts_t *o,
                           int heaps, cm5s_rsn_plan_t *out)
{
    plan_t s;
    cm5_status_t st;
    int i, k;

    memset(out, 0, sizeof(*out));
    if (p < 1 || !com || !o)
        return CM5_ERR_INVALID;
    memset(&s, 0, sizeof(s));
    s.p = p;
    s.heaps = heaps;
    s.o = o;
    cm5s_rng_seed(&s.rng, o->seed, RSN_STREAM + (heaps ? 1 : 0));
    for (i = 0; i < p; i++) {
        int f = 0;

        for (k = 0; k < p; k++)
            f += k != i && com[(size_t)i * p + k] > 0;
        s.width = f > s.width ? f : s.width;
    }
    st = plan_alloc(&s);
    if (st == CM5_OK) {
        plan_fill(&s, com);
        s.hsteps = 0; /* (building the heaps is not counted: plan_rsn.h) */
        out->p = p;
        while (s.live > 0 && st == CM5_OK)
            st = plan_phase(&s, com, out);
        out->steps = s.steps;
        out->hsteps = s.hsteps;
    }
    plan_release(&s);
    if (st != CM5_OK)
        cm5s_rsn_plan_free(out);
    return st;
}

void cm5s_rsn_plan_free(cm5s_rsn_plan_t *plan)
{
    free(plan->psend);
    free(plan->precv);
    free(plan->size);
    memset(plan, 0, sizeof(*plan));
}
