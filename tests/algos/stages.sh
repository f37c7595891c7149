#!/bin/sh
# ranka1995's two-stage algorithm and liu2002's A2 through prog_a2av
# (every byte checked on every node) on 1, 2, 3, 5, 8, 16 and 31 nodes
# over shm and tcp, with random, exact, uniform, full, hotspot,
# permutation and zero matrices, stg1_rotate, stg1_shuffle, dense and
# sparse headers, A2 after Bader, 8-byte elements, interrupts, recv=am,
# the DRS_N engine, and the stages' data by CMAML_scopy (the default, on
# shm, tcp and udp) and by CMMD messages (twostage_data=cmmd).
# Asserts from node 0's stats line: two stages; the stage-1 messages at
# most ceil(t/p) (exactly ceil(t/p) on equal traffic), at most t/p + p
# with Bader's bins; the stage-2 messages at most t/p + p; the step counts
# (LP with a barrier: 2^ceil(log2 P) - 1 per stage; A2: P - 1).  TAP.
#
#   abs_top_builddir=BUILD sh tests/algos/stages.sh

PLAN=50
: "${abs_top_builddir:=$(pwd)}"
CM5RUN=$abs_top_builddir/tools/cm5run
PROG=$abs_top_builddir/tests/algos/prog_a2av

. "${abs_top_srcdir:-$(dirname "$0")/../..}/tests/algos/lib.sh"

# Steps of one LP stage: 2^ceil(log2 P) - 1.
lp_steps() {
    s=1
    while [ $s -lt "$1" ]; do s=$((s * 2)); done
    echo $((s - 1))
}

# bounds P KIND [bader]: the stage-1 and stage-2 bounds of ALGORITHMS.md
# 2.3 on the job's stats (integers: s2 * P <= t + P^2).
bounds() {
    t=$(val t) s1=$(val stage1_maxlen) s2=$(val stage2_maxlen)
    c=$(((t + $1 - 1) / $1))
    if [ "$2" = bader ]; then
        s1ok=$([ $((s1 * $1)) -le $((t + $1 * $1)) ] && echo 1)
    else
        s1ok=$([ "$s1" -le "$c" ] && echo 1)
    fi
    [ "$s1ok" = 1 ] && [ $((s2 * $1)) -le $((t + $1 * $1)) ] &&
        [ "$(val nstages)" = 2 ]
}

# job DESC NODES PROVIDER ALG ARGS...: run, check the bytes (prog_a2av),
# then the bounds and the steps.
job() {
    desc=$1 jn=$2
    shift
    run 40 "$@"
    check "$desc ($ms ms)" good
    kind=ranka
    case "$*" in *a2=bader*) kind=bader ;; esac
    if [ "$jn" -eq 1 ]; then
        check "$desc: p=1 moves nothing" '[ "$(val msgs)" = 0 ]'
        return
    fi
    check "$desc: stage 1 <= ceil(t/p) ($kind), stage 2 <= t/p + p: $(grep -o 't=[0-9]*' out) s1=$(val stage1_maxlen) s2=$(val stage2_maxlen)" \
        "bounds $jn $kind"
}

# ---- two-stage (modified LP per stage) --------------------------------
job "two-stage p=1 shm" 1 shm two-stage --matrix random
job "two-stage p=2 tcp: permutation, 2 calls" 2 tcp two-stage \
    --matrix permutation --max 300 --reps 2 --seed 4
check "two-stage p=2: 1 + 1 steps" '[ "$(val phases)" = 2 ]'
job "two-stage p=3 shm: full, dense headers" 3 shm two-stage --matrix full \
    --max 200 -o hdr_format=dense
check "two-stage p=3: 3 + 3 LP steps" '[ "$(val stage1_steps)" = 3 ] &&
    [ "$(val stage2_steps)" = 3 ] && [ "$(val phases)" = 6 ]'
job "two-stage p=5 shm: random, stg1_rotate, interrupts, recv=am, 2 calls" \
    5 shm two-stage --matrix random --max 100 -o stg1_rotate=1 \
    -o interrupts=1 -o recv=am --reps 2
job "two-stage p=5 tcp: hotspot, sparse headers" 5 tcp two-stage \
    --matrix hotspot --max 97 -o hdr_format=sparse
job "two-stage p=8 shm: uniform d=3 (equal traffic)" 8 shm two-stage \
    --matrix uniform --density 3 --max 37
check "two-stage p=8 uniform: largest stage-1 message exactly ceil(t/p)" \
    '[ "$(val stage1_maxlen)" = $((($(val t) + 7) / 8)) ]'
check "two-stage p=8: 7 + 7 LP steps" '[ "$(val phases)" = 14 ]'
job "two-stage p=8 tcp: exact d=4, stg1_shuffle, dense" 8 tcp two-stage \
    --matrix exact --density 4 --max 150 -o stg1_shuffle=1 \
    -o hdr_format=dense
