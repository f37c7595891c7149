/*
 * Unit tests of the workload generators (<cm5/workload.h>,
 * ALGORITHMS.md section 5): exact counts and sums, value ranges,
 * determinism, spec errors, csv parsing, mesh matrices.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include <cm5/workload.h>

#define AT(w, i, j) ((w).com[(size_t)(i) * (size_t)(w).nodes + (size_t)(j)])

static cm5_workload_t make(const char *spec, int p, uint64_t seed)
{
    cm5_workload_t w;
    char err[256];
    cm5_status_t rc = cm5_workload_make(spec, p, seed, &w, err, sizeof(err));

    cr_assert_eq(rc, CM5_OK, "%s p=%d: %s", spec, p, err);
    cr_assert_eq(w.nodes, p);
    cr_assert_eq(w.seed, seed);
    return w;
}

/* The spec must fail, with a message containing what. */
static void bad(const char *spec, int p, const char *what)
{
    cm5_workload_t w;
    char err[256] = "";

    memset(&w, 0x5a, sizeof(w));
    cr_assert_eq(cm5_workload_make(spec, p, 1, &w, err, sizeof(err)),
                 CM5_ERR_INVALID, "%s p=%d accepted", spec, p);
    cr_assert(strstr(err, what), "%s: message '%s' lacks '%s'", spec, err,
              what);
    cr_assert(!strchr(err, '\n'), "message is one line: %s", err);
    cr_assert_eq(w.nodes, 0x5a5a5a5a, "output touched on failure");
}

static int row_nnz(cm5_workload_t w, int i)
{
    int j, n = 0;

    for (j = 0; j < w.nodes; j++)
        n += AT(w, i, j) != 0;
    return n;
}

static int col_nnz(cm5_workload_t w, int j)
{
    int i, n = 0;

    for (i = 0; i < w.nodes; i++)
        n += AT(w, i, j) != 0;
    return n;
}

static size_t row_sum(cm5_workload_t w, int i)
{
    size_t s = 0;
    int j;

    for (j = 0; j < w.nodes; j++)
        s += AT(w, i, j);
    return s;
}

static size_t col_sum(cm5_workload_t w, int j)
{
    size_t s = 0;
    int i;

    for (i = 0; i < w.nodes; i++)
        s += AT(w, i, j);
    return s;
}

/* ---- test sets 1 and 2 ------------------------------------------------ */

static void check_density(const char *kind, const char *gen, int p, int d,
                          uint64_t seed, size_t lo, size_t hi)
{
    char spec[80];
    cm5_workload_t w;
    int i, j;

    snprintf(spec, sizeof(spec), "%s:d=%d%s", kind, d, gen);
    w = make(spec, p, seed);
    cr_assert_str_eq(w.name, spec);
    cr_assert_eq(w.elem_size, 1);
    for (i = 0; i < p; i++) {
        cr_assert_eq(row_nnz(w, i), d, "%s p=%d seed=%lu row %d: %d", spec, p,
                     (unsigned long)seed, i, row_nnz(w, i));
        cr_assert_eq(col_nnz(w, i), d, "%s col %d: %d", spec, i, col_nnz(w, i));
        cr_assert_eq(AT(w, i, i), 0, "%s: diagonal", spec);
        for (j = 0; j < p; j++)
            if (AT(w, i, j))
                cr_assert(AT(w, i, j) >= lo && AT(w, i, j) <= hi,
                          "%s: entry %zu", spec, AT(w, i, j));
    }
    cm5_workload_free(&w);
}

Test(workload, density_exact_counts)
{
    const int ps[] = {8, 32};
    int k, d;
    uint64_t s;

    for (k = 0; k < 2; k++)
        for (d = 4; d < ps[k]; d++)
            for (s = 1; s <= 6; s++) {
                check_density("density", "", ps[k], d, s * 101 + d, 1, 1);
                check_density("density", ",gen=circulant", ps[k], d, s, 1, 1);
            }
    check_density("density", "", 5, 0, 1, 1, 1);
    check_density("density", "", 2, 1, 1, 1, 1);
}

