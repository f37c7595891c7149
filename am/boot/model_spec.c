/*
 * A CM5_MODEL value (boot/model_spec.h): the presets and their parsing.
 * The figures and where they come from are in doc/model.md; the presets
 * below are its calibrated values.
 */
#include "boot/model_spec.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define US 1000 /* nanoseconds */

/* The CM-5 (doc/model.md, "Parameters"). */
static const cm5i_model_params_t model_cm5 = {
    .name = "cm5",
    .os = 1600,                  /* von Eicken et al. 1992 (wang1993 2.2) */
    .orr = 1700,                 /* von Eicken et al. 1992 (wang1993 2.2) */
    .L = 6 * US,                 /* Culler et al. 1993 (LogP) */
    .g = 0,                      /* the overheads and the links pace packets */
    .pkt = {0, 800, 1600, 2000}, /* 20, 10, ~8 MB/s by level */
    .ms = 28300,                 /* fitted: wang1993 Table 2, d = 1 */
    .mr = 4300,                  /* fitted: wang1993 Table 2, 256 B, d = 31 */
    .mx = 125 * US,  /* fitted: wang1993 Table 4, RS_N, d = 16, 16 B (sync) */
    .irq = 23 * US,  /* fitted: wang1993 Table 3, AM, d = 16 (sync) */
    .bar = 5 * US,   /* CMMD 3.1: about 5 us (NPAC); 4 us (Mohr 1993) */
    .red = 5 * US,   /* CMMD 3.1, integer reductions: about 5 us */
    .redf = 25 * US, /* CMMD 3.1, floating point: about 25 us */
    .redv = 10 * US, /* fitted: wang1993 Table 3, AM, its part not in d */
    .cnb = 1620,     /* fitted: wang1993 Table 3, concatenate */
    .clk = 1 * US,
    .poll = 1 * US, /* chosen: an empty poll in a program's loop */
    .il = 1,        /* interleaved receipt (synchronised only) */
    .sw = 190,      /* fitted: wang1993 Table 2, 4096 B, d = 4, 16, 31 */
    .pj = 64,       /* a loop of probes: up to 64 polls at once */
    .lk = 0,        /* shared links: opt-in (doc/model.md, "Shared links") */
    .lkp = {0, 0, 1600, 3200}, /* 10, 5 MB/s a node (TOP500 1994) */
    .lkb = 8 * US,             /* chosen: 20 and 40 packets a bucket */
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
    .poll = 1 * US,
    .pj = 64,
};

/* A parameter: its key, and where it goes (microseconds, or MB/s for a
 * bandwidth, which sets a packet's link time, or a count, or a switch:
 * 0 or 1). */
enum { KEY_US, KEY_BW, KEY_COUNT, KEY_FLAG };
typedef struct {
    const char *key;
    size_t off, off2; /* off2: a second field ("o": os and orr) */
    int kind;         /* KEY_* */
} model_key_t;

#define F(f) offsetof(cm5i_model_params_t, f)
static const model_key_t model_keys[] = {
    {"L", F(L), 0, KEY_US},        {"o", F(os), F(orr), KEY_US},
    {"os", F(os), 0, KEY_US},      {"or", F(orr), 0, KEY_US},
    {"g", F(g), 0, KEY_US},        {"bw1", F(pkt[1]), 0, KEY_BW},
    {"bw2", F(pkt[2]), 0, KEY_BW}, {"bw3", F(pkt[3]), 0, KEY_BW},
    {"ms", F(ms), 0, KEY_US},      {"mr", F(mr), 0, KEY_US},
    {"mx", F(mx), 0, KEY_US},      {"irq", F(irq), 0, KEY_US},
    {"il", F(il), 0, KEY_FLAG},    {"bc", F(bc), 0, KEY_FLAG},
    {"sw", F(sw), 0, KEY_US},      {"pj", F(pj), 0, KEY_COUNT},
    {"bar", F(bar), 0, KEY_US},    {"red", F(red), 0, KEY_US},
    {"redf", F(redf), 0, KEY_US},  {"redv", F(redv), 0, KEY_US},
    {"cnb", F(cnb), 0, KEY_US},    {"clk", F(clk), 0, KEY_US},
    {"poll", F(poll), 0, KEY_US},  {"lk", F(lk), 0, KEY_FLAG},
    {"lk2", F(lkp[2]), 0, KEY_BW}, {"lk3", F(lkp[3]), 0, KEY_BW},
    {"lkb", F(lkb), 0, KEY_US},
};
#undef F
#define NKEYS (sizeof(model_keys) / sizeof(*model_keys))

