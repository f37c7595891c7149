/*
 * csv:FILE — a p x p matrix of non-negative integers, one row per line,
 * numbers separated by commas and/or blanks.  Blank lines and lines
 * starting with '#' are skipped.  Errors name the file, the line and the
 * column.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "workload_internal.h"

typedef struct {
    cm5s_wl_args_t *a;
    FILE *f;
    int p, line, row;
    cm5_workload_t *w;
} csv_t;

/* One line: exactly p numbers into row c->row. */
static cm5_status_t csv_row(csv_t *c, const char *s)
{
    const char *q = s;
    int n = 0;

    for (;;) {
        char *end;
        unsigned long long v;

        while (*q == ' ' || *q == '\t' || *q == '\r' || *q == '\n')
            q++;
        if (!*q)
            break;
        if (n > 0) { /* a separator: blanks (already skipped) or one ',' */
            if (*q == ',')
                q++;
            while (*q == ' ' || *q == '\t')
                q++;
        }
        if (!isdigit((unsigned char)*q) && strchr("\r\n", *q))
            return cm5s_wl_fail(c->a, "%s:%d:%d: expected a number after ','",
                                c->a->pos, c->line, (int)(q - s) + 1);
        if (!isdigit((unsigned char)*q))
            return cm5s_wl_fail(c->a,
                                "%s:%d:%d: expected a non-negative "
                                "integer, found '%c'",
                                c->a->pos, c->line, (int)(q - s) + 1, *q);
        errno = 0;
        v = strtoull(q, &end, 10);
        if (errno || v > (unsigned long long)(SIZE_MAX / 2))
            return cm5s_wl_fail(c->a, "%s:%d:%d: number too large", c->a->pos,
                                c->line, (int)(q - s) + 1);
        if (n == c->p)
            return cm5s_wl_fail(c->a,
                                "%s:%d:%d: more than p=%d numbers in "
                                "row %d",
                                c->a->pos, c->line, (int)(q - s) + 1, c->p,
                                c->row + 1);
        c->w->com[(size_t)c->row * c->p + n++] = (size_t)v;
        q = end;
        if (*q && !strchr(" \t\r\n,", *q))
            return cm5s_wl_fail(c->a, "%s:%d:%d: unexpected '%c'", c->a->pos,
                                c->line, (int)(q - s) + 1, *q);
    }
    if (n < c->p)
        return cm5s_wl_fail(c->a, "%s:%d: row %d has %d numbers, not p=%d",
                            c->a->pos, c->line, c->row + 1, n, c->p);
    c->row++;
    return CM5_OK;
}

static cm5_status_t csv_read(csv_t *c)
{
    char *buf = NULL;
    size_t cap = 0;
    ssize_t len;
    cm5_status_t rc = CM5_OK;

    while (rc == CM5_OK && (len = getline(&buf, &cap, c->f)) >= 0) {
        const char *s = buf;

        c->line++;
        if ((size_t)len != strlen(buf)) {
            rc = cm5s_wl_fail(c->a, "%s:%d: contains a NUL byte", c->a->pos,
                              c->line);
            break;
        }
        while (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n')
            s++;
        if (!*s || *s == '#')
            continue;
        if (c->row == c->p)
            rc = cm5s_wl_fail(c->a, "%s:%d: more than p=%d rows", c->a->pos,
                              c->line, c->p);
        else
            rc = csv_row(c, buf);
    }
    if (rc == CM5_OK && ferror(c->f))
        rc = cm5s_wl_fail(c->a, "%s: read error: %s", c->a->pos,
                          strerror(errno));
    if (rc == CM5_OK && c->row < c->p)
        rc = cm5s_wl_fail(c->a, "%s: %d rows, not p=%d", c->a->pos, c->row,
                          c->p);
    free(buf);
    return rc;
}

cm5_status_t cm5s_wl_csv(cm5s_wl_args_t *a, int p, cm5_workload_t *w)
{
    csv_t c = {a, NULL, p, 0, 0, w};
    cm5_status_t rc;

    c.f = fopen(a->pos, "r");
    if (!c.f)
        return cm5s_wl_fail(a, "cannot open %s: %s", a->pos, strerror(errno));
    w->com = calloc((size_t)p * (size_t)p, sizeof(size_t));
    if (!w->com) {
        fclose(c.f);
        return cm5s_wl_fail(a, "out of memory for a %d x %d matrix", p, p);
    }
    rc = csv_read(&c);
    fclose(c.f);
    if (rc != CM5_OK)
        return rc; /* the caller frees w->com */
    snprintf(w->name, sizeof(w->name), "csv:%.150s", a->pos);
    return CM5_OK;
}