/* The plain union of d random derangements collides and leaves ~20 of 31
 * per row at d = 31 (ALGORITHMS.md 5.1): never fewer than d. */
Test(workload, density_not_union_of_derangements)
{
    uint64_t s;
    int i;

    for (s = 0; s < 50; s++) {
        cm5_workload_t w = make("density:d=31", 32, s);

        for (i = 0; i < 32; i++)
            cr_assert_eq(row_nnz(w, i), 31, "seed %lu row %d: %d",
                         (unsigned long)s, i, row_nnz(w, i));
        cm5_workload_free(&w);
    }
}

Test(workload, nonuniform_counts_and_range)
{
    int d, hist[33] = {0}, i;
    uint64_t s;

    for (d = 4; d < 32; d += 3)
        for (s = 1; s <= 4; s++) {
            check_density("nonuniform", "", 32, d, s, 1, 32);
            check_density("nonuniform", ",gen=circulant", 32, d, s, 1, 32);
        }
    {
        cm5_workload_t w = make("nonuniform:d=16", 32, 7);

        for (i = 0; i < 32 * 32; i++)
            hist[w.com[i] <= 32 ? w.com[i] : 0]++;
        cm5_workload_free(&w);
    }
    /* 512 draws on 1..32: both ends appear, the pattern is not all 1s */
    cr_assert(hist[1] > 0 && hist[32] > 0 && hist[1] < 100);
}

Test(workload, density_same_pattern_as_nonuniform_sizes_differ)
{
    cm5_workload_t a = make("density:d=8", 16, 3),
                   b = make("density:d=8", 16, 4);

    cr_assert(memcmp(a.com, b.com, sizeof(size_t) * 256),
              "different seeds give different matrices");
    cm5_workload_free(&a);
    cm5_workload_free(&b);
}

/* ---- ranka1995 k/l ---------------------------------------------------- */

static void check_kl(int p, int k, const char *l, long t, int rel, int h)
{
    char spec[96];
    cm5_workload_t w;
    int i, j, nheavy;
    size_t heavy_min = (size_t)-1, light_max = 0;

    snprintf(spec, sizeof(spec), "kl:k=%d,l=%s,t=%ld%s", k, l, t,
             rel ? ",relabel=1" : "");
    w = make(spec, p, 11);
    for (i = 0; i < p; i++) {
        cr_assert_eq(row_sum(w, i), (size_t)t, "%s row %d: %zu", spec, i,
                     row_sum(w, i));
        cr_assert_eq(col_sum(w, i), (size_t)t, "%s col %d", spec, i);
        cr_assert_eq(row_nnz(w, i), k, "%s fan-out", spec);
        if (k < p)
            cr_assert_eq(AT(w, i, i), 0, "%s: self entry", spec);
    }
    /* h heavy messages of (1-l) t / h per row, never the self entry
     * ([AMB-20]); the others are light.  ("Heavy" ones are the larger
     * only when l < 1/2.) */
    for (i = 0; 2 * h < k && i < p; i++) {
        size_t row[256];

        for (j = 0; j < p; j++)
            row[j] = AT(w, i, j);
        for (nheavy = 0, j = 0; j < p; j++)
            if (row[j] >= (size_t)((t * (k - h) / k) / h)) {
                nheavy++;
                cr_assert_neq(j, i, "%s: heavy self entry", spec);
                if (row[j] < heavy_min)
                    heavy_min = row[j];
            } else if (row[j] > light_max) {
                light_max = row[j];
            }
        cr_assert_eq(nheavy, h, "%s row %d: %d heavy", spec, i, nheavy);
    }
    if (2 * h < k)
        cr_assert(heavy_min > light_max);
    cm5_workload_free(&w);
}

