#!/bin/sh
# The s-to-p broadcasting family (cm5_sched_allgatherv) through
# prog_bcast: every algorithm (and auto) on every source distribution for
# p = 1, 2, 3, 7, 8, 16, 31, 32, 64 with the meshes 1 x p, the most square
# one and a skewed one, every byte of every source checked on every node
# (shm; p = 2, 7 and 16 also over tcp), one job per p.  From node 0's case
# lines it asserts: the number of cases; br_lin takes ceil(log2 p)
# iterations, br_xy_* ceil(log2 r) + ceil(log2 c), xor 2^ceil(log2 p) - 1
# with s (p - 1) messages; the algorithms that never send a node its own
# message (br_*, xor) move exactly (p - 1) x the sources' bytes, the
# others at least that.  Then options (row-major order, prefix ideal,
# repos with br_lin, 4-byte elements, interrupts, 2 calls back to back)
# and bad input: a mesh that does not multiply to p (not full, or too
# small: every algorithm, the same line), a negative count,
# counts the nodes disagree on, a source outside the partition, a
# negative length, more sources than nodes: a non-zero exit, one error
# message, no hang.  TAP.
#
#   abs_top_builddir=BUILD sh tests/algos/bcast.sh

PLAN=
: "${abs_top_builddir:=$(pwd)}"
CM5RUN=$abs_top_builddir/tools/cm5run
PROG=$abs_top_builddir/tests/algos/prog_bcast

. "${abs_top_srcdir:-$(dirname "$0")/../..}/tests/algos/lib.sh"

ALGS=br_lin,br_xy_source,br_xy_dim,xor,2step,repos,part_lin,part_xy_source,auto
NALGS=9
# s = ceil(sqrt p) by default; the cross and equal ones take more.
DISTS="row;col;dr;dl;equal;cross;block;band;random"
NDISTS=9

# cases P: the invariants of the header over node 0's case lines; the
# offending lines go to ./why.
cases_ok() {
    awk -v p="$1" '
    function lg(n,  k) { k = 0; while (2 ^ k < n) k++; return k }
    /^case / {
        for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
        split(v["mesh"], rc, "x"); a = v["alg"]; bad = ""
        if (a == "br_lin" && v["iters"] != lg(p)) bad = "iterations"
        if ((a == "br_xy_source" || a == "br_xy_dim") &&
            v["iters"] != lg(rc[1]) + lg(rc[2])) bad = "iterations"
        if (a == "xor" && (v["iters"] != 2 ^ lg(p) - 1 ||
                           v["msgs"] != v["s"] * (p - 1))) bad = "xor counts"
        want = (p - 1) * v["total"]
        if (a ~ /^(br_|xor)/ && v["bytes"] != want) bad = "bytes"
        if (v["bytes"] < want) bad = "bytes"
        if (bad != "") { print bad ": " $0 > "why"; fail = 1 }
    }
    END { exit fail }' out
}

# matrix DESC P PROVIDER MESHES [ARGS...]: every algorithm on every
# distribution on each mesh in one job.
matrix() {
    desc=$1 np=$2 prov=$3 meshes=$4
    shift 4
    nm=$(echo "$meshes" | tr ',' '\n' | wc -l)
    want=$((nm * NALGS * NDISTS))
    run 170 "$np" "$prov" --mesh "$meshes" --algs "$ALGS" --dists "$DISTS" "$@"
    check "$desc: $want cases, every byte on every node ($ms ms)" \
        '[ "$rc" -eq 0 ] && grep -qx "ok cases=$want" out'
    check "$desc: iterations, xor messages, bytes moved" "cases_ok $np"
}

# The run of lib.sh is named after prog_a2av; the same with prog_bcast.
run() {
    secs=$1 nodes=$2 prov=$3
    shift 3
    what="prog_bcast $* on $nodes nodes, $prov"
    t0=$(now_ms)
    # shellcheck disable=SC2046 # provopt: none or two words
    timeout -k 2 $((secs + 10)) "$CM5RUN" -n "$nodes" $(provopt "$prov") \
        --timeout "$secs" "$PROG" "$@" >out 2>err
    rc=$?
    ms=$(($(now_ms) - t0))
    rm -f why
}

