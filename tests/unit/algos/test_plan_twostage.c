/*
 * Two-stage / A2 planner (algos/plan_twostage.c): Stg1lpp against an
 * element-by-element oracle (the loops of sims/dist.py), the stage-1 bound
 * ceil(t/p) (exactly reached on equal-traffic matrices, ALGORITHMS.md
 * 7.5), floor/ceil(r_i/p) message sizes, the stage-2 bound
 * sum_i ceil(a_ij/p) <= t/p + p, the 6.3 reshuffle, Bader's bins, the
 * headers, and both stages simulated in memory: every element routed
 * exactly once and placed at its offset, with dense and sparse headers.
 */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "plan_twostage.h"
#include "sched_internal.h"

static uint64_t trng;

static uint64_t tr(uint64_t n)
{
    uint64_t z = (trng += 0x9e3779b97f4a7c15ULL);

    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    return n ? z % n : 0;
}

/* sims/dist.py's generator: a sum of 6 random permutations with weights
 * 1..5p, so every row and column sums to t (equal traffic). */
static void gen_equal(int p, size_t *a)
{
    int perm[64];

    memset(a, 0, sizeof(size_t) * p * p);
    for (int r = 0; r < 6; r++) {
        size_t w = 1 + tr(5 * (uint64_t)p);

        for (int i = 0; i < p; i++)
            perm[i] = i;
        for (int i = p - 1; i > 0; i--) {
            int j = (int)tr((uint64_t)i + 1), t = perm[i];

            perm[i] = perm[j];
            perm[j] = t;
        }
        for (int i = 0; i < p; i++)
            a[i * p + perm[i]] += w;
    }
}

/* Random bounded traffic: each entry nonzero with probability 1/2. */
static void gen_random(int p, size_t *a, size_t maxn)
{
    for (int i = 0; i < p * p; i++)
        a[i] = tr(2) ? 1 + tr(maxn) : 0;
}

static size_t traffic(int p, const size_t *a)
{
    size_t t = 0;

    for (int i = 0; i < p; i++) {
        size_t r = 0, c = 0;

        for (int j = 0; j < p; j++) {
            r += a[i * p + j];
            c += a[j * p + i];
        }
        t = r > t ? r : t;
        t = c > t ? c : t;
    }
    return t;
}

static size_t rowsum(int p, const size_t *a, int i)
{
    size_t r = 0;

    for (int j = 0; j < p; j++)
        r += a[i * p + j];
    return r;
}

/* All sources' splits: parts[i] */
static cm5s_split_t *split_all(int p, const size_t *a, int mode, int rotate,
                               int shuffle, uint64_t seed)
{
    cm5s_split_t *s = calloc((size_t)p, sizeof(*s));

    for (int i = 0; i < p; i++) {
        cm5s_rng_t r;

        cr_assert_eq(cm5s_split_init(&s[i], p), 0);
        cm5s_rng_seed(&r, seed, (uint64_t)i);
        if (mode)
            cm5s_stg1_bader(&s[i], i, &a[i * p]);
        else
            cm5s_stg1lpp(&s[i], i, &a[i * p], rotate, shuffle ? &r : NULL);
    }
    return s;
}

static void split_free(int p, cm5s_split_t *s)
{
    for (int i = 0; i < p; i++)
        cm5s_split_fini(&s[i]);
    free(s);
}

/* Chunks of every pair: consecutive, in intermediate order, adding up. */
static void check_layout(int p, const size_t *a, const cm5s_split_t *s)
{
    for (int j = 0; j < p; j++) {
        size_t ptr = 0;

        for (int k = 0; k < p; k++) {
            cr_assert_eq(s->off[k * p + j], ptr, "j %d k %d", j, k);
            ptr += s->part[k * p + j];
        }
        cr_assert_eq(ptr, a[j], "pair to %d: %zu of %zu", j, ptr, a[j]);
    }
    for (int k = 0; k < p; k++) {
        size_t sum = 0;

        for (int j = 0; j < p; j++)
            sum += s->part[k * p + j];
        cr_assert_eq(s->total[k], sum);
    }
}

