/*
 * cm5_sched_opts_set: "name=value" settings for the algorithms' knobs
 * (ALGORITHMS.md section 8), shared by cm5sched and the tests.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan_drs.h"
#include "sched_internal.h"

typedef enum { K_INT, K_BOOL, K_U64, K_SIZE, K_DOUBLE, K_ENUM } kind_t;

typedef struct {
    const char *name;
    kind_t kind;
    size_t off;
    const char *const *enums; /* K_ENUM: value names, index = value */
    const char *help;
} opt_t;

#define OFF(f) offsetof(cm5_sched_opts_t, f)

static const char *const e_recv[] = {"given", "am", "concat", NULL};
static const char *const e_nonpow2[] = {"xor_skip", "shift", NULL};
static const char *const e_row[] = {"random", "fixed", "longest", NULL};
static const char *const e_hdr[] = {"auto", "dense", "sparse", NULL};
static const char *const e_a4[] = {"b", "n1", "n2", NULL};
static const char *const e_release[] = {"receiver", "sender", NULL};
static const char *const e_a2[] = {"ranka", "bader", NULL};

static const opt_t opts[] = {
    {"elem_size", K_SIZE, OFF(elem_size), NULL, "bytes per element (1)"},
    {"seed", K_U64, OFF(seed), NULL, "random seed shared by all nodes (1)"},
    {"recv", K_ENUM, OFF(recv), e_recv,
     "recvcounts: given, am (Generate_Recv) or concat (given)"},
    {"recv_capacity", K_SIZE, OFF(recv_capacity), NULL,
     "receive buffer elements when recvcounts are discovered (0)"},
    {"interrupts", K_BOOL, OFF(interrupts), NULL,
     "run with interrupts enabled instead of polling (0)"},
    {"lp_barrier", K_BOOL, OFF(lp_barrier), NULL,
     "LP: barrier after every step (0; ranka1995 uses 1)"},
    {"lp_nonpow2", K_ENUM, OFF(lp_shift), e_nonpow2,
     "LP for P not a power of two: xor_skip or shift (xor_skip)"},
    {"rsn_row_order", K_ENUM, OFF(rsn_row_order), e_row,
     "RS_N/RS_NH row order: random, fixed or longest (random)"},
    {"rsn_phase_barrier", K_BOOL, OFF(rsn_phase_barrier), NULL,
     "RS_N/RS_NH: barrier between phases (0)"},
    {"rsnh_cutoff", K_ENUM, OFF(rsnh_cutoff), NULL,
     "RS_NH cutoff: quantile:Q, critical or none (quantile:0.9)"},
    {"drs_retry_delay_us", K_DOUBLE, OFF(drs_retry_delay_us), NULL,
     "DRS_N: wait before asking a node that denied again (0)"},
    {"drs_release", K_ENUM, OFF(drs_release_sender), e_release,
     "DRS_N lock release: receiver or sender (receiver)"},
    {"drs_mu_ns_per_byte", K_DOUBLE, OFF(drs_mu_ns_per_byte), NULL,
     "DRS_N+ busy measure: ns per byte (-1: measure)"},
    {"drs_tau_us", K_DOUBLE, OFF(drs_tau_us), NULL,
     "DRS_N+ busy measure: start-up time (-1: measure)"},
    {"drs_theta_us", K_DOUBLE, OFF(drs_theta_us), NULL,
     "DRS_N+ early go-ahead window (-1: INQ round trip + tau; 0: off)"},
    {"drs_chunk_max", K_SIZE, OFF(drs_chunk_max), NULL,
     "DRS_N: longest piece in bytes, one inquiry each (1073741824)"},
    {"twostage_engine", K_ENUM, OFF(twostage_engine), NULL,
     "two-stage: lp or drsn for each stage (lp)"},
    {"stg1_rotate", K_BOOL, OFF(stg1_rotate), NULL,
     "two-stage: round robin starts at k = i (0)"},
    {"stg1_shuffle", K_BOOL, OFF(stg1_shuffle), NULL,
     "two-stage: ranka1995 6.3 random reshuffle (0)"},
    {"hdr_format", K_ENUM, OFF(hdr_format), e_hdr,
     "two-stage headers: auto, dense or sparse (auto)"},
    {"a2", K_ENUM, OFF(a2_bader), e_a2, "A2 variant: ranka or bader (ranka)"},
    {"a4_mode", K_ENUM, OFF(a4_mode), e_a4,
     "A4 communication: b (blocking), n1 or n2 (b)"},
    {"a4_rotate_counters", K_BOOL, OFF(a4_rotate_counters), NULL,
     "A4: counters start at (i + j) mod C (0)"},
    {"a4_unordered", K_BOOL, OFF(a4_unordered), NULL,
     "A4: no placement data; records packed in arrival order (0)"},
};

/* Integer options with a range (hi 0: no upper bound). */
static const struct {
    size_t off;
    uint64_t lo, hi;
} ranges[] = {
    {OFF(elem_size), 1, 0},
    {OFF(drs_chunk_max), 1, CM5S_DRS_CHUNK_LIMIT},
};

