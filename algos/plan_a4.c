/*
 * liu2002 A4, the pure part: layout, pseudo-nodes, schedules and the
 * bucket arithmetic (ALGORITHMS.md 3.4.1-3.4.4).
 */
#include <string.h>

#include "plan_a4.h"

int cm5s_isqrt_floor(int n)
{
    int s = 0;

    while ((long)(s + 1) * (s + 1) <= n)
        s++;
    return s;
}

int cm5s_isqrt_ceil(int n)
{
    int s = cm5s_isqrt_floor(n);

    return s * s == n ? s : s + 1;
}

static void layout_with(int P, int C, cm5s_a4_layout_t *L)
{
    L->P = P;
    L->C = C;
    L->R = (P + C - 1) / C;
    L->r = P % C;
}

void cm5s_a4_layout(int P, cm5s_a4_layout_t *L)
{
    layout_with(P, cm5s_isqrt_ceil(P), L);
    L->rearranged = 0;
    /* The construction needs r <= R - 1; it fails exactly when
     * P = ceil(sqrt P) * floor(sqrt P) - 1, and C = floor(sqrt P) fixes
     * it. */
    if (L->r && L->r > L->R - 1) {
        layout_with(P, cm5s_isqrt_floor(P), L);
        L->rearranged = 1;
    }
}

int cm5s_a4_col_incomplete(const cm5s_a4_layout_t *L, int col)
{
    return L->r != 0 && col >= L->r;
}

int cm5s_a4_colsize(const cm5s_a4_layout_t *L, int col)
{
    return cm5s_a4_col_incomplete(L, col) ? L->R - 1 : L->R;
}

int cm5s_a4_row_target(const cm5s_a4_layout_t *L, int sender, int col)
{
    int row = sender / L->C;

    if (row == L->R - 1 && cm5s_a4_col_incomplete(L, col))
        return (sender % L->C) * L->C + col; /* the pseudo-node's proxy */
    return row * L->C + col;
}

void cm5s_shift_step(int q, int pos, int s, int *to, int *from)
{
    *to = (pos + s) % q;
    *from = ((pos - s) % q + q) % q;
}

/* Rows without a stall: complete rows m >= r and the incomplete row. */
static int row_plain(const cm5s_a4_layout_t *L, int n, cm5s_a4_step_t *st)
{
    int C = L->C, row = n / C, col = n % C, s, to, from;
    int last = L->r && row == L->R - 1;

    for (s = 1; s <= C; s++) {
        cm5s_shift_step(C, col, s, &to, &from);
        st[s - 1].send = cm5s_a4_row_target(L, n, to);
        /* Pseudo-nodes send nothing. */
        st[s - 1].recv = last && from >= L->r ? -1 : row * C + from;
    }
    return C;
}

/* Step (1-based) at which the sender in column c of row m uses shift s
 * (s = C: the self copy), given its stall step (0: none). */
static int stalled_step(int s, int stall)
{
    return stall && s >= stall ? s + 1 : s;
}

int cm5s_a4_row_sched(const cm5s_a4_layout_t *L, int n, cm5s_a4_step_t *st)
{
    int C = L->C, r = L->r, m = n / C, col = n % C, k, c, s;
    int stall[C > 0 ? C : 1];

    if (r == 0 || m >= r)
        return row_plain(L, n, st);
    for (s = 0; s <= C; s++)
        st[s].send = st[s].recv = -1;
    /* Revised R-Schedule ([AMB-12]): the node at column (m - k) mod C
     * stalls where, unstalled, it would use shift r - m + k, for
     * k = 0 .. C - r + m; with the self copy last, shift = step. */
    memset(stall, 0, sizeof(stall));
    for (k = 0; k <= C - r + m; k++)
        stall[((m - k) % C + C) % C] = r - m + k;
    for (s = 1; s <= C; s++)
        st[stalled_step(s, stall[col]) - 1].send = m * C + (col + s) % C;
    for (c = 0; c < C; c++) {
        s = ((col - c) % C + C) % C;
        st[stalled_step(s ? s : C, stall[c]) - 1].recv = m * C + c;
    }
    /* The incomplete-row node at column m sends the pseudo-columns' share
     * (columns >= r) here, on its own unstalled step. */
    if (col >= r)
        st[((col - m) % C + C) % C - 1].recv = (L->R - 1) * C + m;
    return C + 1;
}

int cm5s_a4_col_sched(const cm5s_a4_layout_t *L, int n, cm5s_a4_step_t *st)
{
    int C = L->C, q = n / C, col = n % C, N = cm5s_a4_colsize(L, col);
    int s, to, from;

    for (s = 1; s <= N; s++) {
        cm5s_shift_step(N, q, s, &to, &from);
        st[s - 1].send = to * C + col;
        st[s - 1].recv = from * C + col;
    }
    return N;
}

int cm5s_a4_send_bucket(const cm5s_a4_layout_t *L, int row, int to)
{
    return row ? to % L->C : to / L->C;
}

int cm5s_a4_n1_order(const cm5s_a4_step_t *steps, int n, cm5s_a4_op_t *ops)
{
    int k, m = 0;

    /* Each bucket is filled just before its send starts, i.e. while the
     * send before it (asynchronous) is in flight. */
    for (k = 0; k < n; k++) {
        if (steps[k].send < 0)
            continue;
        ops[m++] = (cm5s_a4_op_t){1, k};
        ops[m++] = (cm5s_a4_op_t){0, k};
    }
    return m;
}

uint64_t cm5s_a4_counter_start(int n, int j, int mod, int rotate)
{
    return rotate ? (uint64_t)(n + j) % (uint64_t)mod
                  : (uint64_t)j % (uint64_t)mod;
}

/* How many v in [0, n) have v mod C == b. */
static uint64_t below(uint64_t n, uint64_t b, uint64_t C)
{
    return n > b ? (n - b - 1) / C + 1 : 0;
}

void cm5s_a4_rdist(const cm5s_a4_layout_t *L, uint64_t x0, uint64_t M,
                   uint64_t *cnt)
{
    uint64_t P = (uint64_t)L->P, C = (uint64_t)L->C;
    uint64_t q = M / P, k = M % P, a = x0 % P, b;

    /* Every P consecutive elements give bucket b one element per v in
     * [0, P) with v mod C == b (R or R - 1); the rest of the pair is the
     * wrapped window [a, a + k). */
    for (b = 0; b < C; b++) {
        uint64_t c = q * below(P, b, C);

        if (a + k <= P)
            c += below(a + k, b, C) - below(a, b, C);
        else
            c += below(P, b, C) - below(a, b, C) + below(a + k - P, b, C);
        cnt[b] = c;
    }
}

void cm5s_a4_cdist(int N, uint64_t x0, uint64_t M, uint64_t *cnt)
{
    uint64_t n = (uint64_t)N, x = x0 % n, b;

    for (b = 0; b < n; b++)
        cnt[b] = M / n + ((b + n - x) % n < M % n);
}

int cm5s_a4_ccollect_bucket(const cm5s_a4_layout_t *L, int dst)
{
    return dst % L->C;
}

int cm5s_a4_rcollect_bucket(const cm5s_a4_layout_t *L, int dst)
{
    return dst / L->C;
}
