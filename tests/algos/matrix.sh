#!/bin/sh
# Every algorithm on every workload class on P = 1, 2, 3, 5, 8, 16, 31, 32
# and 64 nodes (shm), and on 3 and 8 nodes over tcp: one cm5sched job per P
# and provider runs `--alg all` (a3 only where P is a square; elsewhere it
# must be refused) on density, nonuniform, kl, pattern1, pattern2, random,
# hotspot, permutation, csv and mesh matrices (kl from P = 2: it needs a
# fan-out of at least 2).  cm5sched checks every
# received byte on every node (a pattern keyed by source, destination and
# run, and guard bytes past the data); this script checks from its CSV
# that every (workload, algorithm) pair ran, that every network message
# and byte sent was received once (sum over nodes of sent = received),
# and that the direct algorithms (ac, lp, rsn, rsnh, drsn, drsn+, a1)
# move exactly the bytes of the matrix, no more: a duplicate or a lost
# transfer shows there even when the bytes in place are right.  TAP.
#
#   abs_top_builddir=BUILD sh tests/algos/matrix.sh

: "${abs_top_builddir:=$(pwd)}"
CM5RUN=$abs_top_builddir/tools/cm5run
SCHED=$abs_top_builddir/tools/cm5sched
WL=$abs_top_builddir/tests/algos/prog_workload

unset CM5_TIMEOUT CM5_PROVIDER CM5_LOG_LEVEL CM5_VERBOSE_ENV FI_PROVIDER
export FI_TCP_IFACE=lo FI_SOCKETS_IFACE=lo

. "$(dirname "$0")/../tap.sh"
tap_begin cm5matrix ""

JOBS="1:shm 2:shm 3:shm 5:shm 8:shm 16:shm 31:shm 32:shm 64:shm 3:tcp 8:tcp"
[ -n "${MATRIX_JOBS:-}" ] && JOBS=$MATRIX_JOBS # (to debug: one job)
echo "1..$((4 * $(echo $JOBS | wc -w) + 1))"
TAP_TAIL=8

have_metis=1
"$WL" mesh:airfoil2800 2 >/dev/null 2>wl.err ||
    { grep -q "need METIS" wl.err && have_metis=0; }

# tsv: cm5sched's CSV (quoted fields may hold commas) as tab-separated.
tsv() {
    awk '{ o = ""; q = 0
        for (i = 1; i <= length($0); i++) {
            ch = substr($0, i, 1)
            if (ch == "\"") { q = !q; continue }
            o = o (ch == "," && !q ? "\t" : ch)
        }
        print o }'
}

is_square() {
    r=0
    while [ $((r * r)) -lt "$1" ]; do r=$((r + 1)); done
    [ $((r * r)) -eq "$1" ]
}

# csv P: a random P x P matrix (entries 0..20, zero diagonal) in m.csv.
csv() {
    awk -v p="$1" 'BEGIN { srand(p); for (i = 0; i < p; i++) {
        s = ""; for (j = 0; j < p; j++)
            s = s (j ? "," : "") (i == j ? 0 : int(rand() * 21));
        print s } }' >m.csv
}

