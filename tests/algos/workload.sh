#!/bin/sh
# The papers' workloads (<cm5/workload.h>): every kind runs through an
# algorithm on several nodes with every byte verified (cm5sched), over
# shm and tcp, with the network message count each matrix implies; the
# 32-part mesh matrices have fan-outs and lengths near wang1993's (5.3);
# a bad spec stops the run with one line.  TAP output.
#
#   abs_top_builddir=BUILD sh tests/algos/workload.sh

: "${abs_top_builddir:=$(pwd)}"
CM5RUN=$abs_top_builddir/tools/cm5run
SCHED=$abs_top_builddir/tools/cm5sched
WL=$abs_top_builddir/tests/algos/prog_workload

unset CM5_TIMEOUT CM5_PROVIDER CM5_LOG_LEVEL CM5_VERBOSE_ENV FI_PROVIDER
export FI_TCP_IFACE=lo FI_SOCKETS_IFACE=lo

. "$(dirname "$0")/../tap.sh"
tap_begin cm5wl ""

KINDS="density:d=3 nonuniform:d=2 kl:k=4,l=1/4,t=4096 pattern1 pattern2
random:d=2,max=9 hotspot:m=100 permutation:max=50 csv:$scratch/m.csv
mesh:airfoil2800"
PLAN=$((10 + 2 + 3 + 3 + 1))
echo "1..$PLAN"

# run NODES PROVIDER ARGS...: cm5sched under cm5run, bounded.
run() {
    nodes=$1 prov=$2
    shift 2
    what="cm5sched $* on $nodes nodes, $prov"
    t0=$(now_ms)
    timeout -k 2 50 "$CM5RUN" -n "$nodes" --provider "$prov" --timeout 40 \
        "$SCHED" "$@" >out 2>err
    rc=$?
    ms=$(($(now_ms) - t0))
}

# nnz SPEC P: the canonical name and the nonzero off-diagonal entries (=
# network messages of a direct algorithm, from prog_workload's fan-out
# average).
nnz() {
    "$WL" "$1" "$2" 1 | awk -v p="$2" '{
        for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
        printf "%s %d\n", $2, v["fanout_avg"] * p + 0.5 }'
}

# msgs SPEC: the lp column's message count (the last) in cm5sched's table.
msgs() {
    awk -v w="# workload $1 " 'index($0, w) == 1 { f = 1; next }
        f && $1 == "16" { print $NF; exit }' out
}

printf '0 1 0 2\n3,0,4,0\n0 0 0 5\n6 0 7 0\n' >m.csv
have_metis=1
"$WL" mesh:airfoil2800 2 >/dev/null 2>wl.err ||
    { grep -q "need METIS" wl.err && have_metis=0; }

# ---- every kind through lp on 4 nodes (shm), bytes verified ------------
set --
for k in $KINDS; do
    [ $have_metis = 0 ] && [ "${k#mesh:}" != "$k" ] && continue
    set -- "$@" --workload "$k"
done
run 4 shm --alg lp "$@" --sizes 16 --reps 1 --warmup 0
for k in $KINDS; do
    desc="$k on 4 nodes (shm): every byte verified, one message per entry"
    if [ $have_metis = 0 ] && [ "${k#mesh:}" != "$k" ]; then
        skip "$desc" "METIS (libmetis.so.5) not installed"
        continue
    fi
    set -- $(nnz "$k" 4)
    want=$2
    got=$(msgs "$1")
    check "$desc ($want)" \
        '[ "$rc" -eq 0 ] && [ -n "$want" ] && [ "$got" = "$want" ]'
done

# ---- tcp, 6 nodes ------------------------------------------------------
set -- --workload density:d=5
[ $have_metis = 1 ] && set -- "$@" --workload mesh:airfoil9428
run 6 tcp --alg lp "$@" --sizes 16 --reps 1 --warmup 0
check "density:d=5 on 6 nodes (tcp): 30 messages, bytes verified ($ms ms)" \
    '[ "$rc" -eq 0 ] && [ "$(msgs density:d=5)" = 30 ]'
if [ $have_metis = 1 ]; then
    want=$(nnz mesh:airfoil9428 6 | cut -d' ' -f2)
    check "mesh:airfoil9428 on 6 nodes (tcp): $want messages, bytes verified" \
        '[ "$rc" -eq 0 ] && [ "$(msgs mesh:airfoil9428)" = "$want" ]'
else
    skip "mesh:airfoil9428 on 6 nodes (tcp)" "METIS not installed"
fi

# ---- 32-part mesh matrices against wang1993 5.3 -------------------------
# (paper: fan-out 15/3/9.25, 16/3/10.5, 18/6/10.81; lengths 36, 99, 276 at
# most, averages 14.2, 32.04, 93.21).  Our meshes are stand-ins and METIS
# cuts more evenly: fan-out average 7..12, the longest message within a
# factor 2.5 of the paper's, the average within a factor 2.
# mesh NAME FANMAX LENMAX LENAVG
mesh() {
    desc="mesh:$1 on 32 parts: fan-out and lengths near wang1993's"
    if [ $have_metis = 0 ]; then
        skip "$desc" "METIS not installed"
        return
    fi
    line=$("$WL" "mesh:$1" 32 1)
    what="prog_workload mesh:$1 32 1: $line"
    rc=0 ms=0
    check "$desc" "echo '$line' | awk -v fm=$2 -v lm=$3 -v la=$4 '{
        for (i = 1; i <= NF; i++) { split(\$i, kv, \"=\"); v[kv[1]] = kv[2] }
        exit !(v[\"fanout_avg\"] >= 7 && v[\"fanout_avg\"] <= 12 &&
               v[\"fanout_max\"] <= fm + 4 && v[\"fanout_min\"] >= 2 &&
               v[\"len_min\"] == 1 && v[\"len_max\"] * 2.5 >= lm &&
               v[\"len_max\"] <= lm * 2.5 && v[\"len_avg\"] * 2 >= la &&
               v[\"len_avg\"] <= la * 2) }'"
}
mesh airfoil2800 15 36 14.2
mesh airfoil9428 16 99 32.04
mesh airfoil53961 18 276 93.21

# part=grow (greedy growing, the Table 6 reproduction's cut; no METIS
# needed): its halo traffic, fan-out average x length average, within
# 10 % of the paper's partitions' (9.25 x 14.2, 10.5 x 32.04, 10.81 x
# 93.21); METIS's is 30-38 % short.
# grown NAME FANAVG LENAVG
grown() {
    line=$("$WL" "mesh:$1,part=grow" 32 1)
    what="prog_workload mesh:$1,part=grow 32 1: $line"
    rc=0 ms=0
    check "mesh:$1,part=grow on 32 parts: halo traffic within 10 % of wang1993's" \
        "echo '$line' | awk -v f=$2 -v l=$3 '{
        for (i = 1; i <= NF; i++) { split(\$i, kv, \"=\"); v[kv[1]] = kv[2] }
        t = v[\"fanout_avg\"] * v[\"len_avg\"]
        exit !(t >= 0.9 * f * l && t <= 1.1 * f * l && v[\"len_min\"] == 1) }'"
}
grown airfoil2800 9.25 14.2
grown airfoil9428 10.5 32.04
grown airfoil53961 10.81 93.21

# ---- a bad spec ---------------------------------------------------------
run 4 shm --alg lp --workload density:d=4 --sizes 16
check "density:d=4 on 4 nodes: one error line naming d and p, no hang" \
    '[ "$rc" -ne 0 ] && grep -q "d=4 must be less than p=4" err &&
     [ "$ms" -lt 30000 ]'