Test(workload, kl_sums_exact)
{
    check_kl(32, 32, "1/32", 65536, 0, 1);  /* best case, includes offset 0 */
    check_kl(32, 2, "1/2", 65536, 0, 1);    /* worst case */
    check_kl(32, 32, "1/32", 100003, 1, 1); /* remainders, relabelled */
    check_kl(32, 8, "0.25", 999, 0, 2);
    check_kl(17, 10, "3/10", 12345, 1, 3);
    check_kl(8, 8, "0.5", 64, 0, 4);
    check_kl(8, 8, "1/8", 1000, 0, 1);
    check_kl(64, 12, "0.75", 4096, 1, 9);
}

Test(workload, kl_heavy_never_self)
{
    uint64_t s;
    int i, j;

    for (s = 0; s < 40; s++) {
        cm5_workload_t w = make("kl:k=8,l=1/8,t=8000", 8, s);

        for (i = 0; i < 8; i++)
            for (j = 0; j < 8; j++)
                if (AT(w, i, j) > 1000)
                    cr_assert_neq(i, j, "seed %lu", (unsigned long)s);
        cm5_workload_free(&w);
    }
}

Test(workload, kl_errors)
{
    bad("kl:k=32,l=1/3", 32, "not an integer");
    bad("kl:k=3,l=0.5", 8, "not an integer");
    bad("kl:k=40,l=1/2", 32, "out of range");
    bad("kl:k=4", 8, "needs l=");
    bad("kl:l=1/2", 8, "needs k=");
    bad("kl:k=4,l=1", 8, "(0, 1)");
    bad("kl:k=4,l=x", 8, "(0, 1)");
    bad("kl:k=32,l=1/32,t=31", 32, "too small");
    bad("kl:k=4,l=1/2,q=1", 8, "unknown parameter 'q'");
}

/* ---- liu2002 ---------------------------------------------------------- */

Test(workload, pattern1_spike_and_small)
{
    cm5_workload_t w = make("pattern1", 64, 5);
    int i, j, spikes;

    cr_assert_str_eq(w.name, "pattern1");
    cr_assert_eq(w.elem_size, 48);
    for (i = 0; i < 64; i++) {
        for (spikes = 0, j = 0; j < 64; j++) {
            cr_assert(AT(w, i, j) <= 8 || AT(w, i, j) == 1024);
            spikes += AT(w, i, j) == 1024;
        }
        cr_assert_eq(spikes, 1, "row %d: %d spikes", i, spikes);
    }
    cm5_workload_free(&w);
    w = make("pattern1:m=4096,small=64,elem=22", 36, 5);
    cr_assert_str_eq(w.name, "pattern1:m=4096,small=64,elem=22");
    cr_assert_eq(w.elem_size, 22);
    for (i = 0; i < 36 * 36; i++)
        cr_assert(w.com[i] <= 64 || w.com[i] == 4096);
    cm5_workload_free(&w);
    bad("pattern1:elem=30", 16, "48 (T3D) or 22 (SP2)");
}

Test(workload, pattern2_transpose)
{
    cm5_workload_t w = make("pattern2", 64, 9);
    int i, j;

    for (i = 0; i < 64; i++)
        for (j = 0; j < 64; j++)
            if (j == (i % 8) * 8 + i / 8)
                cr_assert_eq(AT(w, i, j), 1024, "row %d", i);
            else
                cr_assert(AT(w, i, j) <= 8);
    cm5_workload_free(&w);
    /* p = 30: C = 6 columns; j >= 30 drops the spike ([AMB-23]) */
    w = make("pattern2", 30, 9);
    for (i = 0; i < 30; i++) {
        int t = (i % 6) * 6 + i / 6, spikes = 0;

        for (j = 0; j < 30; j++)
            spikes += AT(w, i, j) == 1024;
        cr_assert_eq(spikes, t < 30, "row %d", i);
        if (t < 30)
            cr_assert_eq(AT(w, i, t), 1024);
    }
    cm5_workload_free(&w);
    /* p = 29 = 6*5 - 1 uses C = 5 (A4's rearrangement) */
    w = make("pattern2", 29, 9);
    for (i = 0; i < 29; i++)
        if ((i % 5) * 5 + i / 5 < 29)
            cr_assert_eq(AT(w, i, (i % 5) * 5 + i / 5), 1024, "row %d", i);
    cm5_workload_free(&w);
}

