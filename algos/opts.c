/*
 * cm5_sched_opts_set: "name=value" settings for the algorithms' knobs
 * (ALGORITHMS.md section 8), shared by cm5sched and the tests.  One
 * table: name, field, the setter that parses its value, its bounds or
 * value names, and its help line.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "plan_drs.h"
#include "sched_internal.h"

#define OFF(f) offsetof(cm5_sched_opts_t, f)

static cm5_status_t set_cutoff(const cm5s_opt_t *d, const char *v, void *opts,
                               char *err, size_t errlen)
{
    cm5_sched_opts_t *o = opts;
    char *end;
    double q;

    (void)d;
    if (strcmp(v, "critical") == 0)
        o->rsnh_cutoff = CM5_SCHED_CUTOFF_CRITICAL;
    else if (strcmp(v, "none") == 0)
        o->rsnh_cutoff = CM5_SCHED_CUTOFF_NONE;
    else if (strncmp(v, "quantile:", 9) != 0)
        return cm5s_invalid(err, errlen,
                            "option rsnh_cutoff: '%s' is not critical, "
                            "quantile:Q or none",
                            v);
    else {
        errno = 0;
        q = strtod(v + 9, &end);
        if (!v[9] || *end || errno || !(q > 0 && q <= 1))
            return cm5s_invalid(err, errlen,
                                "option rsnh_cutoff: quantile '%s' is not "
                                "in (0, 1]",
                                v + 9);
        o->rsnh_cutoff = CM5_SCHED_CUTOFF_QUANTILE;
        o->rsnh_quantile = q;
    }
    return CM5_OK;
}

static cm5_status_t set_engine(const cm5s_opt_t *d, const char *v, void *opts,
                               char *err, size_t errlen)
{
    cm5_sched_opts_t *o = opts;

    (void)d;
    if (strcmp(v, "lp") == 0)
        o->twostage_engine = CM5_SCHED_LP;
    else if (strcmp(v, "drsn") == 0)
        o->twostage_engine = CM5_SCHED_DRSN;
    else
        return cm5s_invalid(
            err, errlen, "option twostage_engine: '%s' is not lp or drsn", v);
    return CM5_OK;
}

static const char *const e_recv[] = {"given", "am", "concat", NULL};
static const char *const e_nonpow2[] = {"xor_skip", "shift", NULL};
static const char *const e_row[] = {"random", "fixed", "longest", NULL};
static const char *const e_hdr[] = {"auto", "dense", "sparse", NULL};
static const char *const e_a4[] = {"b", "n1", "n2", NULL};
static const char *const e_release[] = {"receiver", "sender", NULL};
static const char *const e_drs_data[] = {"scopy", "cmmd", NULL};
static const char *const e_ts_data[] = {"scopy", "cmmd", NULL};
static const char *const e_a2[] = {"ranka", "bader", NULL};

#define BOOL(n, f, h)                                                          \
    {                                                                          \
        n, cm5s_opt_bool, OFF(f), NULL, 0, 0, h                                \
    }
#define ENUM(n, f, e, h)                                                       \
    {                                                                          \
        n, cm5s_opt_enum, OFF(f), e, 0, 0, h                                   \
    }
#define DBL(n, f, h)                                                           \
    {                                                                          \
        n, cm5s_opt_double, OFF(f), NULL, 0, 0, h                              \
    }

static const cm5s_opt_t opts[] = {
    {"elem_size", cm5s_opt_size, OFF(elem_size), NULL, 1, 0,
     "bytes per element (1)"},
    {"seed", cm5s_opt_u64, OFF(seed), NULL, 0, 0,
     "random seed shared by all nodes (1)"},
    ENUM("recv", recv, e_recv,
         "recvcounts: given, am (Generate_Recv) or concat (given)"),
    {"recv_capacity", cm5s_opt_size, OFF(recv_capacity), NULL, 0, 0,
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
     "RS_NH cutoff: none, quantile:Q or critical (none)"},
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
    {"drs_chunk_max", cm5s_opt_size, OFF(drs_chunk_max), NULL, 1,
     CM5S_DRS_CHUNK_LIMIT,
     "DRS_N: longest piece in bytes, one inquiry each (1073741824)"},
    ENUM("drs_data", drs_data_cmmd, e_drs_data,
         "DRS_N: data by CMAML_scopy or by CMMD messages into receives "
         "posted at the start (scopy)"),
    {"twostage_engine", set_engine, 0, NULL, 0, 0,
     "two-stage: lp or drsn for each stage (lp)"},
    ENUM("twostage_data", twostage_data_cmmd, e_ts_data,
         "two-stage, LP stages: data by CMAML_scopy or by CMMD messages "
         "(scopy)"),
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
    return cm5s_opts_set(opts, NOPTS, o, setting, "option",
                         " (see cm5sched --help)", err, errlen);
}

const char *cm5_sched_opts_help(void)
{
    static char text[4096];

    return cm5s_opts_help(opts, NOPTS, 20, text, sizeof(text));
}