matrix "p=1 shm 1x1" 1 shm 1x1
matrix "p=2 tcp 1x2" 2 tcp 1x2
matrix "p=3 shm 1x3, 2 calls each" 3 shm 1x3 --reps 2
matrix "p=7 shm 1x7" 7 shm 1x7
matrix "p=7 tcp 1x7" 7 tcp 1x7
matrix "p=8 shm 1x8, 2x4, 4x2" 8 shm 1x8,2x4,4x2
matrix "p=16 shm 1x16, 4x4, 2x8" 16 shm 1x16,4x4,2x8
matrix "p=16 tcp 4x4, 4-byte elements, interrupts" 16 tcp 4x4 \
    -o elem_size=4 -o interrupts=1
matrix "p=31 shm 1x31" 31 shm 1x31
matrix "p=32 shm 1x32, 4x8, 2x16" 32 shm 1x32,4x8,2x16
matrix "p=64 shm 8x8, 4x16, 1x64" 64 shm 8x8,4x16,1x64

# The 002-style distributions and more sources, on 10 x 10's little
# brother 4 x 6 and a prime.
DISTS="row:rows=2;col:cols=2,fill=balanced;equal:step=5;cross:i=2;block:i=2,j=3;equal:s=24;band:s=20"
NDISTS=7
matrix "p=24 shm 4x6 002-style, s up to p" 24 shm 4x6
matrix "p=24 shm 4x6 row-major br_lin, prefix ideal, repos with br_lin" \
    24 shm 4x6 -o br_lin_order=rowmajor -o ideal_lin=prefix \
    -o repos_alg=br_lin
DISTS="equal:s=13;random:s=5;cross:s=7"
NDISTS=3
matrix "p=13 shm default mesh (1x13), lengths 1..5000" 13 shm default \
    --L 1:5000

# ---- bad input: one error message, a non-zero exit, no hang --------------
# bad NODES MODE MESSAGE: every error line says MESSAGE (an ERE).
bad() {
    bad_msg=$3
    run 20 "$1" shm --bad "$2"
    check "bad $2 on $1 nodes: exit 1, one error message, no hang ($ms ms)" \
        '[ "$rc" -eq 1 ] && [ "$ms" -lt 18000 ] && ! grep -q "^ok" out &&
         grep -Eq "error .*$bad_msg" err &&
         [ "$(grep " error " err | grep -Evc "$bad_msg")" = 0 ]'
}
printf '0,10\n3,20\n70,5\n' >outside.csv
printf '# rank,length\n1,10\n2,-3\n' >negative.csv
bad 4 mesh "cm5_sched_allgatherv\(br_lin\): mesh 3 x 2 does not match the 4 nodes"
# A mesh that is not full (empty places) or too small: every algorithm
# refuses it with the same line (sched.h, cm5_sched_allgatherv(3)).
for a in $(echo "$ALGS" | tr , ' '); do
    bad 4 "mesh:$a:3x2" "cm5_sched_allgatherv\($a\): mesh 3 x 2 does not match the 4 nodes$"
done
for a in br_lin xor part_xy_source; do
    bad 4 "mesh:$a:1x3" "cm5_sched_allgatherv\($a\): mesh 1 x 3 does not match the 4 nodes$"
done
bad 3 negative "cm5_sched_allgatherv\(xor\): sendcount is negative \(-5\)"
bad 2 count "node [01] sends 1 elements but recvcounts\[[01]\] = 2"
bad 4 workload:csv:outside.csv "line 3: source 70 is outside the partition \(nodes 0..3\)"
bad 4 workload:csv:negative.csv "line 3: source 2 has a negative length \(-3\)"
bad 2 "workload:row:s=3" "s=3 is out of range \[0, 2\]"
bad 2 "workload:equal:L=-4" "L=-4: a length is negative"
run 20 4 shm --mesh 3x3
check "--mesh 3x3 on 4 nodes: exit 1, says why" \
    '[ "$rc" -eq 1 ] && grep -q "mesh 3 x 3 = 9 does not match the 4 nodes" err'

echo "1..$n"