/* ---- the simple matrices ---------------------------------------------- */

Test(workload, random_hotspot_permutation)
{
    cm5_workload_t w = make("random:d=4,max=10", 32, 2);
    size_t nnz = 0;
    int i;

    cr_assert_str_eq(w.name, "random:d=4,max=10");
    for (i = 0; i < 32 * 32; i++) {
        cr_assert(w.com[i] <= 10);
        nnz += w.com[i] != 0;
    }
    for (i = 0; i < 32; i++)
        cr_assert_eq(AT(w, i, i), 0);
    cr_assert(nnz > 64 && nnz < 192, "%zu nonzeros, expected ~128", nnz);
    cm5_workload_free(&w);

    w = make("hotspot:m=77", 8, 2);
    for (i = 0; i < 8; i++)
        cr_assert_eq(row_sum(w, i), i ? 77u : 0u);
    cr_assert_eq(col_sum(w, 0), 77u * 7);
    cm5_workload_free(&w);

    /* wang1993 Table 2: k senders into the last node */
    w = make("contention:k=3,m=5", 8, 2);
    cr_assert_str_eq(w.name, "contention:k=3,m=5");
    for (i = 0; i < 8; i++)
        cr_assert_eq(row_sum(w, i), i < 3 ? 5u : 0u);
    cr_assert_eq(col_sum(w, 7), 15u);
    cr_assert_eq(row_nnz(w, 7), 0);
    cm5_workload_free(&w);
    w = make("contention", 8, 2);
    cr_assert_eq(col_sum(w, 7), 7u);
    cm5_workload_free(&w);

    w = make("permutation:max=5", 9, 2);
    for (i = 0; i < 9; i++) {
        cr_assert_eq(row_nnz(w, i), 1);
        cr_assert_eq(col_nnz(w, i), 1);
        cr_assert_eq(AT(w, i, i), 0);
        cr_assert(row_sum(w, i) >= 1 && row_sum(w, i) <= 5);
    }
    cm5_workload_free(&w);
    w = make("permutation", 1, 2);
    cr_assert_eq(w.com[0], 0);
    cm5_workload_free(&w);
}

/* ---- determinism and errors ------------------------------------------- */

Test(workload, deterministic)
{
    const char *specs[] = {"density:d=7",
                           "nonuniform:d=5",
                           "kl:k=8,l=1/4,t=1000,relabel=1",
                           "pattern1",
                           "pattern2",
                           "random",
                           "permutation",
                           "density:d=9,gen=circulant"};
    size_t i;

    for (i = 0; i < sizeof(specs) / sizeof(specs[0]); i++) {
        cm5_workload_t a = make(specs[i], 24, 1234),
                       b = make(specs[i], 24, 1234);

        cr_assert_str_eq(a.name, b.name);
        cr_assert(!memcmp(a.com, b.com, sizeof(size_t) * 24 * 24), "%s",
                  specs[i]);
        cm5_workload_free(&a);
        cm5_workload_free(&b);
    }
}

Test(workload, bad_specs)
{
    bad("nosuch:d=3", 8, "unknown kind 'nosuch'");
    bad("density", 8, "needs d=");
    bad("density:d=8", 8, "less than p=8");
    bad("density:d=x", 8, "not an integer");
    bad("density:d=-1", 8, "out of range");
    bad("density:d=3,gen=union", 8, "gen=union");
    bad("density:d=3,foo=1", 8, "unknown parameter 'foo'");
    bad("density:3", 8, "not key=value");
    bad("density:d=3", 0, "p=0");
    bad("csv:", 8, "needs a file");
    bad("csv:/nonexistent/m.csv", 8, "cannot open /nonexistent/m.csv");
    bad("mesh:", 8, "needs a name");
    bad("mesh:no_such_mesh", 8, "cannot open mesh graph");
    bad("mesh:airfoil2800,halo=faces", 8, "halo=faces");
    bad("contention:k=8", 8, "out of range");
}