job "two-stage p=8 shm: full, 8-byte elements, shuffle + rotate" 8 shm \
    two-stage --matrix full --max 40 -o elem_size=8 -o stg1_shuffle=1 \
    -o stg1_rotate=1 --seed 3
job "two-stage p=2 shm: zero matrix" 2 shm two-stage --matrix zero
check "two-stage zero: no message, no step" '[ "$(val msgs)" = 0 ] &&
    [ "$(val phases)" = 0 ]'
job "two-stage p=16 shm: random, sparse headers" 16 shm two-stage \
    --matrix random --density 4 --max 64 -o hdr_format=sparse
check "two-stage p=16: 15 + 15 LP steps" '[ "$(val phases)" = 30 ]'

# ---- the stages' data by CMAML_scopy (the default) or CMMD messages -----
job "two-stage p=8 udp: random, data by scopy, 3 calls" 8 udp two-stage \
    --matrix random --density 5 --max 120 --reps 3 --seed 7
for d in scopy cmmd; do
    run 40 6 shm two-stage --matrix random --density 4 --max 90 --seed 5 \
        -o twostage_data=$d
    eval "ok_$d=\$(good && echo 1)"
    eval "c_$d='$(val msgs) $(val bytes) $(val phases) $(val stage1_maxlen) $(val stage2_maxlen)'"
done
check "two-stage p=6: data by scopy and by CMMD, every byte right, the same messages, bytes, steps and stage bounds ($c_scopy)" \
    '[ "$ok_scopy" = 1 ] && [ "$ok_cmmd" = 1 ] && [ "$c_scopy" = "$c_cmmd" ]'
job "two-stage p=5 tcp: hotspot, data by CMMD, interrupts, 2 calls" 5 tcp \
    two-stage --matrix hotspot --max 97 -o twostage_data=cmmd \
    -o interrupts=1 --reps 2
job "two-stage p=7 shm: full, data by scopy, interrupts, recv=am" 7 shm \
    two-stage --matrix full --max 50 -o interrupts=1 -o recv=am
timeout -k 2 30 "$CM5RUN" -n 4 --timeout 20 "$abs_top_builddir/tools/cm5sched" \
    --alg two-stage -o twostage_data=rdma >out 2>err
rc=$?
check "cm5sched -o twostage_data=rdma: refused in one line naming the option, exit 2" \
    '[ "$rc" -eq 2 ] && [ "$(grep -c "twostage_data: .rdma. is not scopy or cmmd" err)" -eq 1 ]'

# ---- A2 (two all-to-alls in the A1 shift order) ------------------------
job "a2 p=3 tcp: permutation, sparse" 3 tcp a2 --matrix permutation \
    --max 500 -o hdr_format=sparse --seed 4
check "a2 p=3: 2 + 2 shift steps" '[ "$(val stage1_steps)" = 2 ] &&
    [ "$(val phases)" = 4 ]'
job "a2 p=5 tcp: random, Bader's bins" 5 tcp a2 --matrix random --max 90 \
    -o a2=bader
check "a2 p=5: 4 + 4 shift steps" '[ "$(val phases)" = 8 ]'
job "a2 p=8 shm: hotspot, Bader's bins, 8-byte elements" 8 shm a2 \
    --matrix hotspot --max 61 -o a2=bader -o elem_size=8
job "a2 p=8 tcp: uniform d=5 (equal traffic), 2 calls" 8 tcp a2 \
    --matrix uniform --density 5 --max 43 --reps 2
check "a2 p=8 uniform: largest stage-1 message exactly ceil(t/p)" \
    '[ "$(val stage1_maxlen)" = $((($(val t) + 7) / 8)) ]'
job "a2 p=31 shm: full (one large partition)" 31 shm a2 --matrix full \
    --max 30
check "a2 p=31: 30 + 30 shift steps" '[ "$(val phases)" = 60 ]'

# ---- DRS_N as the stage engine (only once DRS_N is built) --------------
run 40 5 shm two-stage --matrix random --max 80 -o twostage_engine=drsn
if grep -q "algorithm not built yet" err; then
    n=$((n + 1))
    echo "ok $n - two-stage p=5 shm with twostage_engine=drsn # SKIP drsn is not built yet"
    n=$((n + 1))
    echo "ok $n - two-stage drsn bounds # SKIP drsn is not built yet"
else
    check "two-stage p=5 shm, twostage_engine=drsn ($ms ms)" good
    check "two-stage drsn: bounds hold, inquiries counted" \
        'bounds 5 ranka && [ "$(val inquiries)" -gt 0 ]'
fi

echo "# $n tests in $(($(date +%s) - t_start)) s"
[ "$n" -eq "$PLAN" ] || echo "# planned $PLAN tests, ran $n"
