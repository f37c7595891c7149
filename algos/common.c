/*
 * The helper layer of both algorithm families (common.h): errors, the
 * options tables, random numbers, workload specifications taken apart.
 */
#include "common.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- errors ---------------------------------------------------------------
 */

cm5_status_t cm5s_invalid(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;

    if (err && errlen) {
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return CM5_ERR_INVALID;
}

void cm5s_die(const char *call, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    cm5_fatal(call, "%s", msg);
}

/* ---- options tables -------------------------------------------------------
 */

cm5_status_t cm5s_opt_bool(const cm5s_opt_t *d, const char *v, void *o,
                           char *err, size_t errlen)
{
    if (strcmp(v, "0") && strcmp(v, "1"))
        return cm5s_invalid(err, errlen, "option %s: '%s' is not 0 or 1",
                            d->name, v);
    *(int *)CM5S_OPT_FIELD(o, d) = v[0] == '1';
    return CM5_OK;
}

/* A non-negative integer in [d->lo, d->hi] (hi 0: up to the type's max). */
static cm5_status_t opt_uint(const cm5s_opt_t *d, const char *v, uint64_t max,
                             unsigned long long *u, char *err, size_t errlen)
{
    char *end;

    if (*v == '-')
        return cm5s_invalid(err, errlen, "option %s: '%s' is negative", d->name,
                            v);
    errno = 0;
    *u = strtoull(v, &end, 0);
    if (!*v || *end || errno)
        return cm5s_invalid(err, errlen,
                            "option %s: '%s' is not a non-negative integer",
                            d->name, v);
    if (d->hi && (*u < d->lo || *u > d->hi))
        return cm5s_invalid(err, errlen, "option %s: '%s' is not in %llu..%llu",
                            d->name, v, (unsigned long long)d->lo,
                            (unsigned long long)d->hi);
    if (*u < d->lo)
        return cm5s_invalid(err, errlen, "option %s: '%s' is not >= %llu",
                            d->name, v, (unsigned long long)d->lo);
    if (*u > max)
        return cm5s_invalid(err, errlen, "option %s: '%s' is too large",
                            d->name, v);
    return CM5_OK;
}

cm5_status_t cm5s_opt_u64(const cm5s_opt_t *d, const char *v, void *o,
                          char *err, size_t errlen)
{
    unsigned long long u = 0;
    cm5_status_t rc = opt_uint(d, v, UINT64_MAX, &u, err, errlen);

    if (rc == CM5_OK)
        *(uint64_t *)CM5S_OPT_FIELD(o, d) = u;
    return rc;
}

cm5_status_t cm5s_opt_size(const cm5s_opt_t *d, const char *v, void *o,
                           char *err, size_t errlen)
{
    unsigned long long u = 0;
    cm5_status_t rc = opt_uint(d, v, SIZE_MAX, &u, err, errlen);

    if (rc == CM5_OK)
        *(size_t *)CM5S_OPT_FIELD(o, d) = (size_t)u;
    return rc;
}

cm5_status_t cm5s_opt_double(const cm5s_opt_t *d, const char *v, void *o,
                             char *err, size_t errlen)
{
    char *end;
    double x;

    errno = 0;
    x = strtod(v, &end);
    if (!*v || *end || errno)
        return cm5s_invalid(err, errlen, "option %s: '%s' is not a number",
                            d->name, v);
    *(double *)CM5S_OPT_FIELD(o, d) = x;
    return CM5_OK;
}

cm5_status_t cm5s_opt_enum(const cm5s_opt_t *d, const char *v, void *o,
                           char *err, size_t errlen)
{
    size_t len = 0;
    char list[128];
    int k;

    for (k = 0; d->enums[k]; k++)
        if (strcmp(d->enums[k], v) == 0) {
            *(int *)CM5S_OPT_FIELD(o, d) = k;
            return CM5_OK;
        }
    list[0] = '\0';
    for (k = 0; d->enums[k]; k++)
        len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s",
                                k ? ", " : "", d->enums[k]);
    if (k == 2)
        return cm5s_invalid(err, errlen, "option %s: '%s' is not %s or %s",
                            d->name, v, d->enums[0], d->enums[1]);
    return cm5s_invalid(err, errlen, "option %s: '%s' is not one of %s",
                        d->name, v, list);
}

cm5_status_t cm5s_opts_set(const cm5s_opt_t *table, size_t n, void *opts,
                           const char *setting, const char *what,
                           const char *hint, char *err, size_t errlen)
{
    const char *eq = setting ? strchr(setting, '=') : NULL;
    size_t len, i;

    if (!opts || !eq || eq == setting)
        return cm5s_invalid(err, errlen, "option '%s' is not name=value",
                            setting ? setting : "(null)");
    len = (size_t)(eq - setting);
    for (i = 0; i < n; i++)
        if (strlen(table[i].name) == len &&
            !strncmp(table[i].name, setting, len))
            return table[i].set(&table[i], eq + 1, opts, err, errlen);
    return cm5s_invalid(err, errlen, "unknown %s '%.*s'%s", what, (int)len,
                        setting, hint);
}

