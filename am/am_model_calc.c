/*
 * The virtual-time model's parameters and arithmetic (am_model_calc.h): pure
 * functions, no runtime.  The figures and where they come from are in
 * doc/model.md; the presets below are its calibrated values.
 */
#include "am_model_calc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define US 1000 /* nanoseconds */

/* The CM-5 (doc/model.md, "Parameters"). */
static const cm5i_model_params_t model_cm5 = {
    .name = "cm5",
    .os = 1600,          /* von Eicken et al. 1992 */
    .orr = 1700,         /* von Eicken et al. 1992 */
    .L = 6 * US,         /* Culler et al. 1993 (LogP) */
    .g = 0,              /* the overheads and the links pace packets */
    .pkt = {0, 800, 1600, 2000}, /* 20, 10, ~8 MB/s by level */
    .ms = 19600,         /* fitted: wang1993 Table 2, d = 1 */
    .mr = 13 * US,       /* fitted: wang1993 Table 2, 256 B, d = 31 */
    .bar = 5 * US,       /* CMMD 3.1: about 5 us (NPAC); 4 us (Mohr 1993) */
    .red = 5 * US,       /* CMMD 3.1, integer reductions: about 5 us */
    .redf = 25 * US,     /* CMMD 3.1, floating point: about 25 us */
    .redv = 10 * US,     /* fitted: wang1993 Table 3, AM, its part not in d */
    .cnb = 1620,         /* fitted: wang1993 Table 3, concatenate */
    .clk = 1 * US,
};

/* LogP with the LogP paper's CM-5 figures; L, o, g may be set. */
static const cm5i_model_params_t model_logp = {
    .name = "logp",
    .os = 2200,
    .orr = 2200,
    .L = 6 * US,
    .g = 4 * US,
    .pkt = {0, 0, 0, 0},
    .bar = 5 * US,
    .red = 5 * US,
    .redf = 25 * US,
    .redv = 10 * US,
    .cnb = 1620,
    .clk = 1 * US,
};

/* A parameter: its key, and where it goes (microseconds, or MB/s for a
 * bandwidth, which sets a packet's link time). */
typedef struct {
    const char *key;
    size_t off, off2; /* off2: a second field ("o": os and orr) */
    int bw;
} model_key_t;

#define F(f) offsetof(cm5i_model_params_t, f)
static const model_key_t model_keys[] = {
    {"L", F(L), 0, 0},      {"o", F(os), F(orr), 0}, {"os", F(os), 0, 0},
    {"or", F(orr), 0, 0},   {"g", F(g), 0, 0},       {"bw1", F(pkt[1]), 0, 1},
    {"bw2", F(pkt[2]), 0, 1}, {"bw3", F(pkt[3]), 0, 1}, {"ms", F(ms), 0, 0},
    {"mr", F(mr), 0, 0},    {"bar", F(bar), 0, 0},   {"red", F(red), 0, 0},
    {"redf", F(redf), 0, 0}, {"redv", F(redv), 0, 0},
    {"cnb", F(cnb), 0, 0},  {"clk", F(clk), 0, 0},
};
#undef F

static int model_set(cm5i_model_params_t *p, const char *kv, char *err,
                     size_t errlen)
{
    const char *eq = strchr(kv, '=');
    size_t klen = eq ? (size_t)(eq - kv) : strlen(kv);
    char *end;
    double v;

    for (size_t i = 0; i < sizeof(model_keys) / sizeof(*model_keys); i++) {
        const model_key_t *k = &model_keys[i];

        if (strlen(k->key) != klen || strncmp(k->key, kv, klen) != 0)
            continue;
        v = eq ? strtod(eq + 1, &end) : NAN;
        if (!eq || end == eq + 1 || *end || !isfinite(v) || v < 0 ||
            v > 1e9 || (k->bw && v == 0)) {
            snprintf(err, errlen, "'%s' needs a number %s", kv,
                     k->bw ? "> 0 (MB/s)" : ">= 0 (microseconds)");
            return -1;
        }
        v = k->bw ? 16.0 / v * US : v * US; /* a packet's link time */
        *(int64_t *)((char *)p + k->off) = (int64_t)(v + 0.5);
        if (k->off2)
            *(int64_t *)((char *)p + k->off2) = (int64_t)(v + 0.5);
        return 0;
    }
    snprintf(err, errlen,
             "unknown parameter '%.*s' (L, o, os, or, g, bw1, bw2, bw3, "
             "ms, mr, bar, red, redf, redv, cnb, clk)",
             (int)klen, kv);
    return -1;
}

