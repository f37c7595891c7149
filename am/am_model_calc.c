/*
 * The virtual-time model's arithmetic (am_model_calc.h): pure functions,
 * no runtime.  Its parameters, the presets and their parsing, are
 * boot/model_spec.c's.
 */
#include "am_model_calc.h"

#include <string.h>

int cm5i_model_level(int a, int b)
{
    if (a == b)
        return 0;
    if (a / 4 == b / 4)
        return 1;
    return a / 16 == b / 16 ? 2 : 3;
}

uint64_t cm5i_model_packets(size_t len)
{
    return len <= 16 ? 1 : (uint64_t)((len + 15) / 16);
}

uint64_t cm5i_model_send(const cm5i_model_params_t *p, cm5i_vnode_t *n,
                         uint64_t npk)
{
    uint64_t d0 = n->clock + (uint64_t)p->os;

    n->clock += npk * (uint64_t)p->os;
    return d0;
}

static uint64_t max64(uint64_t a, uint64_t b) { return a > b ? a : b; }

/* floor(log2 x), x >= 1 */
static uint64_t ilog2_64(uint64_t x)
{
    uint64_t r = 0;

    while (x >>= 1)
        r++;
    return r;
}

/* The packets reach the link at d0 + L + i * os (the sender's pace) and
 * pass it one per period, after what it carries already; the node takes
 * each as it comes (orr), or all of them after what it was doing. */
uint64_t cm5i_model_recv(const cm5i_model_params_t *p, cm5i_vnode_t *r, int lv,
                         uint64_t d0, uint64_t npk, int64_t extra)
{
    uint64_t per = (uint64_t)(p->g > p->pkt[lv] ? p->g : p->pkt[lv]);
    uint64_t last = d0 + (npk - 1) * (uint64_t)p->os + (uint64_t)p->L;
    uint64_t s0 = max64(d0 + (uint64_t)p->L, r->link_free);
    uint64_t sl = max64(last, s0 + (npk - 1) * per);
    uint64_t orr = (uint64_t)p->orr;

    r->link_free = sl + per;
    r->clock =
        max64(max64(r->clock, s0) + npk * orr, sl + orr) + (uint64_t)extra;
    return sl - (uint64_t)p->L;
}

uint64_t cm5i_model_rendezvous(const cm5i_model_params_t *p, uint64_t d0,
                               uint64_t post)
{
    return max64(d0 + (uint64_t)p->L, post) + 2 * (uint64_t)p->orr +
           (uint64_t)p->L;
}

uint64_t cm5i_model_switch_q(const cm5i_model_params_t *p, uint64_t open)
{
    if (p->sw <= 0 || open < 2)
        return 0;
    return (uint64_t)p->orr + (uint64_t)p->sw * ilog2_64(open);
}

uint64_t cm5i_model_take_q(const cm5i_model_params_t *p, int lv)
{
    uint64_t per = (uint64_t)(p->g > p->pkt[lv] ? p->g : p->pkt[lv]);

    return max64(per, (uint64_t)p->orr);
}

void cm5i_model_rx_job(const cm5i_model_params_t *p, int lv, uint64_t d0,
                       uint64_t start, uint64_t npk, int64_t extra, int src,
                       cm5i_rxjob_t *j)
{
    memset(j, 0, sizeof(*j));
    j->d0 = d0;
    j->start = start;
    j->s0 = start + (uint64_t)p->L;
    j->npk = npk;
    j->os = (uint64_t)p->os;
    j->q = cm5i_model_take_q(p, lv);
    j->extra = (uint64_t)extra;
    j->src = src;
}

/* Its packets start at max(t, s0), one per q, none before it arrives
 * (s0 + i os).  Its sender is not held back by a busy input: how long it
 * would be depends on receipts that may land later in real time but come
 * first in virtual time, so a sender's clock would depend on the host's
 * interleaving (doc/model.md, "What the model lacks"). */
uint64_t cm5i_model_rx_serve(cm5i_rxjob_t *j, uint64_t t)
{
    uint64_t start = max64(t, j->s0);
    uint64_t last =
        max64(start + (j->npk - 1) * j->q, j->s0 + (j->npk - 1) * j->os);

    j->left = j->start + (j->npk - 1) * j->os;
    j->end = last + j->q + j->extra;
    return j->end;
}

static int rx_before(const cm5i_rxjob_t *a, const cm5i_rxjob_t *b)
{
    return a->s0 < b->s0 || (a->s0 == b->s0 && a->src < b->src);
}

