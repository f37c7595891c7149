/*
 * cm5fab workloads: the communication matrices of the papers' experiments
 * (ALGORITHMS.md section 5), deterministic from a seed.
 *
 * A workload is a p x p matrix com[i * p + j] = how many units node i
 * sends node j (0 on the diagonal unless the workload says otherwise).
 * A unit is what the paper scales: msg_unit bytes for wang1993's test
 * sets and mesh matrices, one byte of traffic for ranka1995's k/l
 * generator, one element of elem_size bytes for liu2002's patterns.  The
 * driver multiplies by its --sizes value to get bytes.
 */
#ifndef CM5_WORKLOAD_H
#define CM5_WORKLOAD_H

#include <stddef.h>
#include <stdint.h>

#include <cm5/cm5.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cm5_workload {
    int nodes;        /* p */
    size_t *com;      /* p * p units, row = source (malloc'd) */
    size_t elem_size; /* bytes per unit the paper used (1 if bytes) */
    uint64_t seed;    /* the seed it was built from */
    char name[160];   /* canonical spec, e.g. "density:d=16" */
} cm5_workload_t;

/* Build the workload named by spec for p nodes from seed:
 *   density:d=N      wang1993 test set 1 (exactly N per row and column,
 *                    every entry 1; gen=derangements|circulant)
 *   nonuniform:d=N   wang1993 test set 2 (entries uniform on 1..32)
 *   mesh:NAME        wang1993 test set 3: halo exchange of a real
 *                    unstructured mesh partitioned into p parts
 *   kl:k=K,l=L[,t=T] ranka1995 fan-out K, skew L, traffic T per node
 *   pattern1, pattern2  liu2002 one spike / transpose spike
 *                    (m=MMAX, small=S options)
 *   random[:d=N,max=M], hotspot[:m=M], permutation[:max=M]
 *   csv:FILE         a p x p matrix of non-negative integers
 * CM5_ERR_INVALID with a one-line reason in err on a bad spec.  Every
 * node that calls it with the same arguments gets the same matrix. */
CM5_EXPORT cm5_status_t cm5_workload_make(const char *spec, int nodes,
                                          uint64_t seed,
                                          cm5_workload_t *workload, char *err,
                                          size_t errlen);
CM5_EXPORT void cm5_workload_free(cm5_workload_t *workload);
/* One line per workload kind, for --help. */
CM5_EXPORT const char *cm5_workload_help(void);

/* ======================================================================
 * Source distributions for s-to-p broadcasting (hambrusch1995/1996,
 * ALGORITHMS.md 5.8), for cm5_sched_allgatherv(): which of the r x c
 * mesh's nodes (row-major ranks) are sources and how many elements each
 * sends.
 * ====================================================================== */
typedef struct cm5_workload_bcast {
    int nodes;      /* p */
    int rows, cols; /* the r x c mesh */
    int sources;    /* s */
    size_t *len;    /* p counts (malloc'd): > 0 exactly at sources */
    uint64_t seed;
    char name[160]; /* canonical spec, e.g. "cross:s=15,L=2048" */
} cm5_workload_bcast_t;

/* Build the distribution named by spec on an r x c mesh from seed:
 *   row[:s=S|rows=K][,fill=balanced]   col[:s=S|cols=K][,fill=balanced]
 *   diag_right[:s=S] (dr)  diag_left[:s=S] (dl)  equal[:s=S|step=I]
 *   cross[:s=S|i=I]  block[:s=S|i=I,j=J]  band[:s=S]  random[:s=S]
 *   csv:FILE   lines "rank[,length]" ('#' comments)
 * s defaults to ceil(sqrt(p)); every spec takes L=N (a fixed length,
 * 1024) or L=A:B (uniform on A..B per source, from seed).
 * CM5_ERR_INVALID with one line in err: a source outside the partition,
 * a negative or zero length, s > p. */
CM5_EXPORT cm5_status_t cm5_workload_bcast_make(const char *spec, int rows,
                                                int cols, uint64_t seed,
                                                cm5_workload_bcast_t *dist,
                                                char *err, size_t errlen);
CM5_EXPORT void cm5_workload_bcast_free(cm5_workload_bcast_t *dist);
/* One line per distribution, for --help. */
CM5_EXPORT const char *cm5_workload_bcast_help(void);

#ifdef __cplusplus
}
#endif

#endif /* CM5_WORKLOAD_H */
