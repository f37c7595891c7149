#!/bin/sh
# bench/mpi_bcast_port.c, the s-to-p broadcasting plans over MPI
# point-to-point (issue 11): built with mpicc, it runs all eight
# algorithms on several distributions (unit 1 and 1000 bytes) on 4 nodes
# (2x2), 7 (1x7, prime), 16 (4x4) and 16 on a skewed 2x8 mesh, every byte
# checked on every rank, one CSV row per run; on the skewed mesh the plan
# it runs is cm5sched's (iterations, messages and bytes of every
# algorithm equal those of cm5sched --bcast over cm5fab on the same
# inputs); a corrupted byte is caught and named; bad arguments give one
# line and exit 2; every job is bounded in time and leaves no process
# behind.  Skips (one line) without mpicc or mpirun.  TAP.
#
#   abs_top_builddir=BUILD abs_top_srcdir=SRC sh tests/algos/mpi_port.sh

: "${abs_top_builddir:=$(pwd)}"
: "${abs_top_srcdir:=$abs_top_builddir}"
B=$abs_top_builddir
S=$abs_top_srcdir
MPICC=${MPICC:-mpicc}
MPIRUN=${MPIRUN:-mpirun}
if ! command -v "$MPICC" >/dev/null 2>&1 ||
    ! command -v "$MPIRUN" >/dev/null 2>&1; then
    echo "1..0 # SKIP no $MPICC or $MPIRUN (apt-get install libopenmpi-dev openmpi-bin)"
    exit 0
fi
unset CM5_TIMEOUT CM5_PROVIDER CM5_LOG_LEVEL CM5_VERBOSE_ENV FI_PROVIDER \
    MPIPORT_TEST_CORRUPT CM5SCHED_TEST_CORRUPT
export FI_TCP_IFACE=lo FI_SOCKETS_IFACE=lo

. "$(dirname "$0")/../tap.sh"
tap_begin cm5mpi_port 11
ALGS="br_lin br_xy_source br_xy_dim xor 2step repos part_lin part_xy_source"

what="mpicc bench/mpi_bcast_port.c"
"$MPICC" -O2 -std=c11 -D_GNU_SOURCE -I"$S/algos" -I"$S/algos/api" \
    -I"$S/am/api" -I"$B" "$S/bench/mpi_bcast_port.c" "$S/algos/plan_bcast.c" \
    "$S/algos/plan_bcast_dist.c" -o port -L"$B/.libs" -lcm5sched -lcm5fab \
    -lm -Wl,-rpath,"$B/.libs" >out 2>err
rc=$?
check "mpi_bcast_port builds with $MPICC, the planners compiled in" \
    '[ $rc = 0 ] && [ -x port ]'

# mpi SECONDS NP ARGS...: one mpirun job of the port, bounded in time
# (out, err, rc, ms).  Its processes carry a mark in their environment:
# any left behind are counted in $left, killed (they are ours) and named.
mpi_n=0 left=0
mpi() {
    t=$1 np=$2
    shift 2
    mpi_n=$((mpi_n + 1))
    mark=cm5port-$$-$mpi_n
    what="mpirun -np $np port $*"
    t0=$(now_ms)
    CM5TEST_MARK=$mark timeout -k 5 "$t" "$MPIRUN" --allow-run-as-root \
        --oversubscribe -x CM5TEST_MARK -x MPIPORT_TEST_CORRUPT -np "$np" \
        ./port "$@" >out 2>err
    rc=$?
    ms=$(($(now_ms) - t0))
    pids=$(grep -l "CM5TEST_MARK=$mark" /proc/[0-9]*/environ 2>/dev/null |
        cut -d/ -f3)
    if [ -n "$pids" ]; then
        left=$((left + $(echo $pids | wc -w)))
        # shellcheck disable=SC2086 # a list of pids
        kill -KILL $pids 2>/dev/null
        echo "# $what left behind: $pids"
    fi
}