size_t cm5i_model_rx_insert(cm5i_rxjob_t *q, size_t n, uint64_t base,
                            const cm5i_rxjob_t *j)
{
    size_t at = n;
    uint64_t t;

    while (at > 0 && rx_before(j, &q[at - 1]))
        at--;
    memmove(&q[at + 1], &q[at], (n - at) * sizeof(*q));
    q[at] = *j;
    t = at ? q[at - 1].end : base;
    for (size_t i = at; i <= n; i++)
        t = cm5i_model_rx_serve(&q[i], t);
    return at;
}

uint64_t cm5i_model_take(const cm5i_model_params_t *p, cm5i_vnode_t *r, int lv,
                         uint64_t start, uint64_t npk, uint64_t extra,
                         uint64_t *left, uint64_t *ack)
{
    uint64_t q = cm5i_model_take_q(p, lv), L = (uint64_t)p->L;
    uint64_t s0 = start + L, n1 = npk ? npk - 1 : 0;
    uint64_t b = max64(r->clock, s0);
    uint64_t last = max64(b + n1 * q, s0 + n1 * (uint64_t)p->os);

    *left = last - L;
    *ack = max64(*left, r->clock + L);
    r->clock = last + q + extra;
    return r->clock;
}

/* A batch's job j, its last packet taken at *t: when it left its sender,
 * when the sender learns it, when the node has it (*t moves past its
 * cost, at least *sq, and its extra); then open receipts are left, which
 * sets *sq. */
static void take_ends(const cm5i_model_params_t *p, cm5i_take_job_t *j,
                      uint64_t *t, uint64_t ack0, uint64_t *sq, uint64_t open)
{
    j->left = *t - (uint64_t)p->L;
    j->ack = max64(j->left, ack0);
    *t += max64(j->q, *sq) + j->extra;
    j->end = *t;
    *sq = cm5i_model_switch_q(p, open); /* (one fewer open) */
}

uint64_t cm5i_model_take_batch(const cm5i_model_params_t *p, cm5i_vnode_t *r,
                               uint64_t b, cm5i_take_job_t *jobs, size_t n)
{
    uint64_t t = max64(b, r->clock), L = (uint64_t)p->L, done = 0;
    uint64_t ack0 = max64(b, r->clock) + L;
    uint64_t rem[n ? n : 1];

    for (size_t k = 0; k < n; k++) {
        rem[k] = jobs[k].npk ? jobs[k].npk : 1;
        jobs[k].end = 0;
    }
    while (done < n) {
        uint64_t m = UINT64_MAX, per = 0, sq;

        /* the fewest packets left: the rounds until the next ends; a
         * packet of each of the c pushes still open costs at least
         * orr + sw * floor(log2 c) (switching between them) */
        for (size_t k = 0; k < n; k++)
            if (rem[k] && rem[k] < m)
                m = rem[k];
        sq = cm5i_model_switch_q(p, n - done);
        for (size_t k = 0; k < n; k++)
            if (rem[k])
                per += max64(jobs[k].q, sq);
        t += (m - 1) * per;
        for (size_t k = 0; k < n; k++) { /* the last of those rounds */
            if (!rem[k])
                continue;
            rem[k] -= m;
            if (rem[k]) {
                t += max64(jobs[k].q, sq);
                continue;
            }
            take_ends(p, &jobs[k], &t, ack0, &sq, n - ++done);
        }
    }
    r->clock = t;
    return t;
}

uint64_t cm5i_model_cn_cost(const cm5i_model_params_t *p, cm5i_cn_kind_t kind,
                            size_t n)
{
    switch (kind) {
    case CM5I_CN_BARRIER:
        return (uint64_t)p->bar;
    case CM5I_CN_REDUCE:
        return (uint64_t)p->red + (uint64_t)p->redv * (n ? n - 1 : 0);
    case CM5I_CN_REDUCE_FP:
        return (uint64_t)p->redf + (uint64_t)p->redv * (n ? n - 1 : 0);
    case CM5I_CN_BCAST:
        return (uint64_t)p->bar + (uint64_t)p->cnb * n;
    }
    return 0;
}

/* ---- the fat tree's shared links (cm5:lk=1) ---- */

int cm5i_links_init(cm5i_links_t *lk, uint32_t *mem, int n, uint32_t R,
                    const cm5i_model_params_t *p)
{
    uint32_t c = ((uint32_t)n + 3) / 4, g = ((uint32_t)n + 15) / 16;

    memset(lk, 0, sizeof(*lk));
    lk->cal = mem;
    lk->R = R;
    lk->nclusters = c > 1 ? c : 0;
    lk->ngroups = g > 1 ? g : 0;
    lk->nlinks = 2 * (lk->nclusters + lk->ngroups);
    if (p->lkb <= 0 || p->lkp[2] <= 0 || p->lkp[3] <= 0)
        return -1;
    lk->B = (uint64_t)p->lkb;
    lk->cap[0] = (uint32_t)(lk->B * 4 / (uint64_t)p->lkp[2]);
    lk->cap[1] = (uint32_t)(lk->B * 16 / (uint64_t)p->lkp[3]);
    return lk->cap[0] && lk->cap[1] ? 0 : -1;
}

