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

#define CM5S_WL_MAXKV 8

/* A spec "kind[:arg,key=value,...]" taken apart.  pos is the one
 * positional argument (csv's file, mesh's name); the key=value pairs are
 * marked used as the generator reads them, and any left over is an
 * error. */
typedef struct {
    const char *spec, *kind;
    char pos[1024];
    int nkv;
    struct {
        char key[32], val[64];
        int used;
    } kv[CM5S_WL_MAXKV];
    char *err;
    size_t errlen;
} cm5s_wl_args_t;

/* Write "workload 'SPEC': REASON" into a->err; returns CM5_ERR_INVALID. */
cm5_status_t cm5s_wl_fail(cm5s_wl_args_t *a, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* The value of key as an integer in [lo, hi] (def when absent, an error
 * when absent and required). */
cm5_status_t cm5s_wl_int(cm5s_wl_args_t *a, const char *key, long lo, long hi,
                         long def, int required, long *out);
/* The value of key, or NULL when absent. */
const char *cm5s_wl_str(cm5s_wl_args_t *a, const char *key);

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

/* Split "key=value,..." (after a positional first item when want_pos)
 * into a->kv; a parameter nobody read is an error naming the known ones. */
cm5_status_t cm5s_wl_split(cm5s_wl_args_t *a, const char *s, int want_pos);
cm5_status_t cm5s_wl_leftover(cm5s_wl_args_t *a, const char *known);

#endif /* CM5S_WORKLOAD_INTERNAL_H */