Test(workload, help_lists_every_kind)
{
    const char *h = cm5_workload_help(),
               *kinds[] = {"density:",    "nonuniform:", "mesh:",     "kl:",
                           "pattern1",    "pattern2",    "random",    "hotspot",
                           "permutation", "csv:",        "contention"};
    size_t i;

    for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
        cr_assert(strstr(h, kinds[i]), "%s", kinds[i]);
}

/* ---- csv -------------------------------------------------------------- */

static char csv_path[64];

static const char *csv_file(const char *text)
{
    int fd;

    strcpy(csv_path, "/tmp/cm5wl_XXXXXX");
    fd = mkstemp(csv_path);
    cr_assert(fd >= 0);
    cr_assert_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    return csv_path;
}

static void csv_bad(const char *text, int p, const char *what)
{
    char spec[96];

    snprintf(spec, sizeof(spec), "csv:%s", csv_file(text));
    bad(spec, p, what);
    unlink(csv_path);
}

Test(workload, csv_parse)
{
    char spec[96];
    cm5_workload_t w;

    snprintf(spec, sizeof(spec), "csv:%s",
             csv_file("# a comment\n0, 1,2\n\n3 4\t5\r\n  6,7 , 8\n"));
    w = make(spec, 3, 0);
    unlink(csv_path);
    cr_assert_str_eq(w.name, spec);
    for (int i = 0; i < 9; i++)
        cr_assert_eq(w.com[i], (size_t)i);
    cm5_workload_free(&w);
    /* no newline at the end, a large number */
    snprintf(spec, sizeof(spec), "csv:%s", csv_file("0 12345678901\n1 0"));
    w = make(spec, 2, 0);
    unlink(csv_path);
    cr_assert_eq(w.com[1], 12345678901ull);
    cr_assert_eq(w.com[2], 1);
    cm5_workload_free(&w);
}

Test(workload, csv_errors)
{
    csv_bad("0,1\n2,x\n", 2,
            ":2:3: expected a non-negative integer, "
            "found 'x'");
    csv_bad("0,1\n2,-3\n", 2, ":2:3: expected a non-negative");
    csv_bad("0,1\n2\n", 2, ":2: row 2 has 1 numbers, not p=2");
    csv_bad("0,1,2\n2,3\n", 2, ":1:5: more than p=2 numbers in row 1");
    csv_bad("0,1\n", 2, ": 1 rows, not p=2");
    csv_bad("0,1\n2,3\n4,5\n", 2, ":3: more than p=2 rows");
    csv_bad("0,,1\n2,3\n", 2,
            ":1:3: expected a non-negative integer, "
            "found ','");
    csv_bad("0,1,\n2,3\n", 2, ":1:5: expected a number after ','");
    csv_bad("0,1.5\n2,3\n", 2, ":1:4: unexpected '.'");
    csv_bad("0,99999999999999999999999\n2,3\n", 2, ":1:3: number too large");
}

/* ---- mesh ------------------------------------------------------------- */

static int have_metis(void)
{
    cm5_workload_t w;
    char err[256];

    if (cm5_workload_make("mesh:airfoil2800", 2, 1, &w, err, sizeof(err)) ==
        CM5_OK) {
        cm5_workload_free(&w);
        return 1;
    }
    cr_assert(strstr(err, "mesh workloads need METIS"), "%s", err);
    return 0;
}

/* Symmetric pattern, no self entries, plausible fan-outs for a 3-D mesh
 * cut into p parts: every part talks to someone, nobody to everyone
 * (except for tiny p), and lengths bounded by the part size. */
