#!/usr/bin/env python3
"""verdicts.py: the checkable claims of PAPER_RESULTS.md, computed from the
CSV files of one bench/reproduce.sh run, printed as a Markdown table with
the numbers and "holds" / "does not hold" (issue 10, item 5).  Hand-written
text may explain a verdict; it never states one.

    verdicts.py CSVDIR            the verdict table
    verdicts.py --cells CSVDIR    wang1993 Tables 2-6 cell by cell: the
                                  CM-5's figure, this run's, the error,
                                  and how many validation cells are
                                  within 25 % (doc/model.md)
    verdicts.py --status CSVDIR   the status of every table and figure of
                                  the five papers (rerun here or why not)
    verdicts.py --port CSVDIR NAME  NAME_port.csv (bench/mpi_bcast_port)
                                  against NAME.csv, point by point

Times are the mean over matrices and reps of each run's maximum over the
nodes, as in the tables.  wang1993 compares comm (amortised) or comm +
comp ("once"); ranka1995 and liu2002 report the whole call (total).
Columns are found by name, so CSVs older than a column still read.
"""
import csv
import math
import os
import sys

D = None  # the CSV directory


def load(name):
    """Rows of CSVDIR/name.csv as dicts (numbers converted), or None."""
    path = os.path.join(D, name + ".csv")
    if not os.path.exists(path):
        return None
    rows = []
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            for k, v in r.items():
                try:
                    r[k] = float(v)
                except (TypeError, ValueError):
                    pass
            rows.append(r)
    return rows


def mean(rows, key, **match):
    """Mean of key over the rows matching every key=value of match."""
    v = [r.get(key, 0.0) or 0.0 for r in rows
         if all(r.get(k) == x for k, x in match.items())]
    return sum(v) / len(v) if v else float("nan")


def once(rows, **match):
    return mean(rows, "comm_s", **match) + mean(rows, "sched_s", **match)


def ms(x):
    return "%.3g" % (1e3 * x) if x == x else "?"


def sizes(rows):
    return sorted({r["size"] for r in rows})


def algs(rows):
    return sorted({r["alg"] for r in rows})


OUT = []


def verdict(paper, claim, here, ok):
    """One row; ok None means the claim could not be computed."""
    v = ("**holds**" if ok else "**does not hold**") if ok is not None \
        else "not computed"
    OUT.append("| %s | %s | %s | %s |" % (paper, claim, here, v))


def missing(paper, claim, what):
    verdict(paper, claim, "no CSV (%s not run)" % what, None)


# ---- wang1993 -----------------------------------------------------------

def t2():
    p = "wang1993 T2"
    ks = sorted(int(f[4:-4]) for f in os.listdir(D)
                if f.startswith("t2_k") and f.endswith(".csv"))
    if 1 not in ks or len(ks) < 2:
        missing(p, "node contention", "t2")
        return
    t = {k: mean(load("t2_k%d" % k), "total_s", size=4096) for k in ks}
    r = {k: t[k] / t[1] for k in ks}
    verdict(p, "4096 B: receiver time grows with k (paper x4.24 / x19.1 / "
            "x37.8 at k = 4 / 16 / 31)",
            ", ".join("k=%d: %s ms (x%.2f)" % (k, ms(t[k]), r[k])
                      for k in ks),
            all(t[ks[i]] < t[ks[i + 1]] for i in range(len(ks) - 1)))
    kmax = ks[-1]
    verdict(p, "4096 B: about linear, k = %d costs %d x k = 1 (within 2x)"
            % (kmax, kmax), "x%.2f" % r[kmax],
            kmax / 2 <= r[kmax] <= 2 * kmax)


def t3():
    p = "wang1993 T3"
    am, cc = {}, {}
    for d in (4, 8, 16, 31):
        a, c = load("t3_am_d%d" % d), load("t3_concat_d%d" % d)
        if a and c:
            am[d], cc[d] = mean(a, "recv_s"), mean(c, "recv_s")
    if not am:
        missing(p, "Generate_Recv (AM) beats concatenate", "t3")
        return
    ds = sorted(am)
    verdict(p, "AM beats concatenate at every d (n = 32; paper 6-15x)",
            ", ".join("d=%d: AM %s / concat %s ms" % (d, ms(am[d]), ms(cc[d]))
                      for d in ds),
            all(am[d] < cc[d] for d in ds))
    verdict(p, "concatenate flat in d (max/min < 1.5)",
            "%s-%s ms" % (ms(min(cc.values())), ms(max(cc.values()))),
            max(cc.values()) < 1.5 * min(cc.values()))
    verdict(p, "AM grows with d", " < ".join(ms(am[d]) for d in ds) + " ms",
            all(am[ds[i]] < am[ds[i + 1]] for i in range(len(ds) - 1)))
    big = load("t3_n128_concat_d4")
    if big and 4 in cc:
        r = mean(big, "recv_s") / cc[4]
        verdict(p, "concatenate grows about n^2: n = 32 -> 128 x8-x32 "
                "(paper x16.1)",
                "%s -> %s ms (x%.1f)" % (ms(cc[4]), ms(mean(big, "recv_s")),
                                         r), 8 <= r <= 32)
        ab = load("t3_n128_am_d4")
        if ab:
            verdict(p, "AM beats concatenate at n = 128, d = 4 (paper 76x)",
                    "AM %s, concat %s ms" % (ms(mean(ab, "recv_s")),
                                             ms(mean(big, "recv_s"))),
                    mean(ab, "recv_s") < mean(big, "recv_s"))
    else:
        missing(p, "concatenate grows about n^2", "t3n")


def t3_256():
    """Table 3 at n = 256 (reproduce.sh's default --table3-nodes, on the
    same-host rings; libfabric's shm alone takes 128), d = 4 and 16."""
    p = "wang1993 T3"
    for d in (4, 16):
        a, c = load("t3_n256_am_d%d" % d), load("t3_n256_concat_d%d" % d)
        if not (a and c):
            continue
        am, cc = mean(a, "recv_s"), mean(c, "recv_s")
        verdict(p, "AM beats concatenate at n = 256, d = %d (paper "
                "36-159x over d; provider %s)" % (d, c[0]["provider"]),
                "AM %s, concat %s ms" % (ms(am), ms(cc)), am < cc)
    for n in (128, 256):
        runs = {d: load("t3_n%d_am_d%d" % (n, d)) for d in T3_AM[n]}
        am = {d: mean(r, "recv_s") for d, r in runs.items() if r}
        ds = sorted(am)
        if len(ds) > 2:
            verdict(p, "AM grows with d at n = %d (paper %s -> %s ms)" % (
                n, ms(T3_AM[n][ds[0]] / 1e3), ms(T3_AM[n][ds[-1]] / 1e3)),
                " < ".join(ms(am[d]) for d in ds) + " ms",
                all(am[ds[i]] < am[ds[i + 1]] for i in range(len(ds) - 1)))
    big, mid = load("t3_n256_concat_d4"), load("t3_n128_concat_d4")
    if big and mid:
        r = mean(big, "recv_s") / mean(mid, "recv_s")
        verdict(p, "concatenate grows about n^2: n = 128 -> 256 x2-x8 "
                "(paper x4.0; providers %s, %s)" % (mid[0]["provider"],
                                                     big[0]["provider"]),
                "%s -> %s ms (x%.1f)" % (ms(mean(mid, "recv_s")),
                                         ms(mean(big, "recv_s")), r),
                2 <= r <= 8)