/* Stage-2 message (k -> j) holds sum_i part_i[k][j] <= sum_i ceil(a_ij/p)
 * <= c_j/p + p <= t/p + p; returns the largest. */
static size_t check_stage2(int p, const size_t *a, const cm5s_split_t *s)
{
    size_t t = traffic(p, a), worst = 0;

    for (int j = 0; j < p; j++) {
        size_t ceils = 0;

        for (int i = 0; i < p; i++)
            ceils += (a[i * p + j] + p - 1) / p;
        cr_assert_leq(ceils * p, t + (size_t)p * p, "sum ceil %zu t %zu", ceils,
                      t);
        for (int k = 0; k < p; k++) {
            size_t m = 0;

            for (int i = 0; i < p; i++)
                m += s[i].part[k * p + j];
            cr_assert_leq(m, ceils, "k %d j %d: %zu > %zu", k, j, m, ceils);
            worst = m > worst ? m : worst;
        }
    }
    return worst;
}

/* The largest stage-1 message; each is floor or ceil of r_i / p. */
static size_t check_stage1(int p, const size_t *a, const cm5s_split_t *s)
{
    size_t t = traffic(p, a), worst = 0;

    for (int i = 0; i < p; i++) {
        size_t r = rowsum(p, a, i);

        check_layout(p, &a[i * p], &s[i]);
        for (int k = 0; k < p; k++) {
            size_t n = s[i].total[k];

            cr_assert(n == r / p || n == (r + p - 1) / p,
                      "p %d source %d to %d: %zu, r %zu", p, i, k, n, r);
            cr_assert_leq(n, (t + p - 1) / p);
            worst = n > worst ? n : worst;
        }
    }
    return worst;
}

/* sims/dist.py's stage_sizes, element by element. */
static void oracle(int p, int i, const size_t *a, int rot, size_t *part)
{
    for (int j = 0; j < p; j++)
        for (int k = 0; k < p; k++)
            part[k * p + j] = a[j] / p;
    int k = rot ? i : 0;
    for (int j = 0; j < p; j++)
        for (size_t x = 0; x < a[j] % p; x++) {
            part[k * p + j]++;
            k = (k + 1) % p;
        }
}

Test(stg1lpp, matches_element_oracle)
{
    static size_t a[32 * 32], part[32 * 32];

    for (int p = 1; p <= 32; p += (p < 8 ? 1 : 8)) {
        for (int seed = 0; seed < 20; seed++) {
            trng = (uint64_t)seed * 131 + p;
            gen_random(p, a, 3 * (size_t)p);
            for (int rot = 0; rot < 2; rot++) {
                cm5s_split_t *s = split_all(p, a, 0, rot, 0, 1);

                for (int i = 0; i < p; i++) {
                    oracle(p, i, &a[i * p], rot, part);
                    cr_assert_arr_eq(s[i].part, part, sizeof(size_t) * p * p,
                                     "p %d seed %d rot %d source %d", p, seed,
                                     rot, i);
                }
                split_free(p, s);
            }
        }
    }
}

/* The same matrix through sims/dist.py's stage_sizes (self entries and
 * k == i counted, as there): A[i][j] = (7i + 13j + ij) mod (5p + 1) gives
 * (stage-1 max, stage-2 max) = (22, 24), rotated (22, 25) for p = 8 and
 * (89, 93), rotated (89, 92) for p = 32. */