static void check_mesh(const char *spec, int p, int fan_lo, int fan_hi)
{
    cm5_workload_t w = make(spec, p, 1), e;
    char espec[128];
    int i, j, fmin = p, fmax = 0;

    for (i = 0; i < p; i++) {
        cr_assert_eq(AT(w, i, i), 0);
        for (j = 0; j < p; j++)
            cr_assert_eq(AT(w, i, j) > 0, AT(w, j, i) > 0,
                         "%s p=%d: (%d,%d) not symmetric", spec, p, i, j);
        if (row_nnz(w, i) < fmin)
            fmin = row_nnz(w, i);
        if (row_nnz(w, i) > fmax)
            fmax = row_nnz(w, i);
    }
    cr_assert(fmin >= fan_lo && fmax <= fan_hi,
              "%s p=%d: fan-out %d..%d, expected within %d..%d", spec, p, fmin,
              fmax, fan_lo, fan_hi);
    /* halo=edges counts cut edges: never fewer than the vertices */
    snprintf(espec, sizeof(espec), "%s,halo=edges", spec);
    e = make(espec, p, 1);
    cr_assert_str_eq(e.name, espec);
    for (i = 0; i < p * p; i++)
        cr_assert(e.com[i] >= w.com[i] && (e.com[i] > 0) == (w.com[i] > 0));
    cm5_workload_free(&e);
    cm5_workload_free(&w);
}

Test(workload, mesh_matrices)
{
    if (!have_metis())
        cr_skip_test("METIS (libmetis.so.5) not installed");
    check_mesh("mesh:airfoil2800", 2, 1, 1);
    check_mesh("mesh:airfoil2800", 8, 2, 7);
    check_mesh("mesh:airfoil2800", 32, 3, 20);
    check_mesh("mesh:airfoil9428", 32, 3, 20);
    check_mesh("mesh:airfoil2800", 64, 3, 30);
}

Test(workload, mesh_any_p)
{
    int p;

    if (!have_metis())
        cr_skip_test("METIS (libmetis.so.5) not installed");
    for (p = 1; p <= 64; p += p < 8 ? 1 : 7) { /* 1..8, 15, ..., 64 */
        cm5_workload_t w = make("mesh:airfoil2800", p, 3);
        size_t tot = 0;
        int i;

        for (i = 0; i < p * p; i++)
            tot += w.com[i];
        cr_assert_eq(tot > 0, p > 1, "p=%d: %zu", p, tot);
        cm5_workload_free(&w);
    }
}

Test(workload, mesh_deterministic_and_seeded)
{
    cm5_workload_t a, b, c;

    if (!have_metis())
        cr_skip_test("METIS (libmetis.so.5) not installed");
    a = make("mesh:airfoil2800", 16, 5);
    b = make("mesh:airfoil2800", 16, 5);
    c = make("mesh:airfoil2800", 16, 6);
    cr_assert_str_eq(a.name, "mesh:airfoil2800");
    cr_assert(!memcmp(a.com, b.com, sizeof(size_t) * 256));
    cr_assert(memcmp(a.com, c.com, sizeof(size_t) * 256), "seed ignored");
    cm5_workload_free(&a);
    cm5_workload_free(&b);
    cm5_workload_free(&c);
}

/* part=grow (greedy growing, no METIS needed): symmetric, seeded, and its
 * halo traffic within 10 % of the paper's partitions' (fan-out average x
 * length average, wang1993 5), where METIS's k-way cut is 30-38 % short. */
