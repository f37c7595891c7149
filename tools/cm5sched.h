/*
 * cm5sched, the experiment driver: what its parts share.  By concern:
 * cm5sched_opts.c (the option table, parsing, --help), cm5sched_runs.c
 * (the personalized family: points, runs, byte verification),
 * cm5sched_tables.c (CSV, tables, plot) and cm5sched_main.c (the loop
 * over workloads, matrices, sizes, algorithms and reps).  A family is
 * the set of algorithms one run loop drives through family_t.
 */
#ifndef CM5SCHED_H
#define CM5SCHED_H

#include <stdint.h>
#include <stdio.h>

#include <cm5/sched.h>
#include <cm5/workload.h>

#define NU 15 /* unsigned maxima reduced per run */
#define NS 6  /* sums reduced per run */
#define MAX_ALGS 16
#define GUARD 64 /* bytes past the received data that must stay put */
#define GUARD_BYTE 0xa5

/* STAT_MAX is for --spread only (--stat takes the first three). */
typedef enum { STAT_MEAN = 0, STAT_MIN, STAT_MEDIAN, STAT_MAX } stat_t;
extern const char *const stat_names[];

typedef struct family family_t;

typedef struct {
    const family_t *fam; /* the personalized family, or --bcast's */
    int alg[MAX_ALGS];   /* in the family's numbering */
    int nalg;
    const char **work; /* --workload specs, in order */
    int nwork;
    size_t *size; /* --sizes: message units in bytes */
    int nsize;
    int reps, warmup, matrices;
    uint64_t seed;
    int seed_given; /* -o seed=... fixes the schedule seed */
    cm5_sched_opts_t o;
    cm5_sched_bcast_opts_t bo; /* --bcast: the broadcast options */
    int mesh_r, mesh_c;        /* --bcast: the logical mesh */
    const char *mesh;          /* --mesh RxC, or NULL */
    const char **oset;         /* -o settings, applied after parsing */
    int noset;
    char recv_opt[64];         /* --recv as an -o setting */
    const char *csv, *plot;
    const char *trace; /* --trace FILE, or NULL */
    int quiet, progress;
    int spread; /* print and plot comm's min and max over the samples */
    stat_t stat;
} args_t;

/* One (workload, algorithm, size) point: every sample of every matrix
 * and rep (node 0 only). */
typedef struct {
    double *comm, *sched, *gather, *total, *once;
    double phases, msgs; /* sums, for the mean */
    int n;
} cell_t;

/* What one run measured, reduced over the nodes. */
typedef struct {
    double d[7];    /* max: total, comm, sched, recv, gather, recv+gather,
                       copy */
    uint64_t u[NU]; /* max: phases, max_concurrent_in, nstages, stages */
    uint64_t s[NS]; /* sum: msgs, bytes sent; msgs, bytes received;
                       inquiries, denials */
    uint64_t buf[2]; /* max: sbuf, rbuf elements (liu2002 Table 4) */
} result_t;

/* What the tables and the CSV say of a point. */
typedef struct {
    const char *wname;
    int matrix;
    uint64_t seed;
    size_t unit, elem, t; /* message unit, element size, traffic (units) */
    char extra[64];       /* the family's own CSV columns, or "" */
} point_info_t;

/* A family of algorithms: its workloads and its runs.  work_make fails
 * with a reason in err (pi: the name and element size); point_new and
 * run stop the job on errors. */
struct family {
    const char *csv_cols; /* its own CSV columns after the shared ones */
    const char *(*alg_name)(int alg);
    int (*work_make)(const args_t *a, const char *spec, uint64_t seed,
                     void **w, point_info_t *pi, char *err, size_t errlen);
    void (*work_free)(void *w);
    void *(*point_new)(const args_t *a, const void *w, const char *wname,
                       int matrix, size_t unit, point_info_t *info);
    void (*point_free)(void *pt);
    void (*run)(void *pt, int alg, int rep, uint64_t run, result_t *r);
};

extern int P, me;
extern const family_t personalized, broadcast;

/* cm5sched_opts.c */
void usage_error(const char *fmt, ...)
    __attribute__((noreturn, format(printf, 1, 2)));
void *xcalloc(size_t n, size_t size);
void parse_args(args_t *a, int argc, char **argv);

/* cm5sched_runs.c: data patterns and their checks, shared by families */
uint64_t mix(uint64_t z);
uint64_t pat_key(int src, int dst, uint64_t run);
void fill(unsigned char *b, size_t n, uint64_t key);
size_t check(const unsigned char *b, size_t n, uint64_t key,
             unsigned char *want);
void reduce_result(result_t *r, const cm5_sched_stats_t *st);
void corrupt(unsigned char *rb, size_t n);

/* cm5sched_tables.c */
int have_gnuplot(void);
void csv_header(FILE *f, const family_t *fam);
void csv_row(FILE *f, const point_info_t *pi, const char *alg, int rep,
             const result_t *r);
void print_table(const args_t *a, int wi, const char *wname, size_t elem,
                 size_t tmin, size_t tmax, cell_t *cells);
int plot(const args_t *a, char **wnames, cell_t *cells);

#endif /* CM5SCHED_H */