Test(stg1lpp, agrees_with_sims_dist_py)
{
    static size_t a[32 * 32];
    const size_t want[2][2][2] = {{{22, 24}, {22, 25}}, {{89, 93}, {89, 92}}};

    for (int q = 0; q < 2; q++) {
        int p = q ? 32 : 8;

        for (int i = 0; i < p; i++)
            for (int j = 0; j < p; j++)
                a[i * p + j] = (size_t)((7 * i + 13 * j + i * j) % (5 * p + 1));
        for (int rot = 0; rot < 2; rot++) {
            cm5s_split_t *s = split_all(p, a, 0, rot, 0, 1);
            size_t s1 = 0, s2 = 0;

            for (int k = 0; k < p; k++) {
                for (int i = 0; i < p; i++)
                    s1 = s[i].total[k] > s1 ? s[i].total[k] : s1;
                for (int j = 0; j < p; j++) {
                    size_t m = 0;

                    for (int i = 0; i < p; i++)
                        m += s[i].part[k * p + j];
                    s2 = m > s2 ? m : s2;
                }
            }
            cr_assert_eq(s1, want[q][rot][0], "p %d rot %d", p, rot);
            cr_assert_eq(s2, want[q][rot][1], "p %d rot %d", p, rot);
            split_free(p, s);
        }
    }
}

/* ALGORITHMS.md 7.5: on equal-traffic matrices the largest stage-1
 * message is exactly ceil(t/p) and every message ceil or floor(t/p). */
Test(stg1lpp, equal_traffic_bound_is_reached)
{
    static size_t a[32 * 32];
    int ps[] = {8, 32};

    for (int q = 0; q < 2; q++) {
        int p = ps[q];

        for (int seed = 0; seed < 100; seed++) {
            trng = 1000 + (uint64_t)seed;
            gen_equal(p, a);
            for (int v = 0; v < 3; v++) {
                size_t t = traffic(p, a), s1, s2;
                cm5s_split_t *s = split_all(p, a, 0, v == 1, v == 2, seed);

                s1 = check_stage1(p, a, s);
                cr_assert_eq(s1, (t + p - 1) / p, "p %d seed %d v %d", p, seed,
                             v);
                for (int i = 0; i < p; i++)
                    for (int k = 0; k < p; k++)
                        cr_assert(s[i].total[k] == t / p ||
                                  s[i].total[k] == (t + p - 1) / p);
                s2 = check_stage2(p, a, s);
                cr_assert_leq(s2 * p, t + (size_t)p * p);
                split_free(p, s);
            }
        }
    }
}

Test(stg1lpp, random_traffic_bounds)
{
    static size_t a[32 * 32];
    int ps[] = {2, 3, 5, 8, 31, 32};

    for (int q = 0; q < 6; q++) {
        int p = ps[q];

        for (int seed = 0; seed < 60; seed++) {
            trng = 5000 + (uint64_t)seed * 7 + p;
            gen_random(p, a, seed % 3 == 0 ? 4 : 20 * (size_t)p);
            for (int v = 0; v < 4; v++) {
                cm5s_split_t *s = split_all(p, a, 0, v & 1, v >> 1, seed);

                check_stage1(p, a, s);
                check_stage2(p, a, s);
                split_free(p, s);
            }
        }
    }
}

/* 6.3: a permutation of the messages inside each size group. */
Test(stg1lpp, shuffle_permutes_within_size_groups)
{
    static size_t a[32 * 32];
    int p = 32, moved = 0;

    for (int seed = 0; seed < 20; seed++) {
        trng = 77 + (uint64_t)seed;
        gen_random(p, a, 200);
        cm5s_split_t *s0 = split_all(p, a, 0, 0, 0, seed);
        cm5s_split_t *s1 = split_all(p, a, 0, 0, 1, seed);
        cm5s_split_t *s2 = split_all(p, a, 0, 0, 1, seed);

        for (int i = 0; i < p; i++) {
            char *used = calloc(p, 1);

            for (int k = 0; k < p; k++) {
                int found = -1;

                /* message k of the shuffle is some unused message m of
                 * the plain split with the same total and the same parts */
                for (int m = 0; m < p && found < 0; m++)
                    if (!used[m] && s0[i].total[m] == s1[i].total[k] &&
                        !memcmp(&s0[i].part[m * p], &s1[i].part[k * p],
                                sizeof(size_t) * p))
                        found = m;
                cr_assert_geq(found, 0, "seed %d source %d msg %d", seed, i, k);
                used[found] = 1;
                moved += found != k;
            }
            free(used);
            cr_assert_arr_eq(s1[i].part, s2[i].part, sizeof(size_t) * p * p,
                             "not deterministic");
        }
        split_free(p, s0);
        split_free(p, s1);
        split_free(p, s2);
    }
    cr_assert_gt(moved, 0, "the reshuffle never moved a message");
}