Test(workload, mesh_grow)
{
    static const struct {
        const char *name;
        double paper; /* 32 x fan-out avg x length avg, wang1993 */
    } m[] = {{"airfoil2800", 32 * 9.25 * 14.2},
             {"airfoil9428", 32 * 10.5 * 32.04},
             {"airfoil53961", 32 * 10.81 * 93.21}};
    char spec[96];
    size_t k;
    int i, j;

    for (k = 0; k < sizeof(m) / sizeof(m[0]); k++) {
        cm5_workload_t g, g2, g3;
        double tot = 0;

        snprintf(spec, sizeof(spec), "mesh:%s,part=grow", m[k].name);
        g = make(spec, 32, 1);
        g2 = make(spec, 32, 1);
        g3 = make(spec, 32, 2);
        cr_assert_str_eq(g.name, spec);
        cr_assert(!memcmp(g.com, g2.com, sizeof(size_t) * 32 * 32));
        cr_assert(memcmp(g.com, g3.com, sizeof(size_t) * 32 * 32),
                  "%s: seed ignored", spec);
        for (i = 0; i < 32; i++) {
            cr_assert_eq(AT(g, i, i), 0);
            cr_assert(row_nnz(g, i) > 0, "%s: part %d talks to nobody", spec,
                      i);
            for (j = 0; j < 32; j++) {
                cr_assert_eq(AT(g, i, j) > 0, AT(g, j, i) > 0);
                tot += (double)AT(g, i, j);
            }
        }
        cr_assert(tot >= 0.9 * m[k].paper && tot <= 1.1 * m[k].paper,
                  "%s: halo traffic %.0f, the paper's %.0f", spec, tot,
                  m[k].paper);
        if (have_metis()) {
            cm5_workload_t w;
            double mt = 0;

            snprintf(spec, sizeof(spec), "mesh:%s", m[k].name);
            w = make(spec, 32, 1);
            for (i = 0; i < 32 * 32; i++)
                mt += (double)w.com[i];
            cr_assert(mt < 0.8 * m[k].paper, "%s: METIS's traffic %.0f", spec,
                      mt);
            cm5_workload_free(&w);
        }
        cm5_workload_free(&g);
        cm5_workload_free(&g2);
        cm5_workload_free(&g3);
    }
}

/* On a ring of 12 vertices every part of part=grow is an arc (or, when
 * seeds are neighbours, a vertex between two arcs): with 3 parts each
 * talks to both others through one vertex, whatever the seed. */
Test(workload, mesh_grow_ring)
{
    char spec[96];
    uint64_t seed;
    int i, j;

    csv_file("12 12\n2 12\n1 3\n2 4\n3 5\n4 6\n5 7\n6 8\n7 9\n8 10\n"
             "9 11\n10 12\n11 1\n");
    snprintf(spec, sizeof(spec), "mesh:%s,part=grow", csv_path);
    for (seed = 1; seed <= 20; seed++) {
        cm5_workload_t w = make(spec, 3, seed);

        for (i = 0; i < 3; i++)
            for (j = 0; j < 3; j++)
                cr_assert_eq(AT(w, i, j), (size_t)(i != j),
                             "seed %llu: COM[%d][%d] = %zu",
                             (unsigned long long)seed, i, j, AT(w, i, j));
        cm5_workload_free(&w);
    }
    unlink(csv_path);
    bad("mesh:airfoil2800,part=rcb", 8, "part=rcb: expected metis or grow");
    bad("mesh:airfoil2800,part=grow,ufactor=100", 8,
        "ufactor is METIS's: not with part=grow");
}

Test(workload, mesh_graph_file_errors)
{
    char spec[96];

    csv_file("3 2\n2\n1 3\n");
    snprintf(spec, sizeof(spec), "mesh:%s", csv_path);
    bad(spec, 2, "vertex lines, the header says 3");
    unlink(csv_path);
    csv_file("2 1\n2\n1 5\n");
    snprintf(spec, sizeof(spec), "mesh:%s", csv_path);
    bad(spec, 2, ":3: neighbour 5 is not in 1..2");
    unlink(csv_path);
    csv_file("% comment\n3 2\n2\n1\n\n");
    snprintf(spec, sizeof(spec), "mesh:%s", csv_path);
    bad(spec, 2, "2 edge ends, the header says 2 edges");
    unlink(csv_path);
    csv_file("2 1\n2\n1\n");
    snprintf(spec, sizeof(spec), "mesh:%s", csv_path);
    bad(spec, 3, "3 parts for a 2-vertex mesh");
    unlink(csv_path);
}