def phases_check(p, rows, alg, want, tol, what):
    m = mean(rows, "phases", alg=alg)
    verdict(p, "%s phases %.2f (+-%d %%)" % (what, want, tol * 100),
            "%.2f" % m, abs(m - want) <= tol * want)


def t4():
    p = "wang1993 T4"
    rs = {d: load("t4_d%d" % d) for d in (4, 16, 31)}
    if not any(rs.values()):
        missing(p, "test set 1", "t4")
        return
    for d, want in ((4, 5.54), (16, 18.56), (31, 34.2)):
        if rs[d]:
            phases_check(p, rs[d], "rsn", want, 0.1, "RS_N d=%d" % d)
    if rs[31]:
        r = rs[31]
        best = [s for s in sizes(r)
                if min(algs(r), key=lambda a: mean(r, "comm_s", alg=a,
                                                   size=s)) == "lp"]
        verdict(p, "d = 31: LP best comm at every size",
                "LP best at %d of %d sizes (%s B)" % (
                    len(best), len(sizes(r)),
                    ",".join("%d" % s for s in best) or "none"),
                len(best) == len(sizes(r)))
    ratios = []
    for d in (4, 16, 31):
        if rs[d]:
            s = max(sizes(rs[d]))
            ratios.append((d, mean(rs[d], "comm_s", alg="ac", size=s) /
                           mean(rs[d], "comm_s", alg="lp", size=s), s))
    if len(ratios) > 1:
        verdict(p, "AC/LP at the largest size grows with d (paper 1.05 / "
                "2.3 / 5.8)",
                ", ".join("d=%d: %.2f" % (d, x) for d, x, _ in ratios),
                all(ratios[i][1] < ratios[i + 1][1]
                    for i in range(len(ratios) - 1)))
    if rs[4]:
        r, s = rs[4], max(sizes(rs[4]))
        c = {a: mean(r, "comm_s", alg=a, size=s) for a in algs(r)}
        verdict(p, "d = 4, %d B, amortised: RS_N < DRS_N < LP" % s,
                ", ".join("%s %s" % (a, ms(c[a])) for a in sorted(c,
                                                                  key=c.get)),
                c["rsn"] < c["drsn"] < c["lp"])
        lr = c["lp"] / c["rsn"]
        verdict(p, "d = 4, %d B: LP/RS_N about 1.65 (1.3-2.0)" % s,
                "%.2f" % lr, 1.3 <= lr <= 2.0)
    worst = 0
    rows = 0
    for d, r in rs.items():
        if not r:
            continue
        for s in sizes(r):
            o = {a: once(r, alg=a, size=s) for a in algs(r)}
            rows += 1
            worst += max(o, key=o.get) == "drsn"
    verdict(p, "DRS_N never the worst once (comm + comp)",
            "worst in %d of %d rows" % (worst, rows), worst == 0)
    comp = [(d, mean(rs[d], "sched_s", alg="rsn")) for d in (4, 16, 31)
            if rs[d]]
    if len(comp) > 1:
        verdict(p, "RS_N comp grows with d (paper 1.57 / 6.27 / 12.86 ms)",
                " / ".join(ms(c) for _, c in comp) + " ms",
                all(comp[i][1] < comp[i + 1][1]
                    for i in range(len(comp) - 1)))


def t5():
    p = "wang1993 T5"
    rs = {d: load("t5_d%d" % d) for d in (4, 16, 31)}
    if not any(rs.values()):
        missing(p, "test set 2", "t5")
        return
    lowest = rows = 0
    for d, r in rs.items():
        if not r:
            continue
        for s in sizes(r):
            c = {a: mean(r, "comm_s", alg=a, size=s) for a in algs(r)}
            rows += 1
            lowest += min(c, key=c.get) == "rsnh"
    verdict(p, "RS_NH lowest comm in almost every row (> 3/4)",
            "lowest in %d of %d rows" % (lowest, rows), lowest > 0.75 * rows)
    for d, want in ((4, 5.66 / 5.54), (16, 19.1 / 18.56), (31, 34.56 / 34.2)):
        r = rs[d]
        if not r:
            continue
        x = mean(r, "phases", alg="rsnh") / mean(r, "phases", alg="rsn")
        verdict(p, "d = %d: RS_NH/RS_N phases %.2f (+-10 %%)" % (d, want),
                "%.2f / %.2f = %.2f" % (mean(r, "phases", alg="rsnh"),
                                        mean(r, "phases", alg="rsn"), x),
                abs(x - want) <= 0.1 * want)
    cr = [mean(r, "sched_s", alg="rsnh") / mean(r, "sched_s", alg="rsn")
          for r in rs.values() if r]
    verdict(p, "RS_NH comp 4-10x RS_N's",
            ", ".join("%.1f" % x for x in cr), all(3 <= x <= 12 for x in cr))
    if rs[4]:
        r = rs[4]
        us = [s for s in sizes(r) if s >= 256]
        best = [s for s in us
                if min(algs(r), key=lambda a: once(r, alg=a, size=s)) ==
                "drsn"]
        verdict(p, "d = 4: DRS_N best once for units >= 256",
                "best at %d of %d units" % (len(best), len(us)),
                len(us) > 0 and len(best) == len(us))
    if rs[16] and 4096 in sizes(rs[16]):
        r = rs[16]
        o = {a: once(r, alg=a, size=4096) for a in algs(r)}
        verdict(p, "d = 16, unit 4096: RS_N best once",
                ", ".join("%s %s" % (a, ms(o[a])) for a in sorted(o,
                                                                  key=o.get)),
                min(o, key=o.get) == "rsn")


def crossover(r, a, b, key):
    """Smallest size from which a <= b at every larger size, or None."""
    ss = sizes(r)
    for i, s in enumerate(ss):
        if all(key(r, a, t) <= key(r, b, t) for t in ss[i:]):
            return s
    return None


def t6():
    p = "wang1993 T6"
    paper = {"airfoil2800": (15.15, 19.65, 256),
             "airfoil9428": (16.45, 22.5, 128),
             "airfoil53961": (18.05, 26.4, 32)}
    done = False
    for m, (prsn, prsnh, pcross) in paper.items():
        r = load("t6_" + m)
        if not r:
            continue
        done = True
        phases_check(p, r, "rsn", prsn, 0.15, "%s RS_N" % m)
        x = mean(r, "phases", alg="rsnh") / mean(r, "phases", alg="rsn")
        verdict(p, "%s: RS_NH/RS_N phases %.2f (+-15 %%)" % (m, prsnh / prsn),
                "%.2f" % x, abs(x - prsnh / prsn) <= 0.15 * prsnh / prsn)
        c = crossover(r, "drsn", "lp",
                      lambda r, a, s: once(r, alg=a, size=s))
        # At the paper's unit or one power of two either side: DRS_N
        # ahead of LP at every unit is no crossover at 256.
        verdict(p, "%s: DRS_N overtakes LP once from unit %d (x/2..x2)"
                % (m, pcross),
                "from unit %s" % (int(c) if c else "never"),
                c is not None and pcross / 2 <= c <= 2 * pcross)
    if not done:
        missing(p, "airfoil meshes", "t6")