/* Bader: each pair's leftovers in bins (i+j), (i+j+1), ... mod p. */
Test(bader, bins_start_at_i_plus_j)
{
    static size_t a[16 * 16];
    int p = 16;

    for (int seed = 0; seed < 30; seed++) {
        trng = 300 + (uint64_t)seed;
        gen_random(p, a, 60);
        cm5s_split_t *s = split_all(p, a, 1, 0, 0, 1);

        for (int i = 0; i < p; i++) {
            check_layout(p, &a[i * p], &s[i]);
            for (int j = 0; j < p; j++) {
                size_t n = a[i * p + j];

                for (int d = 0; d < p; d++) {
                    int k = (i + j + d) % p;

                    cr_assert_eq(s[i].part[k * p + j],
                                 n / p + ((size_t)d < n % p));
                }
            }
        }
        check_stage2(p, a, s);
        split_free(p, s);
    }
}

Test(headers, round_trip_and_malformed)
{
    size_t len[5] = {3, 0, 7, 0, 1}, off[5] = {10, 0, 0, 0, 99};
    size_t l2[5], o2[5];
    char msg[256];

    for (int sp = 0; sp < 2; sp++) {
        size_t h = cm5s_hdr_write(msg, 5, sp, len, off), ml = h + 11 * 2;

        cr_assert_eq(h, cm5s_hdr_bytes(5, sp, len));
        cr_assert_leq(h, cm5s_hdr_max(5, sp, 11));
        cr_assert_eq(h, sp ? 4 * (2 + 3 * 3) : 4 * 6);
        cr_assert_eq(cm5s_hdr_read(msg, ml, 5, sp, 2, l2, o2), h);
        cr_assert_arr_eq(l2, len, sizeof(len));
        for (int j = 0; j < 5; j++)
            if (len[j])
                cr_assert_eq(o2[j], sp ? off[j] : CM5S_NO_OFF);
        /* wrong message length, then a wrong total */
        cr_assert_eq(cm5s_hdr_read(msg, ml + 2, 5, sp, 2, l2, o2), 0);
        msg[0]++;
        cr_assert_eq(cm5s_hdr_read(msg, ml + 2, 5, sp, 2, l2, o2), 0);
    }
    /* sparse indices must increase and stay below p */
    cm5s_hdr_write(msg, 5, 1, len, off);
    msg[4 * 5] = 0; /* second entry's index 2 -> 0 */
    cr_assert_eq(cm5s_hdr_read(msg, 4 * 11 + 11, 5, 1, 1, l2, o2), 0);
    cm5s_hdr_write(msg, 5, 1, len, off);
    msg[4 * 5] = 9;
    cr_assert_eq(cm5s_hdr_read(msg, 4 * 11 + 11, 5, 1, 1, l2, o2), 0);
    /* a value beyond 32 bits is refused */
    len[0] = (size_t)UINT32_MAX + 1;
    cr_assert_eq(cm5s_hdr_write(msg, 5, 0, len, off), 0);
}

/* ---- both stages in memory -------------------------------------------- */

static unsigned char pat(int i, int j, size_t b)
{
    uint64_t z = ((uint64_t)i << 40) ^ ((uint64_t)j << 20) ^ b;

    z = (z ^ (z >> 29)) * 0xbf58476d1ce4e5b9ULL;
    return (unsigned char)(z >> 32);
}

/* Routes every element of a (self entries included) through both stages
 * with the pure functions; checks every byte and the slot bound. */
