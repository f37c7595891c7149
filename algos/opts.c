/*
 * cm5_sched_opts_set: "name=value" settings for the algorithms' knobs
 * (ALGORITHMS.md section 8), shared by cm5sched and the tests.  One
 * table: name, field, the setter that parses its value, its bounds or
 * value names, and its help line.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan_drs.h"
#include "sched_internal.h"

typedef struct opt opt_t;
/* Parse v into o's field d->off (or the fields d names). */
typedef cm5_status_t (*setter_t)(const opt_t *d, const char *v,
                                 cm5_sched_opts_t *o, char *err,
                                 size_t errlen);

struct opt {
    const char *name;
    setter_t set;
    size_t off;
    const char *const *enums; /* set_enum: value names, index = value */
    uint64_t lo, hi;          /* set_u64 / set_size bounds (hi 0: none) */
    const char *help;
};

#define OFF(f) offsetof(cm5_sched_opts_t, f)
#define FIELD(o, d) ((char *)(o) + (d)->off)

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

static cm5_status_t set_bool(const opt_t *d, const char *v,
                             cm5_sched_opts_t *o, char *err, size_t errlen)
{
    if (strcmp(v, "0") && strcmp(v, "1"))
        return bad(err, errlen, "option %s: '%s' is not 0 or 1", d->name, v);
    *(int *)FIELD(o, d) = v[0] == '1';
    return CM5_OK;
}

/* A non-negative integer in [d->lo, d->hi] (hi 0: up to the type's max). */
static cm5_status_t get_uint(const opt_t *d, const char *v, uint64_t max,
                             unsigned long long *u, char *err, size_t errlen)
{
    char *end;

    if (*v == '-')
        return bad(err, errlen, "option %s: '%s' is negative", d->name, v);
    errno = 0;
    *u = strtoull(v, &end, 0);
    if (!*v || *end || errno)
        return bad(err, errlen, "option %s: '%s' is not a non-negative integer",
                   d->name, v);
    if (d->hi && (*u < d->lo || *u > d->hi))
        return bad(err, errlen, "option %s: '%s' is not in %llu..%llu",
                   d->name, v, (unsigned long long)d->lo,
                   (unsigned long long)d->hi);
    if (*u < d->lo)
        return bad(err, errlen, "option %s: '%s' is not >= %llu", d->name, v,
                   (unsigned long long)d->lo);
    if (*u > max)
        return bad(err, errlen, "option %s: '%s' is too large", d->name, v);
    return CM5_OK;
}

static cm5_status_t set_u64(const opt_t *d, const char *v,
                            cm5_sched_opts_t *o, char *err, size_t errlen)
{
    unsigned long long u = 0;
    cm5_status_t rc = get_uint(d, v, UINT64_MAX, &u, err, errlen);

    if (rc == CM5_OK)
        *(uint64_t *)FIELD(o, d) = u;
    return rc;
}

static cm5_status_t set_size(const opt_t *d, const char *v,
                             cm5_sched_opts_t *o, char *err, size_t errlen)
{
    unsigned long long u = 0;
    cm5_status_t rc = get_uint(d, v, SIZE_MAX, &u, err, errlen);

    if (rc == CM5_OK)
        *(size_t *)FIELD(o, d) = (size_t)u;
    return rc;
}

static cm5_status_t set_double(const opt_t *d, const char *v,
                               cm5_sched_opts_t *o, char *err, size_t errlen)
{
    char *end;
    double x;

    errno = 0;
    x = strtod(v, &end);
    if (!*v || *end || errno)
        return bad(err, errlen, "option %s: '%s' is not a number", d->name, v);
    *(double *)FIELD(o, d) = x;
    return CM5_OK;
}

static cm5_status_t set_enum(const opt_t *d, const char *v,
                             cm5_sched_opts_t *o, char *err, size_t errlen)
{
    size_t len = 0;
    char list[128];
    int k;

    for (k = 0; d->enums[k]; k++)
        if (strcmp(d->enums[k], v) == 0) {
            *(int *)FIELD(o, d) = k;
            return CM5_OK;
        }
    list[0] = '\0';
    for (k = 0; d->enums[k]; k++)
        len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s",
                                k ? ", " : "", d->enums[k]);
    return bad(err, errlen, "option %s: '%s' is not one of %s", d->name, v,
               list);
}

static cm5_status_t set_cutoff(const opt_t *d, const char *v,
                               cm5_sched_opts_t *o, char *err, size_t errlen)
{
    char *end;
    double q;

    (void)d;
    if (strcmp(v, "critical") == 0)
        o->rsnh_cutoff = CM5_SCHED_CUTOFF_CRITICAL;
    else if (strcmp(v, "none") == 0)
        o->rsnh_cutoff = CM5_SCHED_CUTOFF_NONE;
    else if (strncmp(v, "quantile:", 9) != 0)
        return bad(err, errlen,
                   "option rsnh_cutoff: '%s' is not critical, quantile:Q or "
                   "none",
                   v);
    else {
        errno = 0;
        q = strtod(v + 9, &end);
        if (!v[9] || *end || errno || !(q > 0 && q <= 1))
            return bad(err, errlen,
                       "option rsnh_cutoff: quantile '%s' is not in (0, 1]",
                       v + 9);
        o->rsnh_cutoff = CM5_SCHED_CUTOFF_QUANTILE;
        o->rsnh_quantile = q;
    }
    return CM5_OK;
}