static int model_set(cm5i_model_params_t *p, const char *kv, char *err,
                     size_t errlen)
{
    const char *eq = strchr(kv, '=');
    size_t klen = eq ? (size_t)(eq - kv) : strlen(kv);
    char *end, keys[320];
    size_t n = 0;
    double v;

    for (size_t i = 0; i < NKEYS; i++) {
        const model_key_t *k = &model_keys[i];

        if (strlen(k->key) != klen || strncmp(k->key, kv, klen) != 0)
            continue;
        v = eq ? strtod(eq + 1, &end) : NAN;
        if (!eq || end == eq + 1 || *end || !isfinite(v) || v < 0 || v > 1e9 ||
            (k->kind == KEY_BW && v == 0) ||
            (k->kind == KEY_COUNT && v != floor(v)) ||
            (k->kind == KEY_FLAG && v != 0 && v != 1)) {
            snprintf(err, errlen, "'%s' needs %s", kv,
                     k->kind == KEY_BW      ? "a number > 0 (MB/s)"
                     : k->kind == KEY_COUNT ? "a whole number >= 0"
                     : k->kind == KEY_FLAG  ? "0 (off) or 1 (on)"
                                            : "a number >= 0 (microseconds)");
            return -1;
        }
        if (k->kind == KEY_BW)
            v = 16.0 / v * US; /* a packet's link time */
        else if (k->kind == KEY_US)
            v *= US;
        *(int64_t *)((char *)p + k->off) = (int64_t)(v + 0.5);
        if (k->off2)
            *(int64_t *)((char *)p + k->off2) = (int64_t)(v + 0.5);
        return 0;
    }
    /* (the keys, as the table has them) */
    keys[0] = '\0';
    for (size_t i = 0; i < NKEYS && n < sizeof(keys); i++)
        n += (size_t)snprintf(keys + n, sizeof(keys) - n, "%s%s", i ? ", " : "",
                              model_keys[i].key);
    snprintf(err, errlen, "unknown parameter '%.*s' (%s)", (int)klen, kv, keys);
    return -1;
}

int cm5i_model_number(const char *s, double *v)
{
    char *end;

    *v = strtod(s, &end);
    return end != s && !*end && *v >= 0 && *v <= 1e9 ? 0 : -1;
}

int cm5i_model_seed(const char *s, unsigned long long *seed)
{
    char *end;

    errno = 0;
    *seed = strtoull(s, &end, 0);
    return end != s && !*end && *s != '-' && errno == 0 ? 0 : -1;
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
        if (spec[nlen + 1] == '\0' || strlen(spec + nlen + 1) >= sizeof(buf)) {
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
    if (p->lk) {
        /* (a bucket carries at least one packet on each link) */
        if (!p->lkp[2] || !p->lkp[3] || p->lkb * 4 < p->lkp[2] ||
            p->lkb * 16 < p->lkp[3]) {
            snprintf(err, errlen,
                     "lk=1 needs lk2 and lk3 (MB/s a node) and a bucket lkb "
                     "in which each link carries a packet");
            return -1;
        }
        if (p->bc) {
            snprintf(err, errlen,
                     "lk=1 with bc=1 is not built (shared "
                     "links take receipts as il=1 does)");
            return -1;
        }
    }
    *on = 1;
    return 0;
}