# ---- the CM-5's own numbers, cell by cell (--cells) -----------------------

# wang1993 Tables 2-6 (PAPER_RESULTS.md A.1), in ms.  Table 4: d -> size ->
# (AC, LP, RS_N, DRS_N); Tables 5 and 6 add RS_NH.
T4 = {4: {16: (2.065, 3.410, 1.679, 2.994), 1024: (4.819, 5.547, 3.192, 4.505),
          131072: (286.95, 272.65, 164.95, 174.29)},
      16: {16: (6.585, 7.788, 6.072, 10.416), 512: (15.00, 10.85, 9.07, 13.26),
           4096: (61.10, 31.02, 24.75, 31.70),
           131072: (3236.9, 1421.7, 1105.9, 1169.1)},
      31: {16: (16.56, 8.93, 11.34, 23.56),
           131072: (11409.9, 1980.1, 2388.3, 2765.6)}}
T4_ALGS = ("ac", "lp", "rsn", "drsn")
T4_COMP = {4: 1.57, 16: 6.27, 31: 12.86}
T5 = {4: {4096: (155.9, 165.6, 110.5, 106.9, 105.0)},
      16: {2048: (371.2, 250.0, 207.4, 196.7, 183.2),
           4096: (865.4, 953.5, 406.8, 468.6, 359.5)},
      31: {16: (28.37, 12.53, 15.08, 26.54, 14.73),
           4096: (4578, 1298.7, 1342.2, 1481.4, 1231.1)}}
T5_ALGS = ("ac", "lp", "rsn", "drsn", "rsnh")
T5_COMP = {"rsn": {4: 1.57, 16: 6.3, 31: 12.9},
           "rsnh": {4: 6.3, 16: 43.4, 31: 122}}
T6 = {"airfoil2800": {16: (7.30, 6.80, 6.35, 8.75, 7.12),
                      256: (29.60, 21.66, 19.49, 20.21, 17.80),
                      2048: (184.4, 141.5, 119.3, 106.4, 100.7)},
      "airfoil9428": {128: (37.87, 26.52, 24.07, 24.24, 21.71),
                      1024: (234.9, 171.5, 152.5, 131.2, 127.6)},
      "airfoil53961": {32: (30.84, 24.12, 21.69, 23.84, 21.04),
                       256: (179.3, 153.0, 130.8, 118.2, 110.7)}}
T6_COMP = {"rsn": {"airfoil2800": 7.95, "airfoil9428": 8.95,
                   "airfoil53961": 9.75},
           "rsnh": {"airfoil2800": 27.2, "airfoil9428": 34.9,
                    "airfoil53961": 37.3}}
T2 = {1: (0.089, 0.516), 4: (0.205, 2.189), 16: (0.731, 9.865),
      31: (1.396, 19.485)}
# Table 3's AM column (Generate_Recv), every row: the paper's last row
# "d = n" is run as d = n - 1 (every other node).
T3_AM = {32: {4: 0.455, 8: 0.548, 16: 0.743, 31: 1.114},
         128: {4: 1.397, 8: 1.493, 16: 1.702, 32: 2.114, 64: 2.896,
               127: 5.123},
         256: {4: 2.671, 8: 2.799, 16: 3.066, 32: 3.583, 64: 4.552,
               128: 6.392, 255: 11.639}}
T3_CONCAT = {32: 6.62, 128: 106.8, 256: 424.8}
# Rows the model's parameters were fitted on (doc/model.md): they are
# shown, not counted as validation.
CALIBRATION = {("T2", "k=1", 256): "ms", ("T2", "k=31", 256): "mr",
               ("T2", "k=31", 4096): "bw3, sw",
               ("T2", "k=4", 4096): "sw", ("T2", "k=16", 4096): "sw",
               ("T3", "concat n=32", 16): "cnb",
               ("T3", "concat n=128", 16): "cnb",
               ("T3", "concat n=256", 16): "cnb",
               ("T3", "AM n=32 d=16", 16): "irq",
               ("T4", "d=16 rsn", 16): "mx",
               ("T4 comp", "d=16 rsn", 0): "planner step",
               ("T5 comp", "d=16 rsnh", 0): "heap step"}
CELLS = []


def cell(table, row, size, paper, here):
    """One cell: the CM-5's figure (ms) against this run's (s)."""
    if here != here:  # nan: not in the run
        return
    here *= 1e3
    err = (here - paper) / paper
    role = CALIBRATION.get((table, row, size))
    CELLS.append((table, row, size, paper, here, err, role))


def load32(name, p=32):
    """The rows of name.csv run on p nodes (the CM-5's partition), or
    None."""
    r = load(name)
    r = [x for x in r or [] if x.get("p") == p]
    return r or None


def table_cells(t, r, name, row, algs, comp):
    """The comm cells of one row set of Tables 4-6 (size -> the CM-5's
    figures in the order of algs) and its comp cells (alg -> figure)."""
    if not r:
        return
    for size, vals in row.items():
        for a, v in zip(algs, vals):
            cell(t, "%s %s" % (name, a), size, v,
                 mean(r, "comm_s", alg=a, size=size))
    for a, v in comp.items():
        cell(t + " comp", "%s %s" % (name, a), 0, v,
             mean(r, "sched_s", alg=a))


def cells():
    for k, (a, b) in T2.items():
        r = load32("t2_k%d" % k)
        if r:
            cell("T2", "k=%d" % k, 256, a, mean(r, "total_s", size=256))
            cell("T2", "k=%d" % k, 4096, b, mean(r, "total_s", size=4096))
    for n, row in T3_AM.items():
        for d, v in row.items():
            r = load32("t3_am_d%d" % d if n == 32 else
                       "t3_n%d_am_d%d" % (n, d), n)
            if r:
                cell("T3", "AM n=%d d=%d" % (n, d), 16, v, mean(r, "recv_s"))
    for n, v in T3_CONCAT.items():
        r = load32("t3_concat_d4" if n == 32 else "t3_n%d_concat_d4" % n, n)
        if r:
            cell("T3", "concat n=%d" % n, 16, v, mean(r, "recv_s"))
    for d, row in T4.items():
        table_cells("T4", load32("t4_d%d" % d), "d=%d" % d, row, T4_ALGS,
                    {"rsn": T4_COMP[d]})
    for d, row in T5.items():
        table_cells("T5", load32("t5_d%d" % d), "d=%d" % d, row, T5_ALGS,
                    {a: T5_COMP[a][d] for a in ("rsn", "rsnh")})
    for m, row in T6.items():
        table_cells("T6", load32("t6_" + m), m, row, T5_ALGS,
                    {a: T6_COMP[a][m] for a in ("rsn", "rsnh")})
    print("| table | row | size (B) | CM-5 (ms) | here (ms) | error | "
          "within 25 % |")
    print("|---|---|---|---|---|---|---|")
    for t, row, size, paper, here, err, role in CELLS:
        print("| %s | %s | %s | %.4g | %.4g | %+.0f %% | %s |" % (
            t, row, size or "", paper, here, 100 * err,
            "(calibration: %s)" % role if role else
            ("yes" if abs(err) <= 0.25 else "**no**")))
    val = [c for c in CELLS if not c[6]]
    ok = [c for c in val if abs(c[5]) <= 0.25]
    print()
    if not val:
        print("No cell of wang1993 Tables 2-6 in this run (they need its "
              "32 nodes: reproduce.sh --nodes 32, the default).")
        return
    print("Validation: %d of %d cells within 25 %% (%.0f %%; goal 80 %%); "
          "%d calibration cells apart." % (
              len(ok), len(val), 100.0 * len(ok) / len(val),
              len(CELLS) - len(val)))
    by = {}
    for c in val:
        t = c[0].split()[0]
        by.setdefault(t, [0, 0])
        by[t][0] += abs(c[5]) <= 0.25
        by[t][1] += 1
    print("By table: " + ", ".join("%s %d/%d" % (t, a, b)
                                   for t, (a, b) in sorted(by.items())) + ".")


