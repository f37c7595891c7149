/*
 * The helper layer of both algorithm families (common.c), below every
 * other file of algos/: errors, the options tables, random numbers, and
 * workload specifications taken apart.  Names are cm5s_*; nothing here
 * is exported.  Calls nothing of algos/ and only libcm5fab's public API.
 */
#ifndef CM5S_COMMON_H
#define CM5S_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include <cm5/cm5.h>

/* ---- errors ---- */

/* A bad argument: "REASON" in err (when there is room); returns
 * CM5_ERR_INVALID. */
cm5_status_t cm5s_invalid(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Stop the job with one line: "cm5[node] error CALL: MESSAGE". */
void cm5s_die(const char *call, const char *fmt, ...)
    __attribute__((noreturn, format(printf, 2, 3)));

/* ---- options tables: "name=value" into a structure ---- */

typedef struct cm5s_opt cm5s_opt_t;
/* Parse v into the field d->off of the options structure opts (or the
 * fields d names). */
typedef cm5_status_t (*cm5s_opt_set_t)(const cm5s_opt_t *d, const char *v,
                                       void *opts, char *err, size_t errlen);
struct cm5s_opt {
    const char *name;
    cm5s_opt_set_t set;
    size_t off;
    const char *const *enums; /* cm5s_opt_enum: value names, index = value */
    uint64_t lo, hi;          /* cm5s_opt_u64/_size bounds (hi 0: none) */
    const char *help;
};
#define CM5S_OPT_FIELD(opts, d) ((char *)(opts) + (d)->off)
/* The common setters: an int 0 or 1, a uint64_t or a size_t in [lo, hi],
 * a double, an int that indexes enums. */
cm5_status_t cm5s_opt_bool(const cm5s_opt_t *d, const char *v, void *o,
                           char *err, size_t errlen);
cm5_status_t cm5s_opt_u64(const cm5s_opt_t *d, const char *v, void *o,
                          char *err, size_t errlen);
cm5_status_t cm5s_opt_size(const cm5s_opt_t *d, const char *v, void *o,
                           char *err, size_t errlen);
cm5_status_t cm5s_opt_double(const cm5s_opt_t *d, const char *v, void *o,
                             char *err, size_t errlen);
cm5_status_t cm5s_opt_enum(const cm5s_opt_t *d, const char *v, void *o,
                           char *err, size_t errlen);
/* Set one "name=value" of table[0..n) in opts; an unknown name is "unknown
 * WHAT 'NAME'HINT". */
cm5_status_t cm5s_opts_set(const cm5s_opt_t *table, size_t n, void *opts,
                           const char *setting, const char *what,
                           const char *hint, char *err, size_t errlen);
/* One line per option ("  NAME  HELP", the names width wide), written
 * once into text. */
const char *cm5s_opts_help(const cm5s_opt_t *table, size_t n, int width,
                           char *text, size_t size);

/* ---- random numbers ---- */

/* Deterministic per-call random numbers (splitmix64 / xoshiro-like):
 * the same seed gives the same stream on every node. */
typedef struct {
    uint64_t s;
} cm5s_rng_t;
void cm5s_rng_seed(cm5s_rng_t *r, uint64_t seed, uint64_t stream);
uint64_t cm5s_rng_next(cm5s_rng_t *r);
/* Uniform in [0, n), n > 0. */
uint64_t cm5s_rng_below(cm5s_rng_t *r, uint64_t n);
/* Random permutation of v[0..n). */
void cm5s_rng_shuffle(cm5s_rng_t *r, int *v, int n);

/* ---- workload specifications ---- */

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

/* Split "key=value,..." (after a positional first item when want_pos)
 * into a->kv; a parameter nobody read is an error naming the known ones. */
cm5_status_t cm5s_wl_split(cm5s_wl_args_t *a, const char *s, int want_pos);
cm5_status_t cm5s_wl_leftover(cm5s_wl_args_t *a, const char *known);

#endif /* CM5S_COMMON_H */