# rows ALG: CSV rows of ALG.
rows() { grep -c ",$1," out; }
# all_rows N: every algorithm has exactly N rows, and nothing else is out.
all_rows() {
    for a in $ALGS; do [ "$(rows $a)" = "$1" ] || return 1; done
    [ "$(sed 1d out | wc -l)" = $((8 * $1)) ]
}
# job NP MESH WORKLOADS...: all eight on these, units 1 and 1000.
job() {
    np=$1 m=$2
    shift 2
    set -- $(printf -- '-w %s ' "$@")
    mpi 240 "$np" -a all -m "$m" "$@" -z 1,1000 -r 1 -W 1
}
for t in "4 2x2 row cross:s=2 equal:s=3 random:s=3,L=1:4 dr:s=2" \
    "7 1x7 row equal:s=3 random:s=4,L=1:5 col" \
    "16 4x4 cross:s=6 block:s=4 band:s=5 equal:s=7 row:s=5" \
    "16 2x8 cross:s=5 equal:s=6 random:s=9,L=1:3 dl:s=4"; do
    # shellcheck disable=SC2086
    set -- $t
    np=$1 m=$2
    shift 2
    nw=$#
    job $np $m "$@"
    check "p = $np ($m): all eight on $nw distributions x 2 units, every byte checked, $((nw * 2)) rows each" \
        '[ $rc = 0 ] && all_rows $((nw * 2)) && ! grep -q "wrong\|past the end" err'
done

# The plan is cm5sched's: the same iterations, messages and bytes per
# algorithm, distribution and unit on the skewed mesh.
cp out port.csv
what="cm5run -n 16 cm5sched --bcast all (2x8)"
timeout -k 5 250 "$B/tools/cm5run" -n 16 --timeout 240 "$B/tools/cm5sched" \
    --bcast all --mesh 2x8 --workload cross:s=5 --workload equal:s=6 \
    --workload 'random:s=9,L=1:3' --workload dl:s=4 --sizes 1,1000 \
    --reps 1 --warmup 0 --csv native.csv --quiet >out 2>err
rc=$?
cmp_plans() {
    python3 - native.csv port.csv <<'EOF'
import csv, sys
def rows(f):
    return {(r["workload"], r["alg"], r["size"]):
            (r["phases"], r["msgs"], r["bytes"]) for r in csv.DictReader(open(f))}
a, b = rows(sys.argv[1]), rows(sys.argv[2])
bad = [k for k in a if a[k] != b.get(k)]
for k in bad[:5]:
    print("differs:", k, a[k], b.get(k), file=sys.stderr)
sys.exit(1 if bad or len(a) != 64 or set(a) != set(b) else 0)
EOF
}
if command -v python3 >/dev/null 2>&1; then
    check "2x8: iterations, messages and bytes of all 64 runs equal cm5sched's over cm5fab" \
        '[ $rc = 0 ] && cmp_plans 2>why'
else
    skip "2x8: the port's plan is cm5sched's" "no python3"
fi

export MPIPORT_TEST_CORRUPT=2:5
mpi 120 4 -a br_lin,xor -w cross:s=2 -m 2x2 -z 16 -r 1 -W 0
unset MPIPORT_TEST_CORRUPT
check "a corrupted byte on rank 2 is caught: exit 1, one line naming rank, algorithm, distribution and source" \
    '[ $rc = 1 ] && [ "$(grep -c "^mpi_bcast_port:" err)" = 1 ] &&
     grep -q "^mpi_bcast_port: rank 2: br_lin, distribution cross:s=2, size 16: byte 5 of source 0.s message is wrong$" err'

mpi 60 4 -a br_lin,nosuch -w row -m 2x2
check "an unknown algorithm: exit 2, one line" \
    '[ $rc = 2 ] && [ "$(grep -c "^mpi_bcast_port:" err)" = 1 ] &&
     grep -q "unknown algorithm.*nosuch" err'
mpi 60 4 -a br_lin -w row -m 3x3
check "a mesh that is not p: exit 2, one line" \
    '[ $rc = 2 ] && [ "$(grep -c "^mpi_bcast_port:" err)" = 1 ] &&
     grep -q "^mpi_bcast_port: -m: mesh 3 x 3" err'
mpi 60 4 -a br_lin -w row:s=9 -m 2x2
check "more sources than nodes: exit 2, one line" \
    '[ $rc = 2 ] && [ "$(grep -c "^mpi_bcast_port:" err)" = 1 ]'

what="all $mpi_n mpirun jobs"
check "no process of any of the $mpi_n jobs left behind" '[ $left = 0 ]'