# ---- ranka1995 ----------------------------------------------------------

def kl():
    p = "ranka1995"
    ts = sorted(int(f[4:-4]) for f in os.listdir(D)
                if f.startswith("kl_t") and f.endswith(".csv"))
    if not ts:
        missing(p, "k/l cases", "kl")
        return
    for t in ts:
        r = load("kl_t%d" % t)
        ws = sorted({x["workload"] for x in r})
        best = [w for w in ws if "k=2," not in w]
        worst = [w for w in ws if "k=2," in w]
        if not best or not worst:
            continue
        b, w = best[0], worst[0]
        tot = {(a, x): mean(r, "total_s", alg=a, workload=x)
               for a in algs(r) for x in (b, w)}
        two = (tot[("two-stage", b)], tot[("two-stage", w)])
        var = max(two) / min(two) - 1
        verdict(p, "t = %d: two-stage within 10 %% between the cases" % t,
                "%s / %s ms (%+.0f %%)" % (ms(two[0]), ms(two[1]),
                                           100 * var), var < 0.1)
        d, s = tot[("drsn+", w)], tot[("two-stage", w)]
        verdict(p, "t = %d, (2, 1/2): DRS+ < two-stage <= 1.5 DRS+" % t,
                "DRS+ %s, two-stage %s ms" % (ms(d), ms(s)),
                d < s <= 1.5 * d)
        dp, dn, s = tot[("drsn+", b)], tot[("drsn", b)], tot[("two-stage", b)]
        verdict(p, "t = %d, (p, 1/p): DRS+ < DRS" % t,
                "DRS+ %s, DRS %s ms" % (ms(dp), ms(dn)), dp < dn)
        verdict(p, "t = %d, (p, 1/p): two-stage ~ DRS+ (within 1.5x)" % t,
                "two-stage %s, DRS+ %s ms" % (ms(s), ms(dp)),
                max(s, dp) <= 1.5 * min(s, dp))
        pp = r[0]["p"]
        bad = [x for x in r if x["alg"] == "two-stage" and
               x.get("stage1_maxlen", 0) > math.ceil(x["t_units"] / pp)]
        verdict(p, "t = %d: largest stage-1 message <= ceil(t/p)" % t,
                "%d of %d runs over" % (len(bad), len(
                    [x for x in r if x["alg"] == "two-stage"])), not bad)


# ---- liu2002 ------------------------------------------------------------

def liu():
    p = "liu2002"
    fs = sorted(f[:-4] for f in os.listdir(D)
                if f.startswith("liu_m") and f.endswith(".csv"))
    if not fs:
        missing(p, "Pattern1/2", "liu")
        return
    for f in fs:
        r = load(f)
        P = int(r[0]["p"])
        C = math.ceil(math.sqrt(P))
        for w in sorted({x["workload"] for x in r}):
            t = {a: mean(r, "total_s", alg=a, workload=w) for a in algs(r)}
            verdict(p, "%s (%s): A4 < A1 and A4 < A2 (blocking)" % (w, f),
                    ", ".join("%s %s" % (a, ms(t[a])) for a in sorted(
                        t, key=t.get)) + " ms",
                    t["a4"] < t["a1"] and t["a4"] < t["a2"])
        a4 = [x for x in r if x["alg"] == "a4"]
        over = [x for x in a4 if x["stage1_msgs"] > C + 1 or
                x["stage3_msgs"] > C + 1 or x["stage2_msgs"] > C or
                x["stage4_msgs"] > C]
        verdict(p, "Table 2: A4 stage messages <= C+1 (I, III), <= C "
                "(II, IV), C = %d" % C,
                "%d of %d runs over" % (len(over), len(a4)), not over)
        a1 = [x for x in r if x["alg"] == "a1"]
        verdict(p, "Table 3: A1 takes P - 1 = %d steps" % (P - 1),
                "%d of %d runs differ" % (
                    len([x for x in a1 if x["phases"] != P - 1]), len(a1)),
                all(x["phases"] == P - 1 for x in a1))
        verdict(p, "Table 3: A4 start-ups <= 4C + 2 = %d" % (4 * C + 2),
                "at most %d" % max(x["phases"] for x in a4),
                all(x["phases"] <= 4 * C + 2 for x in a4))


# liu2002 Table 4, sBUF and rBUF as functions of (P, M_max, L), elements.
TABLE4 = {
    "a1": ("M_max P", "L", lambda P, m, L: m * P, lambda P, m, L: L),
    "a2": ("L", "L", lambda P, m, L: L, lambda P, m, L: L),
    "a3": ("M_max P", "M_max P", lambda P, m, L: m * P,
           lambda P, m, L: m * P),
    "a4": ("C^2 L/P", "C^2 L/P",
           lambda P, m, L: math.ceil(math.sqrt(P)) ** 2 * L / P,
           lambda P, m, L: math.ceil(math.sqrt(P)) ** 2 * L / P),
}


# A4's bounds assume every M_ij divisible by P (liu2002 Lemmas 1-3,
# ALGORITHMS.md 3.4.6).  Otherwise each distributing stage rounds a pair's
# share of a bucket up by less than one element: with C row-mates (Stage
# I) or column-mates (Stage II) and P destinations, less than C P
# elements per stage, 2 C P over the two.  The verdict allows that slack
# and reports the excess over the plain bound.
def a4_slack(P):
    return 2 * math.ceil(math.sqrt(P)) * P