for job in $JOBS; do
    p=${job%:*} prov=${job#*:}
    d=$((p > 4 ? 4 : p - 1))
    k=$((p > 4 ? 4 : p))
    csv "$p"
    set -- "density:d=$d" "nonuniform:d=$d" pattern1 pattern2 random \
        hotspot:m=200 permutation "csv:m.csv"
    # (kl needs a fan-out k >= 2: l in (0, 1) with l*k an integer)
    [ "$p" -ge 2 ] && set -- "$@" "kl:k=$k,l=1/$k,t=4096"
    [ $have_metis = 1 ] && set -- "$@" mesh:airfoil2800
    nw=$#
    for w; do set -- "$@" --workload "$w"; shift; done
    if is_square "$p"; then nalg=11; else nalg=10; fi
    what="cm5sched --alg all ($nw workloads) on $p nodes, $prov"
    rm -f rows.csv rows.tsv
    t0=$(now_ms)
    timeout -k 2 400 "$CM5RUN" -n "$p" --provider "$prov" --timeout 380 \
        "$SCHED" --alg all "$@" --sizes 4 --reps 1 --warmup 0 --quiet \
        --csv rows.csv >out 2>err
    rc=$?
    ms=$(($(now_ms) - t0))
    : >why
    tsv <rows.csv >rows.tsv 2>/dev/null

    check "p=$p $prov: all algorithms x $nw workloads, every byte verified ($ms ms)" \
        '[ "$rc" -eq 0 ] && [ ! -s err ]'

    # Columns by name, so that new columns do not break the script.
    awk -F'\t' -v nw="$nw" -v nalg="$nalg" -v sq="$nalg" '
        NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
        { seen[$(c["workload"]) "," $(c["alg"])]++; rows++
          if ($(c["alg"]) == "a3") a3++ }
        END {
            bad = 0
            for (x in seen) if (seen[x] != 1) { print "twice: " x; bad = 1 }
            if (rows != nw * nalg) { print rows " rows, not " nw * nalg; bad = 1 }
            if (nalg == 10 && a3) { print "a3 ran on a non-square p"; bad = 1 }
            exit bad }' rows.tsv >why 2>&1
    check "p=$p $prov: one row per workload and algorithm (a3 only on squares)" \
        '[ "$rc" -eq 0 ]'" && [ ! -s why ]"

    awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
        $(c["msgs"]) != $(c["msgs_recv"]) || $(c["bytes"]) != $(c["bytes_recv"]) {
            print $(c["workload"]) " " $(c["alg"]) ": sent " $(c["msgs"]) "/" \
                $(c["bytes"]) ", received " $(c["msgs_recv"]) "/" \
                $(c["bytes_recv"]) }' rows.tsv >why 2>&1
    check "p=$p $prov: every network message and byte received once" \
        '[ "$rc" -eq 0 ]'" && [ ! -s why ]"

    # Direct algorithms: the bytes of the matrix (ac's, which sends each
    # nonzero entry once), and as many messages except RS_NH's pieces.
    awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
        { w = $(c["workload"]); a = $(c["alg"])
          t[w] = $(c["t_units"]); b[w "," a] = $(c["bytes"])
          m[w "," a] = $(c["msgs"]); ws[w] = 1 }
        END {
            split("lp rsn rsnh drsn drsn+ a1", direct, " ")
            for (w in ws) {
                if (!((w ",ac") in b)) { print w ": no ac row"; continue }
                for (i in direct) {
                    x = w "," direct[i]
                    if (b[x] != b[w ",ac"])
                        print w " " direct[i] ": " b[x] " bytes, ac " b[w ",ac"]
                    if (direct[i] == "rsnh" ? m[x] < m[w ",ac"] : m[x] != m[w ",ac"])
                        print w " " direct[i] ": " m[x] " messages, ac " m[w ",ac"]
                }
            } }' rows.tsv >why 2>&1
    check "p=$p $prov: direct algorithms move the matrix, each entry once" \
        '[ "$rc" -eq 0 ]'" && [ ! -s why ]"
done

# a3 alone on a non-square P: one clear line, non-zero exit.
what="cm5sched --alg a3 on 5 nodes, shm"
t0=$(now_ms)
timeout -k 2 40 "$CM5RUN" -n 5 --provider shm --timeout 30 "$SCHED" \
    --alg a3 --workload density:d=2 --sizes 4 >out 2>err
rc=$?
ms=$(($(now_ms) - t0))
: >why
check "a3 on 5 nodes: refused with one line naming the square rule" \
    '[ "$rc" -ne 0 ] && grep -q "a3 needs a square number of nodes, not 5" err &&
     [ "$(grep -c "^cm5sched" err)" -eq 1 ]'