static void simulate(int p, const size_t *a, int mode, int rot, int shuf,
                     int sparse, size_t esz, uint64_t seed)
{
    size_t t = traffic(p, a), bound = (t + p - 1) / p + (mode ? p : 0);
    size_t slot = cm5s_hdr_max(p, sparse, bound) + bound * esz;
    cm5s_split_t *s = split_all(p, a, mode, rot, shuf, seed);
    char **sbuf = calloc(p, sizeof(char *)), **rbuf = calloc(p, sizeof(*rbuf));
    size_t *sd = calloc((size_t)p * p, sizeof(size_t));
    size_t *rd = calloc((size_t)p * p, sizeof(size_t));
    size_t *rc = calloc((size_t)p * p, sizeof(size_t));
    char *slots = malloc((size_t)p * p * slot + 1);     /* [k][i] */
    size_t *m1 = calloc((size_t)p * p, sizeof(size_t)); /* [k][i] */
    char **m2 = calloc((size_t)p * p, sizeof(char *));  /* [j][k] */
    size_t *m2len = calloc((size_t)p * p, sizeof(size_t));
    size_t *len1 = calloc((size_t)p * p, sizeof(size_t));
    size_t *off1 = calloc((size_t)p * p, sizeof(size_t));
    size_t *fwd = calloc((size_t)p * p, sizeof(size_t));
    size_t *tot = calloc(p, sizeof(size_t)), *cl = calloc(p, sizeof(size_t));
    size_t *co = calloc(p, sizeof(size_t));
    const char **pay = calloc(p, sizeof(char *));
    char err[256];

    for (int i = 0; i < p; i++) { /* send and receive buffers */
        size_t ns = 0, nr = 0;

        for (int j = 0; j < p; j++) {
            sd[i * p + j] = ns;
            ns += a[i * p + j];
            rd[i * p + j] = nr;
            rc[i * p + j] = a[j * p + i];
            nr += a[j * p + i];
        }
        sbuf[i] = malloc(ns * esz + 1);
        rbuf[i] = malloc(nr * esz + 64);
        memset(rbuf[i], 0xa5, nr * esz + 64);
        for (int j = 0; j < p; j++)
            for (size_t b = 0; b < a[i * p + j] * esz; b++)
                sbuf[i][sd[i * p + j] * esz + b] = (char)pat(i, j, b);
    }
    for (int i = 0; i < p; i++) /* stage 1: source i -> slot i of k */
        for (int k = 0; k < p; k++) {
            char *dst = slots + ((size_t)k * p + i) * slot;
            size_t n = s[i].total[k], want;

            if (!n)
                continue;
            want = cm5s_hdr_bytes(p, sparse, &s[i].part[k * p]) + n * esz;
            cr_assert_leq(want, slot, "stage-1 message exceeds the slot");
            m1[k * p + i] =
                cm5s_pack1(dst, sparse, esz, &s[i], k, sbuf[i], &sd[i * p]);
            cr_assert_eq(m1[k * p + i], want);
        }
    for (int k = 0; k < p; k++) { /* intermediate k: Stg2pp */
        for (int i = 0; i < p; i++) {
            const char *m = slots + ((size_t)k * p + i) * slot;
            size_t h = 0;

            memset(&len1[i * p], 0, sizeof(size_t) * p);
            if (m1[k * p + i]) {
                h = cm5s_hdr_read(m, m1[k * p + i], p, sparse, esz,
                                  &len1[i * p], &off1[i * p]);
                cr_assert_neq(h, 0, "stage-1 header from %d at %d", i, k);
            }
            pay[i] = m + h;
        }
        cm5s_stg2pp(p, len1, fwd, tot);
        for (int j = 0; j < p; j++) {
            size_t n;

            if (!tot[j])
                continue;
            m2[j * p + k] = malloc(cm5s_hdr_max(p, sparse, p) + tot[j] * esz);
            n = cm5s_pack2(m2[j * p + k], p, sparse, esz, j, len1, off1, fwd,
                           pay, cl, co);
            cr_assert_eq(n, cm5s_hdr_bytes(p, sparse, cl) + tot[j] * esz);
            m2len[j * p + k] = n;
        }
    }
    for (int j = 0; j < p; j++) { /* destination j */
        size_t ml;

        cr_assert_eq(cm5s_unpack2(p, sparse, esz,
                                  (const char *const *)&m2[j * p],
                                  &m2len[j * p], rbuf[j], &rc[j * p],
                                  &rd[j * p], j, &ml, err, sizeof(err)),
                     0, "p %d dest %d: %s", p, j, err);
        for (int i = 0; i < p; i++)
            for (size_t b = 0; b < a[i * p + j] * esz; b++)
                cr_assert_eq((unsigned char)rbuf[j][rd[j * p + i] * esz + b],
                             pat(i, j, b),
                             "p %d mode %d rot %d shuf %d sparse %d esz %zu: "
                             "byte %zu of %d -> %d",
                             p, mode, rot, shuf, sparse, esz, b, i, j);
        for (size_t b = 0; b < 64; b++)
            cr_assert_eq((unsigned char)rbuf[j][rd[j * p + p - 1] * esz +
                                                a[(p - 1) * p + j] * esz + b],
                         0xa5);
        for (int k = 0; k < p; k++)
            free(m2[j * p + k]);
    }
    for (int i = 0; i < p; i++) {
        free(sbuf[i]);
        free(rbuf[i]);
    }
    free(sbuf), free(rbuf), free(sd), free(rd), free(rc), free(slots);
    free(m1), free(m2), free(m2len), free(len1), free(off1), free(fwd);
    free(tot), free(cl), free(co), free(pay);
    split_free(p, s);
}

