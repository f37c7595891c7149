/*
 * Two-stage algorithm and A2, the pure part: Stg1lpp, Bader's bins, the
 * stage headers, Stg2pp and the reassembly (see plan_twostage.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan_twostage.h"

#define WORD sizeof(uint32_t)

int cm5s_split_init(cm5s_split_t *s, int p)
{
    size_t pp = (size_t)p * (size_t)p;

    s->p = p;
    s->part = calloc(2 * pp + (size_t)p, sizeof(size_t));
    if (!s->part)
        return -1;
    s->off = s->part + pp;
    s->total = s->off + pp;
    return 0;
}

void cm5s_split_fini(cm5s_split_t *s)
{
    free(s->part);
    s->part = s->off = s->total = NULL;
}

/* Offsets (chunks of a pair in intermediate order) and totals. */
static void split_layout(cm5s_split_t *s)
{
    int p = s->p, j, k;

    for (k = 0; k < p; k++)
        s->total[k] = 0;
    for (j = 0; j < p; j++) {
        size_t ptr = 0;

        for (k = 0; k < p; k++) {
            s->off[(size_t)k * p + j] = ptr;
            ptr += s->part[(size_t)k * p + j];
            s->total[k] += s->part[(size_t)k * p + j];
        }
    }
}

/* ranka1995 6.3: inside each group of messages of one size, permute at
 * random which intermediate gets which message. */
static void split_shuffle(cm5s_split_t *s, cm5s_rng_t *r)
{
    int p = s->p, k, q, n;
    int *idx = malloc(sizeof(int) * 2 * (size_t)p), *perm;
    size_t *old = malloc(sizeof(size_t) * (size_t)p * (size_t)p);
    char *seen = calloc((size_t)p, 1);

    if (!idx || !old || !seen) {
        /* No memory for the reshuffle: an unshuffled split is correct. */
        free(idx);
        free(old);
        free(seen);
        return;
    }
    perm = idx + p;
    memcpy(old, s->part, sizeof(size_t) * (size_t)p * (size_t)p);
    for (k = 0; k < p; k++) {
        if (seen[k])
            continue;
        for (n = 0, q = k; q < p; q++) {
            if (!seen[q] && s->total[q] == s->total[k]) {
                seen[q] = 1;
                idx[n] = q;
                perm[n++] = q;
            }
        }
        cm5s_rng_shuffle(r, perm, n);
        for (q = 0; q < n; q++)
            memcpy(&s->part[(size_t)perm[q] * p], &old[(size_t)idx[q] * p],
                   sizeof(size_t) * (size_t)p);
    }
    free(idx);
    free(old);
    free(seen);
}

void cm5s_stg1lpp(cm5s_split_t *s, int i, const size_t *a, int rotate,
                  cm5s_rng_t *shuffle)
{
    int p = s->p, j, k;
    size_t x, left;

    for (j = 0; j < p; j++)
        for (k = 0; k < p; k++)
            s->part[(size_t)k * p + j] = a[j] / (size_t)p;
    /* One counter for the whole row, never reset (AMB-6). */
    k = rotate ? i % p : 0;
    for (j = 0; j < p; j++) {
        left = a[j] % (size_t)p;
        for (x = 0; x < left; x++) {
            s->part[(size_t)k * p + j]++;
            k = k + 1 == p ? 0 : k + 1;
        }
    }
    split_layout(s);
    if (shuffle) {
        split_shuffle(s, shuffle);
        split_layout(s);
    }
}

void cm5s_stg1_bader(cm5s_split_t *s, int i, const size_t *a)
{
    int p = s->p, j, k;

    for (j = 0; j < p; j++) {
        size_t base = a[j] / (size_t)p, left = a[j] % (size_t)p;
        int first = (int)(((size_t)i + (size_t)j) % (size_t)p);

        for (k = 0; k < p; k++) {
            /* bins first, first + 1, ... get one of the leftovers */
            size_t d = (size_t)((k - first + p) % p);

            s->part[(size_t)k * p + j] = base + (d < left ? 1 : 0);
        }
    }
    split_layout(s);
}

/* ---- headers ----------------------------------------------------------- */

size_t cm5s_hdr_bytes(int p, int sparse, const size_t *len)
{
    size_t n = 0;
    int j;

    if (!sparse)
        return WORD * (1 + (size_t)p);
    for (j = 0; j < p; j++)
        n += len[j] > 0;
    return WORD * (2 + 3 * n);
}

size_t cm5s_hdr_max(int p, int sparse, size_t n)
{
    if (!sparse)
        return WORD * (1 + (size_t)p);
    return WORD * (2 + 3 * (n < (size_t)p ? n : (size_t)p));
}

static void put(char *msg, size_t w, size_t v)
{
    uint32_t u = (uint32_t)v;

    memcpy(msg + w * WORD, &u, WORD);
}

static size_t get(const char *msg, size_t w)
{
    uint32_t u;

    memcpy(&u, msg + w * WORD, WORD);
    return u;
}

size_t cm5s_hdr_write(void *msg, int p, int sparse, const size_t *len,
                      const size_t *off)
{
    size_t total = 0, w, n = 0;
    int j;

    for (j = 0; j < p; j++) {
        total += len[j];
        if (len[j] > 0 && sparse && off[j] > UINT32_MAX)
            return 0;
    }
    if (total > UINT32_MAX)
        return 0;
    put(msg, 0, total);
    if (!sparse) {
        for (j = 0; j < p; j++)
            put(msg, 1 + (size_t)j, len[j]);
        return WORD * (1 + (size_t)p);
    }
    for (w = 2, j = 0; j < p; j++) {
        if (len[j] == 0)
            continue;
        put(msg, w++, (size_t)j);
        put(msg, w++, len[j]);
        put(msg, w++, off[j]);
        n++;
    }
    put(msg, 1, n);
    return w * WORD;
}