static cm5_status_t set_engine(const opt_t *d, const char *v,
                               cm5_sched_opts_t *o, char *err, size_t errlen)
{
    (void)d;
    if (strcmp(v, "lp") == 0)
        o->twostage_engine = CM5_SCHED_LP;
    else if (strcmp(v, "drsn") == 0)
        o->twostage_engine = CM5_SCHED_DRSN;
    else
        return bad(err, errlen,
                   "option twostage_engine: '%s' is not lp or drsn", v);
    return CM5_OK;
}

static const char *const e_recv[] = {"given", "am", "concat", NULL};
static const char *const e_nonpow2[] = {"xor_skip", "shift", NULL};
static const char *const e_row[] = {"random", "fixed", "longest", NULL};
static const char *const e_hdr[] = {"auto", "dense", "sparse", NULL};
static const char *const e_a4[] = {"b", "n1", "n2", NULL};
static const char *const e_release[] = {"receiver", "sender", NULL};
static const char *const e_a2[] = {"ranka", "bader", NULL};

#define BOOL(n, f, h) {n, set_bool, OFF(f), NULL, 0, 0, h}
#define ENUM(n, f, e, h) {n, set_enum, OFF(f), e, 0, 0, h}
#define DBL(n, f, h) {n, set_double, OFF(f), NULL, 0, 0, h}

static const opt_t opts[] = {
    {"elem_size", set_size, OFF(elem_size), NULL, 1, 0,
     "bytes per element (1)"},
    {"seed", set_u64, OFF(seed), NULL, 0, 0,
     "random seed shared by all nodes (1)"},
    ENUM("recv", recv, e_recv,
         "recvcounts: given, am (Generate_Recv) or concat (given)"),
    {"recv_capacity", set_size, OFF(recv_capacity), NULL, 0, 0,
     "receive buffer elements when recvcounts are discovered (0)"},
    BOOL("interrupts", interrupts,
         "run with interrupts enabled instead of polling (0)"),
    BOOL("lp_barrier", lp_barrier,
         "LP: barrier after every step (0; ranka1995 uses 1)"),
    ENUM("lp_nonpow2", lp_shift, e_nonpow2,
         "LP for P not a power of two: xor_skip or shift (xor_skip)"),
    ENUM("rsn_row_order", rsn_row_order, e_row,
         "RS_N/RS_NH row order: random, fixed or longest (random)"),
    BOOL("rsn_phase_barrier", rsn_phase_barrier,
         "RS_N/RS_NH: barrier between phases (0)"),
    {"rsnh_cutoff", set_cutoff, 0, NULL, 0, 0,
     "RS_NH cutoff: quantile:Q, critical or none (quantile:0.9)"},
    DBL("drs_retry_delay_us", drs_retry_delay_us,
        "DRS_N: wait before asking a node that denied again (0)"),
    ENUM("drs_release", drs_release_sender, e_release,
         "DRS_N lock release: receiver or sender (receiver)"),
    DBL("drs_mu_ns_per_byte", drs_mu_ns_per_byte,
        "DRS_N+ busy measure: ns per byte (-1: measure)"),
    DBL("drs_tau_us", drs_tau_us,
        "DRS_N+ busy measure: start-up time (-1: measure)"),
    DBL("drs_theta_us", drs_theta_us,
        "DRS_N+ early go-ahead window (-1: INQ round trip + tau; 0: off)"),
    {"drs_chunk_max", set_size, OFF(drs_chunk_max), NULL, 1,
     CM5S_DRS_CHUNK_LIMIT,
     "DRS_N: longest piece in bytes, one inquiry each (1073741824)"},
    {"twostage_engine", set_engine, 0, NULL, 0, 0,
     "two-stage: lp or drsn for each stage (lp)"},
    BOOL("stg1_rotate", stg1_rotate,
         "two-stage: round robin starts at k = i (0)"),
    BOOL("stg1_shuffle", stg1_shuffle,
         "two-stage: ranka1995 6.3 random reshuffle (0)"),
    ENUM("hdr_format", hdr_format, e_hdr,
         "two-stage headers: auto, dense or sparse (auto)"),
    ENUM("a2", a2_bader, e_a2, "A2 variant: ranka or bader (ranka)"),
    ENUM("a4_mode", a4_mode, e_a4,
         "A4 communication: b (blocking), n1 or n2 (b)"),
    BOOL("a4_rotate_counters", a4_rotate_counters,
         "A4: counters start at (i + j) mod C (0)"),
    BOOL("a4_unordered", a4_unordered,
         "A4: no placement data; records packed in arrival order (0)"),
};

#define NOPTS (sizeof(opts) / sizeof(opts[0]))

cm5_status_t cm5_sched_opts_set(cm5_sched_opts_t *o, const char *setting,
                                char *err, size_t errlen)
{
    const char *eq = setting ? strchr(setting, '=') : NULL;
    size_t n, i;

    if (!o || !eq || eq == setting)
        return bad(err, errlen, "option '%s' is not name=value",
                   setting ? setting : "(null)");
    n = (size_t)(eq - setting);
    for (i = 0; i < NOPTS; i++)
        if (strlen(opts[i].name) == n && !strncmp(opts[i].name, setting, n))
            return opts[i].set(&opts[i], eq + 1, o, err, errlen);
    return bad(err, errlen, "unknown option '%.*s' (see cm5sched --help)",
               (int)n, setting);
}

const char *cm5_sched_opts_help(void)
{
    static char text[4096];
    size_t len = 0, i;

    if (text[0])
        return text;
    for (i = 0; i < NOPTS; i++)
        len += (size_t)snprintf(text + len, sizeof(text) - len, "  %-20s %s\n",
                                opts[i].name, opts[i].help);
    return text;
}