const char *cm5s_opts_help(const cm5s_opt_t *table, size_t n, int width,
                           char *text, size_t size)
{
    size_t len = 0, i;

    if (text[0])
        return text;
    for (i = 0; i < n && len < size; i++)
        len += (size_t)snprintf(text + len, size - len, "  %-*s %s\n", width,
                                table[i].name, table[i].help);
    return text;
}

/* ---- random numbers: splitmix64, one stream per (seed, stream) ------------
 */

void cm5s_rng_seed(cm5s_rng_t *r, uint64_t seed, uint64_t stream)
{
    r->s = seed * 0x9e3779b97f4a7c15ULL ^ (stream + 0x632be59bd9b4e019ULL);
    (void)cm5s_rng_next(r);
}

uint64_t cm5s_rng_next(cm5s_rng_t *r)
{
    uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);

    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

uint64_t cm5s_rng_below(cm5s_rng_t *r, uint64_t n)
{
    uint64_t lim = UINT64_MAX - UINT64_MAX % n, v;

    do
        v = cm5s_rng_next(r);
    while (v >= lim);
    return v % n;
}

void cm5s_rng_shuffle(cm5s_rng_t *r, int *v, int n)
{
    int i, j, t;

    for (i = n - 1; i > 0; i--) {
        j = (int)cm5s_rng_below(r, (uint64_t)i + 1);
        t = v[i];
        v[i] = v[j];
        v[j] = t;
    }
}

/* ---- workload specifications --------------------------------------------- */

cm5_status_t cm5s_wl_fail(cm5s_wl_args_t *a, const char *fmt, ...)
{
    char msg[512];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    if (a->err && a->errlen)
        snprintf(a->err, a->errlen, "workload '%.200s': %s", a->spec, msg);
    return CM5_ERR_INVALID;
}

static int wl_find(cm5s_wl_args_t *a, const char *key)
{
    int i;

    for (i = 0; i < a->nkv; i++)
        if (!strcmp(a->kv[i].key, key)) {
            a->kv[i].used = 1;
            return i;
        }
    return -1;
}

const char *cm5s_wl_str(cm5s_wl_args_t *a, const char *key)
{
    int i = wl_find(a, key);

    return i < 0 ? NULL : a->kv[i].val;
}

cm5_status_t cm5s_wl_int(cm5s_wl_args_t *a, const char *key, long lo, long hi,
                         long def, int required, long *out)
{
    const char *s = cm5s_wl_str(a, key);
    char *end;
    long v;

    if (!s) {
        if (required)
            return cm5s_wl_fail(a, "%s needs %s=N", a->kind, key);
        *out = def;
        return CM5_OK;
    }
    errno = 0;
    v = strtol(s, &end, 10);
    if (!*s || *end || errno)
        return cm5s_wl_fail(a, "%s=%s is not an integer", key, s);
    if (v < lo || v > hi)
        return cm5s_wl_fail(a, "%s=%ld is out of range [%ld, %ld]", key, v, lo,
                            hi);
    *out = v;
    return CM5_OK;
}

/* Split "key=value,key=value" (after an optional positional first item
 * when want_pos) into a->kv. */
cm5_status_t cm5s_wl_split(cm5s_wl_args_t *a, const char *s, int want_pos)
{
    while (s && *s) {
        const char *comma = strchr(s, ','), *eq;
        size_t n = comma ? (size_t)(comma - s) : strlen(s), kl;

        eq = memchr(s, '=', n);
        if (want_pos && !eq) {
            if (n >= sizeof(a->pos))
                return cm5s_wl_fail(a, "name too long");
            memcpy(a->pos, s, n);
            a->pos[n] = 0;
        } else if (!eq || eq == s) {
            return cm5s_wl_fail(a, "'%.*s' is not key=value", (int)n, s);
        } else {
            kl = (size_t)(eq - s);
            if (a->nkv == CM5S_WL_MAXKV || kl >= sizeof(a->kv[0].key) ||
                n - kl - 1 >= sizeof(a->kv[0].val))
                return cm5s_wl_fail(a, "too many or too long parameters");
            memcpy(a->kv[a->nkv].key, s, kl);
            a->kv[a->nkv].key[kl] = 0;
            memcpy(a->kv[a->nkv].val, eq + 1, n - kl - 1);
            a->kv[a->nkv].val[n - kl - 1] = 0;
            a->kv[a->nkv++].used = 0;
        }
        want_pos = 0;
        s = comma ? comma + 1 : NULL;
    }
    return CM5_OK;
}

/* A parameter nobody asked for is a typo: say which. */
cm5_status_t cm5s_wl_leftover(cm5s_wl_args_t *a, const char *known)
{
    int i;

    for (i = 0; i < a->nkv; i++)
        if (!a->kv[i].used)
            return cm5s_wl_fail(a, "unknown parameter '%s' for %s (known: %s)",
                                a->kv[i].key, a->kind, known);
    return CM5_OK;
}
