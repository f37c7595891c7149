/*
 * cm5sched, the experiment driver: what its parts share.  By concern:
 * cm5sched_opts.c (options, --help), cm5sched_main.c (the loop over
 * workloads, matrices, sizes, algorithms and reps), cm5sched_tables.c
 * (CSV, tables, plot), and one file per family of algorithms (family_t):
 * cm5sched_runs.c (personalized, --alg), cm5sched_bcast.c (--bcast).
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
    const family_t *fam;
    int alg[MAX_ALGS], nalg; /* in the family's numbering */
    const char **work;       /* --workload specs, in order */
    size_t *size;            /* --sizes: message units in bytes */
    int nwork, nsize, reps, warmup, matrices;
    uint64_t seed;
    int seed_given; /* -o seed=... fixes the schedule seed */
    cm5_sched_opts_t o;
    cm5_sched_bcast_opts_t bo; /* --bcast's options */
    int mesh_r, mesh_c;        /* --bcast's logical mesh */
    const char *mesh;          /* --mesh RxC, or NULL */
    const char **oset;         /* -o settings, applied after parsing */
    int noset;
    char recv_opt[64]; /* --recv as an -o setting */
    const char *csv, *plot, *trace;
    int quiet, progress, spread; /* spread: comm's min and max too */
    stat_t stat;
} args_t;

/* Samples of one (workload, algorithm, size) point over matrices and
 * reps (node 0 only): comm, comp, gather, total, once = comm + comp. */
enum { COMM, SCHED, GATHER, TOTAL, ONCE, NSAMPLE };
typedef struct {
    double *v[NSAMPLE];
    double phases, msgs; /* sums, for the mean */
    int n;
} cell_t;
#define CELL(a, cells, wi, k, s)                                               \
    (&(cells)[((size_t)(wi) * (a)->nalg + (k)) * (a)->nsize + (s)])

/* What one run measured, reduced over the nodes. */
typedef struct {
    double d[7];     /* max: total, comm, sched, recv, gather, recv+gather,
                        copy */
    uint64_t u[NU];  /* max: phases, max_concurrent_in, nstages, stages */
    uint64_t s[NS];  /* sum: msgs, bytes sent; msgs, bytes received;
                        inquiries, denials */
    uint64_t buf[2]; /* max: sbuf, rbuf elements (liu2002 Table 4) */
} result_t;

/* What the tables and the CSV say of a point (t: traffic in units). */
typedef struct {
    const char *wname;
    int matrix;
    uint64_t seed;
    size_t unit, elem, t;
    char extra[64]; /* the family's own CSV columns, or "" */
} point_info_t;

/* ... and of a workload: its traffic over its matrices. */
typedef struct {
    char *name;
    size_t elem, tmin, tmax;
} work_t;

/* A family of algorithms: its options, workloads and runs.  work_make
 * fails with a reason in err (pi: the name and element size); the others
 * stop the job on errors. */
struct family {
    const char *csv_cols; /* its own CSV columns after the shared ones */
    const char *(*alg_name)(int alg);
    void (*add_algs)(args_t *a, const char *name); /* one of a list */
    void (*opt)(args_t *a, const char *setting);   /* one -o */
    void (*setup)(args_t *a); /* after parsing: checks, defaults */
    void (*help)(void);
    int (*work_make)(const args_t *a, const char *spec, uint64_t seed, void **w,
                     point_info_t *pi, char *err, size_t errlen);
    void (*work_free)(void *w);
    void *(*point_new)(const args_t *a, const void *w, const char *wname,
                       int matrix, size_t unit, point_info_t *info);
    void (*point_free)(void *pt);
    void (*run)(void *pt, int alg, int rep, uint64_t run, result_t *r);
};

extern int cs_nodes, cs_self;
extern const family_t personalized, broadcast;

/* cm5sched_opts.c */
void usage_error(const char *fmt, ...)
    __attribute__((noreturn, format(printf, 1, 2)));
void *xcalloc(size_t n, size_t size);
void add_alg(args_t *a, int alg);
void print_lines(const char *text, const char *lead, int indent);
void print_names(const char *head, const char *(*name)(int), int n);
void parse_args(args_t *a, int argc, char **argv);

/* cm5sched_runs.c: data patterns, checks and results, for both families */
uint64_t mix(uint64_t z);
uint64_t pat_key(int src, int dst, uint64_t run);
void cs_fill(unsigned char *b, size_t n, uint64_t key);
void check_data(const char *where, const unsigned char *b, size_t n,
                uint64_t key, const char *fmt, int x, int y);
void check_counts(const char *where, const size_t *rc, const size_t *want);
void check_guard(const char *where, const unsigned char *g);
void reduce_result(result_t *r, const cm5_sched_stats_t *st);
void corrupt(unsigned char *rb, size_t n);

/* cm5sched_share.c: one workload matrix per host (collective) */
typedef struct {
    cm5_workload_t w; /* first: a shared_wl_t * is a cm5_workload_t * */
    void *map;        /* the shared segment, or NULL (w.com malloc'd) */
    size_t maplen;
    uint64_t how[3]; /* nodes that built it, mapped it, made their own */
} shared_wl_t;
int share_workload(const char *spec, uint64_t seed, shared_wl_t *s, char *err,
                   size_t errlen);
void share_free(shared_wl_t *s);

/* cm5sched_tables.c */
void csv_header(FILE *f, const family_t *fam);
void csv_row(FILE *f, const point_info_t *pi, const char *alg, int rep,
             const result_t *r);
void print_table(const args_t *a, int wi, const work_t *w, cell_t *cells);
int cs_plot(const args_t *a, const work_t *w, cell_t *cells);

#endif /* CM5SCHED_H */
