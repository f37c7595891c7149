#!/bin/sh
# liu2002 Table 4, the buffer sizes, measured (cm5_sched_stats_t's
# sbuf_elems and rbuf_elems: the most payload elements one stage's send
# and receive buffers held) and checked exactly against the paper's
# bounds on Pattern1 and Pattern2 (tests/algos/prog_liu, entries 0..8
# and one spike of 1024 per row; p1div/p2div: the same times P), P = 16
# and 25 (A3's square grids) and 18 (A4's incomplete grid), over shm:
#   A1  sBUF <= M_max P, rBUF <= L; in place: exactly the largest row and
#       column sum (what a node sends and receives);
#   A2  sBUF <= L and rBUF <= L; sBUF at least the largest row (stage 1
#       packs it);
#   A3  sBUF, rBUF <= M_max P; sBUF at least the largest row;
#   A4  sBUF, rBUF <= ceil(sqrt P)^2 L / P (modes b, n1, n2); rBUF at
#       least the largest column (Stage IV brings in everything for the
#       node), sBUF at least the largest row (Stage I's buckets);
# with L = t, the largest row or column sum, and M_max the largest entry
# (the diagonal is the dispatcher's self copy: not counted).
# TAP output.
#
#   abs_top_builddir=BUILD sh tests/algos/liubuf.sh

: "${abs_top_builddir:=$(pwd)}"
CM5RUN=$abs_top_builddir/tools/cm5run
PROG=$abs_top_builddir/tests/algos/prog_liu

unset CM5_TIMEOUT CM5_PROVIDER CM5_LOG_LEVEL CM5_VERBOSE_ENV FI_PROVIDER

TAP_TAIL=8
. "$(dirname "$0")/../tap.sh"
tap_begin cm5liubuf ""

# cases P: every algorithm on every pattern (A3 on square P), A4 in its
# three modes.
cases() {
    for m in pattern1 pattern2 p1div p2div; do
        for a in a1 a2; do echo "$a:$m"; done
        case $1 in 16 | 25) echo "a3:$m" ;; esac
        for mode in b n1 n2; do echo "a4:$m:$mode"; done
    done
}
JOBS="16 25 18"
echo "1..$(($(echo "$JOBS" | wc -w) * 2))"

# What differs from Table 4 in the case lines of out, one line each.
check_buffers() {
    awk '
    function over(what, val, bound) {
        if (val > bound)
            printf "%s: %s %d > %s\n", $0, what, val, bound
    }
    function under(what, val, low) {
        if (val < low)
            printf "%s: %s %d < %s\n", $0, what, val, low
    }
    /^case / {
        delete f
        for (i = 2; i <= NF; i++) {
            split($i, kv, "=")
            f[kv[1]] = kv[2]
        }
        p = f["p"]; t = f["t"]; mp = f["mmax"] * p
        sb = f["sbuf"] + 0; rb = f["rbuf"] + 0
        if (f["alg"] == "a1") {
            over("sbuf", sb, mp); over("rbuf", rb, t)
            if (sb != f["rmax"] || rb != f["cmax"])
                printf "%s: a1 buffers are not the user rows/columns\n", $0
        } else if (f["alg"] == "a2") {
            over("sbuf", sb, t); over("rbuf", rb, t)
            under("sbuf", sb, f["rmax"])
        } else if (f["alg"] == "a3") {
            over("sbuf", sb, mp); over("rbuf", rb, mp)
            under("sbuf", sb, f["rmax"])
        } else {
            c = int(sqrt(p)); if (c * c < p) c++
            # ceil(sqrt P)^2 L / P, compared in integers: x P <= C^2 L.
            if (sb * p > c * c * t || rb * p > c * c * t)
                printf "%s: over C^2 L / P = %g\n", $0, c * c * t / p
            under("sbuf", sb, f["rmax"]); under("rbuf", rb, f["cmax"])
        }
        if (t > 0 && (sb == 0 || rb == 0))
            printf "%s: buffers not measured\n", $0
    }' out
}

for p in $JOBS; do
    t0=$(date +%s)
    what="prog_liu on $p nodes, shm"
    # shellcheck disable=SC2046 # the case list is words
    timeout -k 2 130 "$CM5RUN" -n "$p" --provider shm --timeout 120 "$PROG" \
        --max 1024 $(cases "$p") >out 2>err
    rc=$?
    ncase=$(sed -n 's/^cases=//p' out)
    if [ "$rc" -eq 0 ] && grep -q '^ok$' out &&
        [ "$ncase" = "$(cases "$p" | wc -l)" ] &&
        [ "$(grep -c '^case ' out)" -eq "$ncase" ]; then
        ok "P=$p: $ncase cases on Pattern1/2, every byte verified ($(($(date +%s) - t0)) s)"
    else
        not_ok "P=$p: cases on Pattern1/2, every byte verified"
    fi
    bad=$(check_buffers)
    if [ "$rc" -eq 0 ] && [ -z "$bad" ]; then
        ok "P=$p: sBUF and rBUF within liu2002 Table 4 (A1 M_max P and L, exactly its rows and columns; A2 L; A3 M_max P; A4 C^2 L/P)"
    else
        echo "$bad" | head -n 5 | cut -c1-400 | sed 's/^/#   /'
        not_ok "P=$p: sBUF and rBUF within liu2002 Table 4"
    fi
done
echo "# $n tests in $(($(date +%s) - t_start)) s"