Test(simulate, every_element_once_at_its_offset, .timeout = 60)
{
    static size_t a[32 * 32];
    int ps[] = {1, 2, 3, 5, 8, 13, 32};

    for (int q = 0; q < 7; q++) {
        int p = ps[q];

        for (int seed = 0; seed < (p > 8 ? 3 : 12); seed++) {
            trng = 9000 + (uint64_t)seed * 31 + p;
            if (seed % 2)
                gen_equal(p, a);
            else
                gen_random(p, a, seed % 4 ? 3 * (size_t)p : 3);
            for (int v = 0; v < 12; v++) {
                int mode = v >= 8, rot = v & 1, shuf = (v >> 1) & 1;
                int sparse = (v >> 2) & 1;
                size_t esz = (v % 3 == 0) ? 8 : (v % 3 == 1 ? 1 : 3);

                if (mode && (rot || shuf))
                    continue;
                simulate(p, a, mode, rot, shuf, sparse, esz, seed);
            }
        }
    }
}

/* The destination refuses a chunk that would land past its pair. */
Test(unpack, chunk_past_the_pair_is_refused)
{
    size_t len[2] = {4, 0}, off[2] = {3, 0}, rc[2] = {5, 0}, rd[2] = {0, 5};
    size_t ml[2] = {0, 0};
    char m[64], rb[16], err[128];
    const char *msg[2] = {NULL, m};

    ml[1] = cm5s_hdr_write(m, 2, 1, len, off) + 4;
    cr_assert_eq(
        cm5s_unpack2(2, 1, 1, msg, ml, rb, rc, rd, 0, NULL, err, sizeof(err)),
        -1);
    cr_assert(strstr(err, "from node 0") != NULL, "%s", err);
    /* and a source whose chunks fall short */
    off[0] = 0;
    ml[1] = cm5s_hdr_write(m, 2, 1, len, off) + 4;
    cr_assert_eq(
        cm5s_unpack2(2, 1, 1, msg, ml, rb, rc, rd, 0, NULL, err, sizeof(err)),
        -1);
    cr_assert(strstr(err, "expected 5") != NULL, "%s", err);
}