def table4():
    """liu2002 Table 4, per algorithm over every liu2002 CSV of the run
    (liu_m*, liup_p*, lium_*, liusq_p*): each run's buffers (sbuf_units,
    rbuf_units: the most elements one stage's send and receive buffers
    held, max over nodes) within the paper's bound for its P, M_max and
    L = t_units, with the largest ratio measured / bound.  CSVs older
    than the columns: not computed."""
    p = "liu2002"
    rows = [x for pre in ("liu_m", "liup_p", "lium_", "liusq_p")
            for f in csvs(pre) for x in load(f)]
    if not rows:
        missing(p, "Table 4 (buffers)", "liu")
        return
    if "sbuf_units" not in rows[0]:
        verdict(p, "Table 4 (buffers)", "CSVs older than the columns "
                "sbuf_units, rbuf_units", None)
        return
    for a in [a for a in ("a1", "a2", "a3", "a4") if a in algs(rows)]:
        sn, rn, sf, rf = TABLE4[a]
        worst, over, above, excess = [0.0, 0.0], 0, 0, 0
        runs = [x for x in rows if x["alg"] == a]
        for x in runs:
            P, m, L = int(x["p"]), mmax(x["workload"]), x["t_units"]
            slack = a4_slack(P) if a == "a4" else 0
            for k, (col, bf) in enumerate((("sbuf_units", sf),
                                           ("rbuf_units", rf))):
                worst[k] = max(worst[k], x[col] / bf(P, m, L))
                over += x[col] > bf(P, m, L) + slack
                above += x[col] > bf(P, m, L)
                excess = max(excess, x[col] - bf(P, m, L))
        ps = ", ".join(str(q) for q in sorted({int(x["p"]) for x in runs}))
        if a == "a4":
            verdict(p, "Table 4, A4: sBUF <= %s, rBUF <= %s (L = t; + less "
                    "than 2 C P elements of rounding where M_ij is not a "
                    "multiple of P)" % (sn, rn),
                    "largest measured / bound: sBUF %.2f, rBUF %.2f; %d of "
                    "%d above the plain bound (largest excess %d elements), "
                    "%d beyond the rounding (P = %s)"
                    % (worst[0], worst[1], above, 2 * len(runs), excess,
                       over, ps), over == 0)
            continue
        verdict(p, "Table 4, %s: sBUF <= %s, rBUF <= %s (L = t)"
                % (a.upper(), sn, rn),
                "largest measured / bound: sBUF %.2f, rBUF %.2f; %d of %d "
                "over (P = %s)" % (worst[0], worst[1], over, 2 * len(runs),
                                   ps), over == 0)


def csvs(prefix):
    """Names of the CSVs starting with prefix, without .csv, sorted."""
    return sorted(f[:-4] for f in os.listdir(D)
                  if f.startswith(prefix) and f.endswith(".csv"))


def mmax(w):
    """M_max of a liu2002 workload name such as pattern2:m=256 (cm5sched
    leaves out the default, 1024)."""
    return int(w.split("m=")[1].split(",")[0]) if "m=" in w else 1024


def ordered(t):
    return ", ".join("%s %s" % (a, ms(t[a])) for a in sorted(t, key=t.get)) \
        + " ms"


def liup():
    """Figs 15/17: Pattern1, P varied, blocking: A4 < A1 and A2."""
    p = "liu2002"
    fs = sorted(csvs("liup_p"), key=lambda f: int(f[6:]))
    if not fs:
        missing(p, "Figs 15/17 (P varied)", "liup")
        return
    for f in fs:
        r = load(f)
        t = {a: mean(r, "total_s", alg=a) for a in algs(r)}
        verdict(p, "Figs 15/17, P = %d: A4 < A1 and A4 < A2 (blocking)"
                % int(r[0]["p"]), ordered(t),
                t["a4"] < t["a1"] and t["a4"] < t["a2"])


def lium():
    """Figs 16/18-22: M_max varied at one P, modes b, n1 and n2."""
    p = "liu2002"
    b = load("lium_b")
    if b is None:
        missing(p, "Figs 16/18-22 (M_max varied)", "lium")
        return
    P = int(b[0]["p"])
    n1, n2 = load("lium_n1"), load("lium_n2")
    for w in sorted({x["workload"] for x in b},
                    key=lambda w: (w.split(":")[0], mmax(w))):
        t = {a: mean(b, "total_s", alg=a, workload=w) for a in algs(b)}
        verdict(p, "Figs 16/18, P = %d, %s: A4 lowest (blocking)" % (P, w),
                ordered(t), all(t["a4"] <= v for v in t.values()))
        if "a3" in t and mmax(w) <= 1024:
            verdict(p, "Fig 19 (T3D), P = %d, %s: A3 < A4" % (P, w),
                    "A3 %s, A4 %s ms" % (ms(t["a3"]), ms(t["a4"])),
                    t["a3"] < t["a4"])
        if "a3" in t and mmax(w) >= 1024 and w.startswith("pattern2"):
            verdict(p, "Fig 20 (T3D), P = %d, %s: A4 < A3" % (P, w),
                    "A4 %s, A3 %s ms" % (ms(t["a4"]), ms(t["a3"])),
                    t["a4"] < t["a3"])
        if n1 and n2:
            x1 = mean(n1, "total_s", alg="a4", workload=w)
            x2 = mean(n2, "total_s", alg="a4", workload=w)
            verdict(p, "Figs 21/22 (SP2), P = %d, %s: A4-n2 < A4-n1"
                    % (P, w), "n2 %s, n1 %s ms" % (ms(x2), ms(x1)), x2 < x1)


def liusq():
    """Fig 23: A4-n2 beats A3 at every square P."""
    p = "liu2002"
    fs = sorted(csvs("liusq_p"), key=lambda f: int(f[7:]))
    if not fs:
        missing(p, "Fig 23 (A3 vs A4-n2)", "liusq")
        return
    for f in fs:
        r = load(f)
        for w in sorted({x["workload"] for x in r}):
            a3 = mean(r, "total_s", alg="a3", workload=w)
            a4 = mean(r, "total_s", alg="a4", workload=w)
            verdict(p, "Fig 23 (SP2), P = %d, %s: A4-n2 < A3"
                    % (int(r[0]["p"]), w),
                    "A4-n2 %s, A3 %s ms" % (ms(a4), ms(a3)), a4 < a3)


# ---- hambrusch1995/1996 (s-to-p broadcasting, cm5sched --bcast) ----------

def hbt(r, alg, **match):
    """Mean comm + comp (the whole broadcast; gather is 0, counts given)."""
    return once(r, alg=alg, **match)


