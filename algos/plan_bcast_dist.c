/*
 * The source distributions of hambrusch1995/1996 (ALGORITHMS.md 5.8) on
 * an r x c mesh, pure: which ranks are sources.  Used by the workloads
 * (workload_bcast.c) and by Repos / Part for their ideal distributions.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "plan_bcast.h"

/* Mark rank i; 1 if it was not marked yet. */
static int dist_mark(unsigned char *m, int i)
{
    if (m[i])
        return 0;
    m[i] = 1;
    return 1;
}

/* Rank of position q on line l: rows (cols = 0) or columns. */
static int dist_at(int c, int cols, int l, int q)
{
    return cols ? q * c + l : l * c + q;
}

/* Rows (or columns): k = ceil(s / len) lines at floor(m nl / k) (or the
 * first k with prefix); fill: full lines, the remainder on the last at
 * evenly spaced places; balanced: floor or ceil of s/k on each. */
static int dist_lines(int r, int c, int s, int cols, int balanced, int prefix,
                      unsigned char *m)
{
    int nl = cols ? c : r, len = cols ? r : c, k, l, q, n, placed = 0;

    if (s == 0)
        return 0;
    k = (s + len - 1) / len;
    for (l = 0; l < k; l++) {
        int line = prefix ? l : (int)((long)l * nl / k);

        if (balanced)
            n = s / k + (l < s % k);
        else
            n = l < k - 1 ? len : s - (k - 1) * len;
        for (q = 0; q < n; q++)
            placed +=
                dist_mark(m, dist_at(c, cols, line, (int)((long)q * len / n)));
    }
    return placed;
}

/* Cell x of wrapped diagonal d, right ((x + d) mod c) or left
 * ((c - 1 - x - d) mod c). */
static int dist_diag_at(int c, int left, int d, int x)
{
    int y = left ? (c - 1 - x - d) % c : (x + d) % c;

    return x * c + (y < 0 ? y + c : y);
}

static int dist_diag(int r, int c, int s, int left, unsigned char *m)
{
    int k = (s + r - 1) / r, j, x, placed = 0;

    for (j = 0; j < k && placed < s; j++)
        for (x = 0; x < r && placed < s; x++)
            placed +=
                dist_mark(m, dist_diag_at(c, left, (int)((long)j * c / k), x));
    return placed;
}

/* ceil(s/2) as a filled row distribution, the rest as a filled column
 * distribution of the ranks not taken yet ([AMB-26]): the smallest column
 * distribution with that many new ranks, its first ones in rank order. */
static int dist_cross(int r, int c, int s, unsigned char *m)
{
    int p = r * c, s1 = (s + 1) / 2, s2 = s - s1, n, i, fresh;
    unsigned char *t = malloc((size_t)p);

    if (!t)
        return -1;
    dist_lines(r, c, s1, 0, 0, 0, m);
    for (n = s2; s2 > 0 && n <= p; n++) {
        memset(t, 0, (size_t)p);
        dist_lines(r, c, n, 1, 0, 0, t);
        for (i = fresh = 0; i < p; i++)
            fresh += t[i] && !m[i];
        if (fresh >= s2)
            break;
    }
    for (i = 0; i < p && s2 > 0; i++)
        if (t[i] && !m[i]) {
            m[i] = 1;
            s2--;
        }
    free(t);
    return s;
}

/* 002's cross: a rows and a columns, every node of them. */
static int dist_cross_full(int r, int c, int a, unsigned char *m)
{
    int j, q, placed = 0;

    if (a > r || a > c)
        return -1;
    for (j = 0; j < a; j++)
        for (q = 0; q < c; q++)
            placed += dist_mark(m, (int)((long)j * r / a) * c + q);
    for (j = 0; j < a; j++)
        for (q = 0; q < r; q++)
            placed += dist_mark(m, q * c + (int)((long)j * c / a));
    return placed;
}