int cm5i_model_number(const char *s, double *v)
{
    char *end;

    *v = strtod(s, &end);
    return end != s && !*end && *v >= 0 && *v <= 1e9 ? 0 : -1;
}

int cm5i_model_parse(const char *spec, int *on, cm5i_model_params_t *p,
                     char *err, size_t errlen)
{
    size_t nlen = strcspn(spec, ":");
    char buf[256], *save = NULL;

    *on = 0;
    if (strcmp(spec, "off") == 0 || strcmp(spec, "") == 0)
        return 0;
    if (nlen == 3 && strncmp(spec, "cm5", 3) == 0)
        *p = model_cm5;
    else if (nlen == 4 && strncmp(spec, "logp", 4) == 0)
        *p = model_logp;
    else {
        snprintf(err, errlen,
                 "unknown model '%.*s' (off, cm5, cm5:KEY=VALUE,..., "
                 "logp:L=6,o=2.2,g=4)",
                 (int)nlen, spec);
        return -1;
    }
    if (spec[nlen] == ':') {
        if (spec[nlen + 1] == '\0' ||
            strlen(spec + nlen + 1) >= sizeof(buf)) {
            snprintf(err, errlen, "no parameters, or too many, after '%.*s:'",
                     (int)nlen, spec);
            return -1;
        }
        strcpy(buf, spec + nlen + 1);
        for (char *kv = strtok_r(buf, ",", &save); kv;
             kv = strtok_r(NULL, ",", &save))
            if (model_set(p, kv, err, errlen) < 0)
                return -1;
    }
    *on = 1;
    return 0;
}

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

static uint64_t max64(uint64_t a, uint64_t b)
{
    return a > b ? a : b;
}

/* The packets reach the link at d0 + L + i * os (the sender's pace) and
 * pass it one per period, after what it carries already; the node takes
 * each as it comes (orr), or all of them after what it was doing. */
uint64_t cm5i_model_recv(const cm5i_model_params_t *p, cm5i_vnode_t *r,
                         int lv, uint64_t d0, uint64_t npk, int64_t extra)
{
    uint64_t per = (uint64_t)(p->g > p->pkt[lv] ? p->g : p->pkt[lv]);
    uint64_t last = d0 + (npk - 1) * (uint64_t)p->os + (uint64_t)p->L;
    uint64_t s0 = max64(d0 + (uint64_t)p->L, r->link_free);
    uint64_t sl = max64(last, s0 + (npk - 1) * per);
    uint64_t orr = (uint64_t)p->orr;

    r->link_free = sl + per;
    r->clock = max64(max64(r->clock, s0) + npk * orr, sl + orr) +
               (uint64_t)extra;
    return sl - (uint64_t)p->L;
}

uint64_t cm5i_model_rendezvous(const cm5i_model_params_t *p, uint64_t d0,
                               uint64_t post)
{
    return max64(d0 + (uint64_t)p->L, post) + 2 * (uint64_t)p->orr +
           (uint64_t)p->L;
}

void cm5i_model_rx_job(const cm5i_model_params_t *p, int lv, uint64_t d0,
                       uint64_t start, uint64_t npk, int64_t extra, int src,
                       cm5i_rxjob_t *j)
{
    uint64_t per = (uint64_t)(p->g > p->pkt[lv] ? p->g : p->pkt[lv]);

    memset(j, 0, sizeof(*j));
    j->d0 = d0;
    j->start = start;
    j->s0 = start + (uint64_t)p->L;
    j->npk = npk;
    j->os = (uint64_t)p->os;
    j->q = max64(per, (uint64_t)p->orr);
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
    uint64_t last = max64(start + (j->npk - 1) * j->q,
                          j->s0 + (j->npk - 1) * j->os);

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

uint64_t cm5i_model_cn_cost(const cm5i_model_params_t *p,
                            cm5i_cn_kind_t kind, size_t n)
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