def hb_fig2(p):
    r = load("hb_fig2")
    if r is None:
        return missing(p, "Fig. 2", "hb")
    ss = sorted({int(x["s"]) for x in r})
    br = ("br_lin", "br_xy_source", "br_xy_dim")
    big = [s for s in ss if s > 4] or ss[-1:]
    t = {(a, s): hbt(r, a, s=float(s)) for a in algs(r) for s in ss}
    slow = [s for s in big if min(t["xor", s], t["2step", s]) >
            max(t[a, s] for a in br)]
    verdict(p, "Fig. 2: 2-Step and Xor slower than every Br_* for s > 4",
            "; ".join("s=%d: br_* %s-%s, xor %s, 2step %s ms" % (
                s, ms(min(t[a, s] for a in br)), ms(max(t[a, s] for a in br)),
                ms(t["xor", s]), ms(t["2step", s])) for s in big),
            len(slow) == len(big))
    lo, hi = ss[len(ss) // 2], ss[-1]
    if lo < hi:
        g2 = t["2step", hi] / t["2step", lo]
        gb = max(t[a, hi] / t[a, lo] for a in br)
        verdict(p, "Fig. 2: 2-Step grows faster than linearly in s "
                "(s %d -> %d: x%.2g)" % (lo, hi, hi / lo),
                "2step x%.2f, br_* at most x%.2f" % (g2, gb), g2 > hi / lo)
    spread = max(t[a, hi] for a in br) / min(t[a, hi] for a in br)
    verdict(p, "Fig. 2: the Br_* lie close together (within 1.5x at the "
            "largest s)", "s=%d: max/min %.2f" % (hi, spread), spread <= 1.5)


def hb_fig3(p):
    r = load("hb_fig3")
    if r is None:
        return missing(p, "Fig. 3", "hb")
    t = {(a, z): hbt(r, a, size=z) for a in algs(r) for z in sizes(r)}
    for a, flat in (("br_lin", 512), ("br_xy_source", 512),
                    ("br_xy_dim", 512), ("xor", 1024)):
        f = t[a, flat] / t[a, 32]
        g = t[a, 16384] / t[a, 4096]
        verdict(p, "Fig. 3: %s flat up to %d B (<= 1.5x of 32 B), then "
                "linear (16 KB / 4 KB >= 2)" % (a, flat),
                "x%.2f to %d B, x%.2f from 4 to 16 KB" % (f, flat, g),
                f <= 1.5 and g >= 2)


def hb_fig4(p):
    fs = sorted((int(f[9:-4]), f[:-4]) for f in os.listdir(D)
                if f.startswith("hb_fig4_p") and f.endswith(".csv"))
    if not fs:
        return missing(p, "Fig. 4", "hb")
    for n, f in fs:
        if n > 16:
            continue
        r = load(f)
        t = {a: hbt(r, a) for a in algs(r)}
        best = min(t.values())
        verdict(p, "Fig. 4: Xor as good as any at p = %d (within 10%%)" % n,
                ", ".join("%s %s" % (a, ms(t[a])) for a in sorted(
                    t, key=t.get)) + " ms", t["xor"] <= 1.1 * best)


def wl_time(r, alg, kind):
    """Mean time of alg on the workload whose spec starts with kind:."""
    w = [x for x in {y["workload"] for y in r} if x.startswith(kind + ":")]
    return hbt(r, alg, workload=w[0]) if w else float("nan")


def hb_fig5(p):
    r = load("hb_fig5")
    if r is None:
        return missing(p, "Fig. 5", "hb")
    good = ("row", "col", "dr", "equal")
    xs = {d: wl_time(r, "br_xy_source", d) for d in good + ("cross", "block")}
    g = [xs[d] for d in good]
    verdict(p, "Fig. 5: Br_xy_source about the same on row, column, "
            "diagonal, equal (within 1.25x)",
            ", ".join("%s %s" % (d, ms(xs[d])) for d in good) + " ms",
            max(g) / min(g) <= 1.25)
    verdict(p, "Fig. 5: Br_xy_source much worse on block and cross "
            "(> 1.25x the worst of those)",
            "block %s, cross %s ms" % (ms(xs["block"]), ms(xs["cross"])),
            min(xs["block"], xs["cross"]) > 1.25 * max(g))
    for d in ("block", "cross"):
        t = {a: wl_time(r, a, d) for a in algs(r)}
        verdict(p, "Fig. 5: Br_Lin best on %s" % d,
                ", ".join("%s %s" % (a, ms(t[a])) for a in sorted(
                    t, key=t.get)) + " ms", min(t, key=t.get) == "br_lin")
    dim, src = wl_time(r, "br_xy_dim", "row"), wl_time(r, "br_xy_source",
                                                        "row")
    verdict(p, "Fig. 5: Br_xy_dim degrades badly on row (> 1.5x "
            "Br_xy_source)", "row: br_xy_dim %s, br_xy_source %s ms" % (
                ms(dim), ms(src)), dim > 1.5 * src)


def hb_fig6(p):
    """A fixed total (80 KB) over s sources: more sources is faster."""
    r = load("hb_fig6")
    if r is None:
        return missing(p, "Fig. 6", "hb")
    ss = sorted({int(x["s"]) for x in r})
    lo, hi = ss[0], ss[-1]
    if lo == hi:
        return verdict(p, "Fig. 6: more sources faster for the same total",
                       "one source count only (s = %d)" % lo, None)
    t = {(a, s): hbt(r, a, s=float(s)) for a in algs(r) for s in ss}
    x = t["br_xy_source", lo] / t["br_xy_source", hi]
    verdict(p, "Fig. 6: Br_xy_source faster with more sources for the same "
            "80 KB (paper: x1.56 from s = 5 to 40)",
            "s=%d %s, s=%d %s ms (x%.2f)" % (
                lo, ms(t["br_xy_source", lo]), hi,
                ms(t["br_xy_source", hi]), x), x > 1)
    verdict(p, "Fig. 6: every Br_* faster with more sources for the same "
            "80 KB", "; ".join("%s x%.2f" % (a, t[a, lo] / t[a, hi])
                               for a in algs(r)),
            all(t[a, hi] < t[a, lo] for a in algs(r)))


def hb_fig7(p):
    """Br_Lin on the shapes of one p: the shape matters for large s; s =
    15 faster than s = 8 except on the most skewed shape."""
    fs = csvs("hb_fig7_")
    if not fs:
        return missing(p, "Fig. 7", "hb")
    t, ss = {}, set()
    for f in fs:
        r = load(f)
        for s in {int(x["s"]) for x in r}:
            t[f[8:], s] = hbt(r, "br_lin", s=float(s))
            ss.add(s)
    shapes = sorted({m for m, s in t},
                    key=lambda m: int(m.split("x")[0]))
    ss = sorted(ss)
    n = int(shapes[0].split("x")[0]) * int(shapes[0].split("x")[1])

    def spread(s):
        v = [t[m, s] for m in shapes if (m, s) in t]
        return max(v) / min(v)
    verdict(p, "Fig. 7 (p = %d, %s): the shape matters more for large s "
            "(max/min over shapes, largest s > smallest s)"
            % (n, ", ".join(shapes)), "; ".join(
                "s=%d x%.2f" % (s, spread(s)) for s in ss),
            spread(ss[-1]) > spread(ss[0]) if len(ss) > 1 else None)
    if len(ss) < 3:
        return verdict(p, "Fig. 7: s = 15 faster than s = 8",
                       "s = 8 and 15 scale to the same count here", None)
    s8, s15 = ss[0], ss[1]
    rest = shapes[1:]  # all but the most skewed (the paper's 4x30)
    verdict(p, "Fig. 7: s = 15 faster than s = 8 (here s = %d and %d) on "
            "every shape but %s" % (s15, s8, shapes[0]), "; ".join(
                "%s: %s vs %s ms" % (m, ms(t[m, s15]), ms(t[m, s8]))
                for m in rest),
            all(t[m, s15] < t[m, s8] for m in rest))


def hb_fig8(p):
    fs = sorted(f[:-4] for f in os.listdir(D)
                if f.startswith("hb_fig8_") and f.endswith(".csv") and
                not f.endswith(("_mpi.csv", "_port.csv")))
    if not fs:
        return missing(p, "Fig. 8", "hb")
    for f in fs:
        r = load(f)
        mesh = r[0]["mesh"]
        xs = {d: wl_time(r, "br_xy_source", d)
              for d in ("row", "col", "equal", "dr", "cross")}
        rp = wl_time(r, "repos", "cross")
        verdict(p, "Fig. 8 (%s): Repos on cross within 13%% of row "
                "(ideal)" % mesh, "repos %s, row %s ms (x%.2f)" % (
                    ms(rp), ms(xs["row"]), rp / xs["row"]),
                rp <= 1.13 * xs["row"])
        verdict(p, "Fig. 8 (%s): Repos beats cross by about 30%%" % mesh,
                "repos %s, cross %s ms (%.0f%% less)" % (
                    ms(rp), ms(xs["cross"]), 100 * (1 - rp / xs["cross"])) +
                mpi_ref(f),
                rp <= 0.8 * xs["cross"])
        hi, lo = max(xs.values()), min(xs.values())
        verdict(p, "Fig. 8 (%s): poor and ideal distributions differ by "
                "up to ~2x (1.3-2.5x)" % mesh, ", ".join(
                    "%s %s" % (d, ms(xs[d])) for d in xs) + " ms; x%.2f" % (
                        hi / lo), 1.3 <= hi / lo <= 2.5)


def mpi_ref(name, kind="cross"):
    """ "; Open MPI MPI_Allgatherv X ms" on the kind distribution from
    name_mpi.csv (a reference, not a claim), or "". """
    r = [x for x in load(name + "_mpi") or []
         if x["workload"].startswith(kind + ":")]
    return "; Open MPI MPI_Allgatherv on %s %s ms" % (
        kind, ms(mean(r, "comm_s"))) if r else ""


def hb_fig9(p):
    r = load("hb_fig9")
    if r is None:
        return missing(p, "Fig. 9", "hb")
    t = {a: hbt(r, a) for a in algs(r)}
    verdict(p, "Fig. 9 (%s): Repos < direct (br_xy_source) < "
            "Part_xy_source on cross" % r[0]["mesh"],
            ", ".join("%s %s" % (a, ms(t[a])) for a in sorted(
                t, key=t.get)) + " ms" + mpi_ref("hb_fig9"),
            t["repos"] < t["br_xy_source"] < t["part_xy_source"])


def hb96(p):
    r = load("hb96_fig8")
    if r is None:
        return missing(p, "1996 Figs. 8/9", "hb")
    n = int(r[0]["p"])
    pays, part_wins, pts = {}, 0, 0
    for w in sorted({x["workload"] for x in r}):
        d, s = w.split(":")[0], int(w.split("s=")[1])
        direct = hbt(r, "br_xy_source", workload=w)
        rp, pt = hbt(r, "repos", workload=w), hbt(r, "part_xy_source",
                                                 workload=w)
        pays.setdefault(d, []).append((s, direct - rp))
        pts += 1
        part_wins += pt < rp
    for d in pays:
        pays[d].sort()
    for d, want in (("equal", True), ("cross", True), ("block", True),
                    ("band", False)):
        small = [g for s, g in pays.get(d, []) if s <= n // 2]
        ok = bool(small) and (all(g > 0 for g in small) if want
                              else all(g <= 0 for g in small))
        verdict(p, "1996 Fig. 8 (p = %d): repositioning %s on %s "
                "(s <= p/2)" % (n, "pays" if want else "does not pay", d),
                "gain (direct - repos) " + ", ".join(
                    "s=%d %s" % (s, ms(g)) for s, g in pays.get(d, [])) +
                " ms", ok)
    verdict(p, "1996 Fig. 8: partitioning hardly ever beats repositioning "
            "(in < 25% of the points)", "%d of %d points" % (part_wins, pts),
            part_wins < 0.25 * pts)
    r = load("hb96_fig9")
    if r is None:
        return
    zs = sizes(r)
    for w in sorted({x["workload"] for x in r}):
        g = [hbt(r, "br_xy_source", workload=w, size=z) -
             hbt(r, "repos", workload=w, size=z) for z in zs]
        verdict(p, "1996 Fig. 9: %s: the gain of repositioning grows with "
                "L (largest L > smallest)" % w, ", ".join(
                    "%d B %s" % (z, ms(x)) for z, x in zip(zs, g)) + " ms",
                g[-1] > g[0])


# hambrusch1996 section 6: the same programs with MPI point-to-point lost
# 2-5 % on the Paragon.  NAME_port.csv holds bench/mpi_bcast_port's runs
# (the same plans over Open MPI) beside cm5sched's NAME.csv.

BC_ORDER = ("br_lin", "br_xy_source", "br_xy_dim", "xor", "2step", "repos",
            "part_lin", "part_xy_source")


def bc_rank(alg):
    return BC_ORDER.index(alg) if alg in BC_ORDER else len(BC_ORDER)


def port_names():
    return sorted(f[:-9] for f in os.listdir(D) if f.endswith("_port.csv")
                  and os.path.exists(os.path.join(D, f[:-9] + ".csv")))


def port_points(name):
    """[(workload, alg, size, native s, port s, MPI_Allgatherv s or nan)]
    for every point of name_port.csv that cm5sched also ran."""
    nat, prt = load(name), load(name + "_port")
    mpi = load(name + "_mpi") or []
    out = []
    for w, a, z in sorted({(x["workload"], x["alg"], x["size"])
                           for x in prt or []},
                          key=lambda k: (k[0], bc_rank(k[1]), k[2])):
        n = hbt(nat, a, workload=w, size=z)
        if n == n:
            out.append((w, a, z, n, hbt(prt, a, workload=w, size=z),
                        mean(mpi, "comm_s", workload=w, size=z)))
    return out


def geomean(v):
    return math.exp(sum(math.log(x) for x in v) / len(v))


def hb_port(p):
    pts = {}
    for n in port_names():
        for x in port_points(n):
            pts.setdefault(x[1], []).append(x)
    if not pts:
        return missing(p, "section 6: MPI port within 2-5 % of native",
                       "hb's MPI port")
    for a in sorted(pts, key=lambda a: (bc_rank(a), a)):
        r = [x[4] / x[3] for x in pts[a]]
        g = geomean(r)
        ag = [x[4] / x[5] for x in pts[a] if x[5] == x[5]]
        verdict(p, "section 6: the MPI port of %s within 2-5 %% of native "
                "(paper: 2-5 %% loss; here: geometric mean of port / native "
                "within 5 %%)" % a,
                "port / native x%.3f (%+.1f %%) over %d points, x%.2f-x%.2f"
                % (g, 100 * (g - 1), len(r), min(r), max(r)) +
                ("; port / MPI_Allgatherv x%.2f (%d points)"
                 % (geomean(ag), len(ag)) if ag else ""),
                abs(g - 1) <= 0.05)


def port_table(name):
    """The Markdown table of name_port.csv against name.csv (and
    name_mpi.csv): what reproduce.sh puts under the native rows."""
    print("| distribution | algorithm | unit (B) | native ms | MPI port ms | "
          "port / native | MPI_Allgatherv ms | port / Allgatherv |")
    print("|---|---|---|---|---|---|---|---|")
    for w, a, z, n, t, m in port_points(name):
        print("| %s | %s | %d | %s | %s | x%.2f | %s | %s |" % (
            w, a, z, ms(n), ms(t), t / n, ms(m) if m == m else "-",
            "x%.2f" % (t / m) if m == m else "-"))


def hb():
    for f in (hb_fig2, hb_fig3, hb_fig4, hb_fig5, hb_fig6, hb_fig7, hb_fig8,
              hb_fig9):
        f("hambrusch1995")
    hb96("hambrusch1996")
    hb_port("hambrusch1996")


STATUS = [
    ("wang1993", "Table 2 (node contention)", "t2_k1",
     "rerun (AC, contention:k=K, 256 and 4096 B); the send max/min/avg "
     "columns are not measured: cm5sched reports a call's time as its "
     "slowest node's, as wang1993's Tables 3-6 do, and collects no "
     "per-node times (the max over nodes is the receiver's time here)"),
    ("wang1993", "Table 3 (recvl: AM vs concatenate)", "t3_am_d4",
     "rerun at n = {t3n}{t3n_256}"),
    ("wang1993", "Table 4 (test set 1)", "t4_d4", "rerun, recvcounts {t4}"),
    ("wang1993", "Table 5 (test set 2)", "t5_d4", "rerun, recvcounts {t5}"),
    ("wang1993", "Table 6 (airfoil meshes)", "t6_airfoil2800",
     "rerun, recvcounts {t6_airfoil2800}"),
    ("wang1993", "Figs 7-9 (Tables 4-6 drawn)", None,
     "not drawn by reproduce.sh (cm5sched --plot draws them)"),
    ("ranka1995", "Figs 9/10 (k/l cases against t)", "kl_t*",
     "rerun at t = {kl} bytes per node (the figures' axes are lost, "
     "PAPER_RESULTS.md A.2: the range is ours)"),
    ("ranka1995", "bound ceil(t/p) on stage-1 messages", "kl_t*",
     "checked exactly (stage1_maxlen)"),
    ("liu2002", "Tables 3-4 (start-ups, traffic, buffers)", "liu_m*",
     "message and step counts checked; {liu_buf}"),
    ("liu2002", "Figs 15/17 (P varied)", "liup_p*",
     "rerun in blocking mode at P = {liup} (no non-blocking A1/A2 here)"),
    ("liu2002", "Figs 16/18-22 (M_max sweeps, n1/n2 modes)", "lium_b",
     "rerun at P = {lium}, M_max = {lium_m}; A4 in modes b, n1, n2 (A3 "
     "has one mode)"),
    ("liu2002", "Fig 23 (A3 vs A4 on square P)", "liusq_p*",
     "rerun at P = {liusq}"),
    ("liu2002", "Table 1 (T_s / t_c ratios)", None,
     "not rerun: n1/2 of the provider not measured here (doc/bench.md)"),
    ("hambrusch1995", "Figs 2-5 (Br_*, Xor, 2-Step)", "hb_fig2",
     "rerun {hbscale} (the mesh is in each section's title), the papers' "
     "L"),
    ("hambrusch1995", "Figs 8/9 tables (Repos, Part)", "hb_fig9",
     "rerun, scaled as Figs 2-5"),
    ("hambrusch1995", "Figs 6/7 (fixed total, mesh shapes)", "hb_fig6",
     "rerun, scaled as Figs 2-5 (Fig. 6 keeps the 80 KB total); Fig. 7 "
     "on {hb7}"),
    ("hambrusch1996", "Figs 8/9 (repositioning, partitioning)", "hb96_fig8",
     "rerun, scaled as hambrusch1995"),
    ("hambrusch1996", "section 6 (MPI port: 2-5 % loss)", "hb_fig9_port",
     "rerun: the same plans over Open MPI point-to-point "
     "(bench/mpi_bcast_port.c) against cm5sched over cm5fab, on {hbport}; "
     "the two run on different transports"),
]


def ran(name):
    """name.csv is in the run; a name ending in * matches a prefix."""
    if name.endswith("*"):
        return bool(csvs(name[:-1]))
    return os.path.exists(os.path.join(D, name + ".csv"))


def status():
    fill = {"t3n": ", ".join(["32"] + [n for n in ("64", "128", "256")
                                       if ran("t3_n%s_am_d4" % n)])}
    fill["t3n_256"] = "" if ran("t3_n256_am_d4") else \
        "; n = 256 not in this run (reproduce.sh --table3-nodes " \
        "\"64 128 256\", the default, runs it)"
    lm = [load(f) for f in csvs("liu_m")]
    fill["liu_buf"] = "buffer sizes measured (sbuf_units, rbuf_units) " \
        "against Table 4" if lm and lm[0] and "sbuf_units" in lm[0][0] \
        else "buffer sizes not in these CSVs (older than the columns)"
    fill["kl"] = ", ".join(sorted((f[4:] for f in csvs("kl_t")), key=int))
    fill["liup"] = ", ".join(sorted((f[6:] for f in csvs("liup_p")),
                                    key=int))
    fill["liusq"] = ", ".join(sorted((f[7:] for f in csvs("liusq_p")),
                                     key=int))
    fill["hbport"] = ", ".join(port_names())
    f2 = load("hb_fig2") or [{"mesh": ""}]
    fill["hbscale"] = "at the papers' sizes (10x10, 15x16, 8x8 and 16x16 " \
        "meshes, the papers' s: reproduce.sh --hb-scale 1)" \
        if f2[0]["mesh"] == "10x10" else "on meshes scaled by " \
        "reproduce.sh --hb-scale (%s for the papers' 10x10), sources " \
        "scaled with p" % (f2[0]["mesh"] or "?")
    fill["hb7"] = ", ".join(sorted((f[8:] for f in csvs("hb_fig7_")),
                                   key=lambda m: int(m.split("x")[0])))
    b = load("lium_b") or [{"p": 0, "workload": ""}]
    fill["lium"] = "%d" % int(b[0]["p"])
    fill["lium_m"] = ", ".join(str(m) for m in sorted(
        {mmax(x["workload"]) for x in b}))
    for t in ("t4", "t5", "t6_airfoil2800"):
        base = t if t.startswith("t6") else t + "_d4"
        fill[t] = " and ".join(
            [m for m, f in (("given", base), ("discovered (am)",
                                              base + "_am")) if ran(f)])
    print("| paper | table or figure | status |")
    print("|---|---|---|")
    for paper, what, csvname, why in STATUS:
        if csvname and not ran(csvname):
            why = "not in this run"
        else:
            why = why.format(**fill)
        print("| %s | %s | %s |" % (paper, what, why))


def main():
    global D
    args = sys.argv[1:]
    if len(args) == 2 and args[0] == "--status":
        D = args[1]
        status()
        return 0
    if len(args) == 2 and args[0] == "--cells":
        D = args[1]
        cells()
        return 0
    if len(args) == 3 and args[0] == "--port":
        D = args[1]
        port_table(args[2])
        return 0
    if len(args) != 1:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    D = args[0]
    for f in (t2, t3, t3_256, t4, t5, t6, kl, liu, liup, lium, liusq,
              table4, hb):
        try:
            f()
        except (KeyError, ValueError, ZeroDivisionError, IndexError) as e:
            verdict(f.__name__, "(all claims)", "cannot compute: %r" % e,
                    None)
    print("| paper | claim | measured here | verdict |")
    print("|---|---|---|---|")
    print("\n".join(OUT))
    n_ok = sum("**holds**" in o for o in OUT)
    n_no = sum("**does not hold**" in o for o in OUT)
    print("\n%d claims hold, %d do not, %d not computed." %
          (n_ok, n_no, len(OUT) - n_ok - n_no))
    return 0


if __name__ == "__main__":
    sys.exit(main())