static cm5_status_t bad(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;

    if (err && errlen) {
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return CM5_ERR_INVALID;
}

static int out_of_range(const opt_t *d, unsigned long long u)
{
    size_t i;

    if (d->kind == K_SIZE && u > SIZE_MAX)
        return 1;
    for (i = 0; i < sizeof(ranges) / sizeof(ranges[0]); i++)
        if (ranges[i].off == d->off)
            return u < ranges[i].lo || (ranges[i].hi && u > ranges[i].hi);
    return 0;
}

static cm5_status_t range_error(const opt_t *d, const char *v, char *err,
                                size_t errlen)
{
    size_t i;

    for (i = 0; i < sizeof(ranges) / sizeof(ranges[0]); i++)
        if (ranges[i].off == d->off && ranges[i].hi)
            return bad(err, errlen, "option %s: '%s' is not in %llu..%llu",
                       d->name, v, (unsigned long long)ranges[i].lo,
                       (unsigned long long)ranges[i].hi);
        else if (ranges[i].off == d->off)
            return bad(err, errlen, "option %s: '%s' is not >= %llu", d->name,
                       v, (unsigned long long)ranges[i].lo);
    return bad(err, errlen, "option %s: '%s' is too large", d->name, v);
}

static int enum_index(const char *const *names, const char *v)
{
    int i;

    for (i = 0; names[i]; i++)
        if (strcmp(names[i], v) == 0)
            return i;
    return -1;
}

cm5_status_t cm5_sched_opts_set(cm5_sched_opts_t *o, const char *setting,
                                char *err, size_t errlen)
{
    const char *eq = setting ? strchr(setting, '=') : NULL;
    const char *v;
    char *end;
    size_t n, i;

    if (!o || !eq || eq == setting)
        return bad(err, errlen, "option '%s' is not name=value",
                   setting ? setting : "(null)");
    n = (size_t)(eq - setting);
    v = eq + 1;
    for (i = 0; i < sizeof(opts) / sizeof(opts[0]); i++) {
        const opt_t *d = &opts[i];
        char *field = (char *)o + d->off;

        if (strlen(d->name) != n || strncmp(d->name, setting, n) != 0)
            continue;
        errno = 0;
        switch (d->kind) {
        case K_BOOL:
            if (strcmp(v, "0") && strcmp(v, "1"))
                return bad(err, errlen, "option %s: '%s' is not 0 or 1",
                           d->name, v);
            *(int *)field = v[0] == '1';
            return CM5_OK;
        case K_INT: {
            long l = strtol(v, &end, 0);

            if (!*v || *end || errno || l < -2147483647L || l > 2147483647L)
                return bad(err, errlen, "option %s: '%s' is not an integer",
                           d->name, v);
            *(int *)field = (int)l;
            return CM5_OK;
        }
        case K_U64:
        case K_SIZE: {
            unsigned long long u;

            if (*v == '-')
                return bad(err, errlen, "option %s: '%s' is negative",
                           d->name, v);
            u = strtoull(v, &end, 0);
            if (!*v || *end || errno)
                return bad(err, errlen,
                           "option %s: '%s' is not a non-negative integer",
                           d->name, v);
            if (out_of_range(d, u))
                return range_error(d, v, err, errlen);
            if (d->kind == K_U64)
                *(uint64_t *)field = u;
            else
                *(size_t *)field = (size_t)u;
            return CM5_OK;
        }
        case K_DOUBLE: {
            double x = strtod(v, &end);

            if (!*v || *end || errno)
                return bad(err, errlen, "option %s: '%s' is not a number",
                           d->name, v);
            *(double *)field = x;
            return CM5_OK;
        }
        case K_ENUM:
            break;
        }
        /* Enumerations. */
        if (d->off == OFF(rsnh_cutoff)) {
            if (strcmp(v, "critical") == 0)
                o->rsnh_cutoff = CM5_SCHED_CUTOFF_CRITICAL;
            else if (strcmp(v, "none") == 0)
                o->rsnh_cutoff = CM5_SCHED_CUTOFF_NONE;
            else if (strncmp(v, "quantile:", 9) == 0) {
                double q = strtod(v + 9, &end);

                if (!v[9] || *end || errno || !(q > 0 && q <= 1))
                    return bad(err, errlen,
                               "option rsnh_cutoff: quantile '%s' is not "
                               "in (0, 1]",
                               v + 9);
                o->rsnh_cutoff = CM5_SCHED_CUTOFF_QUANTILE;
                o->rsnh_quantile = q;
            } else
                return bad(err, errlen,
                           "option rsnh_cutoff: '%s' is not critical, "
                           "quantile:Q or none",
                           v);
            return CM5_OK;
        }
        if (d->off == OFF(twostage_engine)) {
            if (strcmp(v, "lp") == 0)
                o->twostage_engine = CM5_SCHED_LP;
            else if (strcmp(v, "drsn") == 0)
                o->twostage_engine = CM5_SCHED_DRSN;
            else
                return bad(err, errlen,
                           "option twostage_engine: '%s' is not lp or drsn",
                           v);
            return CM5_OK;
        }
        {
            int k = enum_index(d->enums, v);
            size_t len = 0;
            char list[128];

            if (k >= 0) {
                *(int *)field = k;
                return CM5_OK;
            }
            list[0] = '\0';
            for (k = 0; d->enums[k]; k++)
                len += (size_t)snprintf(list + len, sizeof(list) - len,
                                        "%s%s", k ? ", " : "", d->enums[k]);
            return bad(err, errlen, "option %s: '%s' is not one of %s",
                       d->name, v, list);
        }
    }
    return bad(err, errlen, "unknown option '%.*s' (see cm5sched --help)",
               (int)n, setting);
}

const char *cm5_sched_opts_help(void)
{
    static char text[4096];
    size_t len = 0, i;

    if (text[0])
        return text;
    for (i = 0; i < sizeof(opts) / sizeof(opts[0]); i++)
        len += (size_t)snprintf(text + len, sizeof(text) - len, "  %-20s %s\n",
                                opts[i].name, opts[i].help);
    return text;
}