int cm5i_links_path(const cm5i_links_t *lk, int a, int b, uint32_t *path)
{
    int np = 0;

    if (lk->nclusters && a / 4 != b / 4) {
        path[np++] = 2 * (uint32_t)(a / 4);
        path[np++] = 2 * (uint32_t)(b / 4) + 1;
    }
    if (lk->ngroups && a / 16 != b / 16) {
        uint32_t base = 2 * lk->nclusters;

        path[np++] = base + 2 * (uint32_t)(a / 16);
        path[np++] = base + 2 * (uint32_t)(b / 16) + 1;
    }
    return np;
}

static uint32_t *links_bucket(cm5i_links_t *lk, uint32_t link, uint64_t b)
{
    return &lk->cal[2 * ((uint64_t)link * lk->R + b % lk->R)];
}

uint64_t cm5i_links_place(cm5i_links_t *lk, const uint32_t *path, int np,
                          uint64_t t)
{
    uint64_t b = t / lk->B, end = lk->lo / lk->B + lk->R;

    for (; b < end && b < UINT32_MAX; b++) {
        int k;

        for (k = 0; k < np; k++) {
            const uint32_t *e = links_bucket(lk, path[k], b);
            uint32_t cap =
                path[k] < 2 * lk->nclusters ? lk->cap[0] : lk->cap[1];

            if (e[0] == (uint32_t)(b + 1) && e[1] >= cap)
                break;
        }
        if (k < np)
            continue; /* a link on the way is full in this bucket */
        for (k = 0; k < np; k++) {
            uint32_t *e = links_bucket(lk, path[k], b);

            if (e[0] != (uint32_t)(b + 1)) { /* (an old bucket's) */
                e[0] = (uint32_t)(b + 1);
                e[1] = 0;
            }
            e[1]++;
        }
        return b == t / lk->B ? t : b * lk->B;
    }
    lk->overflow = 1;
    return t;
}

uint64_t cm5i_model_take_lk(const cm5i_model_params_t *p, cm5i_vnode_t *r,
                            int lv, cm5i_links_t *lk, const uint32_t *path,
                            int np, uint64_t start, uint64_t npk,
                            uint64_t extra, uint64_t *left, uint64_t *ack)
{
    uint64_t q = cm5i_model_take_q(p, lv), L = (uint64_t)p->L;
    uint64_t s0 = start + L, n1 = npk ? npk - 1 : 0, t;

    if (!lk || np == 0)
        return cm5i_model_take(p, r, lv, start, npk, extra, left, ack);
    t = cm5i_links_place(lk, path, np, max64(r->clock, s0));
    for (uint64_t i = 1; i <= n1; i++)
        t = cm5i_links_place(lk, path, np,
                             max64(t + q, s0 + i * (uint64_t)p->os));
    *left = t - L;
    *ack = max64(*left, r->clock + L);
    r->clock = t + q + extra;
    return r->clock;
}

uint64_t cm5i_model_take_batch_lk(const cm5i_model_params_t *p, cm5i_vnode_t *r,
                                  uint64_t b, cm5i_links_t *lk,
                                  cm5i_take_job_t *jobs, size_t n)
{
    uint64_t t = max64(b, r->clock), L = (uint64_t)p->L, done = 0;
    uint64_t ack0 = t + L, sq = cm5i_model_switch_q(p, n);
    uint64_t rem[n ? n : 1];

    if (!lk)
        return cm5i_model_take_batch(p, r, b, jobs, n);
    for (size_t k = 0; k < n; k++) {
        rem[k] = jobs[k].npk ? jobs[k].npk : 1;
        jobs[k].end = 0;
    }
    /* (cm5i_model_take_batch's rounds, a packet at a time) */
    while (done < n)
        for (size_t k = 0; k < n; k++) {
            if (!rem[k])
                continue;
            if (jobs[k].np)
                t = cm5i_links_place(lk, jobs[k].path, jobs[k].np, t);
            if (--rem[k]) {
                t += max64(jobs[k].q, sq);
                continue;
            }
            take_ends(p, &jobs[k], &t, ack0, &sq, n - ++done);
        }
    r->clock = t;
    return t;
}
