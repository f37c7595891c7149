/*
 * Internals of the workload generators (workload*.c): the parsed spec
 * and the generators that live in their own files.  Names are cm5s_wl_*;
 * nothing here is exported.
 */
#ifndef CM5S_WORKLOAD_INTERNAL_H
#define CM5S_WORKLOAD_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include <cm5/workload.h>

#include "common.h"

/* The generators with a file of their own; each fills w->com (malloc'd)
 * and w->name and returns CM5_OK, or fails through cm5s_wl_fail. */
cm5_status_t cm5s_wl_csv(cm5s_wl_args_t *a, int p, cm5_workload_t *w);
cm5_status_t cm5s_wl_mesh(cm5s_wl_args_t *a, int p, uint64_t seed,
                          cm5_workload_t *w);

/* METIS k-way partition of a CSR graph (0-based) into nparts parts;
 * part[v] in [0, nparts).  0 or an error message in err. */
int cm5s_wl_metis(int n, const int32_t *xadj, const int32_t *adj, int nparts,
                  int seed, int ufactor, int32_t *part, char *err,
                  size_t errlen);

/* Greedy graph growing (part=grow): nparts parts grown at once from
 * nparts random vertices drawn with seed; part[v] in [0, nparts).  0, or
 * -1 with err. */
int cm5s_wl_grow(int n, const int32_t *xadj, const int32_t *adj, int nparts,
                 uint64_t seed, int32_t *part, char *err, size_t errlen);

#endif /* CM5S_WORKLOAD_INTERNAL_H */