size_t cm5s_hdr_read(const void *msg, size_t msglen, int p, int sparse,
                     size_t esz, size_t *len, size_t *off)
{
    const char *m = msg;
    size_t total, sum = 0, n, q, hdr;
    int j, last = -1;

    if (msglen < WORD * 2)
        return 0;
    total = get(m, 0);
    for (j = 0; j < p; j++) {
        len[j] = 0;
        off[j] = CM5S_NO_OFF;
    }
    if (!sparse) {
        hdr = WORD * (1 + (size_t)p);
        if (msglen < hdr)
            return 0;
        for (j = 0; j < p; j++)
            sum += len[j] = get(m, 1 + (size_t)j);
    } else {
        n = get(m, 1);
        if (n > (size_t)p || msglen < WORD * (2 + 3 * n))
            return 0;
        hdr = WORD * (2 + 3 * n);
        for (q = 0; q < n; q++) {
            size_t idx = get(m, 2 + 3 * q);

            if (idx >= (size_t)p || (int)idx <= last)
                return 0;
            last = (int)idx;
            sum += len[idx] = get(m, 3 + 3 * q);
            off[idx] = get(m, 4 + 3 * q);
        }
    }
    if (sum != total || msglen != hdr + total * esz)
        return 0;
    return hdr;
}

/* ---- source, intermediate, destination ---------------------------------- */

size_t cm5s_pack1(char *msg, int sparse, size_t esz, const cm5s_split_t *s,
                  int k, const char *sbuf, const size_t *sdispl)
{
    const size_t *len = &s->part[(size_t)k * s->p];
    const size_t *off = &s->off[(size_t)k * s->p];
    size_t pos = cm5s_hdr_write(msg, s->p, sparse, len, off), hdr = pos;
    int j;

    if (hdr == 0)
        return 0;
    for (j = 0; j < s->p; j++) {
        if (len[j] == 0)
            continue;
        memcpy(msg + pos, sbuf + (sdispl[j] + off[j]) * esz, len[j] * esz);
        pos += len[j] * esz;
    }
    return pos;
}

void cm5s_stg2pp(int p, const size_t *len1, size_t *fwd, size_t *tot)
{
    int i, j;

    for (j = 0; j < p; j++)
        tot[j] = 0;
    for (i = 0; i < p; i++) {
        size_t pos = 0; /* first payload element of slot i */

        for (j = 0; j < p; j++) {
            size_t l = len1[(size_t)i * p + j];

            fwd[(size_t)i * p + j] = pos;
            pos += l;
            tot[j] += l;
        }
    }
}

size_t cm5s_pack2(char *msg, int p, int sparse, size_t esz, int j,
                  const size_t *len1, const size_t *off1, const size_t *fwd,
                  const char *const *pay, size_t *col_len, size_t *col_off)
{
    size_t pos, l;
    int i;

    for (i = 0; i < p; i++) {
        col_len[i] = len1[(size_t)i * p + j];
        col_off[i] = off1[(size_t)i * p + j];
    }
    pos = cm5s_hdr_write(msg, p, sparse, col_len, col_off);
    if (pos == 0)
        return 0;
    for (i = 0; i < p; i++) {
        if ((l = col_len[i]) == 0)
            continue;
        memcpy(msg + pos, pay[i] + fwd[(size_t)i * p + j] * esz, l * esz);
        pos += l * esz;
    }
    return pos;
}

static int fail(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int fail(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return -1;
}

int cm5s_unpack2(int p, int sparse, size_t esz, const char *const *msg,
                 const size_t *mlen, char *rbuf, const size_t *rcount,
                 const size_t *rdispl, int skip, size_t *maxlen, char *err,
                 size_t errlen)
{
    size_t *len = calloc(3 * (size_t)p, sizeof(size_t));
    size_t *off = len + p, *got = off + p, hdr, pos, o;
    int i, k, rc = 0;

    if (!len)
        return fail(err, errlen, "out of memory for %d counts", p);
    if (maxlen)
        *maxlen = 0;
    for (k = 0; k < p && rc == 0; k++) {
        if (mlen[k] == 0)
            continue;
        hdr = cm5s_hdr_read(msg[k], mlen[k], p, sparse, esz, len, off);
        if (hdr == 0) {
            rc = fail(err, errlen,
                      "the stage-2 message of %zu bytes from node %d has a "
                      "malformed header",
                      mlen[k], k);
            break;
        }
        for (pos = hdr, i = 0; i < p; i++) {
            if (len[i] == 0)
                continue;
            /* dense: the chunks of a pair lie in intermediate order */
            o = sparse ? off[i] : got[i];
            if (o > rcount[i] || len[i] > rcount[i] - o) {
                rc = fail(err, errlen,
                          "node %d forwards elements %zu..%zu from node %d, "
                          "which sends only %zu",
                          k, o, o + len[i], i, rcount[i]);
                break;
            }
            memcpy(rbuf + (rdispl[i] + o) * esz, msg[k] + pos, len[i] * esz);
            pos += len[i] * esz;
            got[i] += len[i];
        }
        if (maxlen && k != skip && (mlen[k] - hdr) / esz > *maxlen)
            *maxlen = (mlen[k] - hdr) / esz;
    }
    for (i = 0; i < p && rc == 0; i++)
        if (got[i] != rcount[i])
            rc = fail(err, errlen,
                      "%zu elements from node %d arrived, expected %zu", got[i],
                      i, rcount[i]);
    free(len);
    return rc;
}