/* A bw-wide block from (0,0) filled row by row up to n. */
static int dist_block_fill(int c, int bw, int n, unsigned char *m)
{
    int i;

    for (i = 0; i < n; i++)
        m[(i / bw) * c + i % bw] = 1;
    return n;
}

/* 004's square block: ceil(sqrt s) wide (narrower meshes: as wide as
 * fits, as many rows as needed). */
static int dist_block(int r, int c, int s, unsigned char *m)
{
    int q = (int)ceil(sqrt((double)s)), bw, bh;

    while (q * q < s)
        q++;
    bw = q < c ? q : c;
    bh = bw ? (s + bw - 1) / bw : 0;
    if (bh > r)
        bw = (s + r - 1) / r;
    return s ? dist_block_fill(c, bw, s, m) : 0;
}

/* [AMB-27]: nb = ceil(sqrt(s/r)) bands of w = round(sqrt(s/r)) adjacent
 * wrapped right diagonals, band j from diagonal floor(j c / nb), filled
 * band by band, diagonal by diagonal, row by row; w grows by one when the
 * bands overlap too much to hold s. */
static int dist_band(int r, int c, int s, unsigned char *m)
{
    double t = sqrt((double)s / r);
    int nb = (int)ceil(t), w = (int)lround(t), j, d, x, placed = 0;

    if (w < 1)
        w = 1;
    while (s > 0) {
        memset(m, 0, (size_t)r * c);
        placed = 0;
        for (j = 0; j < nb && placed < s; j++)
            for (d = 0; d < w && placed < s; d++)
                for (x = 0; x < r && placed < s; x++)
                    placed += dist_mark(
                        m, dist_diag_at(c, 0, ((int)((long)j * c / nb) + d) % c,
                                        x));
        if (placed == s)
            break;
        w++;
    }
    return placed;
}

/* The first s nodes of the snake order (row-major with rowmajor). */
static int dist_lin_prefix(int c, int s, int rowmajor, unsigned char *m)
{
    int i;

    for (i = 0; i < s; i++) {
        int x = i / c, y = i % c;

        m[x * c + (rowmajor || x % 2 == 0 ? y : c - 1 - y)] = 1;
    }
    return s;
}

int cm5s_bc_dist(cm5s_bc_dist_t d, int r, int c, int s, int a, int b,
                 unsigned char *m)
{
    int p = r * c, i, n = 0;

    if (r < 1 || c < 1 || s < 0 || s > p || a < 0 || b < 0)
        return -1;
    memset(m, 0, (size_t)p);
    switch (d) {
    case CM5S_BC_ROW:
    case CM5S_BC_COL:
        return dist_lines(r, c, s, d == CM5S_BC_COL, a == 1, 0, m);
    case CM5S_BC_ROW_PREFIX:
        return dist_lines(r, c, s, 0, 0, 1, m);
    case CM5S_BC_DIAG_R:
    case CM5S_BC_DIAG_L:
        return dist_diag(r, c, s, d == CM5S_BC_DIAG_L, m);
    case CM5S_BC_EQUAL:
        if (a > 0) {
            for (i = 0; i < p; i += a, n++)
                m[i] = 1;
            return n;
        }
        for (i = 0; i < s; i++)
            m[(long)i * p / s] = 1;
        return s;
    case CM5S_BC_CROSS:
        return a > 0 ? dist_cross_full(r, c, a, m) : dist_cross(r, c, s, m);
    case CM5S_BC_BLOCK:
        if (a > 0 || b > 0) {
            if (a < 1 || b < 1 || a > r || b > c)
                return -1;
            return dist_block_fill(c, b, a * b, m);
        }
        return dist_block(r, c, s, m);
    case CM5S_BC_BAND:
        return dist_band(r, c, s, m);
    case CM5S_BC_LIN_PREFIX:
        return dist_lin_prefix(c, s, a == 1, m);
    default:
        return -1;
    }
}
